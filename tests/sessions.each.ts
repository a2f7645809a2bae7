/**
 * Each test file keeps its saved sessions (s10's, which s12's --resume and s24's -p runs write) in a
 * folder of its own, COURSE_SESSIONS_DIR, removed when the file ends. Test files run side by side:
 * with one shared .course/sessions, a file counting or cleaning "the sessions that are new" would
 * count or remove another file's, as it ran. Processes a test starts inherit the folder.
 */
import { randomUUID } from "node:crypto";
import { rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll } from "vitest";

const previous = process.env.COURSE_SESSIONS_DIR;
// Made by the first save, not here: a file whose tests are all skipped (its afterAll never runs) leaves nothing.
const mine = join(tmpdir(), `sessions-${randomUUID()}`);
process.env.COURSE_SESSIONS_DIR = mine;
afterAll(() => {
  rmSync(mine, { recursive: true, force: true });
  if (previous === undefined) delete process.env.COURSE_SESSIONS_DIR;
  else process.env.COURSE_SESSIONS_DIR = previous;
});
