/**
 * s22's job table: commands that run in the background, in the sandbox, while the loop goes on.
 *
 * `start` runs a command through the runtime's `spawnTool` (the same OS sandbox and allow-listed
 * environment as every tool process) and returns at once with the job's id. What the job prints
 * waits in the table, capped, until the model reads it; when the job ends, or prints a line that
 * matches what the model said to wait for, a notification waits for the next tool results.
 * `stopAll` kills every job still running: the loop calls it when the run ends, however it ends.
 * A job writes after its call returned, so bash's check after each command (runtime/tools/planted.ts)
 * cannot see it: `keepPlanted`, once every job is stopped, asks about the files that run or enter
 * the prompt later which changed since the first job started, and puts back what is refused.
 */
import { ToolError } from "../../runtime/tools/files.ts";
import { changes, journalMark, keptSince, note, revert, snapshot, type Snapshot } from "../../runtime/tools/planted.ts";
import { spawnTool } from "../../runtime/tools/sandbox.ts";
import type { Approver } from "../../solutions/s07_safe_tools/approval.ts";
import { JOB_OUTPUT_CAP, Job, LinePattern, MATCH_LINE_MS, MATCH_TOTAL_MS, MAX_JOBS, MAX_WAIT_SECONDS, NOTICE_LINE_CAP, noticeLine, type JobLimits } from "./job.ts";

export { JOB_OUTPUT_CAP, Job, LinePattern, MAX_JOBS, MAX_WAIT_SECONDS, NOTICE_HEADER, NOTICE_LINE_CAP, noticeLine, notificationText, type JobLimits } from "./job.ts";

export class JobTable {
  readonly jobs = new Map<string, Job>();
  /** Notifications not delivered yet, in the order they happened. */
  readonly pending: string[] = [];
  private next = 1;
  readonly limits: JobLimits;

  constructor(
    readonly root: string,
    limits: Partial<JobLimits> = {},
  ) {
    this.limits = { maxJobs: MAX_JOBS, outputCap: JOB_OUTPUT_CAP, matchLineMs: MATCH_LINE_MS, matchTotalMs: MATCH_TOTAL_MS, ...limits };
  }

  running(): Job[] {
    return [...this.jobs.values()].filter((j) => j.running);
  }

  get(id: string): Job {
    const job = this.jobs.get(id);
    if (!job) throw new ToolError(`no job "${id}": the jobs of this run are ${[...this.jobs.keys()].join(", ") || "none"}`);
    return job;
  }

  // #region start
  /** Starts `command` in the sandbox and returns at once: the job runs on after the call. */
  start(command: string, waitFor?: string): Job {
    if (this.running().length >= this.limits.maxJobs)
      throw new ToolError(`not started: ${this.limits.maxJobs} jobs are running already (the limit); stop one with job_stop first`);
    let pattern: LinePattern | undefined;
    try {
      pattern = waitFor ? new LinePattern(waitFor, this.limits) : undefined;
    } catch (e) {
      throw new ToolError(`not started: wait_for is not a regular expression (${(e as Error).message})`);
    }
    // The planted files as they were before the first job (keepPlanted compares with them).
    this.before ??= { files: snapshot(this.root), mark: journalMark() };
    const proc = spawnTool(["bash", "-c", command], { workspace: this.root });
    const job = new Job(`job-${this.next++}`, command, pattern, proc);
    if (pattern) pattern.onGiveUp = (why) => this.pending.push(noticeLine(job, why)); // a pattern too slow to match: told, not hung
    this.jobs.set(job.id, job);
    // The job's events arrive between turns: an error in handling one is kept for the loop (take), never thrown from a stream.
    proc.child.stdout.on("data", (chunk: Buffer) => this.safely(() => this.record(job, chunk.toString("utf8"))));
    proc.child.stderr.on("data", (chunk: Buffer) => this.safely(() => this.record(job, chunk.toString("utf8"))));
    proc.child.on("error", (e) => this.safely(() => this.record(job, `[could not run: ${e.message}]\n`)));
    proc.child.on("close", (code) => this.safely(() => this.ended(job, code)));
    return job;
  }
  // #endregion start

