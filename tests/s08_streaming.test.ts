/**
 * s08_streaming: the answer as it arrives. Grades lessons/ or solutions/ (COURSE_TREE).
 * Order, not speed: each test records the order in which things happened during one stream
 * (pieces of text, tool calls noticed, tools started, the end of the message).
 */
import type Anthropic from "@anthropic-ai/sdk";
import fc from "fast-check";
import { z } from "zod";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { call, say, steps, text, thinking } from "../runtime/scripted/scenarios/script.ts";
import { S08_TASK, S08_WORKSPACE } from "../runtime/scripted/scenarios/s08_streaming.ts";
import type { Reply, Scenario } from "../runtime/scripted/types.ts";
import { scratchWorkspace } from "../runtime/tools/files.ts";
import { defineTool, SafeToolRegistry } from "../solutions/s04_tool_errors/define-tool.ts";
import { approveAll } from "../solutions/s07_safe_tools/approval.ts";
import * as reference from "../solutions/s07_safe_tools/agent.ts";
import { loadLesson, quietOutput, scripted , expectSendable , textIn , assertProperty } from "../runtime/testing.ts";

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
    expect(seen.length, "text came in one piece, or not at all: hand each text_delta on as it arrives").toBeGreaterThan(3);
    expect(seen.join("")).toBe(long);
    expect(message.content).toEqual([expect.objectContaining({ type: "text", text: long })]);
    expect(message.stop_reason).toBe("end_turn");
  });

  it("rebuilds each tool call's input from its input_json_delta pieces", async () => {
    const input = { path: "src/deeply/nested/file.ts", lines: [1, 2, 3], options: { follow: true, note: "quotes \" and \\ too" } };
    const llm = scripted({ scenario: scenario("t-json", () => ({ content: [call("lookup", input), call("lookup", {})] })) });
    const noticed: Anthropic.ToolUseBlock[] = [];
    const message = await streaming.streamTurn(llm.client, params([TOOL]), { onToolUse: (c) => noticed.push(c) });
    expect(noticed.map((c) => c.input)).toEqual([input, {}]);
    const final = message.content.filter((b): b is Anthropic.ToolUseBlock => b.type === "tool_use");
    expect(noticed.map((c) => c.id)).toEqual(final.map((c) => c.id));
    expect(final.map((c) => c.input)).toEqual([input, {}]);
  });

  it("notices a tool call while the message is still streaming", async () => {
    const llm = scripted({
      scenario: scenario("t-notice", () => ({ content: [call("lookup", { q: 1 }), text("And some words after the call, streamed after it.")] })),
    });
    const order: string[] = [];
    await streaming.streamTurn(llm.client, params([TOOL]), { onText: () => order.push("text"), onToolUse: () => order.push("tool") });
    order.push("end");
    expect(order[0], `the call was noticed only at the end: ${order.join(" ")}`).toBe("tool");
    expect(order.filter((o) => o === "text").length).toBeGreaterThan(0);
  });

  it("stops when the signal aborts: APIUserAbortError, and nothing is returned", async () => {
    const llm = scripted({ scenario: scenario("t-abort", () => say("a b c d e f g h i j k l m n o p q r s t u v w x y z ".repeat(4))), streamDelayMs: 5 });
    const controller = new AbortController();
    const seen: string[] = [];
    const run = streaming.streamTurn(llm.client, params(), { onText: (d) => (seen.push(d), seen.length === 2 && controller.abort()) }, controller.signal);
    await expect(run).rejects.toThrow(/abort/i);
    expect(seen.length).toBeLessThan(10);
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
  const outcome = await agent.runAgent(llm, history, {
    registry: spyRegistry(log),
    stream: { onToolUse: (c) => log.push(`noticed ${c.name} ${(c.input as { n: number }).n}`), onText: () => log.push("text") },
  });
  await expectSendable(llm, history);
  const results = (history[2]!.content as Anthropic.ToolResultBlockParam[]).map((r) => textIn(r.content));
  return { log, outcome, results };
}

describe("s08 the loop starts read-only tools before the message ends", () => {
  it("starts each read-only call as soon as it is noticed", async () => {
    const { log, results } = await runSpies([call("read", { n: 1 }), call("read", { n: 2 }), text("Words after the calls, still streaming.")]);
    const at = (s: string) => log.indexOf(s);
    expect(at("start read 1"), log.join(" | ")).toBeGreaterThan(-1);
    expect(at("start read 1"), `read 1 did not start before read 2 was noticed: ${log.join(" | ")}`).toBeLessThan(at("noticed read 2"));
    expect(at("start read 2"), `read 2 did not start before the text after it streamed: ${log.join(" | ")}`).toBeLessThan(log.lastIndexOf("text"));
    expect(results).toEqual(["read 1 ok", "read 2 ok"]);
  });

  it("never starts a read-only call early when a writing call comes before it", async () => {
    const { log, results } = await runSpies([call("write", { n: 1 }), call("read", { n: 2 }), text("Words after the calls.")]);
    expect(log.indexOf("start read 2"), log.join(" | ")).toBeGreaterThan(log.indexOf("done write 1"));
    expect(results).toEqual(["write 1 ok", "read 2 ok"]);
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
      expect(outcome).toMatchObject({ status: "stopped", reason: "aborted" });
      expect(history.length).toBe(turn === 1 ? 1 : 3);
      await expectSendable(llm, history);
      // And the run can go on from there.
      const resumed = await agent.runAgent(llm, history, { root, approve: approveAll });
      expect(resumed.status).toBe("done");
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

describe("s08 a streamed run leaves the same transcript as the same run without streaming", () => {
  async function both(task: string, s?: Scenario) {
    const runOnce = async (which: "streamed" | "plain") => {
      const root = await scratchWorkspace(S08_WORKSPACE);
      const llm = scripted(s ? { scenario: s } : {});
      const history: Anthropic.MessageParam[] = [{ role: "user", content: task }];
      const run = which === "streamed" ? agent.runAgent : reference.runAgent;
      const outcome = await run(llm, history, { root, approve: approveAll });
      await expectSendable(llm, history);
      return { history, outcome };
    };
    return { streamed: await runOnce("streamed"), plain: await runOnce("plain") };
  }

  it("the default task", async () => {
    const { streamed, plain } = await both(S08_TASK);
    expect(sameRun(streamed.history)).toEqual(sameRun(plain.history));
    expect(streamed.history).toHaveLength(4);
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
        expect(sameRun(streamed.history)).toEqual(sameRun(plain.history));
        expect(streamed.outcome.status).toBe(plain.outcome.status);
      }),
      { numRuns: 15 },
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
    expect(sent, `the answer never started streaming:\n${out}`).toBe(true);
    expect(out).toMatch(/stopped \(aborted\)/);
    expect(out).toMatch(/every tool_use answered: can be sent again/);
    expect(code).toBe(0);
  }, 30_000);
});
