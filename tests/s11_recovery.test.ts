/**
 * s11_recovery: the SDK's retries (configured by the lesson), the turn retried after a broken
 * stream, compaction that keeps every tool_use/tool_result pair whole (property-tested), and the
 * loop recovering from each fault with a transcript that can be sent again.
 */
import { existsSync, rmSync } from "node:fs";
import { join } from "node:path";
import { isDeepStrictEqual } from "node:util";
import Anthropic from "@anthropic-ai/sdk";
import fc from "fast-check";
import { describe, it } from "vitest";
import { ScriptedModel, type ScriptedModelOptions } from "../runtime/scripted/model.ts";
import { RuleError } from "../runtime/testing.ts";
import { checkTranscript } from "../runtime/transcript.ts";
import { assertProperty, blocksIn, driveLoop, expectSendable, expectTranscriptRules, loadLesson, resultsIn, rule, scripted, textIn } from "../runtime/testing.ts";
import { say as sayText, text as textBlock, thinking as thinkingBlock, call as callBlock } from "../runtime/scripted/scenarios/script.ts";
import type { Scenario } from "../runtime/scripted/types.ts";
import { scratchWorkspace } from "../runtime/tools/files.ts";
import { SafeToolRegistry } from "../solutions/s04_tool_errors/define-tool.ts";
import { clip, readUntilStopped } from "./support.ts";

/** A quoted piece of output, cut with an ellipsis when it is longer than `n`. */

type Recovery = typeof import("../solutions/s11_recovery/recovery.ts");
type Compact = typeof import("../solutions/s11_recovery/compact.ts");
const recovery = await loadLesson<Recovery>("s11_recovery", "recovery.ts");
const compaction = await loadLesson<Compact>("s11_recovery", "compact.ts");

/** A client configured with the lesson's retry settings, recording when each attempt was sent. */
function timedClient(options: ScriptedModelOptions) {
  const model = new ScriptedModel({ scenario: "echo", ...options });
  const sentAt: number[] = [];
  const client = new Anthropic({
    apiKey: "scripted-offline",
    baseURL: "http://scripted-model.localhost",
    fetch: (input: string | URL | Request, init?: RequestInit) => {
      sentAt.push(Date.now());
      return model.fetch(input, init);
    },
    ...recovery.RETRIES,
  });
  const ask = () => client.messages.create({ model: "scripted-model", max_tokens: 64, messages: [{ role: "user", content: "hi" }] });
  return { model, sentAt, ask };
}

describe("s11 the SDK's own retries, configured", () => {
  it("retries more than once, with a per-request timeout", () => {
    rule(recovery.RETRIES.maxRetries >= 2, "recovery", `RETRIES.maxRetries is ${recovery.RETRIES.maxRetries}: let the SDK retry 429/5xx at least twice.`);
    rule(recovery.RETRIES.timeout > 0, "recovery", `RETRIES.timeout is ${recovery.RETRIES.timeout}: give each request a timeout in ms.`);
  });

  it("retries a 429 after the time its retry-after header asks for", async () => {
    const { model, sentAt, ask } = timedClient({ faults: [{ kind: "rate_limit", retryAfterSeconds: 1 }] });
    const message = await ask();
    const kinds = model.exchanges.map((e) => e.fault?.kind ?? "ok");
    rule(message.stop_reason === "end_turn" && kinds.join(",") === "rate_limit,ok", "recovery", `a 429 with the lesson's RETRIES went [${kinds.join(", ")}]: the SDK retries it once it is configured with maxRetries.`);
    // A lower bound only: the SDK waited at least (about) the second the server asked for.
    rule(sentAt[1]! - sentAt[0]! >= 900, "recovery", `the retry of a 429 came ${sentAt[1]! - sentAt[0]!} ms after it, not after the second its retry-after header asked for: let the SDK's own retries honour it.`);
  });

  it("retries 529 overloaded and 500 with its own backoff", async () => {
    const { model, ask } = timedClient({ faults: [{ kind: "overloaded" }, { kind: "server_error" }] });
    await ask().catch(() => undefined);
    const kinds = model.exchanges.map((e) => e.fault?.kind ?? "ok");
    rule(kinds.join(",") === "overloaded,server_error,ok", "recovery", `a 529 then a 500 went [${kinds.join(", ")}]: with maxRetries of at least 2 the SDK retries both.`);
  });

  it("never retries a 400: prompt too long is the loop's problem, not the network's", async () => {
    const { model, ask } = timedClient({ faults: [{ kind: "prompt_too_long" }] });
    const error = await ask().catch((e: unknown) => e);
    rule(error instanceof Anthropic.BadRequestError && recovery.isPromptTooLong(error), "recovery", `isPromptTooLong did not recognise the API's 400 "prompt is too long" (${String((error as Error)?.message)}).`);
    rule(model.exchanges.length === 1, "recovery", `a 400 was sent ${model.exchanges.length} times: a refused request is never retried.`);
  });
});

