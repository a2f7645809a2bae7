/**
 * Grading one run by the FINAL STATE of its workspace (and its final answer), never by the
 * transcript: how the agent got there does not count, only what it left.
 *
 *   tests           the task's hidden check/*.test.js, copied into the workspace after the agent
 *                   stopped, run with node --test: every test must pass
 *   workspaceTests  the workspace's own tests (node --test): they must run and pass
 *   unchanged       files that must be byte for byte as they started (added files count too)
 *   answer          regular expressions the final answer must each match
 *
 * Every command runs through s07's runner, so inside the OS sandbox where the machine has one:
 * the code the agent left is run, and it is no more trusted than the agent's own commands.
 */
import { createHash } from "node:crypto";
import { copyFileSync, mkdirSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { createTwoFilesPatch } from "diff";
import { globToRegExp } from "../../runtime/tools/files.ts";
import { runSafeBash } from "../../solutions/s07_safe_tools/safe-bash.ts";
import { shellWord } from "../../solutions/s12_guarded_agent/run-tests.ts";
import type { EvalTask } from "./suite.ts";

/** Where the hidden check is copied in the workspace (after the agent stopped). */
export const CHECK_DIR = ".eval-check";
/** How long a check's test run may take. */
export const CHECK_TIMEOUT_MS = 60_000;
const SKIP = new Set(["node_modules", ".git", CHECK_DIR]);

/** Every file of a folder (relative path → its text), node_modules and .git left out. */
export function snapshot(root: string): Map<string, string> {
  const files = new Map<string, string>();
  const walk = (dir: string) => {
    for (const e of readdirSync(join(root, dir), { withFileTypes: true })) {
      if (SKIP.has(e.name)) continue;
      const rel = dir ? `${dir}/${e.name}` : e.name;
      if (e.isDirectory()) walk(rel);
      else if (e.isFile()) files.set(rel, readFileSync(join(root, rel), "latin1"));
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

async function nodeTest(ws: string, files: string[]): Promise<{ ok: boolean; detail: string; output: string }> {
  const argv = [process.execPath, "--test", ...files.map((f) => `./${f}`)];
  const run = await runSafeBash(`exec ${argv.map(shellWord).join(" ")}`, { cwd: ws, timeoutMs: CHECK_TIMEOUT_MS });
  const summary = testSummary(run.text);
  if (run.timedOut) return { ok: false, detail: `the tests did not finish within ${CHECK_TIMEOUT_MS / 1000} s`, output: run.text };
  if (!summary) return { ok: false, detail: `no test summary (exit code ${run.exitCode}): ${run.text.trim().split("\n").slice(0, 3).join(" / ")}`, output: run.text };
  if (summary.tests === 0) return { ok: false, detail: "no test ran", output: run.text };
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
 * starting workspace; `answer` the agent's final text. Copies the hidden check into `ws`.
 */
export async function gradeRun(task: EvalTask, ws: string, before: Map<string, string>, answer: string): Promise<Grade & { testOutput: string }> {
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
  if (task.check.workspaceTests) {
    const own = await nodeTest(ws, []);
    testOutput += own.output;
    criteria.push({ name: "workspaceTests", ok: own.ok, detail: `the workspace's tests: ${own.detail}` });
  }
  if (task.check.tests) {
    mkdirSync(join(ws, CHECK_DIR), { recursive: true });
    for (const f of task.checkFiles) copyFileSync(join(task.dir, "check", f), join(ws, CHECK_DIR, f));
    const hidden = await nodeTest(ws, task.checkFiles.map((f) => `${CHECK_DIR}/${f}`));
    testOutput += hidden.output;
    criteria.push({ name: "tests", ok: hidden.ok, detail: `the hidden check: ${hidden.detail}` });
  }
  return { pass: criteria.every((c) => c.ok), criteria, testOutput };
}
