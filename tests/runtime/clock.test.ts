/**
 * The test's clock (runtime/clock.ts): timers fire in order when it is moved, never on their own;
 * a sleep ends early when its signal aborts; `blocked()` says when something waits on it.
 */
import { describe, expect, it } from "vitest";
import { ManualClock, systemClock } from "../../runtime/clock.ts";

describe("ManualClock", () => {
  it("fires deadlines and sleeps in order, only when moved", async () => {
    const clock = new ManualClock();
    const fired: string[] = [];
    const late = clock.timeout(3_000);
    late.addEventListener("abort", () => fired.push(`deadline@${clock.now()}`));
    const slept = clock.sleep(1_000).then((aborted) => fired.push(`sleep@${clock.now()}:${aborted}`));
    await new Promise((r) => setTimeout(r, 20));
    expect(fired).toEqual([]);
    expect(clock.sleeping).toBe(1);
    clock.advance();
    await slept;
    expect(clock.now()).toBe(1_000);
    clock.advance(10_000);
    expect(fired).toEqual(["sleep@1000:false", "deadline@3000"]);
    expect(late.reason).toBeInstanceOf(DOMException);
    expect((late.reason as DOMException).name).toBe("TimeoutError");
    expect(clock.now()).toBe(10_000);
    expect(clock.deadlines).toBe(1);
  });

  it("ends a sleep at once when its signal aborts, and forgets its timer", async () => {
    const clock = new ManualClock();
    const controller = new AbortController();
    const slept = clock.sleep(60_000, controller.signal);
    expect(clock.sleeping).toBe(1);
    controller.abort();
    expect(await slept).toBe(true);
    expect(clock.sleeping).toBe(0);
    expect(clock.next).toBeUndefined();
  });

  it("blocked() resolves when something sleeps on it", async () => {
    const clock = new ManualClock();
    let blocked = false;
    const waiting = clock.blocked().then(() => (blocked = true));
    await Promise.resolve();
    expect(blocked).toBe(false);
    void clock.sleep(5);
    await waiting;
    expect(blocked).toBe(true);
  });
});

describe("systemClock", () => {
  it("sleeps on the machine's time and stops early on abort", async () => {
    expect(await systemClock.sleep(1)).toBe(false);
    expect(await systemClock.sleep(60_000, AbortSignal.abort())).toBe(true);
    expect(systemClock.timeout(60_000).aborted).toBe(false);
  });
});
