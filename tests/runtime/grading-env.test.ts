/**
 * A grading run (npm run check, watch, verify, a mutant's grading) keeps what its tests write
 * between their steps in its own folder, removed when it ends: run_tests' trusted fingerprints
 * (COURSE_TRUST_DIR) never land in the course's .course/trust/, where a file appearing while
 * `npm test` runs beside it fails that suite's leftovers check (tests/leftovers.setup.ts).
 * The second test starts real grading runs (vitest processes): it is in the extended project.
 */
import { existsSync, readdirSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { findLesson } from "../../runtime/manifest.ts";
import { ROOT } from "../../runtime/testing.ts";
import { gradeLesson } from "../../scripts/lib/grade.ts";
import { gradingEnv } from "../../scripts/lib/grading-env.ts";
import { runTestsAsync } from "../../scripts/course.ts";

const COURSE_TRUST = join(ROOT, ".course", "trust");
const trusted = () => (existsSync(COURSE_TRUST) ? readdirSync(COURSE_TRUST).sort() : []);
/** What the grading runs leave in the temp folder (their own folders, by prefix). */
const runFolders = () => readdirSync(tmpdir()).filter((f) => /^course-(verify|grade)-/.test(f)).sort();

// One s12 test that trusts a workspace without a sandbox, then changes it: it writes a fingerprint to TRUST_DIR.
const S12 = findLesson("s12")!;
const WRITES_TRUST = ["-t", "without a sandbox, run_tests asks whenever the workspace differs"];

describe("a grading run's trusted fingerprints: in its own folder, never in .course/trust/", () => {
  let saved: string | undefined;
  beforeEach(() => {
    // As `npm run verify` runs from a shell: no trust folder given by a test suite around it.
    saved = process.env.COURSE_TRUST_DIR;
    delete process.env.COURSE_TRUST_DIR;
  });
  afterEach(() => {
    if (saved !== undefined) process.env.COURSE_TRUST_DIR = saved;
  });

  it("gradingEnv: the tree graded, and the trust folder under the run's own, whatever the caller's environment says", () => {
    const env = gradingEnv("solutions", "/tmp/run-1", { FORCE_COLOR: "0" }, { COURSE_TRUST_DIR: "/somewhere/else", KEEP: "me" });
    expect(env.COURSE_TRUST_DIR, "scripts/lib/grading-env.ts: a grading run's trusted fingerprints go under its own folder (runDir/trust), not the caller's or the course's").toBe(join("/tmp/run-1", "trust"));
    expect(env.COURSE_TREE, "scripts/lib/grading-env.ts: the run grades the tree it is given (COURSE_TREE)").toBe("solutions");
    expect([env.KEEP, env.FORCE_COLOR], "scripts/lib/grading-env.ts: the caller's environment and the extra variables reach the run").toEqual(["me", "0"]);
  });

  it("verify's runs and a check's run (a mutant's grading) leave nothing in .course/trust/, and remove their folders", async () => {
    const before = { trusted: trusted(), runs: runFolders() };
    const verify = await runTestsAsync([S12], "solutions", WRITES_TRUST);
    expect(verify.ok && /1 passed/.test(verify.output), `the s12 test that writes a trusted fingerprint did not pass in verify's run (scripts/course.ts runTestsAsync), so this test sees nothing: ${verify.output.slice(-1500)}`).toBe(true);
    expect(trusted(), "npm run verify (scripts/course.ts runTestsAsync) wrote run_tests' fingerprints into the course's .course/trust/: give its vitest process gradingEnv(tree, its own folder)").toEqual(before.trusted);
    const grade = await gradeLesson(S12, "solutions", { typecheck: false, vitestArgs: WRITES_TRUST });
    expect(grade.ok && grade.passed === 1, `the s12 test that writes a trusted fingerprint did not pass in a check's run (scripts/lib/grade.ts gradeLessons): ${grade.output.slice(-1500)}`).toBe(true);
    expect(trusted(), "a check's run (scripts/lib/grade.ts runVitest: npm run check, a mutant's grading) wrote run_tests' fingerprints into the course's .course/trust/: give its vitest process gradingEnv(tree, its own folder)").toEqual(before.trusted);
    expect(runFolders(), "a grading run left its own folder in the temp folder: remove it when the run ends").toEqual(before.runs);
  }, 180_000);
});
