/**
 * The mutation sweep's inputs and its committed results (scripts/mutation/):
 * - every lesson's TODO regions are found in its solution, with the lines the learner writes;
 * - every equivalent mutant listed in tests/mutation/equivalent.yaml names exactly one mutant of
 *   the code as it is (file, place, mutator, replacement, the line it starts on), and one survivor
 *   of the lesson's last sweep when that sweep is fresh;
 * - each score file recorded what it measured; the percentages are recomputed here from its
 *   counts and survivors, never read; the reliability page shows the recomputed table, and
 *   "stale (re-sweep: …)" for a score whose measured files changed since, never a number.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { LESSONS } from "../../runtime/manifest.ts";
import { ROOT } from "../../scripts/lib/paths.ts";
import { loadEquivalents } from "../../scripts/mutation/equivalents.ts";
import { listMutants } from "../../scripts/mutation/mutants.ts";
import { otherFileErrors } from "../../scripts/mutation/sweep-check.ts";
import { todoRegions } from "../../scripts/mutation/regions.ts";
import { compute, docsBlock, loadScores, measure, names, SCORES_DIR, scoreLine, staleness, table, type LessonScore } from "../../scripts/mutation/scores.ts";

const EQ = "tests/mutation/equivalent.yaml";

describe("mutation sweep: TODO regions", () => {
  for (const lesson of LESSONS)
    it(`${lesson.id}: every TODO region of lessons/ is found in solutions/, with the lines the learner writes inside it`, () => {
      const regions = todoRegions(lesson);
      expect(regions.length, `${lesson.id} has no TODO region`).toBeGreaterThan(0);
      for (const r of regions) {
        const lines = readFileSync(join(ROOT, r.file), "utf8").split("\n");
        expect(lines[r.from - 2], `${r.file}#${r.region} starts at its marker`).toMatch(new RegExp(`#region ${r.region}\\b`));
        expect(lines[r.to], `${r.file}#${r.region} ends at its marker`).toMatch(new RegExp(`#endregion ${r.region}\\b`));
        expect(r.written.length, `${r.file}#${r.region}: the exercise gives every line of the solution's region, so the learner writes nothing there`).toBeGreaterThan(0);
        for (const w of r.written) expect(w.from >= r.from && w.to <= r.to && w.from <= w.to, `${r.file}#${r.region}: written lines ${w.from}-${w.to} lie inside ${r.from}-${r.to}`).toBe(true);
      }
      // Every todo( of the exercise is inside a region the sweep mutates.
      const exercise = readFileSync(join(ROOT, "lessons", lesson.dir, lesson.entry), "utf8");
      if (/\btodo\(/.test(exercise)) expect(regions.some((r) => r.file.endsWith(`/${lesson.entry}`)), `${lesson.entry} has a todo( outside the regions found`).toBe(true);
    });

  it("a line the exercise gives as it is is not the learner's: it is left out of the lines mutated", () => {
    // s05's printed plan of the turn's batches is given in the exercise (a terminal note).
    const s05 = todoRegions(LESSONS.find((l) => l.id === "s05")!);
    const file = s05[0]!.file;
    const lines = readFileSync(join(ROOT, file), "utf8").split("\n");
    const plan = lines.findIndex((l) => l.includes("say(dim(`  run: ")) + 1;
    expect(plan, "s05's agent.ts prints the plan of the turn's batches").toBeGreaterThan(0);
    expect(s05.some((r) => r.file === file && r.from <= plan && plan <= r.to), "the printed plan is inside a TODO region").toBe(true);
    expect(s05.some((r) => r.file === file && r.written.some((w) => w.from <= plan && plan <= w.to)), "the printed plan, given in the exercise, is counted as written by the learner").toBe(false);
  });
});

describe("mutation sweep: equivalent mutants", () => {
  const listed = loadEquivalents();
  for (const [id, entries] of Object.entries(listed)) {
    if (entries.length === 0) continue;
    it(`${id}: each entry names exactly one mutant of the code as it is`, async () => {
      const lesson = LESSONS.find((l) => l.id === id);
      expect(lesson, `${EQ}: no lesson ${id}`).toBeDefined();
      const mutants = await listMutants(lesson!);
      for (const e of entries) {
        const hits = mutants.filter((m) => names(e, m));
        expect(hits.length, `${EQ} (${id}): no mutant ${e.mutator} → ${e.replacement} at ${e.file}:${e.at} (the code moved or changed: list the mutants with \`npx tsx scripts/mutation/mutants.ts ${id}\` and judge the survivor again)`).toBe(1);
        const line = readFileSync(join(ROOT, e.file), "utf8").split("\n")[Number(e.at.split(":")[0]) - 1]?.trim();
        expect(line, `${EQ} (${id}): the line at ${e.file}:${e.at} is not the one the entry was judged on`).toBe(e.line);
      }
      const places = entries.map((e) => `${e.file}:${e.at} ${e.mutator} ${e.replacement}`);
      expect(new Set(places).size, `${EQ} (${id}): an entry is listed twice`).toBe(places.length);
    });
  }

  it("an entry names a survivor of its lesson's last sweep, when that sweep is fresh", () => {
    const scores = loadScores();
    for (const [id, entries] of Object.entries(listed)) {
      const s = scores[id];
      if (!s || staleness(s)) continue; // the page says stale for it; re-sweep to check its entries
      for (const e of entries)
        expect(
          s.survivors!.some((m) => names(e, m)),
          `${EQ} (${id}): ${e.file}:${e.at} ${e.mutator} → ${e.replacement} is no survivor of the last sweep (${SCORES_DIR}/${id}.json): the tests kill it now, so take the entry out`,
        ).toBe(true);
    }
  });
});

describe("mutation sweep: the scores", () => {
  const scores = loadScores();
  const equivalents = loadEquivalents();

  it("every lesson's score file is valid and agrees with itself", () => {
    for (const s of Object.values(scores)) {
      expect(LESSONS.some((l) => l.id === s.lesson), `${SCORES_DIR}/${s.lesson}.json: no such lesson`).toBe(true);
      expect(s.killed + s.survived, `${SCORES_DIR}/${s.lesson}.json: killed + survived is every mutant that type-checked`).toBe(s.mutants);
      if (s.survivors) expect(s.survivors.length, `${SCORES_DIR}/${s.lesson}.json: one survivor listed for each counted`).toBe(s.survived);
      if (s.measured) expect(s.measured.files, `${SCORES_DIR}/${s.lesson}.json: the measured files include the lesson's test file`).toContain(`tests/${LESSONS.find((l) => l.id === s.lesson)!.dir}.test.ts`);
    }
  });

  it("every fresh score is at 95 % net or more, recomputed from its counts and the equivalent list", () => {
    for (const s of Object.values(scores)) {
      const c = compute(s, equivalents[s.lesson] ?? []);
      if (c.stale) continue;
      expect(c.net, `${s.lesson}: net ${c.net} (${c.killed} killed of ${c.mutants - c.equivalent}); survivors without a test: ${c.unexplained.map((u) => `${u.file}:${u.at} ${u.mutator} → ${u.replacement}`).join("; ")}`).toBeGreaterThanOrEqual(0.95);
    }
  });

  it("the reliability pages (en, zh) show the recomputed table, stale scores as stale (npm run mutation -- --docs writes it)", () => {
    for (const [lang, page] of [["en", "docs/guide/reliability.md"], ["zh", "docs/zh/guide/reliability.md"]] as const) {
      const text = readFileSync(join(ROOT, page), "utf8");
      const shown = text.slice(text.indexOf("<!-- mutation:start -->"), text.indexOf("<!-- mutation:end -->") + "<!-- mutation:end -->".length);
      expect(shown, `${page}: the mutation table is not the one of ${SCORES_DIR}/ and the code as it is (a score goes stale when a file it measured changes): run \`npm run mutation -- --docs\``).toBe(docsBlock(Object.values(scores), equivalents, lang));
    }
  });

  // The record itself, on a made-up score.
  const s01 = (over: Partial<LessonScore> = {}): LessonScore => ({ lesson: "s01", date: "2026-01-02", measured: measure("s01"), typeErrors: 1, mutants: 10, killed: 8, survived: 2, survivors: [{ file: "f.ts", at: "3:4-3:9", mutator: "StringLiteral", replacement: '""', status: "Survived" }, { file: "f.ts", at: "5:0-5:2", mutator: "BooleanLiteral", replacement: "true", status: "NoCoverage" }], seconds: 3, ...over });
  const eq = { file: "f.ts", at: "3:4-3:9", mutator: "StringLiteral", replacement: '""', line: "x", why: "a reason long enough" };

  it("the score and net are computed: an equivalent entry counts only for the one mutant it names", () => {
    const c = compute(s01(), [eq]);
    expect([c.score, c.net, c.equivalent, c.unexplained.length]).toEqual([0.8, 8 / 9, 1, 1]);
    // The same mutator and replacement one column further is another mutant: not excused.
    expect(compute(s01(), [{ ...eq, at: "3:5-3:9" }]).equivalent).toBe(0);
  });

  it("a score is stale when a measured file changed, or when it never recorded what it measured; the table then shows no number", () => {
    expect(staleness(s01())).toBeUndefined();
    expect(staleness(s01({ measured: { sha256: "0".repeat(64), files: measure("s01").files } }))).toMatch(/changed since the sweep/);
    expect(staleness(s01({ measured: undefined }))).toMatch(/before the score recorded/);
    const row = table([compute(s01({ measured: undefined }), [])]).split("\n")[2]!;
    expect(row).toBe("| s01 | — | — | — | — | — | — | stale (re-sweep: npm run mutation -- s01) |");
    expect(row, "a stale row shows no percentage").not.toMatch(/\d %/);
  });

  it("a sweep where no mutant type-checked measured nothing: no percentage, never 100 %", () => {
    const c = compute(s01({ mutants: 0, killed: 0, survived: 0, survivors: [], typeErrors: 3 }), []);
    expect(table([c]).split("\n")[2]).toBe("| s01 | 3 | 0 | 0 | 0 | 0 | — (no mutant compiled) | — (no mutant compiled) |");
  });

  it("a compile error in another file than the mutated one means the project did not type-check during the sweep: named, so nothing is recorded", () => {
    const own = "solutions/s07_safe_tools/workspace.ts";
    const reason = `${own}(80,35): error TS2345: Argument of type 'unknown'…\nsolutions/s19_hooks/program.ts(16,28): error TS2307: Cannot find module './trust.ts'\n`;
    expect(otherFileErrors(reason, own)).toEqual(["solutions/s19_hooks/program.ts: TS2307"]);
    expect(otherFileErrors(`${own}(80,35): error TS2345: x\n`, own), "a mutant that breaks its own file is an ordinary compile error").toEqual([]);
  });

  it("what is measured: the test file, the solution, and the course files they import", () => {
    const { files } = measure("s08");
    for (const f of ["tests/s08_streaming.test.ts", "solutions/s08_streaming/stream-turn.ts", "solutions/s07_safe_tools/agent.ts", "runtime/testing.ts", "tests/support.ts", "runtime/scripted/scenarios/s08_streaming.ts"]) expect(files).toContain(f);
    expect(files.some((f) => f.startsWith("runtime/scripted/scenarios/s09_")), "another lesson's scenario is data for that lesson").toBe(false);
  });

  it("verify's summary names each lesson's last sweep, a stale one as stale, or says how to run one", () => {
    expect(scoreLine("s01", compute(s01(), []), "2026-01-02")).toBe("mutation sweep (2026-01-02): 8/10 killed, 0 equivalent listed, net 80.0 %, 2 survivor(s) without a test");
    expect(scoreLine("s01", compute(s01({ measured: undefined }), []))).toBe("mutation sweep: stale, swept before the score recorded what it measured (re-sweep: npm run mutation -- s01)");
    expect(scoreLine("s02", undefined)).toBe("mutation sweep: not run yet (npm run mutation -- s02)");
  });
});
