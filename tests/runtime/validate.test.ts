/**
 * Request validation of the scripted model: every case the real Messages API rejects, with the
 * API's own error text (api-notes.md), and every case it accepts. Properties (fast-check): any
 * order of results is accepted; any valid generated transcript passes both the validator and the
 * transcript checker; a transcript with one result removed fails both, naming the id.
 */
import type Anthropic from "@anthropic-ai/sdk";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { scriptedLlm } from "../../runtime/client.ts";
import { call, text, thinking } from "../../runtime/scripted/scenarios/script.ts";
import { signThinking } from "../../runtime/scripted/signature.ts";
import type { Scenario } from "../../runtime/scripted/types.ts";
import { contextWindowOf, findModel, MODEL_TABLE } from "../../runtime/scripted/models.ts";
import { PREFILL_UNSUPPORTED, validateRequest } from "../../runtime/scripted/validate.ts";
import { checkTranscript } from "../../runtime/transcript.ts";

const secret = "test-secret";
type Msg = { role: string; content: unknown };
const body = (messages: Msg[], extra: Record<string, unknown> = {}) => ({ model: "scripted-model", max_tokens: 100, messages, ...extra });
const errorOf = (b: unknown) => validateRequest(b, { secret })?.message ?? null;

const use = (id: string, name = "bash", input: Record<string, unknown> = { command: "ls" }) => ({ type: "tool_use", id, name, input });
const result = (id: string, content: unknown = "ok", extra: Record<string, unknown> = {}) => ({
  type: "tool_result",
  tool_use_id: id,
  content,
  ...extra,
});
const txt = (t: string) => ({ type: "text", text: t });
const user = (...content: unknown[]): Msg => ({ role: "user", content });
const assistant = (...content: unknown[]): Msg => ({ role: "assistant", content });
const ask = user(txt("go"));

const MISSING = (n: number, ids: string) =>
  `messages.${n}: \`tool_use\` ids were found without \`tool_result\` blocks immediately after: ${ids}. Each \`tool_use\` block must have a corresponding \`tool_result\` block in the next message.`;
const UNEXPECTED = (n: number, m: number, id: string) =>
  `messages.${n}.content.${m}: unexpected \`tool_use_id\` found in \`tool_result\` blocks: ${id}. Each \`tool_result\` block must have a corresponding \`tool_use\` block in the previous message.`;
const MODIFIED = (n: number, m: number) =>
  `messages.${n}.content.${m}: \`thinking\` or \`redacted_thinking\` blocks in the latest assistant message cannot be modified. These blocks must remain as they were in the original response.`;

