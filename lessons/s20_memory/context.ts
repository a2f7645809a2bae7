/**
 * s20's context editing: old tool results past a budget leave the request, the newest stay.
 *
 * Each turn re-sends every tool result the run has had. Past a budget (characters of results
 * still shown in full), every result but the newest `keep` is replaced, in the request only, by a
 * short placeholder: its tool_result block stays, with its tool_use_id and is_error, so every
 * tool_use keeps its result (the pairing rules hold) and the model knows what is gone and how to
 * get it back. The history keeps every result in full (the transcript is the record).
 *
 * A cleared result stays cleared: the next request sends the same placeholder, so the cache
 * prefix (s13) is rewritten only when a new batch is cleared, not every turn, as long as the
 * budget leaves room for a batch to grow (see DEFAULT_POLICY). What that costs is measured: each
 * clearing rewrites the prompt from the first message it changed.
 */
import type Anthropic from "@anthropic-ai/sdk";
import { todo } from "../../runtime/lesson.ts";

export interface ClearPolicy {
  /** Characters of tool results shown in full past which the old ones are cleared. */
  budget: number;
  /** The newest results always kept. */
  keep: number;
}

// subtle: a budget that the newest `keep` results alone come near (3 reads of 20 000 characters)
// clears one result every turn, and with a cache every clearing writes the prompt again from there:
// measured (npm run bench -- --only context_editing), 40 000 cost 1.4× a session without editing;
// 100 000 clears a batch every few turns and costs no more than none, the window still bounded.
export const DEFAULT_POLICY: ClearPolicy = { budget: 100_000, keep: 3 };

/** What the model reads in place of a cleared result. */
export const placeholder = (chars: number) => `[cleared to save context: this tool result (${chars} characters) is no longer shown; call the tool again if you need it]`;

type Result = Anthropic.ToolResultBlockParam;
const isResult = (b: Anthropic.ContentBlockParam): b is Result => b.type === "tool_result";
/** How big a result is: its text (or its blocks, as JSON). */
export const sizeOf = (r: Result) => (typeof r.content === "string" ? r.content.length : JSON.stringify(r.content ?? "").length);

// #region clear
/**
 * `messages` as the request sends them: when the results still shown in full pass the budget,
 * every one but the newest `policy.keep` joins `cleared` (tool_use_id → its size); every cleared
 * result is sent as a placeholder in its own block. Returns copies; `messages` is not changed.
 */
export function clearOldResults(messages: readonly Anthropic.MessageParam[], cleared: Map<string, number>, policy: ClearPolicy): Anthropic.MessageParam[] {
  // TODO: decide which results leave the request. The tool_result blocks of the user messages, oldest first;
  //       those not in `cleared` are shown in full. When their sizes (sizeOf) add up to MORE than policy.budget,
  //       every shown one but the newest policy.keep joins `cleared` (cleared.set(r.tool_use_id, sizeOf(r))):
  //       keep 0 clears them all, the newest too. A cleared one stays cleared (the cache prefix moves rarely).
  todo(`s20 clearOldResults: old tool results past ${policy.budget} characters, the newest ${policy.keep} kept`);
  // Given: the request's copy. A cleared block keeps its type, tool_use_id and is_error; only its content
  // becomes the placeholder. New messages and blocks: `messages` (the history) does not change.
  return messages.map((m) => {
    if (m.role !== "user" || typeof m.content === "string" || !m.content.some((b) => isResult(b) && cleared.has(b.tool_use_id))) return m;
    // The block stays, with its id and is_error: only its content is replaced.
    return { ...m, content: m.content.map((b) => (isResult(b) && cleared.has(b.tool_use_id) ? { ...b, content: placeholder(cleared.get(b.tool_use_id)!) } : b)) };
  });
}
// #endregion clear

/** What context editing did in one run. */
export interface ClearStats {
  /** Results cleared. */
  results: number;
  /** Characters the last request left out (the results' sizes less their placeholders). */
  saved: number;
  /** Requests whose earlier messages changed: each one wrote the cache prefix again from there. */
  rewrites: number;
  /** Characters of messages already sent (and cached) that those requests had to send changed. */
  rewritten: number;
}

/** One run's context editing: which results are cleared, and what it saved and cost. */
export class ContextEditor {
  readonly cleared = new Map<string, number>();
  readonly stats: ClearStats = { results: 0, saved: 0, rewrites: 0, rewritten: 0 };
  /** How many messages the request before had: the part the cache may hold. */
  private sentBefore = 0;

  constructor(readonly policy: ClearPolicy = DEFAULT_POLICY) {}

  /** The request's messages, edited; the stats measured against the request before. */
  edit(messages: readonly Anthropic.MessageParam[]): Anthropic.MessageParam[] {
    const before = this.cleared.size;
    const out = clearOldResults(messages, this.cleared, this.policy);
    const fresh = new Set([...this.cleared.keys()].slice(before));
    // The first message this clearing changed: the cached prefix ends there, the rest is written again.
    const first = fresh.size === 0 ? -1 : messages.findIndex((m) => typeof m.content !== "string" && m.content.some((b) => isResult(b) && fresh.has(b.tool_use_id)));
    if (first >= 0 && first < this.sentBefore) {
      this.stats.rewrites++;
      this.stats.rewritten += out.slice(first, this.sentBefore).reduce((n, m) => n + JSON.stringify(m.content).length, 0);
    }
    this.stats.results = this.cleared.size;
    this.stats.saved = [...this.cleared.values()].reduce((n, size) => n + size - placeholder(size).length, 0);
    this.sentBefore = out.length;
    return out;
  }
}

/** The stats in one line. */
export const describeClearing = (s: ClearStats) =>
  s.results === 0
    ? "context editing: nothing cleared (the tool results stayed under the budget)"
    : `context editing: ${s.results} old tool result(s) cleared, ${s.saved} characters fewer per request; the cache prefix was written again ${s.rewrites} time(s) (${s.rewritten} characters)`;
