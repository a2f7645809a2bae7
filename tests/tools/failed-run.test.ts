/**
 * Nothing lost on a failed run (`npm run agent`): whatever makes the model call throw (529 on
 * every retry, an HTML page with status 200, malformed SSE, a stream cut on every try, a refused
 * connection), the run ends with exit code 1, one line naming the cause (no stack trace), and a
 * transcript in .course/runs/ that the API would take again: every tool_use answered.
 */
import { readFileSync } from "node:fs";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { stripVTControlCharacters } from "node:util";
import Anthropic from "@anthropic-ai/sdk";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { output } from "../../runtime/print.ts";
import { encodeEvent, messageEvents } from "../../runtime/scripted/sse.ts";
import { checkTranscript } from "../../runtime/transcript.ts";
import { run } from "../../solutions/s12_guarded_agent/agent.ts";
import { closeTranscript } from "../../solutions/s12_guarded_agent/failed-run.ts";

let printed: string[] = [];
const original = output.write;
beforeEach(() => {
  printed = [];
  output.write = (line: string) => void printed.push(line);
});
afterEach(() => {
  output.write = original;
});

type Reply = () => Response | Promise<Response>;

const sse = (events: Array<{ type: string }>) =>
  new Response(events.map((e) => encodeEvent(e.type, e)).join(""), { status: 200, headers: { "content-type": "text/event-stream" } });

/** A first answer that calls a tool, so the failure comes mid-run with history to keep. */
const listFilesTurn: Reply = () =>
  sse(
    messageEvents({
      id: "msg_1",
      type: "message",
      role: "assistant",
      model: "scripted-model",
      content: [{ type: "tool_use", id: "toolu_1", name: "list_files", input: { path: "." } }],
      stop_reason: "tool_use",
      stop_sequence: null,
      usage: { input_tokens: 10, output_tokens: 5 },
    } as unknown as Anthropic.Message),
  );

const FAULTS: Record<string, Reply> = {
  "529 overloaded on every retry": () =>
    new Response(JSON.stringify({ type: "error", error: { type: "overloaded_error", message: "Overloaded" } }), { status: 529, headers: { "content-type": "application/json" } }),
  "an HTML page with status 200": () => new Response("<!doctype html><html><body>Gateway</body></html>", { status: 200, headers: { "content-type": "text/html" } }),
  "malformed SSE": () => new Response('event: message_start\ndata: {"type":"message_start", oops\n\n', { status: 200, headers: { "content-type": "text/event-stream" } }),
  "a stream cut on every try": () => {
    const body = new ReadableStream({
      start(c) {
        c.enqueue(new TextEncoder().encode(encodeEvent("message_start", messageEvents({ id: "m", type: "message", role: "assistant", model: "scripted-model", content: [], stop_reason: null, stop_sequence: null, usage: { input_tokens: 1, output_tokens: 1 } } as unknown as Anthropic.Message)[0])));
        c.error(new Error("connection reset"));
      },
    });
    return new Response(body, { status: 200, headers: { "content-type": "text/event-stream" } });
  },
  "a refused connection": () => {
    throw new TypeError("fetch failed: ECONNREFUSED");
  },
};

function llmOf(replies: Reply[]) {
  let n = 0;
  const client = new Anthropic({
    apiKey: "sk-test",
    maxRetries: 0,
    fetch: (async () => {
      const reply = replies[Math.min(n++, replies.length - 1)]!;
      return reply();
    }) as unknown as typeof fetch,
  });
  return { client, model: "claude-test" };
}

describe("a run that fails still saves a transcript the API would take again", () => {
  for (const [name, fault] of Object.entries(FAULTS))
    it(`${name}: exit 1, one line naming the cause, the transcript saved with every tool_use answered`, async () => {
      const ws = mkdtempSync(join(tmpdir(), "failed-run-"));
      writeFileSync(join(ws, "a.txt"), "alpha\n");
      const r = await run(["--workspace", ws, "--timeout", "60", "list the files"], { llm: llmOf([listFilesTurn, fault]) });
      expect(r.exitCode).toBe(1);
      const all = printed.join("\n");
      const stopped = printed.filter((l) => l.includes("the run stopped:"));
      expect(stopped, `one line naming the cause, got:\n${all}`).toHaveLength(1);
      expect(stopped[0]!.split("\n")).toHaveLength(1);
      expect(all, "a stack trace was printed").not.toMatch(/\n\s+at .*\(.*:\d+:\d+\)/);
      const path = /run log: (\S+)/.exec(all)?.[1];
      expect(path, "the run log path is printed").toBeTruthy();
      const lines = readFileSync(stripVTControlCharacters(path!), "utf8").trim().split("\n").map((l) => JSON.parse(l) as { type: string; messages?: Anthropic.MessageParam[] });
      const transcript = lines.at(-1)!;
      expect(transcript.type).toBe("transcript");
      expect(transcript.messages!.length, "the first turn's call and its result were kept").toBeGreaterThanOrEqual(3);
      expect(checkTranscript(transcript.messages!)).toEqual([]);
    });
});

describe("closeTranscript", () => {
  it("answers every unanswered tool_use, at the end or in the middle, and leaves a whole transcript alone", () => {
    const use = (id: string) => ({ type: "tool_use" as const, id, name: "bash", input: {} });
    const result = (id: string) => ({ type: "tool_result" as const, tool_use_id: id, content: "ok" });
    const h: Anthropic.MessageParam[] = [
      { role: "user", content: "task" },
      { role: "assistant", content: [use("a"), use("b")] },
      { role: "user", content: [result("a")] },
      { role: "assistant", content: [use("c")] },
    ];
    closeTranscript(h, "not run");
    expect(checkTranscript(h)).toEqual([]);
    expect(h).toHaveLength(5);
    const whole = structuredClone(h);
    closeTranscript(h, "again");
    expect(h).toEqual(whole);
  });
});
