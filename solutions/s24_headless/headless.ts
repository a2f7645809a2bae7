/**
 * s24 · what a script reads: the loop's events as JSON lines, in the Messages API's own shapes.
 *
 *   {"type":"system","subtype":"init",…}          once, before the first request
 *   {"type":"assistant","message":<Message>,…}    each response, exactly as the API sent it
 *   {"type":"user","message":<MessageParam>,…}    each user message that answers a turn (tool_result blocks first)
 *   {"type":"result",…}                            once, last: the answer, turns, usage, cost, session, is_error, stop reason
 *
 * The lines replay the run: the task, then every assistant and user line's `message`, is the
 * transcript the loop kept, one the API accepts as the next request.
 */
import type Anthropic from "@anthropic-ai/sdk";
import type { AgentEvent } from "../../solutions/s09_observability/events.ts";
import type { Extension } from "../../solutions/s11_recovery/extend.ts";

export const OUTPUT_FORMATS = ["text", "json", "stream-json"] as const;
export type OutputFormat = (typeof OUTPUT_FORMATS)[number];

/** The last line of a run: what a script needs to know how it went. */
export interface ResultLine {
  type: "result";
  subtype: "success" | "error";
  is_error: boolean;
  /** The final answer's text ("" when the run stopped before one). */
  result: string;
  num_turns: number;
  usage: { input_tokens: number; output_tokens: number; cache_creation_input_tokens: number; cache_read_input_tokens: number };
  /** An estimate from s09's price table. */
  total_cost_usd: number;
  session_id: string;
  /** The last response's stop_reason, or the guard that stopped the run ("max_turns", "timeout", …). */
  stop_reason: string | null;
  duration_ms: number;
}

export type HeadlessLine =
  | { type: "system"; subtype: "init"; session_id: string; model: string; cwd: string }
  | { type: "assistant"; message: Anthropic.Message; session_id: string }
  | { type: "user"; message: Anthropic.MessageParam; session_id: string }
  | ResultLine;

/** The text blocks of a response, one per line ("" when there is none). */
export const textOf = (m: Anthropic.Message | undefined) => m?.content.flatMap((b) => (b.type === "text" ? [b.text] : [])).join("\n") ?? "";

// #region lines
/** NEW: one loop event as the line a script reads, or null for an event it does not need (act, observe). */
export function lineOf(event: AgentEvent, session: string): HeadlessLine | null {
  switch (event.type) {
    case "think":
      return { type: "assistant", message: event.message, session_id: session };
    case "stop": {
      const { outcome, totals } = event;
      const done = outcome.status === "done";
      return {
        type: "result",
        subtype: done ? "success" : "error",
        is_error: !done,
        result: textOf(outcome.message),
        num_turns: totals.turns,
        usage: { input_tokens: totals.input, output_tokens: totals.output, cache_creation_input_tokens: totals.cacheWrite, cache_read_input_tokens: totals.cacheRead },
        total_cost_usd: totals.costUsd ?? 0,
        session_id: session,
        stop_reason: done ? (outcome.message.stop_reason ?? null) : outcome.reason,
        duration_ms: event.ms,
      };
    }
    default:
      return null;
  }
}
// #endregion lines

/** The user message that answers each turn, as a line: the last extension sees it as it is sent. */
export const answeredLines =
  (emit: (line: HeadlessLine) => void, session: string): Extension =>
  () => ({
    answer: (results) => {
      emit({ type: "user", message: { role: "user", content: results }, session_id: session });
      return results;
    },
  });
