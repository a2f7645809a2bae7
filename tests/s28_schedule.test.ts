/**
 * s28_schedule: scheduled work. Grades lessons/ or solutions/ (COURSE_TREE). Every job here is
 * made by the model's schedule call in a run of the learner's loop; time is the test's own
 * (ManualTimers: a timer fires only when the test moves the clock), so no test sleeps and the
 * verdicts do not depend on the machine's load. What the tests hold: a due job runs its prompt as a
 * run of its own whose transcript can be sent again (schedule-run); a job still running is skipped,
 * not doubled, and said (schedule-overlap); an interval job comes back, counted from when it was
 * due (schedule-interval); cancel and stop leave no timer and no run going (schedule-stop); the
 * gate judges schedule and the scheduled runs' calls (schedule-gate); the program's --loop.
 */
import type Anthropic from "@anthropic-ai/sdk";
import { writeFileSync, mkdirSync } from "node:fs";
import { join } from "node:path";
import { describe, it } from "vitest";
import { output } from "../runtime/print.ts";
import { s28Watch } from "../runtime/scripted/scenarios/s28_schedule.ts";
import { call, say, text } from "../runtime/scripted/scenarios/script.ts";
import type { Reply, Scenario, TurnContext } from "../runtime/scripted/types.ts";
import { SAMPLE_REPOSITORY, lessonTask } from "../runtime/tasks.ts";
import { driveLoop, loadLesson, resultsIn, rule, scripted, textIn, transcriptProblems } from "../runtime/testing.ts";
import { scratchCopy } from "../runtime/tools/files.ts";
import { differentialNet } from "./differential/net.ts";
import { checkFinalAgent, quietLessonFile } from "./support.ts";

type Agent = typeof import("../solutions/s28_schedule/agent.ts");
type SchedulerModule = typeof import("../solutions/s28_schedule/scheduler.ts");
type Program = typeof import("../solutions/s28_schedule/program.ts");
type Options = NonNullable<Parameters<Agent["runAgent"]>[2]>;
const lesson = await loadLesson<Agent>("s28_schedule");
const sched = await loadLesson<SchedulerModule>("s28_schedule", "scheduler.ts");
const program = await loadLesson<Program>("s28_schedule", "program.ts");
const keep = quietLessonFile();
const TASK = lessonTask("s28_schedule");
const WATCH = lessonTask("s28_schedule", "watch");
const WHERE = "(lessons/s28_schedule/scheduler.ts)";

/** The test's clock: timers fire only in advance(), each at its own time (plus `late`, a busy machine's delay), in order. */
class ManualTimers {
  t = 0;
  late = 0;
  private seq = 0;
  private timers = new Map<number, { at: number; fire: () => void }>();
  now = () => this.t;
  set = (fire: () => void, ms: number) => (this.timers.set(++this.seq, { at: this.t + ms, fire }), this.seq);
  clear = (handle: unknown) => void this.timers.delete(handle as number);
  get pending() {
    return this.timers.size;
  }
  advance(ms: number): void {
    const end = this.t + ms;
    for (;;) {
      const next = [...this.timers.entries()].filter(([, x]) => x.at <= end).sort((a, b) => a[1].at - b[1].at || a[0] - b[0])[0];
      if (!next) break;
      this.timers.delete(next[0]);
      this.t = Math.max(this.t, next[1].at + this.late);
      next[1].fire();
    }
    this.t = Math.max(this.t, end);
  }
}

/** The main run calls schedule (or more) with these inputs one turn each, then says done; scheduled runs get the lesson's scenario. */
function making(...calls: Array<[string, Record<string, unknown>]>): Scenario {
  return {
    id: "s28_test",
    title: "schedule calls, then done",
    reply: (ctx: TurnContext): Reply => {
      if (ctx.firstPrompt.trim() === WATCH) return s28Watch.reply(ctx);
      return ctx.step < calls.length ? { content: [text("Next."), call(...calls[ctx.step]!)] } : say("done");
    },
  };
}
const every = (seconds: number, times: number) => ["schedule", { prompt: WATCH, every_seconds: seconds, times }] as [string, Record<string, unknown>];

