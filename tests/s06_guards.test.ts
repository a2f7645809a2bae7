/**
 * s06_guards: each guard stops the run, and every way of stopping leaves a transcript the API
 * takes again. Grades lessons/ or solutions/ (COURSE_TREE). After each kind of stop the test
 * sends the transcript to the scripted model (expectSendable): an unanswered tool_use, an
 * empty message or a broken pair fails with the API's own error.
 */
import Anthropic from "@anthropic-ai/sdk";
import fc from "fast-check";
import { describe, it } from "vitest";
import { z } from "zod";
import { call, say, steps, text } from "../runtime/scripted/scenarios/script.ts";
import { S06_TASK, S06_WORKSPACE } from "../runtime/scripted/scenarios/s06_guards.ts";
import type { FaultPlan, Scenario } from "../runtime/scripted/types.ts";
import { RuleError, assertProperty, errorText, expectSendable, loadLesson, resultsIn, rule, scripted } from "../runtime/testing.ts";
import { ManualClock } from "../runtime/clock.ts";
import { brief, quietLessonFile, show, withTranscript } from "./support.ts";
import { scratchWorkspace } from "../runtime/tools/files.ts";
import type { ToolContext } from "../solutions/s02_tool_dispatch/registry.ts";
import { SafeToolRegistry, defineTool } from "../solutions/s04_tool_errors/define-tool.ts";
import { checkedTools } from "../solutions/s04_tool_errors/tools.ts";

type Agent = typeof import("../solutions/s06_guards/agent.ts");
type GuardsModule = typeof import("../solutions/s06_guards/guards.ts");
const lesson = await loadLesson<Agent>("s06_guards");
const { DEFAULT_GUARDS, callKey, tokensOf } = await loadLesson<GuardsModule>("s06_guards", "guards.ts");

const keep = quietLessonFile();

async function workspace() {
  const root = await scratchWorkspace(S06_WORKSPACE);
  keep(root);
  return root;
}

/** s04's checked tools, plus `wait` (waits on the test's clock until its signal stops it), recording every call dispatched. */
class Recording extends SafeToolRegistry {
  readonly dispatched: Anthropic.ToolUseBlock[] = [];
  constructor(clock: ManualClock) {
    super([
      ...checkedTools(),
      defineTool({
        name: "find",
        description: "Finds files under a path; nested options.",
        input: z.object({ path: z.string(), opts: z.object({ depth: z.number() }).optional() }),
        readOnly: true,
        run: ({ path, opts }) => `nothing under ${path} at depth ${opts?.depth ?? 0}`,
      }),
      defineTool({
        name: "wait",
        description: "Waits until stopped.",
        input: z.object({}),
        timeoutMs: 60_000,
        run: async (_input, ctx) => {
          await clock.sleep(Number.POSITIVE_INFINITY, ctx.signal);
          throw new Error("stopped");
        },
      }),
    ]);
  }
  override dispatch(c: Anthropic.ToolUseBlock, ctx?: ToolContext) {
    this.dispatched.push(c);
    return super.dispatch(c, ctx);
  }
}

type Options = NonNullable<Parameters<Agent["runAgent"]>[2]>;
type Outcome = Awaited<ReturnType<Agent["runAgent"]>>;
const LOOP = "(runAgent in lessons/s06_guards/agent.ts)";
const GUARDS = "(RunGuards in lessons/s06_guards/guards.ts)";

/**
 * Runs the lesson's loop on the test's own clock (a ManualClock, given to the loop as opts.clock and
 * to the scripted model for its latencies), then sends the transcript again: it must be accepted,
 * whatever the stop. The clock moves only while the run waits on it (the model taking its time, a
 * tool waiting), straight to the next thing due: a verdict about a time limit is read on that clock
 * (`took`: when the run returned), so it is the same on an idle machine and a busy one.
 * `within` (ms on the test's clock): the run must have returned by then (a deadline that does not
 * abort what is in flight fails as guard-timeout, not as a test that hangs).
 */
