/**
 * s08_streaming: the answer as it arrives. Grades lessons/ or solutions/ (COURSE_TREE).
 * Order, not speed: each test records the order in which things happened during one stream
 * (pieces of text, tool calls noticed, tools started, the end of the message).
 */
import { isDeepStrictEqual } from "node:util";
import type Anthropic from "@anthropic-ai/sdk";
import AnthropicClient from "@anthropic-ai/sdk";
import fc from "fast-check";
import { z } from "zod";
import { afterAll, beforeAll, describe, it } from "vitest";
import { call, say, steps, text, thinking } from "../runtime/scripted/scenarios/script.ts";
import { S08_TASK, S08_WORKSPACE } from "../runtime/scripted/scenarios/s08_streaming.ts";
import { encodeEvent, messageEvents } from "../runtime/scripted/sse.ts";
import type { Reply, Scenario } from "../runtime/scripted/types.ts";
import { scratchWorkspace } from "../runtime/tools/files.ts";
import { defineTool, SafeToolRegistry } from "../solutions/s04_tool_errors/define-tool.ts";
import { approveAll } from "../solutions/s07_safe_tools/approval.ts";
import * as reference from "../solutions/s07_safe_tools/agent.ts";
import { assertProperty, driveLoop, expectSendable, loadLesson, quietOutput, rule, scripted, textIn } from "../runtime/testing.ts";
import { clip, readUntilStopped } from "./support.ts";

/** A quoted piece of output, cut with an ellipsis when it is longer than `n`. */

type StreamModule = typeof import("../solutions/s08_streaming/stream-turn.ts");
type AgentModule = typeof import("../solutions/s08_streaming/agent.ts");
const streaming = await loadLesson<StreamModule>("s08_streaming", "stream-turn.ts");
const agent = await loadLesson<AgentModule>("s08_streaming");

let restore: () => void;
beforeAll(() => (restore = quietOutput()));
afterAll(() => restore());

const scenario = (id: string, ...script: Array<() => Reply>): Scenario => ({ id, title: id, reply: steps(...script) });
const params = (tools: Anthropic.Tool[] = []): Anthropic.MessageStreamParams => ({
  model: "scripted-model",
  max_tokens: 2048,
  messages: [{ role: "user", content: "go" }],
  tools,
});
const TOOL: Anthropic.Tool = { name: "lookup", description: "look something up", input_schema: { type: "object", properties: {} } };

