/**
 * s14_planning: the model keeps a plan, and the loop keeps it honest.
 *
 * Unlike s13, the loop now owns a to-do list (plan.ts). The model writes it with the `todo` tool,
 * sending the whole list each time; the loop checks it (at most one item in progress) and shows
 * the progress. When the model has not touched the plan for `remindAfter` turns, the loop adds a
 * short reminder to the next user message, as a text block AFTER that turn's tool results: the API
 * refuses a message whose tool results do not come first. Both reach s13's loop as hooks (s11's
 * extend.ts): `tools` adds the todo tool, `answer` the reminder.
 *
 * Run: npm run lesson s14 ["your task"]    Check: npm run check s14
 * Your work is here (the reminder after the results) and in plan.ts (Plan.update, staleReminder).
 */
import type Anthropic from "@anthropic-ai/sdk";
import type { Llm } from "../../runtime/client.ts";
import { lesson, todo, transcriptOf } from "../../runtime/lesson.ts";
import { dim, say } from "../../runtime/print.ts";
import { S14_TASK, SAMPLE_REPOSITORY } from "../../runtime/tasks.ts";
import type { ToolRegistry, ToolSpec } from "../../solutions/s02_tool_dispatch/registry.ts";
import { refuseAll } from "../../solutions/s07_safe_tools/approval.ts";
import { createLogger } from "../../solutions/s09_observability/log.ts";
import { withTools, type Extension } from "../../solutions/s11_recovery/extend.ts";
import { runAgent as cachingLoop, DEFAULT_MAX_TOKENS, system, type RecoveredOutcome, type RunOptions as CachedOptions } from "../../solutions/s13_caching/agent.ts";
import { Plan, staleReminder, todoTool } from "./plan.ts";

export { system, DEFAULT_MAX_TOKENS, type RecoveredOutcome };

/** Turns without a change to the plan before the loop reminds the model of it. */
export const REMIND_AFTER = 3;

export interface RunOptions extends CachedOptions {
  /** The plan (default: a new, empty one). Pass one to keep it across runs, or to read it after. */
  plan?: Plan;
  /** Turns without a change to the plan before a reminder (default REMIND_AFTER). */
  remindAfter?: number;
  /** Called after each turn in which the model wrote the plan (to show the progress). */
  onPlan?: (plan: Plan) => void;
}

/** The registry's tools plus `tool` (unless it already has one by that name); the registry's own calls still go to its dispatch (s11's withTools). */
export function withTool(registry: ToolRegistry, tool: ToolSpec): ToolRegistry {
  return withTools(registry, tool);
}

// #region loop
/** NEW: the plan is the loop's; the model reads and rewrites it through the todo tool. */
export const planning =
  (plan: Plan, opts: RunOptions): Extension =>
  ({ guard }) => ({
    tools: (tools) => withTool(tools, todoTool(plan, () => guard.turns)),
    answer: (results, calls) => {
      if (calls.some((c) => c.name === "todo")) opts.onPlan?.(plan);
      // NEW: a plan left alone for `remindAfter` turns is recalled, in a text block AFTER the
      // results. subtle: tool_result blocks must come first in the message; text before them is refused.
      // TODO: ask staleReminder(plan, guard.turns, opts.remindAfter ?? REMIND_AFTER) for this turn's
      //       reminder; return the content of ONE user message: the results, then (when there is a
      //       reminder) a text block with it. Not before the results, and not as a user message of its own.
      void [staleReminder, REMIND_AFTER, results]; // (delete this line when you use them)
      return todo(`s14 runAgent: answer the ${calls.length} call(s) of turn ${guard.turns}, with the plan's reminder after the results when it is stale`);
    },
  });

/** s13's loop, with a plan. `history` grows in place; returns how the run ended. */
export function runAgent(llm: Llm, history: Anthropic.MessageParam[], opts: RunOptions = {}): Promise<RecoveredOutcome> {
  const plan = opts.plan ?? new Plan();
  return cachingLoop(llm, history, { ...opts, extensions: [planning(plan, opts), ...(opts.extensions ?? [])] });
}
// #endregion loop

/** The default task on a scratch copy of the sample repository (bash commands that write are refused). */
export const demo = (llm: Llm, task = S14_TASK) =>
  transcriptOf(task, SAMPLE_REPOSITORY, (history, root) => runAgent(llm, history, { root, approve: refuseAll }));

lesson(import.meta.url, {
  task: S14_TASK,
  workspace: SAMPLE_REPOSITORY,
  run: ({ llm, history, root, signal, flag }) =>
    runAgent(llm, history, {
      root,
      signal,
      onEvent: createLogger({ verbose: flag("verbose") }),
      onPlan: (plan) => say(dim(plan.render().split("\n").map((l) => `  ${l}`).join("\n"))),
    }),
  printAnswer: false,
});
