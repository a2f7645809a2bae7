/**
 * scripts/lib/regions.ts: the map of TODO regions to mutants that `npm run verify` checks. The
 * course's own map holds (every region has mutants, every mutant is its own lesson's), and the
 * check can fail: a mutant of another lesson's file, a region without mutants.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { applyPatch, parsePatch } from "diff";
import { describe, expect, it } from "vitest";
import { LESSONS, findLesson } from "../../runtime/manifest.ts";
import { ROOT } from "../../runtime/testing.ts";
import { findPatches, type Mutant } from "../../scripts/lib/mutants.ts";
import { changedLines, checkMap, todoRegions } from "../../scripts/lib/regions.ts";

describe("the TODO-region map", () => {
  it("holds for the course: every TODO region has a mutant, every mutant patches its own lesson", () => {
    const { mutants } = findPatches(LESSONS, "mutant");
    const { maps, problems } = checkMap(LESSONS, mutants);
    expect(problems, "the TODO-region map has problems: give each named region a mutant in tests/mutants/<its lesson>/, and move a mutant that patches another lesson's file to that lesson (npx tsx scripts/lib/regions.ts sNN prints the map)").toEqual([]);
    expect(maps.filter((m) => m.regions.length === 0).map((m) => m.lesson.id), "these lessons have no TODO region: the exercise must differ from the solution around a todo(…) call (regions.ts finds the regions by it)").toEqual([]);
  });

  it("every mutant and alternative still applies to the solution as it is (a change to a solution must remake its patches)", () => {
    const stale: string[] = [];
    for (const kind of ["mutant", "alternative"] as const)
      for (const m of findPatches(LESSONS, kind).mutants)
        for (const p of parsePatch(readFileSync(join(ROOT, m.file), "utf8"))) {
          const target = (p.newFileName ?? p.oldFileName ?? "").replace(/^[ab]\//, "");
          if (applyPatch(readFileSync(join(ROOT, target), "utf8"), p, { fuzzFactor: 0 }) === false) stale.push(`${m.file} → ${target}`);
        }
    expect(stale, "these patches no longer apply: the solution changed under them; make each again against the current file (verify would report it only when it grades that patch)").toEqual([]);
  });

  it("finds s06's regions by their todo() text, at the solution's lines", () => {
    const names = todoRegions(findLesson("s06")!).map((r) => `${r.file} ${r.name}`);
    expect(names, "s06's TODO regions are not found by their todo() text: check todoRegions in scripts/lib/regions.ts against lessons/s06_guards").toEqual(["agent.ts s06 runAgent", "guards.ts s06 RunGuards.check"]);
    // Code the lesson hands out whole (tokensOf, callKey) is no TODO region: its mutants are "outside".
    const { maps } = checkMap([findLesson("s06")!], findPatches([findLesson("s06")!], "mutant").mutants);
    expect(maps[0]!.outside, "s06's mutants of code handed out whole (tokensOf, callKey) must be listed as outside every TODO region: checkMap places a mutant by the lines its patch changes").toEqual(expect.arrayContaining(["budget_ignores_cache", "key_order_matters"]));
  });

  it("reads the lines a patch changes", () => {
    const patch = "--- solutions/s01_agent_loop/agent.ts\n+++ solutions/s01_agent_loop/agent.ts\n@@ -10,3 +10,3 @@\n a\n-b\n+c\n d\n";
    expect(changedLines(patch).get("s01_agent_loop/agent.ts"), "a hunk at line 10 that replaces its second line changes line 11: changedLines must count from the hunk header's start, context lines included").toEqual([11]);
    // A line added between two: both neighbours.
    const added = "--- solutions/s01_agent_loop/agent.ts\n+++ solutions/s01_agent_loop/agent.ts\n@@ -10,2 +10,3 @@\n a\n+c\n d\n";
    expect(changedLines(added).get("s01_agent_loop/agent.ts"), "a line added between lines 10 and 11 changes both neighbours: changedLines must name the lines on each side of an insertion").toEqual([10, 11]);
  });

  it("refuses a mutant graded through a later lesson, and names a region left without mutants", () => {
    const s12 = findLesson("s12")!;
    const { mutants } = findPatches([findLesson("s11")!, s12], "mutant");
    // An s11 mutant filed under s12: caught only where s12 imports a patched s11.
    const moved: Mutant[] = mutants.map((m) => (m.lesson.id === "s11" ? { ...m, lesson: s12 } : m));
    const { problems } = checkMap([findLesson("s11")!, s12], moved);
    expect(problems.some((p) => /patches solutions\/s11_recovery\/agent\.ts, a file s12 does not hand out/.test(p)), `an s11 mutant filed under s12 was not refused (problems: ${JSON.stringify(problems)}): checkMap must name a mutant that patches a file its lesson does not hand out`).toBe(true);
    expect(problems.some((p) => /^s11: the TODO region "s11 loop" .* has no mutant/.test(p)), `with its mutants moved away, s11's loop region was not named as having none (problems: ${JSON.stringify(problems)}): checkMap must name every region left without a mutant`).toBe(true);
  });
});
