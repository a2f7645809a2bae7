/**
 * s15_subagents: the loop hands sub-tasks to child loops.
 *
 * Unlike s14, the model gets a `task` tool (task-tool.ts): each call runs this same loop as a
 * child, on a fresh history holding only the task's prompt, with read-only tools the parent has,
 * its own guards and a share of the parent's remaining budget. Only the child's final answer
 * comes back, as the task call's tool_result; the child's transcript is its own, saved beside the
 * parent's. Several task calls in one turn run at the same time (read-only, s03). A child that
 * stops on a guard or fails is an is_error result; its tokens count in the parent's budget; agents
 * nest at most maxDepth deep. It reaches s14's loop as two hooks (s11's extend.ts): `tools` adds
 * the task tool, `counted` passes every response's tokens up to the parent.
 *
 * Run: npm run lesson s15 -- --solution ["your task"]
 */
import { join } from "node:path";
import type Anthropic from "@anthropic-ai/sdk";
import type { Llm } from "../../runtime/client.ts";
import { lesson, transcriptOf } from "../../runtime/lesson.ts";
import { dim, say } from "../../runtime/print.ts";
import { S15_TASK, SAMPLE_REPOSITORY } from "../../runtime/tasks.ts";
import { describeOutcome } from "../../solutions/s05_stop_reasons/outcome.ts";
import { tokensOf } from "../../solutions/s06_guards/guards.ts";
import { refuseAll } from "../../solutions/s07_safe_tools/approval.ts";
import { createLogger } from "../../solutions/s09_observability/log.ts";
import type { Extension } from "../../solutions/s11_recovery/extend.ts";
import { runAgent as planningLoop, DEFAULT_MAX_TOKENS, system, withTool, type RecoveredOutcome, type RunOptions as PlanningOptions } from "../../solutions/s14_planning/agent.ts";
import { MAX_DEPTH, saveChildren, taskTool, type ChildRun } from "./task-tool.ts";
import { RUNS_DIR } from "../../solutions/s09_observability/jsonl.ts";

export { system, DEFAULT_MAX_TOKENS, type RecoveredOutcome };

export interface RunOptions extends PlanningOptions {
  /** This agent's depth: 0 for the top one; a child runs at its parent's depth + 1. */
  depth?: number;
  /** Agents nest at most this deep (default MAX_DEPTH); an agent at maxDepth gets no task tool. */
  maxDepth?: number;
  /** Every child run when it ends (its transcript, how it ended), children's children included. */
  onChild?: (child: ChildRun) => void;
  /** The tokens of every response, this agent's and its children's (a parent's budget counts them). */
  onTokens?: (n: number) => void;
}

// #region loop
/** NEW: above maxDepth, a task tool: this same loop as a child, fresh history, some read-only tools, its own guards and a share of this budget. */
export const delegating =
  (llm: Llm, opts: RunOptions): Extension =>
  ({ guard, root, gated }) => ({
    tools: (own) => {
      const depth = opts.depth ?? 0;
      const maxDepth = opts.maxDepth ?? MAX_DEPTH;
      // A child's calls pass this run's gate (its `dispatch` wrappers: s18's rules, s19's hooks).
      // A child's tokens count here as they are spent, and go on up to this agent's own parent.
      const spend = (n: number) => {
        guard.used += n;
        opts.onTokens?.(n);
      };
      const onChild = opts.onChild ? { onChild: opts.onChild } : {};
      const task = taskTool({ parent: own, guard, depth, spend, ...onChild, runChild: (h, child) => runAgent(llm, h, { root, maxDepth, cache: opts.cache ?? true, ...onChild, ...child, extensions: [() => ({ dispatch: gated })] }) });
      return depth < maxDepth ? withTool(own, task) : own;
    },
    // NEW: this agent's own responses, passed up to its parent's budget (cache tokens included).
    counted: (response) => opts.onTokens?.(tokensOf(response.usage)),
  });

/** s14's loop, delegating. `history` grows in place; returns how the run ended. */
export function runAgent(llm: Llm, history: Anthropic.MessageParam[], opts: RunOptions = {}): Promise<RecoveredOutcome> {
  return planningLoop(llm, history, { ...opts, extensions: [delegating(llm, opts), ...(opts.extensions ?? [])] });
}
// #endregion loop

/** The default task on a scratch copy of the sample repository. */
export const demo = (llm: Llm, task = S15_TASK) =>
  transcriptOf(task, SAMPLE_REPOSITORY, (history, root) => runAgent(llm, history, { root, approve: refuseAll }));

const children: ChildRun[] = [];
lesson(import.meta.url, {
  task: S15_TASK,
  // The run's requests include its subagents' (the harness's net counts them all).
  requestLimit: 200,
  workspace: SAMPLE_REPOSITORY,
  run: ({ llm, history, root, signal, flag }) =>
    runAgent(llm, history, {
      root,
      signal,
      onEvent: createLogger({ verbose: flag("verbose") }),
      onChild: (c) => {
        children.push(c);
        say(dim(`  ↳ subagent ${c.id} "${c.description}" (depth ${c.depth}): ${c.outcome ? describeOutcome(c.outcome) : `failed: ${c.error}`}, ${c.history.length} messages of its own`));
      },
    }),
  printAnswer: false,
  after: () => {
    const files = saveChildren(join(RUNS_DIR, `s15-${Date.now()}`), children);
    if (files.length > 0) say(dim(`children's transcripts: ${files.join(", ")}`));
  },
});
