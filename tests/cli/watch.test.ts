/**
 * Watch mode's logic, driven by plain calls: saves rerun the check, a pass moves on, keys do what
 * they say. The checks are fakes whose verdict the test sets, so every step is deterministic.
 */
import { describe, expect, it } from "vitest";
import type { Lesson } from "../../runtime/manifest.ts";
import type { Grade } from "../../scripts/lib/grade.ts";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { KEYS_HELP, WatchSession, pollChanges, type WatchDeps } from "../../scripts/lib/watch.ts";

const lesson = (n: number): Lesson => ({
  id: `s0${n}`,
  dir: `s0${n}_topic`,
  title: `Topic ${n}`,
  idea: "",
  entry: "agent.ts",
  hints: [`question ${n}?`, `stronger ${n}`],
});
const LESSONS = [lesson(1), lesson(2), lesson(3)];

const grade = (ok: boolean): Grade => ({
  ok,
  passed: ok ? 3 : 1,
  total: 3,
  failures: ok ? [] : [{ test: "t", kind: "todo", message: "fill it in" }],
  output: "",
});

/** A session whose checks answer from `passing`; records what it printed and checked. */
function harness(opts: { slowCheck?: boolean; script?: () => Promise<void> } = {}) {
  const passing = new Set<string>();
  const cached = new Set<string>();
  const printed: string[] = [];
  const checked: string[] = [];
  const aborted: string[] = [];
  const ran: string[] = [];
  let release: (() => void) | undefined;
  const deps: WatchDeps = {
    lessons: () => LESSONS,
    check: async (l, signal) => {
      checked.push(l.id);
      signal.addEventListener("abort", () => aborted.push(l.id));
      // Like the real check (its child process is killed), a slow check ends when aborted.
      if (opts.slowCheck)
        await new Promise<void>((r) => {
          release = r;
          signal.addEventListener("abort", () => r());
        });
      const ok = passing.has(l.id);
      if (ok) cached.add(l.id);
      return grade(ok);
    },
    isDone: (l) => cached.has(l.id),
    report: (l) => [`REPORT ${l.id} fails`],
    hint: (l, level) => [`HINT${level} ${l.hints[level - 1]}`],
    list: async () => LESSONS.map((l) => `LIST ${l.id} ${cached.has(l.id) ? "done" : "not done"}`),
    runLesson: async (l) => {
      ran.push(l.id);
      await opts.script?.();
    },
    print: (line) => printed.push(line),
    debounceMs: 10,
  };
  const session = new WatchSession(deps);
  return { session, deps, passing, cached, printed, checked, aborted, ran, release: () => release?.() };
}

describe("watch: saves", () => {
  it("starts on the first lesson not done and checks it", async () => {
    const h = harness();
    h.cached.add("s01");
    await h.session.start();
    expect(h.session.current?.id).toBe("s02");
    expect(h.checked).toEqual(["s02"]);
    expect(h.printed).toContain("REPORT s02 fails");
    expect(h.printed).toContain(KEYS_HELP);
  });

  it("starts with the last check's verdict when the files have not changed since: no test run, then a save checks again", async () => {
    const h = harness();
    const lastVerdict = grade(false);
    h.session = new WatchSession({ ...h.deps, cached: (l) => (l.id === "s01" ? lastVerdict : undefined) });
    await h.session.start();
    expect(h.checked, "a verdict still valid for the files is not checked again").toEqual([]);
    expect(h.printed).toContain("REPORT s01 fails");
    expect(h.printed).toContain(KEYS_HELP);
    h.session.fileChanged("s01_topic/agent.ts");
    await h.session.idle();
    expect(h.checked).toEqual(["s01"]);
  });

  it("without a verdict for the files as they are (or with a passing one), start checks", async () => {
    const h = harness();
    h.session = new WatchSession({ ...h.deps, cached: () => undefined });
    await h.session.start();
    expect(h.checked).toEqual(["s01"]);
  });

  it("reruns the check on every save in the lesson's folder", async () => {
    const h = harness();
    await h.session.start();
    h.session.fileChanged("s01_topic/agent.ts");
    await h.session.idle();
    h.session.fileChanged("s01_topic/agent.ts");
    await h.session.idle();
    expect(h.checked).toEqual(["s01", "s01", "s01"]);
    expect(h.printed.filter((l) => l === "REPORT s01 fails")).toHaveLength(3);
  });

  it("a burst of saves is one check; files outside any lesson folder are ignored", async () => {
    const h = harness();
    await h.session.start();
    for (let i = 0; i < 5; i++) h.session.fileChanged("s01_topic/agent.ts");
    h.session.fileChanged("README.md");
    await h.session.idle();
    expect(h.checked).toEqual(["s01", "s01"]);
  });

  it("when the check passes, moves on to the next lesson and checks it", async () => {
    const h = harness();
    await h.session.start();
    h.passing.add("s01");
    h.session.fileChanged("s01_topic/agent.ts");
    await h.session.idle();
    expect(h.checked).toEqual(["s01", "s01", "s02"]);
    expect(h.session.current?.id).toBe("s02");
    expect(h.printed.some((l) => l.startsWith("✓ s01 passes"))).toBe(true);
    expect(h.printed.some((l) => l.startsWith("Next: s02"))).toBe(true);
  });

  it("skips lessons already done and says so when every lesson passes", async () => {
    const h = harness();
    h.cached.add("s02");
    h.passing.add("s01").add("s03");
    await h.session.start();
    await h.session.idle();
    expect(h.checked).toEqual(["s01", "s03"]);
    expect(h.session.current).toBeUndefined();
    expect(h.printed.at(-1)).toMatch(/Every lesson passes/);
  });

  it("a save in another lesson's folder makes that lesson the current one", async () => {
    const h = harness();
    await h.session.start();
    h.session.fileChanged("s03_topic/agent.ts");
    await h.session.idle();
    expect(h.session.current?.id).toBe("s03");
    expect(h.checked.at(-1)).toBe("s03");
  });

  it("a save while a check runs stops that check and starts again", async () => {
    const h = harness({ slowCheck: true });
    const started = h.session.start();
    await new Promise((r) => setTimeout(r, 5));
    h.session.fileChanged("s01_topic/agent.ts");
    await new Promise((r) => setTimeout(r, 30));
    expect(h.aborted).toEqual(["s01"]);
    h.release();
    await started;
    await h.session.idle();
    // The stopped check prints nothing; only the newer one reports.
    expect(h.printed.filter((l) => l === "REPORT s01 fails")).toHaveLength(1);
  });
});

