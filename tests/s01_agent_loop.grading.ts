/**
 * The checks that grade lesson s01, as plain functions of a lesson module, so the same checks
 * run on lessons/ or solutions/ (tests/s01_agent_loop.test.ts) and on the broken loops under
 * tests/mutants/s01/ (tests/runtime/mutants.test.ts), which must each fail them.
 */
import type Anthropic from "@anthropic-ai/sdk";
import { expect } from "vitest";
import { call, say, steps, text, thinking } from "../runtime/scripted/scenarios/script.ts";
import { S01_TASK } from "../runtime/scripted/scenarios/s01_agent_loop.ts";
import type { Scenario } from "../runtime/scripted/types.ts";
import { driveLoop, scripted } from "../runtime/testing.ts";

/** What the checks use of a lesson module. */
export type S01Lesson = Pick<typeof import("../solutions/s01_agent_loop/agent.ts"), "TOOLS" | "rawCall" | "agentLoop">;

export interface Check {
  name: string;
  run(lesson: S01Lesson): Promise<void> | void;
}

/** Runs the lesson's loop on a scripted model; fails with the API's and the checker's words. */
export async function runLoop(lesson: S01Lesson, scenario?: Scenario | string, task = S01_TASK) {
  // s01's scenarios need at most 4 requests: a loop past 20 does not stop.
  const llm = scripted({ maxRequests: 20, ...(scenario ? { scenario } : {}) });
  const history: Anthropic.MessageParam[] = [{ role: "user", content: task }];
  let requests = 0; // counted before the transcript is sent again to check it
  const final = await driveLoop(llm, history, async () => {
    const response = await lesson.agentLoop(llm, history);
    requests = llm.scripted.exchanges.length;
    return response;
  });
  return { llm, history, final, requests };
}

export const twoCalls: Scenario = {
  id: "test-two-calls",
  title: "two bash calls in one turn, then an answer",
  reply: steps(
    () => ({ content: [text("Two commands at once."), call("bash", { command: "echo first" }), call("bash", { command: "echo second" })] }),
    (ctx) => say(`Got ${ctx.results.length} results.`),
  ),
};

export const thinkingTwice: Scenario = {
  id: "test-thinking",
  title: "thinking before each tool call",
  reply: steps(
    () => ({ content: [thinking("First I look at the date."), call("bash", { command: "echo one" })] }),
    () => ({ content: [thinking("Now once more."), text("Once more."), call("bash", { command: "echo two" })] }),
    () => say("Done."),
  ),
};

export const PART_ONE: Check[] = [
  {
    name: "returns the model's message with a bash tool_use and stop_reason tool_use",
    async run(lesson) {
      const llm = scripted();
      const message = await lesson.rawCall(llm, S01_TASK);
      expect(message.stop_reason).toBe("tool_use");
      expect(message.content.map((b) => b.type)).toEqual(["thinking", "text", "tool_use"]);
      expect(llm.scripted.exchanges).toHaveLength(1);
    },
  },
  {
    name: "offers a valid bash tool definition",
    run(lesson) {
      expect(lesson.TOOLS.map((t) => t.name)).toEqual(["bash"]);
      expect(lesson.TOOLS[0]!.input_schema.required).toEqual(["command"]);
    },
  },
];

export const PART_TWO: Check[] = [
  {
    name: "runs the tool, answers it by id, and stops at end_turn",
    async run(lesson) {
      const { history, final, requests } = await runLoop(lesson);
      expect(final.stop_reason).toBe("end_turn");
      expect(history.map((m) => m.role)).toEqual(["user", "assistant", "user", "assistant"]);
      const results = history[2]!.content as Anthropic.ToolResultBlockParam[];
      const call = (history[1]!.content as Anthropic.ContentBlock[]).find((b) => b.type === "tool_use")!;
      expect(results).toHaveLength(1);
      expect(results[0]!.tool_use_id).toBe(call.id);
      // The result is the command's real output (the repository's files), not a placeholder.
      expect(String(results[0]!.content)).toContain("package.json");
      expect(requests).toBe(2);
    },
  },
  {
    name: "answers two calls of one turn in ONE user message, in the order asked",
    async run(lesson) {
      const { history } = await runLoop(lesson, twoCalls, "two at once");
      expect(history.map((m) => m.role)).toEqual(["user", "assistant", "user", "assistant"]);
      const results = history[2]!.content as Anthropic.ToolResultBlockParam[];
      expect(results.map((r) => String(r.content).trim())).toEqual(["first", "second"]);
    },
  },
  {
    name: "sends thinking blocks back unchanged, turn after turn",
    async run(lesson) {
      const { history, llm } = await runLoop(lesson, thinkingTwice, "think twice");
      expect(history).toHaveLength(6);
      expect(llm.scripted.exchanges.every((e) => e.error === undefined)).toBe(true);
    },
  },
  {
    name: "stops as soon as stop_reason is not tool_use (one request per turn, no extra call)",
    async run(lesson) {
      const { requests } = await runLoop(lesson, { id: "test-no-tools", title: "just text", reply: () => say("Nothing to run.") }, "hello");
      expect(requests).toBe(1);
    },
  },
  {
    name: "keeps going when a command fails: the failure is the observation",
    async run(lesson) {
      const failing: Scenario = {
        id: "test-failing-command",
        title: "a command that fails",
        reply: steps(() => ({ content: [call("bash", { command: "ls /definitely/not/here" })] }), () => say("It failed.")),
      };
      const { history } = await runLoop(lesson, failing, "fail");
      const result = (history[2]!.content as Anthropic.ToolResultBlockParam[])[0]!;
      expect(String(result.content)).toMatch(/No such file|exit code/);
    },
  },
];
