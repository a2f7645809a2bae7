/** Reading a request as a conversation: what a scenario needs to decide its next answer. */
import type Anthropic from "@anthropic-ai/sdk";
import { textOf } from "../transcript.ts";
import type { ScriptedRequest, TurnContext } from "./types.ts";

export { textOf };

type Block = Anthropic.ContentBlockParam;

export function blocksOf(content: Anthropic.MessageParam["content"]): Block[] {
  return typeof content === "string" ? [{ type: "text", text: content }] : content;
}

/**
 * A tool result that says its call did not run because the user stopped the turn (s10's REPL
 * answers the calls a cancelled turn left open this way), in the words a loop may choose. A tool
 * the loop stopped itself (a time-out, "was stopped") or that failed is not a cancelled turn.
 */
const CANCELLED = /cancel|interrupt|ctrl-?c|\b(?:the )?user (?:stopped|aborted)\b|\b(?:stopped|aborted) by the user\b|取消|中断|отмен|прерв/i;

/**
 * A user message that asks something (has text), as opposed to one that carries results. Text
 * after tool results is read as a real model reads it, by what the results say:
 *   - beside results of calls that ran (successes, or failures such as a missing file), it is a
 *     note on them (s14's reminder, a loop's "the tool failed, try again"): the task goes on;
 *   - beside results that say the user cancelled the turn (its calls did not run), it is the next
 *     question: the REPL puts it in the message that answers the cancelled turn's calls (s10),
 *     even when some calls of that turn had finished.
 */
function isPrompt(m: Anthropic.MessageParam): boolean {
  if (m.role !== "user") return false;
  const blocks = blocksOf(m.content);
  if (!blocks.some((b) => b.type === "text")) return false;
  const results = blocks.filter((b): b is Anthropic.ToolResultBlockParam => b.type === "tool_result");
  return results.length === 0 || results.some((r) => r.is_error === true && CANCELLED.test(textOf(r.content)));
}

export function readConversation(request: ScriptedRequest, requestIndex: number): TurnContext {
  const messages = request.messages;
  let promptIndex = -1;
  for (let i = messages.length - 1; i >= 0; i--)
    if (isPrompt(messages[i]!)) {
      promptIndex = i;
      break;
    }
  const promptMessage = promptIndex >= 0 ? messages[promptIndex]! : undefined;
  const prompt = promptMessage
    ? blocksOf(promptMessage.content)
        .filter((b): b is Anthropic.TextBlockParam => b.type === "text")
        .map((b) => b.text)
        .join("\n")
    : "";
  const first = messages.find(isPrompt);
  const firstPrompt = first ? textOf(first.content) : "";
  const step = messages.slice(promptIndex + 1).filter((m) => m.role === "assistant").length;
  const last = messages[messages.length - 1];
  const results =
    last && last.role === "user"
      ? blocksOf(last.content).filter((b): b is Anthropic.ToolResultBlockParam => b.type === "tool_result")
      : [];
  const prev = messages.length >= 2 ? messages[messages.length - 2] : undefined;
  const calls =
    prev && prev.role === "assistant"
      ? blocksOf(prev.content).filter((b): b is Anthropic.ToolUseBlockParam => b.type === "tool_use")
      : [];
  const tools = (request.tools ?? []).flatMap((t) => ("name" in t && typeof t.name === "string" ? [t.name] : []));
  return {
    request,
    messages,
    prompt,
    firstPrompt,
    step,
    tools,
    results,
    requestIndex,
    resultText: (r) => textOf(r.content),
    callOf: (r) => calls.find((c) => c.id === r.tool_use_id),
  };
}
