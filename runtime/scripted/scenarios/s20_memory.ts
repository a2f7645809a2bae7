/**
 * s20_memory: a model that reads the project's instructions in its system prompt, keeps a note in
 * its memory, and works on while its old tool results are cleared from the request.
 *
 *   [0] user       the task: fix the lockout the project's way, and keep a note for next time
 *   [1] assistant  what AGENTS.md asks (quoted from the system prompt) + memory view "."
 *   [2] user       tool_result: the notes (none yet)
 *   [3] assistant  read_file src/login.js + logs/auth.log + test/login.test.js
 *   [4] user       three tool_results (past the demo's budget: the next request clears the older two)
 *   [5] assistant  edit_file src/login.js  (attempts > MAX → attempts >= MAX)
 *   [6] user       tool_result: the edit
 *   [7] assistant  memory create project.md
 *   [8] user       tool_result: the note
 *   [9] assistant  the answer: the fix, the note, and how many results it saw cleared
 *
 * It reads the request: a loop that leaves the instructions out says it saw none, and the answer
 * counts the placeholders the request carried.
 */
import type Anthropic from "@anthropic-ai/sdk";
import { lessonTask } from "../../tasks.ts";
import type { Reply, Scenario, TurnContext } from "../types.ts";
import { intents } from "./intents.ts";
import { call, say, text } from "./script.ts";
import { S19_FIX } from "./s19_hooks.ts";

export const S20_TASK = lessonTask("s20_memory");
/** The heading of the sample repository's AGENTS.md: how the model knows the file reached it. */
export const S20_MARK = "login-service: how we work here";
export const S20_NOTE = "login-service: node --test runs the tests; test/ is the specification. The lockout check in src/login.js must be attempts >= MAX_FAILED_ATTEMPTS.";

const systemText = (ctx: TurnContext) => {
  const s = ctx.request.system;
  return typeof s === "string" ? s : (s ?? []).map((b) => b.text).join("\n");
};
const calls = (ctx: TurnContext, name: string) =>
  ctx.messages.flatMap((m) => (m.role === "assistant" && typeof m.content !== "string" ? m.content.filter((b): b is Anthropic.ToolUseBlockParam => b.type === "tool_use" && b.name === name) : []));
const cleared = (ctx: TurnContext) =>
  ctx.messages.flatMap((m) => (m.role === "user" && typeof m.content !== "string" ? m.content : [])).filter((b) => b.type === "tool_result" && ctx.resultText(b).startsWith("[cleared")).length;

function reply(ctx: TurnContext): Reply {
  if (ctx.firstPrompt.trim() !== S20_TASK) return intents.reply(ctx);
  const told = systemText(ctx).includes(S20_MARK);
  if (!ctx.tools.includes("memory")) return say("This request offers no memory tool, so I cannot keep a note for the next run.");
  if (calls(ctx, "memory").length === 0)
    return {
      content: [
        text(told ? "AGENTS.md (in my system prompt) says: fix src/, never test/; run node --test; keep what I learn in memory. First, my notes from earlier runs." : "No project instructions reached me (no AGENTS.md in my system prompt). I will look at my notes first."),
        call("memory", { command: "view", path: "." }),
      ],
    };
  if (calls(ctx, "read_file").length === 0)
    return { content: [text("Now the code, the log and the tests."), call("read_file", { path: "src/login.js" }), call("read_file", { path: "logs/auth.log" }), call("read_file", { path: "test/login.test.js" })] };
  if (calls(ctx, "edit_file").length === 0) return { content: [text("An account locks one failure late: the check is > where the tests expect >=. The smallest fix:"), call("edit_file", S19_FIX)] };
  const edit = calls(ctx, "edit_file")[0]!;
  const edited = ctx.messages.flatMap((m) => (m.role === "user" && typeof m.content !== "string" ? m.content : [])).find((b): b is Anthropic.ToolResultBlockParam => b.type === "tool_result" && b.tool_use_id === edit.id);
  if (edited?.is_error) return say(`I could not fix src/login.js: ${ctx.resultText(edited)}.`);
  if (calls(ctx, "memory").length === 1) return { content: [text("Fixed. Keeping a note for the next run, as AGENTS.md asks."), call("memory", { command: "create", path: "project.md", file_text: `${S20_NOTE}\n` })] };
  const n = cleared(ctx);
  return say(
    `Fixed src/login.js: attempts >= MAX_FAILED_ATTEMPTS, so an account locks on the fifth failure; test/ untouched${told ? ", as AGENTS.md asks" : ""}. ` +
      `Saved a note in memory (project.md) for the next run. ${n > 0 ? `${n} of my older tool results were cleared from this request to save context.` : "None of my tool results were cleared."}`,
  );
}

export const s20Memory: Scenario = {
  id: "s20_memory",
  title: "Reads AGENTS.md in its system prompt, fixes the lockout, keeps a note in memory; older results cleared",
  task: S20_TASK,
  reply,
};
