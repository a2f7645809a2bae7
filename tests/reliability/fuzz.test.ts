/**
 * A small sample of `npm run reliability`'s properties, on every lesson present: generated model
 * behaviour and tool outcomes, within what each lesson claims; after every run the transcript
 * passes the checker and can be sent again, and the loop returned. Plus proof that the property
 * can fail: a broken loop is caught, with a shrunk counterexample that reads as turns.
 */
import type Anthropic from "@anthropic-ai/sdk";
import { describe, expect, it } from "vitest";
import type { Llm } from "../../runtime/client.ts";
import { fuzzLesson, runPlan } from "../../scripts/reliability/fuzz.ts";
import { claimsFor, presentAdapters, spaceFor, type LessonAdapter } from "../../scripts/reliability/lessons.ts";
import { withDescription, type Stop } from "../../scripts/reliability/plan.ts";

const { adapters } = await presentAdapters();
const SAMPLE = Number(process.env.RELIABILITY_SAMPLE ?? 10);

describe("every lesson's loop holds under generated behaviour (sample)", () => {
  it("finds the lessons from the manifest, s01 first", () => {
    expect(adapters[0]?.lesson.id).toBe("s01");
  });

  for (const adapter of adapters) {
    it(`${adapter.lesson.id}: ${SAMPLE} generated runs, no violation, no crash`, async () => {
      const stats = await fuzzLesson(adapter, SAMPLE);
      expect(stats.counterexample ?? "", stats.counterexample).toBe("");
      expect(stats.runs).toBe(SAMPLE);
    });
  }
});

/** A loop with a classic bug: it answers only the FIRST tool call of a turn. */
const dropsSecondCall: LessonAdapter = {
  lesson: { id: "broken", dir: "broken", title: "broken", idea: "", entry: "", hints: ["", ""] },
  n: 2,
  claims: claimsFor(2),
  space: { ...spaceFor(2, claimsFor(2)), unknownTools: false, badInputs: false },
  async run({ client, model }: Llm, history: Anthropic.MessageParam[], tools) {
    while (true) {
      const response = await client.messages.create({
        model,
        max_tokens: 1024,
        tools: tools.map((t) => ({ name: t.name, description: t.description, input_schema: { type: "object" as const } })),
        messages: history,
      });
      history.push({ role: "assistant", content: response.content });
      if (response.stop_reason !== "tool_use") return { kind: "message", message: response };
      const call = response.content.find((b): b is Anthropic.ToolUseBlock => b.type === "tool_use")!;
      history.push({ role: "user", content: [{ type: "tool_result", tool_use_id: call.id, content: "ok" }] });
    }
  },
};

/**
 * A "streaming" loop (it claims early start) that starts every read-only call of a turn at once,
 * whatever the turn's stop_reason. `keep`: it uses their results even when the turn did not end
 * with tool_use; otherwise it answers them "not run" but never stops or awaits them.
 */
function startsReadsEarly(keep: boolean): LessonAdapter {
  const claims = { ...claimsFor(8), streaming: true };
  return {
    lesson: { id: "broken-early", dir: "broken", title: "broken", idea: "", entry: "", hints: ["", ""] },
    n: 8,
    claims,
    space: spaceFor(8, claims),
    async run({ client, model }: Llm, history: Anthropic.MessageParam[], tools) {
      while (true) {
        const response = await client.messages.create({
          model,
          max_tokens: 1024,
          tools: tools.map((t) => ({ name: t.name, description: t.description, input_schema: { type: "object" as const } })),
          messages: history,
        });
        history.push({ role: "assistant", content: response.content });
        const calls = response.content.filter((b): b is Anthropic.ToolUseBlock => b.type === "tool_use");
        const started = calls.map((c) => {
          const tool = tools.find((t) => t.name === c.name && t.readOnly);
          return tool ? tool.run(c.input as Record<string, unknown>) : null;
        });
        const used = response.stop_reason === "tool_use" || keep;
        const results = await Promise.all(
          calls.map(async (c, i): Promise<Anthropic.ToolResultBlockParam> => {
            const run = started[i];
            if (!used || !run) return { type: "tool_result", tool_use_id: c.id, is_error: true, content: "Not run" };
            return run.then(
              (out) => ({ type: "tool_result", tool_use_id: c.id, content: out || "(empty)" }),
              (e: Error) => ({ type: "tool_result", tool_use_id: c.id, is_error: true, content: e.message }),
            );
          }),
        );
        if (results.length > 0) history.push({ role: "user", content: results });
        if (response.stop_reason !== "tool_use") return { kind: "outcome", status: "stopped" };
      }
    },
  };
}

const oneTurn = (tool: string, stop: Stop) =>
  withDescription({ turns: [{ blocks: [{ type: "call", call: { tool, input: "valid" } }], stop }] });

describe("the property can fail", () => {
  it("catches a streaming loop that uses an early call's result although the turn ended with refusal", async () => {
    const verdict = await runPlan(startsReadsEarly(true), oneTurn("fz_ok", "refusal"));
    expect(verdict).toMatchObject({ ok: false, kind: "violation" });
    expect(verdict.ok ? "" : verdict.problem).toMatch(/n=1 was started early .* its result was used/);
  });

  it("catches a streaming loop that returns while a discarded early call still runs", async () => {
    const verdict = await runPlan(startsReadsEarly(false), oneTurn("fz_hang", "weird_new_reason"));
    expect(verdict).toMatchObject({ ok: false, kind: "violation" });
    expect(verdict.ok ? "" : verdict.problem).toMatch(/n=1 were still running when the loop returned/);
  });

  it("accepts the same loop on a turn that ends with tool_use (the check is about the stop_reason)", async () => {
    const verdict = await runPlan(startsReadsEarly(true), oneTurn("fz_ok", "natural"));
    expect(verdict).toEqual({ ok: true });
  });

  it("catches a loop that answers only the first call, and shrinks the counterexample to a short plan", async () => {
    const stats = await fuzzLesson(dropsSecondCall, 200, 42);
    expect(stats.violations + stats.crashes).toBe(1);
    expect(stats.counterexample).toMatch(/tool_use/);
    // Shrunk: a turn with two calls shows the bug; the plan keeps at most one more turn.
    expect(stats.counterexample).toMatch(/turn \d: fz_\w+\(\{n:\d+\}\) · fz_\w+\(\{n:\d+\}\)/);
    expect(stats.counterexample).not.toMatch(/turn 3:/);
  });

  it("reports a thrown error as a crash, not as a pass", async () => {
    const throws: LessonAdapter = { ...dropsSecondCall, run: async () => Promise.reject(new Error("kaboom")) };
    const plan = withDescription({ turns: [{ blocks: [{ type: "text", text: "hi" }], stop: "natural" }] });
    const verdict = await runPlan(throws, plan);
    expect(verdict).toMatchObject({ ok: false, kind: "crash" });
    expect(verdict.ok ? "" : verdict.problem).toContain("kaboom");
  });
});