describe("validation: what the API rejects, with its own words", () => {
  const cases: Array<[string, unknown, string]> = [
    ["missing model", { max_tokens: 10, messages: [ask] }, "model: Field required"],
    ["missing max_tokens", { model: "scripted-model", messages: [ask] }, "max_tokens: Field required"],
    ["missing messages", { model: "scripted-model", max_tokens: 10 }, "messages: Field required"],
    ["no messages", body([]), "messages: at least one message is required"],
    ["first message from the assistant", body([assistant(txt("hi")), ask]), 'messages: first message must use the "user" role'],
    ["an empty user message", body([user()]), "messages.0: all messages must have non-empty content except for the optional final assistant message"],
    ["an empty string message", body([{ role: "user", content: "" }]), "messages.0: all messages must have non-empty content except for the optional final assistant message"],
    [
      "an empty assistant message in the middle",
      body([ask, assistant(), user(txt("again"))]),
      "messages.1: all messages must have non-empty content except for the optional final assistant message",
    ],
    ["an empty text block", body([user(txt(""))]), "messages: text content blocks must be non-empty"],
    ["a whitespace-only text block", body([user(txt("  \n "))]), "messages: text content blocks must contain non-whitespace text"],
    ["whitespace-only string content", body([{ role: "user", content: "   " }]), "messages: text content blocks must contain non-whitespace text"],
    [
      "an error result with empty content",
      body([ask, assistant(use("toolu_a")), user(result("toolu_a", "", { is_error: true }))]),
      "messages.2.content.0.tool_result: content cannot be empty if `is_error` is true",
    ],
    [
      "is_error as a string",
      body([ask, assistant(use("toolu_a")), user({ type: "tool_result", tool_use_id: "toolu_a", content: "x", is_error: "true" })]),
      "messages.2.content.0.tool_result.is_error: Input should be a valid boolean",
    ],
    [
      "an error result with no content at all",
      body([ask, assistant(use("toolu_a")), user({ type: "tool_result", tool_use_id: "toolu_a", is_error: true })]),
      "messages.2.content.0.tool_result: content cannot be empty if `is_error` is true",
    ],
    [
      "an error result with an empty block list",
      body([ask, assistant(use("toolu_a")), user(result("toolu_a", [], { is_error: true }))]),
      "messages.2.content.0.tool_result: content cannot be empty if `is_error` is true",
    ],
    ["a tool_use without its result (transcript ends)", body([ask, assistant(use("toolu_a"))]), MISSING(1, "toolu_a")],
    ["a tool_use answered by plain text", body([ask, assistant(use("toolu_a")), user(txt("done"))]), MISSING(1, "toolu_a")],
    [
      "two tool_uses, one answered",
      body([ask, assistant(use("toolu_a"), use("toolu_b")), user(result("toolu_a"))]),
      MISSING(1, "toolu_b"),
    ],
    [
      "two tool_uses, none answered (both ids named)",
      body([ask, assistant(use("toolu_a"), use("toolu_b")), user(txt("hm"))]),
      MISSING(1, "toolu_a, toolu_b"),
    ],
    [
      "text before the results",
      body([ask, assistant(use("toolu_a")), user(txt("here"), result("toolu_a"))]),
      MISSING(1, "toolu_a"),
    ],
    [
      "results split over two user messages",
      body([ask, assistant(use("toolu_a"), use("toolu_b")), user(result("toolu_a")), user(result("toolu_b"))]),
      MISSING(1, "toolu_b"),
    ],
    ["an orphan result in the first message", body([user(result("toolu_x"))]), UNEXPECTED(0, 0, "toolu_x")],
    [
      "a result for an id nobody asked for",
      body([ask, assistant(use("toolu_a")), user(result("toolu_a"), result("toolu_x"))]),
      UNEXPECTED(2, 1, "toolu_x"),
    ],
    [
      "a stale result (answers an earlier turn's call)",
      body([
        ask,
        assistant(use("toolu_a")),
        user(result("toolu_a")),
        assistant(use("toolu_b")),
        user(result("toolu_b"), result("toolu_a")),
      ]),
      UNEXPECTED(4, 1, "toolu_a"),
    ],
    [
      "a duplicate result",
      body([ask, assistant(use("toolu_a")), user(result("toolu_a"), result("toolu_a", "again"))]),
      "messages.2.content.1: each tool_use must have a single result. Found multiple `tool_result` blocks with id: toolu_a",
    ],
    [
      "a bad tool name",
      body([ask], { tools: [{ name: "run bash!", input_schema: { type: "object" } }] }),
      "tools.0.custom.name: String should match pattern '^[a-zA-Z0-9_-]{1,128}$'",
    ],
    [
      "a tool name too long",
      body([ask], { tools: [{ name: "x".repeat(129), input_schema: { type: "object" } }] }),
      "tools.0.custom.name: String should match pattern '^[a-zA-Z0-9_-]{1,128}$'",
    ],
    ["a tool without input_schema", body([ask], { tools: [{ name: "bash" }] }), "tools.0.custom.input_schema: Field required"],
    [
      "a tool whose schema is not an object schema",
      body([ask], { tools: [{ name: "bash", input_schema: { type: "string" } }] }),
      "tools.0.custom.input_schema.type: Input should be 'object'",
    ],
    [
      "two tools with one name",
      body([ask], {
        tools: [
          { name: "bash", input_schema: { type: "object" } },
          { name: "bash", input_schema: { type: "object" } },
        ],
      }),
      "tools: Tool names must be unique.",
    ],
    ["a tool_use in a user message", body([user(use("toolu_a"))]), "messages.0.content.0: `tool_use` blocks can only be in `assistant` messages"],
    [
      "a tool_use id used twice",
      body([ask, assistant(use("toolu_a")), user(result("toolu_a")), assistant(use("toolu_a")), user(result("toolu_a"))]),
      "messages.3.content.0: `tool_use` ids must be unique",
    ],
    ["an empty system text block", body([ask], { system: [{ type: "text", text: "" }] }), "system: text content blocks must be non-empty"],
    ["a temperature above 1", body([ask], { temperature: 1.5 }), "temperature: Input should be less than or equal to 1"],
    ["a negative top_p", body([ask], { top_p: -0.1 }), "top_p: Input should be greater than or equal to 0"],
    [
      "a thinking budget under 1024",
      body([ask], { max_tokens: 4000, thinking: { type: "enabled", budget_tokens: 500 } }),
      "thinking.enabled.budget_tokens: Input should be greater than or equal to 1024",
    ],
    [
      "a thinking budget not below max_tokens",
      body([ask], { max_tokens: 2000, thinking: { type: "enabled", budget_tokens: 2000 } }),
      "`max_tokens` must be greater than `thinking.budget_tokens`",
    ],
    [
      "a final assistant prefill ending in whitespace",
      body([ask, assistant(txt("The answer is "))]),
      "messages: final assistant content cannot end with trailing whitespace",
    ],
    [
      "a tool_result in an assistant message",
      body([ask, assistant(result("toolu_a"))]),
      "messages.1.content.0: `tool_result` blocks can only be in `user` messages",
    ],
    [
      "a 1h cache marker after a 5m one (tools, then system, then messages)",
      body([{ role: "user", content: [{ type: "text", text: "hi", cache_control: { type: "ephemeral", ttl: "1h" } }] }], { system: [{ type: "text", text: "be brief", cache_control: { type: "ephemeral" } }] }),
      "messages.0.content.0.cache_control.ttl: a ttl='1h' cache_control block must not come after a ttl='5m' cache_control block. Note that blocks are processed in the following order: `tools`, `system`, `messages`.",
    ],
    [
      "an SVG image in a tool_result",
      body([ask, assistant(use("toolu_a")), user(result("toolu_a", [{ type: "image", source: { type: "base64", media_type: "image/svg+xml", data: "PHN2Zz4=" } }]))]),
      "messages.2.content.0.tool_result.content.0.image.source.base64.media_type: Input should be 'image/jpeg', 'image/png', 'image/gif' or 'image/webp'",
    ],
  ];

  it.each(cases)("rejects %s", (_name, request, expected) => {
    expect(errorOf(request)).toBe(expected);
  });

  it("rejects a block in a tool_result's content that a result cannot hold", () => {
    const e = errorOf(body([ask, assistant(use("toolu_a")), user(result("toolu_a", [txt("ok"), use("toolu_z")]))]));
    expect(e).toMatch(/^messages\.2\.content\.0\.tool_result\.content\.1: Input tag 'tool_use' found using 'type' does not match any of the expected tags: 'text', 'image', /);
  });

  it("rejects an unknown block type, naming it and the expected tags", () => {
    const e = errorOf(body([user({ type: "picture", url: "x" })]));
    expect(e).toMatch(/^messages\.0\.content\.0: Input tag 'picture' found using 'type' does not match any of the expected tags: 'text', /);
  });

  it("answers a rejection as 400 invalid_request_error with x-should-retry: false", async () => {
    const { client, scripted } = scriptedLlm({}, { maxRetries: 2 });
    const res = await scripted.handle(
      new Request("http://x/v1/messages", {
        method: "POST",
        headers: { "x-api-key": "k", "anthropic-version": "2023-06-01" },
        body: JSON.stringify(body([ask, assistant(use("toolu_q")), user(txt("no"))])),
      }),
    );
    expect(res.status).toBe(400);
    expect(res.headers.get("x-should-retry")).toBe("false");
    const json = (await res.json()) as { type: string; error: { type: string; message: string }; request_id: string };
    expect(json.type).toBe("error");
    expect(json.error).toEqual({ type: "invalid_request_error", message: MISSING(1, "toolu_q") });
    expect(json.request_id).toMatch(/^req_/);
    // And the SDK surfaces it as a BadRequestError without retrying.
    await expect(
      client.messages.create({ model: "scripted-model", max_tokens: 10, messages: [{ role: "user", content: "" }] }),
    ).rejects.toMatchObject({ status: 400 });
    // Two exchanges: the one above and the SDK's single attempt (maxRetries 2 was not used).
    expect(scripted.exchanges).toHaveLength(2);
  });
});