/** One main run of the learner's loop with a scheduler of the test's own on its clock. */
async function runWith(scenario: Scenario | undefined, opts: Partial<Options> = {}, settings?: object) {
  const root = keep(await scratchCopy(SAMPLE_REPOSITORY));
  if (settings) writeFileSync(join(root, ".agent", "settings.json"), JSON.stringify(settings));
  const timers = new ManualTimers();
  const scheduler = new sched.Scheduler(timers);
  const llm = scripted(scenario ? { scenario } : {});
  const history: Anthropic.MessageParam[] = [{ role: "user", content: scenario ? "Do the steps." : TASK }];
  await driveLoop(llm, history, () => lesson.runAgent(llm, history, { root, userConfigDir: root, approve: lesson.approveScheduling, hooks: [], scheduler, ...opts }), { timeoutMs: 60_000 });
  const job = scheduler.jobs.get("sched-1");
  return { root, llm, history, timers, scheduler, job, results: history.flatMap((m) => (m.role === "user" ? resultsIn(m) : [])) };
}
/** Waits (on the machine's time, only as a bound) until the job's runs started so far have ended. */
const ended = async (job: { work?: Promise<void> } | undefined) => void (await job?.work);
const shown = (job: { runs: Array<{ status: string; summary: string }>; skipped: number } | undefined) =>
  job ? JSON.stringify({ runs: job.runs.map((r) => `${r.status}: ${r.summary.slice(0, 80)}`), skipped: job.skipped }) : "no job sched-1";

describe("s28 a scheduled prompt runs through the loop", () => {
  it("the default task: the job waits for its time, each run is a run of its own with a sendable transcript, twice, then nothing is left", async () => {
    const { llm, history, timers, scheduler, job } = await runWith(undefined);
    const problems = await transcriptProblems(llm, history);
    rule(problems === null, "sendable-again", () => `the run that scheduled the job left a transcript that cannot be sent again: ${problems}`);
    const runs = () => job?.runs.length ?? 0;
    rule(job !== undefined && runs() === 0, "schedule-run", () => `the schedule call should add sched-1 and run nothing before its time: ${shown(job)}`);
    timers.advance(1000);
    rule(runs() === 1, "schedule-run", () => `1 s later sched-1 is due: its prompt should have started a run (due → this.start(job)) ${WHERE}; ${shown(job)}.`);
    await ended(job);
    const first = job!.runs[0]!;
    rule(first.status === "done" && /7 failed login/.test(first.summary), "schedule-run", () => `the scheduled run should read logs/auth.log and answer with 7 failed logins: ${shown(job)}`);
    const again = await transcriptProblems(llm, first.history ?? []);
    rule(first.history?.length === 4 && again === null, "schedule-run", () => `the scheduled run's own history should be the prompt, a read_file, its result and the answer, sendable again: ${first.history?.length} messages, ${again}`);
    timers.advance(1000);
    await ended(job);
    rule(runs() === 2 && job!.runs[1]!.status === "done", "schedule-interval", () => `every 1 s, 2 times: 2 s after scheduling the second run should have started and ended: ${shown(job)}. Arm the next time at the end of due() ${WHERE}.`);
    timers.advance(10_000);
    rule(runs() === 2 && timers.pending === 0, "schedule-interval", () => `after its 2 runs the job should stop: ${shown(job)}, ${timers.pending} timer(s) still armed.`);
    await scheduler.stop();
  });
});

