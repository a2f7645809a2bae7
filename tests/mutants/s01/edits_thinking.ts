/**
 * MUTANT of s01_agent_loop (edits_thinking): shortens the thinking text to save tokens
 * The s01 grading must fail it, naming the rule: thinking blocks go back unmodified.
 * (A broken copy for tests/runtime/mutants.test.ts; everything but agentLoop is the solution's.)
 */
import type Anthropic from "@anthropic-ai/sdk";
import type { Llm } from "../../../runtime/client.ts";
import { printToolCall, printToolResult } from "../../../runtime/print.ts";
import { runBash } from "../../../runtime/tools/bash.ts";
import { SYSTEM, TOOLS } from "../../../solutions/s01_agent_loop/agent.ts";

export { rawCall, SYSTEM, TOOLS } from "../../../solutions/s01_agent_loop/agent.ts";

export async function agentLoop({ client, model }: Llm, history: Anthropic.MessageParam[]): Promise<Anthropic.Message> {
  while (true) {
    const response = await client.messages.create({ model, max_tokens: 4096, system: SYSTEM, tools: TOOLS, messages: history });
    // BUG: long thoughts are cut to 20 characters before they go back.
    const content = response.content.map((b) => (b.type === "thinking" ? { ...b, thinking: b.thinking.slice(0, 20) } : b));
    history.push({ role: "assistant", content });
    if (response.stop_reason !== "tool_use") return response;
    const results: Anthropic.ToolResultBlockParam[] = [];
    for (const block of response.content) {
      if (block.type !== "tool_use") continue;
      printToolCall(block);
      const output = await runBash((block.input as { command?: unknown }).command);
      printToolResult(output);
      results.push({ type: "tool_result", tool_use_id: block.id, content: output });
    }
    history.push({ role: "user", content: results });
  }
}