describe("validation: what the API accepts", () => {
  const accepted: Array<[string, unknown]> = [
    ["string content", body([{ role: "user", content: "hello" }])],
    ["results in reverse order", body([ask, assistant(use("toolu_a"), use("toolu_b")), user(result("toolu_b"), result("toolu_a"))])],
    ["text after the results", body([ask, assistant(use("toolu_a")), user(result("toolu_a"), txt("and also this"))])],
    ["a result whose content is a block list", body([ask, assistant(use("toolu_a")), user(result("toolu_a", [txt("line 1"), txt("line 2")]))])],
    ["a result with no content", body([ask, assistant(use("toolu_a")), user({ type: "tool_result", tool_use_id: "toolu_a" })])],
    ["an error result with content", body([ask, assistant(use("toolu_a")), user(result("toolu_a", "boom", { is_error: true }))])],
    ["a final assistant prefill", body([ask, assistant(txt("The answer is"))])],
    ["an empty final assistant message", body([ask, { role: "assistant", content: [] }])],
    ["text before a tool_use in the assistant turn", body([ask, assistant(txt("I'll look."), use("toolu_a")), user(result("toolu_a"))])],
    ["a tool with a valid name and schema", body([ask], { tools: [{ name: "read_file-2", input_schema: { type: "object", properties: {} } }] })],
    ["a server tool declared by type", body([ask], { tools: [{ type: "web_search_20250305", name: "web_search" }] })],
    ["a system prompt as blocks", body([ask], { system: [{ type: "text", text: "be brief" }] })],
    [
      "a 1h cache marker before a 5m one",
      body([{ role: "user", content: [{ type: "text", text: "hi", cache_control: { type: "ephemeral", ttl: "5m" } }] }], { system: [{ type: "text", text: "be brief", cache_control: { type: "ephemeral", ttl: "1h" } }] }),
    ],
    ["a PNG image in a tool_result", body([ask, assistant(use("toolu_a")), user(result("toolu_a", [txt("see"), { type: "image", source: { type: "base64", media_type: "image/png", data: "iVBORw0KGgo=" } }]))])],
    ["sampling settings in range", body([ask], { temperature: 0, top_p: 1, top_k: 5 })],
    ["extended thinking with a budget below max_tokens", body([ask], { max_tokens: 4000, thinking: { type: "enabled", budget_tokens: 1024 } })],
    ["thinking disabled", body([ask], { thinking: { type: "disabled" } })],
    [
      "thinking signed by this model",
      body([ask, assistant({ type: "thinking", thinking: "hmm", signature: signThinking(secret, "hmm") }, txt("ok")), user(txt("next"))]),
    ],
  ];
  it.each(accepted)("accepts %s", (_name, request) => {
    expect(errorOf(request)).toBeNull();
  });
});

