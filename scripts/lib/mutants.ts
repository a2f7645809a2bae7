/**
 * Mutants: deliberately broken copies of lesson solutions that prove each lesson's tests catch
 * the mistakes the lesson teaches against. tests/mutants/sNN/<name>.ts is a copy of ONE solution
 * file with one bug, and says so in its header:
 *
 *   // mutant of: solutions/s03_parallel_tools/run-tools.ts
 *   // expect: <a regex the failing tests' output must match>
 *   // vitest: --testTimeout=3000      (optional: more arguments for vitest, say for a mutant that hangs)
 *
 * and a `// BUG:` comment where it differs. `npm run verify` copies solutions/ into a temporary
 * folder, puts the mutant over its file, runs that lesson's test file on the copy
 * (COURSE_TREE_DIR) and requires the tests to FAIL with output matching `expect`.
 * (tests/mutants/s01/ is graded by tests/runtime/mutants.test.ts instead.)
 *
 * A mutant is written from its own folder (imports climb three levels: "../../../runtime/…",
 * "../../../solutions/…") so it typechecks and lints where it lives; copied into the temporary
 * solutions/ folder, its imports climb one level less.
 */
import { spawn } from "node:child_process";
import { cpSync, existsSync, mkdtempSync, readFileSync, readdirSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Lesson } from "../../runtime/manifest.ts";
import { ROOT, testFileRel } from "./paths.ts";

export interface Mutant {
  lesson: Lesson;
  name: string;
  /** tests/mutants/sNN/<name>.ts, relative to the root. */
  file: string;
  /** The solution file it replaces, relative to solutions/ ("s03_parallel_tools/run-tools.ts"). */
  target: string;
  expect: RegExp;
  /** Extra vitest arguments from an optional "// vitest: …" header line. */
  vitestArgs: string[];
}

export interface MutantResult {
  mutant: Mutant;
  caught: boolean;
  /** What the tests said that matches `expect`, or why the mutant survived. */
  detail: string;
  output: string;
}

/** Lessons whose mutants verify runs (s01's have their own test file). */
const SKIP = new Set(["s01"]);

/** Reads every tests/mutants/sNN/*.ts of the given lessons; problems for malformed headers. */
export function findMutants(lessons: readonly Lesson[]): { mutants: Mutant[]; problems: string[] } {
  const mutants: Mutant[] = [];
  const problems: string[] = [];
  for (const lesson of lessons) {
    if (SKIP.has(lesson.id)) continue;
    const dir = join(ROOT, "tests/mutants", lesson.id);
    if (!existsSync(dir)) continue;
    for (const entry of readdirSync(dir).filter((f) => f.endsWith(".ts")).sort()) {
      const file = `tests/mutants/${lesson.id}/${entry}`;
      const text = readFileSync(join(ROOT, file), "utf8");
      const of = /^\/\/ mutant of: solutions\/(\S+)$/m.exec(text)?.[1];
      const expect = /^\/\/ expect: (.+)$/m.exec(text)?.[1];
      if (!of || !expect) {
        problems.push(`${file}: needs a "// mutant of: solutions/…" and a "// expect: <regex>" header line`);
        continue;
      }
      if (!of.startsWith(`${lesson.dir}/`) || !existsSync(join(ROOT, "solutions", of))) {
        problems.push(`${file}: "mutant of: solutions/${of}" is not a file of solutions/${lesson.dir}/`);
        continue;
      }
      if (!/\/\/ BUG:/.test(text)) problems.push(`${file}: has no "// BUG:" comment where it differs from the solution`);
      let re: RegExp;
      try {
        re = new RegExp(expect);
      } catch (e) {
        problems.push(`${file}: "expect" is not a valid regex (${(e as Error).message})`);
        continue;
      }
      const vitestArgs = (/^\/\/ vitest: (.+)$/m.exec(text)?.[1] ?? "").split(/\s+/).filter(Boolean);
      mutants.push({ lesson, name: entry.replace(/\.ts$/, ""), file, target: of, expect: re, vitestArgs });
    }
  }
  return { mutants, problems };
}

// eslint-disable-next-line no-control-regex
const stripAnsi = (s: string) => s.replace(/\x1b\[[0-9;]*m/g, "");

function run(args: string[], env: NodeJS.ProcessEnv): Promise<{ code: number | null; output: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, args, { cwd: ROOT, env, stdio: ["ignore", "pipe", "pipe"] });
    let output = "";
    child.stdout.on("data", (d: Buffer) => (output += d.toString()));
    child.stderr.on("data", (d: Buffer) => (output += d.toString()));
    child.once("close", (code) => resolve({ code, output: stripAnsi(output) }));
  });
}

/** A match, short: its line, or its first line and the end of its last when it spans several. */
function summary(match: string): string {
  const cut = (s: string, n: number) => (s.length > n ? `${s.slice(0, n - 1)}…` : s);
  const lines = match.split("\n").map((l) => l.replace(/\s+/g, " ").trim()).filter(Boolean);
  if (lines.length <= 1) return cut(lines[0] ?? "", 90);
  const last = lines[lines.length - 1]!; // its end is where the regex ended: the telling part
  return `${cut(lines[0]!, 50)} … ${last.length > 60 ? `…${last.slice(-59)}` : last}`;
}

/** Grades one mutant in a temporary copy of solutions/. */
export async function runMutant(mutant: Mutant): Promise<MutantResult> {
  const tmp = mkdtempSync(join(tmpdir(), `course-mutant-${mutant.lesson.id}-`));
  try {
    // A real copy of solutions/ (no symlinks inside it); runtime/ and node_modules/ beside it
    // are links, so "../../runtime/…" and packages resolve to the course's own modules.
    cpSync(join(ROOT, "solutions"), join(tmp, "solutions"), { recursive: true, dereference: true });
    symlinkSync(join(ROOT, "runtime"), join(tmp, "runtime"), "dir");
    symlinkSync(join(ROOT, "node_modules"), join(tmp, "node_modules"), "dir");
    const text = readFileSync(join(ROOT, mutant.file), "utf8").replaceAll('"../../../', '"../../');
    writeFileSync(join(tmp, "solutions", mutant.target), text);
    const r = await run([join(ROOT, "node_modules/vitest/vitest.mjs"), "run", testFileRel(mutant.lesson), ...mutant.vitestArgs], {
      ...process.env,
      COURSE_TREE: "solutions",
      COURSE_TREE_DIR: join(tmp, "solutions"),
      NO_COLOR: "1",
      FORCE_COLOR: "0",
    });
    if (r.code === 0) return { mutant, caught: false, detail: "SURVIVED: its lesson's tests pass", output: r.output };
    const m = mutant.expect.exec(r.output);
    if (!m) return { mutant, caught: false, detail: `the tests fail, but their output does not match ${mutant.expect}`, output: r.output };
    return { mutant, caught: true, detail: summary(m[0]), output: r.output };
  } finally {
    rmSync(tmp, { recursive: true, force: true });
  }
}

/** Grades every mutant, `parallel` at a time, reporting each as it is done. */
export async function runMutants(
  mutants: Mutant[],
  report: (r: MutantResult) => void,
  parallel = 2,
): Promise<MutantResult[]> {
  const results: MutantResult[] = [];
  let next = 0;
  const worker = async () => {
    while (next < mutants.length) {
      const mutant = mutants[next++]!;
      const r = await runMutant(mutant);
      report(r);
      results.push(r);
    }
  };
  await Promise.all(Array.from({ length: Math.min(parallel, mutants.length) }, worker));
  return results;
}