describe("s11 a broken stream: the loop retries the turn", () => {
  const stream = (llm: ReturnType<typeof scripted>, signal?: AbortSignal) => () =>
    llm.client.messages.stream({ model: llm.model, max_tokens: 64, messages: [{ role: "user", content: "hi" }] }, signal ? { signal } : {}).finalMessage();

  for (const kind of ["stream_error", "stream_cut"] as const) {
    it(`sends the turn again after a ${kind} (which the SDK does not retry)`, async () => {
      const again = scripted({ scenario: "echo", faults: [{ kind, afterEvents: 4 }] }, { maxRetries: 2 });
      const retried: unknown[] = [];
      const got = await recovery.retryTurn(stream(again), { delayMs: 1, onRetry: (_, e) => void retried.push(e) }).then((m) => ({ m }), (e: unknown) => ({ e }));
      rule("m" in got && got.m.stop_reason === "end_turn", "recovery", () => `retryTurn gave up on a ${kind} (${"e" in got ? String((got.e as Error)?.message) : ""}): a stream that broke after it began is sent again.`);
      rule(again.scripted.exchanges.length === 2 && retried.length === 1, "recovery", `after one ${kind}, retryTurn sent ${again.scripted.exchanges.length} request(s) and called onRetry ${retried.length} time(s): once each.`);
      rule(recovery.isStreamBreak(retried[0]), "recovery", `isStreamBreak does not recognise a ${kind}: ${String((retried[0] as Error)?.message)}`);
    });
  }

  it("does not retry a request the API refused, nor one the user aborted", async () => {
    const refused = scripted({ scenario: "echo", faults: [{ kind: "prompt_too_long" }, { kind: "prompt_too_long" }, { kind: "prompt_too_long" }] });
    const r1 = await recovery.retryTurn(stream(refused), { delayMs: 1 }).then(() => undefined, (e: unknown) => e);
    rule(r1 instanceof Anthropic.BadRequestError && refused.scripted.exchanges.length === 1, "recovery", `retryTurn sent a request the API refused (400) ${refused.scripted.exchanges.length} times: only a stream that broke after it began is retried (isStreamBreak).`);

    const controller = new AbortController();
    const slow = scripted({ scenario: "echo", latencyMs: 60_000 });
    const pending = recovery.retryTurn(stream(slow, controller.signal), { delayMs: 1, signal: controller.signal });
    // Abort once the request is in flight (the model has it), not after a guessed delay.
    void (async () => {
      for (let waited = 0; slow.scripted.exchanges.length === 0 && waited < 30_000; waited += 5) await new Promise((r) => setTimeout(r, 5));
      controller.abort();
    })();
    const r2 = await pending.then(() => undefined, (e: unknown) => e);
    rule(r2 instanceof Anthropic.APIUserAbortError && slow.scripted.exchanges.length === 1, "recovery", `an aborted request was ${slow.scripted.exchanges.length > 1 ? `sent again (${slow.scripted.exchanges.length} times)` : `not reported as aborted (${String((r2 as Error)?.message)})`}: an abort is never retried.`);
  });

  it("gives up after its retries, with the stream's own error", async () => {
    // The stream breaks 6 times, then works: a retryTurn with no limit would get through.
    const llm = scripted({ scenario: "echo", faults: (i) => (i < 6 ? { kind: "stream_cut", afterEvents: 3 } : null) });
    const r = await recovery.retryTurn(stream(llm), { retries: 2, delayMs: 1 }).then(() => "resolved", (e: unknown) => e);
    rule(r !== "resolved" && llm.scripted.exchanges.length === 3, "recovery", `with retries: 2, a stream that kept breaking was sent ${llm.scripted.exchanges.length} times: give up after the first try and 2 retries, with the stream's own error.`);
  });
});

// ---- compaction ------------------------------------------------------------------------------

type Message = Anthropic.MessageParam;

/** A random valid transcript: questions, tool rounds (1–3 calls each), answers. */
const transcriptArb = fc
  .array(
    fc.record({
      question: fc.string({ minLength: 1, maxLength: 40 }).map((s) => `q ${s}`),
      rounds: fc.array(fc.array(fc.record({ name: fc.constantFrom("read_file", "bash", "list_files"), out: fc.string({ maxLength: 400 }), err: fc.boolean() }), { minLength: 1, maxLength: 3 }), { maxLength: 3 }),
      answer: fc.option(fc.string({ minLength: 1, maxLength: 200 }).map((s) => `a ${s}`), { nil: undefined }),
    }),
    { minLength: 1, maxLength: 6 },
  )
  .map((turns) => {
    const messages: Message[] = [];
    let id = 0;
    const user = (content: Message["content"]) => {
      const last = messages[messages.length - 1];
      if (last?.role === "user") {
        const blocks = typeof last.content === "string" ? [{ type: "text" as const, text: last.content }] : last.content;
        last.content = [...blocks, ...(typeof content === "string" ? [{ type: "text" as const, text: content }] : content)];
      } else messages.push({ role: "user", content });
    };
    for (const t of turns) {
      user(t.question);
      for (const round of t.rounds) {
        const calls = round.map((c) => ({ type: "tool_use" as const, id: `toolu_${id++}`, name: c.name, input: { n: id } }));
        messages.push({ role: "assistant", content: [{ type: "text", text: "working" }, ...calls] });
        user(calls.map((c, i) => ({ type: "tool_result" as const, tool_use_id: c.id, content: round[i]!.out.trim() || "(empty)", ...(round[i]!.err ? { is_error: true } : {}) })));
      }
      if (t.answer) messages.push({ role: "assistant", content: [{ type: "text", text: t.answer }] });
    }
    return messages;
  });

