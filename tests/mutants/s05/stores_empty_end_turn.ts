// mutant of: solutions/s05_stop_reasons/outcome.ts
// expect: × end_turn is done, and an empty end_turn is not stored as an empty message
/**
 * s05_stop_reasons: how a run ends, as a type. Unlike s04's loop, which returned the last message
 * and left the caller to guess from its stop_reason, a run now returns an `Outcome`: done, or
 * stopped with a reason the caller can switch on (and TypeScript checks every case is handled).
 *
 * Also here: the two transcript operations every way of stopping needs, so that what is left in
 * `history` can always be sent to the API again.
 */
import type Anthropic from "@anthropic-ai/sdk";

// #region outcome
/** Ways the model itself ends a run without finishing the task (stop_reason values). */
export type ModelStop = "max_tokens" | "stop_sequence" | "refusal" | "model_context_window_exceeded" | "unknown_stop_reason";

/** The model finished: stop_reason "end_turn". */
export interface Done {
  status: "done";
  /** The last response (its text is the answer). */
  message: Anthropic.Message;
  /** Responses received in this run. */
  turns: number;
}

/** The run ended before the task was done. Later lessons add their own reasons to `R`. */
export interface Stopped<R extends string = ModelStop> {
  status: "stopped";
  reason: R;
  /** One sentence for a person: what happened and what to do. */
  detail: string;
  turns: number;
  /** The last response, when there was one. */
  message?: Anthropic.Message;
}

export type Outcome<R extends string = ModelStop> = Done | Stopped<R>;
// #endregion outcome

// #region stopped
/** A response whose stop_reason is not end_turn, tool_use or pause_turn, as a Stopped outcome. */
export function stoppedBy(message: Anthropic.Message, turns: number): Stopped {
  const base = { status: "stopped" as const, turns, message };
  switch (message.stop_reason) {
    case "max_tokens":
      return { ...base, reason: "max_tokens", detail: `the answer did not fit in max_tokens, even after a retry with a larger limit` };
    case "stop_sequence":
      return { ...base, reason: "stop_sequence", detail: `the model wrote the stop sequence ${JSON.stringify(message.stop_sequence)}` };
    case "refusal": {
      const why = message.stop_details?.explanation ?? message.stop_details?.category ?? "no reason given";
      return { ...base, reason: "refusal", detail: `the model declined: ${why}` };
    }
    case "model_context_window_exceeded":
      return { ...base, reason: "model_context_window_exceeded", detail: "the conversation fills the model's context window: shorten it (lesson s11 compacts it) or start a new one" };
    default:
      return { ...base, reason: "unknown_stop_reason", detail: `stop_reason ${JSON.stringify(message.stop_reason)} is not one this loop knows: not taken as success` };
  }
}
// #endregion stopped

const isToolUse = (b: Anthropic.ContentBlock): b is Anthropic.ToolUseBlock => b.type === "tool_use";

// #region append
/**
 * Stores a response in `history` so the transcript stays sendable:
 * - empty content (an end_turn may come back with `content: []`) is not stored;
 * - after a pause_turn the response continues the paused turn, so its blocks join that
 *   assistant message (two assistant messages in a row are refused by some servers).
 */
export function appendResponse(history: Anthropic.MessageParam[], message: Anthropic.Message): void {
  // BUG: an empty answer is stored too, as an assistant message with no content.
  const last = history[history.length - 1];
  if (last?.role === "assistant" && Array.isArray(last.content))
    history[history.length - 1] = { role: "assistant", content: [...last.content, ...message.content] };
  else history.push({ role: "assistant", content: message.content });
}
// #endregion append

// #region not-run
/**
 * When the run stops on a response that asked for tools, answers each call without running it,
 * so no tool_use is left unanswered (the API refuses such a transcript).
 */
export function answerNotRun(history: Anthropic.MessageParam[], message: Anthropic.Message, why: string): void {
  const calls = message.content.filter(isToolUse);
  if (calls.length === 0) return;
  history.push({
    role: "user",
    content: calls.map((c) => ({ type: "tool_result" as const, tool_use_id: c.id, is_error: true, content: `Not run: ${why}` })),
  });
}
// #endregion not-run

/** One line for a person. */
export function describeOutcome(o: Outcome<string>): string {
  const turns = `${o.turns} turn${o.turns === 1 ? "" : "s"}`;
  return o.status === "done" ? `done after ${turns}` : `stopped (${o.reason}) after ${turns}: ${o.detail}`;
}
