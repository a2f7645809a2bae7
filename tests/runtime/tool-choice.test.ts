/**
 * The scripted model obeys what a request asks of its answer, whatever scenario answers it (the
 * API reference's `tool_choice`; the tool-use docs: with `any` or `tool` the API prefills the turn
 * so it is a tool call, with no text before it; `none` means no tool_use; `disable_parallel_tool_use`
 * means at most one call), and with thinking enabled every answer starts with a thinking block,
 * so a loop that sends the turn back as it came passes the thinking rules.
 */
import Anthropic from "@anthropic-ai/sdk";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { zodOutputFormat } from "@anthropic-ai/sdk/helpers/zod";
import { z } from "zod";
import { scriptedLlm } from "../../runtime/client.ts";
import { SCENARIOS } from "../../runtime/scripted/scenarios/index.ts";
import { inputFor } from "../../runtime/scripted/tool-choice.ts";
import type { Scenario } from "../../runtime/scripted/types.ts";

const str = { type: "string" };
const TOOLS: Anthropic.Tool[] = [
  { name: "bash", description: "Run a command.", input_schema: { type: "object", properties: { command: str }, required: ["command"] } },
  { name: "read_file", description: "Read a file.", input_schema: { type: "object", properties: { path: str }, required: ["path"] } },
  { name: "list_files", description: "List files.", input_schema: { type: "object", properties: { path: str } } },
  { name: "write_file", description: "Write a file.", input_schema: { type: "object", properties: { path: str, content: str }, required: ["path", "content"] } },
  { name: "edit_file", description: "Edit a file.", input_schema: { type: "object", properties: { path: str, old_text: str, new_text: str }, required: ["path", "old_text", "new_text"] } },
  {
    name: "record_review",
    description: "Record a code review as structured data.",
    input_schema: {
      type: "object",
      properties: {
        verdict: { type: "string", enum: ["approve", "request_changes"] },
        score: { type: "integer", minimum: 1, maximum: 5 },
        summary: { type: "string", minLength: 20, maxLength: 200 },
        issues: { type: "array", minItems: 1, items: { $ref: "#/$defs/issue" } },
        reviewed_at: { type: "string", format: "date-time" },
        follow_up: { anyOf: [{ type: "null" }, { type: "string" }] },
      },
      required: ["verdict", "score", "summary", "issues"],
      additionalProperties: false,
      $defs: { issue: { type: "object", properties: { line: { type: "integer", minimum: 1 }, note: str }, required: ["line", "note"], additionalProperties: false } },
    },
  },
];
const schemaOf = (name: string) => z.fromJSONSchema(TOOLS.find((t) => t.name === name)!.input_schema as Parameters<typeof z.fromJSONSchema>[0]);
const ask = (s: Scenario): Anthropic.MessageParam[] => [{ role: "user", content: s.task ?? "list the files" }];
const calls = (m: Anthropic.Message) => m.content.filter((b): b is Anthropic.ToolUseBlock => b.type === "tool_use");

async function answer(s: Scenario, params: Partial<Anthropic.MessageCreateParamsNonStreaming>, messages = ask(s)) {
  const { client } = scriptedLlm({ scenario: s }, { maxRetries: 0 });
  return client.messages.create({ model: "scripted-model", max_tokens: 4096, tools: TOOLS, messages, ...params });
}