describe("validation: thinking blocks in the latest assistant message", () => {
  const thinker: Scenario = {
    id: "test-thinker",
    title: "thinks twice, says something, calls bash",
    reply: () => ({ content: [thinking("First thought."), { type: "redacted_thinking", data: "opaque" }, text("Let me look."), call("bash", { command: "ls" })] }),
  };

  async function issued() {
    const llm = scriptedLlm({ scenario: thinker }, { maxRetries: 0 });
    const response = await llm.client.messages.create({ model: "scripted-model", max_tokens: 500, messages: [{ role: "user", content: "go" }] });
    const content = response.content as Anthropic.ContentBlockParam[];
    const id = (response.content.find((b) => b.type === "tool_use") as Anthropic.ToolUseBlock).id;
    const next = (assistantContent: unknown[]) =>
      body([{ role: "user", content: "go" }, { role: "assistant", content: assistantContent }, user(result(id))]);
    return { llm, content, next };
  }

  it("accepts the content returned intact", async () => {
    const { llm, content, next } = await issued();
    expect(llm.scripted.validate(next(content))).toBeNull();
  });

  it("rejects an edited thinking text", async () => {
    const { llm, content, next } = await issued();
    const edited = content.map((b) => (b.type === "thinking" ? { ...b, thinking: b.thinking + " (edited)" } : b));
    expect(llm.scripted.validate(next(edited))?.message).toBe(MODIFIED(1, 0));
  });

  it("rejects a thinking block whose signature was replaced", async () => {
    const { llm, content, next } = await issued();
    const edited = content.map((b) => (b.type === "thinking" ? { ...b, signature: "sig_forged" } : b));
    expect(llm.scripted.validate(next(edited))?.message).toBe(MODIFIED(1, 0));
  });

  it("rejects a dropped thinking block", async () => {
    const { llm, content, next } = await issued();
    expect(llm.scripted.validate(next(content.filter((b) => b.type !== "thinking")))?.message).toMatch(/cannot be modified/);
  });

  it("rejects a dropped redacted_thinking block", async () => {
    const { llm, content, next } = await issued();
    expect(llm.scripted.validate(next(content.filter((b) => b.type !== "redacted_thinking")))?.message).toMatch(/cannot be modified/);
  });

  it("rejects reordered thinking blocks", async () => {
    const { llm, content, next } = await issued();
    const [a, b, ...rest] = content;
    expect(llm.scripted.validate(next([b, a, ...rest]))?.message).toMatch(/^messages\.1\.content\.0: .*cannot be modified/);
  });

  it("rejects a forged thinking block in an earlier assistant message", () => {
    const e = errorOf(
      body([ask, assistant({ type: "thinking", thinking: "made up", signature: "sig_nope" }, txt("hi")), user(txt("more"))]),
    );
    // It is also the latest assistant message here.
    expect(e).toBe(MODIFIED(1, 0));
    const older = errorOf(
      body([ask, assistant({ type: "thinking", thinking: "made up", signature: "sig_nope" }, txt("hi")), user(txt("more")), assistant(txt("ok")), user(txt("again"))]),
    );
    expect(older).toBe("messages.1.content.0: Invalid `signature` in `thinking` block");
  });
});

