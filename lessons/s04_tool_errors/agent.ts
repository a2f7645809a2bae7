/**
 * s04_tool_errors: errors are observations.
 *
 * Unlike s03, whose registry let any exception but a ToolError escape and crash the run, the loop
 * now uses `SafeToolRegistry` (define-tool.ts): the tools are defined with zod schemas, and every
 * call is answered whatever happens. Input that does not fit the schema, a tool that throws, a
 * tool that hangs past its timeout: each becomes a tool_result with `is_error: true` and a
 * message the model can act on, and the loop goes on. runTools (s03) is unchanged.
 *
 * Run: npx tsx lessons/s04_tool_errors/agent.ts ["your task"]    Check: npm run check s04
 * Your work is in define-tool.ts (safeDispatch, then timeoutMessage): this file is complete.
 */
import type Anthropic from "@anthropic-ai/sdk";
import { selectModel, type Llm } from "../../runtime/client.ts";
import { runMain, taskFromArgs } from "../../runtime/lesson.ts";
import { dim, printFinal, printToolCall, printToolResult, say } from "../../runtime/print.ts";
import { textOf } from "../../runtime/transcript.ts";
import { S04_TASK, S04_WORKSPACE } from "../../runtime/tasks.ts";
import { scratchWorkspace } from "../../runtime/tools/files.ts";
import type { ToolContext } from "../../solutions/s02_tool_dispatch/registry.ts";
import { batches, runTools } from "../../solutions/s03_parallel_tools/run-tools.ts";
import { SafeToolRegistry } from "./define-tool.ts";
import { checkedTools, readJson, waitForFile } from "./tools.ts";

export const system = (root: string) =>
  `You are a coding agent working in ${root}; tool paths are relative to it. Use the tools to act, then answer briefly.`;

// #region loop
/** The loop. `history` grows in place; returns the model's last response. */
export async function agentLoop(
  { client, model }: Llm,
  history: Anthropic.MessageParam[],
  registry = new SafeToolRegistry(checkedTools()),
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
    // Each is answered, failed or not: runTools calls registry.dispatch, which is now safeDispatch.
    const calls = response.content.filter((b): b is Anthropic.ToolUseBlock => b.type === "tool_use");
    calls.forEach(printToolCall);
    say(dim(`  run: ${batches(registry, calls).map((b) => b.map((c) => c.name).join(" ‖ ")).join("  →  ")}`));
    const results = await runTools(registry, calls, ctx);
    for (const result of results) printToolResult(textOf(result.content), result.is_error);
    history.push({ role: "user", content: results });
  }
}
// #endregion loop

/** The default task's tools: s02's five, checked, and two that fail (one throws, one hangs). */
export function demoRegistry(): SafeToolRegistry {
  return new SafeToolRegistry([...checkedTools(), readJson, waitForFile]);
}

/** The lesson's default task in a scratch workspace; returns the transcript. */
export async function demo(llm: Llm, task = S04_TASK): Promise<Anthropic.MessageParam[]> {
  const root = await scratchWorkspace(S04_WORKSPACE);
  const history: Anthropic.MessageParam[] = [{ role: "user", content: task }];
  await agentLoop(llm, history, demoRegistry(), { root });
  return history;
}

async function main(): Promise<void> {
  const llm = selectModel();
  say(llm.banner);
  const task = taskFromArgs(S04_TASK);
  // The default task works in a scratch workspace with a broken config file; a task of your own works here.
  const root = task === S04_TASK ? await scratchWorkspace(S04_WORKSPACE) : process.cwd();
  const registry = demoRegistry();
  say(`workspace: ${root}`);
  say(`tools: ${registry.names().join(", ")}`);

  const history: Anthropic.MessageParam[] = [{ role: "user", content: task }];
  const final = await agentLoop(llm, history, registry, { root });
  printFinal(final);
  const failed = history.flatMap((m) => (Array.isArray(m.content) ? m.content : [])).filter((b) => b.type === "tool_result" && b.is_error);
  say(`(${history.length} messages in the transcript, ${failed.length} tool results with is_error, stop_reason: ${final.stop_reason})`);
}

runMain(import.meta.url, main);
