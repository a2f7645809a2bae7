/**
 * s27 · the final agent's loop: s24's headless loop with Part IV's features, each on request.
 *
 * No lesson's loop is copied: s25's `worktrees` extension gives the model worktree_task, s27's goal
 * loop (agent.ts) judges each "done", s26's `runWorkflow` (workflow.ts) runs a workflow's steps
 * through a journal, and s24's `headlessLines` turns the run into a script's lines. Each step of a
 * workflow is one run of this same loop, with the same options: rules, hooks, sandbox, approval.
 */
import type Anthropic from "@anthropic-ai/sdk";
import { createHash } from "node:crypto";
import { existsSync, readFileSync, renameSync } from "node:fs";
import { join } from "node:path";
import { SCRIPTED_MODEL_ID, type Llm } from "../../runtime/client.ts";
import { hasScript, notDoneOffline, unscriptedRun } from "../../runtime/offline.ts";
import { dim, say, yellow } from "../../runtime/print.ts";
import { textOf } from "../../runtime/transcript.ts";
import { fanOut } from "../../solutions/s09_observability/events.ts";
import { runAgent as backgroundLoop, type RecoveredOutcome } from "../../solutions/s22_background/agent.ts";
import type { RunOptions as HeadlessOptions } from "../../solutions/s24_headless/agent.ts";
import { headlessLines, type HeadlessLine, type ResultLine } from "../../solutions/s24_headless/headless.ts";
import { worktrees } from "../../solutions/s25_worktrees/agent.ts";
import { parseJournal } from "../../solutions/s26_workflow/journal.ts";
import { runWorkflow, type Caps, type RunStep, type Workflow, type WorkflowOutcome } from "../../solutions/s26_workflow/workflow.ts";
import { describeGoal, runAgent as goalLoop, type GoalOutcome } from "./agent.ts";

/** What the flags turned on (program.ts). */
export interface Features {
  worktrees?: boolean;
  goal?: { check?: string; maxRounds?: number };
  workflow?: { workflow: Workflow; caps?: Caps; journal: string };
}

/** The journal of a workflow for one workspace: the same file, the same workspace → the same journal (so a run resumes). */
export function journalFor(dir: string, workspace: string, name: string, text: string): string {
  const key = createHash("sha256").update(`${workspace}\0${text}`).digest("hex").slice(0, 12);
  return join(dir, `${name.replace(/[^\w.-]/g, "_")}-${key}.jsonl`);
}

/** Offline, a task the scripted model has no script for: no evaluator (nothing to judge), the run ends not done as any such run. */
const unscriptedOffline = (llm: Llm, task: string) => llm.model === SCRIPTED_MODEL_ID && !hasScript(task);

/** The goal loop's outcome as the program reads it: done only when the evaluator said so. */
const asOutcome = (o: GoalOutcome) => o as unknown as RecoveredOutcome;

/** The result line, judged: offline with no script, or a goal not met, is not done; the evaluator's cost is in it. */
function judged(line: ResultLine, o: GoalOutcome | undefined, unscripted: boolean): HeadlessLine {
  if (unscripted) return { ...line, subtype: "error", is_error: true, stop_reason: "no_script" };
  if (!o) return line;
  const evaluator = { requests: o.evaluator.requests, input_tokens: o.evaluator.inputTokens, output_tokens: o.evaluator.outputTokens };
  const done = o.status === "done";
  return { ...line, ...(done ? {} : { subtype: "error", is_error: true, stop_reason: o.reason }), num_turns: o.turns, evaluator } as ResultLine;
}

// #region team
/** One run: s22's loop (or s27's goal loop around it), with worktree_task when asked, as headless lines when asked. */
export async function teamRun(llm: Llm, history: Anthropic.MessageParam[], opts: HeadlessOptions, f: Features): Promise<RecoveredOutcome> {
  const open = new Set<Promise<unknown>>();
  const track = <T>(work: Promise<T>) => (open.add(work), work.finally(() => open.delete(work)));
  const { headless, ...rest } = opts;
  let goal: GoalOutcome | undefined;
  const start = history.length;
  const lines = headless && headlessLines(history, (l) => headless.emit(l.type === "result" ? judged(l, goal, unscriptedRun(history.slice(start))) : l), headless.session);
  const run = {
    ...rest,
    ...(lines ? { onEvent: fanOut(rest.onEvent, lines.onEvent) } : {}),
    extensions: [...(f.worktrees ? [worktrees(llm, rest, track)] : []), ...(rest.extensions ?? []), ...(lines ? [lines.answered()] : [])],
  };
  try {
    if (!f.goal || unscriptedOffline(llm, textOf(history.at(-1)?.content ?? ""))) return await backgroundLoop(llm, history, run);
    goal = await goalLoop(llm, history, { ...run, ...(f.goal.check ? { check: f.goal.check } : {}), ...(f.goal.maxRounds ? { maxRounds: f.goal.maxRounds } : {}) });
    say((goal.status === "done" ? dim : yellow)(describeGoal(goal)));
    return asOutcome(goal);
  } finally {
    lines?.finish();
    await Promise.allSettled(open); // a child's worktree still closing after an abort
  }
}
// #endregion team

