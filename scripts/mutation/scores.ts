/**
 * The mutation sweep's scores, one file per lesson under tests/mutation/scores/ (committed: the
 * reliability page's table and `npm run verify`'s summary read them on any clone). Written by
 * `npm run mutation -- sNN` after each lesson's sweep.
 */
import { existsSync, mkdirSync, readFileSync, readdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { z } from "zod";
import { LESSONS } from "../../runtime/manifest.ts";
import { ROOT } from "../lib/paths.ts";

export const SCORES_DIR = "tests/mutation/scores";

export const LessonScore = z.object({
  lesson: z.string().regex(/^s\d\d$/),
  /** The day of the sweep (YYYY-MM-DD). */
  date: z.string().regex(/^\d{4}-\d\d-\d\d$/),
  /** Mutants the TypeScript checker dropped before any test ran (not counted in the score). */
  typeErrors: z.number().int().min(0),
  /** Mutants that type-check: the ones the tests must kill. */
  mutants: z.number().int().min(0),
  killed: z.number().int().min(0),
  survived: z.number().int().min(0),
  equivalent: z.number().int().min(0),
  /** Survivors not listed as equivalent: each needs a test. */
  unexplained: z.array(z.object({ file: z.string(), line: z.number().int(), mutator: z.string(), replacement: z.string(), code: z.string() })),
  score: z.number().min(0).max(1),
  net: z.number().min(0).max(1),
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

export const pct = (n: number) => `${(Math.floor(n * 1000) / 10).toFixed(1)} %`;

/** One line for verify's summary: the lesson's last sweep, or how to run one. */
export function scoreLine(id: string, s: LessonScore | undefined): string {
  if (!s) return `mutation sweep: not run yet (npm run mutation -- ${id})`;
  const left = s.unexplained.length;
  return `mutation sweep (${s.date}): ${s.killed}/${s.mutants} killed, ${s.equivalent} equivalent listed, net ${pct(s.net)}${left > 0 ? `, ${left} survivor(s) without a test` : ""}`;
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

/** The block between the markers: the table, and the lessons not swept yet. */
export function docsBlock(scores: LessonScore[], lang: "en" | "zh"): string {
  const dates = [...new Set(scores.map((s) => s.date))].sort();
  const when = dates.length === 0 ? "" : dates.length === 1 ? dates[0]! : `${dates[0]} … ${dates.at(-1)}`;
  const said = lang === "en" ? `_${when}, \`npm run mutation\` (${SCORES_DIR}/):_` : `_${when}，\`npm run mutation\`（${SCORES_DIR}/）：_`;
  const missing = LESSONS.map((l) => l.id).filter((id) => !scores.some((s) => s.lesson === id));
  const rest = missing.length === 0 ? "" : lang === "en" ? `\n\nNot swept yet: ${missing.join(", ")}.` : `\n\n尚未测过：${missing.join("、")}。`;
  return `<!-- mutation:start -->\n\n${said}\n\n${table(scores, lang)}${rest}\n\n<!-- mutation:end -->`;
}

