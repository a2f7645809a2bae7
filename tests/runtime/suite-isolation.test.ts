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
});
