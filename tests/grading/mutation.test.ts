/**
 * The mutation sweep's inputs (scripts/mutation/): every lesson's TODO regions are found in its
 * solution, and every equivalent mutant listed in tests/mutation/equivalent.yaml still points at
 * a line of a TODO region (a stale entry would hide a survivor nobody has looked at).
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { LESSONS } from "../../runtime/manifest.ts";
import { ROOT } from "../../scripts/lib/paths.ts";
import { loadEquivalents } from "../../scripts/mutation/equivalents.ts";
import { todoRegions } from "../../scripts/mutation/regions.ts";
import { docsBlock, loadScores, SCORES_DIR, scoreLine } from "../../scripts/mutation/scores.ts";

describe("mutation sweep: TODO regions", () => {
  for (const lesson of LESSONS)
    it(`${lesson.id}: every TODO region of lessons/ is found in solutions/`, () => {
      const regions = todoRegions(lesson);
      expect(regions.length, `${lesson.id} has no TODO region`).toBeGreaterThan(0);
      for (const r of regions) {
        const lines = readFileSync(join(ROOT, r.file), "utf8").split("\n");
        expect(lines[r.from - 2], `${r.file}#${r.region} starts at its marker`).toMatch(new RegExp(`#region ${r.region}\\b`));
        expect(lines[r.to], `${r.file}#${r.region} ends at its marker`).toMatch(new RegExp(`#endregion ${r.region}\\b`));
      }
      // Every todo( of the exercise is inside a region the sweep mutates.
      const exercise = readFileSync(join(ROOT, "lessons", lesson.dir, lesson.entry), "utf8");
      if (/\btodo\(/.test(exercise)) expect(regions.some((r) => r.file.endsWith(`/${lesson.entry}`)), `${lesson.entry} has a todo( outside the regions found`).toBe(true);
    });
});

describe("mutation sweep: equivalent mutants", () => {
  it("each listed one names a lesson, a line of one of its TODO regions, and why", () => {
    const listed = loadEquivalents();
    for (const [id, entries] of Object.entries(listed)) {
      const lesson = LESSONS.find((l) => l.id === id);
      expect(lesson, `tests/mutation/equivalent.yaml: no lesson ${id}`).toBeDefined();
      const regions = todoRegions(lesson!);
      for (const e of entries) {
        const inRegion = regions.some((r) => r.file === e.file && readFileSync(join(ROOT, r.file), "utf8").split("\n").slice(r.from - 1, r.to).some((l) => l.trim() === e.line));
        expect(inRegion, `tests/mutation/equivalent.yaml (${id}): "${e.line}" is not a line of a TODO region of ${e.file} (the code changed: look at the survivor again)`).toBe(true);
      }
    }
  });
});

describe("mutation sweep: the scores", () => {
  it("every lesson's score file is valid, and agrees with itself", () => {
    const scores = loadScores();
    for (const s of Object.values(scores)) {
      expect(LESSONS.some((l) => l.id === s.lesson), `${SCORES_DIR}/${s.lesson}.json: no such lesson`).toBe(true);
      expect(s.killed + s.survived, `${SCORES_DIR}/${s.lesson}.json: killed + survived is every mutant that type-checked`).toBe(s.mutants);
      expect(s.survived, `${SCORES_DIR}/${s.lesson}.json: the survivors are the listed equivalents and the unexplained ones`).toBe(s.equivalent + s.unexplained.length);
    }
  });

  it("the reliability pages (en, zh) show the table of the committed scores (npm run mutation -- --docs writes it)", () => {
    const scores = Object.values(loadScores());
    for (const [lang, page] of [["en", "docs/guide/reliability.md"], ["zh", "docs/zh/guide/reliability.md"]] as const) {
      const text = readFileSync(join(ROOT, page), "utf8");
      const shown = text.slice(text.indexOf("<!-- mutation:start -->"), text.indexOf("<!-- mutation:end -->") + "<!-- mutation:end -->".length);
      expect(shown, `${page}: the mutation table is not the one of ${SCORES_DIR}/: run \`npm run mutation -- --docs\``).toBe(docsBlock(scores, lang));
    }
  });

  it("verify's summary names each lesson's last sweep, or says how to run one", () => {
    const s = { lesson: "s01", date: "2026-01-02", typeErrors: 1, mutants: 10, killed: 9, survived: 1, equivalent: 0, unexplained: [{ file: "f", line: 1, mutator: "m", replacement: "r", code: "c" }], score: 0.9, net: 0.9, seconds: 3 };
    expect(scoreLine("s01", s)).toBe("mutation sweep (2026-01-02): 9/10 killed, 0 equivalent listed, net 90.0 %, 1 survivor(s) without a test");
    expect(scoreLine("s02", undefined)).toBe("mutation sweep: not run yet (npm run mutation -- s02)");
  });
});