describe("s08 streamTurn: one request, streamed", () => {
  it("hands text on in pieces, before the message ends; the pieces make the final text", async () => {
    const long = "This answer is long enough to arrive in many small pieces, one after the other, as a model writes it.";
    const llm = scripted({ scenario: scenario("t-text", () => say(long)), streamDelayMs: 2 });
    const seen: string[] = [];
    const message = await streaming.streamTurn(llm.client, params(), { onText: (d) => seen.push(d) });
    rule(seen.length > 3, "streaming", `the text came in ${seen.length} piece(s): hand each text_delta on (onText) as it arrives, not once the block or the message is complete.`);
    rule(seen.join("") === long, "streaming", `the pieces handed to onText make ${JSON.stringify(clip(seen.join(""), 80))}, not the streamed text: hand on every text_delta, once each.`);
    rule(message.content.length === 1 && message.content[0]?.type === "text" && message.content[0].text === long && message.stop_reason === "end_turn", "streaming", `streamTurn returned ${clip(JSON.stringify(message.content), 200)} (stop_reason ${message.stop_reason}): return the whole message, as finalMessage() gives it.`);
  });

  it("rebuilds each tool call's input from its input_json_delta pieces", async () => {
    const input = { path: "src/deeply/nested/file.ts", lines: [1, 2, 3], options: { follow: true, note: "quotes \" and \\ too" } };
    const llm = scripted({ scenario: scenario("t-json", () => ({ content: [call("lookup", input), call("lookup", {})] })) });
    const noticed: Anthropic.ToolUseBlock[] = [];
    const message = await streaming.streamTurn(llm.client, params([TOOL]), { onToolUse: (c) => noticed.push(c) });
    rule(isDeepStrictEqual(noticed.map((c) => c.input), [input, {}]), "streaming", `the calls handed to onToolUse had the inputs ${JSON.stringify(noticed.map((c) => c.input))}, not ${JSON.stringify([input, {}])}: join every input_json_delta of a block (partial_json) and parse the whole text when the block stops; no delta means {}.`);
    const final = message.content.filter((b): b is Anthropic.ToolUseBlock => b.type === "tool_use");
    rule(JSON.stringify(noticed.map((c) => c.id)) === JSON.stringify(final.map((c) => c.id)), "streaming", `onToolUse was given the ids ${noticed.map((c) => c.id).join(", ")}, but the message's calls are ${final.map((c) => c.id).join(", ")}: hand on each call once, with its own id.`);
    rule(isDeepStrictEqual(final.map((c) => c.input), [input, {}]), "streaming", `the returned message's calls have the inputs ${JSON.stringify(final.map((c) => c.input))}: the message must be the one the API sent (finalMessage()).`);
  });

  it("a call cut off by max_tokens (its JSON never whole) is not handed to onToolUse", async () => {
    // The page's promise (docs/lessons/s08: "A call cut off by max_tokens never has whole JSON: it
    // is not announced"). The API streams what the model wrote before the limit: the call's JSON
    // stops mid-way. Built here as raw server-sent events, since the scripted model never cuts a call.
    const whole = { path: "src/deeply/nested/file.ts", note: "a long input that the limit cuts" };
    const message = {
      id: "msg_cut", type: "message", role: "assistant", model: "scripted-model", stop_reason: "max_tokens", stop_sequence: null,
      content: [{ type: "tool_use", id: "toolu_whole", name: "lookup", input: { q: 1 } }, { type: "tool_use", id: "toolu_cut", name: "lookup", input: whole }],
      usage: { input_tokens: 20, output_tokens: 40 },
    } as unknown as Anthropic.Message;
    const cut = JSON.stringify(whole).slice(0, 30);
    const piece = { type: "content_block_delta", index: 1, delta: { type: "input_json_delta", partial_json: cut } } as const;
    const events = messageEvents(message).flatMap((e) => (e.type === "content_block_delta" && e.index === 1 ? [] : e.type === "content_block_start" && e.index === 1 ? [e, piece] : [e]));
    const body = events.map((e) => encodeEvent(e.type, e)).join("");
    const client = new AnthropicClient({ apiKey: "test-key", maxRetries: 0, fetch: async () => new Response(body, { headers: { "content-type": "text/event-stream" } }) });
    const noticed: Anthropic.ToolUseBlock[] = [];
    const final = await streaming.streamTurn(client, params([TOOL]), { onToolUse: (c) => noticed.push(c) });
    rule(final.stop_reason === "max_tokens", "streaming", `streamTurn returned stop_reason ${final.stop_reason} for a message cut off by max_tokens: return the message as finalMessage() gives it.`);
    rule(
      isDeepStrictEqual(noticed.map((c) => c.id), ["toolu_whole"]),
      "streaming",
      () => `onToolUse was handed ${JSON.stringify(noticed.map((c) => ({ id: c.id, input: c.input })))}; of the two calls, only toolu_whole is whole: toolu_cut's JSON stops at ${JSON.stringify(cut)} (max_tokens). A call whose JSON does not parse is not handed on (it is not announced, and nothing may start a call the model never finished).`,
    );
  });

  it("notices a tool call while the message is still streaming", async () => {
    const llm = scripted({
      scenario: scenario("t-notice", () => ({ content: [call("lookup", { q: 1 }), text("And some words after the call, streamed after it.")] })),
    });
    const order: string[] = [];
    await streaming.streamTurn(llm.client, params([TOOL]), { onText: () => order.push("text"), onToolUse: () => order.push("tool") });
    order.push("end");
    rule(order[0] === "tool", "streaming", `the call was not noticed before the text after it streamed (${order.join(" ")}): hand each tool call on when its block stops (content_block_stop), not when the message ends.`);
    rule(order.includes("text"), "streaming", `no text was handed on (${order.join(" ")}): call onText for each text_delta.`);
  });

  it("stops when the signal aborts: APIUserAbortError, and nothing is returned", async () => {
    const llm = scripted({ scenario: scenario("t-abort", () => say("a b c d e f g h i j k l m n o p q r s t u v w x y z ".repeat(4))), streamDelayMs: 5 });
    const controller = new AbortController();
    const seen: string[] = [];
    const run = streaming.streamTurn(llm.client, params(), { onText: (d) => (seen.push(d), seen.length === 2 && controller.abort()) }, controller.signal);
    const settled = await run.then((m) => ({ message: m }), (e: unknown) => ({ error: e }));
    rule("error" in settled && /abort/i.test(String((settled.error as Error)?.message ?? settled.error)), "abort-leaves-transcript", () =>
      "error" in settled
        ? `an aborted stream threw ${String((settled.error as Error)?.message ?? settled.error)}: let the SDK's APIUserAbortError through.`
        : `an aborted stream returned a message (${clip(JSON.stringify(settled.message.content), 120)}): nothing of a partial answer is returned; let the abort error through (pass the signal to messages.stream).`);
    rule(seen.length < 10, "abort-leaves-transcript", `the stream went on after the abort (${seen.length} pieces of text): pass the signal to messages.stream so the abort stops it.`);
  });
});

