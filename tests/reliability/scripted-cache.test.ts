/**
 * The benchmark's cache figure relies on the scripted model caching as the API does: the prefix
 * up to a cache_control breakpoint is written, and a later request whose breakpoint moved forward
 * (on its new last message) reads what an earlier one wrote, found at an earlier block boundary.
 */
import type Anthropic from "@anthropic-ai/sdk";
import { describe, expect, it } from "vitest";
import { scripted } from "../../runtime/testing.ts";

const marked = (text: string): Anthropic.MessageParam => ({
  role: "user",
  content: [{ type: "text", text, cache_control: { type: "ephemeral" } }],
});

describe("the scripted model's prompt cache", () => {
  it("reads the previous turn's prefix when the breakpoint moves to the new last message", async () => {
    const llm = scripted({ scenario: "echo" });
    const long = "context ".repeat(2_000);
    const first = await llm.client.messages.create({ model: llm.model, max_tokens: 20, messages: [marked(long)] });
    expect(first.usage.cache_creation_input_tokens).toBeGreaterThan(0);
    expect(first.usage.cache_read_input_tokens).toBe(0);
    // Turn two: the same first message (no longer marked), an answer, and a new marked question.
    const second = await llm.client.messages.create({
      model: llm.model,
      max_tokens: 20,
      messages: [{ role: "user", content: long }, { role: "assistant", content: first.content }, marked("And now?")],
    });
    expect(second.usage.cache_read_input_tokens).toBe(first.usage.cache_creation_input_tokens);
    expect(second.usage.cache_creation_input_tokens).toBeGreaterThan(0);
    expect(second.usage.cache_creation_input_tokens!).toBeLessThan(second.usage.cache_read_input_tokens!);
  });

  it("reads nothing when the earlier content changed", async () => {
    const llm = scripted({ scenario: "echo" });
    await llm.client.messages.create({ model: llm.model, max_tokens: 20, messages: [marked("alpha ".repeat(500))] });
    const other = await llm.client.messages.create({ model: llm.model, max_tokens: 20, messages: [marked("beta ".repeat(500))] });
    expect(other.usage.cache_read_input_tokens).toBe(0);
  });
});
