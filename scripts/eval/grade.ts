/**
 * Grading one run by the FINAL STATE of its workspace (and its final answer), never by the
 * transcript: how the agent got there does not count, only what it left.
 *
 *   tests           the task's hidden check/*.test.js, run with node --test in a GRADING COPY: every
 *                   test must pass, and every test the check defines must have run
 *   workspaceTests  the workspace's own tests (node --test): they must run and pass
 *   unchanged       files that must be byte for byte as they started (added files count too)
 *   answer          regular expressions the final answer must each match
 *
 * A check the agent can change cannot count. So the tests do not run in the workspace the agent
 * left: the grader copies its regular files and folders (never a symbolic link, never
 * node_modules or .git) into a fresh folder, puts the check's files there from the suite's own
 * folder (evals/tasks/<id>/check, which the agent never saw), and runs node --test there with a
 * preload of the course's (CHECK_GUARD) that freezes node:assert before any code of the workspace
 * loads: code under test that turns assert's functions into no-ops fails as it loads. A test run
 * that stops early (process.exit(0) in the code under test) runs fewer tests than the check
 * defines, and fails. Out of scope: code under test that forges the test runner's own report.
 *
 * Every command runs through s07's runner, so inside the OS sandbox where the machine has one:
 * the code the agent left is run, and it is no more trusted than the agent's own commands. Where
 * there is none, the caller says the code may not run (`runCode: false`, a real model's code with
 * no sandbox: run.ts codeMayRun): the criteria that would run it fail, saying why, and nothing runs.
 */
import { createHash } from "node:crypto";
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, readlinkSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createTwoFilesPatch } from "diff";
import { globToRegExp } from "../../runtime/tools/files.ts";
import { InsideError, readInside } from "../../runtime/tools/inside.ts";
import { runSafeBash } from "../../solutions/s07_safe_tools/safe-bash.ts";
import { shellWord } from "../../solutions/s12_guarded_agent/run-tests.ts";
import type { EvalTask } from "./suite.ts";

/** Where the hidden check is put in the grading copy (never in the workspace the agent left). */
export const CHECK_DIR = ".eval-check";
/** The check's preload: node:assert frozen before the code under test loads (it cannot make them no-ops). */
export const CHECK_GUARD = `import assert from "node:assert";\nimport strict from "node:assert/strict";\nfor (const a of [assert, strict, assert.strict]) Object.freeze(a);\n`;
/** How long a check's test run may take. */
export const CHECK_TIMEOUT_MS = 60_000;
/** Why a check that runs the agent's code was not run (no OS sandbox, a real model). */
export const NO_SANDBOX_FOR_CODE = "the check runs the code the agent left, and only inside the OS sandbox when a real model wrote it; there is none here (install bubblewrap: apt-get install bubblewrap)";
/** Does the task's check run the code the agent left (its hidden tests, the workspace's own)? */
export const checkRunsCode = (task: Pick<EvalTask, "check">): boolean => Boolean(task.check.tests || task.check.workspaceTests);
const SKIP = new Set(["node_modules", ".git", CHECK_DIR]);

/** Every file of a folder (relative path → its text; a symbolic link → its target, marked), node_modules and .git left out. */
export function snapshot(root: string): Map<string, string> {
  const files = new Map<string, string>();
  const walk = (dir: string) => {
    for (const e of readdirSync(join(root, dir), { withFileTypes: true })) {
      if (SKIP.has(e.name)) continue;
      const rel = dir ? `${dir}/${e.name}` : e.name;
      if (e.isDirectory()) walk(rel);
      else if (e.isFile()) files.set(rel, readFileSync(join(root, rel), "latin1"));
      // A link is a change too (its target, never followed): a key linked into the repository is caught by "unchanged".
      else if (e.isSymbolicLink()) files.set(rel, `\0symbolic link to ${readlinkSync(join(root, rel))}`);
    }
  };
  walk("");
  return files;
}

const hash = (s: string) => createHash("sha256").update(s, "latin1").digest("hex");

