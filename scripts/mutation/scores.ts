/**
 * The mutation sweep's scores, one file per lesson under tests/mutation/scores/ (committed: the
 * reliability page's table and `npm run verify`'s summary read them on any clone). Written by
 * `npm run mutation -- sNN` after each lesson's sweep.
 *
 * A score file holds what the sweep counted (mutants, killed, each survivor by its place) and what
 * it measured: a content hash of every file the lesson's tests ran (its test file, its solution,
 * and the course code both import, followed import by import). The percentages are never stored:
 * they are computed from the counts and the survivors, with tests/mutation/equivalent.yaml as it is
 * now. A score whose files changed since is *stale*: the page shows "stale (re-sweep: …)" for it,
 * never a number.
 */
import { createHash } from "node:crypto";
import { existsSync, mkdirSync, readFileSync, readdirSync, writeFileSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import { z } from "zod";
import { LESSONS, findLesson } from "../../runtime/manifest.ts";
import { ROOT } from "../lib/paths.ts";
import type { Equivalent } from "./equivalents.ts";

export const SCORES_DIR = "tests/mutation/scores";

const Survivor = z.object({
  file: z.string(),
  /** Stryker's place of the mutant: line:column-line:column (lines 1-based, columns 0-based, end exclusive). */
  at: z.string().regex(/^\d+:\d+-\d+:\d+$/),
  mutator: z.string(),
  replacement: z.string(),
  /** Survived (a test ran over it) or NoCoverage (no test reached it). */
  status: z.enum(["Survived", "NoCoverage"]),
});
export type Survivor = z.infer<typeof Survivor>;

export const LessonScore = z.object({
  lesson: z.string().regex(/^s\d\d$/),
  /** The day of the sweep (YYYY-MM-DD). */
  date: z.string().regex(/^\d{4}-\d\d-\d\d$/),
  /** What was measured: the sha256 of the files the lesson's tests ran, and their list. Absent in a sweep from before it was recorded (then the score counts as stale). */
  measured: z.object({ sha256: z.string().regex(/^[0-9a-f]{64}$/), files: z.array(z.string()) }).optional(),
  /** Mutants the TypeScript checker dropped before any test ran (not counted in the score). */
  typeErrors: z.number().int().min(0),
  /** Mutants that type-check: the ones the tests must kill. */
  mutants: z.number().int().min(0),
  killed: z.number().int().min(0),
  survived: z.number().int().min(0),
  /** Every survivor, by its place; which are equivalent is read from tests/mutation/equivalent.yaml. Absent in an old sweep. */
  survivors: z.array(Survivor).optional(),
  seconds: z.number().min(0),
});
export type LessonScore = z.infer<typeof LessonScore>;

export const scoreFile = (id: string) => join(ROOT, SCORES_DIR, `${id}.json`);

export function saveScore(s: LessonScore): void {
  mkdirSync(join(ROOT, SCORES_DIR), { recursive: true });
  writeFileSync(scoreFile(s.lesson), `${JSON.stringify(LessonScore.parse(s), null, 2)}\n`);
}

/** Every lesson's last score, by lesson id; a file that is not a valid score is an error that names it. */
export function loadScores(): Record<string, LessonScore> {
  const dir = join(ROOT, SCORES_DIR);
  if (!existsSync(dir)) return {};
  const out: Record<string, LessonScore> = {};
  for (const name of readdirSync(dir).filter((n) => n.endsWith(".json")).sort()) {
    const parsed = LessonScore.safeParse(JSON.parse(readFileSync(join(dir, name), "utf8")));
    if (!parsed.success) throw new Error(`${SCORES_DIR}/${name} is not a valid score: ${parsed.error.issues.map((i) => `${i.path.join(".")}: ${i.message}`).join("; ")}`);
    if (`${parsed.data.lesson}.json` !== name) throw new Error(`${SCORES_DIR}/${name} holds the score of ${parsed.data.lesson}`);
    out[parsed.data.lesson] = parsed.data;
  }
  return out;
}

// ── What a sweep measured ──────────────────────────────────────────────────────────────────────

const IMPORT = /(?:\bfrom\s*|\bimport\s*\(\s*|\bimport\s+)["'](\.{1,2}\/[^"']+)["']/g;
const LESSON_LOAD = /loadLesson(?:<[^>]*>)?\(\s*["'](s\d\d_[a-z_]+)["']/g;

/**
 * The files a lesson's sweep runs, relative to the root and sorted: its test file, every file of
 * its solution, and every course file those import (relative imports, followed to the end;
 * node_modules left out, as the lockfile fixes them; another lesson's scripted scenarios left out),
 * with the solutions a test loads by name (loadLesson("sNN_…")) and the sweep's own vitest
 * configuration.
 */
export function measuredFiles(id: string): string[] {
  const lesson = findLesson(id);
  if (!lesson) throw new Error(`no lesson ${id}`);
  const seen = new Set<string>();
  const queue: string[] = [];
  const add = (abs: string) => {
    const rel = relative(ROOT, abs);
    if (rel.startsWith("..") || rel.includes("node_modules") || seen.has(rel) || !existsSync(abs)) return;
    // Another lesson's scripted scenarios are reached only through the scenario index: data for that lesson's runs.
    const scenario = /^runtime\/scripted\/scenarios\/(s\d\d)_/.exec(rel);
    if (scenario && scenario[1] !== id) return;
    seen.add(rel);
    queue.push(abs);
  };
  const addLesson = (dir: string) => {
    const sol = join(ROOT, "solutions", dir);
    if (existsSync(sol)) for (const f of readdirSync(sol).sort()) add(join(sol, f));
  };
  add(join(ROOT, "tests", `${lesson.dir}.test.ts`));
  add(join(ROOT, "scripts", "mutation", "vitest.config.ts"));
  addLesson(lesson.dir);
  while (queue.length > 0) {
    const abs = queue.shift()!;
    if (!/\.[cm]?[jt]s$/.test(abs)) continue;
    const text = readFileSync(abs, "utf8");
    for (const m of text.matchAll(IMPORT)) {
      const target = resolve(dirname(abs), m[1]!);
      const candidates = [target, `${target}.ts`, target.replace(/\.js$/, ".ts"), join(target, "index.ts")];
      const found = candidates.find((c) => existsSync(c) && !c.endsWith("/") && readdirSafe(c));
      if (found) add(found);
    }
    for (const m of text.matchAll(LESSON_LOAD)) addLesson(m[1]!);
  }
  return [...seen].sort();
}

const readdirSafe = (p: string) => {
  try {
    readFileSync(p);
    return true;
  } catch {
    return false;
  }
};

/** The sha256 of the measured files (each one's path and content, in order). */
export function measure(id: string): { sha256: string; files: string[] } {
  const files = measuredFiles(id);
  const hash = createHash("sha256");
  for (const f of files) hash.update(`${f}\0`).update(readFileSync(join(ROOT, f))).update("\0");
  return { sha256: hash.digest("hex"), files };
}

/** Why a score no longer describes the code (undefined when it still does). */
export function staleness(s: LessonScore, now = measure(s.lesson)): string | undefined {
  if (!s.measured || !s.survivors) return "swept before the score recorded what it measured";
  if (s.measured.sha256 === now.sha256) return undefined;
  const was = new Set(s.measured.files);
  const added = now.files.filter((f) => !was.has(f));
  const gone = s.measured.files.filter((f) => !now.files.includes(f));
  return `the files it measured changed since the sweep${added.length ? ` (new: ${added.join(", ")})` : ""}${gone.length ? ` (gone: ${gone.join(", ")})` : ""}`;
}

// ── The percentages, computed ──────────────────────────────────────────────────────────────────

/** Does this equivalent entry name this survivor (one mutant: file, place, mutator, replacement)? */
export const names = (e: Pick<Equivalent, "file" | "at" | "mutator" | "replacement">, m: Pick<Survivor, "file" | "at" | "mutator" | "replacement">) =>
  e.file === m.file && e.at === m.at && e.mutator === m.mutator && e.replacement === m.replacement;

export interface Computed {
  lesson: string;
  stale?: string;
  typeErrors: number;
  mutants: number;
  killed: number;
  survived: number;
  equivalent: number;
  /** Survivors no entry of equivalent.yaml names: each needs a test. */
  unexplained: Survivor[];
  score: number;
  net: number;
}

/** The score and net score of a sweep, from its counts and survivors and the equivalent list as it is now. */
export function compute(s: LessonScore, equivalents: Equivalent[], stale = staleness(s)): Computed {
  const survivors = s.survivors ?? [];
  const unexplained = survivors.filter((m) => !equivalents.some((e) => names(e, m)));
  const equivalent = survivors.length - unexplained.length;
  const real = s.mutants - equivalent;
  return {
    lesson: s.lesson,
    ...(stale ? { stale } : {}),
    typeErrors: s.typeErrors,
    mutants: s.mutants,
    killed: s.killed,
    survived: s.survived,
    equivalent,
    unexplained,
    // No mutant that compiled: nothing was measured, and a score of 100 % would say the opposite.
    score: s.mutants ? s.killed / s.mutants : Number.NaN,
    net: real ? s.killed / real : Number.NaN,
  };
}

export const pct = (n: number) => (Number.isNaN(n) ? "— (no mutant compiled)" : `${(Math.floor(n * 1000) / 10).toFixed(1)} %`);
export const resweep = (id: string) => `npm run mutation -- ${id}`;

/** One line for verify's summary: the lesson's last sweep, or how to run one. */
export function scoreLine(id: string, s: Computed | undefined, date?: string): string {
  if (!s) return `mutation sweep: not run yet (${resweep(id)})`;
  if (s.stale) return `mutation sweep: stale, ${s.stale} (re-sweep: ${resweep(id)})`;
  const left = s.unexplained.length;
  return `mutation sweep${date ? ` (${date})` : ""}: ${s.killed}/${s.mutants} killed, ${s.equivalent} equivalent listed, net ${pct(s.net)}${left > 0 ? `, ${left} survivor(s) without a test` : ""}`;
}

/** The table, as Markdown (the reliability page has it, in English and Chinese). */
export function table(scores: Computed[], lang: "en" | "zh" = "en"): string {
  const head =
    lang === "en"
      ? "| lesson | dropped by the type checker | mutants | killed | survived | equivalent | score | net score |"
      : "| 课 | 被类型检查去掉 | 变异体 | 杀死 | 存活 | 等价 | 分数 | 净分数 |";
  const rows = scores.map((s) =>
    s.stale
      ? `| ${s.lesson} | — | — | — | — | — | — | ${lang === "en" ? "stale" : "已过期"} (re-sweep: ${resweep(s.lesson)}) |`
      : `| ${s.lesson} | ${s.typeErrors} | ${s.mutants} | ${s.killed} | ${s.survived} | ${s.equivalent} | ${pct(s.score)} | ${pct(s.net)} |`,
  );
  return [head, "|---|---:|---:|---:|---:|---:|---:|---:|", ...rows].join("\n");
}

/** The block between the markers: the table, and the lessons not swept yet. */
export function docsBlock(scores: LessonScore[], equivalents: Record<string, Equivalent[]>, lang: "en" | "zh"): string {
  const fresh = scores.filter((s) => !staleness(s));
  const dates = [...new Set(fresh.map((s) => s.date))].sort();
  const when = dates.length === 0 ? "" : dates.length === 1 ? dates[0]! : `${dates[0]} … ${dates.at(-1)}`;
  const said = lang === "en" ? `_${when}${when ? ", " : ""}\`npm run mutation\` (${SCORES_DIR}/):_` : `_${when}${when ? "，" : ""}\`npm run mutation\`（${SCORES_DIR}/）：_`;
  const missing = LESSONS.map((l) => l.id).filter((id) => !scores.some((s) => s.lesson === id));
  const rest = missing.length === 0 ? "" : lang === "en" ? `\n\nNot swept yet: ${missing.join(", ")}.` : `\n\n尚未测过：${missing.join("、")}。`;
  const rows = [...scores].sort((a, b) => a.lesson.localeCompare(b.lesson)).map((s) => compute(s, equivalents[s.lesson] ?? []));
  return `<!-- mutation:start -->\n\n${said}\n\n${table(rows, lang)}${rest}\n\n<!-- mutation:end -->`;
}