function pairs(messages: readonly Message[]): { uses: string[]; results: string[] } {
  const uses: string[] = [];
  const results: string[] = [];
  for (const m of messages)
    if (typeof m.content !== "string")
      for (const b of m.content) {
        if (b.type === "tool_use") uses.push(b.id);
        if (b.type === "tool_result") results.push(b.tool_use_id);
      }
  return { uses, results };
}

describe("s11 compaction keeps every tool_use/tool_result pair whole", () => {
  it("cutPoints: only before an assistant message, and every such place after the first turn", () => {
    const m = (role: "user" | "assistant", i: number): Anthropic.MessageParam => ({ role, content: `message ${i}` });
    const history = [m("user", 0), m("assistant", 1), m("user", 2), m("assistant", 3), m("user", 4), m("assistant", 5), m("user", 6)];
    const points = compaction.cutPoints(history);
    const wrong = points.filter((k) => history[k]?.role !== "assistant");
    rule(wrong.length === 0, "recovery", `cutPoints of [user, assistant, user, assistant, user, assistant, user] gave ${JSON.stringify(points)}: ${JSON.stringify(wrong)} ${wrong.length === 1 ? "is not the index of an assistant message" : "are not indices of assistant messages"}. Cut only where an assistant message begins what is kept: a user message there would follow the summary, another user message, and may be results whose calls were cut away.`);
    rule([3, 5].every((k) => points.includes(k)), "recovery", `cutPoints of [user, assistant, user, assistant, user, assistant, user] gave ${JSON.stringify(points)}, without ${JSON.stringify([3, 5].filter((k) => !points.includes(k)))}: every assistant message after the first turn is a place to cut, so compaction can drop as much as it needs.`);
    // The TODO: "Skip k < 2: nothing worth dropping." Cutting at 1 would summarise the task alone.
    rule(!points.includes(1), "recovery", `cutPoints of [user, assistant, user, assistant, user, assistant, user] gave ${JSON.stringify(points)}, with 1: the first answer is never a cut point (skip k < 2): before it there is only the task, nothing worth dropping.`);
  });

  it("property: any valid transcript, any target: the result keeps every rule and the newest turn", () => {
    assertProperty(
      fc.property(transcriptArb, fc.integer({ min: 1, max: 3_000 }), (messages, target) => {
        expectTranscriptRules(messages);
        const before = structuredClone(messages);
        const result = compaction.compact(messages, { targetTokens: target });
        rule(isDeepStrictEqual(messages, before), "recovery", "compact() changed the history it was given: build a new array (compactInPlace replaces the old one).");
        if (!result) return;
        const problems = checkTranscript(result.messages);
        if (problems.length > 0) throw new RuleError(problems[0]!.rule as never, `the compacted history breaks a rule: ${problems[0]!.message} Cut only before an assistant message, and make the summary the first user message.`);
        // Pairs whole: every kept call has its result and every kept result its call.
        const { uses, results } = pairs(result.messages);
        rule(JSON.stringify([...results].sort()) === JSON.stringify([...uses].sort()), "orphan-result", `the compacted history keeps the calls [${uses.join(", ")}] and the results [${results.join(", ")}]: cut only where no tool_use is parted from its tool_result (before an assistant message).`);
        // The newest assistant turn survives word for word (results may be clipped, calls never).
        const lastAssistant = [...messages].reverse().find((m) => m.role === "assistant");
        if (lastAssistant) rule(result.messages.some((m) => isDeepStrictEqual(m, lastAssistant)), lastAssistant && JSON.stringify(lastAssistant).includes('"thinking"') ? "not-verbatim" : "recovery", "the compacted history lost or changed the newest assistant turn: keep the recent turns word for word.");
        rule(result.messages.length <= messages.length, "recovery", `compaction made the history longer (${messages.length} → ${result.messages.length} messages).`);
      }),
      { numRuns: 300 },
      "recovery",
    );
  });

  it("drops the oldest turns first and says so in a summary that keeps the task", () => {
    const messages: Message[] = [{ role: "user", content: "the original task" }];
    for (let i = 0; i < 6; i++) {
      messages.push({ role: "assistant", content: [{ type: "tool_use", id: `toolu_${i}`, name: "read_file", input: { path: `f${i}` } }] });
      messages.push({ role: "user", content: [{ type: "tool_result", tool_use_id: `toolu_${i}`, content: "x".repeat(2_000) }] });
    }
    const full = compaction.estimateMessages(messages);
    const result = compaction.compact(messages, { targetTokens: Math.floor(full / 2) });
    rule(result !== null && result.dropped > 0, "recovery", "compact() dropped nothing from a history twice the target: replace the oldest turns with a summary.");
    rule(compaction.estimateMessages(result.messages) <= Math.floor(full / 2), "recovery", `the compacted history is ${compaction.estimateMessages(result.messages)} tokens, over the target ${Math.floor(full / 2)}.`);
    const first = result.messages[0]!;
    rule(first.role === "user", "first-message-user", `the compacted history starts with a ${first.role} message: the summary is the new first USER message.`);
    rule(JSON.stringify(first.content).includes("the original task"), "recovery", "the summary lost the original task: say what the user asked.");
    rule(isDeepStrictEqual(result.messages.slice(1), messages.slice(messages.length - (result.messages.length - 1))), "recovery", "the messages kept after the summary are not the newest ones, word for word.");
  });

  it("clips a result too large for the window, the newest one too, and keeps its call and id", () => {
    const messages: Message[] = [
      { role: "user", content: "the original task" },
      { role: "assistant", content: [{ type: "text", text: "Reading it." }, { type: "tool_use", id: "toolu_big", name: "read_file", input: { path: "huge.log" } }] },
      { role: "user", content: [{ type: "tool_result", tool_use_id: "toolu_big", content: "y".repeat(400_000) }] },
    ];
    const target = Math.floor(compaction.estimateMessages(messages) / 10);
    const result = compaction.compact(messages, { targetTokens: target });
    rule(result !== null && result.clipped > 0, "recovery", `compact() of a history whose newest tool result alone is ten times the target ${result ? `clipped ${result.clipped} results` : "returned null"}: clip the results that are too long, the newest one too, or the next request is refused again.`);
    rule(compaction.estimateMessages(result.messages) <= target, "recovery", `the compacted history is ${compaction.estimateMessages(result.messages)} tokens, over the target ${target}.`);
    const { uses, results } = pairs(result.messages);
    rule(uses.includes("toolu_big") && results.includes("toolu_big"), "orphan-result", `clipping lost the call or the result of toolu_big (calls [${uses.join(", ")}], results [${results.join(", ")}]): clip the result's text, keep the block and its tool_use_id.`);
  });

  it("returns null when there is nothing to drop or clip", () => {
    rule(compaction.compact([{ role: "user", content: "hi" }], { targetTokens: 1 }) === null, "recovery", "compact() of a history with nothing to drop or clip must return null (it could not shrink).");
  });
});

