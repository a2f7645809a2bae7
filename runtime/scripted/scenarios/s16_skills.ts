/**
 * s16_skills: a task one of the listed skills is written for (examples/skills/release-notes).
 *
 *   [0] user       the task
 *   [1] assistant  load_skill {name: "release-notes"}        (the system prompt listed it)
 *   [2] user       tool_result: the skill's body
 *   [3] assistant  write_file NOTES.md, in the format the body asks for
 *   [4] user       tool_result
 *   [5] assistant  done
 *
 * It reads the skill list from the request's system prompt, and the format from the body the tool
 * returned: without the skill (not listed, not loaded) it says so instead of guessing a format.
 */
import { S16_TASK } from "../../tasks.ts";
import type { Reply, Scenario, TurnContext } from "../types.ts";
import { intents } from "./intents.ts";
import { call, say, text } from "./script.ts";

export { S16_TASK };

const systemText = (ctx: TurnContext) =>
  typeof ctx.request.system === "string" ? ctx.request.system : (ctx.request.system ?? []).map((b) => b.text).join("\n");

function reply(ctx: TurnContext): Reply {
  if (ctx.firstPrompt.trim() !== S16_TASK) return intents.reply(ctx);
  // Listed in any shape a loop may write the list in ("- release-notes: …", a table, XML): the name as a word.
  const listed = /(^|[^\w-])release-notes([^\w-]|$)/m.test(systemText(ctx));
  if (ctx.step === 0) {
    if (!listed || !ctx.tools.includes("load_skill")) return say("No release-notes skill is listed, so I do not know this team's format; tell me how you write release notes.");
    return { content: [text("There is a skill for release notes; loading it."), call("load_skill", { name: "release-notes" })] };
  }
  if (ctx.step === 1) {
    const r = ctx.results[0];
    if (!r || r.is_error) return say(`I could not load the skill${r ? `: ${ctx.resultText(r)}` : ""}.`);
    const body = ctx.resultText(r);
    const heading = /`## <version>`/.test(body) ? "## 1.2.1" : "# 1.2.1";
    const section = /`### Fixed`/.test(body) ? "### Fixed\n" : "";
    const notes = `${heading}\n\n${section}- Fixed the lockout off-by-one in \`src/login.js\`: an account now locks after the third failed attempt, not the fourth.\n`;
    return { content: [text("Writing NOTES.md the way the skill says."), call("write_file", { path: "NOTES.md", content: notes })] };
  }
  const r = ctx.results[0];
  return say(r && !r.is_error ? "Wrote NOTES.md for 1.2.1, following the release-notes skill (a version heading, a Fixed section, one past-tense line)." : `Writing NOTES.md failed: ${r ? ctx.resultText(r) : "no result"}`);
}

export const s16Skills: Scenario = { id: "s16_skills", title: "Loads the release-notes skill, then writes NOTES.md its way", task: S16_TASK, reply };
