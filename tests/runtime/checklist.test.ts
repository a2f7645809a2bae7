/**
 * The contributor's side: a lesson's registration (solutions/sNN_slug/course.json) is read and
 * checked, a mistake in it is one line naming the file and the field, and every lesson of the
 * course has every piece the contributing guide asks for (scripts/lib/checklist.ts).
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { LESSONS } from "../../runtime/manifest.ts";
import { RegistrationError, readRegistrations } from "../../runtime/registrations.ts";
import { checklistProblems, lessonChecklist, writtenIn } from "../../scripts/lib/checklist.ts";

const tmp = mkdtempSync(join(tmpdir(), "course-reg-"));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

function courseWith(dir: string, json: unknown): string {
  const root = mkdtempSync(join(tmp, "c-"));
  mkdirSync(join(root, "solutions", dir), { recursive: true });
  writeFileSync(join(root, "solutions", dir, "course.json"), typeof json === "string" ? json : JSON.stringify(json));
  return root;
}

const GOOD = {
  lesson: { id: "s42", title: "T", idea: "I", entry: "agent.ts", hints: ["a", "b"] },
  tasks: { task: "do it" },
  rules: { "x-rule": { stage: "lesson", en: { what: "w", fix: "f" }, zh: { what: "w", fix: "f" } } },
  diagram: { title: { en: "t", zh: "t" }, caption: { en: "c", zh: "c" }, cols: 1, rows: 1, boxes: [{ id: "a", col: 0, row: 0, label: { en: "a", zh: "a" } }], arrows: [] },
};

describe("a lesson's course.json", () => {
  it("is read, with its folder", () => {
    const [reg] = readRegistrations(courseWith("s42_answer", GOOD));
    expect(reg?.dir).toBe("s42_answer");
    expect(reg?.tasks.task).toBe("do it");
  });

  it.each([
    ["not JSON", "{ lesson: ", /course\.json: not valid JSON/],
    ["a rule without Chinese", { ...GOOD, rules: { "x-rule": { stage: "lesson", en: { what: "w", fix: "f" } } } }, /rules\.x-rule\.zh/],
    ["an id that is not the folder's", { ...GOOD, lesson: { ...GOOD.lesson, id: "s43" } }, /lesson\.id is "s43" but the folder is s42_answer/],
    ["one hint", { ...GOOD, lesson: { ...GOOD.lesson, hints: ["a"] } }, /lesson\.hints/],
    ["no picture", { ...GOOD, diagram: undefined }, /diagram/],
  ])("%s: one line naming the file and the field", (_name, json, words) => {
    const root = courseWith("s42_answer", json);
    expect(() => readRegistrations(root)).toThrow(RegistrationError);
    expect(() => readRegistrations(root)).toThrow(words);
  });
});

describe("the checklist", () => {
  // npm test runs in the learner's checkout, whatever state lessons/ is in (a solved exercise has
  // no TODO left): what only a pristine exercise has is checked by verify, on a pristine tree.
  it("finds nothing missing in any lesson of the course (the exercises' own state aside)", () => {
    const problems = LESSONS.flatMap((l) => lessonChecklist(l).filter((i) => !i.ok && !i.exercise).map((i) => `${l.id}: ${i.what}: ${i.fix}`));
    expect(problems).toEqual([]);
  });

  it("marks what it reads from the exercise (its TODOs, its files), which verify checks and npm test does not", () => {
    const marked = lessonChecklist(LESSONS[0]!).filter((i) => i.exercise).map((i) => i.what);
    expect(marked, "a solved exercise has no TODO left: that item must not fail the learner's npm test").toContain("the exercise's TODOs say which is left when run");
    expect(marked).toContain("lessons/ and solutions/ hold the same files");
    expect(checklistProblems(LESSONS[0]!), "verify still reports every item").toEqual(lessonChecklist(LESSONS[0]!).filter((i) => !i.ok).map((i) => `${LESSONS[0]!.id}: ${i.what}: ${i.fix}`));
  });

  it("tells a page written in its language from a copy of the English one (Japanese needs kana, Russian Cyrillic)", () => {
    const english = "The loop goes round until stop_reason is not tool_use. ".repeat(40);
    const code = "```ts\n" + "// 这是代码里的中文注释，不算正文。\n".repeat(60) + "```\n";
    expect(writtenIn("zh", "循环一直转，直到 stop_reason 不再是 tool_use。".repeat(40))).toBe(true);
    expect(writtenIn("zh", english + code), "Chinese only inside code is not a Chinese page").toBe(false);
    expect(writtenIn("ja", "ループは stop_reason が tool_use でなくなるまで回り続けます。".repeat(20))).toBe(true);
    expect(writtenIn("ja", "循环一直转，直到 stop_reason 不再是 tool_use。".repeat(40)), "kanji without kana is Chinese, not Japanese").toBe(false);
    expect(writtenIn("ja", english)).toBe(false);
    expect(writtenIn("ru", "Цикл идёт по кругу, пока stop_reason не перестанет быть tool_use. ".repeat(20))).toBe(true);
    expect(writtenIn("ru", english)).toBe(false);
    expect(writtenIn("en", english)).toBe(true);
  });

  it("names every piece a lesson that does not exist lacks, with what to do", () => {
    const items = lessonChecklist({ id: "s42", dir: "s42_nothing", title: "", idea: "", entry: "agent.ts", hints: ["", ""] });
    const missing = items.filter((i) => !i.ok).map((i) => i.what);
    for (const piece of ["course.json", "lessons/s42_nothing/agent.ts", "tests/s42_nothing.test.ts", "tests/mutants/s42", "tests/alternatives/s42", "docs/lessons/s42_nothing.md", "docs/zh/lessons/s42_nothing.md", "docs/ja/lessons/s42_nothing.md", "docs/ru/lessons/s42_nothing.md", "a picture", "two hints"])
      expect(missing.some((m) => m.includes(piece)), `the checklist does not name ${piece}: ${missing.join(" | ")}`).toBe(true);
  });
});
