/**
 * The final agent, `npm run agent`: s21's program (s18's flags and settings files with rules and
 * hooks, s20's --context-budget, s21's /rewind) around s22's loop. The model gains bash_background, job_output and job_stop; every
 * job still running is stopped when a run ends (each turn of the REPL is a run).
 *
 * Run: npx tsx lessons/s22_background/program.ts -- [s21's flags] ["task"]   (--help for all; npm run agent runs solutions/s22_background/program.ts)
 */
import type { Llm } from "../../runtime/client.ts";
import { runMain } from "../../runtime/lesson.ts";
import type { RunResult } from "../../solutions/s12_guarded_agent/program.ts";
import { CHECKPOINTS_USAGE, checkpointsProgram } from "../../solutions/s21_checkpoints/program.ts";
import { runAgent } from "./agent.ts";
import { MAX_JOBS, JOB_OUTPUT_CAP } from "./jobs.ts";

export const BACKGROUND_USAGE = `${CHECKPOINTS_USAGE}

s22 adds background jobs: the model may start a command that outlives its turn (a dev server, a
watch build, a long test run) with bash_background, read its new output with job_output and stop
it with job_stop. A start is a command like any other: the permission rules and the hooks judge it
(a deny rule for bash, such as "bash(rm *)", holds for it too), and it runs in the OS sandbox. When a job ends or
prints the line the model waits for, the model is told beside its next tool results, as the jobs'
words, never as yours. At most ${MAX_JOBS} jobs at once, ${JOB_OUTPUT_CAP} characters of unread output
each; every job still running is stopped when the run ends, however it ends.`;

/** The whole program: flags in, exit code and transcript out (tests pass their own model). */
export const run = (argv: string[], deps: { llm?: Llm; signal?: AbortSignal } = {}): Promise<RunResult> =>
  checkpointsProgram(argv, deps, { runAgent, lesson: "s22_background", usage: BACKGROUND_USAGE });

runMain(import.meta.url, async () => {
  // Ctrl-C stops a one-shot run cleanly (the REPL handles its own Ctrl-C).
  const controller = new AbortController();
  process.once("SIGINT", () => controller.abort());
  const { exitCode } = await run(process.argv.slice(2), { signal: controller.signal });
  process.exitCode = exitCode;
});
