/**
 * `npm run mutation [-- sNN …]`: a mutation sweep with StrykerJS over each lesson's TODO regions
 * (the code a learner writes), graded by that lesson's own test file on the reference solutions.
 *
 * Stryker makes small changes to that code (a condition flipped, a string emptied, a statement
 * removed…) one at a time and runs the tests: a change the tests do not notice "survives". Each
 * survivor is either a missing test (write it, or keep it as a patch in tests/mutants/) or an
 * equivalent mutant, one that changes nothing a test could ever see; those are listed, each with
 * why, in tests/mutation/equivalent.yaml. The score per lesson is printed as a table:
 *
 *   score      killed (or timed out) / every mutant that compiled
 *   net score  the same, with the listed equivalent mutants left out; the target is 95 % or more
 *
 * Incremental (Stryker's own incremental mode): a second run re-tests only the mutants whose code
 * or tests changed. Reports under .course/mutation/sNN/ (index.html; incremental.json); each
 * lesson's score goes to tests/mutation/scores/sNN.json (committed). Slow on a 2-core machine (minutes per
 * lesson): CI runs one small lesson as a sample, not every lesson on every change.
 *
 * Options: --docs (after the sweep, write the table of every lesson's last score, from
 * tests/mutation/scores/, into the reliability page of every language that has one; `--docs` with no lesson writes it without
 * sweeping), --concurrency N (default 2), --no-check (skip the TypeScript checker: faster; a
 * mutant that does not type-check is then run and usually fails its tests), --fresh (ignore the
 * incremental file).
 */
import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join, relative } from "node:path";
import { fileURLToPath } from "node:url";
import { Stryker } from "@stryker-mutator/core";
import type { PartialStrykerOptions } from "@stryker-mutator/api/core";
import { LESSONS, findLesson, type Lesson } from "../../runtime/manifest.ts";
import { dim } from "../../runtime/print.ts";
import { SITE_LANGS, langDir, type SiteLang } from "../../docs/.vitepress/theme/langs.ts";
import { ROOT } from "../lib/paths.ts";
import { loadEquivalents, type Equivalent } from "./equivalents.ts";
import { todoRegions } from "./regions.ts";
import { otherFileErrors, SweepError } from "./sweep-check.ts";
import { listMutants, placeOf } from "./mutants.ts";
import { compute, docsBlock, loadScores, measure, pct, saveScore, SCORES_DIR, staleness, table, type LessonScore } from "./scores.ts";
import { reportFailures } from "../lib/failure.ts";
import { strictArgsOrExit, usageLine } from "../lib/args.ts";

// What nothing else catches ends the run in words, with what to do (scripts/lib/failure.ts).
reportFailures("npm run mutation");

type Result = Awaited<ReturnType<Stryker["runMutationTest"]>>[number];


