/**
 * MUTANT of s01_agent_loop (returns_unanswered): returns as soon as the model says something, even while it waits for a tool
 * The s01 grading must fail it, naming the rule: every tool_use answered before the loop stops.
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
    // BUG: any text is taken as the final answer, even next to a tool_use.
    if (response.content.some((b) => b.type === "text")) return response;
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
