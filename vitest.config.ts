import { readdirSync } from "node:fs";
import { availableParallelism } from "node:os";
import { dirname, join, sep } from "node:path";
import { fileURLToPath } from "node:url";
import { defineConfig } from "vitest/config";

const root = dirname(fileURLToPath(import.meta.url));

/**
 * Two suites (docs/guide/commands.md):
 *
 *   npm test           the "learner" project: every lesson's tests on the reference solutions, the
 *                      runtime's tests, the tools' tests in process. Under a minute on a 2-core
 *                      machine (npm run bench, learner_cycle.test_s).
 *   npm run test:all   both projects, then verify and the browser tests (scripts/test-all.ts):
 *                      adds the course command line, reliability samples, mutants, the offline
 *                      model as a process, the appendix, and the process-level checks of the
 *                      runtime and the tools (NOT_LEARNER below).
 *
 * Nothing in either suite depends on how fast the machine is: waits are on events, with limits
 * far above what any test needs (a busy machine is slower, never red).
 */
const ALL = "tests/**/*.test.ts";
/** The learner's suite: lessons (tests/sNN_*.test.ts), runtime, tools, the docs generators. */
const LEARNER = /^tests\/(s\d\d_[^/]+|runtime\/.+|tools\/.+|e2e\/generators)\.test\.ts$/;
/**
 * In runtime/ or tools/, but they run the course as processes, send signals to process trees or
 * grade mutants: test:all only (CI runs it), so `npm test` stays about the lessons and under a minute.
 */
const NOT_LEARNER = new Set([
  "tests/runtime/mutants.test.ts",
  "tests/runtime/offline-model.test.ts",
  // the lesson net's full sweep: every early lesson's runaway loop, as a process
  "tests/runtime/lesson-net.test.ts",
  // runMain's messages, from real processes
  "tests/runtime/run-main.test.ts",
  // SIGINT, SIGTERM, SIGHUP to the agent, its wrapper and its group: every process of the tree killed
  "tests/tools/signals.test.ts",
  // MCP servers as processes: their environment, their output cap, nothing left running
  "tests/tools/mcp-launch.test.ts",
  // the scratch folders of killed processes swept
  "tests/tools/orphans.test.ts",
  // run_tests with and without the sandbox, as the program runs it
  "tests/tools/boundary.test.ts",
  // grading runs (verify's, a check's) as vitest processes: where they keep run_tests' fingerprints
  "tests/runtime/grading-env.test.ts",
]);

/** This run is the learner's project alone (`npm test`: `vitest run --project learner`). */
const LEARNER_ONLY = process.argv.some((arg, i) => arg === "--project=learner" || (arg === "--project" && process.argv[i + 1] === "learner"));

/** Every test file, relative to the root; those not in the learner's suite are in test:all's. */
const testFiles = readdirSync(join(root, "tests"), { recursive: true, encoding: "utf8" })
  .map((f) => `tests/${f.split(sep).join("/")}`)
  .filter((f) => f.endsWith(".test.ts"));
const learner = testFiles.filter((f) => LEARNER.test(f) && !NOT_LEARNER.has(f));

export default defineConfig({
  test: {
    // Lessons print as they run; show that output only for tests that fail.
    silent: "passed-only",
    // The tests read what the course prints in English, whatever the machine's locale: a learner
    // whose LANG is ja_JP.UTF-8 (or who set COURSE_LANG) gets the same verdicts. A test of another
    // language sets COURSE_LANG itself (tests/runtime/cli-words.test.ts); `npm run check` writes its
    // report in the learner's language from what the tests found.
    env: { COURSE_LANG: "en" },
    testTimeout: 60_000,
    hookTimeout: 60_000,
    // vitest's default is one worker per core but one: a single worker on a 2-core machine, so
    // every test file would wait for the one before. Most of a lesson's test time is waiting
    // (child processes: node --test, the sandbox, tsx; the file system), so more files at a time
    // than cores use them: `npm test` with two workers on 2 cores kept them busy about half the
    // time (CPU 112 s in 107 s); with four, the same CPU in 81 s. Twice the cores for the learner's
    // suite (`--project learner`: npm test, test:all's first step); the extended project, which
    // sends signals to process trees and times their ends, keeps one per core.
    maxWorkers: LEARNER_ONLY ? Math.max(4, 2 * availableParallelism()) : Math.max(2, availableParallelism()),
    projects: [
      // npm test leaves the working tree and the temp folder as it found them (tests/leftovers.setup.ts).
      // The learner's files share their imported modules within a worker (isolate: false): each file
      // importing the SDK, the runtime and its lesson afresh cost most of npm test's time (import 76 s
      // of a 103 s run on 2 cores; 17 s shared, the run 72 s). So a module must read per-file
      // settings (TMPDIR, COURSE_SESSIONS_DIR: tests/*.each.ts) when it uses them, never once as it
      // loads; each file's process.env is put back when it ends (tests/env.each.ts), and vi.stubEnv after each test.
      { extends: true, test: { name: "learner", include: learner, isolate: false, unstubEnvs: true, globalSetup: ["tests/leftovers.setup.ts"], setupFiles: ["tests/env.each.ts", "tests/leftovers.each.ts", "tests/sessions.each.ts"] } },
      { extends: true, test: { name: "extended", include: [ALL], exclude: [...learner, "**/node_modules/**"], setupFiles: ["tests/sessions.each.ts"] } },
    ],
  },
});