async function run(opts: { scenario?: Scenario; faults?: FaultPlan; history?: Anthropic.MessageParam[]; run?: Options; llm?: ReturnType<typeof scripted>; clock?: ManualClock; within?: number } = {}) {
  const clock = opts.clock ?? new ManualClock();
  const llm = opts.llm ?? scripted({ ...(opts.scenario ? { scenario: opts.scenario } : { scenario: "s06_guards" }), ...(opts.faults ? { faults: opts.faults } : {}), clock });
  const registry = new Recording(clock);
  const history = opts.history ?? [{ role: "user", content: S06_TASK }];
  const root = await workspace();
  const deadline = opts.run?.guards?.timeoutMs;
  let result: { outcome: Outcome; took: number } | "late";
  try {
    result = await onClock(clock, lesson.runAgent(llm, history, { registry, root, clock, ...opts.run }), opts.within ?? Number.POSITIVE_INFINITY);
  } catch (e) {
    if (e instanceof Anthropic.APIUserAbortError || (e instanceof Error && e.name === "AbortError"))
      throw new RuleError("guard-timeout", `runAgent threw "${errorText(e)}" when the run's signal aborted the request in flight: catch it and return guard.halted(), the timeout (or aborted) outcome ${LOOP}.`);
    throw new RuleError("loop-threw", `runAgent threw: ${errorText(e)} ${LOOP}.`);
  }
  rule(
    deadline === undefined || clock.deadlines > 0,
    "guard-timeout",
    `the run was given a deadline of ${deadline} ms and a clock (opts.clock), and made no deadline on that clock: keep new RunGuards(opts.guards, opts.signal, opts.clock), so the deadline runs on the clock the run is given ${LOOP}.`,
  );
  rule(
    result !== "late",
    "guard-timeout",
    `the run had not returned ${(opts.within ?? 0) / 1000} s after it began (on the test's clock), though ${deadline ? `its deadline was ${deadline} ms` : "its caller had aborted it"}: give the request in flight the run's signal (create(…, { signal: guard.signal })) and the tools ctx.signal, so the deadline stops them ${LOOP}.`,
  );
  const { outcome, took } = result;
  const responses = [...llm.scripted.responses];
  const requests = llm.scripted.exchanges.length;
  await expectSendable(llm, history);
  const sent = llm.scripted.exchanges.map((e) => e.request as { max_tokens?: number; stop_sequences?: string[] });
  return { outcome, took, history, registry, responses, requests, sent };
}

/**
 * Waits for `pending`, moving `clock` to the next thing due each time the run waits on it, never
 * past `limit`. Returns the outcome and the clock's time when it came, or "late". No verdict here
 * reads the machine's time: a slow machine takes longer to get to the same answer.
 */
async function onClock<T>(clock: ManualClock, pending: Promise<T>, limit: number): Promise<{ outcome: T; took: number } | "late"> {
  const settled = pending.then(
    (outcome) => ({ outcome }),
    (error: unknown) => ({ error }),
  );
  for (;;) {
    const next = await Promise.race([settled, clock.blocked().then(() => "blocked" as const)]);
    if (next !== "blocked") {
      if ("error" in next) throw next.error;
      return { outcome: next.outcome, took: clock.now() };
    }
    if ((clock.next ?? Number.POSITIVE_INFINITY) > limit) return "late";
    clock.advance();
    // Let what the timers set off run before asking again whether the run waits.
    await new Promise((resolve) => setImmediate(resolve));
  }
}

const reason = (o: { status: string; reason?: string }) => (o.status === "stopped" ? o.reason : "done");
const tokens = (u: Anthropic.Usage) => u.input_tokens + u.output_tokens + (u.cache_read_input_tokens ?? 0) + (u.cache_creation_input_tokens ?? 0);

