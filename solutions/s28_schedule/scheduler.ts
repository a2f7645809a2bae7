/**
 * s28's scheduler: prompts that run later, or again every N ms, each as a run of its own through the
 * agent's loop (a fresh history, the same rules). Time comes from `Timers` (a test passes its own, so
 * no test sleeps). The lesson's rules: a job never runs twice at once, an interval does not drift, and
 * `stop` clears every timer and aborts every run still going (nothing outlives the agent).
 */
import type Anthropic from "@anthropic-ai/sdk";

/** The clock and timers the scheduler runs on (a test passes its own). */
export interface Timers {
  now(): number;
  set(fire: () => void, ms: number): unknown;
  clear(handle: unknown): void;
}

/** The machine's time. */
export const systemTimers: Timers = { now: () => Date.now(), set: (fire, ms) => setTimeout(fire, ms), clear: (handle) => clearTimeout(handle as ReturnType<typeof setTimeout>) };

/** What one run of a scheduled prompt came to. */
export interface ScheduledResult {
  done: boolean;
  summary: string;
  history: Anthropic.MessageParam[];
}

/** Runs a prompt as a run of its own; `signal` aborts it. */
export type RunPrompt = (prompt: string, signal: AbortSignal) => Promise<ScheduledResult>;

export interface JobSpec {
  prompt: string;
  /** The first run this long from now (default: everyMs, or 0). */
  afterMs?: number;
  /** Again every everyMs after each time it was due; without it the job runs once. */
  everyMs?: number;
  /** At most this many runs (default: 1 without everyMs, none with it). */
  times?: number;
}

export interface RunRecord {
  n: number;
  at: number;
  status: "running" | "done" | "stopped" | "failed";
  summary: string;
  history?: Anthropic.MessageParam[];
}

export class Job {
  /** The armed timer, if any. */
  timer: unknown;
  /** When the job is (or was last) due, on the scheduler's clock. */
  next = 0;
  /** The run still going, if any. */
  running?: AbortController;
  /** The promise of the last run started (settles when it has ended and been recorded). */
  work?: Promise<void>;
  readonly runs: RunRecord[] = [];
  skipped = 0;
  cancelled = false;

  constructor(
    readonly id: string,
    readonly spec: JobSpec,
    readonly run: RunPrompt,
  ) {}

  /** No more runs will start: cancelled, or every run it may have has started. */
  get finished(): boolean {
    const times = this.spec.times ?? (this.spec.everyMs === undefined ? 1 : Infinity);
    return this.cancelled || this.runs.length >= times;
  }
}

const clip = (text: string, n = 60) => (text.length > n ? `${text.slice(0, n)}…` : text);

export class Scheduler {
  readonly jobs = new Map<string, Job>();
  /** Every line the scheduler said, in order (a test reads them). */
  readonly notes: string[] = [];
  stopped = false;
  private nextId = 1;
  private waiters: Array<() => void> = [];

  constructor(readonly timers: Timers = systemTimers, private readonly tell: (line: string) => void = () => {}) {}

  /** Adds a job and arms its timer. */
  add(spec: JobSpec, run: RunPrompt): Job {
    if (this.stopped) throw new Error("the scheduler is stopped: nothing more can be scheduled");
    const job = new Job(`sched-${this.nextId++}`, spec, run);
    this.jobs.set(job.id, job);
    this.arm(job, this.timers.now() + (spec.afterMs ?? spec.everyMs ?? 0));
    return job;
  }

  /** The job's timer, set for `at` on the scheduler's clock. */
  private arm(job: Job, at: number): void {
    job.next = at;
    job.timer = this.timers.set(() => this.due(job), Math.max(0, at - this.timers.now()));
  }

  /** Says a line, and wakes whoever waits for the jobs to settle. */
  private report(line: string): void {
    this.notes.push(line);
    this.tell(line);
    for (const wake of this.waiters.splice(0)) wake();
  }

