/**
 * The clock a loop's time limits run on. The loop asks it for a deadline (`timeout`); the scripted
 * model asks it to wait (`sleep`) before it answers. In a program both are the machine's time
 * (systemClock). In a test they are a ManualClock the test moves on itself: a deadline of 3 s then
 * comes after 3 s of the test's time, however busy the machine is, so a verdict about time limits
 * never depends on the machine's load.
 */

export interface Clock {
  /** ms since some fixed point. */
  now(): number;
  /** A signal that aborts, with a "TimeoutError" DOMException as its reason, `ms` from now. */
  timeout(ms: number): AbortSignal;
  /** Waits `ms`; resolves true at once if `signal` aborts first, false when the time is up. */
  sleep(ms: number, signal?: AbortSignal | null): Promise<boolean>;
}

const timeoutReason = () => new DOMException("The operation was aborted due to timeout", "TimeoutError");

/** The machine's time. */
export const systemClock: Clock = {
  now: () => performance.now(),
  timeout: (ms) => AbortSignal.timeout(ms),
  sleep: (ms, signal) =>
    new Promise((resolve) => {
      if (signal?.aborted) return resolve(true);
      const timer = setTimeout(() => {
        signal?.removeEventListener("abort", onAbort);
        resolve(false);
      }, ms);
      const onAbort = () => {
        clearTimeout(timer);
        resolve(true);
      };
      signal?.addEventListener("abort", onAbort, { once: true });
    }),
};

interface Timer {
  at: number;
  seq: number;
  fire: () => void;
  /** A sleep: something is blocked until this timer fires (a deadline blocks nobody). */
  sleep: boolean;
}

/**
 * A clock that moves only when it is told to (advance). Tests use it for every verdict about a
 * time limit; `sleeping` says when something waits on it, so a test moves it when the code under
 * test is blocked on the clock, never while it is still working.
 */
export class ManualClock implements Clock {
  private t = 0;
  private seq = 0;
  private timers: Timer[] = [];
  private wakers: Array<() => void> = [];
  /** How many deadlines were asked for (timeout): a loop that made none did not use this clock. */
  deadlines = 0;

  now(): number {
    return this.t;
  }

  timeout(ms: number): AbortSignal {
    this.deadlines++;
    const controller = new AbortController();
    this.add(ms, () => controller.abort(timeoutReason()), false);
    return controller.signal;
  }

  sleep(ms: number, signal?: AbortSignal | null): Promise<boolean> {
    return new Promise((resolve) => {
      if (signal?.aborted) return resolve(true);
      const timer = this.add(
        ms,
        () => {
          signal?.removeEventListener("abort", onAbort);
          resolve(false);
        },
        true,
      );
      for (const wake of this.wakers.splice(0)) wake();
      const onAbort = () => {
        this.timers = this.timers.filter((t) => t !== timer);
        resolve(true);
      };
      signal?.addEventListener("abort", onAbort, { once: true });
    });
  }

  /** Resolves when something sleeps on this clock (at once if something does now). */
  blocked(): Promise<void> {
    return this.sleeping > 0 ? Promise.resolve() : new Promise((resolve) => this.wakers.push(resolve));
  }

  /** How many sleeps are waiting on this clock now. */
  get sleeping(): number {
    return this.timers.filter((t) => t.sleep).length;
  }

  /** When the next timer is due, or undefined when none is. */
  get next(): number | undefined {
    return this.timers[0]?.at;
  }

  /**
   * Moves the clock to `to` (at most), firing the timers due on the way, in order. With no `to`,
   * moves to the next timer due and fires it (and any due at the same time).
   */
  advance(to = this.next ?? this.t): void {
    while (this.timers[0] && this.timers[0].at <= to) {
      const timer = this.timers.shift()!;
      this.t = Math.max(this.t, timer.at);
      timer.fire();
    }
    this.t = Math.max(this.t, to);
  }

  private add(ms: number, fire: () => void, sleep: boolean): Timer {
    const timer: Timer = { at: this.t + Math.max(0, ms), seq: this.seq++, fire, sleep };
    this.timers.push(timer);
    this.timers.sort((a, b) => a.at - b.at || a.seq - b.seq);
    return timer;
  }
}

/**
 * `work`, or `fail()` once this process has RUN for `ms`: the limit of a test that tells a loop
 * that never returns from a slow one. A tick every 100 ms adds the time since the last one, at
 * most 250 ms, so a process the machine stopped or starved (a busy CI, a stopped worker) gets
 * its full running time; a loop awaiting forever still ticks and is stopped at the limit.
 */
export async function withinRunningTime<T>(work: Promise<T>, ms: number, fail: () => Error): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  try {
    return await Promise.race([
      work,
      new Promise<never>((_, reject) => {
        let ran = 0;
        let last = performance.now();
        timer = setInterval(() => {
          const now = performance.now();
          ran += Math.min(now - last, 250);
          last = now;
          if (ran >= ms) reject(fail());
        }, 100);
      }),
    ]);
  } finally {
    clearInterval(timer);
  }
}
