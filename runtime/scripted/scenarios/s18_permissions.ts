/**
 * s18_permissions: a task the sample repository's rules cut short (.agent/settings.json).
 *
 *   [0] user       the task: delete the old auth log, then run the tests
 *   [1] assistant  bash rm logs/auth.log                  denied by the rule "bash(rm *)"
 *   [2] user       tool_result is_error: Not run: denied by the rule …
 *   [3] assistant  bash node --test                        allowed by the rule "bash(node --test*)"
 *   [4] user       tool_result: the test summary
 *   [5] assistant  the answer: the log was kept (and why), the tests' result
 *
 * It reads the results: a loop whose gate lets the rm run gets an answer saying the log is gone,
 * and one that refuses it for another reason gets an answer quoting that reason.
 */
import type Anthropic from "@anthropic-ai/sdk";
import { lessonTask } from "../../tasks.ts";
import type { Reply, Scenario, TurnContext } from "../types.ts";
import { intents } from "./intents.ts";
import { call, say, text } from "./script.ts";

export const S18_TASK = lessonTask("s18_permissions");
export const S18_DELETE = "rm logs/auth.log";
export const S18_TESTS = "node --test";

type Call = Anthropic.ToolUseBlockParam;

function reply(ctx: TurnContext): Reply {
  if (ctx.firstPrompt.trim() !== S18_TASK) return intents.reply(ctx);
  if (!ctx.tools.includes("bash")) return say("This task needs the bash tool, and this request does not offer it.");
  const calls = ctx.messages.flatMap((m) => (m.role === "assistant" && typeof m.content !== "string" ? m.content.filter((b): b is Call => b.type === "tool_use") : []));
  const commandOf = (c: Call) => String((c.input as { command?: unknown }).command ?? "");
  const results = ctx.messages
    .flatMap((m) => (m.role === "user" && typeof m.content !== "string" ? m.content : []))
    .filter((b): b is Anthropic.ToolResultBlockParam => b.type === "tool_result");
  const resultOf = (c: Call | undefined) => (c ? results.find((r) => r.tool_use_id === c.id) : undefined);
  const deletion = calls.find((c) => commandOf(c) === S18_DELETE);
  const tests = calls.find((c) => commandOf(c) === S18_TESTS);

  if (!deletion) return { content: [text("Deleting the old log first."), call("bash", { command: S18_DELETE })] };
  const deleted = resultOf(deletion);
  const refusal = deleted?.is_error ? ctx.resultText(deleted).replace(/^(Error: )?Not run: /, "").replace(/\.$/, "") : null;
  if (!tests)
    return {
      content: [text(refusal ? `I may not delete it here (${refusal}); keeping the log. Running the tests.` : "Deleted. Running the tests."), call("bash", { command: S18_TESTS })],
    };
  const ran = resultOf(tests);
  const out = ran ? ctx.resultText(ran) : "";
  const summary = ran?.is_error && !/# tests \d+/.test(out) ? `the tests did not run (${out})` : `the tests ran: ${/# pass (\d+)/.exec(out)?.[1] ?? "?"} passed, ${/# fail (\d+)/.exec(out)?.[1] ?? "?"} failed`;
  return say(refusal ? `Kept logs/auth.log: ${refusal}. Then ${summary}.` : `Deleted logs/auth.log; ${summary}.`);
}

export const s18Permissions: Scenario = {
  id: "s18_permissions",
  title: "Tries to delete the log (denied by a rule), runs the tests (allowed by a rule), says what the rules did",
  task: S18_TASK,
  reply,
};
