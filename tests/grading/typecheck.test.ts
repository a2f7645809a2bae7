/**
 * check's type check: the native compiler (tsgo) is asked first and only ever decides "clean";
 * errors are found and worded by the compiler API that `npm run typecheck` runs. So on a clean
 * lesson, a broken one and with the native compiler switched off, the answers are the same.
 */
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { ROOT } from "../../scripts/lib/paths.ts";
import { typeErrors, typeErrorsFast } from "../../scripts/lib/typecheck.ts";

// Inside the repository (so imports resolve), under a name no lesson has; never remembered there.
const dir = mkdtempSync(join(ROOT, "lessons", ".typecheck-test-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe("the lesson's type check", () => {
  it("agrees with the compiler API on a clean lesson and on one with a type error, with or without the native compiler", async () => {
    cpSync(join(ROOT, "solutions", "s02_tool_dispatch"), dir, { recursive: true });
    process.env.COURSE_TYPECHECK_CACHE = "0";
    try {
      expect(await typeErrorsFast(dir), "s02's solution, copied as it is, was reported with type errors: typeErrorsFast (scripts/lib/typecheck.ts) must find a clean lesson clean").toEqual([]);
      const agent = join(dir, "agent.ts");
      writeFileSync(agent, `${readFileSync(agent, "utf8")}\nexport const wrong: number = "a string";\n`);
      const api = typeErrors(dir);
      expect(api.map((p) => p.message), "a string assigned to a number must give one TS2322 from the compiler API: check typeErrors in scripts/lib/typecheck.ts").toEqual([expect.stringContaining("(TS2322)")]);
      expect(await typeErrorsFast(dir), "typeErrorsFast worded the error otherwise than the compiler API: it must leave the wording of every error to typeErrors (the native compiler only decides clean)").toEqual(api);
      process.env.COURSE_NATIVE_TSC = "0";
      expect(await typeErrorsFast(dir), "with COURSE_NATIVE_TSC=0 the answer differs: without the native compiler typeErrorsFast must give the compiler API's errors, the same").toEqual(api);
    } finally {
      delete process.env.COURSE_TYPECHECK_CACHE;
      delete process.env.COURSE_NATIVE_TSC;
    }
  }, 300_000);
});

describe("a long type error, as a learner reads it", () => {
  it("s20's results rebuilt with { role: m.role, content }: the first sentence and the root cause, in a few lines, not TypeScript's whole chain", () => {
    const mine = mkdtempSync(join(ROOT, "lessons", ".typecheck-long-"));
    try {
      cpSync(join(ROOT, "solutions", "s20_memory"), mine, { recursive: true });
      const context = join(mine, "context.ts");
      const text = readFileSync(context, "utf8");
      const rebuilt = text.replace(/return messages\.map\(\(m\) => \{[\s\S]*?\n {2}\}\);\n/, "return messages.map((m) => (typeof m.content === \"string\" ? m : { role: m.role, content: m.content.map((b) => b) }));\n");
      expect(rebuilt, "(a check of this test itself) its edit no longer applies to s20's clearOldResults: change the regular expression to the current return statement of solutions/s20_memory/context.ts").not.toBe(text);
      writeFileSync(context, rebuilt);
      process.env.COURSE_TYPECHECK_CACHE = "0";
      const [problem] = typeErrors(mine);
      expect(problem?.message, `the first problem is ${JSON.stringify(problem?.message)}, not a TS2322: typeErrors must report the assignment's error, its code last in parentheses`).toMatch(/\(TS2322\)$/);
      expect(problem!.message.length, `the message is ${problem!.message.length} characters: ${problem!.message}. Shorten it in typeErrors (scripts/lib/typecheck.ts): the first sentence and the root cause, not TypeScript's whole chain`).toBeLessThan(400);
      expect(problem!.message, `the message ${JSON.stringify(problem!.message)} does not say both what is wrong where it was written and, after "At the root of it: ", the root cause: keep both in typeErrors`).toMatch(/not assignable to type 'MessageParam\[\]'[\s\S]*At the root of it: /);
    } finally {
      delete process.env.COURSE_TYPECHECK_CACHE;
      rmSync(mine, { recursive: true, force: true });
    }
  }, 300_000);
});
