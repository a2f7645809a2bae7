/**
 * scripts/lib/regions.ts: the map of TODO regions to mutants that `npm run verify` checks. The
 * course's own map holds (every region has mutants, every mutant is its own lesson's), and the
 * check can fail: a mutant of another lesson's file, a region without mutants.
 */
import { describe, expect, it } from "vitest";
import { LESSONS, findLesson } from "../../runtime/manifest.ts";
import { findPatches, type Mutant } from "../../scripts/lib/mutants.ts";
import { changedLines, checkMap, todoRegions } from "../../scripts/lib/regions.ts";

describe("the TODO-region map", () => {
  it("holds for the course: every TODO region has a mutant, every mutant patches its own lesson", () => {
    const { mutants } = findPatches(LESSONS, "mutant");
    const { maps, problems } = checkMap(LESSONS, mutants);
    expect(problems).toEqual([]);
    expect(maps.every((m) => m.regions.length > 0)).toBe(true);
  });

  it("finds s06's regions by their todo() text, at the solution's lines", () => {
    const names = todoRegions(findLesson("s06")!).map((r) => `${r.file} ${r.name}`);
    expect(names).toEqual(["agent.ts s06 runAgent", "guards.ts s06 RunGuards.check"]);
    // Code the lesson hands out whole (tokensOf, callKey) is no TODO region: its mutants are "outside".
    const { maps } = checkMap([findLesson("s06")!], findPatches([findLesson("s06")!], "mutant").mutants);
    expect(maps[0]!.outside).toEqual(expect.arrayContaining(["budget_ignores_cache", "key_order_matters"]));
  });

  it("reads the lines a patch changes", () => {
    const patch = "--- solutions/s01_agent_loop/agent.ts\n+++ solutions/s01_agent_loop/agent.ts\n@@ -10,3 +10,3 @@\n a\n-b\n+c\n d\n";
    expect(changedLines(patch).get("s01_agent_loop/agent.ts")).toEqual([11]);
    // A line added between two: both neighbours.
    const added = "--- solutions/s01_agent_loop/agent.ts\n+++ solutions/s01_agent_loop/agent.ts\n@@ -10,2 +10,3 @@\n a\n+c\n d\n";
    expect(changedLines(added).get("s01_agent_loop/agent.ts")).toEqual([10, 11]);
  });

  it("refuses a mutant graded through a later lesson, and names a region left without mutants", () => {
    const s12 = findLesson("s12")!;
    const { mutants } = findPatches([findLesson("s11")!, s12], "mutant");
    // An s11 mutant filed under s12: caught only where s12 imports a patched s11.
    const moved: Mutant[] = mutants.map((m) => (m.lesson.id === "s11" ? { ...m, lesson: s12 } : m));
    const { problems } = checkMap([findLesson("s11")!, s12], moved);
    expect(problems.some((p) => /patches solutions\/s11_recovery\/agent\.ts, a file s12 does not hand out/.test(p))).toBe(true);
    expect(problems.some((p) => /^s11: the TODO region "s11 loop" .* has no mutant/.test(p))).toBe(true);
  });
});
