/**
 * s01_agent_loop: an agent is a while loop around one API call.
 *
 * Part one: a single raw `messages.create` with a `bash` tool, and every block of the answer
 * printed (thinking, text, tool_use) with its `stop_reason`. Part two: the loop. Append the
 * assistant's content unchanged, run each `tool_use`, answer all of them with `tool_result`
 * blocks in ONE user message, and go round again until `stop_reason` is not "tool_use".
 *
 * Run: npm run lesson s01 -- --solution ["your task"]
 */
import type Anthropic from "@anthropic-ai/sdk";
import type { Llm } from "../../runtime/client.ts";
import { lesson, transcriptOf } from "../../runtime/lesson.ts";
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
    // The assistant's turn goes into history exactly as it came: thinking blocks included.
    history.push({ role: "assistant", content: response.content });

    // Any stop_reason but "tool_use" means the model is not waiting for us: the loop ends.
    if (response.stop_reason !== "tool_use") return response;

    // Run every tool call; answer each one, by id, in ONE user message.
    const results: Anthropic.ToolResultBlockParam[] = [];
    for (const block of response.content) {
      if (block.type !== "tool_use") continue;
      printToolCall(block);
      const output = await runBash((block.input as { command?: unknown }).command);
      printToolResult(output);
      results.push({ type: "tool_result", tool_use_id: block.id, content: output });
    }
    history.push({ role: "user", content: results });
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
