/**
 * s28_schedule: scheduled work. A prompt for later, or again every so often.
 *
 * Unlike s27, whose run did what it was asked and ended, the model can now leave work for later:
 * `schedule` takes a prompt and when to run it (once after a delay, or every N seconds, at most a
 * number of times), `schedule_list` shows what is scheduled and how its runs went, and
 * `schedule_cancel` stops a job. They reach the loop through s11's `tools` hook, so s18's gate and
 * s19's hooks judge a `schedule` call like any other (a deny rule or plan mode refuses it). When
 * a job is due, its prompt runs as a run of its own: a fresh history, the final agent's loop with
 * the same options (rules, hooks, sandbox, approval), so a scheduled prompt can do nothing the
 * agent could not do when asked directly (and cannot schedule more). The scheduler
 * (scheduler.ts) never starts a job twice at once, keeps an interval from drifting, and stops
 * every timer and every run when the agent ends. Time is injected (`Timers`), so tests never sleep.
 *
 * Run: npm run lesson s28   (offline: schedules a look at the log every second, twice, then waits for both runs)
 */
import type Anthropic from "@anthropic-ai/sdk";
import { z } from "zod";
import type { Llm } from "../../runtime/client.ts";
import { lesson, transcriptOf } from "../../runtime/lesson.ts";
import { dim, say } from "../../runtime/print.ts";
import { lessonTask, SAMPLE_REPOSITORY } from "../../runtime/tasks.ts";
import { ToolError } from "../../runtime/tools/files.ts";
import { textOf } from "../../runtime/transcript.ts";
import { describeOutcome } from "../../solutions/s05_stop_reasons/outcome.ts";
import { defineTool, type CheckedTool } from "../../solutions/s04_tool_errors/define-tool.ts";
import type { Approver } from "../../solutions/s07_safe_tools/approval.ts";
import { createLogger } from "../../solutions/s09_observability/log.ts";
import { withTools, type Extension } from "../../solutions/s11_recovery/extend.ts";
import type { RecoveredOutcome } from "../../solutions/s22_background/agent.ts";
import type { RunOptions as HeadlessOptions } from "../../solutions/s24_headless/agent.ts";
import { runAgent as previousLoop } from "../../solutions/s27_goal/program.ts";
import { Scheduler, systemTimers, type RunPrompt, type Timers } from "./scheduler.ts";

export const TASK = lessonTask("s28_schedule");
/** The prompt the default task schedules (the scenario answers it too). */
export const WATCH = lessonTask("s28_schedule", "watch");

/** At most this many jobs waiting or running at once; an interval job runs at most MAX_TIMES times. */
export const MAX_JOBS = 5;
export const MAX_TIMES = 20;

export interface RunOptions extends HeadlessOptions {
  /** The run's scheduler (default: one the run owns: the run ends once what it scheduled has run, and stops it). A program passes its own. */
  scheduler?: Scheduler;
  /** The clock of the run's own scheduler (default: the machine's; a test passes its own). */
  timers?: Timers;
}

/** A loop the scheduled runs go through (the final agent's, or the program's with its flags). */
export type Loop = (llm: Llm, history: Anthropic.MessageParam[], opts: HeadlessOptions) => Promise<RecoveredOutcome>;

/** A scheduled prompt's run: a fresh history, the same loop with the same options, its own signal joined to the run's. */
export function scheduledRunner(loop: Loop, llm: Llm, opts: RunOptions): RunPrompt {
  // Its lines are not the script's (headless): they would interleave with the run that scheduled it.
  const { scheduler: _own, timers: _clock, headless: _lines, ...same } = opts;
  return async (prompt, signal) => {
    const history: Anthropic.MessageParam[] = [{ role: "user", content: prompt }];
    const outcome = await loop(llm, history, { ...same, signal: opts.signal ? AbortSignal.any([opts.signal, signal]) : signal });
    return { done: outcome.status === "done", summary: outcome.status === "done" ? textOf(outcome.message.content) : describeOutcome(outcome), history };
  };
}

