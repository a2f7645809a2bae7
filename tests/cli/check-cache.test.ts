/**
 * `npm run check` remembers the type check's verdict (.course/typecheck.json) and answers from it
 * only while nothing the program read has changed: an edit to the lesson brings its type error
 * at once, undoing the edit brings back the clean verdict, and a change in a file the lesson
 * imports (runtime/, not the lesson itself) is seen too. On a temporary copy of the repository.
 */
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { makeCopy, solve, type CourseCopy } from "./course-copy.ts";

let copy: CourseCopy;
beforeAll(() => {
  copy = makeCopy({ git: false });
  solve(copy.root, "s01_agent_loop"); // solved: a type error is then the verdict's first line
});
afterAll(() => copy?.remove());

const TYPE_ERROR = /\[type-error\] lessons\/s01_agent_loop does not type-check/;

describe("check's remembered type check", () => {
  it("an edit, its undoing, and a change in an imported file are each checked afresh", async () => {
    const agent = join(copy.root, "lessons", "s01_agent_loop", "agent.ts");
    const original = readFileSync(agent, "utf8");

    const first = await copy.call(["check", "s01"]);
    expect(first.out, "the solved exercise passes").toMatch(/s01 · .*every test passes|✓ s01/);
    expect(first.out).not.toMatch(TYPE_ERROR);
    const cache = JSON.parse(readFileSync(join(copy.root, ".course", "typecheck.json"), "utf8")) as Record<string, { deps: unknown[] }>;
    expect(cache["lessons/s01_agent_loop"]?.deps.length, "the verdict is remembered with the files it read").toBeGreaterThan(10);

    writeFileSync(agent, `${original}\nexport const oops: number = "not a number";\n`);
    const edited = await copy.call(["check", "s01"]);
    expect(edited.out).toMatch(TYPE_ERROR);
    expect(edited.out).toMatch(/agent\.ts:\d+:14 +Type 'string' is not assignable to type 'number'\. \(TS2322\)/);

    writeFileSync(agent, original);
    const undone = await copy.call(["check", "s01"]);
    expect(undone.out, "the edit undone: the clean verdict again").not.toMatch(TYPE_ERROR);
    expect(undone.code).toBe(0);

    // The lesson unchanged, a file it imports changed: heading() now takes a number.
    const print = join(copy.root, "runtime", "print.ts");
    writeFileSync(print, readFileSync(print, "utf8").replace("export function heading(s: string): void {", "export function heading(s: number | string & { brand: 1 }): void {"));
    const imported = await copy.call(["check", "s01"]);
    expect(imported.out, "a change in runtime/print.ts is seen though the lesson did not change").toMatch(TYPE_ERROR);
    expect(imported.out).toMatch(/TS2345/);
  }, 600_000);
});
