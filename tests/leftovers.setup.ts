/**
 * `npm test` leaves the course as it found it: nothing new in the working tree (not even a
 * git-ignored run log under .course/), nothing left in the temp folder. vitest's global setup for
 * the learner's suite:
 *
 *   before  the temp folder of every test and of every process a test starts (TMPDIR) is a fresh
 *           folder of the suite's own; run logs (s09's COURSE_RUNS_DIR) and the agent's user config
 *           folder (AGENT_CONFIG_DIR, not the learner's own) go under it; the state of
 *           the working tree is noted (`git status`, ignored files included, node_modules aside);
 *   after   the suite fails, naming them, if anything is left in that temp folder or the working
 *           tree changed; then the folder is removed.
 *
 * Each test file has a temp folder of its own inside the suite's, removed when the file ends
 * (tests/leftovers.each.ts); a scratch workspace removes itself when its process exits
 * (runtime/tools/files.ts). This is the check that nothing escapes either.
 */
import { spawnSync } from "node:child_process";
import { mkdtempSync, readdirSync, realpathSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

const ROOT = join(import.meta.dirname, "..");

/** The working tree's state: every changed, untracked and ignored path (node_modules aside); null without git. */
function treeState(): string[] | null {
  const args = ["status", "--porcelain=v1", "--ignored=traditional", "--untracked-files=all", "--", ".", ":(exclude)node_modules"];
  const r = spawnSync("git", args, { cwd: ROOT, encoding: "utf8", maxBuffer: 64 * 1024 * 1024 });
  if (r.status !== 0 || r.error) return null;
  return r.stdout
    .split("\n")
    .filter((l) => l.trim() !== "")
    .sort();
}

export default function setup(): (() => void) | undefined {
  // A grader's run (check, watch, verify: COURSE_TREE set) grades files the learner may be editing:
  // the check is for `npm test` itself.
  if (process.env.COURSE_TREE) return undefined;
  const before = treeState();
  const previous = { TMPDIR: process.env.TMPDIR, COURSE_TEST_TMPDIR: process.env.COURSE_TEST_TMPDIR, COURSE_RUNS_DIR: process.env.COURSE_RUNS_DIR, COURSE_TRUST_DIR: process.env.COURSE_TRUST_DIR, AGENT_CONFIG_DIR: process.env.AGENT_CONFIG_DIR };
  const tmp = realpathSync(mkdtempSync(join(tmpdir(), "course-npm-test-")));
  const runs = join(tmp, "runs");
  process.env.TMPDIR = tmp;
  process.env.COURSE_TEST_TMPDIR = tmp;
  process.env.COURSE_RUNS_DIR = runs;
  process.env.COURSE_TRUST_DIR = join(tmp, "trust"); // run_tests' trusted fingerprints (runtime/tools/fingerprint.ts)
  // The agent's user config folder (s18's settings, s19's approved hooks, s20's AGENTS.md): the suite's
  // own, never the learner's ~/.config/agent-loop-course (a rule of theirs must not turn a test red,
  // and no test may write an approval there). tests/runtime/suite-isolation.test.ts holds it.
  process.env.AGENT_CONFIG_DIR = join(tmp, "config");

  return () => {
    for (const [k, v] of Object.entries(previous)) {
      if (v === undefined) delete process.env[k];
      else process.env[k] = v;
    }
    // Left aside: the run logs (made there on purpose) and tsx's compile cache (tsx-<uid>, which
    // lives in the system temp folder anyway and is reused by every run).
    // An empty folder of a test file whose tests were all skipped (its afterAll never ran) is not a leftover.
    const emptyFileDir = (p: string) => p.startsWith("file-") && readdirSync(join(tmp, p)).length === 0;
    const left = readdirSync(tmp).filter((p) => p !== "runs" && p !== "trust" && p !== "config" && !/^tsx-\d+$/.test(p) && !emptyFileDir(p));
    rmSync(tmp, { recursive: true, force: true });
    const after = treeState();
    const changed = before && after ? [...after.filter((l) => !before.includes(l)), ...before.filter((l) => !after.includes(l)).map((l) => `(gone) ${l}`)] : [];
    const problems = [
      ...(left.length > 0 ? [`the temp folder has ${left.length} thing(s) a test or a process it started did not remove: ${left.slice(0, 10).join(", ")}`] : []),
      ...(changed.length > 0 ? [`the working tree changed during the run (git status, ignored files included): ${changed.slice(0, 10).join("; ")}`] : []),
    ];
    if (problems.length === 0) return;
    // vitest reports an error thrown here but still exits 0: the exit code is set as well.
    process.exitCode = 1;
    throw new Error(`[leftovers] npm test must leave the course and the temp folder as it found them:\n  - ${problems.join("\n  - ")}\n  Remove what the test makes (afterEach/afterAll), or make it under a scratch folder.`);
  };
}