// ── properties ─────────────────────────────────────────────────────────────────────────────

/** A generated valid conversation: turns of text, thinking and tool calls, every call answered. */
const turnArb = fc.record({
  think: fc.boolean(),
  say: fc.option(fc.string({ minLength: 1, maxLength: 12 }).filter((s) => s.trim().length > 0), { nil: undefined }),
  calls: fc.integer({ min: 0, max: 4 }),
  order: fc.array(fc.nat(), { minLength: 4, maxLength: 4 }),
  after: fc.boolean(),
  errorAt: fc.option(fc.nat(3), { nil: undefined }),
});

type Turn = typeof turnArb extends fc.Arbitrary<infer T> ? T : never;

function buildTranscript(turns: Turn[], endWithAssistant: boolean): Msg[] {
  const messages: Msg[] = [{ role: "user", content: "start" }];
  let n = 0;
  turns.forEach((t, k) => {
    const content: unknown[] = [];
    if (t.think) content.push({ type: "thinking", thinking: `thought ${k}`, signature: signThinking(secret, `thought ${k}`) });
    if (t.say) content.push(txt(t.say));
    const ids = Array.from({ length: t.calls }, () => `toolu_${n++}`);
    for (const id of ids) content.push(use(id));
    if (content.length === 0) content.push(txt("…"));
    messages.push({ role: "assistant", content });
    const shuffled = ids
      .map((id, i) => ({ id, key: t.order[i] ?? 0 }))
      .sort((a, b) => a.key - b.key)
      .map(({ id }) => id);
    const answer: unknown[] = shuffled.map((id, i) => (t.errorAt === i ? result(id, "failed", { is_error: true }) : result(id, `out ${id}`)));
    if (t.after || answer.length === 0) answer.push(txt(`note ${k}`));
    messages.push({ role: "user", content: answer });
  });
  if (endWithAssistant) messages.push(assistant(txt("done")));
  return messages;
}

