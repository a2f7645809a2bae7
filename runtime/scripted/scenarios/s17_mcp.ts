/**
 * s17_mcp: a question only the example MCP server (examples/mcp-notes) can answer.
 *
 *   [0] user       the task ("What do our team notes say about account lockouts?")
 *   [1] assistant  mcp__notes__search {query: "lockout"}      (offered by the MCP server)
 *   [2] user       tool_result: the matching notes' ids
 *   [3] assistant  mcp__notes__read_note {id: <the first hit>}
 *   [4] user       tool_result: the note
 *   [5] assistant  the answer, quoting the note
 *
 * The conversation is notes.ts's (which answers other questions about the notes too); a prompt
 * that is not about the notes goes to the intents. A failing call (is_error) is reported as it came.
 */
import { S17_TASK } from "../../tasks.ts";
import type { Scenario } from "../types.ts";
import { intents } from "./intents.ts";
import { notesReply } from "./notes.ts";

export { S17_TASK };

export const s17Mcp: Scenario = { id: "s17_mcp", title: "Searches the notes MCP server, reads the note, answers", task: S17_TASK, reply: (ctx) => notesReply(ctx) ?? intents.reply(ctx) };
