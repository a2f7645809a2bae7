/**
 * s21_checkpoints: three user turns on the sample repository, with a rewind between the second
 * and the third (the lesson's demo does it: rewind(runId, 2, "both")).
 *
 *   turn 1  the fix:   edit_file src/login.js (attempts > MAX → attempts >= MAX), then "Fixed …"
 *   turn 2  a second change: write_file CHANGELOG.md (a new file) and edit_file src/login.js (a log line)
 *           ── rewound: CHANGELOG.md removed, src/login.js back to the fix alone, the history cut before turn 2
 *   turn 3  "which files have you changed?": list_files, then an answer read from the conversation itself
 *
 * The third answer reads the history and the listing: a loop whose rewind left turn 2 in the
 * conversation answers that it changed CHANGELOG.md too, and one whose rewind left the file
 * on disk shows it in the listing.
 */
import type Anthropic from "@anthropic-ai/sdk";
import { lessonTask } from "../../tasks.ts";
import type { Reply, Scenario, TurnContext } from "../types.ts";
import { intents } from "./intents.ts";
import { call, say, text } from "./script.ts";

export const S21_TASK = lessonTask("s21_checkpoints");
export const S21_SECOND = lessonTask("s21_checkpoints", "second");
export const S21_THIRD = lessonTask("s21_checkpoints", "third");
export const S21_FIX = { path: "src/login.js", old_text: "if (attempts > MAX_FAILED_ATTEMPTS)", new_text: "if (attempts >= MAX_FAILED_ATTEMPTS)" };
export const S21_LOG_LINE = {
  path: "src/login.js",
  old_text: "if (attempts >= MAX_FAILED_ATTEMPTS) locked.add(name);",
  new_text: "if (attempts >= MAX_FAILED_ATTEMPTS) {\n      locked.add(name);\n      log(`WARN login locked user=${name}`);\n    }",
};
export const S21_CHANGELOG = { path: "CHANGELOG.md", content: "# Changelog\n\n- An account now locks after MAX_FAILED_ATTEMPTS failures, not one more.\n" };

/** Every file the conversation's tool calls wrote or edited, in order. */
function changedIn(messages: Anthropic.MessageParam[]): string[] {
  const calls = messages.flatMap((m) => (m.role === "assistant" && typeof m.content !== "string" ? m.content : []));
  const paths = calls.flatMap((b) => (b.type === "tool_use" && (b.name === "write_file" || b.name === "edit_file") ? [String((b.input as { path?: unknown }).path)] : []));
  return [...new Set(paths)];
}

function reply(ctx: TurnContext): Reply {
  if (ctx.firstPrompt.trim() !== S21_TASK) return intents.reply(ctx);
  const failed = ctx.results.find((r) => r.is_error);
  if (failed) return say(`I could not finish: ${ctx.resultText(failed)}.`);
  const prompt = ctx.prompt.trim();
  if (prompt === S21_TASK) return ctx.step === 0 ? { content: [text("The lockout is off by one: fixing it."), call("edit_file", S21_FIX)] } : say("Fixed src/login.js: an account now locks after MAX_FAILED_ATTEMPTS failures, not one more.");
  if (prompt === S21_SECOND)
    return ctx.step === 0
      ? { content: [text("Adding the changelog and the lockout log line."), call("write_file", S21_CHANGELOG), call("edit_file", S21_LOG_LINE)] }
      : say("Added CHANGELOG.md and a log line when an account locks.");
  if (prompt === S21_THIRD) {
    if (ctx.step === 0) return { content: [text("Checking the workspace."), call("list_files", { path: "." })] };
    const listing = ctx.results[0] ? ctx.resultText(ctx.results[0]) : "";
    const changed = changedIn(ctx.messages);
    return say(`In this conversation I changed ${changed.join(" and ") || "nothing"}. The workspace ${/CHANGELOG\.md/.test(listing) ? "holds a CHANGELOG.md" : "holds no CHANGELOG.md"}:\n${listing}`);
  }
  return intents.reply(ctx);
}

export const s21Checkpoints: Scenario = {
  id: "s21_checkpoints",
  title: "Fixes the lockout, makes a second change that is rewound, then says what it changed",
  task: S21_TASK,
  reply,
};
