/**
 * What every grading run's vitest process is given (check, verify, a mutant's grading): kept in
 * a module of its own, so the command line reaches it without loading the grader.
 */
import { join } from "node:path";
import type { Tree } from "./grade.ts";

/**
 * The environment of a grading run's vitest process (check, verify, a mutant's grading): the tree
 * it grades, and the run's own folder for what its tests keep between their steps: run_tests'
 * trusted fingerprints (COURSE_TRUST_DIR, runtime/tools/fingerprint.ts) go under `runDir`, which the
 * caller removes when the run ends, never into the course's .course/trust/ (a file appearing there
 * while `npm test` runs beside it fails that suite's leftovers check, and the folder only grew).
 */
export function gradingEnv(tree: Tree, runDir: string, extra: NodeJS.ProcessEnv = {}, base: NodeJS.ProcessEnv = process.env): NodeJS.ProcessEnv {
  return { ...base, COURSE_TREE: tree, COURSE_TRUST_DIR: join(runDir, "trust"), ...extra };
}
