/**
 * s23_evals, part one: grading ONE run by what it left behind.
 *
 * A run is judged by the final state of its workspace and its final answer, never by the
 * transcript: an agent that says "all tests pass" has not passed; the tests passing in the
 * workspace it left has. The hidden check is data (a Check); gradeRun applies it after the run
 * stopped and classifies the outcome: pass (every criterion held), fail (one did not), error
 * (the run itself broke: no final state worth grading, and never a pass).
 */
import { createHash } from "node:crypto";
import { InsideError, readInside } from "../../runtime/tools/inside.ts";
import { runSafeBash } from "../../solutions/s07_safe_tools/safe-bash.ts";

/** What the hidden check asks of the final workspace. */
export interface Check {
  /** A command run in the final workspace (in the sandbox, where there is one): it must exit 0. */
  command?: string;
  /** Files (relative to the workspace) that must be byte for byte as they started; a deleted or added one counts. */
  unchanged?: string[];
  /** What the final answer must name: each pattern must match. */
  answer?: RegExp[];
}

export type Outcome = "pass" | "fail" | "error";

/** One graded run: its outcome and, in words, every criterion that did not hold. */
export interface Graded {
  task: string;
  outcome: Outcome;
  reasons: string[];
}

/** How one run ended, as the grader is told: the final answer's text, or the error that broke the run. */
export interface RunEnd {
  answer: string;
  error?: string;
}

/** How long the check's command may take. */
export const CHECK_TIMEOUT_MS = 60_000;

/**
 * Each file's sha256 (null when it does not exist): taken before the run, compared after it. A
 * link is never followed (runtime/tools/inside.ts): a protected file swapped for a link to the same
 * text elsewhere has changed (the check would run the file outside, beside code the agent chose).
 */
export function fingerprint(root: string, files: readonly string[]): Record<string, string | null> {
  const hashOf = (rel: string) => {
    try {
      const read = readInside(root, rel, Infinity);
      return read && createHash("sha256").update(read.bytes).digest("hex");
    } catch (e) {
      if (e instanceof InsideError) return `not a plain file: ${e.message}`;
      throw e;
    }
  };
  return Object.fromEntries(files.map((f) => [f, hashOf(f)]));
}

// #region grade
/** Applies `check` to the workspace `root` the run left (`before`: fingerprint of check.unchanged before it). */
export async function gradeRun(task: string, check: Check, root: string, before: Record<string, string | null>, end: RunEnd): Promise<Graded> {
  // A run that broke has no final state worth grading: an error, kept apart, never a pass.
  if (end.error !== undefined) return { task, outcome: "error", reasons: [`the run did not finish: ${end.error}`] };
  const reasons: string[] = [];
  const after = fingerprint(root, check.unchanged ?? []);
  for (const file of check.unchanged ?? []) if (after[file] !== before[file]) reasons.push(`${file} was changed`);
  for (const pattern of check.answer ?? []) if (!pattern.test(end.answer)) reasons.push(`the answer does not name ${pattern}`);
  if (check.command) {
    // The code the agent left is run, in the sandbox: what it does counts, not what it says.
    const run = await runSafeBash(check.command, { cwd: root, timeoutMs: CHECK_TIMEOUT_MS });
    if (run.timedOut || run.exitCode !== 0) reasons.push(`\`${check.command}\` ${run.timedOut ? "did not finish" : `exited with ${run.exitCode}`}`);
  }
  return { task, outcome: reasons.length === 0 ? "pass" : "fail", reasons };
}
// #endregion grade
