/**
 * Nothing outlives the agent: every process the agent starts for a tool or an MCP server is
 * registered here while it runs, with the one call that kills it whole (a tool's process group or
 * its sandbox, an MCP server and what it started). `killEverything` runs them all.
 *
 * `stopOnSignals` is what a program installs for its run: on SIGHUP (the terminal closed),
 * SIGTERM (the system or a supervisor) and SIGINT (Ctrl-C, or `kill -INT`), it kills everything,
 * lets the program save its transcript, says so, and exits with 128 + the signal's number. Without
 * it, Node would die on SIGHUP or SIGTERM at once: the tools' process groups (they are their own
 * groups, so the terminal's hang-up never reaches them) and the MCP servers would keep running.
 */
import { constants } from "node:os";

const live = new Set<() => void>();

/** Registers `kill` (it must kill synchronously and never throw); returns the call that forgets it. */
export function track(kill: () => void): () => void {
  live.add(kill);
  return () => void live.delete(kill);
}

/** How many processes (or groups) are registered now. */
export function liveCount(): number {
  return live.size;
}

/** Kills every registered process, now; returns how many there were. */
export function killEverything(): number {
  const all = [...live];
  live.clear();
  for (const kill of all) {
    try {
      kill();
    } catch {
      // Gone already.
    }
  }
  return all.length;
}

export type StopSignal = "SIGHUP" | "SIGTERM" | "SIGINT";
export const STOP_SIGNALS: readonly StopSignal[] = ["SIGHUP", "SIGTERM", "SIGINT"];

export interface StopOptions {
  /** Called first, with the signal: abort the run (the tools see their signal too). */
  abort?: (signal: StopSignal) => void;
  /** Saves the transcript (synchronously: the process exits right after); may return where. */
  save: (signal: StopSignal) => string | void;
  /** Writes the last line (errors ignored: after SIGHUP the terminal may be gone). */
  say?: (line: string) => void;
  /** Exits (tests replace it); default process.exit. */
  exit?: (code: number) => void;
  /** Which signals (default all three). */
  signals?: readonly StopSignal[];
}

/**
 * Installs the handlers for one run; returns the call that removes them. A second signal while
 * the first is handled exits at once.
 */
export function stopOnSignals(opts: StopOptions): () => void {
  const exit = opts.exit ?? ((code: number) => process.exit(code));
  let stopping = false;
  const handler = (signal: StopSignal) => {
    const code = 128 + (constants.signals[signal] ?? 15);
    if (stopping) return exit(code);
    stopping = true;
    const killed = killEverything();
    try {
      opts.abort?.(signal);
    } catch {
      // The run may be half torn down already.
    }
    let saved = "the transcript is saved";
    try {
      const where = opts.save(signal);
      if (where) saved += ` in ${where}`;
    } catch (e) {
      saved = `the transcript could not be saved (${(e as Error).message})`;
    }
    // Whatever an abort started meanwhile is killed too.
    killEverything();
    try {
      opts.say?.(`\n${signal}: stopped ${killed} running tool process${killed === 1 ? "" : "es"} and server${killed === 1 ? "" : "s"}; ${saved}. Exiting.`);
    } catch {
      // No terminal to say it on.
    }
    exit(code);
  };
  const signals = opts.signals ?? STOP_SIGNALS;
  for (const s of signals) process.on(s, handler);
  // A parent that dies without passing the signal on (a wrapper such as tsx's killed by SIGHUP
  // alone, or by SIGKILL) leaves this process to init: taken as a hang-up.
  const parent = process.ppid;
  const watchdog = setInterval(() => {
    if (process.ppid !== parent && signals.includes("SIGHUP")) handler("SIGHUP");
  }, 500);
  watchdog.unref();
  return () => {
    clearInterval(watchdog);
    for (const s of signals) process.off(s, handler);
  };
}
