/**
 * s09 · the message table: the transcript, one line per message, showing exactly
 * what each request re-sends. `--trace` prints it after a run.
 *
 *   [0] user       "Run the login module's tests and find out why one fails."
 *   [1] assistant  text + tool_use(id=toolu_…, bash)                       stop_reason: tool_use
 *   [2] user       tool_result(tool_use_id=toolu_…)
 */
import type Anthropic from "@anthropic-ai/sdk";
import { todo } from "../../runtime/lesson.ts";

type Block = Anthropic.ContentBlockParam | Anthropic.ContentBlock;

function quote(s: string, max = 60): string {
  const one = s.replace(/\s+/g, " ").trim();
  return JSON.stringify(one.length > max ? `${one.slice(0, max - 1)}…` : one);
}

/** One block, the way the message table writes it. */
export function describeBlock(b: Block, alone: boolean): string {
  switch (b.type) {
    case "text":
      return alone ? `text(${quote(b.text)})` : "text";
    case "thinking":
    case "redacted_thinking":
      return b.type;
    case "tool_use":
      return `tool_use(id=${b.id}, ${b.name})`;
    case "tool_result":
      return `tool_result(tool_use_id=${b.tool_use_id}${b.is_error ? ", is_error" : ""})`;
    default:
      return b.type;
  }
}

// #region table
/**
 * The table. `responses` (the model's answers, in order) add each assistant line's stop_reason.
 */
export function messageTable(messages: readonly Anthropic.MessageParam[], responses: readonly Anthropic.Message[] = []): string[] {
  // TODO: one line per message: `[i] ` + the role padded to 10 + " ", then
  //       - a string content, or a user message that is one text block: the text, quote()d;
  //       - otherwise each block through describeBlock(block, alone) joined with " + "
  //         (alone: the message has just that one block);
  //       - for an assistant message, find its response (same content: sameContent; the latest
  //         such response, as one cut off and asked again may have the same content) and end the
  //         line, padded to 72, with " stop_reason: <its stop_reason>".
  void messages;
  void responses;
  void sameContent;
  return todo("s09 messageTable: one line per message, as in the table above");
}
// #endregion table

/** The same blocks: same types, texts and tool ids (key order and SDK extras do not matter). */
function sameContent(a: readonly Block[], b: readonly Block[]): boolean {
  const key = (blocks: readonly Block[]) => blocks.map((x) => (x.type === "tool_use" ? x.id : x.type === "text" ? x.text : x.type)).join("\u0000");
  return a.length === b.length && key(a) === key(b);
}