describe("s06 guards: each one stops the run, and the transcript can be sent again", () => {
  it("has a typed default for every guard", () => {
    for (const k of ["maxTurns", "tokenBudget", "timeoutMs", "maxRepeats"] as const)
      rule(DEFAULT_GUARDS[k] > 0, "lesson-rule", `DEFAULT_GUARDS.${k} is ${show(DEFAULT_GUARDS[k])}: every guard has a default above 0.`);
  });

  it("max_turns: makes no request past the limit", async () => {
    const { outcome, requests, history } = await run({ run: { guards: { maxTurns: 2 } } });
    rule(requests === 2, "guard-max-turns", `with maxTurns 2 the loop made ${requests} request(s): stop before a request once guard.turns has reached maxTurns (this.turns >= maxTurns) ${GUARDS}.`);
    rule(reason(outcome) === "max_turns" && outcome.turns === 2, "guard-max-turns", `with maxTurns 2 the run ended ${show(reason(outcome))} after ${outcome.turns} turn(s): stop with "max_turns" after 2.`);
    rule(history.at(-1)?.role === "user", "unanswered-tool-use", `the stopped run's history ends with a ${history.at(-1)?.role} message: stop before a request, when the last turn's calls are answered.`);
  });

  it("repeated_call: the same call with its keys in another order counts as the same; the last is answered, not run", async () => {
    const { outcome, registry, history } = await run();
    const polls = registry.dispatched.filter((c) => c.name === "list_files");
    rule(reason(outcome) === "repeated_call", "guard-repeat", `the model polled list_files with the same input (its keys in another order each turn) and the run ended ${show(reason(outcome))}: the same tool with the same input, whatever the key order, is a repeat (callKey sorts the keys at every depth).`);
    rule(polls.length === DEFAULT_GUARDS.maxRepeats, "guard-repeat", `list_files ran ${polls.length} times with the same input (its keys in another order every other turn); maxRepeats is ${DEFAULT_GUARDS.maxRepeats}: the same call runs maxRepeats times, and the one after that stops the run. Key order does not make a call new (callKey sorts the keys).`);
    const last = resultsIn(history.at(-1))[0];
    rule(last?.is_error === true, "repeat-answered", `the repeated call is answered ${show(last)}: answer it with is_error: true, not run (answerNotRun), before you return.`);
  });

  it("repeated_call in a turn of several calls: every call of that turn is answered, not run", async () => {
    const scenario: Scenario = { id: "test-repeat-with-another", title: "polls, and reads something new each turn", reply: (ctx) => ({ content: [text("Checking again."), call("list_files", { path: ".", pattern: "dist/ready.txt" }), call("find", { path: `src${ctx.step}` })] }) };
    const { outcome, history } = await run({ scenario });
    rule(reason(outcome) === "repeated_call", "guard-repeat", `the model polled list_files with the same input every turn and the run ended ${show(reason(outcome))}: stop with "repeated_call".`);
    const lastCalls = (history.at(-2)?.content as Anthropic.ContentBlockParam[]).filter((b) => b.type === "tool_use") as Anthropic.ToolUseBlockParam[];
    const answered = resultsIn(history.at(-1));
    const missing = lastCalls.filter((c) => !answered.some((r) => r.tool_use_id === c.id));
    rule(missing.length === 0, "unanswered-tool-use", `the turn that repeated asked for ${lastCalls.map((c) => `${c.name} (${c.id})`).join(" and ")}, and ${missing.map((c) => c.name).join(", ")} got no result: answer EVERY call of that turn as not run (answerNotRun), not only the repeated one.`);
    const asRun = answered.filter((r) => r.is_error !== true);
    rule(asRun.length === 0, "repeat-answered", `the calls of the turn that repeated were answered ${asRun.map((r) => brief(r)).join("; ")}: none of them ran, so each is answered is_error: true with the reason (answerNotRun).`);
  });

  it("repeated_call through the loop: the same tool with DIFFERENT inputs is not a repeat; identical ones are", async () => {
    const n = DEFAULT_GUARDS.maxRepeats + 2;
    const scenario: Scenario = {
      id: "test-different-inputs",
      title: "one tool, a different input each turn (only a nested field differs), then an answer",
      reply: steps(...Array.from({ length: n }, (_, i) => () => ({ content: [text(`Looking ${i} deep.`), call("find", { path: ".", opts: { depth: i } })] })), () => say("Looked everywhere.")),
    };
    const { outcome, registry } = await run({ scenario, run: { guards: { maxTurns: n + 5 } } });
    rule(
      reason(outcome) === "done",
      "guard-repeat",
      `find was called ${n} times, each with a different input ({ path: ".", opts: { depth: 0 } }, then depth 1, …), and the loop stopped with "${reason(outcome)}": a repeat is the same tool AND the same input, nested fields included. Key the calls by name and the whole input (callKey), not by name alone.`,
    );
    const ran = registry.dispatched.filter((c) => c.name === "find").length;
    rule(ran === n, "guard-repeat", `find ran ${ran} of ${n} times: calls with different inputs all run.`);

    const same: Scenario = {
      id: "test-same-input",
      title: "one tool, the same input each turn",
      reply: steps(...Array.from({ length: n }, () => () => ({ content: [text("Again."), call("list_files", { path: "dir0" })] })), () => say("Done.")),
    };
    const again = await run({ scenario: same, run: { guards: { maxTurns: n + 5 } } });
    rule(reason(again.outcome) === "repeated_call", "guard-repeat", `the same list_files call came ${n} times and the loop stopped with "${reason(again.outcome)}": identical calls past maxRepeats (${DEFAULT_GUARDS.maxRepeats}) stop the run with "repeated_call".`);
  });

  it("keeps the defaults of the guards it is not given", async () => {
    const { outcome } = await run({ run: { guards: { maxTurns: 20 } } });
    rule(reason(outcome) === "repeated_call", "guard-repeat", `given only maxTurns, the polling run ended ${show(reason(outcome))}: the other guards keep their defaults ({ ...DEFAULT_GUARDS, ...guards }), so maxRepeats still stops it.`);
  });

  it("timeout: aborts the request in flight and stops (the model would take 60 s)", async () => {
    const { outcome, took, history, requests } = await run({ faults: [null, { kind: "latency", ms: 60_000 }], run: { guards: { timeoutMs: 300 } }, within: 120_000 });
    rule(reason(outcome) === "timeout", "guard-timeout", `the deadline (300 ms) came during the second request and the run ended ${show(reason(outcome))}: return guard.halted() when the aborted request throws ${LOOP}.`);
    rule(took <= 300, "guard-timeout", `the deadline (300 ms) came during the second request (the model would take 60 s) and the run returned after ${(took / 1000).toFixed(1)} s: give the request in flight the run's signal (create(…, { signal: guard.signal })), so the deadline aborts it ${LOOP}.`);
    rule(requests === 2, "guard-timeout", `the loop made ${requests} request(s); the second was under way when the deadline came, and nothing after it.`);
    const roles = history.map((m) => m.role).join(", ");
    rule(roles === "user, assistant, user", "abort-leaves-transcript", `after the aborted request the history is [${roles}]: an aborted request adds nothing, so it stays [user, assistant, user].`);
  });

  it("timeout: the deadline is the whole run's, not each request's", async () => {
    // The first request takes 2.7 s of a 3 s run; the second would take 60 s. The run's deadline
    // stops it at 3 s; a limit given to each request afresh would let the second run 3 s more
    // (5.7 s in all). Both are read on the test's clock: exactly, whatever the machine's load.
    const { outcome, took } = await run({ faults: [{ kind: "latency", ms: 2_700 }, { kind: "latency", ms: 60_000 }], run: { guards: { timeoutMs: 3_000 } }, within: 120_000 });
    rule(reason(outcome) === "timeout", "guard-timeout", `the run's deadline (3 s) came during its second request and the run ended ${show(reason(outcome))}: return guard.halted() when the aborted request throws ${LOOP}.`);
    rule(
      took <= 3_000,
      "guard-timeout",
      `the run had a deadline of 3 s and returned after ${(took / 1000).toFixed(1)} s (on the test's clock: its first request took 2.7 s, its second would take 60 s): the deadline is the whole run's (one signal from runSignal, made when the run starts, given to every request and tool), not a fresh limit for each request ${LOOP}.`,
    );
  });

  it("timeout: stops a tool that is running, and its call is still answered", async () => {
    const scenario: Scenario = { id: "test-wait", title: "waits", reply: () => ({ content: [text("Waiting."), call("wait", {})] }) };
    const { outcome, took, history } = await run({ scenario, run: { guards: { timeoutMs: 300 } }, within: 120_000 });
    rule(reason(outcome) === "timeout", "guard-timeout", `the deadline (300 ms) came while a tool ran and the run ended ${show(reason(outcome))}: the tools get the run's signal (ctx.signal), and the next check stops the run with "timeout".`);
    rule(took <= 300, "guard-timeout", `the deadline (300 ms) came while a tool ran and the run returned after ${(took / 1000).toFixed(1)} s: give the tools the run's signal (ctx.signal), so the deadline stops them ${LOOP}.`);
    const results = resultsIn(history.at(-1));
    rule(results.length === 1 && results[0]!.is_error === true, "unanswered-tool-use", `the stopped tool's call is answered ${show(results)}: it is answered is_error (the tool was stopped) before the run returns.`);
  });

  it("aborted: the caller's signal stops the run", async () => {
    // The caller aborts 1 s into the run (on the test's clock), while the model takes 60 s to answer.
    const clock = new ManualClock();
    const llm = scripted({ scenario: "s06_guards", faults: [{ kind: "latency", ms: 60_000 }], clock });
    const pending = run({ llm, clock, run: { signal: clock.timeout(1_000) }, within: 30_000 });
    const { outcome, history } = await pending;
    rule(reason(outcome) === "aborted", "guard-timeout", `the caller's signal aborted the run and it ended ${show(reason(outcome))}: report "aborted" when the caller's signal fired, "timeout" only for the deadline (runSignal's why()).`);
    rule(history.length === 1, "abort-leaves-transcript", `the run was aborted during its first request and left ${history.length} messages: nothing is added for an aborted request.`);
  });

  /** A first message marked for caching: most of every request's input is cache tokens. */
  const cachedHistory = (): Anthropic.MessageParam[] => [
    {
      role: "user",
      content: [{ type: "text", text: `Background for the task:\n${"The build writes dist/ready.txt when it is done. ".repeat(400)}`, cache_control: { type: "ephemeral" } }, { type: "text", text: S06_TASK }],
    },
  ];

  it("token_budget: counts input, output, cache reads and cache writes of every turn", async () => {
    const first = await run({ history: cachedHistory(), run: { guards: { maxTurns: 1 } } });
    const u = first.responses[0]!.usage;
    const cached = (u.cache_creation_input_tokens ?? 0) + (u.cache_read_input_tokens ?? 0);
    const setup = `(a check of this test itself, not of your loop) the scripted model reports cache and output tokens (${show(u)})`;
    if (!(cached > 2_000 && u.output_tokens >= 2)) throw new Error(setup);
    // Just under what the first turn cost, all four fields together: leaving any field out keeps
    // the count under the budget, and the run would go on.
    const budget = tokens(u) - 1;
    const { outcome } = await run({ history: cachedHistory(), run: { guards: { tokenBudget: budget, maxRepeats: 50, maxTurns: 5 } } });
    rule(
      reason(outcome) === "token_budget" && outcome.turns === 1,
      "guard-budget",
      `the first turn cost ${tokens(u)} tokens (input ${u.input_tokens}, output ${u.output_tokens}, cache read ${u.cache_read_input_tokens ?? 0}, cache creation ${u.cache_creation_input_tokens ?? 0}) against a budget of ${budget}, and the run ended ${show(reason(outcome))} after ${outcome.turns} turn(s): add all four fields (tokensOf) and stop with "token_budget" before the next request.`,
    );
  });

  it("token_budget: adds up every turn, not only the last", async () => {
    const two = await run({ history: cachedHistory(), run: { guards: { maxTurns: 2, maxRepeats: 50 } } });
    const [u1, u2] = two.responses.map((r) => tokens(r.usage)) as [number, number];
    // Over the two turns together, under each turn alone.
    const budget = u1 + u2 - 1;
    const { outcome } = await run({ history: cachedHistory(), run: { guards: { tokenBudget: budget, maxRepeats: 50, maxTurns: 6 } } });
    rule(
      reason(outcome) === "token_budget" && outcome.turns === 2,
      "guard-budget",
      `two turns cost ${u1} + ${u2} tokens against a budget of ${budget}, and the run ended ${show(reason(outcome))} after ${outcome.turns} turn(s): the budget counts the whole run (this.used += tokensOf(…)), so it stops after turn 2.`,
    );
  });

  it("token_budget: a run that has spent exactly its budget makes no more requests", async () => {
    const one = await run({ history: cachedHistory(), run: { guards: { maxTurns: 1 } } });
    const budget = tokens(one.responses[0]!.usage);
    const { outcome, requests } = await run({ history: cachedHistory(), run: { guards: { tokenBudget: budget, maxRepeats: 50, maxTurns: 5 } } });
    rule(
      requests === 1 && reason(outcome) === "token_budget",
      "guard-budget",
      `the first turn cost ${budget} tokens, exactly the budget of ${budget}, and the loop made ${requests} request(s) and ended ${show(reason(outcome))}: a budget is spent once it is reached (this.used >= tokenBudget), not only once it is passed; stop with "token_budget" before the next request ${GUARDS}.`,
    );
  });

  it("the deadline comes first: a run whose deadline passed on its last allowed turn stops with timeout, not max_turns", async () => {
    const scenario: Scenario = { id: "test-wait", title: "waits", reply: () => ({ content: [text("Waiting."), call("wait", {})] }) };
    const { outcome } = await run({ scenario, run: { guards: { timeoutMs: 300, maxTurns: 1 } }, within: 120_000 });
    rule(
      reason(outcome) === "timeout",
      "guard-timeout",
      `the run's one allowed turn ran a tool that the deadline (300 ms) stopped, and the run ended ${show(reason(outcome))}: check the deadline (and the caller's abort) before the turns and the budget, so the outcome names the reason the run really ended ${GUARDS}.`,
    );
  });

  it("token_budget and max_turns count a response cut off by max_tokens, though it is asked again", async () => {
    const long: Scenario = { id: "test-long-answer", title: "an answer longer than a small max_tokens", reply: () => say(`Here is the whole story. ${"A long sentence of the answer. ".repeat(60)}`) };
    const probe = await run({ scenario: long, run: { maxTokens: 40, guards: { maxTurns: 1 } } });
    const cut = probe.responses[0]!;
    if (cut.stop_reason !== "max_tokens") throw new Error(`(a check of this test itself, not of your loop) the scripted model's first answer should be cut off, and it ended ${cut.stop_reason}`);
    rule(probe.requests === 1 && reason(probe.outcome) === "max_turns", "guard-max-turns", `with maxTurns 1 the first response (cut off by max_tokens) was followed by ${probe.requests - 1} more request(s), and the run ended ${show(reason(probe.outcome))}: a cut-off response is a turn too; count it (guard.count) before you ask again.`);
    const budget = tokens(cut.usage) - 1;
    const { outcome, requests } = await run({ scenario: long, run: { maxTokens: 40, guards: { tokenBudget: budget, maxTurns: 5 } } });
    rule(
      requests === 1 && reason(outcome) === "token_budget",
      "guard-budget",
      `the first response was cut off by max_tokens and cost ${tokens(cut.usage)} tokens against a budget of ${budget}; the loop then made ${requests - 1} more request(s) and ended ${show(reason(outcome))}: every response counts against the budget, one that is asked again included (guard.count right after create).`,
    );
  });

  it("tokensOf adds input, output, cache read and cache creation (null counts as 0)", () => {
    const usage = { input_tokens: 10, output_tokens: 20, cache_read_input_tokens: 300, cache_creation_input_tokens: 4000 } as Anthropic.Usage;
    rule(tokensOf(usage) === 4330, "guard-budget", `tokensOf({ input 10, output 20, cache read 300, cache creation 4000 }) is ${show(tokensOf(usage))}: add all four, 4330 (lessons/s06_guards/guards.ts).`);
    const nulls = tokensOf({ ...usage, cache_read_input_tokens: null, cache_creation_input_tokens: null });
    rule(nulls === 30, "guard-budget", `tokensOf with null cache fields is ${show(nulls)}: count null as 0 (?? 0), 30.`);
  });

  it("the model's own stops still end the run as in s05", async () => {
    const scenario: Scenario = { id: "test-done", title: "answers", reply: () => say("Nothing to wait for.") };
    const { outcome } = await run({ scenario });
    rule(outcome.status === "done", "typed-outcome", `the model answered with end_turn and the run ended ${show(reason(outcome))}: with no guard reached, the run is done.`);
  });
});