/** What a workflow's steps used, from their think events: the result line's usage. */
const emptyUse = () => ({ turns: 0, input: 0, output: 0, cacheWrite: 0, cacheRead: 0, costUsd: 0 });

/** One agent step: a fresh history, one run of teamRun with the program's options; offline with no script, not done. */
function stepRunner(llm: Llm, opts: HeadlessOptions, f: Features, use: ReturnType<typeof emptyUse>): RunStep {
  return async (prompt, signal) => {
    const history: Anthropic.MessageParam[] = [{ role: "user", content: prompt }];
    let tokens = 0;
    let costUsd = 0;
    const onEvent = fanOut(opts.onEvent, (e) => {
      if (e.type !== "think") return;
      const u = e.usage;
      tokens += u.input + u.output + u.cacheWrite + u.cacheRead;
      costUsd += u.costUsd ?? 0;
      Object.assign(use, { turns: use.turns + 1, input: use.input + u.input, output: use.output + u.output, cacheWrite: use.cacheWrite + u.cacheWrite, cacheRead: use.cacheRead + u.cacheRead, costUsd: use.costUsd + (u.costUsd ?? 0) });
    });
    const { headless: _lines, ...rest } = opts;
    const { workflow: _steps, ...features } = f;
    const o = await teamRun(llm, history, { ...rest, onEvent, ...(signal ? { signal } : {}) }, features);
    const usage = { tokens, costUsd };
    if (unscriptedRun(history)) return { status: "stopped", reason: "no_script", usage };
    return o.status === "done" ? { status: "done", answer: textOf(o.message.content), usage } : { status: "stopped", reason: o.reason, usage };
  };
}

/** The workflow's step ids in the file's order (a parallel step's finish in any order: this line says the same each run). */
const inFileOrder = (workflow: Workflow, ids: readonly string[]): string[] => {
  const order = workflow.steps.flatMap((s) => ("steps" in s ? s.steps.map((a) => a.id) : [s.id]));
  return [...ids].sort((a, b) => order.indexOf(a) - order.indexOf(b));
};

/** The workflow's outcome in one line for a person. */
export function describeWorkflow(workflow: Workflow, o: WorkflowOutcome, journal: string): string {
  const how = o.status === "done" ? "done" : `stopped (${o.reason}: ${o.detail})`;
  const list = (ids: readonly string[]) => inFileOrder(workflow, ids).join(", ") || "nothing";
  return `workflow "${workflow.name}": ${how} · ran ${list(o.ran)} · read back ${list(o.reused)} · ${o.used.tokens} tokens · journal: ${journal}`;
}

/** A workflow as one run of the program: its steps through the journal, its summary the run's answer (and, headless, its result line). */
export async function workflowRun(llm: Llm, history: Anthropic.MessageParam[], opts: HeadlessOptions, f: Features): Promise<RecoveredOutcome> {
  const { workflow, caps, journal } = f.workflow!;
  const started = Date.now();
  const use = emptyUse();
  // A workflow whose last run ended done starts over; its journal is kept beside the new one.
  const last = existsSync(journal) ? parseJournal(readFileSync(journal, "utf8"), journal).events.at(-1) : undefined;
  if (last?.type === "run_finished" && last.status === "done") renameSync(journal, journal.replace(/\.jsonl$/, ".done.jsonl"));
  const o = await runWorkflow(workflow, { journal, runStep: stepRunner(llm, opts, f, use), ...(caps ? { caps } : {}), ...(opts.signal ? { signal: opts.signal } : {}) });
  const offline = o.detail?.endsWith(": no_script");
  const summary = [describeWorkflow(workflow, o, journal), ...inFileOrder(workflow, Object.keys(o.answers)).map((id) => `${id}: ${o.answers[id]}`), ...(offline ? [notDoneOffline()] : [])].join("\n");
  say(o.status === "done" ? summary : yellow(summary));
  const message = { id: `workflow-${workflow.name}`, type: "message", role: "assistant", model: llm.model, content: [{ type: "text", text: summary, citations: null }], stop_reason: "end_turn", stop_sequence: null, usage: { input_tokens: use.input, output_tokens: use.output } } as unknown as Anthropic.Message;
  history.push({ role: "assistant", content: [{ type: "text", text: summary }] });
  const done = o.status === "done";
  opts.headless?.emit({
    type: "result",
    subtype: done ? "success" : "error",
    is_error: !done,
    result: summary,
    num_turns: use.turns,
    usage: { input_tokens: use.input, output_tokens: use.output, cache_creation_input_tokens: use.cacheWrite, cache_read_input_tokens: use.cacheRead },
    total_cost_usd: use.costUsd,
    session_id: opts.headless.session,
    stop_reason: done ? "end_turn" : (o.reason ?? "stopped"),
    duration_ms: Date.now() - started,
  });
  if (done) return { status: "done", turns: use.turns, message };
  const reason = o.reason === "aborted" ? "aborted" : offline ? "no_script" : `workflow_${o.reason}`;
  return { status: "stopped", reason: reason as Extract<RecoveredOutcome, { status: "stopped" }>["reason"], detail: o.detail ?? "the workflow stopped", turns: use.turns, message };
}
