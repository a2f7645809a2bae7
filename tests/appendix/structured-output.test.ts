/**
 * The appendix "Structured output with tool_choice": each claim the page makes, checked against
 * the scripted model (which obeys tool_choice as the API does: the API reference's `tool_choice`,
 * and the tool-use docs on forcing a tool).
 */
import type Anthropic from "@anthropic-ai/sdk";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { quietOutput, scripted } from "../../runtime/testing.ts";
import type { Scenario } from "../../runtime/scripted/types.ts";
import { RECORD_REVIEW, Review, review, SAMPLE } from "../../examples/structured-output/extract.ts";

let restore: () => void;
beforeAll(() => {
  restore = quietOutput();
});
afterAll(() => restore());

describe("structured output with tool_choice", () => {
  it("the forced call's input is the answer: it fits the zod schema the tool was made from", async () => {
    const llm = scripted();
    const r = await review(llm, SAMPLE);
    expect(r.ok, r.ok ? "" : r.problem).toBe(true);
    if (!r.ok) return;
    expect(Review.parse(r.review)).toEqual(r.review);
    // The tool's input_schema is the same schema, as JSON Schema: the model is held to it.
    expect(z.fromJSONSchema(RECORD_REVIEW.input_schema as Parameters<typeof z.fromJSONSchema>[0]).safeParse(r.review).success).toBe(true);
  });

  it("the request forces the tool, and the answer is the call alone: stop_reason tool_use, no text before it", async () => {
    const llm = scripted();
    const r = await review(llm, SAMPLE);
    const sent = llm.scripted.exchanges[0]!.request as Anthropic.MessageCreateParams;
    expect(sent.tool_choice).toEqual({ type: "tool", name: "record_review" });
    expect(sent.tools).toEqual([RECORD_REVIEW]);
    expect(r.message?.stop_reason).toBe("tool_use");
    expect(r.message?.content.map((b) => b.type)).toEqual(["tool_use"]);
  });

  it("without the forced choice the same model may answer in prose, and there is nothing to parse", async () => {
    const llm = scripted();
    const m = await llm.client.messages.create({ model: llm.model, max_tokens: 1024, tools: [RECORD_REVIEW], messages: [{ role: "user", content: `Review this code:\n\n${SAMPLE}` }] });
    expect(m.content.some((b) => b.type === "tool_use")).toBe(false);
  });

  it("an input that does not fit the schema is reported, not trusted", async () => {
    const sloppy: Scenario = { id: "sloppy", title: "calls with a score out of range", reply: () => ({ content: [{ type: "tool_use", name: "record_review", input: { verdict: "approve", score: 9, summary: "fine", issues: [] } }] }) };
    const r = await review(scripted({ scenario: sloppy }), SAMPLE);
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.problem).toMatch(/does not fit the schema[\s\S]*score/);
  });

  it("a call cut off by max_tokens is not taken", async () => {
    const long: Scenario = { id: "long", title: "a call too long for max_tokens", reply: () => ({ content: [{ type: "tool_use", name: "record_review", input: { verdict: "approve", score: 3, summary: "x".repeat(8000), issues: [] } }] }) };
    const r = await review(scripted({ scenario: long }), SAMPLE);
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.problem).toMatch(/max_tokens/);
  });

  it("a forced tool and thinking do not go together: the API refuses the request", async () => {
    const llm = scripted();
    await expect(
      llm.client.messages.create({
        model: llm.model,
        max_tokens: 4096,
        thinking: { type: "enabled", budget_tokens: 1024 },
        tools: [RECORD_REVIEW],
        tool_choice: { type: "tool", name: "record_review" },
        messages: [{ role: "user", content: "Review this." }],
      }),
    ).rejects.toThrow("Thinking may not be enabled when tool_choice forces tool use.");
  });
});