describe("s06 every stop says why, and the loop it guards is still s05's", () => {
  it("each guard's stop carries a detail that names its limit, and the last response", async () => {
    const turns = await run({ run: { guards: { maxTurns: 2 } } });
    const o = turns.outcome as { reason?: string; detail?: string; message?: Anthropic.Message };
    rule(/\b2 turns\b/.test(o.detail ?? ""), "typed-outcome", `a run stopped by maxTurns 2 says ${show(o.detail)}: the detail is one sentence for a person, naming the limit ("reached the limit of 2 turns") ${GUARDS}.`);
    rule(o.message !== undefined && o.message.id === turns.responses.at(-1)?.id, "typed-outcome", `a run stopped by a guard should carry its last response as outcome.message (s05's Stopped), and it carries ${show(o.message?.id)}: guard.stop(…) adds the last response counted.`);
    const repeated = await run();
    const r = repeated.outcome as { detail?: string };
    rule(/list_files/.test(r.detail ?? "") && new RegExp(`\\b${DEFAULT_GUARDS.maxRepeats}\\b`).test(r.detail ?? ""), "typed-outcome", `a run stopped for a repeated call says ${show(r.detail)}: name the tool and the limit (maxRepeats ${DEFAULT_GUARDS.maxRepeats}).`);
    const notRun = resultsIn(repeated.history.at(-1))[0];
    const said = typeof notRun?.content === "string" ? notRun.content : JSON.stringify(notRun?.content ?? "");
    rule(said.includes(r.detail ?? "\u0000"), "repeat-answered", `the repeated call's is_error result says ${show(said)}: tell the model why it was not run, with the stop's detail (answerNotRun(history, response, \`the run stopped: \${repeated.detail}\`)).`);
    const timeout = await run({ run: { guards: { timeoutMs: 300 } }, faults: [null, { kind: "latency", ms: 60_000 }], within: 120_000 });
    const t = timeout.outcome as { reason?: string; detail?: string };
    const clock = new ManualClock();
    const aborted = await run({ llm: scripted({ scenario: "s06_guards", faults: [{ kind: "latency", ms: 60_000 }], clock }), clock, run: { signal: clock.timeout(1_000) }, within: 30_000 });
    const a = aborted.outcome as { reason?: string; detail?: string };
    rule(a.reason === "aborted" && /cancel/i.test(a.detail ?? ""), "typed-outcome", `a run its caller aborted says ${show(a)}: the detail says the run was cancelled by its caller, not that it timed out ${GUARDS}.`);
    const budget = await run({ run: { guards: { tokenBudget: 500, maxRepeats: 50 } } });
    const b = budget.outcome as { reason?: string; detail?: string };
    rule(b.reason === "token_budget" && /\b500\b/.test(b.detail ?? ""), "typed-outcome", `a run stopped by a budget of 500 tokens says ${show(b)}: the detail names what was spent and the budget ${GUARDS}.`);
    rule(t.reason === "timeout" && /\b0\.3 s\b/.test(t.detail ?? ""), "typed-outcome", `a run stopped by its 300 ms deadline says ${show(t)}: the detail names the time limit in seconds ("0.3 s") ${GUARDS}.`);
  });

  it("the options s05's loop had still reach each request: stop sequences; max_tokens asked again once, four times larger", async () => {
    const sent = (await run({ run: { stopSequences: ["###"], guards: { maxTurns: 1 } } })).sent[0];
    rule(JSON.stringify(sent?.stop_sequences) === JSON.stringify(["###"]), "lesson-rule", `runAgent was given stopSequences ["###"] and its request sent stop_sequences ${show(sent?.stop_sequences)}: pass opts.stopSequences on, as s05's loop does.`);
    const long: Scenario = { id: "test-long-answer", title: "an answer longer than any small max_tokens", reply: () => say(`Here is the whole story. ${"A long sentence of the answer. ".repeat(200)}`) };
    const cut = await run({ scenario: long, run: { maxTokens: 40, guards: { maxTurns: 5 } } });
    const asked = cut.sent.map((r) => r.max_tokens);
    rule(asked[1] === 160, "max-tokens-retry", `an answer cut off at max_tokens 40 was asked again with max_tokens ${show(asked[1])}: ask again once with four times the limit (160), as s05 does.`);
    rule(cut.requests === 2, "max-tokens-retry", `an answer cut off by max_tokens every time was asked for ${cut.requests} time(s): ask again once, with a larger limit, then stop (s05).`);
  });
});