describe("tool_choice is obeyed by every scenario's answers", () => {
  it.each(SCENARIOS.map((s) => [s.id, s] as const))("%s: none → no tool_use; any → tool calls only; tool → that tool, input fitting its schema", async (_id, s) => {
    const free = await answer(s, {});
    const none = await answer(s, { tool_choice: { type: "none" } });
    expect(calls(none), "[tool_choice-none] tool_choice none: the answer must call no tool").toEqual([]);
    expect(none.stop_reason).not.toBe("tool_use");
    if (calls(free).length > 0) expect(none.content.some((b) => b.type === "text"), "[tool_choice-none] a turn that would have called a tool says something instead").toBe(true);

    const any = await answer(s, { tool_choice: { type: "any" } });
    if (any.stop_reason !== "refusal") {
      expect(any.stop_reason, "[tool_choice-any] tool_choice any: a tool must be called").toBe("tool_use");
      expect(any.content.every((b) => b.type === "tool_use"), "[tool_choice-any] a forced call comes with no text before it").toBe(true);
      expect(calls(any).length).toBeGreaterThan(0);
    }

    for (const name of ["record_review", "bash"]) {
      const forced = await answer(s, { tool_choice: { type: "tool", name } });
      if (forced.stop_reason === "refusal") continue;
      expect(forced.stop_reason).toBe("tool_use");
      expect(forced.content.map((b) => (b.type === "tool_use" ? b.name : b.type)), `[tool_choice-tool] only ${name} is called`).toEqual(calls(forced).map(() => name));
      expect(calls(forced).length).toBeGreaterThan(0);
      for (const c of calls(forced)) {
        const fit = schemaOf(name).safeParse(c.input);
        expect(fit.success, `[tool_choice-tool] the input of the forced ${name} call fits its input_schema: ${JSON.stringify(c.input)} ${fit.error?.message ?? ""}`).toBe(true);
      }
    }

    const single = await answer(s, { tool_choice: { type: "any", disable_parallel_tool_use: true } });
    if (single.stop_reason !== "refusal") expect(calls(single).length, "[tool_choice-single] disable_parallel_tool_use: one call").toBe(1);
  });

  it("after a forced call, tool_choice none on the next request gets a text answer (the loop goes on)", async () => {
    const s = SCENARIOS.find((x) => x.id === "s02_tool_dispatch")!;
    const { client } = scriptedLlm({ scenario: s }, { maxRetries: 0 });
    const messages: Anthropic.MessageParam[] = ask(s);
    const first = await client.messages.create({ model: "scripted-model", max_tokens: 4096, tools: TOOLS, messages, tool_choice: { type: "tool", name: "list_files" } });
    messages.push({ role: "assistant", content: first.content });
    messages.push({ role: "user", content: calls(first).map((c) => ({ type: "tool_result" as const, tool_use_id: c.id, content: "README.md\nsrc/greet.mjs" })) });
    const next = await client.messages.create({ model: "scripted-model", max_tokens: 4096, tools: TOOLS, messages, tool_choice: { type: "none" } });
    expect(calls(next)).toEqual([]);
    expect(next.content.some((b) => b.type === "text")).toBe(true);
  });

  it("auto with disable_parallel_tool_use: the parallel scenario's turn keeps one call", async () => {
    const s = SCENARIOS.find((x) => x.id === "s03_parallel_tools")!;
    // The scenario's second turn reads three files at once.
    const first = await answer(s, {});
    const messages: Anthropic.MessageParam[] = [
      ...ask(s),
      { role: "assistant", content: first.content },
      { role: "user", content: calls(first).map((c) => ({ type: "tool_result" as const, tool_use_id: c.id, content: "not ok 1 - locks after 3 failures" })) },
    ];
    const free = await answer(s, {}, messages);
    const single = await answer(s, { tool_choice: { type: "auto", disable_parallel_tool_use: true } }, messages);
    expect(calls(free).length, "the scenario calls tools in parallel when it may").toBeGreaterThan(1);
    expect(calls(single).length).toBe(1);
  });

  it("inputFor builds an input that fits the schema: enums, bounds, lengths, $ref, anyOf, formats", () => {
    const schema = TOOLS.at(-1)!.input_schema as Record<string, unknown>;
    const input = inputFor(schema);
    expect(schemaOf("record_review").parse(input)).toEqual(input);
    expect(input).toMatchObject({ verdict: "approve", score: 1, issues: [{ line: 1 }] });
    expect((input.summary as string).length).toBeGreaterThanOrEqual(20);
  });
});

