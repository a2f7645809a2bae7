/**
 * s17_mcp: a question only the example MCP server (examples/mcp-notes) can answer.
 *
 *   [0] user       the task
 *   [1] assistant  mcp__notes__search {query: "lockout"}      (offered by the MCP server)
 *   [2] user       tool_result: the matching notes' ids
 *   [3] assistant  mcp__notes__read_note {id: <the first hit>}
 *   [4] user       tool_result: the note
 *   [5] assistant  the answer, quoting the note
 *
 * It finds the tools by their MCP names in the request; without them it says it cannot see the
 * notes. A failing call (is_error) is reported as it came.
 */
import { S17_TASK } from "../../tasks.ts";
import type { Reply, Scenario, TurnContext } from "../types.ts";
import { intents } from "./intents.ts";
import { call, say, text } from "./script.ts";

export { S17_TASK };

function reply(ctx: TurnContext): Reply {
  if (ctx.firstPrompt.trim() !== S17_TASK) return intents.reply(ctx);
  const search = ctx.tools.find((t) => /^mcp__.+__search$/.test(t));
  const read = ctx.tools.find((t) => /^mcp__.+__read_note$/.test(t));
  if (!search || !read) return say("I have no tool that reaches the team's notes (no MCP notes server is connected), so I cannot say.");
  const r = ctx.results[0];
  if (ctx.step > 0 && (!r || r.is_error)) return say(`The notes server failed: ${r ? ctx.resultText(r) : "no result"}`);
  if (ctx.step === 0) return { content: [text("Searching the team's notes."), call(search, { query: "lockout" })] };
  if (ctx.step === 1) {
    const id = /^([\w-]+):/m.exec(ctx.resultText(r!))?.[1];
    if (!id) return say(`The notes say nothing about lockouts: ${ctx.resultText(r!)}`);
    return { content: [text(`Reading the note "${id}".`), call(read, { id })] };
  }
  const note = ctx.resultText(r!).split("\n").filter((l) => l.trim() && !l.startsWith("#")).join(" ");
  return say(`The team's notes (from the MCP server) say: ${note}`);
}

export const s17Mcp: Scenario = { id: "s17_mcp", title: "Searches the notes MCP server, reads the note, answers", task: S17_TASK, reply };
