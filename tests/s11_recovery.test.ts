/**
 * s11_recovery: the SDK's retries (configured by the lesson), the turn retried after a broken
 * stream, compaction that keeps every tool_use/tool_result pair whole (property-tested), and the
 * loop recovering from each fault with a transcript that can be sent again.
 */
import Anthropic from "@anthropic-ai/sdk";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { ScriptedModel, type ScriptedModelOptions } from "../runtime/scripted/model.ts";
import { checkTranscript, formatViolations } from "../runtime/transcript.ts";
import { loadLesson, scripted , expectSendable , expectTranscriptRules , textIn , resultsIn , blocksIn , assertProperty } from "../runtime/testing.ts";

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
    expect(recovery.RETRIES.maxRetries).toBeGreaterThanOrEqual(2);
    expect(recovery.RETRIES.timeout).toBeGreaterThan(0);
  });

  it("retries a 429 after the time its retry-after header asks for", async () => {
    const { model, sentAt, ask } = timedClient({ faults: [{ kind: "rate_limit", retryAfterSeconds: 1 }] });
    const message = await ask();
    expect(message.stop_reason).toBe("end_turn");
    expect(model.exchanges.map((e) => e.fault?.kind ?? "ok")).toEqual(["rate_limit", "ok"]);
    // A lower bound only: the SDK waited at least (about) the second the server asked for.
    expect(sentAt[1]! - sentAt[0]!).toBeGreaterThanOrEqual(900);
  });

  it("retries 529 overloaded and 500 with its own backoff", async () => {
    const { model, ask } = timedClient({ faults: [{ kind: "overloaded" }, { kind: "server_error" }] });
    await ask();
    expect(model.exchanges.map((e) => e.fault?.kind ?? "ok")).toEqual(["overloaded", "server_error", "ok"]);
  });

  it("never retries a 400: prompt too long is the loop's problem, not the network's", async () => {
    const { model, ask } = timedClient({ faults: [{ kind: "prompt_too_long" }] });
    const error = await ask().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(Anthropic.BadRequestError);
    expect(recovery.isPromptTooLong(error)).toBe(true);
    expect(model.exchanges).toHaveLength(1);
  });
});

