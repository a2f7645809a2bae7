/**
 * Each test file of the learner's suite gets a temp folder of its own (TMPDIR, which every process
 * a test starts inherits), inside the suite's (tests/leftovers.setup.ts), and removes it when the
 * file ends, with the scratch workspaces its process made (runtime/tools/files.ts removes those at
 * process exit, which a test worker may never reach). So a test that forgets a folder of its own
 * leaves nothing on the machine; the global teardown checks that nothing is left.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { join } from "node:path";
import { afterAll } from "vitest";
import { removeScratch } from "../runtime/tools/files.ts";

const suite = process.env.COURSE_TEST_TMPDIR;
if (suite) {
  const previous = process.env.TMPDIR;
  const mine = mkdtempSync(join(suite, "file-"));
  process.env.TMPDIR = mine;
  afterAll(() => {
    removeScratch();
    rmSync(mine, { recursive: true, force: true });
    process.env.TMPDIR = previous;
  });
} else afterAll(() => removeScratch());