/** Read-only and writing spy tools that log when they start and finish. */
function spyRegistry(log: string[]) {
  const spy = (name: string, readOnly: boolean) =>
    defineTool({
      name,
      description: `${name} (test spy)`,
      input: z.object({ n: z.number() }),
      readOnly,
      run: async ({ n }) => {
        log.push(`start ${name} ${n}`);
        await new Promise((r) => setTimeout(r, 5));
        log.push(`done ${name} ${n}`);
        return `${name} ${n} ok`;
      },
    });
  return new SafeToolRegistry([spy("read", true), spy("write", false)]);
}

async function runSpies(content: Reply["content"]) {
  const log: string[] = [];
  const llm = scripted({ scenario: scenario("t-spies", () => ({ content }), () => say("Done.")), streamDelayMs: 2 });
  const history: Anthropic.MessageParam[] = [{ role: "user", content: "spies" }];
  // driveLoop: a loop that throws (a request the API refused) is judged by the transcript it left.
  const outcome = await driveLoop(llm, history, () =>
    agent.runAgent(llm, history, {
      registry: spyRegistry(log),
      // "text" while the first message streams; the answer after the results is "later text".
      stream: { onToolUse: (c) => log.push(`noticed ${c.name} ${(c.input as { n: number }).n}`), onText: () => log.push(llm.scripted.exchanges.length <= 1 ? "text" : "later text") },
    }),
  );
  await expectSendable(llm, history);
  const results = (history[2]!.content as Anthropic.ToolResultBlockParam[]).map((r) => textIn(r.content));
  return { log, outcome, results };
}