describe("validation: properties", () => {
  it("accepts the results of a turn in any order", () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 6 }).chain((n) => fc.tuple(fc.constant(n), fc.shuffledSubarray([...Array(n).keys()], { minLength: n, maxLength: n }))), ([n, perm]) => {
        const ids = Array.from({ length: n }, (_, i) => `toolu_${i}`);
        const request = body([ask, assistant(...ids.map((id) => use(id))), user(...perm.map((i) => result(ids[i]!)))]);
        expect(errorOf(request)).toBeNull();
      }),
    );
  });

  it("any valid generated transcript passes the validator and the checker", () => {
    fc.assert(
      fc.property(fc.array(turnArb, { maxLength: 5 }), fc.boolean(), (turns, end) => {
        const messages = buildTranscript(turns, end);
        expect(errorOf(body(messages))).toBeNull();
        expect(checkTranscript(messages as Anthropic.MessageParam[])).toEqual([]);
      }),
    );
  });

  it("removing any one result is rejected by both, naming its id", () => {
    fc.assert(
      fc.property(
        fc.array(turnArb, { minLength: 1, maxLength: 5 }).filter((ts) => ts.some((t) => t.calls > 0)),
        fc.nat(),
        (turns, pick) => {
          const messages = buildTranscript(turns, false);
          const places = messages.flatMap((m, i) =>
            Array.isArray(m.content) ? (m.content as Array<{ type: string; tool_use_id?: string }>).flatMap((b, j) => (b.type === "tool_result" ? [{ i, j, id: b.tool_use_id! }] : [])) : [],
          );
          const { i, j, id } = places[pick % places.length]!;
          const content = [...(messages[i]!.content as unknown[])];
          content.splice(j, 1);
          if (content.length === 0) content.push(txt("nothing"));
          const broken = messages.map((m, k) => (k === i ? { ...m, content } : m));
          expect(errorOf(body(broken))).toContain(id);
          const violations = checkTranscript(broken as Anthropic.MessageParam[]);
          expect(violations.some((v) => v.rule === "unanswered-tool-use" && v.message.includes(id))).toBe(true);
        },
      ),
    );
  });
});

describe("validation and the checker agree", () => {
  type Block = { type: string; [k: string]: unknown };
  const blocksAt = (m: Msg): Block[] => (Array.isArray(m.content) ? (m.content as Block[]) : [{ type: "text", text: m.content as string }]);
  /** Small edits a buggy loop makes to a transcript. */
  const mutations: Array<(ms: Msg[], a: number, b: number) => Msg[]> = [
    // drop a block
    (ms, a, b) => ms.map((m, i) => (i === a % ms.length ? { ...m, content: blocksAt(m).filter((_, j) => j !== b % blocksAt(m).length) } : m)),
    // duplicate a block
    (ms, a, b) => ms.map((m, i) => (i === a % ms.length ? { ...m, content: blocksAt(m).flatMap((x, j) => (j === b % blocksAt(m).length ? [x, x] : [x])) } : m)),
    // put a text block first
    (ms, a) => ms.map((m, i) => (i === a % ms.length ? { ...m, content: [txt("note"), ...blocksAt(m)] } : m)),
    // split a message in two after its first block
    (ms, a) => ms.flatMap((m, i) => (i === a % ms.length && blocksAt(m).length > 1 ? [{ ...m, content: blocksAt(m).slice(0, 1) }, { ...m, content: blocksAt(m).slice(1) }] : [m])),
    // drop a message
    (ms, a) => ms.filter((_, i) => i !== a % ms.length),
    // empty a message
    (ms, a) => ms.map((m, i) => (i === a % ms.length ? { ...m, content: [] } : m)),
    // answer the wrong id
    (ms, a, b) => ms.map((m, i) => (i === a % ms.length ? { ...m, content: blocksAt(m).map((x, j) => (j === b % blocksAt(m).length && x.type === "tool_result" ? { ...x, tool_use_id: "toolu_wrong" } : x)) } : m)),
    // an empty error result
    (ms, a) => ms.map((m, i) => (i === a % ms.length ? { ...m, content: blocksAt(m).map((x) => (x.type === "tool_result" ? { ...x, content: "", is_error: true } : x)) } : m)),
  ];

  it("whatever the API would reject, the checker reports too (it is never more lenient)", () => {
    fc.assert(
      fc.property(
        fc.array(turnArb, { minLength: 1, maxLength: 4 }),
        fc.array(fc.tuple(fc.nat(mutations.length - 1), fc.nat(), fc.nat()), { minLength: 1, maxLength: 2 }),
        (turns, edits) => {
          let messages = buildTranscript(turns, false);
          for (const [k, a, b] of edits) messages = mutations[k]!(messages, a, b);
          const api = errorOf(body(messages));
          // Not a pairing rule: a final assistant turn is followed by the next user message anyway.
          if (api === null || api.includes("final assistant content cannot end with trailing whitespace")) return;
          expect(checkTranscript(messages as Anthropic.MessageParam[]), `the API says: ${api}`).not.toEqual([]);
        },
      ),
      { numRuns: 300 },
    );
  });
});