describe("thinking enabled: every answer starts with its thinking, and a loop that sends turns back as they came goes on", () => {
  it("a multi-step tool task with thinking on: each request accepted, each answer thinking first", async () => {
    const s = SCENARIOS.find((x) => x.id === "s02_tool_dispatch")!;
    const { client, scripted } = scriptedLlm({ scenario: s }, { maxRetries: 0 });
    const messages: Anthropic.MessageParam[] = ask(s);
    let last: Anthropic.Message | undefined;
    for (let turn = 0; turn < 8; turn++) {
      last = await client.messages.create({ model: "scripted-model", max_tokens: 8000, thinking: { type: "enabled", budget_tokens: 2048 }, tools: TOOLS, messages });
      expect(last.content[0]?.type, "[thinking-first] with thinking enabled, the answer starts with a thinking block").toBe("thinking");
      messages.push({ role: "assistant", content: last.content });
      if (last.stop_reason !== "tool_use") break;
      messages.push({ role: "user", content: calls(last).map((c) => ({ type: "tool_result" as const, tool_use_id: c.id, content: "ok" })) });
    }
    expect(last?.stop_reason).toBe("end_turn");
    expect(scripted.exchanges.filter((e) => e.error)).toEqual([]);
  });

  it("the same loop that drops the thinking block is refused with the API's words", async () => {
    const s = SCENARIOS.find((x) => x.id === "s02_tool_dispatch")!;
    const { client } = scriptedLlm({ scenario: s }, { maxRetries: 0 });
    const params = { model: "scripted-model", max_tokens: 8000, thinking: { type: "enabled" as const, budget_tokens: 2048 }, tools: TOOLS };
    const messages: Anthropic.MessageParam[] = ask(s);
    const first = await client.messages.create({ ...params, messages });
    messages.push({ role: "assistant", content: first.content.filter((b) => b.type !== "thinking") });
    messages.push({ role: "user", content: calls(first).map((c) => ({ type: "tool_result" as const, tool_use_id: c.id, content: "ok" })) });
    await expect(client.messages.create({ ...params, messages })).rejects.toThrow(/must start with a thinking block|cannot be modified/);
  });
});

describe("a paused turn sent back is a continuation, not a prefill", () => {
  const pausing: Scenario = {
    id: "test_pause",
    title: "pauses once, then finishes",
    reply: (ctx) => (ctx.step === 0 ? { content: [{ type: "text", text: "Searching…" }], stop_reason: "pause_turn" } : { content: [{ type: "text", text: "Done." }] }),
  };

  it("claude-sonnet-4-6 (no prefill) takes its own paused turn back, and refuses any other final assistant message", async () => {
    const { client } = scriptedLlm({ scenario: pausing }, { maxRetries: 0 });
    const messages: Anthropic.MessageParam[] = [{ role: "user", content: "find it" }];
    const paused = await client.messages.create({ model: "claude-sonnet-4-6", max_tokens: 1000, messages });
    expect(paused.stop_reason).toBe("pause_turn");
    const done = await client.messages.create({ model: "claude-sonnet-4-6", max_tokens: 1000, messages: [...messages, { role: "assistant", content: paused.content }] });
    expect(done.stop_reason).toBe("end_turn");
    // A cache breakpoint on its last block (as s13 moves one forward each turn) does not change it.
    const marked = paused.content.map((b, i, all) => (i === all.length - 1 ? { ...b, cache_control: { type: "ephemeral" as const } } : b)) as Anthropic.ContentBlockParam[];
    expect((await client.messages.create({ model: "claude-sonnet-4-6", max_tokens: 1000, messages: [...messages, { role: "assistant", content: marked }] })).stop_reason).toBe("end_turn");
    await expect(
      client.messages.create({ model: "claude-sonnet-4-6", max_tokens: 1000, messages: [...messages, { role: "assistant", content: "Sure, here it is:" }] }),
    ).rejects.toThrow(/does not support assistant message prefill/);
  });
});

