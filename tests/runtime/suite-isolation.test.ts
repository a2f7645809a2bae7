/**
 * `npm test` runs on the learner's own machine, so it keeps off the learner's own agent config
 * folder (~/.config/agent-loop-course: the permission rules they wrote, the workspace hooks they
 * approved, their AGENTS.md): a rule of theirs could turn a test red, and a test approving a
 * scratch workspace's hooks would write its approval there. Every test, and every process a test
 * starts, uses the suite's own folder instead (AGENT_CONFIG_DIR, set by tests/leftovers.setup.ts).
 */
import { spawnSync } from "node:child_process";
import { homedir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { SESSIONS_DIR, listSessions, saveSession, sessionPath, sessionsDir } from "../../solutions/s10_conversation/session.ts";
import { userConfigDir } from "../../solutions/s18_permissions/permissions.ts";

describe("npm test and the learner's own config folder", () => {
  it("the agent's user config folder is the suite's own, in its temp folder, for the tests and the processes they start", () => {
    const suite = process.env.COURSE_TEST_TMPDIR;
    expect(suite, "COURSE_TEST_TMPDIR is unset: run this file through npm test (vitest's learner project, tests/leftovers.setup.ts)").toBeTruthy();
    const own = join(suite!, "config");
    expect(userConfigDir(), `tests would read and write ${userConfigDir()}, the learner's own; set AGENT_CONFIG_DIR to the suite's (tests/leftovers.setup.ts)`).toBe(own);
    expect(userConfigDir().startsWith(join(homedir(), ".config"))).toBe(false);
    const child = spawnSync(process.execPath, ["-e", "process.stdout.write(process.env.AGENT_CONFIG_DIR ?? '')"], { encoding: "utf8" });
    expect(child.stdout, "a process a test starts inherits the suite's config folder").toBe(own);
  });

  it("saved sessions go to this file's own folder (COURSE_SESSIONS_DIR), never .course/sessions, so files side by side cannot see or remove each other's", () => {
    const own = process.env.COURSE_SESSIONS_DIR;
    expect(own, "COURSE_SESSIONS_DIR is unset: vitest.config.ts gives every test file its own (tests/sessions.each.ts)").toBeTruthy();
    expect(sessionsDir()).toBe(own);
    expect(own!.startsWith(process.env.TMPDIR ?? "\0"), `${own} is outside this file's temp folder`).toBe(true);
    expect(listSessions(), "a fresh file's sessions folder holds another file's sessions").toEqual([]);
    const path = saveSession("isolation", [{ role: "user", content: "hello" }]);
    expect(path).toBe(sessionPath("isolation"));
    expect(path.startsWith(own!) && !path.startsWith(SESSIONS_DIR), `saveSession wrote ${path}: the test's own folder, not ${SESSIONS_DIR}`).toBe(true);
    expect(listSessions().map((s) => s.name)).toEqual(["isolation"]);
  });
});