describe("validation options: the API version, the model table, a paused turn", () => {
  // Sources: the API's 2026-10-21 migration notes; SDK 1.14's client.js; the models' overview pages.
  const sampling = body([ask], { temperature: 0.5 });
  const prefill = body([ask, assistant(txt("Sure:"))], { model: "claude-opus-4-6" });

  it("reads the version: 2023-06-01 (the default) takes sampling parameters, 2026-10-21 refuses them", () => {
    expect(errorOf(sampling)).toBeNull();
    expect(validateRequest(sampling, { secret, version: "2023-06-01" })).toBeNull();
    expect(validateRequest(sampling, { secret, version: "2026-10-21" })?.message).toBe("temperature: Extra inputs are not permitted");
  });

  it("with the model table, an unknown id is the API's 404 and a known one brings its rules; without it, neither", () => {
    const unknown = body([ask], { model: "claude-unknown-1" });
    expect(errorOf(unknown)).toBeNull();
    expect(validateRequest(unknown, { secret, models: MODEL_TABLE })).toMatchObject({ status: 404, type: "not_found_error" });
    expect(errorOf(prefill)).toBeNull();
    expect(validateRequest(prefill, { secret, models: MODEL_TABLE })?.message).toBe(PREFILL_UNSUPPORTED);
  });

  it("an alias and its dated id name one model; a retired model is the API's 404, word for word", () => {
    const alias = findModel("claude-sonnet-4-5");
    expect(alias?.id).toBe("claude-sonnet-4-5-20250929");
    expect(findModel("claude-sonnet-4-5-20250929")).toBe(alias);
    expect(validateRequest(body([ask], { model: "claude-sonnet-4-5" }), { secret, models: MODEL_TABLE })).toBeNull();
    expect(findModel("claude-sonnet-4-0")?.lifecycle).toBe("retired");
    expect(validateRequest(body([ask], { model: "claude-sonnet-4-0" }), { secret, models: MODEL_TABLE })).toEqual({ status: 404, type: "not_found_error", message: "model: claude-sonnet-4-0" });
  });

  it("Sonnet 4.5 reads 200K tokens, 1M with the context-1m beta; a model without that beta keeps its window", () => {
    const sonnet = findModel("claude-sonnet-4-5")!;
    expect(contextWindowOf(sonnet, [])).toBe(200_000);
    expect(contextWindowOf(sonnet, ["context-1m-2025-08-07"])).toBe(1_000_000);
    expect(contextWindowOf(findModel("claude-haiku-4-5")!, ["context-1m-2025-08-07"])).toBe(200_000);
  });

  it("every served id is unique across ids and aliases, and every rule field is set", () => {
    const ids = MODEL_TABLE.flatMap((m) => [m.id, ...m.aliases]);
    expect(new Set(ids).size).toBe(ids.length);
    for (const m of MODEL_TABLE) {
      expect(m.maxOutput, m.id).toBeGreaterThan(0);
      expect(m.contextWindow, m.id).toBeGreaterThan(m.maxOutput);
      const dated = m.deprecated_at !== null && m.retires_at !== null;
      expect(m.lifecycle === "active" ? !dated : dated, `${m.id}: an active model has no deprecation dates, a deprecated or retired one has both`).toBe(true);
    }
  });

  it("a final assistant message the model issued as a paused turn is a continuation, not a prefill", () => {
    const paused = (content: unknown) => JSON.stringify(content) === JSON.stringify([txt("Sure:")]);
    expect(validateRequest(prefill, { secret, models: MODEL_TABLE, paused })).toBeNull();
    expect(validateRequest(body([ask, assistant(txt("Other:"))], { model: "claude-opus-4-6" }), { secret, models: MODEL_TABLE, paused })?.message).toBe(PREFILL_UNSUPPORTED);
  });

  it("max_tokens 0 is valid; below 0 is not", () => {
    expect(errorOf(body([ask], { max_tokens: 0 }))).toBeNull();
    expect(errorOf(body([ask], { max_tokens: -1 }))).toBe("max_tokens: Input should be greater than or equal to 0");
  });
});