// ---- the loop ----------------------------------------------------------------------------------

type Agent = typeof import("../solutions/s11_recovery/agent.ts");
const agent = await loadLesson<Agent>("s11_recovery");

/** An earlier conversation with big tool results: something for compaction to drop. */
function longHistory(turns = 6, size = 3_000): Message[] {
  const messages: Message[] = [{ role: "user", content: "Look at the files one by one." }];
  for (let i = 0; i < turns; i++) {
    messages.push({ role: "assistant", content: [{ type: "text", text: `Reading f${i}.` }, { type: "tool_use", id: `toolu_old${i}`, name: "read_file", input: { path: `f${i}.txt` } }] });
    messages.push({ role: "user", content: [{ type: "tool_result", tool_use_id: `toolu_old${i}`, content: `${i}`.repeat(size) }] });
  }
  messages.push({ role: "assistant", content: [{ type: "text", text: "I have read them all." }] });
  return messages;
}

const answerOf = (h: Message[]) => textOfMessage(h[h.length - 1]!);

/**
 * The loop on a history it may compact: the pairing rules and "sent again" decide (driveLoop's
 * check that every answered response is still in the history does not hold once turns were
 * compacted away on purpose).
 */
async function driveCompacting(llm: ReturnType<typeof scripted>, history: Message[], opts: Parameters<Agent["runAgent"]>[2] = {}) {
  let outcome: Awaited<ReturnType<Agent["runAgent"]>>;
  try {
    outcome = await agent.runAgent(llm, history, opts);
  } catch (e) {
    expectTranscriptRules(history, { responses: llm.scripted.responses });
    throw new RuleError("recovery", `the loop threw instead of recovering: ${String((e as Error)?.message ?? e)}. A history that does not fit is compacted (every pair whole) and the turn sent again.`);
  }
  await expectSendable(llm, history);
  return outcome;
}

/** The loop through driveLoop (its verdict in words), and how many requests the loop itself sent. */
async function drive(llm: ReturnType<typeof scripted>, history: Message[], opts: Parameters<Agent["runAgent"]>[2] = {}) {
  let sent = 0;
  const outcome = await driveLoop(llm, history, async () => {
    const o = await agent.runAgent(llm, history, opts);
    sent = llm.scripted.exchanges.length;
    return o;
  });
  return { outcome, sent };
}
function callsOf(m: Message): unknown[] {
  return blocksIn(m.content).filter((b) => b.type === "tool_use");
}
function textOfMessage(m: Message): string {
  return blocksIn(m.content).map((b) => (b.type === "text" ? String(b.text) : "")).join("");
}

