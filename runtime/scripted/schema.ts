/**
 * The Messages API's answers as the wire carries them, as zod schemas: a message, each SSE event,
 * count_tokens, the models list, and error bodies.
 *
 * Written from the API reference (Messages, Streaming Messages, Models, Errors), not from the
 * SDK's TypeScript types: those widen fields to `| null` (`citations: null`, `stop_details: null`,
 * `container: null`, …) where the wire leaves the key out. Every object is strict, so a key the
 * API never sends fails, and so does a null where the API sends an array or leaves the key out.
 * Clients that validate responses (stricter than the official SDK) refuse such an answer whole.
 *
 * The scripted model checks every answer it sends against these schemas (a mismatch is a bug in
 * the model or a scenario, answered as a 500 that says what is wrong), and tests check the wire.
 */
import { z } from "zod";

/** The stop reasons the API reference lists. */
export const KNOWN_STOP_REASONS = [
  "end_turn",
  "max_tokens",
  "stop_sequence",
  "tool_use",
  "pause_turn",
  "refusal",
  "model_context_window_exceeded",
] as const;

/**
 * A stop reason: one the reference lists, or a new one in the same form. The API adds stop
 * reasons over time, and the course's s05 scenario sends one "from the future" on purpose.
 */
const StopReason = z.union([z.enum(KNOWN_STOP_REASONS), z.string().regex(/^[a-z][a-z0-9_]*$/, "a snake_case stop reason")]);

const Citation = z.looseObject({ type: z.string(), cited_text: z.string() });

export const TextBlock = z.strictObject({
  type: z.literal("text"),
  text: z.string(),
  /** Only when the answer cites documents: an array, never null. */
  citations: z.array(Citation).optional(),
});
export const ThinkingBlock = z.strictObject({ type: z.literal("thinking"), thinking: z.string(), signature: z.string() });
export const RedactedThinkingBlock = z.strictObject({ type: z.literal("redacted_thinking"), data: z.string() });
export const ToolUseBlock = z.strictObject({
  type: z.literal("tool_use"),
  id: z.string().regex(/^toolu_[A-Za-z0-9_-]+$/, "a tool_use id starts with toolu_"),
  name: z.string().min(1),
  input: z.record(z.string(), z.unknown()),
});
export const ContentBlock = z.discriminatedUnion("type", [TextBlock, ThinkingBlock, RedactedThinkingBlock, ToolUseBlock]);

const Count = z.number().int().nonnegative();

export const CacheCreation = z.strictObject({ ephemeral_5m_input_tokens: Count, ephemeral_1h_input_tokens: Count });

export const Usage = z.strictObject({
  input_tokens: Count,
  output_tokens: Count,
  cache_creation_input_tokens: Count,
  cache_read_input_tokens: Count,
  cache_creation: CacheCreation,
  service_tier: z.enum(["standard", "priority", "batch"]),
});

export const RefusalStopDetails = z.strictObject({
  type: z.literal("refusal"),
  category: z.string().nullable(),
  explanation: z.string().nullable(),
});

export const Message = z.strictObject({
  id: z.string().regex(/^msg_[A-Za-z0-9_]+$/, "a message id starts with msg_"),
  type: z.literal("message"),
  role: z.literal("assistant"),
  model: z.string().min(1),
  content: z.array(ContentBlock),
  stop_reason: StopReason,
  stop_sequence: z.string().nullable(),
  /** Only on a refusal. */
  stop_details: RefusalStopDetails.optional(),
  usage: Usage,
});

// ── Streaming ────────────────────────────────────────────────────────────────────────────────

export const MessageStartEvent = z.strictObject({
  type: z.literal("message_start"),
  message: Message.extend({
    content: z.array(ContentBlock).max(0),
    stop_reason: z.null(),
    stop_sequence: z.null(),
  }).omit({ stop_details: true }),
});

const Index = z.number().int().nonnegative();

