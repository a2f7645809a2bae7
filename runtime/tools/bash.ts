/**
 * The bash tool of the first lessons: run a command, return stdout + stderr, with a timeout and
 * an output cap (120 s, 50 000 characters). Errors come back as text starting with
 * "Error:", never as an exception. Lesson s07 replaces it with a safe version.
 *
 * Like every tool process, the shell is started by `spawnTool` (./sandbox.ts): an allow-listed
 * environment (no API keys), and the OS sandbox where the machine has one. Without a sandbox, a
 * timeout here kills only the shell: s07 shows why that is not enough.
 */
import { spawnTool } from "./sandbox.ts";

export interface BashOptions {
  cwd?: string;
  timeoutMs?: number;
  maxOutput?: number;
}

export const BASH_TIMEOUT_MS = 120_000;
export const BASH_MAX_OUTPUT = 50_000;

export function capOutput(text: string, max: number): string {
  if (text.length <= max) return text;
  return `${text.slice(0, max)}\n… [output cut: ${text.length - max} of ${text.length} characters not shown]`;
}

export function runBash(command: unknown, opts: BashOptions = {}): Promise<string> {
  if (typeof command !== "string" || command.trim() === "")
    return Promise.resolve('Error: the bash tool needs {"command": "<a shell command>"}');
  const timeoutMs = opts.timeoutMs ?? BASH_TIMEOUT_MS;
  const max = opts.maxOutput ?? BASH_MAX_OUTPUT;
  return new Promise((resolve) => {
    const cwd = opts.cwd ?? process.cwd();
    const proc = spawnTool(["bash", "-c", command], { workspace: cwd, cwd });
    const child = proc.child;
    let out = "";
    let dropped = 0;
    const collect = (chunk: Buffer) => {
      const s = chunk.toString("utf8");
      // Keep a little more than the cap so the note can say how much was cut.
      if (out.length < max * 2) out += s;
      else dropped += s.length;
    };
    child.stdout.on("data", collect);
    child.stderr.on("data", collect);
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      child.kill("SIGKILL");
      // Answer now: a background child of the command may keep the pipes open for much longer
      // (it also outlives this kill — lesson s07 kills the whole process group instead).
      child.stdout.destroy();
      child.stderr.destroy();
      resolve(`Error: timed out after ${timeoutMs / 1000} s\n${capOutput(out, max)}`.trimEnd());
    }, timeoutMs);
    child.on("error", (e) => {
      clearTimeout(timer);
      proc.cleanup();
      resolve(`Error: ${e.message}`);
    });
    child.on("close", (code) => {
      clearTimeout(timer);
      proc.cleanup();
      if (timedOut) return;
      const body = out.trim() === "" ? "(no output)" : capOutput(out.trimEnd(), max - 0);
      const note = dropped > 0 ? `\n… [${dropped} more characters not kept]` : "";
      resolve(code === 0 ? body + note : `${body}${note}\n(exit code ${code})`);
    });
  });
}
