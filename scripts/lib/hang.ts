/**
 * Telling a loop that blocks the test process (a `while (true)` with no await) from a test that
 * is only slow, on a machine that may be starved.
 *
 * The tests leave a heartbeat (runtime/testing.ts: each test's start and end, each answered
 * request, every second while a loop is driven). Silence alone is not a verdict: on a busy
 * machine a healthy worker can go a long time without being scheduled. What a blocked loop does
 * and a starved or waiting one does not is burn CPU: so the silence is measured in the CPU time
 * the test worker used since its last heartbeat (from /proc, or `ps` where there is no /proc).
 * A worker waiting on a timer, on I/O, or for its turn on the CPU uses next to none.
 *
 *   const watch = new HangWatch({ heartbeatFile, group: () => child.pid });
 *   setInterval(() => { const hung = watch.look(); if (hung) … }, 1000);
 */
import { execFileSync } from "node:child_process";
import { readFileSync, readdirSync } from "node:fs";
import { CLI_WORDS, word, type Said } from "../../runtime/words.ts";

/**
 * CPU time a test worker may spend without a sign of life before its loop is declared blocked
 * (COURSE_HANG_MS). A healthy test beats at every request: milliseconds of CPU apart.
 */
export const hangCpuMs = () => Number(process.env.COURSE_HANG_MS) || 15_000;

export interface Beat {
  at: number;
  last: string;
  inTest: boolean;
}

export function readHeartbeat(path: string): Beat | undefined {
  try {
    const v = JSON.parse(readFileSync(path, "utf8")) as { at?: unknown; last?: unknown; inTest?: unknown };
    return typeof v.at === "number" ? { at: v.at, last: typeof v.last === "string" ? v.last : "", inTest: v.inTest !== false } : undefined;
  } catch {
    return undefined; // not written yet, or being written
  }
}

/** CPU time (ms) of each process whose parent is `parent`, and of `parent` itself. */
export type CpuSampler = (parent: number) => Map<number, number> | undefined;

const TICKS = 100; // USER_HZ: clock ticks per second in /proc/<pid>/stat, 100 on every Linux

/** "pid (comm) state ppid …" → [ppid, utime + stime in ms]; comm may hold spaces and parentheses. */
function readStat(pid: number): [number, number] | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    const f = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    return [Number(f[1]), ((Number(f[11]) + Number(f[12])) * 1000) / TICKS];
  } catch {
    return undefined; // ended meanwhile
  }
}

/** The children of `parent`: from /proc/<pid>/task/<tid>/children, else by reading every process. */
function childPids(parent: number): number[] {
  try {
    const kids: number[] = [];
    for (const tid of readdirSync(`/proc/${parent}/task`))
      for (const k of readFileSync(`/proc/${parent}/task/${tid}/children`, "utf8").split(" ")) if (k.trim()) kids.push(Number(k));
    return kids;
  } catch {
    return readdirSync("/proc").filter((e) => /^\d+$/.test(e) && readStat(Number(e))?.[0] === parent).map(Number);
  }
}

/** From /proc: utime + stime of `parent` and of its children. */
function procSampler(parent: number): Map<number, number> | undefined {
  if (readStat(process.pid) === undefined) return undefined; // no /proc here
  const out = new Map<number, number>();
  for (const pid of [parent, ...childPids(parent)]) {
    const s = readStat(pid);
    if (s) out.set(pid, s[1]);
  }
  return out;
}

/** From `ps` (macOS, the BSDs): "pid ppid [[dd-]hh:]mm:ss[.cc]". */
function psSampler(parent: number): Map<number, number> | undefined {
  let text: string;
  try {
    text = execFileSync("ps", ["-A", "-o", "pid=,ppid=,time="], { encoding: "utf8", timeout: 5000 });
  } catch {
    return undefined;
  }
  const out = new Map<number, number>();
  for (const line of text.split("\n")) {
    const [pid, ppid, time] = line.trim().split(/\s+/);
    if (!time || (Number(pid) !== parent && Number(ppid) !== parent)) continue;
    const [days, clock] = time.includes("-") ? time.split("-") : ["0", time];
    const secs = clock!.split(":").reduce((acc, part) => acc * 60 + Number(part), 0);
    out.set(Number(pid), (Number(days) * 86_400 + secs) * 1000);
  }
  return out;
}

