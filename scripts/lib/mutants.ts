/**
 * Mutants and alternatives: small unified-diff patches against the solutions that prove the
 * grading tells the truth in both directions.
 *
 *   tests/mutants/sNN/<name>.patch        a classic broken loop: its lesson's check must FAIL,
 *                                         with the named rule leading the verdict
 *   tests/alternatives/sNN/<name>.patch   another valid way to write the loop: the check must PASS
 *
 * A patch is a unified diff (`git diff` / `diff -u` shape, a few lines of context) of one or
 * more solution files, after a header of "# key: value" lines:
 *
 *   # rule: results-first                 (mutants) the rule id (runtime/rules.ts) that must lead
 *   # expect: <regex>                     (optional) must match the verdict the learner reads
 *   # vitest: --testTimeout=3000          (optional) more arguments for vitest
 *   # why: one line saying what it changes
 *   --- solutions/s03_parallel_tools/run-tools.ts
 *   +++ solutions/s03_parallel_tools/run-tools.ts
 *   @@ -35,7 +35,8 @@
 *
 * A mutant's added lines say `BUG:` where it breaks the rule. `npm run verify` copies solutions/
 * into a temporary folder, applies the patch there (the `diff` package's applyPatch; a patch that
 * no longer applies is reported by name), grades that copy with the lesson's own test file
 * (COURSE_TREE_DIR) exactly as `npm run check` grades lessons/, and reads the verdict: the rule
 * leading it, and that none of the runner's own words reached it.
 *
 * `npx tsx scripts/lib/mutants.ts [sNN …]` grades the patches of some lessons alone.
 */
