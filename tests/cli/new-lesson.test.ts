/**
 * `npm run new-lesson -- sNN_slug --from sMM` in a copy of the course: it writes every piece of a
 * lesson (course.json with its base, exercise, solution, test, scenario, a page per language, a mutant and
 * an alternative) and edits no existing file (the rules page's table is made when the site is
 * built, and shows the new lesson's rule); the lesson's test
 * passes the solution and fails the exercise on the lesson's rule, naming the TODO. A name or a
 * base it cannot use is one line and exit 2, with nothing written.
 */
import { spawn } from "node:child_process";
import { existsSync, readFileSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { SITE_LANGS, langDir } from "../../docs/.vitepress/theme/langs.ts";
import { courseEnv, makeCopy, stripAnsi } from "./course-copy.ts";

const copy = makeCopy({ git: true });
afterAll(() => copy.remove());

/** A command in the copy: its exit code and output, colours removed. */
function inCopy(cmd: string, args: string[], env: NodeJS.ProcessEnv = {}): Promise<{ code: number; out: string }> {
  return new Promise((resolve) => {
    const child = spawn(cmd, args, { cwd: copy.root, env: { ...courseEnv(), ...env } });
    let out = "";
    child.stdout.on("data", (c: Buffer) => (out += c.toString()));
    child.stderr.on("data", (c: Buffer) => (out += c.toString()));
    child.on("close", (code) => resolve({ code: code ?? -1, out: stripAnsi(out) }));
  });
}
const newLesson = (...args: string[]) => inCopy(process.execPath, ["--import", "tsx", "scripts/new-lesson.ts", ...args]);
const changed = async () => (await inCopy("git", ["status", "--porcelain"])).out.split("\n").filter((l) => l.trim() !== "");
/** The lesson's own test (not the net, which the verify command runs) on one tree of the copy. */
const grade = (tree: "lessons" | "solutions") =>
  inCopy(join(copy.root, "node_modules/.bin/vitest"), ["run", "--project", "learner", "tests/s90_probe.test.ts", "-t", "the default task"], { COURSE_TREE: tree });

describe("npm run new-lesson -- sNN_slug --from sMM", () => {
  it("refuses a base with no extension points, a name without a slug and a taken id: one line, exit 2, nothing written", async () => {
    for (const [args, said] of [
      [["s90_probe", "--from", "s05"], /use s11 or later/],
      [["s90", "--from", "s22"], /name the new lesson by its folder/],
      [["s22_again", "--from", "s21"], /s22 is taken/],
      [["s90_probe", "--from", "s23"], /exports no runAgent/],
    ] as const) {
      const r = await newLesson(...args);
      expect(r.code, `${args.join(" ")}: ${r.out}`).toBe(2);
      expect(r.out, args.join(" ")).toMatch(said);
      expect(r.out, `${args.join(" ")}: no stack trace`).not.toMatch(/\n\s+at /);
    }
    expect(await changed(), "nothing written").toEqual([]);
  }, 300_000);

  it("writes every piece and edits no existing file; the rules table shows its rule; the solution passes its test and the exercise fails it on the rule", async () => {
    const r = await newLesson("s90_probe", "--from", "s22");
    expect(r.code, r.out).toBe(0);
    const status = await changed();
    const edited = status.filter((l) => !l.startsWith("??")).map((l) => l.slice(3)).sort();
    expect(edited, `existing files edited: none (git status: ${status.join("; ")})`).toEqual([]);
    for (const f of [
      "solutions/s90_probe/agent.ts",
      "solutions/s90_probe/course.json",
      "lessons/s90_probe/agent.ts",
      "tests/s90_probe.test.ts",
      "runtime/scripted/scenarios/s90_probe.ts",
      "docs/lessons/s90_probe.md",
      ...SITE_LANGS.map((l) => `docs/${langDir(l)}lessons/s90_probe.md`),
    ])
      expect(existsSync(join(copy.root, f)), f).toBe(true);
    expect(readdirSync(join(copy.root, "tests/mutants/s90")), "a mutant").toHaveLength(1);
    expect(readdirSync(join(copy.root, "tests/alternatives/s90")), "an alternative").toHaveLength(1);
    const course = JSON.parse(readFileSync(join(copy.root, "solutions/s90_probe/course.json"), "utf8")) as { base?: string; rules: Record<string, unknown> };
    expect(course.base, "course.json declares its base").toBe("s22");
    // The table the rules page shows when the site is built (scripts/lib/rules-doc.ts, the site's markdown), as the copy has it now.
    for (const lang of ["en", "zh"]) {
      const table = await inCopy(process.execPath, ["--import", "tsx", "scripts/lib/rules-doc.ts", lang]);
      expect(table.out, `the ${lang} rules table lists the new rule`).toContain("| `probe-idea` |");
    }
    expect(readFileSync(join(copy.root, "lessons/s90_probe/agent.ts"), "utf8"), "the exercise has a TODO").toMatch(/\/\/ TODO:[\s\S]*todo\(/);

    const solution = await grade("solutions");
    expect(solution.code, `the solution passes its test:\n${solution.out.slice(-1500)}`).toBe(0);
    const exercise = await grade("lessons");
    expect(exercise.code, "the exercise fails its test").not.toBe(0);
    expect(exercise.out, "…naming the TODO that is left").toMatch(/TODO left: add NOTE to the system prompt/);

    const listed = await newLesson("s90");
    expect(listed.out, "npm run new-lesson -- s90 lists what is left (the pages' words)").toMatch(/✗ docs\/zh\/lessons\/s90_probe\.md is written in Chinese/);
    expect(listed.out, "…in every language of the site").toMatch(/✗ docs\/ja\/lessons\/s90_probe\.md is written in Japanese/);
    expect(listed.out, "…in every language of the site").toMatch(/✗ docs\/ru\/lessons\/s90_probe\.md is written in Russian/);
  }, 600_000); // two test runs and three commands as processes, on a busy machine: the bound, not a verdict
});
