/**
 * Server-sent events for a finished message, in the exact order the SDK's MessageStream parses:
 * message_start → (content_block_start, content_block_delta…, content_block_stop)* →
 * message_delta (stop_reason, usage) → message_stop.
 */
import type Anthropic from "@anthropic-ai/sdk";

export type StreamEvent = Anthropic.RawMessageStreamEvent | { type: "ping" };

export function encodeEvent(name: string, data: unknown): string {
  return `event: ${name}\ndata: ${JSON.stringify(data)}\n\n`;
}

/** Split text into chunks of a few words, as a model streams it. */
export function chunkText(text: string, size = 12): string[] {
  const chunks: string[] = [];
  const parts = text.match(/\S+\s*|\s+/g) ?? [];
  let current = "";
  for (const p of parts) {
    current += p;
    if (current.length >= size) {
      chunks.push(current);
      current = "";
    }
  }
  if (current.length > 0) chunks.push(current);
  return chunks;
}

function chunkJson(json: string, size = 16): string[] {
  const out: string[] = [];
  for (let i = 0; i < json.length; i += size) out.push(json.slice(i, i + size));
  return out;
}

/**
 * The events of a finished message. Like the plain answer, they carry only the keys the API
 * sends: a text block starts as `{type, text: ""}` (no `citations: null`), stop_details comes
 * in message_delta only for a refusal, and message_delta's usage has the running totals.
 */
export function messageEvents(message: Anthropic.Message): StreamEvent[] {
  const events: StreamEvent[] = [];
  const { stop_details: stopDetails, ...start } = message;
  events.push({
    type: "message_start",
    message: {
      ...start,
      content: [],
      stop_reason: null,
      stop_sequence: null,
      usage: { ...message.usage, output_tokens: 1 },
    },
  } as unknown as Anthropic.RawMessageStartEvent);
  events.push({ type: "ping" });
  message.content.forEach((block, index) => {
    if (block.type === "text") {
      events.push({ type: "content_block_start", index, content_block: { type: "text", text: "" } } as Anthropic.RawContentBlockStartEvent);
      for (const text of chunkText(block.text))
        events.push({ type: "content_block_delta", index, delta: { type: "text_delta", text } });
    } else if (block.type === "thinking") {
      events.push({ type: "content_block_start", index, content_block: { type: "thinking", thinking: "", signature: "" } });
      for (const thinking of chunkText(block.thinking))
        events.push({ type: "content_block_delta", index, delta: { type: "thinking_delta", thinking } });
      events.push({ type: "content_block_delta", index, delta: { type: "signature_delta", signature: block.signature } });
    } else if (block.type === "tool_use") {
      events.push({ type: "content_block_start", index, content_block: { ...block, input: {} } } as Anthropic.RawContentBlockStartEvent);
      const json = JSON.stringify(block.input);
      if (json !== "{}")
        for (const partial_json of chunkJson(json))
          events.push({ type: "content_block_delta", index, delta: { type: "input_json_delta", partial_json } });
    } else {
      events.push({ type: "content_block_start", index, content_block: block } as Anthropic.RawContentBlockStartEvent);
    }
    events.push({ type: "content_block_stop", index });
  });
  events.push({
    type: "message_delta",
    delta: { stop_reason: message.stop_reason, stop_sequence: message.stop_sequence, ...(stopDetails ? { stop_details: stopDetails } : {}) },
    usage: {
      output_tokens: message.usage.output_tokens,
      input_tokens: message.usage.input_tokens,
      cache_creation_input_tokens: message.usage.cache_creation_input_tokens,
      cache_read_input_tokens: message.usage.cache_read_input_tokens,
    },
  } as Anthropic.RawMessageDeltaEvent);
  events.push({ type: "message_stop" });
  return events;
}
