/**
 * What the SDK recovers from on its own, and what the loop must recover from itself.
 *
 *   the SDK (configured, not rewritten): 408, 409, 429, every 5xx (529 overloaded too), connection
 *     errors and timeouts are retried `maxRetries` times, waiting what `retry-after-ms` /
 *     `retry-after` say, else 0.5 s × 2ⁿ (at most 8 s) minus up to 25 % jitter. A 400 is never
 *     retried (the server sends `x-should-retry: false`): the request itself is wrong.
 *   the loop: a stream that breaks AFTER the response began (an `error` event, a cut connection)
 *     is not retried by the SDK: nothing was appended yet, so the loop sends the same turn again.
 *     "prompt is too long" and stop_reason "model_context_window_exceeded": compact, then retry.
 *     stop_reason "max_tokens": keep the text and ask the model to continue; a cut-off tool_use
 *     is never run: ask again with a larger max_tokens.
 */
import Anthropic from "@anthropic-ai/sdk";
import { dim, say } from "../../runtime/print.ts";
import { compactInPlace, estimateMessages } from "./compact.ts";

// #region retries
/** The client's retry settings for this lesson (passed to `new Anthropic({...})` / selectModel). */
export const RETRIES = {
  /** Attempts after the first, for 408/409/429/5xx/connection errors (the SDK's default is 2). */
  maxRetries: 4,
  /** Per-attempt timeout in ms (the SDK's default is 10 minutes). */
  timeout: 120_000,
} as const;
// #endregion retries

export interface RecoveryLimits {
  /** Times one turn is sent again after its stream broke. */
  streamRetries: number;
  /** Compactions allowed in one run (each one must shrink the history). */
  compactions: number;
  /** "Continue" requests after an answer cut off by max_tokens. */
  continuations: number;
  /** The largest max_tokens a cut-off tool call is retried with. */
  maxTokensCeiling: number;
}

export const DEFAULT_RECOVERY: RecoveryLimits = { streamRetries: 2, compactions: 3, continuations: 3, maxTokensCeiling: 32_000 };

// #region classify
/** A response that began and then broke (an SSE `error` event or a cut connection). */
export function isStreamBreak(e: unknown, signal?: AbortSignal): boolean {
  if (signal?.aborted || e instanceof Anthropic.APIUserAbortError) return false;
  if (e instanceof Anthropic.APIError) return e.status === undefined;
  return e instanceof Anthropic.AnthropicError || (e instanceof TypeError && /terminated|network|socket/i.test(e.message));
}

/** The API's answer to a request larger than the context window. */
export function isPromptTooLong(e: unknown): boolean {
  return e instanceof Anthropic.BadRequestError && /prompt is too long/i.test(e.message);
}
// #endregion classify

// #region retry-turn
/**
 * Sends one turn; when its stream breaks, sends it again (the history was not touched, so the
 * same request is still right). Other errors, and an abort, go to the caller.
 */
export async function retryTurn<T>(
  send: () => Promise<T>,
  opts: { retries?: number; signal?: AbortSignal; onRetry?: (attempt: number, error: unknown) => void | Promise<void>; delayMs?: number } = {},
): Promise<T> {
  const retries = opts.retries ?? DEFAULT_RECOVERY.streamRetries;
  for (let attempt = 0; ; attempt++) {
    try {
      return await send();
    } catch (e) {
      if (attempt >= retries || !isStreamBreak(e, opts.signal)) throw e;
      await opts.onRetry?.(attempt + 1, e);
      await new Promise((r) => setTimeout(r, (opts.delayMs ?? 250) * 2 ** attempt));
    }
  }
}
// #endregion retry-turn

// #region recovery
/** What one run has spent on recovering, and the steps the loop takes with it. */
export class Recovery {
  readonly limits: RecoveryLimits;
  compactions = 0;
  continuations = 0;

  constructor(
    private readonly history: Anthropic.MessageParam[],
    limits: Partial<RecoveryLimits> = {},
    /** max_tokens of the next request; raised when a tool call was cut off. */
    public maxTokens: number,
  ) {
    this.limits = { ...DEFAULT_RECOVERY, ...limits };
  }

  /** Compacts the history to about `targetTokens` (pairs kept whole), if compactions are left; false when it could not. */
  compact(targetTokens: number): boolean {
    if (this.compactions >= this.limits.compactions) return false;
    const done = compactInPlace(this.history, { targetTokens });
    if (!done) return false;
    this.compactions++;
    say(dim(`  context full: compacted ${done.dropped} messages into a summary${done.clipped ? `, clipped ${done.clipped} results` : ""}; retrying`));
    return true;
  }

  /** The model ran out of context while answering: compact to half the history. */
  compactHalf(): boolean {
    return this.compact(Math.floor(estimateMessages(this.history) / 2));
  }

  /** A response cut off in its text (no tool call): may the model be asked to continue it? */
  canContinue(response: Anthropic.Message): boolean {
    return cutInText(response) && this.continuations < this.limits.continuations;
  }

  /** A tool call cut off by max_tokens is never run: ask again with a larger limit, up to the ceiling; false otherwise. */
  raiseLimit(response: Anthropic.Message): boolean {
    if (cutInText(response) || this.maxTokens >= this.limits.maxTokensCeiling) return false;
    this.maxTokens = Math.min(this.maxTokens * 4, this.limits.maxTokensCeiling);
    say(dim(`  max_tokens: a tool call was cut off; asking again with max_tokens ${this.maxTokens}`));
    return true;
  }
}

/** The answer was cut off in its text: the last block is text, and it asked for no tool. */
function cutInText(response: Anthropic.Message): boolean {
  return response.content[response.content.length - 1]?.type === "text" && !response.content.some((b) => b.type === "tool_use");
}

/** The context window an error names ("… tokens > 200000 maximum"), less a margin; else a small target. */
export function windowOf(e: unknown): number {
  const max = Number(/>\s*(\d+)\s*maximum/.exec((e as Error).message)?.[1]);
  return Number.isFinite(max) && max > 0 ? Math.floor(max * 0.6) : 1_000;
}
// #endregion recovery

/** The final answer of a run that began at `start`: the text after the last tool results, continuations joined. */
export function answerSince(history: readonly Anthropic.MessageParam[], start: number): string {
  let from = start;
  history.forEach((m, i) => {
    if (i >= start && m.role === "user" && typeof m.content !== "string" && m.content.some((b) => b.type === "tool_result")) from = i + 1;
  });
  return history
    .slice(from)
    .filter((m) => m.role === "assistant")
    .map((m) => (typeof m.content === "string" ? m.content : m.content.map((b) => (b.type === "text" ? b.text : "")).join("")))
    .join("");
}