let sampler: CpuSampler | undefined;
export function defaultSampler(): CpuSampler {
  return (sampler ??= procSampler(process.pid) ? procSampler : psSampler);
}

export interface HangWatchOptions {
  heartbeatFile: string;
  /** The test runner's process (vitest's main); its children are the workers running the tests. */
  runner: () => number | undefined;
  /** Beats older than this belong to an earlier run (the warm runner's heartbeat file stays). */
  since?: number;
  cpuLimitMs?: number;
  sampler?: CpuSampler;
}

export class HangWatch {
  private seenAt: number | undefined;
  /** Each process's CPU time when the last heartbeat was seen. */
  private base = new Map<number, number>();
  private readonly limit: number;
  private readonly since: number;
  private readonly sample: CpuSampler;
  private readonly started = Date.now();

  constructor(private readonly opts: HangWatchOptions) {
    this.limit = opts.cpuLimitMs ?? hangCpuMs();
    this.since = opts.since ?? 0;
    this.sample = opts.sampler ?? defaultSampler();
  }

  /** One look (call it about once a second): the verdict when a loop blocks a test worker. */
  look(): string | undefined {
    const raw = readHeartbeat(this.opts.heartbeatFile);
    const beat = raw && raw.at > this.since ? raw : undefined;
    const pid = this.opts.runner();
    const cpu = pid !== undefined ? this.sample(pid) : undefined;
    if (beat?.at !== this.seenAt) {
      // A sign of life: the CPU count starts again from here.
      this.seenAt = beat?.at;
      this.base = new Map(cpu ?? []);
      return undefined;
    }
    if (!beat?.inTest) return undefined; // between tests, or before the first: loading is not a loop
    if (cpu === undefined) {
      // No way to read CPU time: fall back on silence, with room for a slow machine.
      const silent = Date.now() - Math.max(beat.at, this.started);
      return silent > this.limit * 4 ? verdict(Math.round(silent / 1000), false, beat.last) : undefined;
    }
    // The workers only (the runner's children), or the runner itself when it runs the tests in threads.
    const workers = [...cpu.keys()].filter((p) => p !== pid);
    let busiest = 0;
    for (const p of workers.length > 0 ? workers : [pid!]) {
      if (!this.base.has(p)) this.base.set(p, cpu.get(p)!); // started since the beat: counts from now
      busiest = Math.max(busiest, cpu.get(p)! - this.base.get(p)!);
    }
    return busiest >= this.limit ? verdict(Math.round(busiest / 1000), true, beat.last) : undefined;
  }
}

function verdict(seconds: number, cpu: boolean, last: string): string {
  return word(cpu ? "grade.blocked-cpu" : "grade.blocked", { seconds, last }, "en").trim();
}

/**
 * The word a verdict of this file was said with (it travels as English text, from the runner's
 * process to the check), so the check says it in the learner's language; undefined for another text.
 */
export function saidOfVerdict(text: string): Said | undefined {
  for (const id of ["grade.blocked-cpu", "grade.blocked"] as const) {
    const [before, after] = CLI_WORDS[id].split("{seconds}") as [string, string];
    const tail = after.split("{last}")[0]!;
    if (!text.startsWith(before)) continue;
    const rest = text.slice(before.length);
    const seconds = /^\d+/.exec(rest)?.[0];
    if (!seconds || !rest.slice(seconds.length).startsWith(tail.trimEnd())) continue;
    return { id, vars: { seconds: Number(seconds), last: rest.slice(seconds.length + tail.length).trim() } };
  }
  return undefined;
}