describe("output_config.format (structured outputs): the final answer's text is JSON that fits the schema", () => {
  it("client.messages.parse() with zodOutputFormat gets a parsed_output, whatever scenario answers", async () => {
    const Answer = z.object({ city: z.string(), population: z.int().min(0), tags: z.array(z.enum(["coast", "capital"])) });
    for (const id of ["intents", "echo"]) {
      const { client } = scriptedLlm({ scenario: id }, { maxRetries: 0 });
      const m = await client.messages.parse({ model: "scripted-model", max_tokens: 1024, messages: [{ role: "user", content: "Which city?" }], output_config: { format: zodOutputFormat(Answer) } });
      expect(m.content.map((b) => b.type)).toEqual(["text"]);
      expect(Answer.parse(m.parsed_output)).toEqual(m.parsed_output);
    }
  });

  it("a turn that calls tools is left as it is (the format applies to the final answer)", async () => {
    const s = SCENARIOS.find((x) => x.id === "s02_tool_dispatch")!;
    const m = await answer(s, { output_config: { format: { type: "json_schema", schema: { type: "object", properties: { done: { type: "boolean" } } } } } });
    expect(calls(m).length).toBeGreaterThan(0);
  });
});

describe("inputFor, for any schema a tool may declare", () => {
  // Satisfiable JSON Schemas (draft 2020-12) of the kinds tools declare: the input built for a
  // forced call must fit each one.
  const leaf: fc.Arbitrary<Record<string, unknown>> = fc.oneof(
    fc.record({ type: fc.constant("string"), minLength: fc.nat(30), span: fc.nat(20) }).map(({ minLength, span }) => ({ type: "string", minLength, maxLength: minLength + span })),
    fc.record({ type: fc.constant("string"), format: fc.constantFrom("date-time", "date", "email", "uri", "uuid") }),
    fc.record({ type: fc.constant("string"), enum: fc.uniqueArray(fc.string({ minLength: 1, maxLength: 5 }), { minLength: 1, maxLength: 4 }) }),
    fc.record({ min: fc.integer({ min: -50, max: 50 }), span: fc.nat(10) }).map(({ min, span }) => ({ type: "integer", minimum: min, maximum: min + span })),
    fc.record({ min: fc.integer({ min: -5, max: 5 }) }).map(({ min }) => ({ type: "number", exclusiveMinimum: min })),
    fc.constant({ type: "boolean" }),
    fc.constant({ type: "null" }),
    fc.constant({ $ref: "#/$defs/item" }),
  );
  const node = fc.letrec<{ node: Record<string, unknown> }>((tie) => ({
    node: fc.oneof(
      { depthSize: "small", withCrossShrink: true },
      leaf,
      fc.record({ items: tie("node"), minItems: fc.nat(3) }).map(({ items, minItems }) => ({ type: "array", items, minItems, maxItems: minItems + 2 })),
      fc.dictionary(fc.stringMatching(/^[a-z][a-z_]{0,8}$/), tie("node"), { maxKeys: 4 }).map((properties) => ({ type: "object", properties, required: Object.keys(properties), additionalProperties: false })),
      tie("node").map((inner) => ({ anyOf: [inner, { type: "null" }] })),
    ),
  })).node;
  const toolSchema = fc.dictionary(fc.stringMatching(/^[a-z][a-z_]{0,8}$/), node, { minKeys: 1, maxKeys: 5 }).map((properties) => ({
    type: "object",
    properties,
    required: Object.keys(properties),
    additionalProperties: false,
    $defs: { item: { type: "object", properties: { id: { type: "integer", minimum: 1 }, label: { type: "string" } }, required: ["id", "label"] } },
  }));

  it("builds an input that the schema accepts", () => {
    fc.assert(
      fc.property(toolSchema, (schema) => {
        const input = inputFor(schema);
        const check = z.fromJSONSchema(schema as Parameters<typeof z.fromJSONSchema>[0]).safeParse(input);
        expect(check.success, `${JSON.stringify(schema)}\n→ ${JSON.stringify(input)}\n${check.error?.message ?? ""}`).toBe(true);
      }),
      { numRuns: 300 },
    );
  });
});