async function sweep(lesson: Lesson, opts: { concurrency: number; check: boolean; fresh: boolean }): Promise<LessonScore> {
  const regions = todoRegions(lesson);
  const out = join(ROOT, ".course", "mutation", lesson.id);
  mkdirSync(out, { recursive: true });
  // The vitest config Stryker runs reads the one test file to run from here (its workers inherit it).
  process.env.MUTATION_TEST_FILE = `tests/${lesson.dir}.test.ts`;
  const options: PartialStrykerOptions = {
    testRunner: "vitest",
    vitest: { configFile: "scripts/mutation/vitest.config.ts", related: false },
    plugins: ["@stryker-mutator/vitest-runner", ...(opts.check ? ["@stryker-mutator/typescript-checker"] : [])],
    ...(opts.check ? { checkers: ["typescript"], tsconfigFile: "scripts/mutation/tsconfig.json", typescriptChecker: { prioritizePerformanceOverAccuracy: true } } : {}),
    // Only the lines the learner writes: what the exercise gives as it is (a print, a description) is not mutated.
    mutate: regions.flatMap((r) => r.written.map((w) => `${r.file}:${w.from}-${w.to}`)),
    coverageAnalysis: "perTest",
    incremental: !opts.fresh,
    force: opts.fresh,
    incrementalFile: relative(ROOT, join(out, "incremental.json")),
    reporters: ["html", "progress"],
    htmlReporter: { fileName: relative(ROOT, join(out, "index.html")) },
    concurrency: opts.concurrency,
    tempDirName: ".course/stryker-tmp",
    cleanTempDir: true,
    // The site stays out of the sandbox copy, but for the theme's code some tests import (s09 reads
    // its run log back with the transcript viewer's parser).
    ignorePatterns: ["/docs/*", "!/docs/.vitepress", "/docs/.vitepress/*", "!/docs/.vitepress/theme", ".course", "coverage"],
    // A mutant that makes the loop run forever is killed by the time-out; the limits are far
    // above a test's own time (a busy machine is slower, not wrong).
    timeoutMS: 20_000,
    timeoutFactor: 3,
    logLevel: "warn" as PartialStrykerOptions["logLevel"],
    fileLogLevel: "off" as PartialStrykerOptions["fileLogLevel"],
  };
  // What this sweep measures, taken before it starts (a file changed during the sweep makes the score stale).
  const measured = measure(lesson.id);
  const started = performance.now();
  const results: Result[] = await new Stryker(options).runMutationTest();
  const seconds = Math.round((performance.now() - started) / 1000);

  // A mutant that does not type-check because of ANOTHER file means the project itself did not
  // type-check while the sweep ran (a file edited mid-sweep): every count would be wrong. Nothing is recorded.
  const broken = results.flatMap((r) => (r.status === "CompileError" ? otherFileErrors(r.statusReason ?? "", relative(ROOT, r.fileName)) : []));
  if (broken.length > 0) throw new SweepError(`${lesson.id}: the project did not type-check during the sweep (${[...new Set(broken)].slice(0, 3).join("; ")}): no score recorded. Run it again on a tree that type-checks (npm run typecheck), and edit nothing while it runs.`);
  const byStatus = new Map<string, number>();
  for (const r of results) byStatus.set(r.status, (byStatus.get(r.status) ?? 0) + 1);
  const statuses = [...byStatus].map(([k, n]) => `${k} ${n}`);
  console.log(`${lesson.id}: ${results.length} mutants: ${statuses.join(", ")}`);
  const counted = results.filter((r) => r.status !== "CompileError" && r.status !== "Ignored" && r.status !== "Pending");
  const killed = counted.filter((r) => r.status === "Killed" || r.status === "Timeout").length;
  const survivors = counted
    .filter((r) => r.status === "Survived" || r.status === "NoCoverage")
    .map((r) => ({
      file: relative(ROOT, r.fileName),
      at: placeOf({ start: { line: r.location.start.line, column: r.location.start.column }, end: { line: r.location.end.line, column: r.location.end.column } }),
      mutator: r.mutatorName,
      replacement: r.replacement,
      status: r.status as "Survived" | "NoCoverage",
    }));
  return {
    lesson: lesson.id,
    date: new Date().toISOString().slice(0, 10),
    measured,
    typeErrors: results.filter((r) => r.status === "CompileError").length,
    mutants: counted.length,
    killed,
    survived: survivors.length,
    survivors,
    seconds,
  };
}

/** The reliability page of each language of the site (a translation's once it is written). */
/** What --help prints under the usage line. */
const HELP = `A mutation sweep (StrykerJS) over each lesson's TODO regions, graded by the lesson's own tests
on the reference solutions. Minutes per lesson on 2 cores: about 95 minutes for every lesson.

  sNN …            these lessons only (default: every lesson)
  --stale          only the lessons whose score no longer describes their files, smallest first
  --at-most N      with --stale: at most N of them (what CI sweeps)
  --docs           write the table of every lesson's last score into the reliability pages
                   (alone: without sweeping)
  --concurrency N  Stryker's test runners (default 2)
  --no-check       skip the TypeScript checker (faster; a mutant that does not compile is run)
  --fresh          ignore Stryker's incremental file

Scores go to tests/mutation/scores/ (commit them); reports to .course/mutation/sNN/index.html.`;

