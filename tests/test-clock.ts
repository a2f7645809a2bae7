/**
 * Verdicts about time limits read on the test's own clock, not the machine's.
 *
 * A tool's deadline (s04's runWithDeadline, s07's runSafeBash) is a setTimeout. Inside
 * `onTestClock`, setTimeout and setInterval are vitest's fake timers: the test moves that clock
 * itself, a step at a time, and only after the event loop has done what it had to do (a turn of
 * the machine's event loop between steps). A deadline of 60 ms then fires when the test's clock
 * passes 60 ms, however busy the machine is, and what follows from it (the abort, the answer)
 * happens before the clock moves much further. So the same code gets the same verdict on an idle
 * machine and on one at load 8 (issue 26, item 5); s06 does the same with runtime/clock.ts's
 * ManualClock, which its loop takes as opts.clock.
 *
 * Code that keeps its own time on the machine's clock (AbortSignal.timeout, node:timers/promises:
 * a valid way to write a deadline) still runs: once the test's clock is past `limit`, the run
 * gets what is left of `grace` ms of the machine's time (counted from the start) to answer. That
 * bound is far above any slowness; a run still waiting then is hung (its deadline never fires),
 * not slow.
 */
import { vi } from "vitest";

// Captured when this module loads, before any test fakes them.
const realSetTimeout = globalThis.setTimeout;
const realClearTimeout = globalThis.clearTimeout;
const realSetImmediate = globalThis.setImmediate;

/** Waits `ms` of the machine's time, fake timers or not. */
export const realSleep = (ms: number): Promise<void> => new Promise((resolve) => realSetTimeout(resolve, ms));
/** One turn of the event loop (I/O callbacks, then this): what the code under test had to do now, done. */
const turn = (): Promise<void> => new Promise((resolve) => realSetImmediate(resolve));

export type OnClock<T> = { value: T; at: number } | { late: true; at: number };

/**
 * Starts `run()` with setTimeout/setInterval faked and moves that clock `step` ms at a time (or
 * what `pace()` says each step: e.g. 100 ms per line a command printed) up to `limit` ms, then
 * waits up to `grace` ms of the machine's time. Returns the value and the test's time when it came
 * (`at`), or `late`. A rejection of `run()` is thrown as it is. Real timers are back on return.
 */
export async function onTestClock<T>(
  run: () => Promise<T>,
  opts: { limit: number; step?: number; grace?: number; pace?: () => number | Promise<number> },
): Promise<OnClock<T>> {
  const step = opts.step ?? 10;
  const grace = opts.grace ?? 15_000;
  vi.useFakeTimers({ toFake: ["setTimeout", "clearTimeout", "setInterval", "clearInterval"] });
  let at = 0;
  let settled: { ok: true; value: T } | { ok: false; error: unknown } | undefined;
  try {
    const pending = run().then(
      (value) => void (settled = { ok: true, value }),
      (error: unknown) => void (settled = { ok: false, error }),
    );
    void pending;
    const done = () => settled !== undefined;
    const began = performance.now();
    const waited = () => performance.now() - began;
    // Let the run start and block on something before the clock first moves.
    for (let i = 0; i < 3 && !done(); i++) await turn();
    while (!done() && at < opts.limit && waited() < grace) {
      const by = Math.min(opts.pace ? await opts.pace() : step, opts.limit - at);
      if (by > 0) {
        at += by;
        vi.advanceTimersByTime(by);
      }
      for (let i = 0; i < 3 && !done(); i++) await turn();
    }
    // Past the limit on the test's clock: the machine's time, for deadlines kept on it.
    if (!done() && waited() < grace) {
      let timer: ReturnType<typeof setTimeout> | undefined;
      await Promise.race([pending, new Promise<void>((resolve) => (timer = realSetTimeout(resolve, grace - waited())))]);
      realClearTimeout(timer);
    }
  } finally {
    vi.useRealTimers();
  }
  const result = settled as typeof settled;
  if (!result) return { late: true, at };
  if (!result.ok) throw result.error;
  return { value: result.value, at };
}
