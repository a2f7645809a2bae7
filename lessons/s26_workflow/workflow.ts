/**
 * s26 · the workflow runtime: steps as data, run through a journal, resumed where they stopped.
 *
 * A workflow is a list of steps: an `agent` step (one prompt, one run of the agent loop), a
 * `parallel` step (several agent steps at once, at most `concurrency` in flight) or a `pipeline`
 * (agent steps in order, each given the answer of the one before). Every agent step is journaled
 * (journal.ts): started, then done with its answer and usage. Run the same workflow on the same
 * journal again and the steps that finished are read back, not run; the first unfinished one runs.
 * Caps on tokens, cost and agent runs, counted across every run of the journal, stop it cleanly.
 */
import { z } from "zod";
import { todo } from "../../runtime/lesson.ts";
import { Journal, type JournalEvent, type Usage } from "./journal.ts";

const Id = z.string().regex(/^[A-Za-z0-9_.-]+$/, "a step id is letters, digits, _ . -");
export const AgentStepSchema = z.object({ kind: z.literal("agent"), id: Id, prompt: z.string().min(1) });
export const StepSchema = z.discriminatedUnion("kind", [
  AgentStepSchema,
  z.object({ kind: z.literal("parallel"), steps: z.array(AgentStepSchema).min(1), concurrency: z.number().int().min(1).optional() }),
  z.object({ kind: z.literal("pipeline"), steps: z.array(AgentStepSchema).min(1) }),
]);
export const WorkflowSchema = z
  .object({ name: z.string().min(1), steps: z.array(StepSchema).min(1) })
  .refine((w) => new Set(agentSteps(w)).size === agentSteps(w).length, "every agent step needs an id of its own (the journal knows steps by id)");
export type AgentStep = z.infer<typeof AgentStepSchema>;
export type Workflow = z.infer<typeof WorkflowSchema>;

function agentSteps(w: { steps: Array<{ kind: string; id?: string; steps?: Array<{ id: string }> }> }): string[] {
  return w.steps.flatMap((s) => (s.steps ? s.steps.map((a) => a.id) : [s.id ?? ""]));
}

/** How one agent run ended: its final answer, or why it stopped; what it cost either way. */
export type StepResult = { status: "done"; answer: string; usage: Usage } | { status: "stopped"; reason: string; usage: Usage };
/** Runs one prompt through the agent loop (agent.ts gives s22's; a test gives its own). */
export type RunStep = (prompt: string, signal: AbortSignal | undefined) => Promise<StepResult>;

export interface Caps {
  /** Tokens of every kind, summed over every agent run of the journal. */
  maxTokens?: number;
  /** Dollars, summed the same way. */
  maxCostUsd?: number;
  /** Agent runs started, over every run of the journal (a run a crash cut short counts). */
  maxRuns?: number;
}

export type StopReason = "max_tokens" | "max_cost" | "max_runs" | "aborted" | "step_stopped";
export interface Progress {
  /** The answer and usage of every agent step that finished, by id. */
  done: Map<string, { answer: string; usage: Usage }>;
  /** Agent runs started (step_started events). */
  runs: number;
  /** Usage summed over the finished steps, and over this run's steps that stopped. */
  used: Usage;
}
export interface WorkflowOutcome {
  status: "done" | "stopped";
  reason?: StopReason;
  detail?: string;
  /** Every finished step's answer, by id (read back or run now). */
  answers: Record<string, string>;
  /** The steps run now, and the ones read back from the journal, in the order they were reached. */
  ran: string[];
  reused: string[];
  used: Usage;
}
export interface WorkflowOptions {
  journal: string;
  runStep: RunStep;
  caps?: Caps;
  signal?: AbortSignal;
  /** How many agent steps of a parallel step run at once, unless the step says (default 2). */
  concurrency?: number;
}

/** Thrown inside the run to stop it cleanly: the outcome says why. */
export class Stop extends Error {
  constructor(
    readonly reason: StopReason,
    readonly detail: string,
  ) {
    super(detail);
  }
}

/** What a pipeline step is given: its prompt, then the answer of the step before. */
export const withInput = (prompt: string, previous: string) => `${prompt}\n\n<previous_step_answer>\n${previous}\n</previous_step_answer>`;

export const add = (a: Usage, b: Usage): Usage => ({ tokens: a.tokens + b.tokens, costUsd: a.costUsd + b.costUsd });

/** The run in progress: the journal, what it says, the caps, and what this run did. */
export interface Run extends WorkflowOptions {
  log: Journal;
  progress: Progress;
  ran: string[];
  reused: string[];
}

