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
 * or tests changed. Reports under .course/mutation/sNN/ (index.html; incremental.json); the
 * table is also written to .course/mutation/summary.json. Slow on a 2-core machine (minutes per
 * lesson): CI runs one small lesson as a sample, not every lesson on every change.
 *
 * Options: --docs (after the sweep, write the table of every lesson swept so far, from
 * summary.json, into the reliability page, en and zh; `--docs` with no lesson writes it without
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
import { ROOT } from "../lib/paths.ts";
import { loadEquivalents, type Equivalent } from "./equivalents.ts";
import { todoRegions } from "./regions.ts";

type Result = Awaited<ReturnType<Stryker["runMutationTest"]>>[number];

export interface LessonScore {
  lesson: string;
  /** Mutants the TypeScript checker dropped before any test ran (not counted in the score). */
  typeErrors: number;
  /** Mutants that type-check: the ones the tests must kill. */
  mutants: number;
  killed: number;
  survived: number;
  equivalent: number;
  /** Survivors not listed as equivalent: each needs a test. */
  unexplained: Array<{ file: string; line: number; mutator: string; replacement: string; code: string }>;
  score: number;
  net: number;
  seconds: number;
}

const lineOf = (file: string, line: number) => readFileSync(join(ROOT, file), "utf8").split("\n")[line - 1]?.trim() ?? "";
const pct = (n: number) => `${(Math.floor(n * 1000) / 10).toFixed(1)} %`;

async function sweep(lesson: Lesson, opts: { concurrency: number; check: boolean; fresh: boolean }, equivalents: Equivalent[]): Promise<LessonScore> {
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
    mutate: regions.map((r) => `${r.file}:${r.from}-${r.to}`),
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
  const started = performance.now();
  const results: Result[] = await new Stryker(options).runMutationTest();
  const seconds = Math.round((performance.now() - started) / 1000);

  const byStatus = new Map<string, number>();
  for (const r of results) byStatus.set(r.status, (byStatus.get(r.status) ?? 0) + 1);
  const statuses = [...byStatus].map(([k, n]) => `${k} ${n}`);
  console.log(`${lesson.id}: ${results.length} mutants: ${statuses.join(", ")}`);
  const counted = results.filter((r) => r.status !== "CompileError" && r.status !== "Ignored" && r.status !== "Pending");
  const killed = counted.filter((r) => r.status === "Killed" || r.status === "Timeout").length;
  const alive = counted.filter((r) => r.status === "Survived" || r.status === "NoCoverage");
  const isEquivalent = (r: Result) => {
    const file = relative(ROOT, r.fileName);
    const line = lineOf(file, r.location.start.line);
    return equivalents.some((e) => e.file === file && e.mutator === r.mutatorName && e.replacement === r.replacement && e.line === line);
  };
  const equivalent = alive.filter(isEquivalent);
  const unexplained = alive
    .filter((r) => !isEquivalent(r))
    .map((r) => {
      const file = relative(ROOT, r.fileName);
      return { file, line: r.location.start.line, mutator: r.mutatorName, replacement: r.replacement, code: lineOf(file, r.location.start.line) };
    });
  const real = counted.length - equivalent.length;
  return {
    lesson: lesson.id,
    typeErrors: results.filter((r) => r.status === "CompileError").length,
    mutants: counted.length,
    killed,
    survived: alive.length,
    equivalent: equivalent.length,
    unexplained,
    score: counted.length ? killed / counted.length : 1,
    net: real ? killed / real : 1,
    seconds,
  };
}

/** The table, as Markdown (the reliability page has it, in English and Chinese). */
export function table(scores: LessonScore[], lang: "en" | "zh" = "en"): string {
  const head =
    lang === "en"
      ? "| lesson | dropped by the type checker | mutants | killed | survived | equivalent | score | net score |"
      : "| 课 | 被类型检查去掉 | 变异体 | 杀死 | 存活 | 等价 | 分数 | 净分数 |";
  const rows = scores.map((s) => `| ${s.lesson} | ${s.typeErrors} | ${s.mutants} | ${s.killed} | ${s.survived} | ${s.equivalent} | ${pct(s.score)} | ${pct(s.net)} |`);
  return [head, "|---|---:|---:|---:|---:|---:|---:|---:|", ...rows].join("\n");
}

const PAGES = { en: "docs/guide/reliability.md", zh: "docs/zh/guide/reliability.md" } as const;

/**
 * Writes the table between the pages' mutation markers: every lesson swept on this machine
 * (summary.json), and the rows the page already has for lessons not swept here (a sweep of one
 * lesson, or on a fresh clone, keeps the others' figures).
 */
function writeDocs(all: Record<string, LessonScore>): void {
  const scores = Object.values(all).sort((a, b) => a.lesson.localeCompare(b.lesson));
  const date = new Date().toISOString().slice(0, 10);
  const start = "<!-- mutation:start -->";
  const end = "<!-- mutation:end -->";
  const enText = readFileSync(join(ROOT, PAGES.en), "utf8");
  const kept = new Map<string, string>();
  if (enText.includes(start) && enText.includes(end))
    for (const m of enText.slice(enText.indexOf(start), enText.indexOf(end)).matchAll(/^\| (s\d\d) \|.*\|$/gm)) if (!all[m[1]!]) kept.set(m[1]!, m[0]);
  for (const [lang, page] of Object.entries(PAGES) as Array<["en" | "zh", string]>) {
    const path = join(ROOT, page);
    const text = readFileSync(path, "utf8");
    if (!text.includes(start) || !text.includes(end)) throw new Error(`${page} has no ${start} … ${end} markers for the table`);
    const said = lang === "en" ? `_${date}, \`npm run mutation\`:_` : `_${date}，\`npm run mutation\`：_`;
    const missing = LESSONS.map((l) => l.id).filter((id) => !all[id] && !kept.has(id));
    const rest = missing.length === 0 ? "" : lang === "en" ? `\n\nNot swept yet: ${missing.join(", ")}.` : `\n\n尚未测过：${missing.join("、")}。`;
    const [head, rule, ...rows] = table(scores, lang).split("\n");
    const merged = [...rows, ...kept.values()].sort((a, b) => a.slice(2, 5).localeCompare(b.slice(2, 5)));
    const block = `${start}\n\n${said}\n\n${[head, rule, ...merged].join("\n")}${rest}\n\n${end}`;
    writeFileSync(path, text.slice(0, text.indexOf(start)) + block + text.slice(text.indexOf(end) + end.length));
  }
}

if (process.argv[1] && import.meta.url === new URL(`file://${process.argv[1]}`).href) {
  const args = process.argv.slice(2);
  const flag = (name: string) => args.includes(name);
  const value = (name: string) => (args.includes(name) ? args[args.indexOf(name) + 1] : undefined);
  const ids = args.filter((a, i) => !a.startsWith("--") && !["--concurrency", "--one"].includes(args[i - 1] ?? ""));
  const lessons = ids.length > 0 ? ids.map((id) => findLesson(id) ?? (console.error(`no lesson ${id}: use s01 … s17`), process.exit(2))) : LESSONS;
  const concurrency = Number(value("--concurrency") ?? 2);
  if (!Number.isInteger(concurrency) || concurrency < 1) {
    console.error(`--concurrency takes a whole number of 1 or more, not ${value("--concurrency")}`);
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
    writeFileSync(scoreFile(one), JSON.stringify(await sweep(lesson, sweepOpts, equivalents[lesson.id] ?? [])));
    process.exit(0);
  }
  const summary = join(ROOT, ".course", "mutation", "summary.json");
  const previous = (() => {
    try {
      return JSON.parse(readFileSync(summary, "utf8")) as Record<string, LessonScore>;
    } catch {
      return {};
    }
  })();
  // `--docs` alone: the table of what was swept so far, into the pages, without sweeping again.
  if (flag("--docs") && ids.length === 0) {
    if (Object.keys(previous).length === 0) {
      console.error("nothing swept yet: run `npm run mutation -- sNN` first");
      process.exit(2);
    }
    writeDocs(previous);
    console.log(`${table(Object.values(previous).sort((a, b) => a.lesson.localeCompare(b.lesson)))}\n\nwritten to ${Object.values(PAGES).join(" and ")}`);
    process.exit(0);
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
    console.log(`${lesson.id}: ${s.killed} of ${s.mutants} killed, ${s.equivalent} equivalent (listed), ${s.unexplained.length} to explain; score ${pct(s.score)}, net ${pct(s.net)} (${s.seconds} s). Report: .course/mutation/${lesson.id}/index.html`);
    for (const u of s.unexplained) console.log(`  survived: ${u.file}:${u.line} ${u.mutator} → ${JSON.stringify(u.replacement)}   (${u.code})`);
  }
  console.log(`\n${table(scores)}`);
  const all = { ...previous, ...Object.fromEntries(scores.map((s) => [s.lesson, s])) };
  writeFileSync(summary, `${JSON.stringify(all, null, 2)}\n`);
  if (flag("--docs")) writeDocs(all);
  if (!scores.every((s) => s.net >= 0.95)) process.exitCode = 1;
}
