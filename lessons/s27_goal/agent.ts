/**
 * s27_goal: a goal loop. "Done" is judged by someone else.
 *
 * Unlike s22, whose run ended when the model said it was done, the run now has a goal, and the
 * model's "done" is only a claim. When the worker (s22's whole loop) ends with an answer, the
 * runtime gathers evidence itself (it runs the goal's check command in the OS sandbox) and asks a
 * separate evaluator (verdict.ts: a second model call with its own system prompt and no tools but
 * a forced `verdict`, shown only the goal, the answer and that evidence, never the worker's tool
 * calls). Done → the run ends, goal met. Not done → the worker is sent back with what is missing,
 * in a user message marked as the evaluator's words (never the user's), at most maxRounds rounds.
 * An answer that is not one readable verdict stops the run, named, and never counts as met. The
 * outcome says how it ended and what the evaluator cost. Like s19's Stop hook, the goal loop wraps
 * the run: s22's loop and every earlier lesson's rule run unchanged inside each round.
 *
 * Run: npm run lesson s27   (offline: claims done too early, is sent back, fixes the bug)
 */
import type Anthropic from "@anthropic-ai/sdk";
import type { Llm } from "../../runtime/client.ts";
import { lesson, todo, transcriptOf } from "../../runtime/lesson.ts";
import { dim, say, yellow } from "../../runtime/print.ts";
import { lessonTask, SAMPLE_REPOSITORY } from "../../runtime/tasks.ts";
import { textOf } from "../../runtime/transcript.ts";
import type { Outcome } from "../../solutions/s05_stop_reasons/outcome.ts";
import { describeOutcome } from "../../solutions/s05_stop_reasons/outcome.ts";
import { refuseAll } from "../../solutions/s07_safe_tools/approval.ts";
import { createLogger } from "../../solutions/s09_observability/log.ts";
import { runAgent as previousLoop, DEFAULT_MAX_TOKENS, system, type RecoveredOutcome, type RunOptions as BackgroundOptions } from "../../solutions/s22_background/agent.ts";
import { evaluate, gatherEvidence, type Verdict } from "./verdict.ts";

export { system, DEFAULT_MAX_TOKENS };

export const TASK = lessonTask("s27_goal");
/** The check the default task's goal is judged by: the sample repository's tests. */
export const CHECK = "node --test";
/** How many times the worker may answer "done" in one run (the last verdict stands after that). */
export const MAX_ROUNDS = 3;

export interface RunOptions extends BackgroundOptions {
  /** What the run must achieve (default: the text of the user message the run starts from). */
  goal?: string;
  /** A command whose output is the evidence, run in the workspace (in the sandbox) after each "done" (default: none). */
  check?: string;
  /** At most this many rounds (default MAX_ROUNDS). */
  maxRounds?: number;
  /** The model that judges (default: the worker's). */
  evaluator?: Llm;
}

/** What the evaluator cost this run. */
export interface EvaluatorCost {
  requests: number;
  inputTokens: number;
  outputTokens: number;
}

/** How a goal run ended: s22's outcome (done only when the evaluator said so), the rounds, the last verdict and the evaluator's cost. */
export type GoalOutcome = Outcome<Extract<RecoveredOutcome, { status: "stopped" }>["reason"] | "goal_not_met" | "verdict_unreadable"> & {
  rounds: number;
  verdict?: Verdict;
  evaluator: EvaluatorCost;
};

/** What the worker reads when it is sent back: the evaluator's words, marked as theirs. */
export const evaluatorNote = (missing: string) => `[evaluator] The goal is not met yet: ${missing}\nKeep working toward the goal, then answer again.`;

/** The note goes after the worker's answer; an answer with no content was not stored, so it joins the last user message (roles keep alternating). */
export function sendBack(history: Anthropic.MessageParam[], note: string): void {
  const last = history.at(-1);
  if (last?.role !== "user") return void history.push({ role: "user", content: note });
  const blocks: Anthropic.ContentBlockParam[] = typeof last.content === "string" ? [{ type: "text", text: last.content }] : last.content;
  last.content = [...blocks, { type: "text", text: note }];
}