describe("s08 the loop starts read-only tools before the message ends", () => {
  it("starts each read-only call as soon as it is noticed", async () => {
    const { log, results } = await runSpies([call("read", { n: 1 }), call("read", { n: 2 }), text("Words after the calls, still streaming.")]);
    const at = (s: string) => log.indexOf(s);
    rule(at("start read 1") > -1, "early-start", `read 1 never ran: ${log.join(" | ")}`);
    rule(at("start read 1") < at("noticed read 2"), "early-start", `read 1, a read-only call, did not start before read 2 was noticed (${log.join(" | ")}): start each read-only call as soon as the stream hands it on.`);
    rule(at("start read 2") < log.lastIndexOf("text"), "early-start", `read 2 did not start before the text after it streamed (${log.join(" | ")}): start each read-only call as soon as the stream hands it on.`);
    rule(JSON.stringify(results) === JSON.stringify(["read 1 ok", "read 2 ok"]), "result-by-id", `the results are ${JSON.stringify(results)}: each call's own output, in call order.`);
  });

  it("never starts a read-only call early when a writing call comes before it", async () => {
    const { log, results } = await runSpies([call("write", { n: 1 }), call("read", { n: 2 }), text("Words after the calls, still streaming for a while, piece by piece.")]);
    rule(log.indexOf("start write 1") > log.lastIndexOf("text"), "early-start", `the writing call started while the message was still streaming (${log.join(" | ")}): only read-only calls may start early; the others run after the message ends.`);
    rule(log.indexOf("start read 2") > log.indexOf("done write 1"), "early-start", `read 2 started before write 1, which comes before it, was done (${log.join(" | ")}): a read-only call starts early only when every call before it is read-only too.`);
    rule(JSON.stringify(results) === JSON.stringify(["write 1 ok", "read 2 ok"]), "result-by-id", `the results are ${JSON.stringify(results)}: each call's own output, in call order.`);
  });
});

describe("s08 a turn that does not end with tool_use runs none of its calls, even one started early", () => {
  // The read-only call starts while the answer streams, before its stop_reason is known. It runs
  // until its signal aborts (or its 2 s timeout): the loop must stop it, or at least wait for it,
  // before it returns, and answer it "not run". The writing call must never start.
  for (const stop of ["refusal", "a_reason_this_loop_does_not_know"])
    it(`stop_reason ${stop}: the early read is stopped and its result thrown away; the write never runs`, async () => {
      const log: string[] = [];
      const read = readUntilStopped(log);
      const write = defineTool({
        name: "write",
        description: "write (test spy)",
        input: z.object({ n: z.number() }),
        readOnly: false,
        run: async ({ n }) => (log.push(`start write ${n}`), `write ${n} ok`),
      });
      const turn = (): Reply => ({
        content: [call("read", { n: 1 }), call("write", { n: 2 }), text("Words after the calls, still streaming.")],
        stop_reason: stop,
        ...(stop === "refusal" ? { stop_details: { type: "refusal" as const, category: null, explanation: "test refusal" } } : {}),
      });
      const llm = scripted({ scenario: scenario(`t-${stop}`, turn, () => say("Done.")), streamDelayMs: 2 });
      const history: Anthropic.MessageParam[] = [{ role: "user", content: "go" }];
      const outcome = await agent.runAgent(llm, history, { registry: new SafeToolRegistry([read, write]) });
      const atReturn = [...log];

      rule(outcome.status === "stopped", "typed-outcome", `a turn that ended with stop_reason ${stop} is not success, but runAgent returned ${JSON.stringify(outcome)}: return a stopped Outcome (s05's stoppedBy).`);
      rule(!atReturn.includes("start write 2"), "tools-only-on-tool-use", `the turn ended with stop_reason ${stop}, not tool_use, and the writing call ran anyway (${atReturn.join(" | ")}): it must not run at all (and never start early: it is not read-only).`);
      if (atReturn.includes("start read 1"))
        rule(
          atReturn.includes("end read 1"),
          "tools-only-on-tool-use",
          `the read-only call started early while the answer streamed, and was still running when runAgent returned (${atReturn.join(" | ")}). ` +
            `A turn that does not end with tool_use runs none of its calls: stop the early ones (abort their signal) and await them before going on (EarlyStart.settle).`,
        );
      await expectSendable(llm, history);
      const results = (history[2]?.content ?? []) as Anthropic.ToolResultBlockParam[];
      rule(results.length === 2 && results.every((r) => r.is_error === true), "tools-only-on-tool-use", `both calls must be answered is_error: true ("not run"), so the transcript stays sendable; the results were ${JSON.stringify(results.map((r) => ({ id: r.tool_use_id, is_error: r.is_error })))}.`);
      rule(!results.map((r) => textIn(r.content)).join(" ").includes("read 1 ok"), "tools-only-on-tool-use", `the early call's result was used although the turn ended with ${stop}: throw it away and answer "not run".`);
    });
});

