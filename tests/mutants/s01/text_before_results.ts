/**
 * MUTANT of s01_agent_loop (text_before_results): puts a text block before the tool results
 * The s01 grading must fail it, naming the rule: tool_result blocks come first.
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
    history.push({ role: "assistant", content: response.content });
    if (response.stop_reason !== "tool_use") return response;
    const results: Anthropic.ToolResultBlockParam[] = [];
    for (const block of response.content) {
      if (block.type !== "tool_use") continue;
      printToolCall(block);
      const output = await runBash((block.input as { command?: unknown }).command);
      printToolResult(output);
      results.push({ type: "tool_result", tool_use_id: block.id, content: output });
    }
    // BUG: a friendly note first, the results after it.
    history.push({ role: "user", content: [{ type: "text", text: "Here are the results:" }, ...results] });
  }
}
