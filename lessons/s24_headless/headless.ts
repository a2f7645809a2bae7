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
import { todo } from "../../runtime/lesson.ts";

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
  /** The last response's stop_reason, or why the run stopped: the guard ("max_turns", "timeout", …), or what the program found after the loop ("no_script", "plan_not_approved"). */
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
  // TODO: a "think" event → an assistant line holding event.message as it is; a "stop" event → the
  // result line (ResultLine above: the answer's text, turns, usage, cost, session, is_error, stop
  // reason, from event.outcome and event.totals); any other event → null (act, observe: no line).
  if (event.type !== "think" && event.type !== "stop") return null;
  return todo(`map the ${event.type} event of session ${session} to its line (headless.ts lineOf)`);
}
// #endregion lines

/** The result of a run with several rounds (a Stop hook sends the model back: each round stops) as one. */
const merged = (a: ResultLine, b: ResultLine): ResultLine => ({
  ...b,
  num_turns: a.num_turns + b.num_turns,
  usage: {
    input_tokens: a.usage.input_tokens + b.usage.input_tokens,
    output_tokens: a.usage.output_tokens + b.usage.output_tokens,
    cache_creation_input_tokens: a.usage.cache_creation_input_tokens + b.usage.cache_creation_input_tokens,
    cache_read_input_tokens: a.usage.cache_read_input_tokens + b.usage.cache_read_input_tokens,
  },
  total_cost_usd: a.total_cost_usd + b.total_cost_usd,
  duration_ms: a.duration_ms + b.duration_ms,
});

/**
 * The lines of one run, in the order things happened. The message that answers a turn is a user line
 * as the last `answer` hook sends it; any other user message the run adds (a Stop hook's note, the
 * request to continue a cut-off answer) is one before the next response or the end. The result is
 * told once, at the end, over every round.
 */
export function headlessLines(history: readonly Anthropic.MessageParam[], emit: (line: HeadlessLine) => void, session: string) {
  let seen = history.length; // the task, and the conversation before it, are the caller's
  const told = new WeakSet<object>();
  let result: ResultLine | undefined;
  const user = (message: Anthropic.MessageParam) => {
    if (typeof message.content !== "string") told.add(message.content);
    emit({ type: "user", message, session_id: session });
  };
  const flush = () => {
    for (; seen < history.length; seen++) {
      const m = history[seen]!;
      if (m.role === "user" && (typeof m.content === "string" || !told.has(m.content))) user(m);
    }
  };
  return {
    onEvent: (event: AgentEvent) => {
      if (event.type === "think" || event.type === "stop") flush();
      const line = lineOf(event, session);
      if (line?.type === "result") result = result ? merged(result, line) : line;
      else if (line) emit(line);
    },
    /** The last extension: it sees the answering message as it is sent. */
    answered: (): Extension => () => ({
      answer: (results) => {
        user({ role: "user", content: results });
        return results;
      },
    }),
    finish: () => {
      flush();
      if (result) emit(result);
    },
  };
}
