/**
 * s07 · bash that cleans up after itself: output capped with a note saying how much was cut, a
 * timeout that kills everything the command started (so `sleep 30 &` does not outlive the call),
 * and a child environment that carries no API keys or tokens.
 *
 * Unlike runtime/tools/bash.ts (s01–s06), which kills only the shell on timeout: its children,
 * and anything it started in the background, kept running.
 *
 * The process itself is started by the runtime's `spawnTool` (runtime/tools/sandbox.ts): the one
 * place every tool process starts. It builds the environment from an allow list again (whatever
 * `childEnv` let through), gives the command a private TMPDIR and HOME, and, where the machine
 * has bubblewrap, runs it in an OS sandbox: the checks of this lesson are the first layer, the
 * kernel is the boundary.
 */
import { killNote, spawnTool } from "../../runtime/tools/sandbox.ts";

export interface SafeBashOptions {
  /** Working directory: the workspace root. */
  cwd: string;
  /** The folder the command may change (default: cwd). */
  workspace?: string;
  /** Wall-clock limit for the whole command, in ms (the classic Python course's bash tool: 120 s). */
  timeoutMs?: number;
  /** Characters of output kept; the rest is counted and reported, not returned. */
  maxOutput?: number;
  /** The environment to start from (it is filtered by `childEnv`). */
  env?: NodeJS.ProcessEnv;
  /** Aborting it stops the command (its whole process group) at once. */
  signal?: AbortSignal;
  /** The command is the project's own (s12's run_tests): inside the sandbox, node_modules/.bin is in its PATH. */
  projectBin?: boolean;
}

export interface BashRun {
  /** What the model sees: output (capped), plus notes on the cut, the timeout, the exit code. */
  text: string;
  exitCode: number | null;
  timedOut: boolean;
  /** Characters of output not shown. */
  cut: number;
}

export const SAFE_BASH_TIMEOUT_MS = 120_000;
export const SAFE_BASH_MAX_OUTPUT = 50_000;
/** Past this many times the cap, a flood is stopped instead of read to the end. */
const FLOOD_FACTOR = 20;

// #region env
/** Variables a shell and common tools need; everything else stays out of the child. */
const PASSED = /^(PATH|HOME|USER|LOGNAME|SHELL|LANG|LANGUAGE|LC_[A-Z_]+|TERM|TZ|TMPDIR|NO_COLOR|FORCE_COLOR|CI)$/;
/** Even among those, a name that looks like a secret never passes. */
const SECRET = /(^ANTHROPIC_|KEY|TOKEN|SECRET|PASSWORD|PASSWD|CREDENTIAL|AUTH|COOKIE|SESSION)/i;

/**
 * The child's environment: an allow list, not a block list (the same lesson as for commands).
 * ANTHROPIC_API_KEY, GITHUB_TOKEN, AWS_SECRET_ACCESS_KEY… are simply never copied.
 */
export function childEnv(env: NodeJS.ProcessEnv = process.env): NodeJS.ProcessEnv {
  const out: NodeJS.ProcessEnv = {};
  for (const [name, value] of Object.entries(env))
    if (value !== undefined && PASSED.test(name) && !SECRET.test(name)) out[name] = value;
  return out;
}
// #endregion env

// #region run
export function runSafeBash(command: string, opts: SafeBashOptions): Promise<BashRun> {
  const timeoutMs = opts.timeoutMs ?? SAFE_BASH_TIMEOUT_MS;
  const max = opts.maxOutput ?? SAFE_BASH_MAX_OUTPUT;
  return new Promise((resolve) => {
    // spawnTool starts the shell as the leader of a new process group (inside the sandbox, when
    // there is one), so one kill reaches every process it started, in the foreground or the
    // background; killAll() does it, and says truthfully what it could kill.
    const proc = spawnTool(["bash", "-c", command], { workspace: opts.workspace ?? opts.cwd, cwd: opts.cwd, env: childEnv(opts.env), projectBin: opts.projectBin === true });
    const child = proc.child;
    let strays = 0;
    const killGroup = () => {
      strays += proc.killAll().strays;
    };
    let out = "";
    let total = 0;
    let flooded = false;
    const collect = (chunk: Buffer) => {
      const s = chunk.toString("utf8");
      total += s.length;
      if (out.length < max) out += s.slice(0, max - out.length);
      if (total > max * FLOOD_FACTOR && !flooded) {
        flooded = true;
        killGroup();
      }
    };
    child.stdout.on("data", collect);
    child.stderr.on("data", collect);

    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      killGroup();
    }, timeoutMs);
    const onAbort = () => killGroup();
    opts.signal?.addEventListener("abort", onAbort, { once: true });
    // The shell is done: whatever it left running in the background goes with it.
    child.on("exit", killGroup);

    let finished = false;
    const finish = (exitCode: number | null, error?: string) => {
      if (finished) return;
      finished = true;
      clearTimeout(timer);
      opts.signal?.removeEventListener("abort", onAbort);
      killGroup();
      proc.cleanup();
      const cut = total - out.length;
      const notes: string[] = [];
      if (cut > 0)
        notes.push(
          `[output cut: ${cut} of ${total} characters not shown${flooded ? "; the command was stopped because its output kept growing" : ""}]`,
        );
      if (strays > 0 && !timedOut) notes.push(`[${strays} process${strays === 1 ? "" : "es"} it left running outside its process group ${strays === 1 ? "was" : "were"} killed]`);
      if (timedOut) notes.push(`[timed out after ${timeoutMs / 1000} s: ${killNote(proc.sandbox, strays)}]`);
      else if (opts.signal?.aborted) notes.push("[stopped: the run was aborted]");
      else if (error) notes.push(`[could not run: ${error}]`);
      else if (exitCode !== 0 && !flooded) notes.push(`(exit code ${exitCode})`);
      const body = out.trimEnd() === "" ? "(no output)" : out.trimEnd();
      resolve({ text: [body, ...notes].join("\n"), exitCode, timedOut, cut });
    };
    child.on("error", (e) => finish(null, e.message));
    child.on("close", (code) => finish(code));
  });
}
// #endregion run