const PAGES = Object.fromEntries(SITE_LANGS.map((l) => [l, `docs/${langDir(l)}guide/reliability.md`])) as Record<SiteLang, string>;

/** Writes the table of every lesson's last sweep (tests/mutation/scores/) between the pages' mutation markers. */
function writeDocs(all: Record<string, LessonScore>, equivalents: Record<string, Equivalent[]>): void {
  const scores = Object.values(all);
  const start = "<!-- mutation:start -->";
  const end = "<!-- mutation:end -->";
  for (const [lang, page] of Object.entries(PAGES) as Array<[SiteLang, string]>) {
    const path = join(ROOT, page);
    if (lang !== "en" && !existsSync(path)) continue;
    const text = readFileSync(path, "utf8");
    if (!text.includes(start) || !text.includes(end)) throw new Error(`${page} has no ${start} … ${end} markers for the table`);
    writeFileSync(path, text.slice(0, text.indexOf(start)) + docsBlock(scores, equivalents, lang) + text.slice(text.indexOf(end) + end.length));
  }
}

if (process.argv[1] && import.meta.url === new URL(`file://${process.argv[1]}`).href) {
  const spec = {
    command: "npm run mutation --",
    usage: "[sNN …] [--stale [--at-most N]] [--docs] [--concurrency N] [--no-check] [--fresh] [--help]",
    options: {
      help: { type: "boolean" },
      docs: { type: "boolean" },
      stale: { type: "boolean" },
      fresh: { type: "boolean" },
      "no-check": { type: "boolean" },
      concurrency: { type: "string" },
      "at-most": { type: "string" },
      one: { type: "string" },
    },
    positionals: { max: LESSONS.length },
  } as const;
  const { values, positionals } = strictArgsOrExit(spec);
  if (values.help) {
    console.log(`${usageLine(spec)}\n\n${HELP}`);
    process.exit(0);
  }
  const flag = (name: "--docs" | "--stale" | "--fresh" | "--no-check") => values[name.slice(2) as "docs" | "stale" | "fresh" | "no-check"] === true;
  const value = (name: "--concurrency" | "--at-most" | "--one") => values[name.slice(2) as "concurrency" | "at-most" | "one"];
  const ids = positionals;
  const concurrency = Number(value("--concurrency") ?? 2);
  if (!Number.isInteger(concurrency) || concurrency < 1) {
    console.error(`--concurrency takes a whole number of 1 or more, not ${value("--concurrency")}`);
    process.exit(2);
  }
  const atMost = Number(value("--at-most") ?? Infinity);
  if (!(atMost >= 1)) {
    console.error(`--at-most takes a whole number of 1 or more, not ${value("--at-most")}`);
    process.exit(2);
  }
  let equivalents: Record<string, Equivalent[]>;
  try {
    equivalents = loadEquivalents();
  } catch (e) {
    console.error((e as Error).message);
    process.exit(2);
  }
  const sweepOpts = { concurrency, check: !flag("--no-check"), fresh: flag("--fresh") };
  const scoreFile = (id: string) => join(ROOT, ".course", "mutation", id, "score.json");
  // --one sNN: this process sweeps that lesson and writes its score (Stryker once per process:
  // a second run in the same process trips over the first one's disposed logging).
  const one = value("--one");
  if (one) {
    const lesson = findLesson(one)!;
    try {
      writeFileSync(scoreFile(one), JSON.stringify(await sweep(lesson, sweepOpts)));
    } catch (e) {
      if (!(e instanceof SweepError)) throw e;
      console.error(e.message);
      process.exit(1);
    }
    process.exit(0);
  }
  const before = loadScores();
  // `--docs` alone: the table of every lesson's last sweep, into the pages, without sweeping again.
  if (flag("--docs") && ids.length === 0 && !flag("--stale")) {
    writeDocs(before, equivalents);
    console.log(`${table(Object.values(before).map((s) => compute(s, equivalents[s.lesson] ?? [])))}\n\nwritten to ${Object.values(PAGES).join(" and ")}`);
    process.exit(0);
  }
  let lessons: Lesson[] = ids.length > 0 ? ids.map((id) => findLesson(id) ?? (console.error(`no lesson ${id}: use ${LESSONS[0]!.id} … ${LESSONS.at(-1)!.id}`), process.exit(2))) : LESSONS;
  // --stale: only the lessons whose score no longer describes their files (or that have none),
  // the smallest first (fewest mutants), at most --at-most of them: what CI sweeps for a change.
  if (flag("--stale")) {
    const stale = lessons.filter((l) => !before[l.id] || staleness(before[l.id]!) !== undefined);
    const size = new Map(await Promise.all(stale.map(async (l) => [l.id, (await listMutants(l)).length] as const)));
    lessons = stale.sort((a, b) => size.get(a.id)! - size.get(b.id)! || a.id.localeCompare(b.id)).slice(0, atMost);
    const left = stale.length - lessons.length;
    console.log(stale.length === 0 ? "every lesson's score describes its files: nothing to sweep" : `stale: ${stale.map((l) => l.id).join(", ")}; sweeping ${lessons.map((l) => l.id).join(", ")}${left > 0 ? ` (${left} left for later: npm run mutation -- --stale)` : ""}`);
  }
  const scores: LessonScore[] = [];
  for (const lesson of lessons) {
    console.log(`\n── ${lesson.id}: Stryker over ${todoRegions(lesson).map((r) => `${r.file.split("/").pop()}#${r.region}`).join(", ")} ──`);
    rmSync(scoreFile(lesson.id), { force: true });
    const passOn = [...(flag("--no-check") ? ["--no-check"] : []), ...(flag("--fresh") ? ["--fresh"] : []), "--concurrency", String(concurrency)];
    const child = spawnSync(process.execPath, [...process.execArgv, fileURLToPath(import.meta.url), "--one", lesson.id, ...passOn], { stdio: "inherit" });
    if (!existsSync(scoreFile(lesson.id))) {
      console.error(`${lesson.id}: the sweep ended without a score (exit ${child.status ?? child.signal}); its messages are above.`);
      process.exitCode = 1;
      continue;
    }
    const s = JSON.parse(readFileSync(scoreFile(lesson.id), "utf8")) as LessonScore;
    scores.push(s);
    saveScore(s);
    const c = compute(s, equivalents[lesson.id] ?? []);
    console.log(`${lesson.id}: ${c.killed} of ${c.mutants} killed, ${c.equivalent} equivalent (listed), ${c.unexplained.length} to explain; score ${pct(c.score)}, net ${pct(c.net)} (${s.seconds} s). Report: .course/mutation/${lesson.id}/index.html`);
    if (c.stale) console.log(`  ${lesson.id}: ${c.stale}: a file changed while it was swept; sweep it again`);
    for (const u of c.unexplained) console.log(`  survived: ${u.file}:${u.at} ${u.mutator} → ${JSON.stringify(u.replacement)}`);
  }
  const computed = scores.map((s) => compute(s, equivalents[s.lesson] ?? []));
  console.log(`\n${table(computed)}`);
  console.log(dim(`scores written to ${SCORES_DIR}/ (commit them: the reliability page and npm run verify read them)`));
  if (flag("--docs")) writeDocs(loadScores(), equivalents);
  if (!computed.every((s) => s.net >= 0.95)) process.exitCode = 1;
}
