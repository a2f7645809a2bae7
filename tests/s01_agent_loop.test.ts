/**
 * s01_agent_loop: the raw call, then the loop. Grades lessons/ or solutions/ (COURSE_TREE).
 * Each test drives the lesson through the real SDK against the scripted model and checks the
 * transcript with the course's checker, then sends it again as the next request would.
 */
import type Anthropic from "@anthropic-ai/sdk";
import { describe, expect, it } from "vitest";
import { call, say, steps, text, thinking } from "../runtime/scripted/scenarios/script.ts";
import { S01_TASK } from "../runtime/scripted/scenarios/s01_agent_loop.ts";
import type { Scenario } from "../runtime/scripted/types.ts";
import { loadLesson, scripted, transcriptProblems } from "../runtime/testing.ts";

type Lesson = typeof import("../solutions/s01_agent_loop/agent.ts");
const lesson = await loadLesson<Lesson>("s01_agent_loop");

async function runLoop(scenario?: Scenario | string, task = S01_TASK) {
  const llm = scripted(scenario ? { scenario } : {});
  const history: Anthropic.MessageParam[] = [{ role: "user", content: task }];
  const final = await lesson.agentLoop(llm, history);
  const requests = llm.scripted.exchanges.length;
  const problems = await transcriptProblems(llm, history);
  if (problems) throw new Error(problems);
  return { llm, history, final, requests };
}

const twoCalls: Scenario = {
  id: "test-two-calls",
  title: "two bash calls in one turn, then an answer",
  reply: steps(
    () => ({ content: [text("Two commands at once."), call("bash", { command: "echo first" }), call("bash", { command: "echo second" })] }),
    (ctx) => say(`Got ${ctx.results.length} results.`),
  ),
};

const thinkingTwice: Scenario = {
  id: "test-thinking",
  title: "thinking before each tool call",
  reply: steps(
    () => ({ content: [thinking("First I look at the date."), call("bash", { command: "echo one" })] }),
    () => ({ content: [thinking("Now once more."), text("Once more."), call("bash", { command: "echo two" })] }),
    () => say("Done."),
  ),
};

describe("s01 part one: one raw call", () => {
  it("returns the model's message with a bash tool_use and stop_reason tool_use", async () => {
    const llm = scripted();
    const message = await lesson.rawCall(llm, S01_TASK);
    expect(message.stop_reason).toBe("tool_use");
    expect(message.content.map((b) => b.type)).toEqual(["thinking", "text", "tool_use"]);
    expect(llm.scripted.exchanges).toHaveLength(1);
  });

  it("offers a valid bash tool definition", () => {
    expect(lesson.TOOLS.map((t) => t.name)).toEqual(["bash"]);
    expect(lesson.TOOLS[0]!.input_schema.required).toEqual(["command"]);
  });
});

describe("s01 part two: the loop", () => {
  it("runs the tool, answers it by id, and stops at end_turn", async () => {
    const { history, final, requests } = await runLoop();
    expect(final.stop_reason).toBe("end_turn");
    expect(history.map((m) => m.role)).toEqual(["user", "assistant", "user", "assistant"]);
    const results = history[2]!.content as Anthropic.ToolResultBlockParam[];
    const call = (history[1]!.content as Anthropic.ContentBlock[]).find((b) => b.type === "tool_use")!;
    expect(results).toHaveLength(1);
    expect(results[0]!.tool_use_id).toBe(call.id);
    // The result is the command's real output (the repository's files), not a placeholder.
    expect(String(results[0]!.content)).toContain("package.json");
    expect(requests).toBe(2);
  });

  it("answers two calls of one turn in ONE user message, in the order asked", async () => {
    const { history } = await runLoop(twoCalls, "two at once");
    expect(history.map((m) => m.role)).toEqual(["user", "assistant", "user", "assistant"]);
    const results = history[2]!.content as Anthropic.ToolResultBlockParam[];
    expect(results.map((r) => String(r.content).trim())).toEqual(["first", "second"]);
  });

  it("sends thinking blocks back unchanged, turn after turn", async () => {
    const { history, llm } = await runLoop(thinkingTwice, "think twice");
    expect(history).toHaveLength(6);
    expect(llm.scripted.exchanges.every((e) => e.error === undefined)).toBe(true);
  });

  it("stops as soon as stop_reason is not tool_use (one request per turn, no extra call)", async () => {
    const { requests } = await runLoop({ id: "test-no-tools", title: "just text", reply: () => say("Nothing to run.") }, "hello");
    expect(requests).toBe(1);
  });

  it("keeps going when a command fails: the failure is the observation", async () => {
    const failing: Scenario = {
      id: "test-failing-command",
      title: "a command that fails",
      reply: steps(() => ({ content: [call("bash", { command: "ls /definitely/not/here" })] }), () => say("It failed.")),
    };
    const { history } = await runLoop(failing, "fail");
    const result = (history[2]!.content as Anthropic.ToolResultBlockParam[])[0]!;
    expect(String(result.content)).toMatch(/No such file|exit code/);
  });
});
