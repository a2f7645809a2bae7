/**
 * Types of the scripted model: what a scenario sees (the request, read as a conversation) and
 * what it answers (blocks and a stop_reason). The model turns an answer into a real Messages API
 * response (ids, usage, signatures, truncation at max_tokens, stop sequences, SSE events).
 */
import type Anthropic from "@anthropic-ai/sdk";

/** A request body as the scripted model received it (already validated). */
export type ScriptedRequest = Anthropic.MessageCreateParams & { stream?: boolean };

/** One block of a scripted answer. Ids and signatures are filled in by the model. */
export type ReplyBlock =
  | { type: "text"; text: string }
  | { type: "thinking"; thinking: string }
  | { type: "redacted_thinking"; data: string }
  | { type: "tool_use"; name: string; input: Record<string, unknown>; id?: string };

/** What a scenario answers for one turn. */
export interface Reply {
  content: ReplyBlock[];
  /**
   * Defaults: "tool_use" when the content has a tool_use block, else "end_turn". Any string is
   * allowed, so tests can send a stop_reason the loop has never heard of.
   */
  stop_reason?: Anthropic.StopReason | (string & {});
  stop_sequence?: string | null;
  stop_details?: { type: "refusal"; category: string | null; explanation: string | null } | null;
}

/** The conversation as a scenario reads it. */
export interface TurnContext {
  request: ScriptedRequest;
  messages: Anthropic.MessageParam[];
  /** The text of the latest user message that is not only tool results (the task). */
  prompt: string;
  /** The first user text of the conversation. */
  firstPrompt: string;
  /** Assistant turns since `prompt` was asked: 0 for the first answer to it. */
  step: number;
  /** Names of the tools offered in this request. */
  tools: string[];
  /** The tool_result blocks of the last user message (empty when it has none). */
  results: Anthropic.ToolResultBlockParam[];
  /** The text of a tool result's content (string or text blocks joined). */
  resultText(result: Anthropic.ToolResultBlockParam): string;
  /** The tool_use block a result answers (looked up in the previous assistant message). */
  callOf(result: Anthropic.ToolResultBlockParam): Anthropic.ToolUseBlockParam | undefined;
  /** How many requests this model instance has answered before this one. */
  requestIndex: number;
}

export interface Scenario {
  /** Stable id, usually the lesson id ("s01_agent_loop") or a test's own name. */
  id: string;
  /** One line for humans. */
  title: string;
  /**
   * The task this scenario answers. When a conversation's first user text equals it (trimmed),
   * the model routes to this scenario without being told.
   */
  task?: string;
  reply(ctx: TurnContext): Reply;
}

/** Faults the model can inject, one per request. */
export type Fault =
  | { kind: "rate_limit"; retryAfterSeconds?: number }
  | { kind: "server_error" }
  /** 529; with `retryAfterSeconds`, a retry-after header too (the SDK then waits that, not its own backoff). */
  | { kind: "overloaded"; retryAfterSeconds?: number }
  | { kind: "prompt_too_long" }
  /** An `event: error` (overloaded_error) after `afterEvents` SSE events. */
  | { kind: "stream_error"; afterEvents?: number }
  /** The connection drops after `afterEvents` SSE events (the reader sees a network error). */
  | { kind: "stream_cut"; afterEvents?: number }
  /** Wait before answering (the answer itself is normal). */
  | { kind: "latency"; ms: number };

/** Faults for successive requests (null or missing: no fault), or a function of the request. */
export type FaultPlan = Array<Fault | null> | ((requestIndex: number, request: unknown) => Fault | null);
