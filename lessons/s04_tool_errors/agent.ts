/**
 * s04_tool_errors: errors are observations.
 *
 * Unlike s03, whose registry let any exception but a ToolError escape and crash the run, the loop
 * now uses `SafeToolRegistry` (define-tool.ts): the tools are defined with zod schemas, and every
 * call is answered whatever happens. Input that does not fit the schema, a tool that throws, a
 * tool that hangs past its timeout: each becomes a tool_result with `is_error: true` and a
 * message the model can act on, and the loop goes on. The loop and runTools are s03's, unchanged
 * (imported): only the registry they are handed is new.
 *
 * Run: npm run lesson s04 ["your task"]    Check: npm run check s04
 * Your work is in define-tool.ts (safeDispatch, then timeoutMessage): this file is complete.
 */
import type Anthropic from "@anthropic-ai/sdk";
import type { Llm } from "../../runtime/client.ts";
import { lesson, transcriptOf } from "../../runtime/lesson.ts";
import { say } from "../../runtime/print.ts";
import { S04_TASK, S04_WORKSPACE } from "../../runtime/tasks.ts";
import type { ToolContext, ToolRegistry } from "../../solutions/s02_tool_dispatch/registry.ts";
import { agentLoop as parallelLoop } from "../../solutions/s03_parallel_tools/agent.ts";
import { SafeToolRegistry } from "./define-tool.ts";
import { checkedTools, readJson, waitForFile } from "./tools.ts";

export { system } from "../../solutions/s03_parallel_tools/agent.ts";

// #region loop
/**
 * The loop is s03's, unchanged: the registry it is handed is now a SafeToolRegistry, whose
 * dispatch is safeDispatch, so every call is answered, failed or not, and no tool crashes the run.
 */
export function agentLoop(
  llm: Llm,
  history: Anthropic.MessageParam[],
  registry: ToolRegistry = new SafeToolRegistry(checkedTools()),
  ctx: ToolContext = { root: process.cwd() },
): Promise<Anthropic.Message> {
  return parallelLoop(llm, history, registry, ctx);
}
// #endregion loop

/** The default task's tools: s02's five, checked, and two that fail (one throws, one hangs). */
export function demoRegistry(): SafeToolRegistry {
  return new SafeToolRegistry([...checkedTools(), readJson, waitForFile]);
}

/** The lesson's default task in a scratch workspace; returns the transcript. */
export const demo = (llm: Llm, task = S04_TASK) => transcriptOf(task, S04_WORKSPACE, (history, root) => agentLoop(llm, history, demoRegistry(), { root }));

const registry = demoRegistry();
// The default task works in a scratch workspace with a broken config file; a task of your own works here.
lesson(import.meta.url, {
  task: S04_TASK,
  workspace: S04_WORKSPACE,
  before: () => say(`tools: ${registry.names().join(", ")}`),
  run: ({ llm, history, root }) => agentLoop(llm, history, registry, { root }),
  describe: (final) => `the model's last stop_reason: ${final.stop_reason}`,
  after: (_final, { history }) => {
    const failed = history.flatMap((m) => (Array.isArray(m.content) ? m.content : [])).filter((b) => b.type === "tool_result" && b.is_error);
    say(`(${failed.length} tool results with is_error)`);
  },
});
