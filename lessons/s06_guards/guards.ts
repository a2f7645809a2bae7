/**
 * s06_guards: the limits a loop needs because a model may never stop on its own. Unlike s05,
 * where only the model ended a run, the loop now stops it too: after too many turns, past a
 * token budget, at a wall-clock deadline (aborting the request in flight), or when the model
 * repeats the same call. Each limit is one typed field with a default a caller may override.
 */
import type Anthropic from "@anthropic-ai/sdk";
import { todo } from "../../runtime/lesson.ts";
import type { ModelStop, Outcome, Stopped } from "../../solutions/s05_stop_reasons/outcome.ts";
import { systemClock, type Clock } from "../../runtime/clock.ts";

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
  return usage.input_tokens + usage.output_tokens + (usage.cache_read_input_tokens ?? 0) + (usage.cache_creation_input_tokens ?? 0);
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
 * `why()` says which, once it has. The deadline runs on `clock`: the machine's time in a program,
 * the test's own clock in a test (so a verdict about the deadline does not depend on the machine's load).
 */
export function runSignal(timeoutMs: number, outer?: AbortSignal, clock: Clock = systemClock): { signal: AbortSignal; why(): "timeout" | "aborted" | null } {
  const deadline = clock.timeout(timeoutMs);
  const signal = outer ? AbortSignal.any([outer, deadline]) : deadline;
  return { signal, why: () => (outer?.aborted ? "aborted" : deadline.aborted ? "timeout" : null) };
}
// #endregion deadline

// #region run-guards
/**
 * The guards of one run, in one object the loop asks: what the run has spent so far, whether a
 * limit ends it now, and the Stopped outcome that says which. Later lessons reuse it whole.
 */
export class RunGuards {
  readonly limits: Guards;
  /** Responses received, and the tokens they cost (tokensOf). */
  turns = 0;
  used = 0;
  private last: Anthropic.Message | undefined;
  private readonly run: ReturnType<typeof runSignal>;
  private readonly repeats: RepeatCounter;

  /**
   * `guards`: the fields to change from DEFAULT_GUARDS; `outer`: the caller's own signal (Ctrl-C);
   * `clock`: what the deadline runs on (the machine's time unless a test gives its own).
   */
  constructor(guards: Partial<Guards> = {}, outer?: AbortSignal, clock: Clock = systemClock) {
    this.limits = { ...DEFAULT_GUARDS, ...guards };
    // One signal for the run: the request in flight and the tools running stop when it aborts.
    this.run = runSignal(this.limits.timeoutMs, outer, clock);
    this.repeats = new RepeatCounter(this.limits.maxRepeats);
  }

  get signal(): AbortSignal {
    return this.run.signal;
  }

  /** A response arrived: one more turn, and what it cost. */
  count(response: Anthropic.Message): void {
    this.turns++;
    this.used += tokensOf(response.usage);
    this.last = response;
  }

  /** The run ends here, for `reason` (a guard's, or a later lesson's own). */
  stop<R extends string>(reason: R, detail: string): Stopped<R> {
    return { status: "stopped", reason, detail, turns: this.turns, ...(this.last ? { message: this.last } : {}) };
  }

  /** The deadline passed or the caller aborted: the run ends, or null while neither has happened. */
  halted(why = this.run.why()): Stopped<GuardStop> | null {
    if (!why) return null;
    return this.stop(why, why === "timeout" ? `the run reached its time limit of ${this.limits.timeoutMs / 1000} s; the work in flight was aborted` : "the run was cancelled by its caller");
  }

  /** The guard that ends the run now, or null. Checked before each request. */
  check(): Stopped<GuardStop> | null {
    // TODO: return this.halted(why) when this.run.why() says "timeout" or "aborted"; this.stop("max_turns", …)
    //       when `this.turns` has reached this.limits.maxTurns; this.stop("token_budget", …) when
    //       `this.used` has reached this.limits.tokenBudget; otherwise null.
    return todo("s06 RunGuards.check: check the guards before each request (deadline, max turns, token budget)");
  }

  /** A call the model keeps repeating (same tool, same input) ends the run: the outcome, or null. */
  repeated(calls: readonly Anthropic.ToolUseBlock[]): Stopped<GuardStop> | null {
    const call = this.repeats.record(calls);
    return call ? this.stop("repeated_call", `${call.name} was called with the same input more than ${this.limits.maxRepeats} times`) : null;
  }
}
// #endregion run-guards
