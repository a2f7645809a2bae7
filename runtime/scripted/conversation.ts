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
 * A user message that asks something (has text), as opposed to one that carries results. Text
 * after tool results is a note on them (the API takes it; s14's reminder is one), not a new
 * question, unless none of the calls ran: a turn cancelled by the user leaves only error results,
 * and the REPL puts the next question in that same message (s10).
 */
function isPrompt(m: Anthropic.MessageParam): boolean {
  if (m.role !== "user") return false;
  const blocks = blocksOf(m.content);
  if (!blocks.some((b) => b.type === "text")) return false;
  const results = blocks.filter((b): b is Anthropic.ToolResultBlockParam => b.type === "tool_result");
  return results.every((r) => r.is_error === true);
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
