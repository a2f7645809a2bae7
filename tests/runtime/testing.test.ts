/**
 * The helpers every lesson test uses (runtime/testing.ts): which tree is graded, loading a lesson,
 * "can this transcript be sent again", and driveLoop's one readable failure message.
 */
import type Anthropic from "@anthropic-ai/sdk";
import { afterEach, describe, expect, it } from "vitest";
import { ManualClock, withinRunningTime } from "../../runtime/clock.ts";
import { todo, TodoError } from "../../runtime/lesson.ts";
import { call, text, thinking } from "../../runtime/scripted/scenarios/script.ts";
import type { Scenario } from "../../runtime/scripted/types.ts";
import { driveLoop, gradedTree, loadLesson, scripted, sendAgainError, transcriptProblems } from "../../runtime/testing.ts";

const thinker: Scenario = { id: "t", title: "t", reply: () => ({ content: [thinking("Plan."), text("Looking."), call("bash", { command: "ls" })] }) };

async function firstTurn() {
  const llm = scripted({ scenario: thinker });
  const history: Anthropic.MessageParam[] = [{ role: "user", content: "go" }];
  const response = await llm.client.messages.create({ model: llm.model, max_tokens: 200, messages: history });
  const id = (response.content.find((b) => b.type === "tool_use") as Anthropic.ToolUseBlock).id;
  return { llm, history, response, id };
}

describe("gradedTree and loadLesson", () => {
  const saved = process.env.COURSE_TREE;
  afterEach(() => {
    if (saved === undefined) delete process.env.COURSE_TREE;
    else process.env.COURSE_TREE = saved;
  });

  it("grades solutions by default, lessons when asked, and refuses anything else", () => {
    delete process.env.COURSE_TREE;
    expect(gradedTree()).toBe("solutions");
    process.env.COURSE_TREE = "lessons";
    expect(gradedTree()).toBe("lessons");
    process.env.COURSE_TREE = "answers";
    expect(() => gradedTree()).toThrow('COURSE_TREE must be "lessons" or "solutions", not "answers"');
  });

  it("a missing lesson file says how to restore it", async () => {
    delete process.env.COURSE_TREE;
    await expect(loadLesson("s99_nothing")).rejects.toThrow("solutions/s99_nothing/agent.ts is missing: restore it with `npm run reset`");
  });
});

describe("sendAgainError and transcriptProblems", () => {
  it("a complete transcript can be sent again; one waiting for results cannot", async () => {
    const { llm, history, response, id } = await firstTurn();
    const waiting = [...history, { role: "assistant" as const, content: response.content }];
    expect(await sendAgainError(llm, waiting)).toMatch(new RegExp(`tool_use\` ids were found without \`tool_result\` blocks immediately after: ${id}`));
    const answered = [...waiting, { role: "user" as const, content: [{ type: "tool_result" as const, tool_use_id: id, content: "a b" }] }];
    expect(await sendAgainError(llm, answered)).toBeNull();
    expect(await transcriptProblems(llm, answered)).toBeNull();
  });

  it("the checker speaks first; the API catches what the checker cannot see", async () => {
    const { llm, history, response, id } = await firstTurn();
    const result = { role: "user" as const, content: [{ type: "tool_result" as const, tool_use_id: id, content: "a b" }] };
    const unanswered = await transcriptProblems(llm, [...history, { role: "assistant", content: response.content }, { role: "user", content: "next" }]);
    expect(unanswered).toMatch(/^1 broken rule in the transcript:\n {2}- \[unanswered-tool-use\]/);
    // A forged signature: the checker, given no responses, cannot know; the API can.
    const forged = response.content.map((b) => (b.type === "thinking" ? { ...b, signature: "sig_forged" } : b));
    const api = await transcriptProblems({ client: llm.client, model: llm.model }, [...history, { role: "assistant", content: forged }, result]);
    expect(api).toMatch(/^the transcript cannot be sent again; the API answers: messages\.1\.content\.0: `thinking` or `redacted_thinking` blocks in the latest assistant message cannot be modified/);
  });

  it("the probe does not wait the model's set latency (it is the loop's to live with), and the model still answers it", async () => {
    // The model's delay runs on a clock that never moves: the probe answers only if it skips it.
    const slow = scripted({ scenario: thinker, latencyMs: 60_000, clock: new ManualClock() });
    const history: Anthropic.MessageParam[] = [{ role: "user", content: "go" }];
    const answer = await withinRunningTime(sendAgainError(slow, history), 20_000, () => new Error("sendAgainError waited the model's latencyMs: it must send x-scripted-latency-ms: 0"));
    expect(answer, "sendAgainError should get an answer to a sendable history").toBeNull();
    expect(slow.scripted.exchanges.at(-1)?.response, "the probe should reach the scripted model and be answered").toBeDefined();
  });
});

describe("driveLoop", () => {
  it("a loop the API stops: the API's words and the checker's verdict together", async () => {
    const { llm, history, response } = await firstTurn();
    const e = await driveLoop(llm, history, async () => {
      history.push({ role: "assistant", content: response.content });
      history.push({ role: "user", content: "I ran it." });
      return llm.client.messages.create({ model: llm.model, max_tokens: 100, messages: history });
    }).catch((x: unknown) => x as Error);
    expect(e).toBeInstanceOf(Error);
    // The rule leads, in the learner's words; the API's own refusal follows it.
    expect((e as Error).message).toMatch(/^\[unanswered-tool-use\] messages\[1\] asks for toolu_\w+ \(bash\)/);
    expect((e as Error).message).toMatch(/the API refused the next request: messages\.1: `tool_use` ids were found without `tool_result` blocks/);
  });

  it("a request the API refuses for a field it does not take, in the messages or in the tools: its words, the rule, what to send", async () => {
    for (const [part, send] of [
      ["messages", (h: Anthropic.MessageParam[]) => ({ messages: [{ ...h[0]!, id: "msg_1" } as unknown as Anthropic.MessageParam] })],
      ["tools", (h: Anthropic.MessageParam[]) => ({ messages: h, tools: [{ name: "bash", description: "runs", input_schema: { type: "object" as const }, run: "x" } as Anthropic.Tool] })],
    ] as const) {
      const llm = scripted({ scenario: thinker });
      const history: Anthropic.MessageParam[] = [{ role: "user", content: "go" }];
      const e = await driveLoop(llm, history, async () => llm.client.messages.create({ model: llm.model, max_tokens: 100, ...send(history) })).catch((x: unknown) => x as Error);
      expect(e, part).toBeInstanceOf(Error);
      expect((e as Error).message, part).toMatch(new RegExp(`^\\[api-rejected\\] the API refused request 1 the loop sent: ${part}\\.0\\..*Extra inputs are not permitted\\. Send `));
    }
  });

  it("a TODO passes through as it is; a good loop returns its result", async () => {
    const { llm, history } = await firstTurn();
    await expect(driveLoop(llm, history, async () => todo("the loop"))).rejects.toBeInstanceOf(TodoError);
    expect(await driveLoop(llm, history, async () => 42)).toBe(42);
  });

  it("a loop that returns a broken transcript fails with the checker's words", async () => {
    const { llm, history, response } = await firstTurn();
    await expect(
      driveLoop(llm, history, async () => {
        history.push({ role: "assistant", content: response.content });
      }),
    ).rejects.toThrow(/\[unanswered-tool-use\] messages\[1\] asks for toolu_\w+ \(bash\) and nothing answers/);
  });
});