describe("s28 the scheduler's rule: never twice at once, no drift, nothing left behind", () => {
  it("an interval counts from when the run was due, not from when it ended", async () => {
    const { timers, scheduler, job } = await runWith(making(every(60, 3)));
    timers.advance(60_000);
    timers.advance(20_000); // the first run takes 20 s of the job's clock
    await ended(job);
    timers.advance(40_000);
    rule(job!.runs.length === 2 && job!.runs[1]!.at === 120_000, "schedule-interval", () => `every 60 s from 60 s: the second run is due at 120 s whatever the first run took (it ended at 80 s): ${shown(job)}, started at ${JSON.stringify(job?.runs.map((r) => r.at))}. Arm this.arm(job, job.next + everyMs) in due() ${WHERE}.`);
    await scheduler.stop();
  });

  it("a timer that fires late (a busy machine) does not push the next times back: each is due every interval from the first", async () => {
    const { timers, scheduler, job } = await runWith(making(every(60, 3)));
    timers.late = 5_000; // every timer fires 5 s after its time
    timers.advance(65_000);
    await ended(job);
    timers.advance(60_000);
    await ended(job);
    rule(job!.runs.length === 2 && job!.runs[1]!.at === 125_000, "schedule-interval", () => `every 60 s from 60 s, each timer firing 5 s late: the second run is due at 120 s and starts at 125 s; its runs started at ${JSON.stringify(job?.runs.map((r) => r.at))}. Counted from now (65 s) instead of from when it was due, every late timer pushes the rest back: arm this.arm(job, job.next + everyMs) in due() ${WHERE}.`);
    await scheduler.stop();
  });

  it("a job whose run is still going is skipped, said, and runs again at its next time", async () => {
    const { timers, scheduler, job } = await runWith(making(every(1, 3)));
    timers.advance(1000);
    timers.advance(1000); // run 1 has not had a moment to end: it is still going
    const runs = () => job?.runs.length ?? 0;
    rule(runs() === 1 && job!.skipped === 1, "schedule-overlap", () => `sched-1 was due again while its first run was still going: it should be skipped (job.skipped++), not started twice: ${shown(job)} ${WHERE}`);
    const line = scheduler.notes.find((n) => /skip/i.test(n));
    rule(line !== undefined && line.includes("sched-1"), "schedule-overlap", () => `a skipped time should be said in a line naming the job (this.report): the lines were ${JSON.stringify(scheduler.notes)}`);
    await ended(job);
    timers.advance(1000);
    rule(runs() === 2, "schedule-overlap", () => `after a skipped time the job keeps its interval: at 3 s its second run should start: ${shown(job)}. Arm the next time whether the job started or was skipped.`);
    await scheduler.stop();
  });

  it("stop aborts the run still going, waits for it, and clears every timer", async () => {
    const { timers, scheduler, job } = await runWith(making(every(1, 5), ["schedule", { prompt: WATCH, after_seconds: 30 }]));
    timers.advance(1000);
    const aborted = await scheduler.stop();
    const first = job!.runs[0];
    rule(aborted === 1 && first !== undefined && first.status !== "running" && first.status !== "done", "schedule-stop", () => `stop() with a run going: it should abort it and resolve once it has ended: returned ${aborted}, the run is ${first?.status} ${WHERE}`);
    rule(timers.pending === 0, "schedule-stop", () => `after stop() ${timers.pending} timer(s) are still armed (sched-1's next time, sched-2's): clear every job's timer ${WHERE}`);
    timers.advance(120_000);
    rule(job!.runs.length === 1 && scheduler.jobs.get("sched-2")?.runs.length === 0, "schedule-stop", () => `after stop() no job may run again: ${shown(job)}, sched-2 ran ${scheduler.jobs.get("sched-2")?.runs.length} time(s)`);
  });

  it("schedule_cancel: the job never runs, and its timer is gone", async () => {
    const { timers, scheduler, job, results } = await runWith(making(every(1, 3), ["schedule_cancel", { id: "sched-1" }], ["schedule_list", {}]));
    rule(results[1]?.is_error !== true && /cancelled/.test(textIn(results[2]?.content)), "schedule-stop", () => `schedule_cancel sched-1 should cancel it and schedule_list say so: ${results.map((r) => textIn(r.content).slice(0, 100)).join(" | ")}`);
    timers.advance(10_000);
    rule(job!.runs.length === 0 && timers.pending === 0, "schedule-stop", () => `a cancelled job should never run: ${shown(job)}, ${timers.pending} timer(s)`);
    await scheduler.stop();
  });
});

describe("s28 the gate judges scheduling and the scheduled runs", () => {
  it("a deny rule for schedule, and plan mode, refuse it: nothing is scheduled", async () => {
    const denied = await runWith(making(every(1, 2)), {}, { permissions: { deny: ["schedule"] } });
    rule(denied.results[0]?.is_error === true && denied.scheduler.jobs.size === 0, "schedule-gate", () => `with deny ["schedule"] the call should be refused (is_error) and nothing scheduled: ${textIn(denied.results[0]?.content).slice(0, 200)}, ${denied.scheduler.jobs.size} job(s)`);
    const plan = await runWith(making(every(1, 2)), { permissionMode: "plan" });
    rule(plan.results[0]?.is_error === true && plan.scheduler.jobs.size === 0, "schedule-gate", () => `in plan mode scheduling is refused like any change: ${textIn(plan.results[0]?.content).slice(0, 200)}, ${plan.scheduler.jobs.size} job(s)`);
  });

  it("a scheduled run's own calls pass the same rules: a deny rule holds inside it", async () => {
    const { timers, scheduler, job } = await runWith(making(every(1, 1)), {}, { permissions: { allow: ["schedule"], deny: ["read_file(logs/**)"] } });
    timers.advance(1000);
    await ended(job);
    const calls = (job?.runs[0]?.history ?? []).flatMap((m) => (m.role === "user" ? resultsIn(m) : []));
    rule(calls[0]?.is_error === true && /read_file\(logs\/\*\*\)/.test(textIn(calls[0].content)) && /could not read/.test(job!.runs[0]!.summary), "schedule-gate", () => `deny read_file(logs/**): the scheduled run's read of logs/auth.log should be refused by that rule, as in any run: ${shown(job)}, the result ${textIn(calls[0]?.content).slice(0, 200)}. Run each scheduled prompt with the run's own options (scheduledRunner).`);
    await scheduler.stop();
  });
});