const count = (cost: EvaluatorCost, usage?: Anthropic.Usage) => {
  cost.requests++;
  cost.inputTokens += (usage?.input_tokens ?? 0) + (usage?.cache_read_input_tokens ?? 0) + (usage?.cache_creation_input_tokens ?? 0);
  cost.outputTokens += usage?.output_tokens ?? 0;
};

// #region loop
/** s22's loop, run toward a goal: each "done" judged by the evaluator, at most maxRounds rounds. `history` grows in place. */
export async function runAgent(llm: Llm, history: Anthropic.MessageParam[], opts: RunOptions = {}): Promise<GoalOutcome> {
  const root = opts.root ?? process.cwd();
  const goal = opts.goal ?? textOf(history.at(-1)?.content ?? "");
  const cost: EvaluatorCost = { requests: 0, inputTokens: 0, outputTokens: 0 };
  let turns = 0;
  for (let round = 1; ; round++) {
    const outcome = await previousLoop(llm, history, { ...opts, root });
    turns += outcome.turns;
    // A run a guard stopped (or a refusal, an abort) is not a claim to judge: it ends as it ended.
    if (outcome.status !== "done") return { ...outcome, turns, rounds: round, evaluator: cost };
    const stopped = (reason: "goal_not_met" | "verdict_unreadable", detail: string, verdict?: Verdict): GoalOutcome =>
      ({ status: "stopped", reason, detail, turns, message: outcome.message, rounds: round, evaluator: cost, ...(verdict ? { verdict } : {}) });
    // TODO: judge the claim, then end the run or send the worker back.
    //   1. evidence = await gatherEvidence(opts.check, root, opts.signal): the runtime's own, run in the sandbox;
    //   2. { reading, usage } = await evaluate(opts.evaluator ?? llm, goal, the answer's text, evidence, opts.signal),
    //      and count(cost, usage): the evaluator sees the goal, the answer and the evidence, never the history;
    //   3. "unreadable" in reading → return stopped("verdict_unreadable", a sentence with reading.unreadable);
    //   4. verdict.done → return { ...outcome, turns, rounds: round, verdict, evaluator: cost } (the goal is met);
    //   5. not done and round >= (opts.maxRounds ?? MAX_ROUNDS) → return stopped("goal_not_met", a sentence with verdict.missing, verdict);
    //   6. else tell the person in one line, with say(dim(…)): verdict.missing and the round the worker goes into (round + 1);
    //      then sendBack(history, evaluatorNote(verdict.missing)): the evaluator's words, and the loop goes round again.
    void [gatherEvidence, evaluate, count, sendBack, evaluatorNote, stopped];
    return todo(`judge the worker's "done" of round ${round} with the evaluator`);
  }
}
// #endregion loop

/** How the run ended, with its rounds and what the evaluator cost. */
export function describeGoal(o: GoalOutcome): string {
  const met = o.status === "done" ? "goal met: " : "";
  const cost = `evaluator: ${o.evaluator.requests} request(s), ${o.evaluator.inputTokens} input + ${o.evaluator.outputTokens} output tokens`;
  return `${met}${describeOutcome(o)} · ${o.rounds} round(s) · ${cost}`;
}

/** The default task on a scratch copy of the sample repository: judged by its tests (file edits accepted, the workspace's hooks left out). */
export const demo = (llm: Llm, task = TASK) =>
  transcriptOf(task, SAMPLE_REPOSITORY, (history, root) => runAgent(llm, history, { root, check: CHECK, approve: refuseAll, userConfigDir: root, permissionMode: "acceptEdits", hooks: [] }));

lesson(import.meta.url, {
  task: TASK,
  workspace: SAMPLE_REPOSITORY,
  before: (ctx) => say(dim(ctx.isDefault ? `goal loop: each "done" is judged by the evaluator on \`${CHECK}\`, at most ${MAX_ROUNDS} rounds (file edits accepted, the workspace's hooks left out)` : `goal loop: no check for a task of your own; the evaluator sees only your goal and the answer`)),
  run: ({ llm, history, root, signal, flag, isDefault }) =>
    runAgent(llm, history, { root, signal, hooks: [], ...(isDefault ? { check: CHECK, permissionMode: "acceptEdits" as const } : {}), onEvent: createLogger({ verbose: flag("verbose") }) }),
  describe: (o) => (o.status === "done" ? describeGoal(o) : yellow(describeGoal(o))),
  printAnswer: false,
});
