/**
 * s22_background: work that outlives a turn.
 *
 * Unlike s19, whose every command ran to its end inside one tool call, the model can now start a
 * command in the background (a dev server, a watch build, a long test run) and go on working:
 * bash_background starts it in the sandbox and returns its id at once; job_output reads what it
 * printed since the last read (and may wait a little for it to end or to print what the model is
 * waiting for); job_stop stops it. When a job ends, or prints a line matching its wait_for, a
 * notification reaches the model in the next user message that answers tool calls, after the
 * results, marked as the jobs' words: never a user message of its own, never the user's voice,
 * approving nothing. Every job still running is stopped when the run ends, however it ends.
 * The tools and the notifications reach the loop through two hooks of s11's extend.ts, `tools`
 * and `answer`; s18's gate and s19's hooks sit at dispatch, so they judge every start like a bash
 * command (bash's rules and hooks cover bash_background); stopping the jobs wraps the run, as
 * s17 wraps its MCP servers around the loop.
 *
 * Run: npm run lesson s22 ["your task"]    Check: npm run check s22
 * Your work is here (the answer hook, and stopping the jobs when the run ends) and in jobs.ts (record: the cap, then wait_for).
 */
import type Anthropic from "@anthropic-ai/sdk";
import { z } from "zod";
import type { Llm } from "../../runtime/client.ts";
import { lesson, todo, transcriptOf } from "../../runtime/lesson.ts";
import { dim, say } from "../../runtime/print.ts";
import { lessonTask, SAMPLE_REPOSITORY } from "../../runtime/tasks.ts";
import { ToolError } from "../../runtime/tools/files.ts";
import { defineTool, type CheckedTool } from "../../solutions/s04_tool_errors/define-tool.ts";
import { refuseAll, terminalApprover } from "../../solutions/s07_safe_tools/approval.ts";
import { createLogger } from "../../solutions/s09_observability/log.ts";
import { withTools, type Extension } from "../../solutions/s11_recovery/extend.ts";
import { runAgent as previousLoop, DEFAULT_MAX_TOKENS, system, type RecoveredOutcome, type RunOptions as HookOptions } from "../../solutions/s21_checkpoints/agent.ts";
import { JobTable, MAX_WAIT_SECONDS, notificationText, type JobLimits } from "./jobs.ts";

export { system, DEFAULT_MAX_TOKENS, type RecoveredOutcome };

export const TASK = lessonTask("s22_background");

export interface RunOptions extends HookOptions {
  /** The run's job table (default: a new one in the workspace; a test passes its own to look at it). */
  jobs?: JobTable;
  /** Limits on the jobs of a new table (MAX_JOBS, JOB_OUTPUT_CAP). */
  jobLimits?: Partial<JobLimits>;
}

/** Why a command may not start in the background, or null (s18's gate judges it first, as bash). */
export type Judge = (command: string) => string | null;

/** The three tools over the run's job table. Starting one is not read-only: s18's gate asks about it like a command. */
export function jobTools(jobs: JobTable, judge: Judge = () => null): CheckedTool[] {
  return [
    defineTool({
      name: "bash_background",
      description:
        "Start a shell command in the background (a dev server, a watch build, a long test run) and return its job id at once. " +
        "You are told when it ends, or when it prints a line matching wait_for (a regular expression), beside your next tool results.",
      input: z.object({ command: z.string().min(1).describe("The shell command to run"), wait_for: z.string().optional().describe("A regular expression: tell me when a line of output matches it") }),
      run: ({ command, wait_for }) => {
        const denied = judge(command);
        if (denied) throw new ToolError(`not started: ${denied}`);
        const job = jobs.start(command, wait_for);
        return `Started ${job.id}: it runs in the background. Read its output with job_output, stop it with job_stop.`;
      },
    }),
    defineTool({
      name: "job_output",
      description: `What a background job printed since you last read it, and whether it still runs. wait_seconds (at most ${MAX_WAIT_SECONDS}) waits for it to end or to print its wait_for line.`,
      input: z.object({ id: z.string().describe("The job id, e.g. job-1"), wait_seconds: z.number().min(0).max(MAX_WAIT_SECONDS).optional() }),
      readOnly: true,
      timeoutMs: (MAX_WAIT_SECONDS + 5) * 1000,
      run: ({ id, wait_seconds }) => jobs.output(id, wait_seconds ?? 0),
    }),
    defineTool({
      name: "job_stop",
      description: "Stop a background job, and everything it started.",
      input: z.object({ id: z.string().describe("The job id, e.g. job-1") }),
      readOnly: true,
      run: ({ id }) => jobs.stop(id),
    }),
  ];
}

// #region loop
/** NEW: the job tools, and what the jobs did since the last turn after the turn's results, in the same user message. */
export const background =
  (jobs: JobTable): Extension =>
  () => ({
    tools: (tools) => withTools(tools, ...jobTools(jobs)),
    answer: (results) => {
      // TODO: const notes = jobs.take(). None → return results unchanged. Some → return the results FIRST, then ONE
      //       text block, notificationText(notes): the jobs' words under a header that says they are not the user's.
      //       (Never a user message of its own: it would end the turn's pairing and read as the user speaking.)
      void notificationText; // (delete this line when you use it)
      return todo(`s22 background: the notifications after ${results.length} tool result(s)`);
    },
  });

/** s21's loop (s19's hooks, s20's memory, s21's checkpoints), with background jobs. `history` grows in place; returns how the run ended. */
export async function runAgent(llm: Llm, history: Anthropic.MessageParam[], opts: RunOptions = {}): Promise<RecoveredOutcome> {
  const root = opts.root ?? process.cwd();
  const jobs = opts.jobs ?? new JobTable(root, opts.jobLimits);
  try {
    return await runJobs(llm, history, opts, root, jobs);
  } finally {
    // Every job is stopped now: what they wrote that runs later is the person's to keep (jobs.ts).
    await jobs.keepPlanted(opts.approve ?? terminalApprover());
  }
}

/** The loop with the job tools; no job outlives it. */
async function runJobs(llm: Llm, history: Anthropic.MessageParam[], opts: RunOptions, root: string, jobs: JobTable): Promise<RecoveredOutcome> {
  // TODO: the run is over however it ends (done, a guard's stop, an abort, or an exception): no job may outlive it.
  //       Wrap the call below in try { return await … } finally { jobs.stopAll() }. stopAll returns how many it stopped:
  //       when some were, say so, dim ("jobs: 1 still running when the run ended, stopped"); when none were, say nothing.
  const outcome = await previousLoop(llm, history, { ...opts, root, extensions: [background(jobs), ...(opts.extensions ?? [])] });
  void [outcome, dim]; // (delete this line when you use them)
  return todo(`s22 runAgent: stop the jobs still running (${jobs.running().length}) when the run ends`);
}
// #endregion loop

/** The default task on a scratch copy of the sample repository: the tests run in the background while the model reads the code (its rules allow them). */
export const demo = (llm: Llm, task = TASK) =>
  transcriptOf(task, SAMPLE_REPOSITORY, (history, root) => runAgent(llm, history, { root, approve: refuseAll, userConfigDir: root, hooks: [], onHookProblem: () => {} }));

lesson(import.meta.url, {
  task: TASK,
  workspace: SAMPLE_REPOSITORY,
  before: () => say(dim("background jobs: bash_background, job_output, job_stop (each start passes the permission rules)")),
  run: ({ llm, history, root, signal, flag }) => runAgent(llm, history, { root, signal, onEvent: createLogger({ verbose: flag("verbose") }) }),
  printAnswer: false,
});
