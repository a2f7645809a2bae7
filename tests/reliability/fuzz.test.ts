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
import { withDescription } from "../../scripts/reliability/plan.ts";

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

describe("the property can fail", () => {
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