import { cpSync, existsSync, mkdtempSync, readFileSync, readdirSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { applyPatch, parsePatch } from "diff";
import { LESSONS, findLesson, type Lesson } from "../../runtime/manifest.ts";
import { isRuleId, type RuleId } from "../../runtime/rules.ts";
import { explain, gradeLesson } from "./grade.ts";
import { ROOT } from "./paths.ts";
import { typeErrors } from "./typecheck.ts";

export type PatchKind = "mutant" | "alternative";

export interface Mutant {
  kind: PatchKind;
  lesson: Lesson;
  name: string;
  /** tests/mutants/sNN/<name>.patch, relative to the root. */
  file: string;
  /** The solution files it changes, relative to solutions/ ("s03_parallel_tools/run-tools.ts"). */
  targets: string[];
  /** The rule that must lead the verdict (mutants). */
  rule?: RuleId;
  expect?: RegExp;
  /** Extra vitest arguments from an optional "# vitest: …" header line. */
  vitestArgs: string[];
  why?: string;
}

export interface MutantResult {
  mutant: Mutant;
  /** Did the grading do what it must (fail the mutant with its rule leading / pass the alternative)? */
  caught: boolean;
  /** The verdict's first line, or why the grading got it wrong. */
  detail: string;
  output: string;
}

/** The runner's words that must never reach a learner's verdict. */
export const RAW_WORDS = /\bexpected\b.*\bto\b|Object\.is|STACK_TRACE_ERROR|Counterexample|AssertionError/;

const header = (text: string, key: string) => new RegExp(`^# ${key}: (.+)$`, "m").exec(text)?.[1]?.trim();

/** Reads every patch of the given lessons; problems for malformed ones. */
export function findPatches(lessons: readonly Lesson[], kind: PatchKind): { mutants: Mutant[]; problems: string[] } {
  const mutants: Mutant[] = [];
  const problems: string[] = [];
  const base = kind === "mutant" ? "tests/mutants" : "tests/alternatives";
  for (const lesson of lessons) {
    const dir = join(ROOT, base, lesson.id);
    if (!existsSync(dir)) continue;
    for (const entry of readdirSync(dir).filter((f) => f.endsWith(".patch")).sort()) {
      const file = `${base}/${lesson.id}/${entry}`;
      const text = readFileSync(join(ROOT, file), "utf8");
      const bad = (why: string) => problems.push(`${file}: ${why}`);
      let targets: string[];
      try {
        targets = parsePatch(text).map((p) => (p.newFileName ?? p.oldFileName ?? "").replace(/^[ab]\//, "").replace(/^solutions\//, ""));
      } catch (e) {
        bad(`is not a unified diff (${(e as Error).message})`);
        continue;
      }
      if (targets.length === 0 || targets.some((t) => !t)) {
        bad('has no "--- solutions/…" / "+++ solutions/…" file lines');
        continue;
      }
      // A later lesson's loop may be an earlier lesson's, reused: its patch may change that file.
      const foreign = targets.find((t) => !existsSync(join(ROOT, "solutions", t)));
      if (foreign) {
        bad(`patches "solutions/${foreign}", which is not a file of solutions/`);
        continue;
      }
      const rule = header(text, "rule");
      if (kind === "mutant") {
        if (!rule) {
          bad('needs a "# rule: <rule-id>" header line: the rule that must lead its verdict');
          continue;
        }
        if (!isRuleId(rule)) {
          bad(`"# rule: ${rule}" is not a rule of runtime/rules.ts`);
          continue;
        }
        if (!/^\+.*BUG:/m.test(text)) bad('adds no "BUG:" comment where it breaks the rule');
      }
      let expect: RegExp | undefined;
      const ex = header(text, "expect");
      if (ex)
        try {
          expect = new RegExp(ex);
        } catch (e) {
          bad(`"expect" is not a valid regex (${(e as Error).message})`);
          continue;
        }
      const vitestArgs = (header(text, "vitest") ?? "").split(/\s+/).filter(Boolean);
      const why = header(text, "why");
      mutants.push({
        kind,
        lesson,
        name: entry.replace(/\.patch$/, ""),
        file,
        targets,
        ...(rule && isRuleId(rule) ? { rule } : {}),
        ...(expect ? { expect } : {}),
        vitestArgs,
        ...(why ? { why } : {}),
      });
    }
  }
  return { mutants, problems };
}

/** Back-compatible name: the mutants of the given lessons. */
export const findMutants = (lessons: readonly Lesson[]) => findPatches(lessons, "mutant");

/**
 * A temporary copy of solutions/ with the patch applied (runtime/ and node_modules/ beside it are
 * links). Throws an Error naming the patch when it no longer applies. Returns the copy's
 * solutions/ folder and a clean-up.
 */
export function materialize(mutant: Mutant): { dir: string; cleanup: () => void } {
  const tmp = mkdtempSync(join(tmpdir(), `course-${mutant.kind}-${mutant.lesson.id}-`));
  const cleanup = () => rmSync(tmp, { recursive: true, force: true });
  try {
    cpSync(join(ROOT, "solutions"), join(tmp, "solutions"), { recursive: true, dereference: true });
    symlinkSync(join(ROOT, "runtime"), join(tmp, "runtime"), "dir");
    symlinkSync(join(ROOT, "node_modules"), join(tmp, "node_modules"), "dir");
    symlinkSync(join(ROOT, "package.json"), join(tmp, "package.json")); // "type": "module", for the type check
    // What the solutions reach beside them (s12's sample repository under examples/).
    for (const entry of ["examples", "evals", "tsconfig.json"]) if (existsSync(join(ROOT, entry))) symlinkSync(join(ROOT, entry), join(tmp, entry));
    const text = readFileSync(join(ROOT, mutant.file), "utf8");
    for (const p of parsePatch(text)) {
      const target = (p.newFileName ?? p.oldFileName ?? "").replace(/^[ab]\//, "").replace(/^solutions\//, "");
      const path = join(tmp, "solutions", target);
      const patched = applyPatch(readFileSync(path, "utf8"), p, { fuzzFactor: 0 });
      if (patched === false)
        throw new Error(`${mutant.file} no longer applies to solutions/${target}: the solution changed under it; make the patch again against the current file`);
      writeFileSync(path, patched);
    }
    return { dir: join(tmp, "solutions"), cleanup };
  } catch (e) {
    cleanup();
    throw e;
  }
}

// eslint-disable-next-line no-control-regex
const stripAnsi = (s: string) => s.replace(/\x1b\[[0-9;]*m/g, "");

/** Grades one patch in a temporary copy of solutions/, the way `npm run check` grades lessons/. */
export async function runMutant(mutant: Mutant): Promise<MutantResult> {
  let copy: { dir: string; cleanup: () => void };
  try {
    copy = materialize(mutant);
  } catch (e) {
    return { mutant, caught: false, detail: (e as Error).message, output: "" };
  }
  try {
    const grade = await gradeLesson(mutant.lesson, "solutions", {
      treeDir: copy.dir,
      typecheck: false,
      vitestArgs: mutant.vitestArgs,
      // A backstop only, far above what a check needs on a busy machine: a loop that blocks its
      // worker is found by the CPU it burns without a heartbeat (scripts/lib/hang.ts), one that
      // waits forever by the tests' own limits. On a 2-core machine at load 30, a check of s01
      // took over 150 s (the old limit), and a valid loop was reported as one that did not return.
      timeoutMs: Number(process.env.COURSE_MUTANT_TIMEOUT_MS) || 600_000,
    });
    const verdict = stripAnsi(explain(mutant.lesson, grade, "en").join("\n"));
    const output = `${verdict}\n\n${stripAnsi(grade.output)}`;
    if (mutant.kind === "alternative") {
      if (grade.ok) {
        const types = typeErrors(join(copy.dir, mutant.lesson.dir));
        if (types.length > 0) return { mutant, caught: false, detail: `passes, but does not type-check: ${types[0]!.where} ${types[0]!.message}`, output };
        return { mutant, caught: true, detail: `passes (${grade.total} tests)`, output };
      }
      return { mutant, caught: false, detail: `a valid loop FAILS its check: ${verdict.split("\n").slice(0, 3).join(" ")}`, output };
    }
    if (grade.ok) return { mutant, caught: false, detail: "SURVIVED: its lesson's check passes", output };
    const lead = grade.failures[0];
    if (RAW_WORDS.test(verdict)) return { mutant, caught: false, detail: `the verdict shows the runner's own words: ${verdict.match(RAW_WORDS)![0]}`, output };
    if (!lead || lead.rule !== mutant.rule)
      return { mutant, caught: false, detail: `fails, but the verdict leads with [${lead?.rule ?? lead?.kind}] instead of [${mutant.rule}]: ${verdict.split("\n")[0]}`, output };
    if (mutant.expect && !mutant.expect.test(verdict)) return { mutant, caught: false, detail: `fails with [${mutant.rule}], but its verdict does not match ${mutant.expect}`, output };
    return { mutant, caught: true, detail: summary(`[${lead.rule}] ${lead.message}`), output };
  } finally {
    copy.cleanup();
  }
}

/** A verdict, short: its first line. */
function summary(text: string): string {
  const line = text.split("\n")[0]!.replace(/\s+/g, " ").trim();
  return line.length > 110 ? `${line.slice(0, 109)}…` : line;
}

/** Grades every patch, `parallel` at a time, reporting each as it is done. */
export async function runMutants(mutants: Mutant[], report: (r: MutantResult) => void, parallel = 2): Promise<MutantResult[]> {
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

// `npx tsx scripts/lib/mutants.ts [sNN …] [--only name]`: grade some lessons' patches alone.
if (process.argv[1] && import.meta.url === new URL(`file://${process.argv[1]}`).href) {
  const args = process.argv.slice(2);
  const only = args.includes("--only") ? args[args.indexOf("--only") + 1] : undefined;
  const ids = args.filter((a, i) => !a.startsWith("--") && args[i - 1] !== "--only");
  const lessons = ids.length > 0 ? ids.map((id) => findLesson(id) ?? (console.error(`no lesson ${id}`), process.exit(2))) : LESSONS;
  const found = [findPatches(lessons, "mutant"), findPatches(lessons, "alternative")];
  const all = found.flatMap((f) => f.mutants).filter((m) => !only || only.split(",").includes(m.name));
  for (const p of found.flatMap((f) => f.problems)) console.log(`problem: ${p}`);
  const results = await runMutants(all, (r) =>
    console.log(`${r.mutant.lesson.id} ${r.mutant.kind === "mutant" ? "mutant" : "valid "} ${r.mutant.name}: ${r.caught ? "ok" : "WRONG"} (${r.detail})`),
  );
  if (process.env.SHOW) for (const r of results.filter((x) => !x.caught)) console.log(`\n── ${r.mutant.name}\n${r.output.slice(0, 3000)}`);
  process.exitCode = results.every((r) => r.caught) && found.every((f) => f.problems.length === 0) ? 0 : 1;
}
