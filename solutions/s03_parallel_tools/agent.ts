/**
 * s03_parallel_tools: several tool calls in one turn, run together when they may.
 *
 * Unlike s02, whose loop ran the calls of a turn one after another, the loop now hands them all
 * to `runTools` (run-tools.ts): read-only calls next to each other run at the same time, any
 * other call runs alone and in order, and every result comes back in ONE user message, in the
 * order the model asked. The registry and the tools are s02's, imported unchanged.
 *
 * Run: npm run lesson s03 -- --solution ["your task"]
 */
import type Anthropic from "@anthropic-ai/sdk";
import type { Llm } from "../../runtime/client.ts";
import { lesson, transcriptOf } from "../../runtime/lesson.ts";
import { dim, printToolCall, printToolResult, say } from "../../runtime/print.ts";
import { textOf } from "../../runtime/transcript.ts";
import { SAMPLE_REPOSITORY as S03_SAMPLE, S03_TASK } from "../../runtime/tasks.ts";
import { ToolRegistry, defaultTools, type ToolContext } from "../../solutions/s02_tool_dispatch/registry.ts";
import { batches, runTools } from "./run-tools.ts";

export const system = (root: string) =>
  `You are a coding agent working in ${root}; tool paths are relative to it. Use the tools to act, then answer briefly.`;

// #region loop
/** The loop. `history` grows in place; returns the model's last response. */
export async function agentLoop(
  { client, model }: Llm,
  history: Anthropic.MessageParam[],
  registry = new ToolRegistry(defaultTools()),
  ctx: ToolContext = { root: process.cwd() },
): Promise<Anthropic.Message> {
  while (true) {
    const response = await client.messages.create({
      model,
      max_tokens: 4096,
      system: system(ctx.root),
      tools: registry.definitions(),
      messages: history,
    });
    // The assistant's turn goes into history exactly as it came: thinking blocks included.
    history.push({ role: "assistant", content: response.content });

    // Any stop_reason but "tool_use" means the model is not waiting for us: the loop ends.
    if (response.stop_reason !== "tool_use") return response;

    // All the calls of the turn at once: read-only ones together, the others alone, in order.
    const calls = response.content.filter((b): b is Anthropic.ToolUseBlock => b.type === "tool_use");
    calls.forEach(printToolCall);
    say(dim(`  run: ${batches(registry, calls).map((b) => b.map((c) => c.name).join(" ‖ ")).join("  →  ")}`));
    const results = await runTools(registry, calls, ctx);
    for (const result of results) printToolResult(textOf(result.content), result.is_error);
    history.push({ role: "user", content: results });
  }
}
// #endregion loop

/** The lesson's default task on a scratch copy of the sample repository; returns the transcript. */
export const demo = (llm: Llm, task = S03_TASK) => transcriptOf(task, S03_SAMPLE, (history, root) => agentLoop(llm, history, new ToolRegistry(defaultTools()), { root }));

const registry = new ToolRegistry(defaultTools());
// The default task works on a scratch copy of examples/login-service; a task of your own works here.
lesson(import.meta.url, {
  task: S03_TASK,
  workspace: S03_SAMPLE,
  before: () => say(`tools: ${registry.names().join(", ")} (read-only: ${registry.names().filter((n) => registry.get(n)?.readOnly).join(", ")})`),
  run: ({ llm, history, root }) => agentLoop(llm, history, registry, { root }),
  describe: (final) => `the model's last stop_reason: ${final.stop_reason}`,
});
