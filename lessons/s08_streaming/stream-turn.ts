/**
 * s08 · one turn, streamed: `client.messages.stream(...)` instead of `create(...)`.
 *
 * The answer arrives as server-sent events. Text is handed on piece by piece as it comes, and a
 * tool call is noticed as soon as its block closes, while the rest of the message may still be
 * streaming, so a read-only tool can start early. At the end, `finalMessage()` gives the same
 * Message that `create()` would have returned, and that is what goes into the history.
 */
import type Anthropic from "@anthropic-ai/sdk";
import { todo } from "../../runtime/lesson.ts";

export interface StreamHandlers {
  /** Each piece of text, as it arrives. */
  onText?(delta: string): void;
  /** A tool call whose input is complete, noticed before the message ends. */
  onToolUse?(call: Anthropic.ToolUseBlock): void;
}

// #region stream-turn
/**
 * Streams one request and returns the complete message. Aborting `signal` stops the stream:
 * the promise rejects with the SDK's APIUserAbortError and nothing of the partial answer is kept.
 */
export async function streamTurn(
  client: Anthropic,
  params: Anthropic.MessageStreamParams,
  handlers: StreamHandlers = {},
  signal?: AbortSignal,
): Promise<Anthropic.Message> {
  // TODO: start the stream: client.messages.stream(params, { signal }) (leave `signal` out when
  //       there is none).
  // TODO: listen to its "streamEvent" events (each is one SSE event of the Messages API):
  //       - content_block_start of a tool_use block: remember the block, by event.index, with "" as its JSON so far;
  //       - content_block_delta: a text_delta goes to handlers.onText at once; an input_json_delta's
  //         partial_json is appended to the JSON of the tool block at event.index;
  //       - content_block_stop of a tool block: parseInput(json) and, unless that is undefined, hand
  //         { ...block, input } to handlers.onToolUse. The message may still be streaming.
  // TODO: return await stream.finalMessage(): the whole Message, exactly what create() returns.
  void client;
  void params;
  void handlers;
  void signal;
  return todo("s08 streamTurn: stream the request, hand on text and finished tool calls, return the final message");
}
// #endregion stream-turn

/** The input of a finished tool block: `{}` when no delta came, undefined when the JSON is broken. */
export function parseInput(json: string): Record<string, unknown> | undefined {
  if (json.trim() === "") return {};
  try {
    const value: unknown = JSON.parse(json);
    return typeof value === "object" && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}
