/**
 * What check and watch print (scripts/lib/views.ts): the header agrees with the test count (every
 * test may pass while a type error fails the check), and both commands name the same next lesson.
 */
import { describe, expect, it } from "vitest";
import { LESSONS } from "../../runtime/manifest.ts";
import type { Grade } from "../../scripts/lib/grade.ts";
import { checkReport, nextLine, nextToDo } from "../../scripts/lib/views.ts";

// eslint-disable-next-line no-control-regex
const plain = (lines: string[]) => lines.join("\n").replace(/\x1b\[[0-9;]*m/g, "");
const s13 = LESSONS.find((l) => l.id === "s13")!;

describe("checkReport's header", () => {
  it("every test passing but a type error: says so, not \"7 of 7 tests pass\" beside \"not done\"", () => {
    const grade: Grade = { ok: false, passed: 7, total: 7, output: "", failures: [{ test: "(type check)", kind: "types", rule: "type-error", message: "cache.ts:52 Type … is not assignable", where: "lessons/s13_caching/cache.ts:52" }] };
    const head = plain(checkReport(s13, grade)).split("\n")[0]!;
    expect(head).toBe(`✗ s13 · ${s13.title} is not done yet: all 7 tests pass, but the files do not type-check.`);
  });

  it("some tests failing: the count", () => {
    const grade: Grade = { ok: false, passed: 3, total: 7, output: "", failures: [{ test: "t", kind: "assertion", message: "m" }] };
    expect(plain(checkReport(s13, grade)).split("\n")[0]).toBe(`✗ s13 · ${s13.title} is not done yet (3 of 7 tests pass).`);
  });
});

describe("the next lesson", () => {
  it("is the first lesson not done, for check and watch alike (a skipped earlier lesson comes first)", () => {
    const [s01, s02, s03, s04] = LESSONS;
    const done = new Set([s01!.id, s03!.id]);
    expect(nextToDo(s03!, (l) => done.has(l.id))?.id).toBe(s02!.id);
    done.add(s02!.id);
    expect(nextToDo(s03!, (l) => done.has(l.id))?.id).toBe(s04!.id);
    expect(nextToDo(s03!, () => true)).toBeUndefined();
    expect(nextLine(s04!)).toBe(`Next: ${s04!.id} · ${s04!.title} (lessons/${s04!.dir}/${s04!.entry})`);
  });
});

describe("a lesson named on the command line", () => {
  it("by id, number, folder or the folder's slug: s01, s1, 1, 01, s01_agent_loop, agent_loop, agent-loop", async () => {
    const { findLesson } = await import("../../runtime/manifest.ts");
    for (const key of ["s01", "s1", "1", "01", "S01", "s01_agent_loop", "agent_loop", "agent-loop", " Agent_Loop "]) expect(findLesson(key)?.id, key).toBe("s01");
    for (const l of LESSONS) expect(findLesson(l.dir.slice(l.id.length + 1))?.id).toBe(l.id);
    for (const key of ["loop", "s99", "agent", ""]) expect(findLesson(key), key).toBeUndefined();
  });
});
