/**
 * s10_conversation: a session of several questions over ONE history. The first question lists
 * the files; a follow-up ("how many…?") is answered from the earlier tool result, which the model
 * only sees if the REPL kept the history. After `/reset` the same follow-up gets "I see no
 * earlier listing". A question that asks to wait runs a slow command, so Ctrl-C has something to
 * cancel.
 */
import type Anthropic from "@anthropic-ai/sdk";
import type { Reply, Scenario, TurnContext } from "../types.ts";
import { textOf } from "../conversation.ts";
import { intents } from "./intents.ts";
import { call, say, text, thinking } from "./script.ts";
import { S10_FOLLOW_UP, S10_SLOW, S10_TASK } from "../../tasks.ts";

export { S10_FOLLOW_UP, S10_SLOW, S10_TASK };


/** Earlier listings: the text of every tool_result before the latest question. */
function earlierResults(ctx: TurnContext): string[] {
  const out: string[] = [];
  for (const m of ctx.messages.slice(0, -1)) {
    if (m.role !== "user" || typeof m.content === "string") continue;
    for (const b of m.content)
      if (b.type === "tool_result" && !b.is_error) out.push(textOf((b as Anthropic.ToolResultBlockParam).content));
  }
  return out;
}

const entries = (listing: string) =>
  listing
    .split("\n")
    .map((l) => l.trim())
    .filter((l) => l.length > 0 && !l.startsWith("(") && !l.startsWith("total "));

function listCall(ctx: TurnContext) {
  if (ctx.tools.includes("list_files")) return call("list_files", { path: "." });
  if (ctx.tools.includes("glob")) return call("glob", { pattern: "*" });
  return call("bash", { command: "ls" });
}

function reply(ctx: TurnContext): Reply {
  const prompt = ctx.prompt.trim();
  if (prompt === S10_TASK) {
    if (ctx.step === 0) return { content: [thinking("The user wants the listing; one call does it."), text("I'll list the files."), listCall(ctx)] };
    const r = ctx.results[0];
    if (!r || r.is_error) return say(`I could not list the files${r ? `: ${ctx.resultText(r).split("\n")[0]}` : ""}.`);
    const list = entries(ctx.resultText(r));
    return say(`There are ${list.length} entries here: ${list.slice(0, 6).join(", ")}${list.length > 6 ? ", …" : ""}.`);
  }
  if (/how many|which one/i.test(prompt)) {
    const earlier = earlierResults(ctx).map(entries).filter((l) => l.length > 0);
    if (earlier.length === 0) return say("I see no earlier listing in this conversation, so I cannot tell. Ask me to list the files first.");
    const last = earlier[earlier.length - 1]!;
    return say(`Earlier in this session I found ${last.length} entries; the first was ${last[0]}.`);
  }
  if (/\b(wait|slow)\b/i.test(prompt)) {
    if (ctx.step === 0) return { content: [thinking("A slow command, as asked."), text("Running a slow command."), call("bash", { command: "sleep 20; echo finished" })] };
    return say("The slow command finished.");
  }
  return intents.reply(ctx);
}

export const s10Conversation: Scenario = {
  id: "s10_conversation",
  title: "Several questions in one session; a follow-up answered from an earlier tool result",
  task: S10_TASK,
  reply,
};
