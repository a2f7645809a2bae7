/**
 * s26_workflow: a workflow that resumes.
 *
 * Unlike s22, where one task is one run of the loop, a workflow is data: a list of steps, each an
 * agent step (a prompt through s22's loop on a fresh history), a parallel step (several at once,
 * bounded) or a pipeline (each answer fed into the next prompt). workflow.ts runs it through a
 * JSONL journal (journal.ts): a run that stopped (a crash, Ctrl-C, a guard) is run again on the
 * same journal and goes on from the first unfinished step, the finished ones read back; caps on
 * tokens, cost and agent runs stop it cleanly. The loop itself is s22's, untouched: each step is
 * one call of it.
 *
 * Run: npm run lesson s26
 */
import type Anthropic from "@anthropic-ai/sdk";
import { join } from "node:path";
import type { Llm } from "../../runtime/client.ts";
import { lesson, transcriptOf } from "../../runtime/lesson.ts";
import { bold, dim, say } from "../../runtime/print.ts";
import { lessonTask, SAMPLE_REPOSITORY } from "../../runtime/tasks.ts";
import { terminalApprover } from "../../solutions/s07_safe_tools/approval.ts";
import { runAgent, type RunOptions } from "../../solutions/s22_background/agent.ts";
import type { Usage } from "./journal.ts";
import { runWorkflow, WorkflowSchema, type Caps, type RunStep, type Workflow, type WorkflowOutcome } from "./workflow.ts";

export { runAgent, type RunOptions };

export const TASK = lessonTask("s26_workflow");

/** The default workflow: list the files; read the source and the tests at once; a note, then shortened. */
export const DEFAULT_WORKFLOW: Workflow = WorkflowSchema.parse({
  name: "review",
  steps: [
    { kind: "agent", id: "files", prompt: lessonTask("s26_workflow", "files") },
    {
      kind: "parallel",
      concurrency: 2,
      steps: [
        { kind: "agent", id: "source", prompt: lessonTask("s26_workflow", "source") },
        { kind: "agent", id: "tests", prompt: lessonTask("s26_workflow", "tests") },
      ],
    },
    {
      kind: "pipeline",
      steps: [
        { kind: "agent", id: "draft", prompt: lessonTask("s26_workflow", "draft") },
        { kind: "agent", id: "short", prompt: lessonTask("s26_workflow", "short") },
      ],
    },
  ],
});

/** The text of a run's final message. */
const answerText = (m: Anthropic.Message) => m.content.flatMap((b) => (b.type === "text" ? [b.text] : [])).join("\n");

// #region loop
/** One agent step: s22's loop on a fresh history; its answer is the final text, its usage every turn's tokens and cost. Each step's transcript goes to `transcripts`. */
export function agentRunner(llm: Llm, opts: RunOptions, transcripts: Anthropic.MessageParam[][] = []): RunStep {
  return async (prompt, signal) => {
    const history: Anthropic.MessageParam[] = [{ role: "user", content: prompt }];
    transcripts.push(history);
    let usage: Usage = { tokens: 0, costUsd: 0 };
    const outcome = await runAgent(llm, history, {
      ...opts,
      ...(signal ? { signal } : {}),
      onEvent: (e) => {
        if (e.type === "think") {
          const u = e.usage;
          usage = { tokens: usage.tokens + u.input + u.output + u.cacheWrite + u.cacheRead, costUsd: usage.costUsd + (u.costUsd ?? 0) };
        }
        opts.onEvent?.(e);
      },
    });
    return outcome.status === "done" ? { status: "done", answer: answerText(outcome.message), usage } : { status: "stopped", reason: outcome.reason, usage };
  };
}
// #endregion loop

/**
 * The workflow on s22's loop in `root`, its journal at root/.workflow/<name>.jsonl. A command that is
 * not read-only is the person's to approve, as in the final agent: asked on a terminal, refused with
 * none (opts.loop.approve overrides it; a test passes its own).
 */
export function runDefault(
  llm: Llm,
  root: string,
  opts: { signal?: AbortSignal; caps?: Caps; loop?: RunOptions; transcripts?: Anthropic.MessageParam[][]; wrap?: (step: RunStep) => RunStep } = {},
): Promise<WorkflowOutcome> {
  const loop: RunOptions = { root, approve: terminalApprover(), userConfigDir: root, hooks: [], onHookProblem: () => {}, ...opts.loop };
  const runStep = agentRunner(llm, loop, opts.transcripts);
  return runWorkflow(DEFAULT_WORKFLOW, {
    journal: join(root, ".workflow", `${DEFAULT_WORKFLOW.name}.jsonl`),
    runStep: opts.wrap ? opts.wrap(runStep) : runStep,
    ...(opts.signal ? { signal: opts.signal } : {}),
    ...(opts.caps ? { caps: opts.caps } : {}),
  });
}

/** Runs the steps one at a time, in the order they start: a run the same every time (the parallel step's requests do not interleave). */
export const oneAtATime = (step: RunStep): RunStep => {
  let last: Promise<unknown> = Promise.resolve();
  return (prompt, signal) => {
    const result = last.then(() => step(prompt, signal));
    last = result.catch(() => undefined);
    return result;
  };
};

/** The default workflow on a scratch copy of the sample repository, one step at a time; the transcript of its last step (the docs record it). */
export const demo = async (llm: Llm, task = TASK) => {
  const transcripts: Anthropic.MessageParam[][] = [];
  await transcriptOf(task, SAMPLE_REPOSITORY, (_history, root) => runDefault(llm, root, { transcripts, wrap: oneAtATime }));
  return transcripts.at(-1) ?? [];
};

const report = (o: WorkflowOutcome) =>
  say(`${o.status}${o.reason ? ` (${o.reason}: ${o.detail})` : ""} · ran ${o.ran.join(", ") || "nothing"} · read back ${o.reused.join(", ") || "nothing"} · ${o.used.tokens} tokens`);

lesson(import.meta.url, {
  task: TASK,
  workspace: SAMPLE_REPOSITORY,
  run: async ({ llm, root, signal }) => {
    // A crash, played: Ctrl-C (an abort) as soon as the second step is done.
    say(bold("First run: stopped after two steps"));
    const crash = new AbortController();
    signal.addEventListener("abort", () => crash.abort());
    let done = 0;
    const afterTwo = (step: RunStep): RunStep => async (prompt, s) => {
      const result = await step(prompt, s);
      if (++done === 2) crash.abort();
      return result;
    };
    const first = await runDefault(llm, root, { signal: crash.signal, wrap: afterTwo });
    report(first);
    say(bold("\nSecond run: resumed from the journal"));
    const second = await runDefault(llm, root, { signal });
    report(second);
    for (const [id, answer] of Object.entries(second.answers)) say(`${bold(id)}: ${dim(answer)}`);
    return second;
  },
  printAnswer: false,
});