/** The files that differ between two snapshots: changed, added or removed. */
export function changedFiles(before: Map<string, string>, after: Map<string, string>): string[] {
  const all = new Set([...before.keys(), ...after.keys()]);
  return [...all].filter((p) => before.get(p) === undefined || after.get(p) === undefined || hash(before.get(p)!) !== hash(after.get(p)!)).sort();
}

/** The run's changes as one unified diff (empty when nothing changed). */
export function unifiedDiff(before: Map<string, string>, after: Map<string, string>): string {
  return changedFiles(before, after)
    .map((p) => {
      const a = before.get(p);
      const b = after.get(p);
      return createTwoFilesPatch(a === undefined ? "/dev/null" : `a/${p}`, b === undefined ? "/dev/null" : `b/${p}`, a ?? "", b ?? "", "", "", { context: 3 });
    })
    .join("");
}

/** One criterion of the check and whether it held. */
export interface Criterion {
  name: "tests" | "workspaceTests" | "unchanged" | "answer";
  ok: boolean;
  /** In words: what was found (the failing tests, the files changed, the pattern missing). */
  detail: string;
}

export interface Grade {
  pass: boolean;
  criteria: Criterion[];
}

/** node --test's summary in its output. */
export function testSummary(out: string): { tests: number; failed: number } | undefined {
  const tests = /^# tests (\d+)/m.exec(out)?.[1];
  const failed = /^# fail (\d+)/m.exec(out)?.[1];
  return tests === undefined ? undefined : { tests: Number(tests), failed: Number(failed ?? 0) };
}