describe("s06 callKey: same name and input, whatever the key order", () => {
  it("ignores key order at any depth, and tells different inputs apart", () => {
    const a = callKey({ name: "list_files", input: { path: ".", opts: { deep: true, max: 3 } } });
    const b = callKey({ name: "list_files", input: { opts: { max: 3, deep: true }, path: "." } });
    rule(a === b, "guard-repeat", `callKey gives ${show(a)} and ${show(b)} for the same input with its keys in another order (nested too): sort the keys at every depth.`);
    const pairs: Array<[Anthropic.ToolUseBlock["input"], Anthropic.ToolUseBlock["input"], string, string]> = [
      [{ path: "src" }, { path: "." }, "list_files", "list_files"],
      [{ path: "." }, { path: "." }, "read_file", "list_files"],
      [{ path: ".", opts: { deep: true } }, { path: ".", opts: { deep: false } }, "list_files", "list_files"],
      [{ path: ".", opts: { deep: true } }, { path: ".", opts: { max: 3 } }, "list_files", "list_files"],
      [{ paths: ["a", "b"] }, { paths: ["b", "a"] }, "list_files", "list_files"],
    ];
    for (const [x, y, nx, ny] of pairs) {
      const [kx, ky] = [callKey({ name: nx, input: x }), callKey({ name: ny, input: y })];
      rule(kx !== ky, "guard-repeat", `callKey gives the same key ${show(kx)} to ${nx}(${show(x)}) and ${ny}(${show(y)}): different calls need different keys (the name, and every field at every depth; arrays keep their order).`);
    }
  });

  it("property: any object, its keys shuffled, gives the same key", () => {
    const shuffle = (v: unknown, seed: number): unknown => {
      if (Array.isArray(v)) return v.map((x) => shuffle(x, seed));
      if (v && typeof v === "object") {
        const entries = Object.entries(v).map(([k, x]) => [k, shuffle(x, seed)] as const);
        const rotated = entries.map((_, i) => entries[(i + seed) % entries.length]!);
        return Object.fromEntries(seed % 2 ? rotated.reverse() : rotated);
      }
      return v;
    };
    assertProperty(
      fc.property(fc.dictionary(fc.string(), fc.jsonValue()), fc.nat(10), (input, seed) => {
        const [k1, k2] = [callKey({ name: "t", input: shuffle(input, seed) }), callKey({ name: "t", input })];
        rule(k1 === k2, "guard-repeat", `callKey gives ${show(k1)} and ${show(k2)} for one input with its keys in another order: sort the keys at every depth.`);
      }),
      {},
      "guard-repeat",
    );
  });
});

