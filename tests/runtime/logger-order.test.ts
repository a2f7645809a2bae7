/**
 * The logger of s09 (given code, used by every later lesson and the final agent) prints a turn's
 * text before the calls it announces, also when a read-only call started while the answer was
 * still streaming (its act and observe events come before the answer's think event).
 */
import type Anthropic from "@anthropic-ai/sdk";
import { describe, expect, it } from "vitest";
import type { AgentEvent } from "../../solutions/s09_observability/events.ts";
import { createLogger } from "../../solutions/s09_observability/log.ts";
import { emptyTotals, turnUsage } from "../../solutions/s09_observability/usage.ts";

const call = (id: string): Anthropic.ToolUseBlock => ({ type: "tool_use", id, name: "read_file", input: { path: id }, caller: { type: "direct" } }) as unknown as Anthropic.ToolUseBlock;
const think = (turn: number, text: string, ids: string[]): AgentEvent => ({
  type: "think",
  turn,
  message: { role: "assistant", content: [{ type: "text", text }, ...ids.map(call)], stop_reason: ids.length ? "tool_use" : "end_turn", usage: {} } as unknown as Anthropic.Message,
  usage: turnUsage("scripted-model", { input_tokens: 1, output_tokens: 1, cache_creation_input_tokens: 0, cache_read_input_tokens: 0 } as Anthropic.Usage),
  ms: 1,
});
const act = (id: string): AgentEvent => ({ type: "act", turn: 1, call: call(id) });
const observe = (id: string): AgentEvent => ({ type: "observe", turn: 1, call: call(id), result: { type: "tool_result", tool_use_id: id, content: "ok" }, ms: 1 });

describe("s09's logger: text first, then the calls it announces", () => {
  it("calls started early wait for their answer's text; calls after it print at once", () => {
    const lines: string[] = [];
    const log = createLogger({ write: (l) => lines.push(l) });
    const events: AgentEvent[] = [think(1, "I'll run the tests.", ["a"]), act("a"), observe("a"), act("b"), observe("b"), think(2, "I'll read both files.", ["b", "c"]), act("c"), observe("c"), think(3, "Done.", [])];
    events.forEach(log);
    const at = (s: string) => lines.findIndex((l) => l.includes(s));
    expect(at("I'll run the tests.")).toBeLessThan(at('"path":"a"'));
    expect(at("I'll read both files."), "the early call b is printed after the text that announces it").toBeLessThan(at('"path":"b"'));
    expect(at('"path":"b"')).toBeLessThan(at('"path":"c"'));
    expect(lines.filter((l) => l.includes("characters")).length, "every call's result is printed once").toBe(3);
  });

  it("calls of an answer that never completed are printed when the run stops", () => {
    const lines: string[] = [];
    const log = createLogger({ write: (l) => lines.push(l) });
    [act("x"), observe("x")].forEach(log);
    expect(lines).toEqual([]);
    log({ type: "stop", turn: 0, outcome: { status: "stopped", reason: "timeout", detail: "deadline" } as never, totals: emptyTotals(), ms: 1 });
    expect(lines.some((l) => l.includes('"path":"x"'))).toBe(true);
  });
});
