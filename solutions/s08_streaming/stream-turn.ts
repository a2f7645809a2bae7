/**
 * s08 · one turn, streamed: `client.messages.stream(...)` instead of `create(...)`.
 *
 * The answer arrives as server-sent events. Text is handed on piece by piece as it comes, and a
 * tool call is noticed as soon as its block closes, while the rest of the message may still be
 * streaming, so a read-only tool can start early. At the end, `finalMessage()` gives the same
 * Message that `create()` would have returned, and that is what goes into the history.
 */
import type Anthropic from "@anthropic-ai/sdk";

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
  const stream = client.messages.stream(params, signal ? { signal } : {});
  // Tool calls being streamed, by block index: the block as it started, and its input so far.
  const open = new Map<number, { block: Anthropic.ToolUseBlock; json: string }>();

  stream.on("streamEvent", (event) => {
    switch (event.type) {
      case "content_block_start":
        if (event.content_block.type === "tool_use") open.set(event.index, { block: event.content_block, json: "" });
        break;
      case "content_block_delta":
        if (event.delta.type === "text_delta") handlers.onText?.(event.delta.text);
        // The input arrives as pieces of a JSON text; it can be parsed only once it is whole.
        else if (event.delta.type === "input_json_delta") {
          const call = open.get(event.index);
          if (call) call.json += event.delta.partial_json;
        }
        break;
      case "content_block_stop": {
        const call = open.get(event.index);
        if (!call) break;
        open.delete(event.index);
        const input = parseInput(call.json);
        // subtle: a call cut off by max_tokens never has whole JSON: it is not announced at all.
        if (input !== undefined) handlers.onToolUse?.({ ...call.block, input });
        break;
      }
    }
  });

  // The same Message create() returns: every block, stop_reason and usage.
  return await stream.finalMessage();
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
