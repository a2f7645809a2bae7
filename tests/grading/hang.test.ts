/**
 * The hang watchdog (scripts/lib/hang.ts): a loop that blocks its test worker is declared hung
 * from the CPU time the worker burns without a heartbeat, so a worker that is only starved (no
 * CPU for a long while: a busy machine), waiting, or busy but beating is never called a hang.
 * First on real processes shaped like vitest's (a runner and its forked worker), then the rule
 * itself on a scripted CPU count.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { cpSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { findLesson } from "../../runtime/manifest.ts";
import { explain, gradeLesson } from "../../scripts/lib/grade.ts";
import { ROOT } from "../../scripts/lib/paths.ts";
import { HangWatch, defaultSampler, readHeartbeat, type CpuSampler } from "../../scripts/lib/hang.ts";

const LAST = "It made 2 request(s); the last one: 3 message(s) [user, assistant, user].";

/**
 * A runner process that forks one worker; the worker beats once (in a test), then behaves as
 * `mode` says: spin (a `while (true)` with no await), wait (a promise that never settles),
 * beat (burns CPU but beats every 50 ms).
 */
function runner(mode: "spin" | "wait" | "beat", beatFile: string): { proc: ChildProcess; worker: () => Promise<number> } {
  const workerCode = `
    const fs = require("node:fs");
    const beat = () => fs.writeFileSync(${JSON.stringify(beatFile)}, JSON.stringify({ at: Date.now(), last: ${JSON.stringify(LAST)}, inTest: true }));
    beat();
    process.send("ready");
    const mode = ${JSON.stringify(mode)};
    if (mode === "spin") setTimeout(() => { for (;;) {} }, 50);
    if (mode === "wait") setTimeout(() => {}, 3_600_000);
    if (mode === "beat") setInterval(() => { const end = Date.now() + 40; while (Date.now() < end) {} beat(); }, 50);`;
  const runnerCode = `
    const { spawn } = require("node:child_process");
    const w = spawn(process.execPath, ["-e", ${JSON.stringify(workerCode)}], { stdio: ["ignore", "ignore", "inherit", "ipc"] });
    w.on("message", () => process.send(w.pid));
    setInterval(() => {}, 1000);`;
  const proc = spawn(process.execPath, ["-e", runnerCode], { stdio: ["ignore", "ignore", "inherit", "ipc"], detached: true });
  const worker = () => new Promise<number>((resolve) => proc.once("message", (pid) => resolve(Number(pid))));
  return { proc, worker };
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

const cleanup: (() => void)[] = [];
afterEach(() => {
  for (const c of cleanup.splice(0)) c();
});

function setup(mode: "spin" | "wait" | "beat") {
  const dir = mkdtempSync(join(tmpdir(), "course-hang-"));
  const beatFile = join(dir, "heartbeat.json");
  const r = runner(mode, beatFile);
  cleanup.push(() => {
    try {
      process.kill(-r.proc.pid!, "SIGKILL");
    } catch {
      /* gone */
    }
    rmSync(dir, { recursive: true, force: true });
  });
  const watch = new HangWatch({ heartbeatFile: beatFile, runner: () => r.proc.pid, cpuLimitMs: 800 });
  return { ...r, watch, beatFile };
}

/** Looks every 100 ms for `ms`; the first verdict, if any. */
async function watchFor(watch: HangWatch, ms: number, during?: (elapsed: number) => void): Promise<string | undefined> {
  const start = Date.now();
  while (Date.now() - start < ms) {
    during?.(Date.now() - start);
    const v = watch.look();
    if (v) return v;
    await sleep(100);
  }
  return undefined;
}

describe("the hang watchdog, on real processes", () => {
  it.runIf(process.platform !== "win32")("a worker blocked by a loop with no await is declared hung, with the last request it made", async () => {
    const s = setup("spin");
    await s.worker();
    const verdict = await watchFor(s.watch, 30_000);
    expect(verdict, "a while (true) in the worker was not declared hung within 30 s: HangWatch.look (scripts/lib/hang.ts) must count the CPU time the worker burns since its last heartbeat").toBeDefined();
    expect(verdict, "the hang verdict must open with the rule in words (the loop did not return, N s of CPU time): keep that wording in HangWatch.look").toMatch(/^the loop did not return: it has blocked the test process for \d+ s of CPU time/);
    expect(verdict, "the hang verdict must name the last request the loop made (the heartbeat's last): add it to the verdict").toContain(LAST);
  }, 40_000);

  it.runIf(process.platform !== "win32")("a starved worker (stopped: no CPU at all, far longer than the limit) is not a hang; nor is one that waits", async () => {
    for (const mode of ["spin", "wait"] as const) {
      const s = setup(mode);
      const pid = await s.worker();
      if (mode === "spin") {
        // Starved from the moment it beat: its loop would spin, but it gets no CPU time.
        process.kill(pid, "SIGSTOP");
        cleanup.push(() => {
          try {
            process.kill(pid, "SIGCONT");
          } catch {
            /* gone */
          }
        });
        // The first look takes the CPU count at the beat; then 3 s of silence, 4× the limit.
        expect(await watchFor(s.watch, 3_000), "a stopped worker (SIGSTOP, no CPU at all) was declared hung: count CPU time, never wall time, since the last heartbeat").toBeUndefined();
      } else {
        expect(await watchFor(s.watch, 3_000), "a worker waiting on a promise was declared hung: it burns no CPU, so the CPU count must stay under the limit").toBeUndefined();
      }
    }
  }, 20_000);

  it.runIf(process.platform !== "win32")("a worker that burns CPU but beats between requests is not a hang", async () => {
    const s = setup("beat");
    await s.worker();
    expect(await watchFor(s.watch, 3_000), "a worker that burns CPU but beats every 50 ms was declared hung: each heartbeat must start the CPU count again").toBeUndefined();
    // The worker rewrites the file every 50 ms: read it as the watchdog does (a half-written beat is skipped).
    let beat = readHeartbeat(s.beatFile);
    for (let i = 0; !beat && i < 50; i++) beat = (await new Promise((r) => setTimeout(r, 10)), readHeartbeat(s.beatFile));
    expect(beat?.inTest, `the worker's heartbeat reads ${JSON.stringify(beat)}: readHeartbeat must read a beat written inside a test as { inTest: true }`).toBe(true);
  }, 20_000);

  it.runIf(process.platform === "linux")("the CPU sampler sees the runner and its worker", async () => {
    const s = setup("wait");
    const pid = await s.worker();
    const cpu = defaultSampler()(s.proc.pid!);
    expect([...(cpu?.keys() ?? [])].sort(), "the CPU sampler must see the runner and its forked worker (and nothing else): defaultSampler reads the runner's process and its children from /proc").toEqual([s.proc.pid!, pid].sort());
  });
});

/** The processes whose parent is `ppid` (Linux). */
function childrenOf(ppid: number): number[] {
  return [...(defaultSampler()(ppid)?.keys() ?? [])].filter((p) => p !== ppid);
}

describe("the hang watchdog, in a check", () => {
  it.runIf(process.platform !== "win32")(
    "a loop that spins with no await after its first request: loop-did-not-return, naming that request, the rest of the file not run, no runner words",
    async () => {
      const before = process.env.COURSE_HANG_MS;
      process.env.COURSE_HANG_MS = "1500";
      const s01 = findLesson("s01")!;
      const tmp = mkdtempSync(join(tmpdir(), "course-hang-tree-"));
      try {
        cpSync(join(ROOT, "solutions", s01.dir), join(tmp, "solutions", s01.dir), { recursive: true });
        for (const entry of ["runtime", "node_modules", "package.json"]) symlinkSync(join(ROOT, entry), join(tmp, entry));
        const file = join(tmp, "solutions", s01.dir, "agent.ts");
        const text = readFileSync(file, "utf8");
        const spun = text.replace('if (response.stop_reason !== "tool_use") return response;', "for (;;) Date.now();");
        expect(spun, "(a check of this test itself) the s01 solution changed: make the test's replace find the line that ends the loop again").not.toBe(text);
        writeFileSync(file, spun);
        const grade = await gradeLesson(s01, "solutions", { treeDir: join(tmp, "solutions"), timeoutMs: 240_000, typecheck: false });
        const first = grade.failures[0];
        expect(first?.rule, `a loop that spins after its first request was graded ${JSON.stringify(first)}: the first finding must be loop-did-not-return (the hang watchdog stops the worker and gradeLesson names the rule)`).toBe("loop-did-not-return");
        expect(first?.message, "the finding must say in words that the loop did not return and for how many seconds of CPU time").toMatch(/^the loop did not return: it has blocked the test process for \d+ s of CPU time/);
        expect(first?.message, "the finding must name the request count and the last request (1 request, 1 message [user]) from the heartbeat: keep them in the verdict").toMatch(/It made 1 request\(s\); the last one: 1 message\(s\) \[user\]/);
        expect(grade.failures.map((f) => f.rule), "a hung worker must end the check with one finding: the rest of the file is not run, so no time-out of the other tests is reported").toHaveLength(1);
        const words = explain(s01, grade).join("\n");
        expect(words, "the verdict shows the test runner's own words: explain must replace them with the rule in words").not.toMatch(/STACK_TRACE_ERROR|Test timed out|expected .* to /);
      } finally {
        rmSync(tmp, { recursive: true, force: true });
        if (before === undefined) delete process.env.COURSE_HANG_MS;
        else process.env.COURSE_HANG_MS = before;
      }
    },
    300_000,
  );

  it.runIf(process.platform === "linux")(
    "a check whose test worker is starved (stopped 1.5 s of every 1.8 s) with a 1 s limit grades the solution as it is: passing, no hang",
    async () => {
      const before = process.env.COURSE_HANG_MS;
      process.env.COURSE_HANG_MS = "1000";
      let stopped: number[] = [];
      let on = true;
      const resume = () => {
        for (const p of stopped.splice(0))
          try {
            process.kill(p, "SIGCONT");
          } catch {
            /* gone */
          }
      };
      const cycle = async () => {
        while (on) {
          // the runner (vitest's main, a child of this process) and its workers
          for (const runnerPid of childrenOf(process.pid)) stopped.push(...childrenOf(runnerPid));
          for (const p of stopped)
            try {
              process.kill(p, "SIGSTOP");
            } catch {
              /* gone */
            }
          await sleep(1500);
          resume();
          await sleep(300);
        }
      };
      const starving = cycle();
      try {
        const grade = await gradeLesson(findLesson("s01")!, "solutions", { timeoutMs: 240_000, typecheck: false });
        expect(grade.failures, "a starved worker (stopped most of the time) was graded with findings: it is slow, not blocked; count CPU time since the heartbeat, never wall time").toEqual([]);
        expect(grade.ok, "the s01 solution, with its worker starved, must pass its check").toBe(true);
      } finally {
        on = false;
        await starving;
        resume();
        stopped = [];
        if (before === undefined) delete process.env.COURSE_HANG_MS;
        else process.env.COURSE_HANG_MS = before;
      }
    },
    300_000,
  );
});

describe("the hang rule, on a scripted CPU count", () => {
  function scriptedWatch(limit: number) {
    const dir = mkdtempSync(join(tmpdir(), "course-hang-"));
    cleanup.push(() => rmSync(dir, { recursive: true, force: true }));
    const beatFile = join(dir, "heartbeat.json");
    let cpu = 0;
    const sampler: CpuSampler = () => new Map([[1, 100], [2, cpu]]);
    const watch = new HangWatch({ heartbeatFile: beatFile, runner: () => 1, cpuLimitMs: limit, sampler });
    return {
      watch,
      beat: (inTest = true, at = Date.now()) => writeFileSync(beatFile, JSON.stringify({ at, last: LAST, inTest })),
      burn: (ms: number) => (cpu += ms),
    };
  }

  it("counts only the CPU time since the last heartbeat, however much wall time passed", () => {
    const w = scriptedWatch(1000);
    w.beat(true, 1);
    expect(w.watch.look(), "a look right after a heartbeat, no CPU burnt, gave a verdict: count only CPU time since the last heartbeat").toBeUndefined();
    // A starved worker: ten minutes of wall time would pass with 10 ms of CPU a look.
    for (let i = 0; i < 60; i++) {
      w.burn(10);
      expect(w.watch.look(), `look ${i}: ${10 * (i + 1)} ms of CPU in all, under the 1000 ms limit, gave a verdict: the wall time between looks must not count`).toBeUndefined();
    }
    w.beat(true, 2); // it got its turn and beat: counting starts again
    expect(w.watch.look(), "a new heartbeat must start the CPU count again: the 600 ms burnt before it were counted").toBeUndefined();
    w.burn(900);
    expect(w.watch.look(), "900 ms of CPU since the heartbeat, under the 1000 ms limit, gave a verdict: declare a hang only past the limit").toBeUndefined();
    w.burn(200);
    expect(w.watch.look(), "1100 ms of CPU since the heartbeat, past the 1000 ms limit, gave no verdict (or not in words): declare the hang, naming the seconds of CPU time").toMatch(/blocked the test process for 1 s of CPU time/);
  });

  it("silence between tests (loading, no test running) is never a hang", () => {
    const w = scriptedWatch(1000);
    w.beat(false, 1);
    w.watch.look();
    w.burn(5000);
    expect(w.watch.look(), "5 s of CPU between tests (heartbeat with inTest false) gave a verdict: loading and setup are never a hang").toBeUndefined();
  });

  it("before any heartbeat there is no verdict", () => {
    const w = scriptedWatch(1000);
    w.burn(5000);
    expect(w.watch.look(), "a verdict before any heartbeat: with no beat there is nothing to count from, so give none").toBeUndefined();
  });
});
