/**
 * s13_caching: a long session on the sample repository (examples/login-service), one file per turn.
 *
 *   [0] user       "Read the login service's files one at a time, then summarise what it does."
 *   [1] assistant  text + tool_use(list_files {path: "."})
 *   [2] user       tool_result (the file list)
 *   [3] assistant  text + tool_use(read_file <first file>)        one file per turn, in list order
 *   …
 *   [n] assistant  text: one line per file read (its size), and what the service does
 *
 * Every turn re-sends the whole history, so the prompt grows by one file each turn: what a loop
 * that marks cache breakpoints reads back from the cache grows with it. The answers come from the
 * real tool output (the list and the files), not from a fixed script.
 */
import type Anthropic from "@anthropic-ai/sdk";
import { S13_TASK } from "../../tasks.ts";
import type { Reply, Scenario, TurnContext } from "../types.ts";
import { intents } from "./intents.ts";
import { call, firstLines, say, text } from "./script.ts";

export { S13_TASK };

/** The paths the model already asked read_file for, in order. */
function readSoFar(messages: Anthropic.MessageParam[]): string[] {
  return messages.flatMap((m) =>
    m.role === "assistant" && typeof m.content !== "string"
      ? m.content.flatMap((b) => (b.type === "tool_use" && b.name === "read_file" && typeof (b.input as { path?: unknown }).path === "string" ? [(b.input as { path: string }).path] : []))
      : [],
  );
}

/** The file list: the text of the first list_files result of the conversation. */
function listed(ctx: TurnContext): string[] | null {
  for (const m of ctx.messages) {
    if (m.role !== "user" || typeof m.content === "string") continue;
    for (const b of m.content)
      if (b.type === "tool_result" && !b.is_error) {
        const lines = ctx.resultText(b).split("\n").map((l) => l.trim());
        const files = lines.filter((l) => /\.(md|js|json|log|ts|txt)$/.test(l));
        if (files.length > 0) return files;
      }
  }
  return null;
}

/** The text read_file returned for `path`, found by the id of the call that asked for it. */
function resultFor(ctx: TurnContext, path: string): string | undefined {
  const ids = new Map<string, string>();
  for (const m of ctx.messages)
    if (m.role === "assistant" && typeof m.content !== "string")
      for (const b of m.content) if (b.type === "tool_use") ids.set(b.id, String((b.input as { path?: unknown }).path));
  for (const m of ctx.messages)
    if (m.role === "user" && typeof m.content !== "string")
      for (const b of m.content) if (b.type === "tool_result" && ids.get(b.tool_use_id) === path) return ctx.resultText(b);
  return undefined;
}

function reply(ctx: TurnContext): Reply {
  if (ctx.firstPrompt.trim() !== S13_TASK) return intents.reply(ctx);
  if (!ctx.tools.includes("read_file") || !ctx.tools.includes("list_files"))
    return say("I need the list_files and read_file tools for this task, and this request offers neither.");
  if (ctx.step === 0) return { content: [text("First, the list of files."), call("list_files", { path: "." })] };
  const files = listed(ctx);
  if (!files) return say(`I could not list the files:\n${firstLines(ctx.results.map((r) => ctx.resultText(r)).join("\n"), 3)}`);
  const done = readSoFar(ctx.messages);
  const next = files.find((f) => !done.includes(f));
  if (next) return { content: [text(done.length === 0 ? `${files.length} files. Reading ${next}.` : `Next: ${next}.`), call("read_file", { path: next })] };
  const sizes = done.map((path) => {
    const text = resultFor(ctx, path);
    return `- ${path}: ${text === undefined ? "not read" : `${text.length} characters`}`;
  });
  const source = done.find((f) => f.endsWith(".js") && !f.includes("test"));
  return say(
    [`I read ${done.length} files, one per turn:`, ...sizes, `The service checks passwords and locks an account after too many failures${source ? ` (${source})` : ""}; the tests and the log show how.`].join("\n"),
  );
}

export const s13Caching: Scenario = {
  id: "s13_caching",
  title: "A long session: list the sample repository, read one file per turn, summarise",
  task: S13_TASK,
  reply,
};