  // #region record
  /** New output: kept for the model (the newest, up to the cap); the first line matching wait_for is a notification. */
  record(job: Job, text: string): void {
    job.unread += text;
    const over = job.unread.length - this.limits.outputCap;
    if (over > 0) {
      job.unread = job.unread.slice(over);
      job.dropped += over;
    }
    // The lines this text ends: a line may arrive in pieces, over several chunks; the unfinished
    // piece waits in job.partial (cut to NOTICE_LINE_CAP) and goes in front of the next chunk.
    const lines = (job.partial + text).split("\n");
    job.partial = lines.pop()!.slice(-NOTICE_LINE_CAP);
    const hit = job.waitFor && !job.matched ? lines.find((l) => job.waitFor!.test(l)) : undefined;
    if (hit !== undefined) {
      job.matched = true;
      this.pending.push(noticeLine(job, `printed a line matching ${JSON.stringify(job.waitFor!.source)}: ${JSON.stringify(hit.slice(0, NOTICE_LINE_CAP))}`));
    }
    job.wake();
  }
  // #endregion record

  // #region ended
  /** The job ended: the model is told, unless it stopped the job itself. */
  ended(job: Job, code: number | null): void {
    if (job.partial) this.record(job, "\n");
    job.exit = code;
    job.proc.cleanup();
    if (!job.stopped) this.pending.push(noticeLine(job, `ended: ${code === null ? "killed" : `exit code ${code}`}`));
    job.wake();
  }
  // #endregion ended

  // #region take
  /** The notifications not delivered yet, each once: the loop sends them beside the next tool results. */
  take(): string[] {
    this.rethrow();
    return this.pending.splice(0);
  }
  // #endregion take

  /** What the job printed since the last read, and its state; waits up to `waitSeconds` for it to end or match. */
  async output(id: string, waitSeconds = 0): Promise<string> {
    const job = this.get(id);
    const wait = Math.min(Math.max(waitSeconds, 0), MAX_WAIT_SECONDS) * 1000;
    if (wait > 0 && job.running && !job.matched) await job.until(wait, () => !job.running || job.matched);
    const text = job.unread;
    const dropped = job.dropped;
    job.unread = "";
    job.dropped = 0;
    const cut = dropped > 0 ? `[${dropped} earlier characters dropped: the job printed more than ${this.limits.outputCap} since the last read]\n` : "";
    return `${job.id} (${job.state})\n${cut}${text.trimEnd() === "" ? "(no new output)" : text.trimEnd()}`;
  }

  /** Kills one job (everything it started: the sandbox goes with it). */
  async stop(id: string): Promise<string> {
    const job = this.get(id);
    if (!job.running) return `${job.id} had ${job.state} already`;
    job.stopped = true;
    const note = job.proc.killAll().note;
    await job.until(2000, () => !job.running);
    return `${job.id} stopped: ${note}`;
  }

  // #region stop-all
  /** Kills every job still running, and what an ended job left behind (the run is over); returns how many were running. */
  stopAll(): number {
    const left = this.running();
    for (const job of left) job.stopped = true;
    // Ended jobs too: a process a job detached (setsid, its output sent elsewhere) outlives the
    // job's shell. The sandbox took it along; without one, killAll finds it by the run's marker.
    for (const job of this.jobs.values()) job.proc.killAll();
    return left.length;
  }
  // #endregion stop-all

  /** The planted files before the first job started, and the journal's mark then. */
  private before: { files: Snapshot; mark: number } | undefined;

  /** Once every job is stopped: what the jobs wrote to planted paths, asked about (less what the person let through already); refused, put back. */
  async keepPlanted(approve: Approver): Promise<void> {
    if (!this.before) return;
    const { files, mark } = this.before;
    this.before = undefined;
    const kept = keptSince(mark);
    const found = changes(this.root, files).filter((c) => !kept.has(c.path));
    if (found.length === 0) return;
    const list = found.map((c) => `${c.path} (${c.what}: ${c.kind})`).join("; ");
    const decision = await approve({ command: `keep what background jobs wrote to ${found.map((c) => c.path).join(", ")}`, reason: `code there runs later, outside the sandbox: ${list}` });
    for (const c of found) {
      if (!decision.approved) revert(this.root, c.path, files);
      note({ path: c.path, kind: c.kind, outcome: decision.approved ? "kept" : "reverted", by: "a background job" });
    }
  }

  /** The first error an event handler threw, not yet thrown to the loop. */
  private fault: { error: unknown } | undefined;

  private safely(work: () => void): void {
    try {
      work();
    } catch (error) {
      this.fault ??= { error };
    }
  }

  private rethrow(): void {
    const fault = this.fault;
    this.fault = undefined;
    if (fault) throw fault.error;
  }
}