describe("s11 the loop recovers", () => {
  it("a stream broken mid-way: the same turn is sent again, nothing is duplicated", async () => {
    const clean = scripted({ scenario: "s11_recovery" });
    const cleanHistory: Message[] = [{ role: "user", content: "read package.json" }];
    await agent.runAgent(clean, cleanHistory);

    const llm = scripted({ scenario: "s11_recovery", faults: [{ kind: "stream_cut", afterEvents: 5 }, { kind: "stream_error", afterEvents: 4 }] });
    const history: Message[] = [{ role: "user", content: "read package.json" }];
    const { outcome, sent } = await drive(llm, history);
    rule(outcome.status === "done", "recovery", `after two broken streams the run ended ${JSON.stringify(outcome)}: send the same turn again (retryTurn) and finish.`);
    rule(sent === clean.scripted.exchanges.length + 2, "recovery", `two broken streams took ${sent} requests, a clean run ${clean.scripted.exchanges.length}: each break costs one more request of the same turn, no more.`);
    rule(JSON.stringify(history.map((m) => m.role)) === JSON.stringify(cleanHistory.map((m) => m.role)), "recovery", `the recovered run's history has the roles [${history.map((m) => m.role).join(", ")}], a clean run's [${cleanHistory.map((m) => m.role).join(", ")}]: nothing of a broken stream is appended.`);
  });

  it("the options reach the loop: recovery.streamRetries 0 means a broken stream is not sent again; stop sequences reach the request", async () => {
    const llm = scripted({ scenario: "s11_recovery", faults: [{ kind: "stream_cut", afterEvents: 5 }] });
    const history: Message[] = [{ role: "user", content: "read package.json" }];
    let threw = false;
    try {
      await agent.runAgent(llm, history, { recovery: { streamRetries: 0 }, stopSequences: ["###"] });
    } catch {
      threw = true;
    }
    rule(llm.scripted.exchanges.length === 1 && threw, "recovery", `with recovery.streamRetries 0 a broken stream led to ${llm.scripted.exchanges.length} request(s) and the run ${threw ? "threw" : "did not throw"}: pass the run's limits to retryTurn (retries: recovery.limits.streamRetries), so 0 means no retry and the break is the caller's.`);
    const sent = llm.scripted.exchanges[0]?.request as { stop_sequences?: string[] } | undefined;
    rule(JSON.stringify(sent?.stop_sequences) === JSON.stringify(["###"]), "lesson-rule", `runAgent was given stopSequences ["###"] and its request sent stop_sequences ${JSON.stringify(sent?.stop_sequences)}: pass opts.stopSequences on.`);
  });

  it("only \"prompt is too long\" is answered by compaction: another error is not, and a long history that fits is never compacted", async () => {
    const failing = scripted({ scenario: "s11_recovery", faults: () => ({ kind: "server_error" }) });
    const history: Message[] = [...longHistory(), { role: "user", content: "read package.json" }];
    const before = JSON.stringify(history);
    let outcome: unknown;
    try {
      outcome = await agent.runAgent(failing, history, { guards: { maxTurns: 5 } });
    } catch {
      outcome = "threw";
    }
    rule(JSON.stringify(history) === before, "recovery", `a 500 from the API (not "prompt is too long") compacted the history and the run ended ${JSON.stringify(outcome)}: only isPromptTooLong(e) is answered by compaction; any other error goes on to the caller (the SDK already retried it).`);
    const fits = scripted({ scenario: "s11_recovery" });
    const long: Message[] = [...longHistory(), { role: "user", content: "read package.json" }];
    await driveCompacting(fits, long);
    rule(JSON.stringify(long).includes("toolu_old0") && !/compacted/.test(JSON.stringify(long[0]!.content)), "recovery", "a history that fits the context window was compacted though every response ended normally: compact only after \"prompt is too long\" or a model_context_window_exceeded stop.");
  });

  it("prompt too long: compacts the history (pairs whole) and finishes the task", async () => {
    const history: Message[] = [...longHistory(), { role: "user", content: "read package.json" }];
    const llm = scripted({ scenario: "s11_recovery", contextWindow: 4_000 });
    const outcome = await driveCompacting(llm, history);
    rule(outcome.status === "done", "recovery", `"prompt is too long" ended the run ${JSON.stringify(outcome)}: compact the history and send the turn again.`);
    rule(/compacted/.test(JSON.stringify(history[0]!.content)) && !JSON.stringify(history).includes("toolu_old0"), "recovery", "after \"prompt is too long\" the history was not compacted: replace the oldest turns with a summary (the first user message) and keep the recent ones.");
    rule(answerOf(history).includes("read_file returned"), "recovery", `after compaction the task was not finished: ${JSON.stringify(clip(answerOf(history), 160))}`);
  });

  it("prompt too long with many old turns: compacted to the window the error names, not one turn at a time", async () => {
    const history: Message[] = [...longHistory(14), { role: "user", content: "read package.json" }];
    const llm = scripted({ scenario: "s11_recovery", contextWindow: 4_000 });
    const outcome = await agent.runAgent(llm, history).catch((e: unknown) => {
      expectTranscriptRules(history, { responses: llm.scripted.responses });
      throw new RuleError("recovery", `the loop threw instead of recovering: ${String((e as Error)?.message ?? e)}. A history that does not fit is compacted (every pair whole) and the turn sent again.`);
    });
    const refused = llm.scripted.exchanges.filter((e) => e.error && /prompt is too long/.test(e.error.message)).length;
    rule(outcome.status === "done", "recovery", `a history far over the window (14 old turns) ended the run ${JSON.stringify(outcome)} after ${refused} "prompt is too long" answers: compact to the window the error names (windowOf(e)), so one compaction makes it fit.`);
    await expectSendable(llm, history);
  });

  it("model_context_window_exceeded: compacts and asks again instead of stopping", async () => {
    const full: import("../runtime/scripted/types.ts").Scenario = {
      id: "test-window",
      title: "the window is full while the history is long",
      reply: (ctx) =>
        ctx.messages.length > 6
          ? { content: [{ type: "text", text: "I ran out of" }], stop_reason: "model_context_window_exceeded" }
          : { content: [{ type: "text", text: `Short enough now: ${ctx.messages.length} messages.` }] },
    };
    const history: Message[] = [...longHistory(), { role: "user", content: "and now?" }];
    const llm = scripted({ scenario: full });
    const outcome = await driveCompacting(llm, history);
    rule(outcome.status === "done" && /Short enough now/.test(answerOf(history)) && history.length <= 6, "recovery", `stop_reason model_context_window_exceeded ended the run ${JSON.stringify(outcome)} with ${history.length} messages: compact the history and ask again, without appending the cut-off answer.`);
  });

  it("when even compaction cannot make it fit: stops with prompt_too_long, transcript sendable", async () => {
    const llm = scripted({ scenario: "s11_recovery", faults: () => ({ kind: "prompt_too_long" }) });
    const history: Message[] = [{ role: "user", content: "read package.json" }];
    const outcome = await agent.runAgent(llm, history).catch((e: unknown) => {
      throw new RuleError("recovery", `when compaction cannot make the history fit, the loop threw (${String((e as Error)?.message ?? e)}): stop with the outcome prompt_too_long instead.`);
    });
    rule(outcome.status === "stopped" && outcome.reason === "prompt_too_long", "recovery", `when even compaction cannot make it fit, the run ended ${JSON.stringify(outcome)}: stop with reason "prompt_too_long" (a limited number of compactions).`);
    rule(outcome.status === "stopped" && /\S{3,}/.test(outcome.detail), "typed-outcome", `the prompt_too_long stop says ${JSON.stringify(outcome.status === "stopped" ? outcome.detail : "")}: its detail tells the person what happened and what to do (start a new conversation).`);
    expectTranscriptRules(history);
  });

  it("max_tokens in the middle of the answer: the model continues it, nothing lost or repeated", async () => {
    const whole = scripted({ scenario: "s11_recovery" });
    const wholeHistory: Message[] = [{ role: "user", content: "Read README.md and package.json, then describe this project in detail." }];
    await agent.runAgent(whole, wholeHistory);

    const llm = scripted({ scenario: "s11_recovery" });
    const history: Message[] = [{ role: "user", content: "Read README.md and package.json, then describe this project in detail." }];
    const { outcome } = await drive(llm, history, { maxTokens: agent.S11_MAX_TOKENS });
    rule(outcome.status === "done", "continuation", `an answer cut off by max_tokens ended the run ${JSON.stringify(outcome)}: ask the model to continue it.`);
    // The continuation may be a string or text blocks, in any words: a user message, not results, right after the cut-off text.
    const continued = history.filter((m, i) => i > 0 && m.role === "user" && resultsIn(m).length === 0 && history[i - 1]?.role === "assistant" && callsOf(history[i - 1]!).length === 0);
    rule(continued.length >= 1, "continuation", "no user message asked the model to continue the cut-off answer: append the cut response, then a user message asking to continue.");
    rule(recovery.answerSince(history, 0) === answerOf(wholeHistory), "continuation", `the continued answer is not the whole answer, nothing lost or repeated: ${JSON.stringify(clip(recovery.answerSince(history, 0), 160))}`);
  });

  it("max_tokens inside a tool call: the cut-off call is not kept unanswered; the turn is asked again", async () => {
    let cut = false;
    const scenarioCut: Scenario = {
      id: "test-cut-call",
      title: "the first answer is cut off inside a tool call",
      reply: (ctx) => {
        if (ctx.step === 0 && !cut) {
          cut = true;
          return { content: [textBlock("I'll read it."), callBlock("read_file", { path: "README.md" })], stop_reason: "max_tokens" };
        }
        return ctx.step === 0 ? { content: [textBlock("I'll read it."), callBlock("read_file", { path: "README.md" })] } : sayText("Read it.");
      },
    };
    const llm = scripted({ scenario: scenarioCut });
    const history: Message[] = [{ role: "user", content: "read the readme" }];
    // driveLoop: a cut-off tool_use kept in the history without its result fails as unanswered-tool-use.
    const { outcome } = await drive(llm, history);
    rule(outcome.status === "done", "recovery", `an answer cut off inside a tool call ended the run ${JSON.stringify(outcome)}: ask again (with a larger max_tokens), keeping nothing of the cut-off answer.`);
  });

  it("an answer that is cut off every time: continued only as often as the limit allows, then stopped", async () => {
    const cut: Scenario = { id: "test-always-cut", title: "every answer is cut off", reply: () => ({ content: [textBlock("and then, and then, and then")], stop_reason: "max_tokens" }) };
    const llm = scripted({ scenario: cut, maxRequests: 40 });
    const history: Message[] = [{ role: "user", content: "tell me everything" }];
    const { outcome, sent } = await drive(llm, history, { recovery: { continuations: 2 }, guards: { maxTurns: 10 } });
    // The answer, 2 continuations, and at most one more try (a larger max_tokens) before it stops.
    rule(sent >= 3 && sent <= 4, "continuation", `with recovery.continuations 2, an answer cut off every time took ${sent} requests, not 3 (the answer and 2 continuations): count the continuations and stop at the limit.`);
    rule(outcome.status === "stopped", "continuation", `after the last continuation was cut off too, the run ended ${JSON.stringify(outcome)}: a cut-off answer is not success.`);
  });

  it("compacting a history with thinking keeps each kept thinking block and its signature as it came", async () => {
    // Four turns with thinking and a call, then the window is full once; after compaction, one more turn and the answer.
    const full: Scenario = {
      id: "test-window-thinking",
      title: "thinking turns, then a full window",
      reply: (ctx) => {
        const compacted = /compacted/.test(JSON.stringify(ctx.messages[0]));
        const calls = ctx.messages.filter((m) => m.role === "assistant").length;
        if (!compacted && calls >= 4) return { content: [textBlock("I ran out of")], stop_reason: "model_context_window_exceeded" };
        if (!compacted || calls < 4) return { content: [thinkingBlock(`Turn ${calls}: look at the next file.`), textBlock(`Looking at file ${calls}.`), callBlock("read_file", { path: `missing-${calls}-${compacted ? "b" : "a"}.txt` })] };
        if (!/Turn 99/.test(JSON.stringify(ctx.messages))) return { content: [thinkingBlock("Turn 99: one more after compaction."), textBlock("One more."), callBlock("read_file", { path: "missing-last.txt" })] };
        return sayText("Done looking.");
      },
    };
    const llm = scripted({ scenario: full, maxRequests: 20 });
    const history: Message[] = [{ role: "user", content: "look at the files" }];
    const outcome = await driveCompacting(llm, history);
    rule(/compacted/.test(JSON.stringify(history[0])), "recovery", "the context window filled up and the history was not compacted: on model_context_window_exceeded, compact and ask again.");
    rule(outcome.status === "done", "recovery", `after compaction the run ended ${JSON.stringify(outcome)}, not done.`);
  });
});

