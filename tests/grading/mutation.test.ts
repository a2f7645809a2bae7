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
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { SITE_LANGS, langDir } from "../../docs/.vitepress/theme/langs.ts";
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
      expect(regions.length, `${lesson.id} has no TODO region: todoRegions (scripts/mutation/regions.ts) finds none where lessons/ differs from solutions/ around a todo(…) call; give the exercise its TODO, or fix the finder`).toBeGreaterThan(0);
      for (const r of regions) {
        const lines = readFileSync(join(ROOT, r.file), "utf8").split("\n");
        expect(lines[r.from - 2], `${r.file}#${r.region} does not start at its // #region marker: put the marker on the line before the region, or fix todoRegions`).toMatch(new RegExp(`#region ${r.region}\\b`));
        expect(lines[r.to], `${r.file}#${r.region} does not end at its // #endregion marker: put the marker on the line after the region, or fix todoRegions`).toMatch(new RegExp(`#endregion ${r.region}\\b`));
        expect(r.written.length, `${r.file}#${r.region}: the exercise gives every line of the solution's region, so the learner writes nothing there: make the lines the learner writes a todo(…) in lessons/, or drop the region`).toBeGreaterThan(0);
        for (const w of r.written) expect(w.from >= r.from && w.to <= r.to && w.from <= w.to, `${r.file}#${r.region}: the written lines ${w.from}-${w.to} are not inside the region ${r.from}-${r.to}: the sweep mutates only the region, so move the marker or fix todoRegions`).toBe(true);
      }
      // Every todo( of the exercise is inside a region the sweep mutates.
      const exercise = readFileSync(join(ROOT, "lessons", lesson.dir, lesson.entry), "utf8");
      if (/\btodo\(/.test(exercise)) expect(regions.some((r) => r.file.endsWith(`/${lesson.entry}`)), `${lesson.entry} has a todo( outside the regions found: wrap the code around it in a // #region … // #endregion, so the sweep mutates what the learner writes`).toBe(true);
    });

  it("a line the exercise gives as it is is not the learner's: it is left out of the lines mutated", () => {
    // s05's printed plan of the turn's batches is given in the exercise (a terminal note).
    const s05 = todoRegions(LESSONS.find((l) => l.id === "s05")!);
    const file = s05[0]!.file;
    const lines = readFileSync(join(ROOT, file), "utf8").split("\n");
    const plan = lines.findIndex((l) => l.includes("say(dim(`  run: ")) + 1;
    expect(plan, "(a check of this test itself) s05's agent.ts no longer prints the plan of the turn's batches (say(dim(`  run: …)): point the test at the line that does").toBeGreaterThan(0);
    expect(s05.some((r) => r.file === file && r.from <= plan && plan <= r.to), "s05's printed plan is not inside a TODO region: the test needs a given line inside one; point it at another").toBe(true);
    expect(s05.some((r) => r.file === file && r.written.some((w) => w.from <= plan && plan <= w.to)), "s05's printed plan, given as it is in the exercise, is counted as written by the learner: todoRegions must leave lines the exercise gives out of r.written").toBe(false);
  });
});

