/**
 * s02_tool_dispatch: many tools behind one registry.
 *
 * Unlike s01, whose loop could only run bash, the model now gets five tools (read_file,
 * write_file, edit_file, list_files, bash). A registry (registry.ts) maps each name to its
 * handler and also yields the tool definitions sent to the API, so the two cannot disagree. The
 * loop hands every tool_use to `registry.dispatch`, which answers it by id; a tool that does not
 * exist gets an `is_error` result the model can read, never a crash.
 *
 * Run: npm run lesson s02 -- --solution ["your task"]
 */
import type Anthropic from "@anthropic-ai/sdk";
import type { Llm } from "../../runtime/client.ts";
import { lesson, transcriptOf } from "../../runtime/lesson.ts";
import { printToolCall, printToolResult, say } from "../../runtime/print.ts";
import { textOf } from "../../runtime/transcript.ts";
import { S02_TASK, S02_WORKSPACE } from "../../runtime/tasks.ts";
import { ToolRegistry, defaultTools, type ToolContext } from "./registry.ts";

export const system = (root: string) =>
  `You are a coding agent working in ${root}; tool paths are relative to it. Use the tools to act, then answer briefly.`;

// #region loop
/** The loop. `history` grows in place; returns the model's last response. */
export async function agentLoop(
  { client, model }: Llm,
  history: Anthropic.MessageParam[],
  registry = new ToolRegistry(defaultTools()),
  ctx: ToolContext = { root: process.cwd() },
): Promise<Anthropic.Message> {
  while (true) {
    const response = await client.messages.create({
      model,
      max_tokens: 4096,
      system: system(ctx.root),
      tools: registry.definitions(),
      messages: history,
    });
    // The assistant's turn goes into history exactly as it came: thinking blocks included.
    history.push({ role: "assistant", content: response.content });

    // Any stop_reason but "tool_use" means the model is not waiting for us: the loop ends.
    if (response.stop_reason !== "tool_use") return response;

    // Each call goes to the tool it names; the registry answers it by id, even an unknown name.
    const results: Anthropic.ToolResultBlockParam[] = [];
    for (const block of response.content) {
      if (block.type !== "tool_use") continue;
      printToolCall(block);
      const result = await registry.dispatch(block, ctx);
      printToolResult(textOf(result.content), result.is_error);
      results.push(result);
    }
    history.push({ role: "user", content: results });
  }
}
// #endregion loop

/** The lesson's default task in a fresh scratch workspace; returns the transcript (the docs record it). */
export const demo = (llm: Llm, task = S02_TASK) => transcriptOf(task, S02_WORKSPACE, (history, root) => agentLoop(llm, history, new ToolRegistry(defaultTools()), { root }));

const registry = new ToolRegistry(defaultTools());
// The default task works on a scratch copy; a task of your own works in the current folder.
lesson(import.meta.url, {
  task: S02_TASK,
  workspace: S02_WORKSPACE,
  before: () => say(`tools: ${registry.names().join(", ")}`),
  run: ({ llm, history, root }) => agentLoop(llm, history, registry, { root }),
  describe: (final) => `the model's last stop_reason: ${final.stop_reason}`,
});