export const ContentBlockStartEvent = z.strictObject({
  type: z.literal("content_block_start"),
  index: Index,
  content_block: z.discriminatedUnion("type", [
    TextBlock.extend({ text: z.literal("") }),
    ThinkingBlock.extend({ thinking: z.literal(""), signature: z.literal("") }),
    RedactedThinkingBlock,
    ToolUseBlock.extend({ input: z.strictObject({}) }),
  ]),
});

export const ContentBlockDeltaEvent = z.strictObject({
  type: z.literal("content_block_delta"),
  index: Index,
  delta: z.discriminatedUnion("type", [
    z.strictObject({ type: z.literal("text_delta"), text: z.string() }),
    z.strictObject({ type: z.literal("input_json_delta"), partial_json: z.string() }),
    z.strictObject({ type: z.literal("thinking_delta"), thinking: z.string() }),
    z.strictObject({ type: z.literal("signature_delta"), signature: z.string() }),
    z.strictObject({ type: z.literal("citations_delta"), citation: Citation }),
  ]),
});

export const ContentBlockStopEvent = z.strictObject({ type: z.literal("content_block_stop"), index: Index });

export const MessageDeltaEvent = z.strictObject({
  type: z.literal("message_delta"),
  delta: z.strictObject({
    stop_reason: StopReason,
    stop_sequence: z.string().nullable(),
    stop_details: RefusalStopDetails.optional(),
  }),
  /** Running totals; output_tokens is always there, the others when they apply. */
  usage: z.strictObject({
    output_tokens: Count,
    input_tokens: Count.optional(),
    cache_creation_input_tokens: Count.optional(),
    cache_read_input_tokens: Count.optional(),
  }),
});

export const MessageStopEvent = z.strictObject({ type: z.literal("message_stop") });
export const PingEvent = z.strictObject({ type: z.literal("ping") });

export const ErrorBody = z.strictObject({
  type: z.literal("error"),
  error: z.strictObject({
    type: z.enum([
      "invalid_request_error",
      "authentication_error",
      "permission_error",
      "not_found_error",
      "request_too_large",
      "rate_limit_error",
      "api_error",
      "overloaded_error",
    ]),
    message: z.string().min(1),
    /** Machine-readable details some errors carry (e.g. message threads' error_code). */
    details: z.record(z.string(), z.unknown()).optional(),
  }),
  request_id: z.string().optional(),
});

/** An SSE event's data (the `error` event mid-stream has no request_id). */
export const StreamEvent = z.discriminatedUnion("type", [
  MessageStartEvent,
  ContentBlockStartEvent,
  ContentBlockDeltaEvent,
  ContentBlockStopEvent,
  MessageDeltaEvent,
  MessageStopEvent,
  PingEvent,
  ErrorBody,
]);

// ── Other endpoints ─────────────────────────────────────────────────────────────────────────

export const CountTokens = z.strictObject({ input_tokens: Count });

const Nullable = <T extends z.ZodType>(t: T) => t.nullable();

/** Every key is always sent; the ones that may not apply are null, never left out. */
export const ModelInfo = z.strictObject({
  type: z.literal("model"),
  id: z.string().min(1),
  display_name: z.string().min(1),
  /** RFC 3339 date-time. */
  created_at: z.iso.datetime(),
  capabilities: Nullable(z.record(z.string(), z.unknown())),
  max_input_tokens: Nullable(Count),
  max_tokens: Nullable(Count),
  lifecycle: z.enum(["active", "deprecated", "retired"]),
  line: Nullable(z.string()),
  deprecated_at: Nullable(z.iso.datetime()),
  retires_at: Nullable(z.iso.datetime()),
});

export const ModelList = z.strictObject({
  data: z.array(ModelInfo),
  has_more: z.boolean(),
  first_id: z.string().nullable(),
  last_id: z.string().nullable(),
});

/** Why a value is not what the API sends, in one line per problem (empty when it is). */
export function shapeProblems(schema: z.ZodType, value: unknown): string[] {
  const r = schema.safeParse(value);
  if (r.success) return [];
  return r.error.issues.map((i) => `${i.path.length ? i.path.join(".") : "(top)"}: ${i.message}`);
}
