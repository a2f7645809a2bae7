/**
 * s07 · why a substring block list fails, shown live.
 *
 * The bash tool of the best-known Python course refuses a command when it CONTAINS one of a few strings. But the shell
 * does not run the string you checked: it first removes backslashes and quotes, expands $(…),
 * and a command may start another shell. Each bypass below passes the check, and the shell still
 * runs the blocked program. The live run is harmless: PATH holds only stand-ins that print what
 * they were asked to do (and `sh`), so the real sudo, rm and reboot cannot be found.
 */
import { chmodSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { spawnSync } from "node:child_process";

// #region seed
/** That course's block list, line for line: `if any(d in command for d in dangerous): return "Error: …"`. */
export const SEED_BLOCK_LIST = ["rm -rf /", "sudo", "shutdown", "reboot", "> /dev/"];

export function seedBlocks(command: string): boolean {
  return SEED_BLOCK_LIST.some((d) => command.includes(d));
}
// #endregion seed

// #region bypasses
export const BYPASSES: Array<{ command: string; how: string }> = [
  { command: "s\\udo id", how: "a backslash: bash drops it, so the word becomes sudo" },
  { command: "$(echo rm) -rf /", how: "command substitution: the name is built when the command runs" },
  { command: `sh -c "shut""down now"`, how: "another shell, and two quoted halves it glues together" },
];
// #endregion bypasses

export interface BypassRun {
  command: string;
  how: string;
  /** What the block list said. */
  blocked: boolean;
  /** What the stand-ins report the shell actually ran. */
  ran: string;
}

/** Runs each bypass against harmless stand-ins and reports what the shell really executed. */
export function runBypasses(bypasses = BYPASSES): BypassRun[] {
  const dir = mkdtempSync(join(tmpdir(), "s07-stand-ins-"));
  try {
    for (const name of ["sudo", "rm", "shutdown", "reboot"]) {
      const file = join(dir, name);
      writeFileSync(file, `#!/bin/sh\necho "the shell ran: \${0##*/} $*"\n`);
      chmodSync(file, 0o755);
    }
    symlinkSync("/bin/sh", join(dir, "sh"));
    return bypasses.map(({ command, how }) => {
      // PATH is ONLY the stand-ins: if one were missing, the command would not be found at all.
      const r = spawnSync("/bin/bash", ["-c", command], { env: { PATH: dir }, encoding: "utf8", timeout: 5_000 });
      const ran = `${r.stdout ?? ""}${r.stderr ?? ""}`.trim().split("\n")[0] ?? "";
      return { command, how, blocked: seedBlocks(command), ran };
    });
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