describe("s11 a broken stream: the loop retries the turn", () => {
  const stream = (llm: ReturnType<typeof scripted>, signal?: AbortSignal) => () =>
    llm.client.messages.stream({ model: llm.model, max_tokens: 64, messages: [{ role: "user", content: "hi" }] }, signal ? { signal } : {}).finalMessage();

  for (const kind of ["stream_error", "stream_cut"] as const) {
    it(`sends the turn again after a ${kind} (which the SDK does not retry)`, async () => {
      const llm = scripted({ scenario: "echo", faults: [{ kind, afterEvents: 4 }] }, { maxRetries: 2 });
      // The SDK alone gives up: the response had begun.
      await expect(stream(llm)()).rejects.toBeDefined();
      const again = scripted({ scenario: "echo", faults: [{ kind, afterEvents: 4 }] }, { maxRetries: 2 });
      const retried: unknown[] = [];
      const message = await recovery.retryTurn(stream(again), { delayMs: 1, onRetry: (_, e) => void retried.push(e) });
      expect(message.stop_reason).toBe("end_turn");
      expect(again.scripted.exchanges).toHaveLength(2);
      expect(retried).toHaveLength(1);
      expect(recovery.isStreamBreak(retried[0])).toBe(true);
    });
  }

  it("does not retry a request the API refused, nor one the user aborted", async () => {
    const refused = scripted({ scenario: "echo", faults: [{ kind: "prompt_too_long" }] });
    await expect(recovery.retryTurn(stream(refused), { delayMs: 1 })).rejects.toBeInstanceOf(Anthropic.BadRequestError);
    expect(refused.scripted.exchanges).toHaveLength(1);

    const controller = new AbortController();
    const slow = scripted({ scenario: "echo", latencyMs: 60_000 });
    const pending = recovery.retryTurn(stream(slow, controller.signal), { delayMs: 1, signal: controller.signal });
    // Abort once the request is in flight (the model has it), not after a guessed delay.
    void (async () => {
      for (let waited = 0; slow.scripted.exchanges.length === 0 && waited < 30_000; waited += 5) await new Promise((r) => setTimeout(r, 5));
      controller.abort();
    })();
    await expect(pending).rejects.toBeInstanceOf(Anthropic.APIUserAbortError);
    expect(slow.scripted.exchanges).toHaveLength(1);
  });

  it("gives up after its retries, with the stream's own error", async () => {
    const llm = scripted({ scenario: "echo", faults: () => ({ kind: "stream_cut", afterEvents: 3 }) });
    await expect(recovery.retryTurn(stream(llm), { retries: 2, delayMs: 1 })).rejects.toBeDefined();
    expect(llm.scripted.exchanges).toHaveLength(3);
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
  it("property: any valid transcript, any target: the result keeps every rule and the newest turn", () => {
    assertProperty(
      fc.property(transcriptArb, fc.integer({ min: 1, max: 3_000 }), (messages, target) => {
        expectTranscriptRules(messages);
        const before = structuredClone(messages);
        const result = compaction.compact(messages, { targetTokens: target });
        expect(messages).toEqual(before); // the input is not changed
        if (!result) return;
        const problems = checkTranscript(result.messages);
        if (problems.length > 0) throw new Error(formatViolations(problems));
        // Pairs whole: every kept call has its result and every kept result its call.
        const { uses, results } = pairs(result.messages);
        expect([...results].sort()).toEqual([...uses].sort());
        // The newest assistant turn survives word for word (results may be clipped, calls never).
        const lastAssistant = [...messages].reverse().find((m) => m.role === "assistant");
        if (lastAssistant) expect(result.messages).toContainEqual(lastAssistant);
        expect(result.messages.length).toBeLessThanOrEqual(messages.length);
      }),
      { numRuns: 300 },
    );
  });

  it("drops the oldest turns first and says so in a summary that keeps the task", () => {
    const messages: Message[] = [{ role: "user", content: "the original task" }];
    for (let i = 0; i < 6; i++) {
      messages.push({ role: "assistant", content: [{ type: "tool_use", id: `toolu_${i}`, name: "read_file", input: { path: `f${i}` } }] });
      messages.push({ role: "user", content: [{ type: "tool_result", tool_use_id: `toolu_${i}`, content: "x".repeat(2_000) }] });
    }
    const full = compaction.estimateMessages(messages);
    const result = compaction.compact(messages, { targetTokens: Math.floor(full / 2) })!;
    expect(result).not.toBeNull();
    expect(result.dropped).toBeGreaterThan(0);
    expect(compaction.estimateMessages(result.messages)).toBeLessThanOrEqual(Math.floor(full / 2));
    const first = result.messages[0]!;
    expect(first.role).toBe("user");
    expect(JSON.stringify(first.content)).toContain("the original task");
    expect(result.messages.slice(1)).toEqual(messages.slice(messages.length - (result.messages.length - 1)));
  });

  it("returns null when there is nothing to drop or clip", () => {
    expect(compaction.compact([{ role: "user", content: "hi" }], { targetTokens: 1 })).toBeNull();
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
    const outcome = await agent.runAgent(llm, history);
    expect(outcome.status).toBe("done");
    expect(llm.scripted.exchanges).toHaveLength(clean.scripted.exchanges.length + 2);
    expect(history.map((m) => m.role)).toEqual(cleanHistory.map((m) => m.role));
    await expectSendable(llm, history);
  });

  it("prompt too long: compacts the history (pairs whole) and finishes the task", async () => {
    const history: Message[] = [...longHistory(), { role: "user", content: "read package.json" }];
    const llm = scripted({ scenario: "s11_recovery", contextWindow: 4_000 });
    const outcome = await agent.runAgent(llm, history);
    expect(outcome.status).toBe("done");
    expect(llm.scripted.exchanges[0]!.error?.message).toMatch(/prompt is too long/);
    expect(JSON.stringify(history[0]!.content)).toContain("compacted");
    expect(JSON.stringify(history)).not.toContain("toolu_old0");
    expect(answerOf(history)).toContain("read_file returned");
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
    const outcome = await agent.runAgent(llm, history);
    expect(outcome.status).toBe("done");
    expect(answerOf(history)).toMatch(/Short enough now/);
    expect(history.length).toBeLessThanOrEqual(6);
    await expectSendable(llm, history);
  });

  it("when even compaction cannot make it fit: stops with prompt_too_long, transcript sendable", async () => {
    const llm = scripted({ scenario: "s11_recovery", faults: () => ({ kind: "prompt_too_long" }) });
    const history: Message[] = [{ role: "user", content: "read package.json" }];
    const outcome = await agent.runAgent(llm, history);
    expect(outcome).toMatchObject({ status: "stopped", reason: "prompt_too_long" });
    expectTranscriptRules(history);
  });

  it("max_tokens in the middle of the answer: the model continues it, nothing lost or repeated", async () => {
    const whole = scripted({ scenario: "s11_recovery" });
    const wholeHistory: Message[] = [{ role: "user", content: "Read README.md and package.json, then describe this project in detail." }];
    await agent.runAgent(whole, wholeHistory);

    const llm = scripted({ scenario: "s11_recovery" });
    const history: Message[] = [{ role: "user", content: "Read README.md and package.json, then describe this project in detail." }];
    const outcome = await agent.runAgent(llm, history, { maxTokens: agent.S11_MAX_TOKENS });
    expect(outcome.status).toBe("done");
    // The continuation may be a string or text blocks: both are one user message the API takes.
    const continued = history.filter((m) => m.role === "user" && resultsIn(m).length === 0 && /continue/i.test(textIn(m.content)));
    expect(continued.length).toBeGreaterThanOrEqual(1);
    expect(recovery.answerSince(history, 0)).toBe(answerOf(wholeHistory));
    await expectSendable(llm, history);
  });
});
