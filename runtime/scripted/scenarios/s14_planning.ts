/**
 * s14_planning: a task of several steps, with a plan, on the sample repository.
 *
 *   [0] user       the task
 *   [1] assistant  todo: 4 items, the first in_progress
 *   [3] assistant  run_tests {module: "login"}           (1 failing)
 *   [5] assistant  read_file src/login.js
 *   [7] assistant  read_file logs/auth.log
 *   [8] user       tool_result + text <reminder>…        the plan untouched for 3 turns
 *   [9] assistant  todo: the first two completed, the fix in_progress
 *   …              edit_file (the off-by-one), run_tests again, todo: all completed, the answer
 *
 * It decides from the conversation, not from a turn count: the reminder is the cue to update the
 * plan, so a loop that never reminds gets a plan that is never updated until the end. The answer
 * quotes the last test run.
 */
import type Anthropic from "@anthropic-ai/sdk";
import { S14_TASK } from "../../tasks.ts";
import type { Reply, Scenario, TurnContext } from "../types.ts";
import { intents } from "./intents.ts";
import { call, say, text } from "./script.ts";

export { S14_TASK };

export const S14_STEPS = ["Run the login tests", "Find the cause in the source and the log", "Fix the bug", "Run the tests again"];

type Call = Anthropic.ToolUseBlockParam;

function callsSoFar(messages: Anthropic.MessageParam[]): Call[] {
  return messages.flatMap((m) => (m.role === "assistant" && typeof m.content !== "string" ? m.content.filter((b): b is Call => b.type === "tool_use") : []));
}

const plan = (done: number) =>
  call("todo", { items: S14_STEPS.map((content, i) => ({ content, status: i < done ? "completed" : i === done ? "in_progress" : "pending" })) });

function reply(ctx: TurnContext): Reply {
  if (ctx.firstPrompt.trim() !== S14_TASK) return intents.reply(ctx);
  const need = ["todo", "run_tests", "read_file", "edit_file"].filter((t) => !ctx.tools.includes(t));
  if (need.length > 0) return say(`This task needs the tools ${need.join(", ")}, and this request does not offer them.`);
  const calls = callsSoFar(ctx.messages);
  const pathOf = (c: Call) => (c.input as { path?: unknown }).path;
  const edited = calls.findIndex((c) => c.name === "edit_file");
  const testsAfterEdit = edited >= 0 && calls.slice(edited).some((c) => c.name === "run_tests");
  const last = ctx.messages[ctx.messages.length - 1];
  const reminded = last?.role === "user" && typeof last.content !== "string" && last.content.some((b) => b.type === "text" && b.text.includes("<reminder>"));
  const done = (testsAfterEdit ? 1 : 0) + (edited >= 0 ? 1 : 0) + (calls.some((c) => pathOf(c) === "logs/auth.log") ? 1 : 0) + (calls.some((c) => c.name === "run_tests") ? 1 : 0);

  if (!calls.some((c) => c.name === "todo")) return { content: [text("A plan first."), plan(0)] };
  if (reminded) return { content: [text("Right, the plan is behind; updating it."), plan(Math.min(done, 3))] };
  if (!calls.some((c) => c.name === "run_tests")) return { content: [text("Running the login tests."), call("run_tests", { module: "login" })] };
  if (!calls.some((c) => pathOf(c) === "src/login.js")) return { content: [text("One fails; reading the source."), call("read_file", { path: "src/login.js" })] };
  if (!calls.some((c) => pathOf(c) === "logs/auth.log")) return { content: [text("And the log."), call("read_file", { path: "logs/auth.log" })] };
  if (edited < 0)
    return { content: [text("The lock comes one attempt too late: fixing the comparison."), call("edit_file", { path: "src/login.js", old_text: "attempts > MAX_FAILED_ATTEMPTS", new_text: "attempts >= MAX_FAILED_ATTEMPTS" })] };
  if (!testsAfterEdit) return { content: [text("Running the tests again."), call("run_tests", { module: "login" })] };
  const lastTodo = [...calls].reverse().find((c) => c.name === "todo");
  const items = (lastTodo?.input as { items?: Array<{ status?: string }> } | undefined)?.items ?? [];
  if (items.some((i) => i.status !== "completed")) return { content: [text("All steps done."), plan(S14_STEPS.length)] };
  const tests = ctx.messages
    .flatMap((m) => (m.role === "user" && typeof m.content !== "string" ? m.content : []))
    .filter((b): b is Anthropic.ToolResultBlockParam => b.type === "tool_result")
    .map((r) => ctx.resultText(r))
    .filter((t) => /# tests \d+/.test(t));
  const final = tests[tests.length - 1] ?? "";
  const failed = /# fail (\d+)/.exec(final)?.[1];
  return say(
    failed === "0"
      ? "Fixed: src/login.js locked accounts one failure too late (`attempts > MAX_FAILED_ATTEMPTS`); it now uses `>=`, and all the login tests pass."
      : `I changed the comparison in src/login.js, but the tests still fail (${failed ?? "no summary"} failing).`,
  );
}

export const s14Planning: Scenario = {
  id: "s14_planning",
  title: "A plan of four steps: run the tests, read, fix, run again; the plan updated when the loop reminds",
  task: S14_TASK,
  reply,
};
