/**
 * s15 · the `task` tool: a sub-task handed to a child loop.
 *
 * The child is the same loop, started on a FRESH history (only the task's prompt), with a subset
 * of the parent's tools, its own guards and a share of what is left of the parent's token budget.
 * Only its final answer comes back, as the task call's tool_result; its transcript stays its own
 * (handed to `onChild`, saved beside the parent's). A child that stops on a guard, or fails,
 * becomes an is_error result, never an exception in the parent. Every token a child spends (and
 * its own children) counts in the parent's budget as it is spent, cache tokens included.
 *
 * Children get read-only tools only: the parent runs independent tasks at the same time (the task
 * tool is read-only for s03's batches), and two children that could write would race. A child
 * never gets a tool its parent does not have, and below `maxDepth` there is no task tool at all.
 */
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type Anthropic from "@anthropic-ai/sdk";
import { z } from "zod";
import { todo } from "../../runtime/lesson.ts";
import { ToolError } from "../../runtime/tools/files.ts";
import type { ToolRegistry } from "../../solutions/s02_tool_dispatch/registry.ts";
import { SafeToolRegistry, defineTool, type CheckedTool } from "../../solutions/s04_tool_errors/define-tool.ts";
import { describeOutcome, type Outcome } from "../../solutions/s05_stop_reasons/outcome.ts";
import type { Guards, RunGuards } from "../../solutions/s06_guards/guards.ts";

/** A child's own limits (its budget is a share of the parent's, below). */
export const CHILD_GUARDS: Partial<Guards> = { maxTurns: 12, timeoutMs: 120_000 };
/** The share of the parent's remaining budget one child may spend. */
export const CHILD_SHARE = 0.5;
/** Below this many tokens a child could not do anything useful: the task is refused instead. */
export const MIN_CHILD_BUDGET = 1_000;
/** Agents nest at most this deep: the parent is depth 0; an agent at maxDepth has no task tool. */
export const MAX_DEPTH = 2;

/** One child's run, for its transcript to be saved beside the parent's. */
export interface ChildRun {
  id: string;
  description: string;
  depth: number;
  history: Anthropic.MessageParam[];
  outcome?: Outcome<string>;
  error?: string;
  startedAt: number;
  endedAt: number;
}

/** What a child run is given by the task tool. */
export interface ChildOptions {
  registry: ToolRegistry;
  guards: Partial<Guards>;
  signal: AbortSignal;
  depth: number;
  /** Called with the tokens of every response the child (or its own children) receives. */
  onTokens: (n: number) => void;
}

export interface TaskToolOptions {
  /** The parent's tools: a child gets some of its read-only ones. */
  parent: ToolRegistry;
  /** The parent's guards: the budget the children share, and count into. */
  guard: RunGuards;
  /** The parent's depth (0 for the top agent). */
  depth: number;
  /** The loop itself, run for a child. */
  runChild(history: Anthropic.MessageParam[], opts: ChildOptions): Promise<Outcome<string>>;
  /** Tokens the parent spends through its children (the parent passes them up in turn). */
  spend(n: number): void;
  onChild?: (child: ChildRun) => void;
}

/** The text of a finished child's final answer. */
function answerOf(outcome: Outcome<string>): string {
  const text = outcome.message?.content.flatMap((b) => (b.type === "text" ? [b.text] : [])).join("\n").trim();
  return text || "(the subagent finished without a text answer)";
}

// #region task-tool
export function taskTool(opts: TaskToolOptions): CheckedTool {
  const readOnly = opts.parent.names().filter((n) => opts.parent.get(n)?.readOnly && n !== "task");
  const running = new Map<string, { share: number; spent: number }>();
  let count = 0;
  return defineTool({
    name: "task",
    description:
      "Hand a self-contained sub-task to a subagent that starts with an empty history: give it everything it needs in `prompt`. " +
      `It may use only the tools you list (read-only ones of yours: ${readOnly.join(", ") || "none"}). Only its final answer comes back. ` +
      "Several task calls in one turn run at the same time.",
    input: z.object({
      description: z.string().min(1).max(80).describe("A few words: what the subagent does"),
      prompt: z.string().min(1).describe("The whole task for the subagent"),
      tools: z.array(z.string()).optional().describe(`The tools it may use (default: all of ${readOnly.join(", ")})`),
    }),
    readOnly: true,
    timeoutMs: 10 * 60_000,
    run: async ({ description, prompt, tools }, ctx) => {
      // A child never gets more than its parent: read-only tools the parent has, nothing else.
      const asked = tools ?? readOnly;
      const refused = asked.filter((t) => !readOnly.includes(t));
      if (refused.length > 0)
        throw new ToolError(`a subagent may only have read-only tools you have (${readOnly.join(", ")}), not ${refused.join(", ")}. Nothing was run.`);
      // Its budget: a share of what the parent has left, minus what running children may still spend.
      const outstanding = [...running.values()].reduce((n, r) => n + Math.max(0, r.share - r.spent), 0);
      const left = opts.guard.limits.tokenBudget - opts.guard.used - outstanding;
      const share = Math.floor(left * CHILD_SHARE);
      if (share < MIN_CHILD_BUDGET) throw new ToolError(`only ${Math.max(0, left)} tokens of the budget are left: not enough for a subagent. Do it yourself, or answer.`);
      const id = `child-${++count}`;
      const mine = { share, spent: 0 };
      running.set(id, mine);
      const history: Anthropic.MessageParam[] = [{ role: "user", content: prompt }];
      const child: ChildRun = { id, description, depth: opts.depth + 1, history, startedAt: Date.now(), endedAt: 0 };
      try {
        // TODO: run the child: opts.runChild(history, { registry: a SafeToolRegistry of the asked
        //       tools (opts.parent.get(name)), guards: { ...CHILD_GUARDS, tokenBudget: share },
        //       signal: ctx.signal, depth: opts.depth + 1, onTokens: (n) => { mine.spent += n;
        //       opts.spend(n) } }), and keep its outcome in child.outcome.
        //       If it throws: note child.error and throw a ToolError that says the subagent failed.
        void [SafeToolRegistry, CHILD_GUARDS, asked, share, mine]; // (delete this line when you use them)
        todo(`s15 task: run the subagent "${description}" on its fresh history, depth ${opts.depth + 1}`);
      } finally {
        running.delete(id);
        child.endedAt = Date.now();
        opts.onChild?.(child);
      }
      // TODO: a child that did not finish (child.outcome.status is not "done") is a ToolError that
      //       says so (describeOutcome); otherwise its final answer is the result: answerOf(…).
      void [describeOutcome, answerOf]; // (delete this line when you use them)
      return todo(`s15 task: only the child's final answer returns (or an error when it stopped)`);
    },
  });
}
// #endregion task-tool

/** Writes each child's transcript beside the parent's run log: .course/runs/<run>/<child>.json. */
export function saveChildren(dir: string, children: ChildRun[]): string[] {
  mkdirSync(dir, { recursive: true });
  return children.map((c) => {
    const file = join(dir, `${c.id}-depth${c.depth}.json`);
    writeFileSync(file, JSON.stringify({ description: c.description, depth: c.depth, outcome: c.outcome ? describeOutcome(c.outcome) : c.error, messages: c.history }, null, 1));
    return file;
  });
}
