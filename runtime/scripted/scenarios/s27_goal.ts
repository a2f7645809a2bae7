/**
 * s27_goal: a worker that says it is done too soon, and an evaluator that judges by the evidence.
 * The same scripted model answers both: the evaluator's request is the one whose only tool is
 * `verdict` (its first user text is the goal, the lesson's task, so it is routed here too).
 *
 *   worker     [0] user       the task (the goal)
 *              [1] assistant  read_file src/login.js
 *              [2] user       tool_result
 *              [3] assistant  "The lockout logic is in place: done."   (nothing checked)
 *   evaluator  goal + answer + evidence (`node --test` exited with code 1) → verdict: not done
 *   worker     [4] user       [evaluator] The goal is not met yet: … not ok … Keep working …
 *              [5] assistant  edit_file src/login.js  (attempts > MAX → attempts >= MAX)
 *              [6] user       tool_result
 *              [7] assistant  the answer: what was fixed, and why it was sent back
 *   evaluator  evidence: exited with code 0 → verdict: done
 *
 * The evaluator reads only the evidence document, never the answer: a loop that shows it no
 * evidence gets "not done" every round. A loop that never sends the worker back ends at [3].
 */
import type Anthropic from "@anthropic-ai/sdk";
import { lessonTask } from "../../tasks.ts";
import type { Reply, Scenario, TurnContext } from "../types.ts";
import { intents } from "./intents.ts";
import { call, say, text } from "./script.ts";

export const S27_TASK = lessonTask("s27_goal");
const FIX = { path: "src/login.js", old_text: "if (attempts > MAX_FAILED_ATTEMPTS)", new_text: "if (attempts >= MAX_FAILED_ATTEMPTS)" };

const docsOf = (messages: Anthropic.MessageParam[]) =>
  messages.flatMap((m) => (m.role === "user" && typeof m.content !== "string" ? m.content.filter((b): b is Anthropic.DocumentBlockParam => b.type === "document") : []));

/** The evaluator: done only when the runtime's evidence shows the check passed. The answer is a claim and is not read. */
function judge(ctx: TurnContext): Reply {
  const evidence = docsOf(ctx.messages).find((d) => /^evidence/i.test(d.title ?? ""));
  const data = evidence && evidence.source.type === "text" ? evidence.source.data : "";
  const code = /exited with code (\d+)/.exec(evidence?.title ?? "")?.[1];
  if (code === "0") return { content: [call("verdict", { done: true, missing: "" })] };
  const failing = /^not ok \d+ - (.*)$/m.exec(data)?.[1];
  const missing = !evidence || code === undefined
    ? "there is no evidence that the tests pass: no check ran, and the answer alone is a claim"
    : `the tests still fail (the check exited with code ${code})${failing ? `: "${failing}"` : ""}`;
  return { content: [call("verdict", { done: false, missing })] };
}

function reply(ctx: TurnContext): Reply {
  if (ctx.firstPrompt.trim() !== S27_TASK) return intents.reply(ctx);
  if (ctx.tools.length === 1 && ctx.tools[0] === "verdict") return judge(ctx);
  const userTexts = ctx.messages.slice(1).flatMap((m) => (m.role !== "user" ? [] : typeof m.content === "string" ? [m.content] : m.content.flatMap((b) => (b.type === "text" ? [b.text] : []))));
  const sentBack = userTexts.find((t) => t.startsWith("[evaluator]"));
  const calls = ctx.messages.flatMap((m) => (m.role === "assistant" && typeof m.content !== "string" ? m.content.filter((b): b is Anthropic.ToolUseBlockParam => b.type === "tool_use") : []));
  const resultOf = (id: string) => ctx.messages.flatMap((m) => (m.role === "user" && typeof m.content !== "string" ? m.content : [])).find((b): b is Anthropic.ToolResultBlockParam => b.type === "tool_result" && b.tool_use_id === id);
  if (!sentBack) {
    if (!calls.some((c) => c.name === "read_file")) return { content: [text("Reading the login module first."), call("read_file", { path: "src/login.js" })] };
    return say("I read src/login.js: the lockout logic is in place (MAX_FAILED_ATTEMPTS is 3), so the tests should pass. Done.");
  }
  if (!ctx.tools.includes("edit_file")) return say("The evaluator sent me back, and this request offers no edit_file tool to fix the code.");
  const edit = calls.find((c) => c.name === "edit_file");
  if (!edit) return { content: [text(`The evaluator sent me back (${sentBack.split("\n")[0]!.slice(0, 200)}). Looking again: the lockout is off by one. Fixing it.`), call("edit_file", FIX)] };
  const result = resultOf(edit.id);
  if (!result || result.is_error) return say(`I could not fix it: ${result ? ctx.resultText(result) : "no result"}.`);
  return say("Fixed src/login.js: an account now locks after MAX_FAILED_ATTEMPTS failures, not one more. The evaluator had sent me back because the tests still failed.");
}

export const s27Goal: Scenario = {
  id: "s27_goal",
  title: "Says it is done too soon; the evaluator (the tests as evidence) sends it back; fixes the off-by-one",
  task: S27_TASK,
  reply,
};