/** How many turns of the test's clock a driven run gets (each after a real 20 ms: 30 s on an idle machine). */
const TICKS = 1_500;

describe("s28 the run that scheduled: it waits, then nothing is left", () => {
  it("a job the run owns: the run ends once its runs have ended, and leaves no timer", async () => {
    const root = keep(await scratchCopy(SAMPLE_REPOSITORY));
    const timers = new ManualTimers();
    const llm = scripted({ scenario: making(every(1, 2)) });
    const history: Anthropic.MessageParam[] = [{ role: "user", content: "Do the steps." }];
    let settled = false;
    const run = lesson.runAgent(llm, history, { root, userConfigDir: root, approve: lesson.approveScheduling, hooks: [], timers }).finally(() => (settled = true));
    // At most TICKS turns of the test's clock (each after a real 20 ms): a bound in steps, not in
    // time, so a busy machine gives the run more time, never a red test.
    for (let tick = 0; !settled && tick < TICKS; tick++) {
      await new Promise((r) => setTimeout(r, 20));
      timers.advance(1000);
    }
    const outcome = await run;
    rule(outcome.status === "done" && timers.pending === 0, "schedule-stop", () => `the run's own scheduler: the run should end done once both runs have run, with no timer left: ${outcome.status}, ${timers.pending} timer(s) armed`);
    rule(llm.scripted.exchanges.filter((e) => JSON.stringify(e.request).includes("logs/auth.log")).length >= 4, "schedule-run", "the run ended before its scheduled runs did: each of the 2 runs should have read the log (2 requests each)");
  });
});

describe("s28 the final agent: --loop", () => {
  /** The program with the test's clock; lines said collected; the clock moved only once the run before has ended. */
  async function loop(argv: string[], until: (lines: string[]) => boolean, signal?: AbortController) {
    const ws = keep(await scratchCopy(SAMPLE_REPOSITORY));
    mkdirSync(join(ws, ".agent"), { recursive: true });
    writeFileSync(join(ws, ".agent", "settings.json"), JSON.stringify({ permissions: {} })); // no Stop hook: each run is the prompt's alone
    const timers = new ManualTimers();
    const lines: string[] = [];
    const write = output.write;
    output.write = (line) => void lines.push(line);
    try {
      let done = false;
      const run = program.run(["--workspace", ws, "--yes", ...argv], { llm: scripted(), timers, ...(signal ? { signal: signal.signal } : {}) }).finally(() => (done = true));
      for (let tick = 0; !done && tick < TICKS; tick++) {
        await new Promise((r) => setTimeout(r, 20));
        if (until(lines)) signal?.abort();
        const started = lines.filter((l) => / run \d+ started:/.test(l)).length;
        const finished = lines.filter((l) => / run \d+ (done|stopped|failed):/.test(l)).length;
        if (started === finished) timers.advance(60_000);
      }
      return { ...(await run), lines, timers };
    } finally {
      output.write = write;
    }
  }

  it("--help names --loop and --max-runs; --loop runs the prompt --max-runs times, each a run of its own, then exits with no timer", async () => {
    checkFinalAgent(28, "s28");
    rule(/--loop INTERVAL[\s\S]*--max-runs N[\s\S]*schedule_cancel/.test(program.SCHEDULE_USAGE), "final-agent", "--help (SCHEDULE_USAGE) should name --loop INTERVAL, --max-runs N and the schedule tools");
    const r = await loop(["--loop", "1m", "--max-runs", "2", WATCH], () => false);
    const runs = r.lines.filter((l) => /run \d+ done: logs\/auth\.log holds 7/.test(l)).length;
    rule(r.exitCode === 0 && runs === 2 && r.timers.pending === 0, "final-agent", () => `--loop 1m --max-runs 2: exit ${r.exitCode}, ${runs} run(s) done, ${r.timers.pending} timer(s) left; lines ${JSON.stringify(r.lines.filter((l) => /loop:/.test(l)))}`);
    const bad = await program.run(["--max-runs", "2", WATCH]);
    rule(bad.exitCode === 2, "final-agent", `--max-runs without --loop should be refused (exit 2), not ${bad.exitCode}`);
  });

  it("--loop without --max-runs: Ctrl-C stops it cleanly, every timer cleared", async () => {
    const controller = new AbortController();
    const r = await loop(["--loop", "1m", WATCH], (lines) => lines.some((l) => /run 2 done/.test(l)), controller);
    rule(r.timers.pending === 0 && r.lines.some((l) => /every timer cleared/.test(l)), "final-agent", () => `Ctrl-C during --loop: ${r.timers.pending} timer(s) left, lines ${JSON.stringify(r.lines.filter((l) => /loop:/.test(l)))}`);
  });
});

differentialNet("s28");
