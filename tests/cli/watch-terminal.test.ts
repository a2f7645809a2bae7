/**
 * `npm run watch` for real, in a pseudo-terminal (`script`), on a temporary copy of the
 * repository: it checks the current lesson, answers h / r / l, reruns when the learner saves a
 * solution, moves on to the next lesson, and quits on q. Without `script`, keys go through a pipe.
 */
import { spawn, type ChildProcessWithoutNullStreams } from "node:child_process";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Lesson } from "../../runtime/manifest.ts";
import { KEYS_HELP } from "../../scripts/lib/watch.ts";
import { courseEnv, hasCommand, makeCopy, solve, stripAnsi, type CourseCopy } from "./course-copy.ts";

const usePty = hasCommand("script");

class Terminal {
  private text = "";
  private from = 0;
  readonly exited: Promise<number>;
  constructor(private readonly child: ChildProcessWithoutNullStreams) {
    const take = (c: Buffer) => (this.text += stripAnsi(c.toString()).replace(/\r/g, ""));
    child.stdout.on("data", take);
    child.stderr.on("data", take);
    this.exited = new Promise((r) => child.on("close", (code) => r(code ?? -1)));
  }
  /** Waits for `pattern` in the output that came after the previous wait. */
  async waitFor(pattern: RegExp | string, ms = 60_000): Promise<string> {
    const deadline = Date.now() + ms;
    for (;;) {
      const rest = this.text.slice(this.from);
      const i = typeof pattern === "string" ? rest.indexOf(pattern) : rest.search(pattern);
      if (i >= 0) {
        const seen = rest.slice(0, i + 1);
        this.from += i + 1;
        return seen;
      }
      if (Date.now() > deadline) throw new Error(`waited ${ms} ms for ${String(pattern)}; the terminal shows:\n${this.text.slice(-3000)}`);
      await new Promise((r) => setTimeout(r, 50));
    }
  }
  press(key: string): void {
    this.child.stdin.write(key);
  }
  kill(): void {
    this.child.kill("SIGKILL");
  }
}

describe(`npm run watch in a ${usePty ? "pseudo-terminal" : "pipe"}`, () => {
  let copy: CourseCopy;
  let term: Terminal;
  let LESSONS: Lesson[];
  let s01: Lesson;
  beforeAll(async () => {
    copy = makeCopy({ git: true });
    LESSONS = await copy.lessons();
    s01 = LESSONS[0]!;
    const cmd = `"${process.execPath}" --import tsx scripts/course.ts watch`;
    const env = courseEnv();
    const child = usePty
      ? spawn("script", ["-q", "-e", "-c", cmd, "/dev/null"], { cwd: copy.root, env })
      : spawn(process.execPath, ["--import", "tsx", "scripts/course.ts", "watch"], { cwd: copy.root, env });
    term = new Terminal(child);
  }, 60_000);
  afterAll(() => {
    term?.kill();
    copy?.remove();
  });

  it("checks the current lesson at once and leads with the TODO that is left", async () => {
    const seen = await term.waitFor(KEYS_HELP);
    expect(seen).toContain(`current lesson: ${s01.id}`);
    expect(seen).toContain("A TODO is left");
  }, 120_000);

  it("h prints the hint, h again the stronger one", async () => {
    term.press("h");
    await term.waitFor(s01.hints[0]);
    term.press("h");
    await term.waitFor(s01.hints[1]);
  }, 120_000);

  it("r runs the lesson's script (offline), then takes keys again", async () => {
    term.press("r");
    const seen = await term.waitFor(KEYS_HELP);
    expect(seen).toContain(`npm run lesson ${s01.id}`);
    expect(seen).toContain("TODO left");
  }, 120_000);

  it("saving the solved exercise reruns the check, which passes, and moves on", async () => {
    solve(copy.root, s01.dir);
    await term.waitFor(`✓ ${s01.id} passes`);
    const next = LESSONS[1];
    if (next) await term.waitFor(`Next: ${next.id}`);
    else await term.waitFor("Every lesson passes");
  }, 120_000);

  it("l lists the lessons with their states", async () => {
    if (LESSONS[1]) await term.waitFor(KEYS_HELP); // the next lesson's check is done
    term.press("l");
    await term.waitFor(new RegExp(`done\\s+${s01.id}\\s+${s01.title}`));
    await term.waitFor(`1 of ${LESSONS.length} lessons done`);
  }, 120_000);

  it("q quits with exit code 0", async () => {
    term.press("q");
    await term.waitFor("Bye");
    expect(await term.exited).toBe(0);
  }, 120_000);
});
