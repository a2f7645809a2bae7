/**
 * `npm run watch` for real, in a pseudo-terminal (`script`), on a temporary copy of the
 * repository: it checks the current lesson, answers h / r / l, reruns when the learner saves a
 * solution, moves on to the next lesson, reports a type error a save brings (and its undoing), and
 * quits on q. Without `script`, keys go through a pipe.
 */
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Lesson } from "../../runtime/manifest.ts";
import { KEYS_HELP } from "../../scripts/lib/watch.ts";
import { Terminal, hasCommand, makeCopy, solve, type CourseCopy } from "./course-copy.ts";

const usePty = hasCommand("script");

describe(`npm run watch in a ${usePty ? "pseudo-terminal" : "pipe"}`, () => {
  let copy: CourseCopy;
  let term: Terminal;
  let LESSONS: Lesson[];
  let s01: Lesson;
  beforeAll(async () => {
    copy = makeCopy({ git: true });
    LESSONS = await copy.lessons();
    s01 = LESSONS[0]!;
    term = copy.terminal(["watch"], { pty: usePty });
  }, 60_000);
  afterAll(() => {
    term?.kill();
    copy?.remove();
  });

  it("checks the current lesson at once and leads with the TODO that is left", async () => {
    const seen = await term.waitFor(KEYS_HELP);
    expect(seen).toContain(`current lesson: ${s01.id}`);
    expect(seen).toContain("A TODO is left");
  }, 240_000);

  it("h prints the hint, h again the stronger one", async () => {
    term.press("h");
    await term.waitFor(s01.hints[0]);
    term.press("h");
    await term.waitFor(s01.hints[1]);
  }, 240_000);

  it("r runs the lesson's script (offline), then takes keys again", async () => {
    term.press("r");
    const seen = await term.waitFor(KEYS_HELP);
    expect(seen).toContain(`npm run lesson ${s01.id}`);
    expect(seen).toContain("TODO left");
  }, 240_000);

  it("saving the solved exercise reruns the check, which passes, and moves on", async () => {
    solve(copy.root, s01.dir);
    await term.waitFor(`✓ ${s01.id} passes`);
    const next = LESSONS[1];
    if (next) await term.waitFor(`Next: ${next.id}`);
    else await term.waitFor("Every lesson passes");
  }, 240_000);

  it("a save with a type error leads with it (the warm type checker), and undoing it passes again", async () => {
    if (LESSONS[1]) await term.waitFor(KEYS_HELP); // the next lesson's check is done
    const agent = join(copy.root, "lessons", s01.dir, s01.entry);
    const solved = readFileSync(agent, "utf8");
    writeFileSync(agent, `${solved}\nexport const oops: number = "not a number";\n`);
    await term.waitFor(/\[type-error\] lessons\/s01_agent_loop does not type-check/);
    await term.waitFor(/agent\.ts:\d+:14 +Type 'string' is not assignable to type 'number'\. \(TS2322\)/);
    writeFileSync(agent, solved);
    await term.waitFor(`✓ ${s01.id} passes`);
  }, 240_000);

  it("l lists the lessons with their states", async () => {
    if (LESSONS[1]) await term.waitFor(KEYS_HELP); // the next lesson's check is done
    term.press("l");
    await term.waitFor(new RegExp(`done\\s+${s01.id}\\s+${s01.title}`));
    await term.waitFor(`1 of ${LESSONS.length} lessons done`);
  }, 240_000);

  it("q quits with exit code 0", async () => {
    term.press("q");
    await term.waitFor("Bye");
    expect(await term.exited).toBe(0);
  }, 240_000);
});