describe("s08 Ctrl-C: an aborted stream leaves a transcript that can be sent again", () => {
  for (const turn of [1, 2])
    it(`aborted while turn ${turn} streams`, async () => {
      const root = await scratchWorkspace(S08_WORKSPACE);
      const llm = scripted({ streamDelayMs: 3 });
      const history: Anthropic.MessageParam[] = [{ role: "user", content: S08_TASK }];
      const controller = new AbortController();
      let texts = 0;
      const outcome = await agent.runAgent(llm, history, {
        root,
        approve: approveAll,
        signal: controller.signal,
        stream: { onText: () => ++texts === (turn === 1 ? 3 : 3 + 20) && controller.abort() },
      });
      rule(outcome.status === "stopped" && outcome.reason === "aborted", "abort-leaves-transcript", `aborted while turn ${turn} streamed, runAgent returned ${JSON.stringify(outcome)}: return a stopped outcome with reason "aborted".`);
      await expectSendable(llm, history);
      const want = turn === 1 ? 1 : 3;
      rule(history.length === want, "abort-leaves-transcript", `aborted while turn ${turn} streamed, the history has ${history.length} messages, not ${want} (the turns finished before it): drop the turn that was streaming, keep every finished one.`);
      // And the run can go on from there.
      const resumed = await agent.runAgent(llm, history, { root, approve: approveAll });
      rule(resumed.status === "done", "abort-leaves-transcript", `after the abort, running the loop again on the same history ended ${JSON.stringify(resumed)}, not done.`);
      await expectSendable(llm, history);
    });
});

/**
 * The transcript with tool ids replaced by their order of appearance. Ids are the server's to
 * choose (the real API picks new ones on every run); everything else must be identical.
 */
function sameRun(history: Anthropic.MessageParam[]): unknown {
  const ids = new Map<string, string>();
  const json = JSON.stringify(history, (_key, value: unknown) => {
    if (typeof value === "string" && /^toolu_/.test(value)) {
      if (!ids.has(value)) ids.set(value, `toolu_${ids.size + 1}`);
      return ids.get(value);
    }
    return value;
  });
  return JSON.parse(json);
}

/** The streamed run's transcript is the plain run's (tool ids aside); else the first message that differs, in words. */
function expectSameRun(streamed: Anthropic.MessageParam[], plain: Anthropic.MessageParam[]) {
  const a = sameRun(streamed) as Anthropic.MessageParam[];
  const b = sameRun(plain) as Anthropic.MessageParam[];
  const i = a.findIndex((m, n) => !isDeepStrictEqual(m, b[n]));
  const differs = i < 0 ? undefined : JSON.stringify(a[i]);
  rule(i < 0 && a.length === b.length, differs?.includes('"thinking"') ? "not-verbatim" : "streaming", () => {
    const at = i < 0 ? Math.min(a.length, b.length) : i;
    return `the streamed run's history differs from the same run without streaming at messages[${at}]: streamed ${clip(JSON.stringify(a[at] ?? "(none)"), 240)}, without streaming ${clip(JSON.stringify(b[at] ?? "(none)"), 240)}. Put the message finalMessage() returns into the history, every block as it came.`;
  });
}