/** How many tests the check's files define (each `test(` call): a run that stops early runs fewer. */
export function definedTests(texts: readonly string[]): number {
  return texts.reduce((n, t) => n + (t.match(/^\s*(?:test|it)\(/gm)?.length ?? 0), 0);
}

/** A file of the workspace, or null for one left out: a file with a second name (a hard link may be a file outside) is skipped like a link. */
function readOrSkip(ws: string, path: string) {
  try {
    return readInside(ws, path);
  } catch (e) {
    if (e instanceof InsideError) return null;
    throw e;
  }
}

/**
 * A fresh folder holding the workspace's regular files and folders (node_modules, .git and
 * CHECK_DIR left out; a symbolic link is never followed nor copied): what the check runs on.
 */
export function gradingCopy(ws: string): string {
  const copy = mkdtempSync(join(tmpdir(), "course-grade-"));
  const walk = (rel: string) => {
    for (const e of readdirSync(join(ws, rel), { withFileTypes: true })) {
      if (SKIP.has(e.name)) continue;
      const path = rel ? `${rel}/${e.name}` : e.name;
      if (e.isDirectory()) {
        mkdirSync(join(copy, path));
        walk(path);
      } else if (e.isFile()) {
        const read = readOrSkip(ws, path);
        if (read && !read.cut) writeFileSync(join(copy, path), read.bytes);
      }
    }
  };
  walk("");
  return copy;
}

async function nodeTest(ws: string, files: string[], expected = 0, guard?: string): Promise<{ ok: boolean; detail: string; output: string }> {
  const argv = [process.execPath, "--test", ...(guard ? ["--import", `./${guard}`] : []), ...files.map((f) => `./${f}`)];
  const run = await runSafeBash(`exec ${argv.map(shellWord).join(" ")}`, { cwd: ws, timeoutMs: CHECK_TIMEOUT_MS });
  const summary = testSummary(run.text);
  if (run.timedOut) return { ok: false, detail: `the tests did not finish within ${CHECK_TIMEOUT_MS / 1000} s`, output: run.text };
  if (!summary) return { ok: false, detail: `no test summary (exit code ${run.exitCode}): ${run.text.trim().split("\n").slice(0, 3).join(" / ")}`, output: run.text };
  if (summary.tests === 0) return { ok: false, detail: "no test ran", output: run.text };
  if (summary.tests < expected) return { ok: false, detail: `only ${summary.tests} of the check's ${expected} tests ran (the test run stopped early)`, output: run.text };
  // A test file that fails as a whole is named by its path: shown relative to the workspace.
  const failing = [...run.text.matchAll(/^not ok \d+ - (.+)$/gm)].map((m) => m[1]!.trim().replace(`${ws}/`, ""));
  // The first failure's own message ("ENOENT: no such file… TODOS.md", an assertion's words), in one line.
  // A file that failed as a whole ("test failed") printed its error as "# Error: …" comments above.
  const fileError = /^# (\w*Error: .+)$/m.exec(run.text)?.[1];
  const testError = /^not ok [\s\S]*?^\s+error: (?:\|-?\n\s+)?['"]?(.+?)['"]?$/m.exec(run.text)?.[1];
  const firstError = (testError === "test failed" && fileError ? fileError : (testError ?? fileError))?.trim().replaceAll(`${ws}/`, "");
  if (summary.failed > 0 || run.exitCode !== 0)
    return { ok: false, detail: `${summary.failed} of ${summary.tests} failed${failing.length ? `: ${failing.slice(0, 3).join("; ")}` : ""}${firstError ? ` (${firstError.slice(0, 160)})` : ""}`, output: run.text };
  return { ok: true, detail: `${summary.tests} passed`, output: run.text };
}

/**
 * Grades the final workspace `ws` against the task's check. `before` is the snapshot of the
 * starting workspace; `answer` the agent's final text. The tests run in a grading copy (gradingCopy),
 * the check's files taken from the suite, never from `ws`.
 */
export async function gradeRun(task: EvalTask, ws: string, before: Map<string, string>, answer: string, opts: { runCode?: boolean } = {}): Promise<Grade & { testOutput: string }> {
  const criteria: Criterion[] = [];
  const after = snapshot(ws);
  let testOutput = "";
  if (task.check.unchanged?.length) {
    const globs = task.check.unchanged.map(globToRegExp);
    const touched = changedFiles(before, after).filter((p) => globs.some((g) => g.test(p)));
    criteria.push({ name: "unchanged", ok: touched.length === 0, detail: touched.length === 0 ? `${task.check.unchanged.join(", ")} unchanged` : `changed: ${touched.slice(0, 5).join(", ")}${touched.length > 5 ? ", …" : ""}` });
  }
  if (task.check.answer?.length) {
    const missing = task.check.answer.filter((re) => !new RegExp(re, "i").test(answer));
    criteria.push({ name: "answer", ok: missing.length === 0, detail: missing.length === 0 ? "the answer names what it must" : answer.trim() ? `the answer does not match /${missing.join("/, /")}/` : "no answer" });
  }
  if (checkRunsCode(task) && opts.runCode === false) {
    for (const name of ["workspaceTests", "tests"] as const)
      if (task.check[name]) criteria.push({ name, ok: false, detail: `not run: ${NO_SANDBOX_FOR_CODE}` });
  } else if (checkRunsCode(task)) {
    const copy = gradingCopy(ws);
    try {
      if (task.check.workspaceTests) {
        const own = await nodeTest(copy, []);
        testOutput += own.output;
        criteria.push({ name: "workspaceTests", ok: own.ok, detail: `the workspace's tests: ${own.detail}` });
      }
      if (task.check.tests) {
        mkdirSync(join(copy, CHECK_DIR));
        writeFileSync(join(copy, CHECK_DIR, "guard.mjs"), CHECK_GUARD);
        const texts = task.checkFiles.map((f) => readFileSync(join(task.dir, "check", f), "utf8"));
        task.checkFiles.forEach((f, i) => writeFileSync(join(copy, CHECK_DIR, f), texts[i]!));
        const hidden = await nodeTest(copy, task.checkFiles.map((f) => `${CHECK_DIR}/${f}`), definedTests(texts), `${CHECK_DIR}/guard.mjs`);
        testOutput += hidden.output.replaceAll(copy, ws);
        criteria.push({ name: "tests", ok: hidden.ok, detail: `the hidden check: ${hidden.detail.replaceAll(copy, ws)}` });
      }
    } finally {
      rmSync(copy, { recursive: true, force: true });
    }
  }
  return { pass: criteria.every((c) => c.ok), criteria, testOutput };
}