  /** Starts one run of the job's prompt; its end is recorded and said. */
  private start(job: Job): void {
    const controller = new AbortController();
    const record: RunRecord = { n: job.runs.length + 1, at: this.timers.now(), status: "running", summary: "" };
    job.runs.push(record);
    job.running = controller;
    this.report(`${job.id}: run ${record.n} started: ${clip(job.spec.prompt)}`);
    job.work = job
      .run(job.spec.prompt, controller.signal)
      .then(
        (r) => void Object.assign(record, { status: r.done ? "done" : "stopped", summary: r.summary, history: r.history }),
        (e: unknown) => void Object.assign(record, { status: "failed", summary: e instanceof Error ? e.message : String(e) }),
      )
      .finally(() => {
        if (job.running === controller) job.running = undefined;
        this.report(`${job.id}: run ${record.n} ${record.status}: ${clip(record.summary, 200)}`);
      });
  }

  // #region due
  /** The job's time has come: run it, unless its last run is still going; an interval job is armed again. */
  due(job: Job): void {
    job.timer = undefined;
    if (this.stopped || job.cancelled) return;
    if (job.running) {
      // Never two runs of one job at once: this time is skipped, and said.
      job.skipped++;
      this.report(`${job.id}: not started: run ${job.runs.length} is still going (a job's runs never overlap; this time is skipped)`);
    } else {
      this.start(job);
    }
    // The next time counts from when this one was due, not from when a run ends: no drift.
    if (job.spec.everyMs !== undefined && !job.finished) this.arm(job, job.next + job.spec.everyMs);
  }
  // #endregion due

  // #region stop
  /** Every timer cleared, every run still going aborted; resolves when they have ended. Returns how many were aborted. */
  async stop(): Promise<number> {
    this.stopped = true;
    let aborted = 0;
    for (const job of this.jobs.values()) {
      this.timers.clear(job.timer);
      job.timer = undefined;
      if (job.running) {
        aborted++;
        job.running.abort();
      }
    }
    await Promise.allSettled([...this.jobs.values()].map((job) => job.work));
    return aborted;
  }
  // #endregion stop

  /** Cancels a job: no more runs; a run still going is aborted. */
  cancel(id: string): string {
    const job = this.jobs.get(id);
    if (!job) return `no job "${id}": the jobs are ${[...this.jobs.keys()].join(", ") || "none"}`;
    if (job.timer !== undefined) this.timers.clear(job.timer);
    job.timer = undefined;
    job.cancelled = true;
    job.running?.abort(new Error("cancelled"));
    this.report(`${job.id}: cancelled`);
    return `${id} cancelled${job.running ? " (its run still going was aborted)" : ""}: it will not run again.`;
  }

  /** One line per job: what it runs, when, and what its runs came to. */
  list(): string {
    if (this.jobs.size === 0) return "Nothing is scheduled.";
    return [...this.jobs.values()]
      .map((j) => {
        const when = j.spec.everyMs !== undefined ? `every ${j.spec.everyMs / 1000} s` : "once";
        const state = j.cancelled ? "cancelled" : j.running ? "running" : j.finished ? "finished" : `next in ${Math.max(0, Math.round((j.next - this.timers.now()) / 1000))} s`;
        const last = j.runs.at(-1);
        return `${j.id} (${when}, ${state}, ${j.runs.length} run(s), ${j.skipped} skipped): ${clip(j.spec.prompt)}${last && last.status !== "running" ? ` · last: ${last.status}: ${clip(last.summary)}` : ""}`;
      })
      .join("\n");
  }

  /** Nothing armed and nothing running: every job finished (or the scheduler stopped). */
  idle(): boolean {
    return [...this.jobs.values()].every((j) => !j.running && (j.finished || this.stopped || j.timer === undefined));
  }

  /** Resolves when the scheduler is idle, or `signal` aborts. */
  async settled(signal?: AbortSignal): Promise<void> {
    while (!this.idle() && !signal?.aborted) {
      await new Promise<void>((resolve) => {
        this.waiters.push(resolve);
        signal?.addEventListener("abort", () => resolve(), { once: true });
      });
    }
  }
}
