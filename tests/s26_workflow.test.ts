/**
 * s26_workflow: a workflow that resumes. Grades lessons/ or solutions/ (COURSE_TREE). Each test
 * runs the graded runWorkflow (workflow.ts); the agent steps go through s22's loop on the scripted
 * model (agentRunner of the graded agent.ts), or, where only counting matters (caps, concurrency),
 * through a step runner of the test's own. Crashes are played with an abort signal and by tearing
 * the journal's bytes; nothing waits on time.
 */
import { createHash } from "node:crypto";
import { mkdir, mkdtemp, readFile, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import type Anthropic from "@anthropic-ai/sdk";
import fc from "fast-check";
import { describe, it } from "vitest";
import { say } from "../runtime/scripted/scenarios/script.ts";
import { S26_ANSWERS } from "../runtime/scripted/scenarios/s26_workflow.ts";
import type { Scenario } from "../runtime/scripted/types.ts";
import { SAMPLE_REPOSITORY } from "../runtime/tasks.ts";
import { assertProperty, loadLesson, rule, scripted } from "../runtime/testing.ts";
import { scratchCopy } from "../runtime/tools/files.ts";
import { approveAll } from "../solutions/s07_safe_tools/approval.ts";
import { JournalEventSchema, parseJournal, type JournalEvent } from "../solutions/s26_workflow/journal.ts";
import type { RunStep, Workflow } from "../solutions/s26_workflow/workflow.ts";
import { differentialNet } from "./differential/net.ts";
import { quietLessonFile } from "./support.ts";

type Agent = typeof import("../solutions/s26_workflow/agent.ts");
type Runtime = typeof import("../solutions/s26_workflow/workflow.ts");
const lesson = await loadLesson<Agent>("s26_workflow");
const runtime = await loadLesson<Runtime>("s26_workflow", "workflow.ts");
const keep = quietLessonFile();
const WHERE = "(agentStep, replay and capReached in lessons/s26_workflow/workflow.ts)";

/** A scripted model whose answer is a digest of the step's whole first message: the same prompt (and input), the same answer. */
const digest = (s: string) => createHash("sha256").update(s).digest("hex").slice(0, 12);
const stepsModel: Scenario = { id: "s26-test-steps", title: "answers each prompt with its digest", reply: (ctx) => say(`answer-${digest(ctx.firstPrompt)}`) };

const agent = (id: string) => ({ kind: "agent" as const, id, prompt: `Step ${id}: say something.` });
const FOUR: Workflow = { name: "four", steps: ["a", "b", "c", "d"].map(agent) };
const SIX: Workflow = { name: "six", steps: ["a", "b", "c", "d", "e", "f"].map(agent) };
const MIXED: Workflow = {
  name: "mixed",
  steps: [agent("a"), { kind: "parallel", concurrency: 2, steps: [agent("p1"), agent("p2"), agent("p3")] }, { kind: "pipeline", steps: [agent("q1"), agent("q2"), agent("q3")] }, agent("z")],
};
const ids = (w: Workflow) => w.steps.flatMap((s) => (s.kind === "agent" ? [s.id] : s.steps.map((a) => a.id)));

async function journalEvents(path: string): Promise<JournalEvent[]> {
  const text = await readFile(path, "utf8");
  rule(text === "" || text.endsWith("\n"), "workflow-journal", `the journal ${path} does not end with a newline: append each event as one line ending in "\\n"`);
  return text
    .split("\n")
    .filter((l) => l !== "")
    .map((line, i) => {
      let json: unknown;
      try {
        json = JSON.parse(line);
      } catch {
        json = undefined;
      }
      const parsed = JournalEventSchema.safeParse(json);
      rule(parsed.success, "workflow-journal", `line ${i + 1} of the journal is not a typed event (${line.slice(0, 120)}): append JSON.stringify(event) + "\\n" per event ${WHERE}`);
      return parsed.data;
    });
}
const doneIn = (events: JournalEvent[]) => events.flatMap((e) => (e.type === "step_done" ? [e.step] : []));

/** The real loop (s22's, through the graded agentRunner) on a scratch copy, with the digest model; counts the prompts it runs. */
async function realSteps() {
  const root = keep(await scratchCopy(SAMPLE_REPOSITORY));
  const llm = scripted({ scenario: stepsModel, maxRequests: 500 });
  const inner = lesson.agentRunner(llm, { root, approve: approveAll, userConfigDir: root, hooks: [], onHookProblem: () => {} });
  const prompts: string[] = [];
  const runStep: RunStep = (prompt, signal) => (prompts.push(prompt), inner(prompt, signal));
  return { root, prompts, runStep, journal: join(root, ".workflow", "test.jsonl") };
}

/** A step runner of the test's own: each run costs `usage`, answers at once. */
const fakeSteps = (tokens = 100, costUsd = 0.01) => {
  const prompts: string[] = [];
  const runStep: RunStep = async (prompt) => (prompts.push(prompt), { status: "done", answer: `answer-${digest(prompt)}`, usage: { tokens, costUsd } });
  return { prompts, runStep };
};
const tempJournal = async () => join(keep(await mkdtemp(join(tmpdir(), "s26-"))), "run.jsonl");

describe("s26 a workflow that resumes", () => {
  it("the default workflow runs offline: every step answers, the pipeline's second step is given the first's answer, the journal is typed JSONL", async () => {
    const root = keep(await scratchCopy(SAMPLE_REPOSITORY));
    const outcome = await lesson.runDefault(scripted(), root);
    rule(outcome.status === "done", "workflow-resume", `the default workflow ended ${outcome.status} (${outcome.reason}: ${outcome.detail}), not done ${WHERE}`);
    for (const [id, answer] of Object.entries(S26_ANSWERS))
      rule(outcome.answers[id] === answer, "workflow-resume", `step ${id} answered ${JSON.stringify(outcome.answers[id])}, expected ${JSON.stringify(answer)}: return each step's answer (the pipeline's "short" is routed only when given the draft's answer) ${WHERE}`);
    const events = await journalEvents(join(root, ".workflow", "review.jsonl"));
    rule(doneIn(events).sort().join() === Object.keys(S26_ANSWERS).sort().join(), "workflow-journal", `the journal's step_done lines are for ${doneIn(events).join(", ") || "no step"}: append one per finished step ${WHERE}`);
  });

  it("a step's command that is not read-only is the person's to approve: with no approver given and no terminal, it is refused", async () => {
    const root = keep(await scratchCopy(SAMPLE_REPOSITORY));
    const transcripts: Anthropic.MessageParam[][] = [];
    // Every step's agent is asked to run a command that writes; runDefault is given no approver.
    const writes = (step: RunStep): RunStep => (_prompt, signal) => step("run `touch planted-by-a-step.txt`", signal);
    const tty = Object.getOwnPropertyDescriptor(process.stdin, "isTTY");
    Object.defineProperty(process.stdin, "isTTY", { value: false, configurable: true });
    try {
      await lesson.runDefault(scripted({ maxRequests: 200 }), root, { wrap: (step) => lesson.oneAtATime(writes(step)), transcripts, caps: { maxRuns: 1 } });
    } finally {
      if (tty) Object.defineProperty(process.stdin, "isTTY", tty);
      else delete (process.stdin as { isTTY?: boolean }).isTTY;
    }
    const planted = await readFile(join(root, "planted-by-a-step.txt")).then(() => true, () => false);
    const results = transcripts.flat().flatMap((m) => (m.role === "user" && typeof m.content !== "string" ? m.content : [])).filter((b) => b.type === "tool_result");
    rule(!planted, "approval", "a workflow step ran `touch planted-by-a-step.txt` with no approver given and no terminal: runDefault must not approve commands for the person (default to terminalApprover(), not approveAll)");
    rule(results.length > 0 && results.every((r) => r.is_error === true), "approval", `the step's command was not refused (${JSON.stringify(results).slice(0, 200)}): with no terminal to ask, a command that is not read-only is refused`);
  });

  it("a workflow aborted after step 2 resumes on its journal and runs only steps 3..n, through the loop", async () => {
    const s = await realSteps();
    const stop = new AbortController();
    let finished = 0;
    const crashing: RunStep = async (prompt, signal) => {
      const r = await s.runStep(prompt, signal);
      if (++finished === 2) stop.abort();
      return r;
    };
    const first = await runtime.runWorkflow(FOUR, { journal: s.journal, runStep: crashing, signal: stop.signal });
    rule(first.status === "stopped" && first.reason === "aborted", "workflow-caps", `aborted after step 2, the run ended ${first.status}/${first.reason}, not stopped/aborted: check run.signal before starting a step ${WHERE}`);
    rule(s.prompts.length === 2, "workflow-caps", `aborted after step 2, the run still started ${s.prompts.length} steps: no step may start after the signal is aborted ${WHERE}`);
    rule(doneIn(await journalEvents(s.journal)).join() === "a,b", "workflow-journal", `after steps a and b the journal's step_done lines are ${doneIn(await journalEvents(s.journal)).join(", ") || "none"}`);
    s.prompts.length = 0;
    const second = await runtime.runWorkflow(FOUR, { journal: s.journal, runStep: s.runStep });
    const ranNow = s.prompts.map((p) => p.slice(5, 6)).join();
    rule(ranNow === "c,d", "workflow-resume", `resumed, the workflow ran steps ${ranNow || "none"}, expected c,d: look each step up in the journal (replay) and return a finished step's answer without running it ${WHERE}`);
    rule(second.status === "done" && second.reused.join() === "a,b" && second.ran.join() === "c,d", "workflow-resume", `resumed: ${second.status}, read back ${second.reused.join()}, ran ${second.ran.join()}; expected done, a,b read back, c,d run`);
    rule(second.answers["a"] === `answer-${digest(agent("a").prompt)}`, "workflow-resume", `step a's answer read back is ${JSON.stringify(second.answers["a"])}: return the answer its step_done line holds`);
  });

  it("a journal whose last line was torn by a crash is read up to its last whole line, and appending goes on from there", async () => {
    const journal = await tempJournal();
    const a = agent("a").prompt;
    const lines = [{ type: "run_started", workflow: "four" }, { type: "step_started", step: "a" }, { type: "step_done", step: "a", answer: "kept-a", usage: { tokens: 5, costUsd: 0 } }, { type: "step_started", step: "b" }];
    await writeFile(journal, `${lines.map((l) => JSON.stringify(l)).join("\n")}\n{"type":"step_done","step":"b","ans`);
    const f = fakeSteps();
    const outcome = await runtime.runWorkflow(FOUR, { journal, runStep: f.runStep });
    rule(outcome.status === "done" && outcome.answers["a"] === "kept-a", "workflow-resume", `on a torn journal: ${outcome.status}, step a answered ${JSON.stringify(outcome.answers["a"])}; expected a read back as "kept-a" ${WHERE}`);
    rule(f.prompts.length === 3 && !f.prompts.includes(a), "workflow-resume", `on a torn journal the run ran ${f.prompts.length} steps: b's torn step_done is not a finished step, a's whole one is (run b, c, d only)`);
    const events = await journalEvents(journal);
    rule(doneIn(events).join() === "a,b,c,d", "workflow-journal", `after the resume the journal's finished steps are ${doneIn(events).join()}`);
  });

  it("the caps stop the workflow cleanly, each with an outcome naming it, counted over every run of the journal", async () => {
    const cases = [
      { caps: { maxRuns: 2 }, raised: { maxRuns: 3 }, reason: "max_runs", ran: 2 },
      { caps: { maxTokens: 250 }, raised: { maxTokens: 350 }, reason: "max_tokens", ran: 3 },
      { caps: { maxCostUsd: 0.015 }, raised: { maxCostUsd: 0.025 }, reason: "max_cost", ran: 2 },
    ] as const;
    for (const c of cases) {
      const journal = await tempJournal();
      const f = fakeSteps(100, 0.01);
      const o = await runtime.runWorkflow(SIX, { journal, runStep: f.runStep, caps: c.caps });
      const said = `with caps ${JSON.stringify(c.caps)} (each step: 100 tokens, $0.01) the workflow ended ${o.status}/${o.reason} after ${f.prompts.length} runs`;
      rule(o.status === "stopped" && o.reason === c.reason && f.prompts.length === c.ran, "workflow-caps", `${said}; expected stopped/${c.reason} after ${c.ran}: check the caps (>=) before each run ${WHERE}`);
      const last = (await journalEvents(journal)).at(-1);
      rule(last?.type === "run_finished" && last.status === "stopped" && last.reason === c.reason, "workflow-caps", `${said}; the journal's last line is ${JSON.stringify(last)}, expected run_finished stopped ${c.reason}`);
      // Raised, the same cap lets the run go on from the journal: its earlier runs count.
      const more = fakeSteps(100, 0.01);
      const again = await runtime.runWorkflow(SIX, { journal, runStep: more.runStep, caps: c.raised });
      rule(again.reason === c.reason && more.prompts.length === 1, "workflow-caps", `resumed with the cap raised by one step's worth, the run made ${more.prompts.length} runs and ended ${again.status}/${again.reason}: replay must count the journal's runs and usage ${WHERE}`);
    }
  });

  it("replay: every step started is a run, finished or not; a step done twice counts once", () => {
    const u = (tokens: number) => ({ tokens, costUsd: tokens / 10_000 });
    const events: JournalEvent[] = [
      { type: "run_started", workflow: "w" },
      { type: "step_started", step: "a" },
      { type: "step_done", step: "a", answer: "A first", usage: u(100) },
      { type: "step_started", step: "b" }, // killed: started, never done
      { type: "step_started", step: "a" },
      { type: "step_done", step: "a", answer: "A again", usage: u(50) },
    ];
    const p = runtime.replay(events);
    rule(p.runs === 3, "workflow-caps", `the journal holds 3 step_started lines (one of them killed before it was done); replay counted ${p.runs} runs: every start is a run, finished or not, so a resumed workflow cannot get past maxRuns by being killed ${WHERE}`);
    // Either answer may be kept (the first, or the last): its usage is counted once, and only its.
    const kept = p.done.get("a");
    const once = (kept?.answer === "A first" && p.used.tokens === 100) || (kept?.answer === "A again" && p.used.tokens === 50);
    rule(once && !p.done.has("b"), "workflow-resume", `step a is done twice in the journal (100 tokens, then 50): replay kept ${JSON.stringify(kept?.answer)} and counted ${p.used.tokens} tokens; keep one of its answers and count that one's usage once, and a step never done (b) is not done ${WHERE}`);
  });

  it("a cost or a token count exactly at its cap stops the workflow: a run starts only while what was spent is under the cap", async () => {
    const journal = await tempJournal();
    const f = fakeSteps(1, 0.25);
    const o = await runtime.runWorkflow(FOUR, { journal, runStep: f.runStep, caps: { maxCostUsd: 0.5 } });
    rule(o.status === "stopped" && o.reason === "max_cost" && f.prompts.length === 2, "workflow-caps", `each step costing $0.25 under maxCostUsd 0.5, the workflow ran ${f.prompts.length} steps and ended ${o.status}/${o.reason}; expected stopped/max_cost after 2: $0.50 spent is the cap reached, compare used.costUsd >= caps.maxCostUsd, not > ${WHERE}`);
    const tokens = fakeSteps(100, 0);
    const t = await runtime.runWorkflow(FOUR, { journal: await tempJournal(), runStep: tokens.runStep, caps: { maxTokens: 200 } });
    rule(t.status === "stopped" && t.reason === "max_tokens" && tokens.prompts.length === 2, "workflow-caps", `each step using 100 tokens under maxTokens 200, the workflow ran ${tokens.prompts.length} steps and ended ${t.status}/${t.reason}; expected stopped/max_tokens after 2: 200 tokens used is the cap reached, compare used.tokens >= caps.maxTokens, not > ${WHERE}`);
  });

  it("a stopped workflow says why in its outcome's detail: the cap and its value, the step an abort came before or during, the step that stopped and its reason", async () => {
    const named = (id: string) => ({ kind: "agent" as const, id, prompt: `Step ${id}: say something.` });
    const TWO: Workflow = { name: "two", steps: [named("first-look"), named("second-look")] };
    const caps = [
      { caps: { maxRuns: 3 }, value: "3", reason: "max_runs" },
      { caps: { maxTokens: 270 }, value: "270", reason: "max_tokens" },
      { caps: { maxCostUsd: 0.025 }, value: "0.025", reason: "max_cost" },
    ] as const;
    for (const c of caps) {
      const o = await runtime.runWorkflow(SIX, { journal: await tempJournal(), runStep: fakeSteps(100, 0.01).runStep, caps: c.caps });
      rule(o.reason === c.reason && (o.detail ?? "").includes(c.value), "workflow-outcome", `stopped by the cap ${JSON.stringify(c.caps)}, the outcome is ${o.reason} with the detail ${JSON.stringify(o.detail)}: the person reads that sentence, so name the cap's value (${c.value}) in the Stop's detail ${WHERE}`);
    }
    const stop = new AbortController();
    const abortAfter: RunStep = async (prompt) => (stop.abort(), { status: "done", answer: prompt, usage: { tokens: 1, costUsd: 0 } });
    const before = await runtime.runWorkflow(TWO, { journal: await tempJournal(), runStep: abortAfter, signal: stop.signal });
    rule(before.reason === "aborted" && (before.detail ?? "").includes("second-look"), "workflow-outcome", `aborted after step first-look finished, the outcome is ${before.reason} with the detail ${JSON.stringify(before.detail)}: name the step the abort came before (second-look) in the Stop's detail ${WHERE}`);
    const cut = new AbortController();
    const abortDuring: RunStep = async () => (cut.abort(), { status: "stopped", reason: "aborted", usage: { tokens: 1, costUsd: 0 } });
    const during = await runtime.runWorkflow(TWO, { journal: await tempJournal(), runStep: abortDuring, signal: cut.signal });
    rule(during.reason === "aborted" && (during.detail ?? "").includes("first-look"), "workflow-outcome", `aborted while step first-look ran, the outcome is ${during.reason} with the detail ${JSON.stringify(during.detail)}: name the step the abort cut short (first-look) in the Stop's detail ${WHERE}`);
    const guard = "max_turns: the turn limit of 7 is reached";
    const guarded: RunStep = async () => ({ status: "stopped", reason: guard, usage: { tokens: 1, costUsd: 0 } });
    const stopped = await runtime.runWorkflow(TWO, { journal: await tempJournal(), runStep: guarded });
    rule(stopped.reason === "step_stopped" && (stopped.detail ?? "").includes("first-look") && (stopped.detail ?? "").includes(guard), "workflow-outcome", `step first-look's run stopped (${guard}); the outcome is ${stopped.reason} with the detail ${JSON.stringify(stopped.detail)}: name the step and the reason its run gave (result.reason) in the Stop's detail ${WHERE}`);
  });

  it("property: over random token costs and budgets, the workflow runs exactly the steps started while under the budget", async () => {
    await assertProperty(
      fc.asyncProperty(fc.array(fc.integer({ min: 0, max: 50 }), { minLength: 4, maxLength: 4 }), fc.integer({ min: 0, max: 200 }), async (costs, maxTokens) => {
        const journal = await tempJournal();
        let i = 0;
        const runStep: RunStep = async (prompt) => ({ status: "done", answer: prompt, usage: { tokens: costs[i++]!, costUsd: 0 } });
        const o = await runtime.runWorkflow(FOUR, { journal, runStep, caps: { maxTokens } });
        let used = 0;
        let expected = 0;
        while (expected < 4 && used < maxTokens) used += costs[expected++]!;
        rule(i === expected && o.status === (expected === 4 ? "done" : "stopped"), "workflow-caps", `steps costing ${costs.join(", ")} tokens under maxTokens ${maxTokens}: ${i} ran, expected ${expected} (a run starts only while the tokens used are under the cap)`);
      }),
      { numRuns: 40 },
      "workflow-caps",
    );
  });

  it("a parallel step runs its steps at once, never more than its concurrency, and journals each that finished when a cap stops it", async () => {
    const journal = await tempJournal();
    const six: Workflow = { name: "six", steps: [{ kind: "parallel", concurrency: 3, steps: ["1", "2", "3", "4", "5", "6"].map(agent) }] };
    let inFlight = 0;
    let most = 0;
    const runStep: RunStep = async (prompt) => {
      most = Math.max(most, ++inFlight);
      // Yield to the event loop so every step already started is in flight together.
      for (let k = 0; k < 5; k++) await new Promise((r) => setImmediate(r));
      inFlight--;
      return { status: "done", answer: prompt, usage: { tokens: 1, costUsd: 0 } };
    };
    const o = await runtime.runWorkflow(six, { journal, runStep, caps: { maxRuns: 4 } });
    rule(most <= 3, "workflow-parallel", `a parallel step with concurrency 3 had ${most} steps in flight at once: run them through pool(steps, concurrency, …) ${WHERE}`);
    rule(most === 3, "workflow-parallel", `a parallel step with concurrency 3 never had more than ${most} in flight: start up to 3 at once, not one after the other`);
    rule(o.reason === "max_runs" && doneIn(await journalEvents(journal)).length === 4, "workflow-parallel", `capped at 4 runs, the parallel step ended ${o.status}/${o.reason} with ${doneIn(await journalEvents(journal)).length} step_done lines; expected max_runs and 4`);
  });

  it("property: resumed after a crash at a random point (an abort mid-step, or the journal torn at any byte), the answers are those of a run never interrupted", async () => {
    const whole = await realSteps();
    const clean = await runtime.runWorkflow(MIXED, { journal: whole.journal, runStep: whole.runStep });
    rule(clean.status === "done", "workflow-resume", `the uninterrupted run ended ${clean.status}/${clean.reason}`);
    const full = await readFile(whole.journal);
    const s = await realSteps();
    await mkdir(dirname(s.journal), { recursive: true });
    await assertProperty(
      fc.asyncProperty(fc.integer({ min: 1, max: ids(MIXED).length }), fc.integer({ min: 0, max: full.length }), async (abortAt, tearAt) => {
        // A crash mid-step: Ctrl-C as the abortAt-th run starts, then a resume.
        await writeFile(s.journal, "");
        const stop = new AbortController();
        let started = 0;
        const crashing: RunStep = (prompt, signal) => (++started === abortAt && stop.abort(), s.runStep(prompt, signal));
        await runtime.runWorkflow(MIXED, { journal: s.journal, runStep: crashing, signal: stop.signal });
        const resumed = await runtime.runWorkflow(MIXED, { journal: s.journal, runStep: s.runStep });
        rule(JSON.stringify(resumed.answers) === JSON.stringify(clean.answers) || sameAnswers(resumed.answers, clean.answers), "workflow-resume", `aborted as run ${abortAt} started, then resumed: the answers differ from an uninterrupted run's (${diff(resumed.answers, clean.answers)}) ${WHERE}`);
        // A crash mid-write: the uninterrupted journal cut at byte tearAt, then a resume.
        await writeFile(s.journal, full.subarray(0, tearAt));
        const kept = new Set(doneIn(parseJournal(full.subarray(0, tearAt).toString("utf8")).events));
        s.prompts.length = 0;
        const after = await runtime.runWorkflow(MIXED, { journal: s.journal, runStep: s.runStep });
        rule(sameAnswers(after.answers, clean.answers), "workflow-resume", `the journal torn at byte ${tearAt} of ${full.length}, then resumed: the answers differ (${diff(after.answers, clean.answers)}) ${WHERE}`);
        rule(s.prompts.length === ids(MIXED).length - kept.size, "workflow-resume", `the journal torn at byte ${tearAt} held ${kept.size} finished steps, but the resume ran ${s.prompts.length} of ${ids(MIXED).length}: run only the steps with no whole step_done line`);
      }),
      { numRuns: 8 },
      "workflow-resume",
    );
  });
});

const sameAnswers = (a: Record<string, string>, b: Record<string, string>) => Object.keys(b).length === Object.keys(a).length && Object.keys(b).every((k) => a[k] === b[k]);
const diff = (a: Record<string, string>, b: Record<string, string>) =>
  Object.keys(b)
    .filter((k) => a[k] !== b[k])
    .map((k) => `${k}: ${JSON.stringify(a[k])} instead of ${JSON.stringify(b[k])}`)
    .join("; ");

differentialNet("s26");