/**
 * s11's loop is the one every later lesson runs (s12 imports the reference s11): its every stop is
 * graded here, on the learner's own loop, not only where a later lesson reaches it.
 */
describe("s11 the loop's own tools, and the calls started early", () => {
  it("with no registry given, its tools work in opts.root and ask opts.approve", async () => {
    const root = await scratchWorkspace({ "README.md": "a scratch workspace\n" });
    const made = "made-by-the-loop.txt";
    const touching: Scenario = { id: "test-s11-touch", title: "runs one command", reply: (ctx) => (ctx.step === 0 ? { content: [callBlock("bash", { command: `touch ${made}` })] } : sayText("Done.")) };
    const asked: string[] = [];
    const approve = async (req: { command: string }) => (asked.push(req.command), { approved: true });
    try {
      const llm = scripted({ scenario: touching });
      const history: Message[] = [{ role: "user", content: "make the file" }];
      await drive(llm, history, { root, approve: approve as never });
      rule(asked.length > 0, "approval", `\`touch ${made}\` ran through runAgent's own tools without asking the approver it was given (opts.approve): build the default tools with approve: opts.approve (terminalApprover() only when none is given).`);
      rule(existsSync(join(root, made)), "workspace", `\`touch ${made}\` was approved, and ${made} is not in opts.root (${root}): build the default tools with workspace: the run's root.`);
    } finally {
      rmSync(join(process.cwd(), made), { force: true });
    }
  });

  /** The read spy (tests/support.ts), its log lines marked with the requests sent so far. */
  const spyRead = (llm: { scripted: { exchanges: unknown[] } }, log: string[]) => readUntilStopped(log, () => ` @${llm.scripted.exchanges.length}`);

  it("a turn that does not end with tool_use: the call started early is stopped before runAgent returns", async () => {
    const log: string[] = [];
    const refusing: Scenario = {
      id: "test-s11-refusal-after-call",
      title: "a call, then a refusal",
      reply: () => ({ content: [callBlock("read", { n: 1 }), textBlock("Words after the call, still streaming for a while.")], stop_reason: "refusal", stop_details: { type: "refusal" as const, category: null, explanation: "test refusal" } }),
    };
    const llm = scripted({ scenario: refusing, streamDelayMs: 2 });
    const history: Message[] = [{ role: "user", content: "go" }];
    await agent.runAgent(llm, history, { registry: new SafeToolRegistry([spyRead(llm, log)]) });
    const atReturn = [...log];
    if (atReturn.some((l) => l.startsWith("start read 1")))
      rule(atReturn.some((l) => l.startsWith("end read 1")), "tools-only-on-tool-use", `the read-only call started early while the answer streamed, and was still running when runAgent returned after a refusal (${atReturn.join(" | ")}): a turn that does not end with tool_use runs none of its calls; stop the early ones and await them (EarlyStart.settle) before going on.`);
    await expectSendable(llm, history);
  });

  it("a stream that breaks after a call started early: that call is stopped before the turn is sent again", async () => {
    const log: string[] = [];
    const once: Scenario = {
      id: "test-s11-call-then-break",
      title: "a call, then more words",
      reply: (ctx) => (ctx.step === 0 ? { content: [callBlock("read", { n: 1 }), textBlock("Words after the call, still streaming for a while.")] } : sayText("Done.")),
    };
    // Cut after the call's block has stopped (start, ping, block start, its input, block stop, the text's start).
    const llm = scripted({ scenario: once, streamDelayMs: 2, faults: [{ kind: "stream_cut", afterEvents: 6 }] });
    const history: Message[] = [{ role: "user", content: "go" }];
    const { outcome } = await drive(llm, history, { registry: new SafeToolRegistry([spyRead(llm, log)]) });
    rule(outcome.status === "done", "recovery", `a stream broken after its first call ended the run ${JSON.stringify(outcome.status)}: send the turn again and finish.`);
    const first = log.find((l) => l.startsWith("start read 1 @1"));
    if (first)
      rule(log.some((l) => l === "end read 1 @1"), "recovery", `the call read 1 started early in the stream that broke, and was still running when the turn was sent again (${log.join(" | ")}): before sending the turn again, stop that attempt's early calls (settle) and start the next attempt with a fresh EarlyStart.`);
  });
});