describe("mutation sweep: equivalent mutants", () => {
  const listed = loadEquivalents();
  for (const [id, entries] of Object.entries(listed)) {
    if (entries.length === 0) continue;
    it(`${id}: each entry names exactly one mutant of the code as it is`, async () => {
      const lesson = LESSONS.find((l) => l.id === id);
      expect(lesson, `${EQ}: no lesson ${id}: take its entries out, or spell the lesson id as the manifest does`).toBeDefined();
      const mutants = await listMutants(lesson!);
      for (const e of entries) {
        const hits = mutants.filter((m) => names(e, m));
        expect(hits.length, `${EQ} (${id}): no mutant ${e.mutator} → ${e.replacement} at ${e.file}:${e.at} (the code moved or changed: list the mutants with \`npx tsx scripts/mutation/mutants.ts ${id}\` and judge the survivor again)`).toBe(1);
        const line = readFileSync(join(ROOT, e.file), "utf8").split("\n")[Number(e.at.split(":")[0]) - 1]?.trim();
        expect(line, `${EQ} (${id}): the line at ${e.file}:${e.at} is not the one the entry was judged on: judge the mutant on the line as it is now, then write its line and why again`).toBe(e.line);
      }
      const places = entries.map((e) => `${e.file}:${e.at} ${e.mutator} ${e.replacement}`);
      expect(new Set(places).size, `${EQ} (${id}): an entry is listed twice: remove the copy`).toBe(places.length);
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
      expect(LESSONS.some((l) => l.id === s.lesson), `${SCORES_DIR}/${s.lesson}.json: no such lesson: delete the file, or sweep the lesson under its id`).toBe(true);
      expect(s.killed + s.survived, `${SCORES_DIR}/${s.lesson}.json: killed + survived is not the number of mutants that type-checked: the file was edited by hand or written by a broken sweep; sweep again (npm run mutation -- ${s.lesson})`).toBe(s.mutants);
      if (s.survivors) expect(s.survivors.length, `${SCORES_DIR}/${s.lesson}.json: the survivors listed are not as many as counted: sweep again (npm run mutation -- ${s.lesson})`).toBe(s.survived);
      if (s.measured) expect(s.measured.files, `${SCORES_DIR}/${s.lesson}.json: the measured files leave out the lesson's test file, so a change to the tests would not make the score stale: sweep again (npm run mutation -- ${s.lesson})`).toContain(`tests/${LESSONS.find((l) => l.id === s.lesson)!.dir}.test.ts`);
    }
  });

  it("every fresh score is at 95 % net or more, recomputed from its counts and the equivalent list", () => {
    for (const s of Object.values(scores)) {
      const c = compute(s, equivalents[s.lesson] ?? []);
      if (c.stale) continue;
      expect(c.net, `${s.lesson}: net ${c.net} (${c.killed} killed of ${c.mutants - c.equivalent}); survivors without a test: ${c.unexplained.map((u) => `${u.file}:${u.at} ${u.mutator} → ${u.replacement}`).join("; ")}`).toBeGreaterThanOrEqual(0.95);
    }
  });

  it("the reliability pages (every language that has one) show the recomputed table, stale scores as stale (npm run mutation -- --docs writes it)", () => {
    for (const lang of SITE_LANGS) {
      const page = `docs/${langDir(lang)}guide/reliability.md`;
      if (lang !== "en" && !existsSync(join(ROOT, page))) continue; // not translated yet
      const text = readFileSync(join(ROOT, page), "utf8");
      const shown = text.slice(text.indexOf("<!-- mutation:start -->"), text.indexOf("<!-- mutation:end -->") + "<!-- mutation:end -->".length);
      expect(shown, `${page}: the mutation table is not the one of ${SCORES_DIR}/ and the code as it is (a score goes stale when a file it measured changes): run \`npm run mutation -- --docs\``).toBe(docsBlock(Object.values(scores), equivalents, lang));
    }
  });

  it("the table speaks each language of the site: its heads, and the lessons not swept yet", () => {
    for (const [lang, head, missing] of [["ja", "ミュータント", "まだ測っていない"], ["ru", "мутанты", "Ещё не измерены"]] as const) {
      const block = docsBlock([], {}, lang);
      expect(block.split("\n").find((l) => l.startsWith("| ")), `${lang}: the table's head is not in its language: add the word "${head}" to docsBlock's words for ${lang} (scripts/mutation/scores.ts)`).toContain(head);
      expect(block, `${lang}: the lessons not swept yet are not said in its language: add "${missing}" to docsBlock's words for ${lang} (scripts/mutation/scores.ts)`).toContain(missing);
      expect(block, `${lang}: the table shows English words (Not swept yet, | lesson |): give docsBlock the ${lang} words for every English one (scripts/mutation/scores.ts)`).not.toMatch(/Not swept yet|\| lesson \|/);
    }
  });

  // The record itself, on a made-up score.
  const s01 = (over: Partial<LessonScore> = {}): LessonScore => ({ lesson: "s01", date: "2026-01-02", measured: measure("s01"), typeErrors: 1, mutants: 10, killed: 8, survived: 2, survivors: [{ file: "f.ts", at: "3:4-3:9", mutator: "StringLiteral", replacement: '""', status: "Survived" }, { file: "f.ts", at: "5:0-5:2", mutator: "BooleanLiteral", replacement: "true", status: "NoCoverage" }], seconds: 3, ...over });
  const eq = { file: "f.ts", at: "3:4-3:9", mutator: "StringLiteral", replacement: '""', line: "x", why: "a reason long enough" };

  it("the score and net are computed: an equivalent entry counts only for the one mutant it names", () => {
    const c = compute(s01(), [eq]);
    expect([c.score, c.net, c.equivalent, c.unexplained.length], "8 killed of 10, one survivor excused by an entry: compute must give score 0.8, net 8/9, 1 equivalent, 1 survivor left unexplained (scripts/mutation/scores.ts)").toEqual([0.8, 8 / 9, 1, 1]);
    // The same mutator and replacement one column further is another mutant: not excused.
    expect(compute(s01(), [{ ...eq, at: "3:5-3:9" }]).equivalent, "an entry one column off the survivor excused it: an entry must match its mutant's whole place (line and columns), not only its mutator and replacement").toBe(0);
  });

  it("a score is stale when a measured file changed, or when it never recorded what it measured; the table then shows no number", () => {
    expect(staleness(s01()), "a score that recorded the files as they are now was called stale: staleness must compare the recorded hash with measure()").toBeUndefined();
    expect(staleness(s01({ measured: { sha256: "0".repeat(64), files: measure("s01").files } })), "a score whose measured files changed since was not called stale in words: staleness must say the files changed since the sweep").toMatch(/changed since the sweep/);
    expect(staleness(s01({ measured: undefined })), "a score that never recorded what it measured was not called stale in words: staleness must say it was swept before the score recorded it").toMatch(/before the score recorded/);
    const row = table([compute(s01({ measured: undefined }), [])]).split("\n")[2]!;
    expect(row, "a stale score's row must show dashes and say how to sweep again: table() must not print the stale counts").toBe("| s01 | — | — | — | — | — | — | stale (re-sweep: npm run mutation -- s01) |");
    expect(row, "a stale row shows a percentage: table() must print none for a stale score").not.toMatch(/\d %/);
  });

  it("a sweep where no mutant type-checked measured nothing: no percentage, never 100 %", () => {
    const c = compute(s01({ mutants: 0, killed: 0, survived: 0, survivors: [], typeErrors: 3 }), []);
    expect(table([c]).split("\n")[2], "a sweep where no mutant compiled must show no percentage (never 100 %) and say why: table() must print \"— (no mutant compiled)\"").toBe("| s01 | 3 | 0 | 0 | 0 | 0 | — (no mutant compiled) | — (no mutant compiled) |");
  });

  it("a compile error in another file than the mutated one means the project did not type-check during the sweep: named, so nothing is recorded", () => {
    const own = "solutions/s07_safe_tools/workspace.ts";
    const reason = `${own}(80,35): error TS2345: Argument of type 'unknown'…\nsolutions/s19_hooks/program.ts(16,28): error TS2307: Cannot find module './trust.ts'\n`;
    expect(otherFileErrors(reason, own), "a compile error in another file than the mutated one must be named (file and code), and the mutated file's own error left out: check otherFileErrors (scripts/mutation/sweep-check.ts)").toEqual(["solutions/s19_hooks/program.ts: TS2307"]);
    expect(otherFileErrors(`${own}(80,35): error TS2345: x\n`, own), "a mutant's error in its own file was named as another file's: otherFileErrors must leave out the mutated file, whose errors are ordinary compile errors").toEqual([]);
  });

  it("what is measured: the test file, the solution, and the course files they import", () => {
    const { files } = measure("s08");
    for (const f of ["tests/s08_streaming.test.ts", "solutions/s08_streaming/stream-turn.ts", "solutions/s07_safe_tools/agent.ts", "runtime/testing.ts", "tests/support.ts", "runtime/scripted/scenarios/s08_streaming.ts"]) expect(files, `s08's score does not measure ${f}: measure() must follow the imports of the test file and the solution, so a change there makes the score stale`).toContain(f);
    expect(files.some((f) => f.startsWith("runtime/scripted/scenarios/s09_")), "s08's score measures another lesson's scenario (s09's): that is data for that lesson only; measure() must leave out the scenarios of other lessons").toBe(false);
  });

  it("verify's summary names each lesson's last sweep, a stale one as stale, or says how to run one", () => {
    expect(scoreLine("s01", compute(s01(), []), "2026-01-02"), "verify's line for a fresh sweep must give its date, killed of all, equivalents, net and survivors without a test (scoreLine, scripts/mutation/scores.ts)").toBe("mutation sweep (2026-01-02): 8/10 killed, 0 equivalent listed, net 80.0 %, 2 survivor(s) without a test");
    expect(scoreLine("s01", compute(s01({ measured: undefined }), [])), "verify's line for a stale sweep must say it is stale, why, and how to sweep again, with no number").toBe("mutation sweep: stale, swept before the score recorded what it measured (re-sweep: npm run mutation -- s01)");
    expect(scoreLine("s02", undefined), "verify's line for a lesson never swept must say so and how to run the sweep").toBe("mutation sweep: not run yet (npm run mutation -- s02)");
  });
});
