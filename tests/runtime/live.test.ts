/**
 * Live: the same checks against the real API, only when ANTHROPIC_API_KEY is set (never in CI
 * by default). The s01 loop runs on a real model and leaves a valid transcript; the real API
 * refuses what the scripted model refuses, with a message about the same message index; a
 * streamed message has the same shape as a created one.
 */
import Anthropic from "@anthropic-ai/sdk";
import { describe, expect, it } from "vitest";
import { selectModel } from "../../runtime/client.ts";
import { scripted, transcriptProblems } from "../../runtime/testing.ts";
import { agentLoop } from "../../solutions/s01_agent_loop/agent.ts";

describe.skipIf(!process.env.ANTHROPIC_API_KEY)("live: the real API", () => {
  const llm = () => selectModel({ env: { ...process.env, COURSE_OFFLINE: "" }, maxRetries: 3, timeout: 60_000 });

  it("the s01 loop runs a real tool call and leaves a valid, sendable transcript", async () => {
    const real = llm();
    expect(real.offline).toBe(false);
    const history: Anthropic.MessageParam[] = [
      { role: "user", content: "Use the bash tool to run `echo course-live-check`, then tell me what it printed, in one short sentence." },
    ];
    const final = await agentLoop(real, history);
    expect(final.stop_reason).toBe("end_turn");
    expect(history.length).toBeGreaterThanOrEqual(4);
    expect(JSON.stringify(history)).toContain("course-live-check");
    expect(await transcriptProblems(real, history)).toBeNull();
  }, 120_000);

  const invalid: Array<[string, Anthropic.MessageParam[]]> = [
    [
      "a tool_use without its result",
      [
        { role: "user", content: "go" },
        { role: "assistant", content: [{ type: "tool_use", id: "toolu_01A", name: "bash", input: { command: "ls" } }] },
        { role: "user", content: "well?" },
      ],
    ],
    [
      "an orphan result",
      [
        { role: "user", content: "go" },
        { role: "assistant", content: "ok" },
        { role: "user", content: [{ type: "tool_result", tool_use_id: "toolu_01X", content: "x" }] },
      ],
    ],
    ["an empty text block", [{ role: "user", content: [{ type: "text", text: "" }] }]],
    [
      "the first message from the assistant",
      [
        { role: "assistant", content: "hi" },
        { role: "user", content: "go" },
      ],
    ],
  ];

  it.each(invalid)("the real API and the scripted model both refuse %s", async (_name, messages) => {
    const tools: Anthropic.Tool[] = [{ name: "bash", input_schema: { type: "object", properties: { command: { type: "string" } } } }];
    const real = llm();
    const offline = scripted();
    const ask = (c: { client: Anthropic; model: string }) =>
      c.client.messages.create({ model: c.model, max_tokens: 32, tools, messages }).then(
        () => null,
        (e: unknown) => e,
      );
    const [r, s] = await Promise.all([ask(real), ask(offline)]);
    expect(r).toBeInstanceOf(Anthropic.BadRequestError);
    expect(s).toBeInstanceOf(Anthropic.BadRequestError);
    const where = (e: unknown) => /messages(\.\d+)?/.exec(((e as { error?: { error?: { message?: string } } }).error?.error?.message ?? ""))?.[0];
    expect(where(s)).toBe(where(r));
  }, 60_000);

  it("a streamed message and a created one have the same shape", async () => {
    const real = llm();
    const params = { model: real.model, max_tokens: 64, messages: [{ role: "user" as const, content: "Say hi in two words." }] };
    const created = await real.client.messages.create(params);
    const streamed = await real.client.messages.stream(params).finalMessage();
    expect(streamed.content.map((b) => b.type)).toEqual(created.content.map((b) => b.type));
    expect(Object.keys(streamed.usage).sort()).toEqual(expect.arrayContaining(["input_tokens", "output_tokens"]));
    expect(streamed.stop_reason).toBe(created.stop_reason);
  }, 60_000);
});