// #region resume
/** NEW: what the journal says: each finished step's answer and usage, the agent runs started, the usage so far. */
export function replay(events: readonly JournalEvent[]): Progress {
  const progress: Progress = { done: new Map(), runs: 0, used: { tokens: 0, costUsd: 0 } };
  // TODO: read the events in order: each "step_started" is one agent run (progress.runs += 1, finished or not);
  //       each "step_done" is a finished step: progress.done.set(e.step, { answer: e.answer, usage: e.usage }) and
  //       progress.used = add(progress.used, e.usage). (A step id done twice: keep one of its answers, the first say, and count its usage once.)
  return todo(`s26 replay: read ${events.length} journal event(s) into what is done, the runs started and the usage (${progress.runs} runs so far)`);
}

/** NEW: the first cap reached (checked before each agent run starts), or null. */
export function capReached({ runs, used }: Progress, caps: Caps = {}): Stop | null {
  // TODO: a cap that is set and reached (>=: a run may start only while under it) stops the workflow:
  //       runs >= caps.maxRuns → new Stop("max_runs", why); used.tokens >= caps.maxTokens → new Stop("max_tokens", why);
  //       used.costUsd >= caps.maxCostUsd → new Stop("max_cost", why). None reached → null. The why is the sentence the
  //       person reads: name the cap's value, e.g. `the cap of ${caps.maxRuns} agent runs is reached (${runs} started)`.
  return todo(`s26 capReached: compare ${runs} runs, ${used.tokens} tokens and $${used.costUsd} with the caps ${JSON.stringify(caps)}`);
}

/** NEW: one agent step: its answer read back when the journal has it; else run (unless stopped), journaled before and after. */
export async function agentStep(run: Run, step: AgentStep, prompt: string): Promise<string> {
  // TODO: 1. finished before (run.progress.done has step.id)? run.reused.push(step.id) and return its answer: do not run it.
  //       2. run.signal aborted → throw new Stop("aborted", why naming step.id); capReached(run.progress, run.caps) → throw that Stop.
  //       3. run.progress.runs += 1; run.log.append({ type: "step_started", step: step.id }); then
  //          const result = await run.runStep(prompt, run.signal); run.progress.used = add(run.progress.used, result.usage).
  //       4. result.status not "done" → throw new Stop("aborted", why naming step.id) if run.signal is aborted, else
  //          new Stop("step_stopped", why naming step.id and result.reason):
  //          no step_done line for it. Done → run.log.append({ type: "step_done", step: step.id, answer: result.answer,
  //          usage: result.usage }), run.progress.done.set(step.id, { answer, usage }), run.ran.push(step.id), return the answer.
  return todo(`s26 agentStep: read back or run step ${step.id} (${prompt.length} characters of prompt, ${run.progress.runs} runs so far)`);
}
// #endregion resume

/** Runs `work` over `items`, at most `limit` at once; after a failure no new item starts, the ones in flight finish, then it rethrows. */
export async function pool<T>(items: readonly T[], limit: number, work: (item: T) => Promise<unknown>): Promise<void> {
  let next = 0;
  let failure: { error: unknown } | undefined;
  const worker = async () => {
    while (next < items.length && !failure) {
      const item = items[next++]!;
      await work(item).catch((error: unknown) => void (failure ??= { error }));
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
  if (failure) throw failure.error;
}

// #region run
/** Runs (or resumes) `workflow` on the journal at `opts.journal`; a cap, an abort or a stopped step ends it with a stopped outcome. */
export async function runWorkflow(workflow: Workflow, opts: WorkflowOptions): Promise<WorkflowOutcome> {
  const log = Journal.open(opts.journal);
  const run: Run = { ...opts, log, progress: replay(log.events), ran: [], reused: [] };
  log.append({ type: "run_started", workflow: workflow.name });
  const outcome = (status: "done" | "stopped", stop?: Stop): WorkflowOutcome => {
    const answers = Object.fromEntries([...run.progress.done].map(([id, d]) => [id, d.answer]));
    return { status, ...(stop ? { reason: stop.reason, detail: stop.detail } : {}), answers, ran: run.ran, reused: run.reused, used: run.progress.used };
  };
  try {
    for (const step of workflow.steps) {
      if (step.kind === "agent") await agentStep(run, step, step.prompt);
      else if (step.kind === "parallel") await pool(step.steps, step.concurrency ?? opts.concurrency ?? 2, (s) => agentStep(run, s, s.prompt));
      else {
        let previous: string | undefined;
        for (const s of step.steps) previous = await agentStep(run, s, previous === undefined ? s.prompt : withInput(s.prompt, previous));
      }
    }
    log.append({ type: "run_finished", status: "done" });
    return outcome("done");
  } catch (e) {
    if (!(e instanceof Stop)) throw e;
    log.append({ type: "run_finished", status: "stopped", reason: e.reason });
    return outcome("stopped", e);
  } finally {
    log.close();
  }
}
// #endregion run
