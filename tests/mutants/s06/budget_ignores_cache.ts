// mutant of: solutions/s06_guards/guards.ts
// expect: × token_budget: counts cache reads and cache writes
/**
 * s06_guards: the limits a loop needs because a model may never stop on its own. Unlike s05,
 * where only the model ended a run, the loop now stops it too: after too many turns, past a
 * token budget, at a wall-clock deadline (aborting the request in flight), or when the model
 * repeats the same call. Each limit is one typed field with a default a caller may override.
 */
import type Anthropic from "@anthropic-ai/sdk";
import type { ModelStop, Outcome } from "../../../solutions/s05_stop_reasons/outcome.ts";

// #region guards
export interface Guards {
  /** Most model responses in one run; when reached, no further request is made. */
  maxTurns: number;
  /** Most tokens one run may spend: input + output + cache read + cache creation, over all turns. */
  tokenBudget: number;
  /** Wall-clock limit of the whole run in ms; the request (or tool) in flight is aborted. */
  timeoutMs: number;
  /** How many times one call (same tool, same input, keys in any order) may run; one more stops the run. */
  maxRepeats: number;
}

export const DEFAULT_GUARDS: Guards = {
  maxTurns: 25,
  tokenBudget: 500_000,
  timeoutMs: 10 * 60_000,
  maxRepeats: 3,
};
// #endregion guards

/** Why the loop (not the model) ended a run. "aborted": the caller's own signal fired. */
export type GuardStop = "max_turns" | "token_budget" | "timeout" | "repeated_call" | "aborted";

/** What a guarded run returns: s05's outcome with the guards' reasons added. */
export type GuardedOutcome = Outcome<ModelStop | GuardStop>;

// #region tokens
/**
 * Tokens one response cost. subtle: `input_tokens` leaves out the cached part of the prompt, which
 * is billed and fills the context all the same: add cache reads and cache writes (they may be null).
 */
export function tokensOf(usage: Anthropic.Usage): number {
  // BUG: only input and output tokens are counted; cache reads and cache writes are left out.
  return usage.input_tokens + usage.output_tokens;
}
// #endregion tokens

// #region repeats
/** The same value whatever the order of object keys, at any depth. */
function canonical(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(canonical);
  if (value !== null && typeof value === "object")
    return Object.fromEntries(
      Object.keys(value)
        .sort()
        .map((k) => [k, canonical((value as Record<string, unknown>)[k])]),
    );
  return value;
}

/** A call's identity: its tool name and its input, with keys sorted. */
export function callKey(call: Pick<Anthropic.ToolUseBlock, "name" | "input">): string {
  return `${call.name} ${JSON.stringify(canonical(call.input))}`;
}

/** Counts identical calls over a run. */
export class RepeatCounter {
  private readonly seen = new Map<string, number>();
  constructor(private readonly maxRepeats: number) {}

  /** Counts these calls; returns the first one that has now been asked more than maxRepeats times. */
  record(calls: readonly Anthropic.ToolUseBlock[]): Anthropic.ToolUseBlock | undefined {
    let over: Anthropic.ToolUseBlock | undefined;
    for (const c of calls) {
      const n = (this.seen.get(callKey(c)) ?? 0) + 1;
      this.seen.set(callKey(c), n);
      if (n > this.maxRepeats && !over) over = c;
    }
    return over;
  }
}
// #endregion repeats

// #region deadline
/**
 * One signal for the whole run: it aborts at the deadline or when the caller's signal does.
 * `why()` says which, once it has.
 */
export function runSignal(timeoutMs: number, outer?: AbortSignal): { signal: AbortSignal; why(): "timeout" | "aborted" | null } {
  const deadline = AbortSignal.timeout(timeoutMs);
  const signal = outer ? AbortSignal.any([outer, deadline]) : deadline;
  return { signal, why: () => (outer?.aborted ? "aborted" : deadline.aborted ? "timeout" : null) };
}
// #endregion deadline
