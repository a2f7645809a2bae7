/**
 * The s01 grading catches broken loops. Each patch in tests/mutants/s01/ gives the s01 loop one
 * classic mistake; the very checks that grade s01 (tests/s01_agent_loop.grading.ts) must FAIL it
 * with a message naming the broken rule, while the reference solution passes them all. Last, the
 * real command: a mutant copied into lessons/ of a temporary copy of the course fails
 * `npm run check s01`, naming the rule.
 */
import { spawn } from "node:child_process";
import { cpSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { findLesson } from "../../runtime/manifest.ts";
import { quietOutput, ROOT } from "../../runtime/testing.ts";
import { findPatches, materialize } from "../../scripts/lib/mutants.ts";
import { PART_ONE, PART_TWO, type S01Lesson } from "../s01_agent_loop.grading.ts";

const MUTANTS: Array<[string, RegExp]> = [
  ["forgets_result", /\[unanswered-tool-use\] messages\[1\] asks for toolu_\w+ \(bash\), but messages\[2\] has no tool_result/],
  ["splits_results", /\[results-split\] messages\[1\] asks for toolu_\w+ \(bash\), but messages\[2\] does not answer it \(messages\[3\] does, too late\)/],
  ["text_before_results", /\[results-first\] messages\[2\]\.content\[0\] is a text block before the tool_result/],
  ["drops_thinking", /\[not-verbatim\] messages\[1\] is not the model's response as it was sent: its thinking block was dropped/],
  ["edits_thinking", /\[not-verbatim\] messages\[1\] is not the model's response as it was sent: its thinking block was changed/],
  ["returns_unanswered", /\[unanswered-tool-use\] messages\[1\] asks for toolu_\w+ \(bash\) and nothing answers/],
  ["never_stops", /\[stop-when-done\] the loop kept calling the model/],
];

/** Runs every s01 check on a lesson module; returns the failure messages. */
async function grade(lesson: S01Lesson): Promise<string[]> {
  const failures: string[] = [];
  for (const check of [...PART_ONE, ...PART_TWO]) {
    try {
      await check.run(lesson);
    } catch (e) {
      failures.push(`${check.name}: ${(e as Error).message}`);
    }
  }
  return failures;
}

const load = async (file: string) => (await import(pathToFileURL(join(ROOT, file)).href)) as S01Lesson;

/** A mutant is a patch (tests/mutants/s01/<name>.patch): applied to a temporary copy of solutions/. */
const copies: Array<() => void> = [];
afterAll(() => copies.forEach((c) => c()));
async function loadMutant(name: string): Promise<S01Lesson> {
  const [mutant] = findPatches([findLesson("s01")!], "mutant").mutants.filter((m) => m.name === name);
  const { dir, cleanup } = materialize(mutant!);
  copies.push(cleanup);
  return (await import(pathToFileURL(join(dir, "s01_agent_loop/agent.ts")).href)) as S01Lesson;
}

describe("s01 grading against broken loops", () => {
  let restore: () => void = () => {};
  beforeAll(() => {
    restore = quietOutput();
  });
  afterAll(() => restore());

  it("the reference solution passes every check (the checks can pass)", async () => {
    expect(await grade(await load("solutions/s01_agent_loop/agent.ts"))).toEqual([]);
  });

  it.each(MUTANTS)("%s fails, naming the broken rule", async (name, rule) => {
    const failures = await grade(await loadMutant(name));
    expect(failures.length).toBeGreaterThan(0);
    expect(failures.join("\n")).toMatch(rule);
    // A loop that never stops runs every s01 check to its own turn limit: about 35 s on an idle
    // 2-core machine, so the limit leaves room for a busy one.
  }, 180_000);
});

describe("npm run check s01 on a mutant in lessons/ (a temporary copy of the course)", () => {
  const dir = mkdtempSync(join(tmpdir(), "course-mutant-"));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it("fails with exit 1 and names the broken rule", async () => {
    for (const entry of ["runtime", "tests", "scripts", "lessons", "solutions", "evals", "package.json", "vitest.config.ts", "tsconfig.json"])
      cpSync(join(ROOT, entry), join(dir, entry), { recursive: true });
    symlinkSync(join(ROOT, "node_modules"), join(dir, "node_modules"), "dir");
    const [patch] = findPatches([findLesson("s01")!], "mutant").mutants.filter((m) => m.name === "text_before_results");
    const { dir: patched, cleanup } = materialize(patch!);
    copies.push(cleanup);
    writeFileSync(join(dir, "lessons/s01_agent_loop/agent.ts"), readFileSync(join(patched, "s01_agent_loop/agent.ts"), "utf8"));

    const r = await new Promise<{ code: number | null; out: string }>((resolve) => {
      const child = spawn("npm", ["run", "--silent", "check", "s01"], {
        cwd: dir,
        env: { ...process.env, NO_COLOR: "1", FORCE_COLOR: "0", COURSE_TREE: "" },
        stdio: ["ignore", "pipe", "pipe"],
      });
      let out = "";
      child.stdout.on("data", (d: Buffer) => (out += d.toString()));
      child.stderr.on("data", (d: Buffer) => (out += d.toString()));
      child.once("close", (code) => resolve({ code, out }));
    });
    expect(r.code, r.out).toBe(1);
    expect(r.out).toMatch(/\[results-first\] messages\[2\]\.content\[0\] is a text block before the tool_result for toolu_\w+: tool_result blocks must come first/);
    // The real lessons/ was never touched.
    expect(readFileSync(join(ROOT, "lessons/s01_agent_loop/agent.ts"), "utf8")).not.toContain("BUG:");
  }, 120_000);
});
