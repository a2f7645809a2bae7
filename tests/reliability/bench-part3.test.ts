/**
 * Part III's bench figures (scripts/bench/part3.ts), measured small: what the figures are made of,
 * never how fast anything was. Context editing must actually clear and rewrite the cache prefix in
 * the sessions it compares; every hook must run once per call in the rows it times.
 */
import { describe, expect, it } from "vitest";
import { measureContextEditing, measureHookCost } from "../../scripts/bench/part3.ts";
import { ContextEditingFigures, contextEditingFiguresOf, contextEditingBlock, HookCostFigures, hookCostBlock, hookCostFiguresOf, hookCostSummary } from "../../scripts/bench/part3-report.ts";

describe("npm run bench's Part III figures, on a short session", () => {
  it("context editing: the same session off and at a budget; the edited one sends less and writes the prefix again", async () => {
    const turns = 8;
    const f = ContextEditingFigures.parse(await measureContextEditing(() => {}, { turns, budgets: [{ budget: 40_000, keep: 3 }] }));
    expect(f.agent).toBe("s20");
    expect(f.stopped, "every session read the file each turn and ended as planned").toEqual([]);
    const [off, on] = f.runs;
    expect(off!.policy).toBeNull();
    expect(on!.policy).toEqual({ budget: 40_000, keep: 3 });
    for (const r of f.runs) expect(r.requests, "one request a turn, one for the answer").toBe(turns + 1);
    expect(on!.cleared, "past the budget, old results were cleared").toBeGreaterThan(0);
    expect(on!.rewrites, "each clearing changed what the cache held").toBeGreaterThan(0);
    expect(on!.last, "the last request sends less with editing").toBeLessThan(off!.last);
    expect(on!.total).toBeLessThan(off!.total);
    expect(on!.cache_write, "a cleared prefix is written again").toBeGreaterThan(off!.cache_write);
    expect(off!.cleared + off!.rewrites).toBe(0);
    expect(f.prices).toMatchObject({ cache_write: 1.25, cache_read: 0.1, output: 5 });
    expect(contextEditingFiguresOf(contextEditingBlock(f, "en"))).toEqual(f);
  });

  it("hook cost: every set of hooks with the sandbox and without, each hook run once per call, a median per row", async () => {
    const f = HookCostFigures.parse(await measureHookCost(() => {}, { calls: 2, rounds: 1 }));
    expect(f.agent).toBe("s19");
    expect(f.problems, "every hook ran for every call and answered").toEqual([]);
    const sandboxes = f.no_sandbox_why === null ? ["bubblewrap", "none"] : ["none"];
    expect(f.rows.map((r) => `${r.hooks}/${r.sandbox}`)).toEqual(sandboxes.flatMap((s) => ["none", "pre", "pre_post"].map((h) => `${h}/${s}`)));
    expect(f.rows.every((r) => r.samples === 2)).toBe(true);
    expect(Object.keys(hookCostSummary(f)!)).toEqual(["calls", "ms_per_call_no_hooks", "added_ms_pre_sandbox", "added_ms_pre_post_sandbox", "added_ms_pre_no_sandbox", "added_ms_pre_post_no_sandbox", "sandbox_over_no_sandbox"]);
    expect(hookCostFiguresOf(hookCostBlock(f, "zh"))).toEqual(f);
  });
});
