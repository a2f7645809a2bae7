/**
 * The appendix "The hand-built loop and the SDK's tool runner": the same task solved by both, and
 * every claim the page makes about the runner, each checked against the scripted model.
 */
import { existsSync } from "node:fs";
import { join } from "node:path";
import type Anthropic from "@anthropic-ai/sdk";
import { betaZodTool } from "@anthropic-ai/sdk/helpers/beta/zod";
import { ToolError as SdkToolError } from "@anthropic-ai/sdk/lib/tools/ToolError";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { textOf } from "../../runtime/scripted/conversation.ts";
import { S05_SMALL_MAX_TOKENS, S05_TASK } from "../../runtime/scripted/scenarios/s05_stop_reasons.ts";
import type { Reply, Scenario, TurnContext } from "../../runtime/scripted/types.ts";
import { quietOutput, scripted, transcriptProblems } from "../../runtime/testing.ts";
import { scratchWorkspace } from "../../runtime/tools/files.ts";
import { checkTranscript } from "../../runtime/transcript.ts";
import {
  conversationOf,
  courseTools,
  solveByHand,
  solveTwice,
  solveWithinBudget,
  solveWithRunner,
  streamWithRunner,
  toRunnable,
  TASK,
  WORKSPACE,
} from "../../examples/tool-runner/agent.ts";

let restore: () => void;
beforeAll(() => {
  restore = quietOutput();
});
afterAll(() => restore());

type Block = Anthropic.ContentBlockParam;
const blocks = (m: Anthropic.MessageParam | undefined): Block[] => (m && Array.isArray(m.content) ? m.content : []);
const results = (m: Anthropic.MessageParam | undefined) =>
  blocks(m).filter((b): b is Anthropic.ToolResultBlockParam => b.type === "tool_result");
const allResults = (messages: Anthropic.MessageParam[]) => messages.flatMap(results);
const rulesBroken = (messages: Anthropic.MessageParam[]) => checkTranscript(messages).map((v) => v.rule);

/** A scenario that asks for `calls` on its first turn, then answers with what the results said. */
function callsThenReport(calls: Array<{ name: string; input: Record<string, unknown> }>): Scenario {
  return {
    id: "appendix_calls",
    title: "asks for some calls, then reports the results",
    reply: (ctx: TurnContext): Reply =>
      ctx.step === 0
        ? { content: calls.map((c) => ({ type: "tool_use" as const, ...c })) }
        : { content: [{ type: "text", text: ctx.results.map((r) => `${r.is_error ? "error" : "ok"}: ${ctx.resultText(r)}`).join("\n") }], stop_reason: "end_turn" },
  };
}

/** One reply, whatever is asked. */
const oneReply = (reply: Reply): Scenario => ({ id: "appendix_one", title: "one reply", reply: () => reply });

const echoTool = betaZodTool({
  name: "echo",
  description: "Repeat a text.",
  inputSchema: z.object({ text: z.string() }).strict(),
  run: ({ text }) => text,
});

async function runner(scenario: Scenario, tools: Parameters<typeof solveWithRunner>[2], opts: { maxIterations?: number } = {}) {
  const llm = scripted({ scenario });
  const history: Anthropic.MessageParam[] = [{ role: "user", content: "go" }];
  const run = await solveWithRunner(llm, history, tools, { root: "/tmp", ...opts });
  return { llm, ...run };
}