describe("s06 property: whatever the guards and the model do, every stop leaves a sendable transcript", () => {
  it("holds for random guards and random turns", async () => {
    const turn = fc.constantFrom("poll", "two", "answer", "empty", "refuse");
    await assertProperty(
      fc.asyncProperty(
        fc.record({ maxTurns: fc.integer({ min: 1, max: 5 }), maxRepeats: fc.integer({ min: 1, max: 3 }), tokenBudget: fc.integer({ min: 300, max: 4_000 }) }),
        fc.array(turn, { minLength: 1, maxLength: 6 }),
        async (guards, script) => {
          const scenario: Scenario = {
            id: "test-random-guards",
            title: "random",
            reply: (ctx) => {
              switch (script[Math.min(ctx.requestIndex, script.length - 1)]) {
                case "poll":
                  return { content: [call("list_files", { path: ".", pattern: "x" })] };
                case "two":
                  return { content: [text("Two."), call("read_file", { path: "README.md" }), call("list_files", { pattern: "x", path: "." })] };
                case "empty":
                  return { content: [], stop_reason: "end_turn" };
                case "refuse":
                  return { content: [call("list_files", {})], stop_reason: "refusal" };
                default:
                  return say("Done.");
              }
            },
          };
          const history: Anthropic.MessageParam[] = [{ role: "user", content: S06_TASK }];
          await withTranscript(history, async () => {
            const { outcome, requests } = await run({ scenario, history, run: { guards } });
            rule(outcome.turns <= guards.maxTurns && requests <= guards.maxTurns, "guard-max-turns", `with maxTurns ${guards.maxTurns} the run made ${requests} request(s) (${outcome.turns} turns): no request past the limit.`);
          });
        },
      ),
      { numRuns: 30 },
      "sendable-again",
    );
  });
});

// The net under the rules: this lesson beside the reference, on its own task and on generated
// model answers (tests/differential/net.ts).
import { differentialNet } from "./differential/net.ts";
differentialNet("s06");