describe("watch: the scan that backs fs.watch", () => {
  it("reports a file that changed, appeared or went, and nothing for files left alone", async () => {
    const dir = mkdtempSync(join(tmpdir(), "watch-poll-"));
    try {
      mkdirSync(join(dir, "s01_agent_loop"));
      writeFileSync(join(dir, "s01_agent_loop", "agent.ts"), "a");
      writeFileSync(join(dir, "s01_agent_loop", "other.ts"), "b");
      const seen: string[] = [];
      let wake: () => void = () => {};
      const poll = pollChanges(dir, (rel) => {
        seen.push(rel);
        wake();
      }, 50);
      const next = () => new Promise<void>((r) => (wake = r));
      let arrived = next();
      writeFileSync(join(dir, "s01_agent_loop", "agent.ts"), "a longer text");
      await arrived;
      expect(seen, "a save of agent.ts is reported by its path under lessons/").toEqual([join("s01_agent_loop", "agent.ts")]);
      arrived = next();
      writeFileSync(join(dir, "s01_agent_loop", "new.ts"), "c");
      rmSync(join(dir, "s01_agent_loop", "other.ts"));
      await arrived;
      await new Promise((r) => setTimeout(r, 120));
      poll.stop();
      expect(new Set(seen), "a new file and a removed one are reported too, and the untouched agent.ts not again").toEqual(new Set([join("s01_agent_loop", "agent.ts"), join("s01_agent_loop", "new.ts"), join("s01_agent_loop", "other.ts")]));
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe("watch: keys", () => {
  it("h gives the hint, a second h the stronger one", async () => {
    const h = harness();
    await h.session.start();
    await h.session.key("h");
    await h.session.key("h");
    expect(h.printed).toContain("HINT1 question 1?");
    expect(h.printed).toContain("HINT2 stronger 1");
  });

  it("the hint level starts again on the next lesson", async () => {
    const h = harness();
    await h.session.start();
    await h.session.key("h");
    h.passing.add("s01");
    await h.session.key("c");
    await h.session.idle();
    await h.session.key("h");
    expect(h.printed.at(-1)).toBe("HINT1 question 2?");
  });

  it("r runs the current lesson's script; saves during it are checked when it ends", async () => {
    let finish!: () => void;
    const h = harness({ script: () => new Promise<void>((r) => (finish = r)) });
    await h.session.start();
    const running = h.session.key("r");
    h.session.fileChanged("s01_topic/agent.ts");
    await new Promise((r) => setTimeout(r, 30));
    expect(h.checked).toEqual(["s01"]);
    expect(await h.session.key("q")).toBe(false); // keys belong to the script while it runs
    finish();
    await running;
    await h.session.idle();
    expect(h.ran).toEqual(["s01"]);
    expect(h.checked).toEqual(["s01", "s01"]);
  });

  it("l lists the lessons, c checks again, any other key shows the keys", async () => {
    const h = harness();
    await h.session.start();
    await h.session.key("l");
    expect(h.printed).toContain("LIST s01 not done");
    await h.session.key("c");
    await h.session.idle();
    expect(h.checked).toEqual(["s01", "s01"]);
    h.printed.length = 0;
    await h.session.key("z");
    expect(h.printed).toEqual([KEYS_HELP]);
  });

  it("q quits: the session ends and later saves are ignored", async () => {
    const h = harness();
    await h.session.start();
    expect(await h.session.key("q")).toBe(true);
    await h.session.finished;
    h.session.fileChanged("s01_topic/agent.ts");
    await h.session.idle();
    expect(h.checked).toEqual(["s01"]);
  });
});
