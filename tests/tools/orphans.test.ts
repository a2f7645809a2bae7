/**
 * Scratch folders of processes that died before they could clean up (runtime/tools/files.ts,
 * sweepOrphanScratch): removed by the next process, a running one's kept. Each case starts and
 * kills child processes, so it is in the extended suite (npm run test:all); the file tools
 * themselves are files.test.ts (npm test).
 */
import { spawnSync } from "node:child_process";
import { existsSync, readdirSync } from "node:fs";
import { mkdtemp } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { scratchWorkspaces } from "../support.ts";
import { sweepOrphanScratch } from "../../runtime/tools/files.ts";

const { ws, keep } = scratchWorkspaces("files-test-");

describe("scratch folders of dead processes", () => {
  it("a process killed before it could clean up leaves folders the next process removes; a running one's stay", async () => {
    const files = join(import.meta.dirname, "../../runtime/tools/files.ts");
    const made = (signal: string) => {
      // The child makes a scratch folder, says where, and is killed before its exit handler runs.
      const code = `const { scratchWorkspace } = await import(${JSON.stringify(files)}); const d = await scratchWorkspace({ "a.txt": "x" }, "files-test-orphan-"); console.log(d); process.kill(process.pid, ${JSON.stringify(signal)});`;
      const r = spawnSync(process.execPath, ["--import", "tsx", "--input-type=module", "-e", code], { encoding: "utf8" });
      return r.stdout.trim();
    };
    const killed = made("SIGKILL");
    expect(existsSync(killed), `the killed child should have left its folder (${killed}) for this test to mean anything`).toBe(true);
    const live = await ws({ "b.txt": "mine" });
    const removed = sweepOrphanScratch();
    expect(existsSync(killed), `sweepOrphanScratch removed ${JSON.stringify(removed)}: the folder of the killed process must go`).toBe(false);
    expect(existsSync(live), "a folder of a process that still runs (this one) must stay").toBe(true);
    // It happens by itself: the first scratch folder a process makes sweeps the orphans first.
    const first = made("SIGKILL");
    const second = made("SIGKILL");
    expect(existsSync(first), `the second process's first scratch folder should have removed the first's, killed (${first})`).toBe(false);
    sweepOrphanScratch();
    expect(existsSync(second), "and the last one goes at the next sweep").toBe(false);
  });

  it("the sandbox's own folder (its /etc/hosts) of a killed process is swept the same way", async () => {
    // The child builds sandbox arguments (which makes the folder once per process) and is killed.
    const tmp = await mkdtemp(join(tmpdir(), "files-test-sandbox-tmp-"));
    keep(tmp);
    const sandbox = join(import.meta.dirname, "../../runtime/tools/sandbox.ts");
    const code = `const { bwrapArgs } = await import(${JSON.stringify(sandbox)}); bwrapArgs(process.env.TMPDIR); process.kill(process.pid, "SIGKILL");`;
    spawnSync(process.execPath, ["--import", "tsx", "--input-type=module", "-e", code], { encoding: "utf8", env: { ...process.env, TMPDIR: tmp } });
    const left = readdirSync(tmp).filter((n) => n.startsWith("course-sandbox-etc"));
    if (!existsSync("/etc/hosts")) return; // the folder is made only to hide the host's /etc/hosts
    expect(left.length, `the killed child should have left its sandbox folder in ${tmp} for this test to mean anything (found: ${readdirSync(tmp).join(", ")})`).toBe(1);
    sweepOrphanScratch(tmp);
    expect(readdirSync(tmp).filter((n) => n.startsWith("course-sandbox-etc")), "the sandbox folder of a dead process must be swept").toEqual([]);
  });
});