describe("s08 a streamed run leaves the same transcript as the same run without streaming", () => {
  async function both(task: string, s?: Scenario) {
    const runOnce = async (which: "streamed" | "plain") => {
      const root = await scratchWorkspace(S08_WORKSPACE);
      const llm = scripted(s ? { scenario: s } : {});
      const history: Anthropic.MessageParam[] = [{ role: "user", content: task }];
      const run = which === "streamed" ? agent.runAgent : reference.runAgent;
      // driveLoop: a loop that throws (a request the API refused) is judged by the transcript it left.
      const outcome = await driveLoop(llm, history, () => run(llm, history, { root, approve: approveAll }));
      await expectSendable(llm, history);
      return { history, outcome };
    };
    return { streamed: await runOnce("streamed"), plain: await runOnce("plain") };
  }

  it("the default task", async () => {
    const { streamed, plain } = await both(S08_TASK);
    expectSameRun(streamed.history, plain.history);
    rule(streamed.history.length === 4, "streaming", `the default task's streamed run left ${streamed.history.length} messages, not 4.`);
  });

  it("a turn with thinking: the block and its signature go back as they came", async () => {
    const s = scenario("t-thinking", () => ({ content: [thinking("Read the readme first."), text("Reading it."), call("read_file", { path: "README.md" })] }), () => say("Done."));
    const { streamed, plain } = await both("think", s);
    expectSameRun(streamed.history, plain.history);
  });

  it("property: any mix of thinking, text and tool calls", async () => {
    const block = fc.oneof(
      fc.string({ minLength: 1, maxLength: 80 }).filter((s) => s.trim() !== "").map((s) => text(s)),
      fc.string({ minLength: 1, maxLength: 40 }).map((s) => thinking(s)),
      fc.constantFrom("README.md", "package.json", "missing.txt").map((path) => call("read_file", { path })),
      fc.dictionary(fc.string({ maxLength: 5 }), fc.oneof(fc.integer(), fc.string({ maxLength: 10 }))).map((input) => call("list_files", input)),
    );
    await assertProperty(
      fc.asyncProperty(fc.array(fc.array(block, { minLength: 1, maxLength: 4 }), { minLength: 1, maxLength: 3 }), async (turns) => {
        const s = scenario("t-random", ...turns.map((content) => () => ({ content })), () => say("The end."));
        const { streamed, plain } = await both("random", s);
        expectSameRun(streamed.history, plain.history);
        rule(streamed.outcome.status === plain.outcome.status, "streaming", `the streamed run ended ${streamed.outcome.status}, the same run without streaming ${plain.outcome.status}.`);
      }),
      { numRuns: 15 },
      "streaming",
    );
  });
});

describe("s08 the script: Ctrl-C stops the run and leaves a transcript that can be sent again", () => {
  it("SIGINT while the answer streams → stopped (aborted), every tool_use answered", async () => {
    const { spawn } = await import("node:child_process");
    const { join } = await import("node:path");
    const { ROOT, gradedTree } = await import("../runtime/testing.ts");
    const child = spawn(process.execPath, ["--import", "tsx", join(ROOT, gradedTree(), "s08_streaming", "agent.ts")], {
      cwd: ROOT,
      env: { ...process.env, COURSE_OFFLINE: "1", NO_COLOR: "1" },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let out = "";
    let sent = false;
    child.stdout.on("data", (d: Buffer) => {
      out += d.toString();
      // The answer has started to stream: now press Ctrl-C.
      if (!sent && /workspace: .*\n[\s\S]*I'll read/.test(out)) {
        sent = true;
        child.kill("SIGINT");
      }
    });
    child.stderr.on("data", (d: Buffer) => (out += d.toString()));
    const code = await new Promise<number | null>((resolve) => child.on("close", resolve));
    rule(sent, "streaming", `the script's answer never started streaming:\n${out.slice(-1500)}`);
    rule(/stopped \(aborted\)/.test(out) && /every tool_use answered: can be sent again/.test(out), "abort-leaves-transcript", `Ctrl-C while the answer streamed should stop the run (aborted) with a transcript that can be sent again:\n${out.slice(-1500)}`);
    rule(code === 0, "abort-leaves-transcript", `after Ctrl-C the script exited with ${code}, not 0:\n${out.slice(-1500)}`);
  }, 30_000);
});

// The net under the rules: this lesson beside the reference, on its own task and on generated
// model answers (tests/differential/net.ts).
import { differentialNet } from "./differential/net.ts";
differentialNet("s08");