/** The three tools over a scheduler. Scheduling is not read-only: s18's gate asks about it, a rule or plan mode can refuse it. */
export function scheduleTools(scheduler: Scheduler, run: RunPrompt): CheckedTool[] {
  return [
    defineTool({
      name: "schedule",
      description:
        "Run a prompt later, as a run of its own with the same tools and rules: once after after_seconds, or every every_seconds " +
        `(at most times runs, default 3, at most ${MAX_TIMES}). A run still going when the next is due is skipped, never doubled. Returns the job id.`,
      input: z.object({
        prompt: z.string().min(1).describe("What to do when the job runs"),
        after_seconds: z.number().min(0).max(86_400).optional().describe("The first run this many seconds from now (default: every_seconds, or 0)"),
        every_seconds: z.number().min(1).max(86_400).optional().describe("Run again every this many seconds"),
        times: z.number().int().min(1).max(MAX_TIMES).optional().describe("At most this many runs (with every_seconds)"),
      }),
      run: ({ prompt, after_seconds, every_seconds, times }) => {
        const waiting = [...scheduler.jobs.values()].filter((j) => !j.finished || j.running).length;
        if (waiting >= MAX_JOBS) throw new ToolError(`not scheduled: ${MAX_JOBS} jobs are waiting or running already (the limit); cancel one with schedule_cancel first`);
        const every = every_seconds === undefined ? undefined : every_seconds * 1000;
        const job = scheduler.add({ prompt, ...(after_seconds !== undefined ? { afterMs: after_seconds * 1000 } : {}), ...(every !== undefined ? { everyMs: every, times: times ?? 3 } : { times: 1 }) }, run);
        const first = Math.round((job.next - scheduler.timers.now()) / 1000);
        return `Scheduled ${job.id}: first run in ${first} s${every !== undefined ? `, then every ${every_seconds} s, ${job.spec.times} run(s) in all` : ", once"}. See it with schedule_list, stop it with schedule_cancel.`;
      },
    }),
    defineTool({ name: "schedule_list", description: "The scheduled jobs: what each runs, when, and how its runs went.", input: z.object({}), readOnly: true, run: () => scheduler.list() }),
    defineTool({
      name: "schedule_cancel",
      description: "Cancel a scheduled job: it will not run again (a run still going is stopped).",
      input: z.object({ id: z.string().describe("The job id, e.g. sched-1") }),
      readOnly: true,
      run: ({ id }) => {
        const told = scheduler.cancel(id);
        if (told.startsWith("no job")) throw new ToolError(told);
        return told;
      },
    }),
  ];
}

// #region loop
/** NEW: the schedule tools, through the `tools` hook: the gate and the hooks at dispatch judge them like any tool. */
export const scheduling =
  (scheduler: Scheduler, run: RunPrompt): Extension =>
  () => ({ tools: (tools) => withTools(tools, ...scheduleTools(scheduler, run)) });

/** `loop` with scheduling: its own scheduler waits for what the run scheduled (Ctrl-C: stops it) and stops it, however the run ends. */
export async function scheduledRun(loop: Loop, llm: Llm, history: Anthropic.MessageParam[], opts: RunOptions = {}): Promise<RecoveredOutcome> {
  const own = !opts.scheduler;
  const scheduler = opts.scheduler ?? new Scheduler(opts.timers ?? systemTimers, (line) => say(dim(`  ${line}`)));
  try {
    const { scheduler: _given, timers: _clock, ...rest } = opts;
    const outcome = await loop(llm, history, { ...rest, extensions: [scheduling(scheduler, scheduledRunner(loop, llm, opts)), ...(opts.extensions ?? [])] });
    if (own) await scheduler.settled(opts.signal);
    return outcome;
  } finally {
    // NEW: nothing the run scheduled outlives it: every timer cleared, every run still going aborted.
    if (own) {
      const aborted = await scheduler.stop();
      if (aborted > 0) say(dim(`  schedule: ${aborted} run(s) still going when the run ended, stopped`));
    }
  }
}

/** The final agent's loop (s27's program without flags), with scheduling. `history` grows in place. */
export const runAgent = (llm: Llm, history: Anthropic.MessageParam[], opts: RunOptions = {}) => scheduledRun(previousLoop, llm, history, opts);
// #endregion loop

/** Approves scheduling and nothing else: each scheduled run is judged by the rules on its own. */
export const approveScheduling: Approver = async ({ command }) => (command.startsWith("schedule ") ? { approved: true } : { approved: false, why: "only scheduling is approved in this run" });

/** The default task on a scratch copy of the sample repository (the docs record this run): its scheduled runs only read. */
export const demo = (llm: Llm, task = TASK) => transcriptOf(task, SAMPLE_REPOSITORY, (history, root) => runAgent(llm, history, { root, approve: approveScheduling, userConfigDir: root, hooks: [] }));

lesson(import.meta.url, {
  task: TASK,
  workspace: SAMPLE_REPOSITORY,
  before: () => say(dim("scheduled work: schedule, schedule_list, schedule_cancel (each call passes the permission rules; each run is a run of its own)")),
  run: ({ llm, history, root, signal, flag }) => runAgent(llm, history, { root, signal, onEvent: createLogger({ verbose: flag("verbose") }) }),
  printAnswer: false,
});
