/**
 * s01_agent_loop: an agent is a while loop around one API call.
 *
 * Part one: a single raw `messages.create` with a `bash` tool, and every block of the answer
 * printed (thinking, text, tool_use) with its `stop_reason`. Part two: the loop. Append the
 * assistant's content unchanged, run each `tool_use`, answer all of them with `tool_result`
 * blocks in ONE user message, and go round again until `stop_reason` is not "tool_use".
 *
 * Run: npm run lesson s01 ["your task"]    Check: npm run check s01
 */
import type Anthropic from "@anthropic-ai/sdk";
import type { Llm } from "../../runtime/client.ts";
import { lesson, todo, transcriptOf } from "../../runtime/lesson.ts";
import { heading, printMessage, printToolCall, printToolResult } from "../../runtime/print.ts";
import { S01_TASK } from "../../runtime/tasks.ts";
import { runBash } from "../../runtime/tools/bash.ts";

// #region tools
/** A tool is a function the model may ask for: a name, what it does, and its input's schema. */
export const TOOLS: Anthropic.Tool[] = [
  {
    name: "bash",
    description: "Run a shell command in the current directory and return its output.",
    input_schema: {
      type: "object",
      properties: { command: { type: "string", description: "The shell command to run" } },
      required: ["command"],
    },
  },
];
// #endregion tools

export const SYSTEM = `You are a coding agent at ${process.cwd()}. Use the bash tool to act, then answer briefly.`;

// #region raw-call
/** Part one: one request, one response, nothing run. */
export async function rawCall({ client, model }: Llm, task: string): Promise<Anthropic.Message> {
  const response = await client.messages.create({
    model,
    max_tokens: 1024,
    tools: TOOLS,
    messages: [{ role: "user", content: task }],
  });
  printMessage(response);
  return response;
}
// #endregion raw-call

// #region loop
/** Part two: the loop. `history` grows in place; returns the model's last response. */
export async function agentLoop({ client, model }: Llm, history: Anthropic.MessageParam[]): Promise<Anthropic.Message> {
  while (true) {
    const response = await client.messages.create({
      model,
      max_tokens: 4096,
      system: SYSTEM,
      tools: TOOLS,
      messages: history,
    });
    // TODO: append the assistant's turn to `history`: the whole `response.content`, unchanged
    //       (thinking blocks included), as one { role: "assistant" } message.

    // TODO: if `response.stop_reason` is not "tool_use", the model is done: return the response.

    // TODO: run every tool_use block (its input is { command }) with `runBash`, print it with
    //       printToolCall / printToolResult, and answer ALL of them, each by its id, with
    //       tool_result blocks in ONE { role: "user" } message.
    void response; // (delete this line when you use `response`)
    todo("s01 agentLoop: append the response, stop unless stop_reason is \"tool_use\", answer every tool_use");
  }
}
// #endregion loop

/** The lesson's default task, run on a model; returns the transcript (the docs record it). */
export const demo = (llm: Llm, task = S01_TASK) => transcriptOf(task, undefined, (history) => agentLoop(llm, history));

lesson(import.meta.url, {
  task: S01_TASK,
  before: async ({ llm, task }) => {
    heading("Part one: one raw call");
    await rawCall(llm, task);
  },
  heading: "Part two: the loop",
  run: ({ llm, history }) => agentLoop(llm, history),
  describe: (final) => `the model's last stop_reason: ${final.stop_reason}`,
});
