/**
 * Processes found by a token in their command line: how the tests and the reliability run tell
 * whether something a tool, a hook, a background job or an MCP server started is still alive
 * (the token is put in its command line, e.g. with `exec -a` or as an argument).
 */
import { readdirSync, readFileSync } from "node:fs";

/**
 * Pids of live processes (zombies and this process left out) whose command line holds `token`:
 * as one whole argument, or, with `anywhere`, inside any part of it. Empty where there is no /proc.
 */
export function processesWith(token: string, opts: { anywhere?: boolean } = {}): number[] {
  if (process.platform !== "linux") return [];
  const pids: number[] = [];
  for (const name of readdirSync("/proc")) {
    if (!/^\d+$/.test(name) || Number(name) === process.pid) continue;
    try {
      if (/\) Z /.test(readFileSync(`/proc/${name}/stat`, "utf8"))) continue;
      const cmdline = readFileSync(`/proc/${name}/cmdline`, "latin1");
      if (opts.anywhere ? cmdline.includes(token) : cmdline.split("\0").includes(token)) pids.push(Number(name));
    } catch {
      // Gone meanwhile.
    }
  }
  return pids;
}

/** processesWith(token), each killed (SIGKILL) once counted, so a check leaves nothing behind: how many were alive. */
export function killProcessesWith(token: string, opts: { anywhere?: boolean } = {}): number {
  const pids = processesWith(token, opts);
  for (const pid of pids) {
    try {
      process.kill(pid, "SIGKILL");
    } catch {
      // Gone meanwhile.
    }
  }
  return pids.length;
}

/** Waits until `ok()` holds (asked every 100 ms) or `ms` have passed: whether it holds then. */
export async function until(ok: () => boolean, ms: number): Promise<boolean> {
  for (const end = Date.now() + ms; Date.now() < end; ) {
    if (ok()) return true;
    await new Promise((r) => setTimeout(r, 100));
  }
  return ok();
}

/**
 * How many processes with `token` are still alive once the kernel had up to `ms` to take away what
 * was killed (a killed sandbox's namespace, a signalled group: gone in milliseconds on an idle
 * machine, later on a loaded one). Asked every 100 ms; what is alive at the end is killed and counted.
 */
export async function aliveAfter(token: string, ms: number, opts: { anywhere?: boolean } = {}): Promise<number> {
  await until(() => processesWith(token, opts).length === 0, ms);
  return killProcessesWith(token, opts);
}