describe("s11 every stop of this loop leaves a transcript that can be sent again", () => {
  const reading: Scenario = {
    id: "test-s11-read-again",
    title: "the same read, turn after turn",
    reply: () => ({ content: [thinkingBlock("Once more, to be sure."), textBlock("Reading it again."), callBlock("read_file", { path: "package.json" })] }),
  };

  it("a repeated call: stops with repeated_call, the repeated call answered (not run), sendable", async () => {
    const llm = scripted({ scenario: reading });
    const history: Message[] = [{ role: "user", content: "read it again and again" }];
    // Not through driveLoop: the rule this stop breaks (a repeated call left open) leads, before the pairing rule it implies.
    const outcome = await agent.runAgent(llm, history, { guards: { maxTurns: 30 } });
    rule(outcome.status === "stopped" && outcome.reason === "repeated_call", "guard-repeat", `the same read_file call came turn after turn and the run ended with ${JSON.stringify(outcome.status === "stopped" ? outcome.reason : outcome.status)}: s11's loop keeps s06's guards and stops with "repeated_call".`);
    const last = [...history].reverse().find((m) => m.role === "assistant");
    const lastCall = last ? (callsOf(last)[0] as { id: string } | undefined) : undefined;
    const answered = lastCall && history.some((m) => resultsIn(m).some((r) => r.tool_use_id === lastCall.id && r.is_error === true));
    rule(answered, "repeat-answered", "the run stopped on a repeated call and left that call without an is_error tool_result: answer it (not run) before you return.");
    const said = history.flatMap((m) => resultsIn(m)).filter((r) => r.tool_use_id === lastCall?.id).map((r) => textIn(r.content)).join(" ");
    rule(/repeat|same input|again|more than \d+ times/i.test(said), "repeat-answered", () => `the repeated call was answered ${JSON.stringify(clip(said, 160))}: say it was not run because the run stopped on a repeated call (the guard's detail), so the transcript tells why.`);
    await expectSendable(llm, history);
  });

  for (const [label, guards, id] of [
    ["max_turns", { maxTurns: 1 }, "guard-max-turns"],
    ["token_budget", { tokenBudget: 10 }, "guard-budget"],
  ] as const)
    it(`the ${label} guard, reached by a turn that asks for tools: its calls answered, stopped, sendable`, async () => {
      const llm = scripted({ scenario: reading });
      const history: Message[] = [{ role: "user", content: "read package.json" }];
      const { outcome } = await drive(llm, history, { guards });
      rule(outcome.status === "stopped" && outcome.reason === label, id, `with guards ${JSON.stringify(guards)} s11's loop ended with ${JSON.stringify(outcome.status === "stopped" ? outcome.reason : outcome.status)}, not "${label}".`);
      await expectSendable(llm, history);
    });
});

// The net under the rules: this lesson beside the reference, on its own task and on generated
// model answers (tests/differential/net.ts).
import { differentialNet } from "./differential/net.ts";
differentialNet("s11");
