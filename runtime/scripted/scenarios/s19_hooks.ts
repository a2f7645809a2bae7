/**
 * s19_hooks: a model that says it is done too soon, and the sample repository's Stop hook
 * (.agent/settings.json: it runs the tests) that sends it back.
 *
 *   [0] user       the task: make the login service's tests pass
 *   [1] assistant  "They should pass now: done."              (nothing checked)
 *   [2] user       [Stop hook] You are not done: the tests still fail …
 *   [3] assistant  edit_file src/login.js  (attempts > MAX → attempts >= MAX)
 *   [4] user       tool_result: the edit
 *   [5] assistant  the answer: what was fixed, and that the Stop hook sent it back
 *
 * It reads the history: a loop that never runs the Stop hook ends at [1] with the tests failing,
 * and one that drops the hook's reason gets an answer saying it was sent back for no reason.
 */
import type Anthropic from "@anthropic-ai/sdk";
import { lessonTask } from "../../tasks.ts";
import type { Reply, Scenario, TurnContext } from "../types.ts";
import { intents } from "./intents.ts";
import { call, say, text } from "./script.ts";

export const S19_TASK = lessonTask("s19_hooks");
export const S19_FIX = { path: "src/login.js", old_text: "if (attempts > MAX_FAILED_ATTEMPTS)", new_text: "if (attempts >= MAX_FAILED_ATTEMPTS)" };

function reply(ctx: TurnContext): Reply {
  if (ctx.firstPrompt.trim() !== S19_TASK) return intents.reply(ctx);
  const userTexts = ctx.messages
    .slice(1)
    .flatMap((m) => (m.role !== "user" ? [] : typeof m.content === "string" ? [m.content] : m.content.flatMap((b) => (b.type === "text" ? [b.text] : []))));
  const sentBack = userTexts.find((t) => t.startsWith("[Stop hook]"));
  const edit = ctx.messages.flatMap((m) => (m.role === "assistant" && typeof m.content !== "string" ? m.content.filter((b): b is Anthropic.ToolUseBlockParam => b.type === "tool_use" && b.name === "edit_file") : [])).at(0);
  if (!sentBack) return say("The login service's tests should pass now: done.");
  if (!ctx.tools.includes("edit_file")) return say("A Stop hook sent me back, and this request offers no edit_file tool to fix the code.");
  if (!edit) return { content: [text(`A Stop hook sent me back (${sentBack.slice(0, 160)}). The lockout is off by one: fixing it.`), call("edit_file", S19_FIX)] };
  const result = ctx.messages.flatMap((m) => (m.role === "user" && typeof m.content !== "string" ? m.content : [])).find((b): b is Anthropic.ToolResultBlockParam => b.type === "tool_result" && b.tool_use_id === edit.id);
  if (result?.is_error) return say(`I could not fix it: ${result ? ctx.resultText(result) : "no result"}.`);
  return say("Fixed src/login.js: an account now locks after MAX_FAILED_ATTEMPTS failures, not one more. The Stop hook had sent me back because the tests still failed.");
}

export const s19Hooks: Scenario = {
  id: "s19_hooks",
  title: "Says it is done too soon; the Stop hook (the tests) sends it back; fixes the off-by-one",
  task: S19_TASK,
  reply,
};