describe("the same task, solved twice", () => {
  it("both loops end at end_turn with transcripts that keep every rule and can be sent again", async () => {
    const llm = scripted();
    const { byHand, outcome, runner: run } = await solveTwice(llm);

    expect(outcome.status).toBe("done");
    expect(outcome.message?.stop_reason).toBe("end_turn");
    expect(await transcriptProblems(llm, byHand)).toBeNull();

    expect(run.final.stop_reason).toBe("end_turn");
    expect(await transcriptProblems(llm, run.messages)).toBeNull();

    // The same work: four calls, three of them failed (bad input, a hang, a throw), the same answer.
    for (const messages of [byHand, run.messages]) {
      expect(allResults(messages)).toHaveLength(4);
      expect(allResults(messages).filter((r) => r.is_error)).toHaveLength(3);
    }
    expect(textOf(run.messages.at(-1)!.content)).toBe(textOf(byHand.at(-1)!.content));
    // The bad input, as each loop words it: s04's sentences for the model, zod's issues as JSON.
    expect(textOf(results(byHand[2])[0]?.content)).toMatch(/^Invalid input for read_json; it was not run\./);
    expect(textOf(results(run.messages[2])[0]?.content)).toMatch(/^Error: \[\n/);
    expect(textOf(run.messages.at(-1)!.content)).toContain("8080");
  });

  it("the runner keeps its own copy of the history: the array passed in is not changed", async () => {
    const llm = scripted();
    const root = await scratchWorkspace(WORKSPACE);
    const history: Anthropic.MessageParam[] = [{ role: "user", content: TASK }];
    const run = await solveWithRunner(llm, history, courseTools().map((t) => toRunnable(t, root)), { root });
    expect(history).toHaveLength(1);
    expect(run.messages.length).toBeGreaterThan(1);
  });

  it("with stream: true the runner streams each turn and ends the same way", async () => {
    const llm = scripted();
    const root = await scratchWorkspace(WORKSPACE);
    const deltas: string[] = [];
    const run = await streamWithRunner(llm, [{ role: "user", content: TASK }], courseTools().map((t) => toRunnable(t, root)), {
      root,
      onText: (d) => deltas.push(d),
    });
    expect(run.final.stop_reason).toBe("end_turn");
    expect(deltas.length).toBeGreaterThan(4);
    expect(deltas.join("")).toContain("The port is 8080");
    expect(llm.scripted.exchanges.map((e) => (e.request as { stream?: boolean }).stream)).toEqual([true, true, true, true]);
    expect(await transcriptProblems(llm, run.messages)).toBeNull();
  });
});

describe("what the runner does for you", () => {
  it("answers all the calls of a turn in ONE user message, in the order asked, only tool_result blocks in it", async () => {
    const calls = ["a", "b", "c"].map((text) => ({ name: "echo", input: { text } }));
    const { messages, llm } = await runner(callsThenReport(calls), [echoTool]);
    const asked = blocks(messages[1]).filter((b): b is Anthropic.ToolUseBlockParam => b.type === "tool_use");
    expect(messages[2]!.role).toBe("user");
    expect(blocks(messages[2]).every((b) => b.type === "tool_result")).toBe(true);
    expect(results(messages[2]).map((r) => r.tool_use_id)).toEqual(asked.map((c) => c.id));
    expect(results(messages[2]).map((r) => r.content)).toEqual(["a", "b", "c"]);
    expect(await transcriptProblems(llm, messages)).toBeNull();
  });

  it("runs each call once, even when the loop body asks for the results first (generateToolResponse)", async () => {
    let runs = 0;
    const counted = betaZodTool({ name: "echo", description: "Repeat a text.", inputSchema: z.object({ text: z.string() }), run: ({ text }) => (runs++, text) });
    const { messages } = await runner(callsThenReport([{ name: "echo", input: { text: "once" } }]), [counted]);
    expect(runs).toBe(1);
    expect(results(messages[2]).map((r) => r.content)).toEqual(["once"]);
  });

  it("runs every call of a turn at the same time, a write next to a read (it has no notion of read-only)", async () => {
    let readStarted!: () => void;
    const readHasStarted = new Promise<string>((resolve) => (readStarted = () => resolve("the read started while the write ran")));
    const write = betaZodTool({
      name: "write_note",
      description: "Write a note.",
      inputSchema: z.object({}),
      // Waits for the read to start; run one at a time, the read would never start first.
      run: () => Promise.race([readHasStarted, new Promise<string>((r) => setTimeout(() => r("ran alone"), 2_000))]),
    });
    const read = betaZodTool({
      name: "read_note",
      description: "Read a note.",
      inputSchema: z.object({}),
      run: () => {
        readStarted();
        return "read";
      },
    });
    const { messages } = await runner(callsThenReport([{ name: "write_note", input: {} }, { name: "read_note", input: {} }]), [write, read]);
    expect(results(messages[2]).map((r) => r.content)).toEqual(["the read started while the write ran", "read"]);
  });

  it("checks each input with the zod schema: a bad input is not run and is answered with is_error and zod's issues", async () => {
    let runs = 0;
    const tool = betaZodTool({
      name: "echo",
      description: "Repeat a text.",
      inputSchema: z.object({ text: z.string() }).strict(),
      run: ({ text }) => {
        runs++;
        return text;
      },
    });
    const { messages, llm } = await runner(callsThenReport([{ name: "echo", input: { txt: "hi" } }]), [tool]);
    const [result] = results(messages[2]);
    expect(runs).toBe(0);
    expect(result?.is_error).toBe(true);
    // The error is zod's own report, as JSON: written for a program rather than for the model.
    expect(textOf(result?.content)).toMatch(/^Error: \[/);
    expect(textOf(result?.content)).toContain('"code": "unrecognized_keys"');
    expect(await transcriptProblems(llm, messages)).toBeNull();
  });

  it("answers a tool that throws with is_error and `Error: <message>`; a ToolError's content goes as it is", async () => {
    const boom = betaZodTool({ name: "boom", description: "Fails.", inputSchema: z.object({}), run: () => { throw new RangeError("disk full"); } });
    const polite = betaZodTool({ name: "polite", description: "Fails politely.", inputSchema: z.object({}), run: () => { throw new SdkToolError("No such branch: try main."); } });
    const { messages, llm } = await runner(callsThenReport([{ name: "boom", input: {} }, { name: "polite", input: {} }]), [boom, polite]);
    expect(results(messages[2]).map((r) => [r.is_error, r.content])).toEqual([
      [true, "Error: disk full"],
      [true, "No such branch: try main."],
    ]);
    expect(await transcriptProblems(llm, messages)).toBeNull();
  });

  it("answers a call to an unknown tool with is_error, without naming the tools there are", async () => {
    const { messages, llm } = await runner(callsThenReport([{ name: "deploy", input: {} }]), [echoTool]);
    expect(results(messages[2])).toEqual([expect.objectContaining({ is_error: true, content: "Error: Tool 'deploy' not found" })]);
    expect(await transcriptProblems(llm, messages)).toBeNull();
  });

  it("keeps the assistant's content verbatim, thinking blocks and signatures included", async () => {
    const scenario: Scenario = {
      id: "appendix_thinking",
      title: "thinks, calls, answers",
      reply: (ctx) =>
        ctx.step === 0
          ? { content: [{ type: "thinking", thinking: "Echo first." }, { type: "tool_use", name: "echo", input: { text: "hi" } }] }
          : { content: [{ type: "text", text: "done" }], stop_reason: "end_turn" },
    };
    const { messages, llm } = await runner(scenario, [echoTool]);
    expect(blocks(messages[1])[0]).toMatchObject({ type: "thinking", thinking: "Echo first." });
    // transcriptProblems compares each assistant message with the response the model sent.
    expect(await transcriptProblems(llm, messages)).toBeNull();
  });

  it("with stream: true and runToolsEagerly, starts a call while the reply is still streaming", async () => {
    const events: string[] = [];
    const tool = betaZodTool({ name: "echo", description: "Repeat a text.", inputSchema: z.object({ text: z.string() }), run: ({ text }) => (events.push("tool ran"), text) });
    // The call comes first, then a text: the call is complete when the text block starts.
    const scenario: Scenario = {
      id: "appendix_eager",
      title: "a call, then more text",
      reply: (ctx) =>
        ctx.step === 0
          ? { content: [{ type: "tool_use", name: "echo", input: { text: "hi" } }, { type: "text", text: "and some words after the call" }], stop_reason: "tool_use" }
          : { content: [{ type: "text", text: "done" }], stop_reason: "end_turn" },
    };
    const llm = scripted({ scenario, streamDelayMs: 5 });
    const run = llm.client.beta.messages.toolRunner({
      model: llm.model,
      max_tokens: 256,
      messages: [{ role: "user", content: "go" }],
      tools: [tool],
      thread: false,
      stream: true,
      runToolsEagerly: true,
    });
    for await (const stream of run) {
      await stream.finalMessage();
      events.push("reply complete");
    }
    expect(events.slice(0, 2)).toEqual(["tool ran", "reply complete"]);
    expect(await transcriptProblems(llm, conversationOf(run.params.messages))).toBeNull();
  });

  it("sends a pause_turn back and continues, but keeps the continuation as a second assistant message", async () => {
    const llm = scripted();
    const root = await scratchWorkspace({});
    const run = await solveWithRunner(llm, [{ role: "user", content: S05_TASK }], courseTools().map((t) => toRunnable(t, root)), { root });
    expect(run.final.stop_reason).toBe("end_turn");
    expect(llm.scripted.responses.map((r) => r.stop_reason)).toEqual(["tool_use", "pause_turn", "end_turn"]);
    expect(run.messages.map((m) => m.role)).toEqual(["user", "assistant", "user", "assistant", "assistant"]);
    expect(rulesBroken(run.messages)).toEqual(["roles-alternate"]);

    // The course's loop (s05 on) joins the continuation to the paused turn.
    const byHand: Anthropic.MessageParam[] = [{ role: "user", content: S05_TASK }];
    await solveByHand(llm, byHand, await scratchWorkspace({}));
    expect(await transcriptProblems(llm, byHand)).toBeNull();
  });
});

describe("what the runner leaves to you", () => {
  it("max_tokens: it does not run the cut-off call (good) but does not retry, and leaves the call unanswered", async () => {
    const llm = scripted();
    const root = await scratchWorkspace({});
    const run = await solveWithRunner(llm, [{ role: "user", content: S05_TASK }], courseTools().map((t) => toRunnable(t, root)), {
      root,
      maxTokens: S05_SMALL_MAX_TOKENS,
    });
    // It resolves, as it does for end_turn: only stop_reason tells them apart.
    expect(run.final.stop_reason).toBe("max_tokens");
    expect(llm.scripted.exchanges).toHaveLength(1);
    expect(existsSync(join(root, "NOTES.md"))).toBe(false);
    expect(blocks(run.messages.at(-1)).some((b) => b.type === "tool_use")).toBe(true);
    expect(rulesBroken(run.messages)).toEqual(["unanswered-tool-use"]);

    // The course's loop (s05 on) asks again with a larger limit and finishes.
    const byHand: Anthropic.MessageParam[] = [{ role: "user", content: S05_TASK }];
    const outcome = await solveByHand(llm, byHand, await scratchWorkspace({}), { maxTokens: S05_SMALL_MAX_TOKENS });
    expect(outcome.status).toBe("done");
    expect(await transcriptProblems(llm, byHand)).toBeNull();
  });

  it.each([
    ["refusal", { content: [{ type: "text", text: "I can't help with that." }], stop_reason: "refusal", stop_details: { type: "refusal", category: "cyber", explanation: "not allowed" } }],
    ["stop_sequence", { content: [{ type: "text", text: "<answer>42" }], stop_reason: "stop_sequence", stop_sequence: "</answer>" }],
    ["an unknown stop_reason", { content: [{ type: "text", text: "hm" }], stop_reason: "something_new" }],
  ] as Array<[string, Reply]>)("%s: it resolves with the last message, as for end_turn; there is no outcome to switch on", async (_name, reply) => {
    const { final, messages, llm } = await runner(oneReply(reply), [echoTool]);
    expect(final.stop_reason).toBe(reply.stop_reason);
    expect(llm.scripted.exchanges).toHaveLength(1);
    expect(await transcriptProblems(llm, messages)).toBeNull();
  });

  it("an empty end_turn answer is stored as an empty assistant message: the conversation cannot go on", async () => {
    const { final, messages, llm } = await runner(oneReply({ content: [], stop_reason: "end_turn" }), [echoTool]);
    expect(final.content).toEqual([]);
    expect(messages.at(-1)).toEqual({ role: "assistant", content: [] });
    expect(await transcriptProblems(llm, messages)).toContain("non-empty content");
  });

  it("no repeated-call guard: the same call again and again runs until max_iterations, its only limit", async () => {
    let runs = 0;
    const tool = betaZodTool({ name: "echo", description: "Repeat a text.", inputSchema: z.object({ text: z.string() }), run: ({ text }) => (runs++, text) });
    const forever = oneReply({ content: [{ type: "tool_use", name: "echo", input: { text: "again" } }] });

    const capped = await runner(forever, [tool], { maxIterations: 5 });
    expect(runs).toBe(5);
    expect(capped.llm.scripted.exchanges).toHaveLength(5);
    // Stopped by the cap, it resolves with a message that still asks for a tool.
    expect(capped.final.stop_reason).toBe("tool_use");
    expect(await transcriptProblems(capped.llm, capped.messages)).toBeNull();

    // Without max_iterations it goes on until something else stops it (here the scripted model's limit).
    const llm = scripted({ scenario: forever, maxRequests: 12 });
    await expect(solveWithRunner(llm, [{ role: "user", content: "go" }], [tool], { root: "/tmp" })).rejects.toThrow(/12 requests already answered/);
  });

  it("the course's loop (s06 on) stops the same repeating model by itself, with a transcript that can be sent again", async () => {
    const root = await scratchWorkspace({ "a.txt": "a" });
    const llm = scripted({ scenario: oneReply({ content: [{ type: "tool_use", name: "read_file", input: { path: "a.txt" } }] }) });
    const history: Anthropic.MessageParam[] = [{ role: "user", content: "go" }];
    const outcome = await solveByHand(llm, history, root);
    expect(outcome).toMatchObject({ status: "stopped", reason: "repeated_call" });
    expect(llm.scripted.exchanges.length).toBeLessThan(10);
    expect(await transcriptProblems(llm, history)).toBeNull();
  });

  it("no token budget: leaving its loop stops it, but the reply in hand is not in its history and done() never settles", async () => {
    const forever = oneReply({ content: [{ type: "tool_use", name: "echo", input: { text: "again" } }] });
    const llm = scripted({ scenario: forever });
    const run = llm.client.beta.messages.toolRunner({ model: llm.model, max_tokens: 256, messages: [{ role: "user", content: "go" }], tools: [echoTool], thread: false });
    let replies = 0;
    for await (const _message of run) if (++replies === 2) break;
    const messages = conversationOf(run.params.messages);
    // Two replies came, but the history holds only the first one (and its results).
    expect(messages.map((m) => m.role)).toEqual(["user", "assistant", "user"]);
    expect(llm.scripted.exchanges).toHaveLength(2);
    const settled = await Promise.race([run.done().then(() => "settled", () => "settled"), new Promise((r) => setTimeout(() => r("pending"), 200))]);
    expect(settled).toBe("pending");
  });

  it("a budget on top (solveWithinBudget): stops between turns and leaves a transcript that can be sent again", async () => {
    let runs = 0;
    const tool = betaZodTool({ name: "echo", description: "Repeat a text.", inputSchema: z.object({ text: z.string() }), run: ({ text }) => (runs++, text) });
    const llm = scripted({ scenario: oneReply({ content: [{ type: "tool_use", name: "echo", input: { text: "x".repeat(400) } }] }) });
    const run = await solveWithinBudget(llm, [{ role: "user", content: "go" }], [tool], { root: "/tmp", budget: 1_000 });
    expect(run.overBudget).toBe(true);
    expect(run.spent).toBeGreaterThan(1_000);
    const requests = llm.scripted.exchanges.length;
    expect(requests).toBeLessThan(10);
    // The last reply is kept and its call answered without being run.
    expect(runs).toBe(requests - 1);
    expect(results(run.messages.at(-1))).toEqual([expect.objectContaining({ is_error: true, content: "Not run: the token budget (1000) is spent" })]);
    expect(await transcriptProblems(llm, run.messages)).toBeNull();
  });

  it("within the budget, solveWithinBudget ends like the runner does", async () => {
    const llm = scripted();
    const root = await scratchWorkspace(WORKSPACE);
    const run = await solveWithinBudget(llm, [{ role: "user", content: TASK }], courseTools().map((t) => toRunnable(t, root)), { root, budget: 1_000_000 });
    expect(run.overBudget).toBe(false);
    expect(run.final.stop_reason).toBe("end_turn");
    expect(await transcriptProblems(llm, run.messages)).toBeNull();
  });

  it("no tool time limit: a tool that ignores the abort signal keeps the runner waiting", async () => {
    let started!: () => void;
    const hasStarted = new Promise<void>((r) => (started = r));
    let finish!: (s: string) => void;
    const stuck = betaZodTool({
      name: "stuck",
      description: "Never returns by itself.",
      inputSchema: z.object({}),
      run: () => {
        started();
        return new Promise<string>((r) => (finish = r));
      },
    });
    const controller = new AbortController();
    const llm = scripted({ scenario: callsThenReport([{ name: "stuck", input: {} }]) });
    const settled = solveWithRunner(llm, [{ role: "user", content: "go" }], [stuck], { root: "/tmp", signal: controller.signal }).then(
      () => "resolved",
      (e: Error) => e.name,
    );
    await hasStarted;
    controller.abort();
    const waiting = await Promise.race([settled, new Promise((r) => setTimeout(() => r("still waiting"), 300))]);
    expect(waiting).toBe("still waiting");
    finish("done at last");
    // Once the tool returns, the aborted signal stops the next request.
    expect(await settled).toBe("APIUserAbortError");
  });

  it("a tool that listens to the signal ends on abort, answered with is_error; the transcript can be sent again", async () => {
    const listening = betaZodTool({
      name: "wait",
      description: "Waits until aborted.",
      inputSchema: z.object({}),
      run: (_input, context) =>
        new Promise<string>((_resolve, reject) => {
          context?.signal?.addEventListener("abort", () => reject(new Error("stopped by the signal")), { once: true });
          queueMicrotask(() => controller.abort());
        }),
    });
    const controller = new AbortController();
    const llm = scripted({ scenario: callsThenReport([{ name: "wait", input: {} }]) });
    const tools = [listening];
    const run = llm.client.beta.messages.toolRunner(
      { model: llm.model, max_tokens: 256, messages: [{ role: "user", content: "go" }], tools, thread: false },
      { signal: controller.signal },
    );
    await expect(run.runUntilDone()).rejects.toThrow(/aborted/i);
    const messages = conversationOf(run.params.messages);
    expect(results(messages.at(-1))).toEqual([expect.objectContaining({ is_error: true, content: "Error: stopped by the signal" })]);
    expect(await transcriptProblems(llm, messages)).toBeNull();
  });
});
