/**
 * What the commands print: a check's verdict (first broken rule first), hints, the lesson list.
 * Shared by the one-shot commands and watch mode, so both say the same thing the same way.
 */
import { existsSync } from "node:fs";
import { LESSONS, type Lesson } from "../../runtime/manifest.ts";
import { bold, dim, green, red, yellow } from "../../runtime/print.ts";
import { courseLang, ruleWords, say } from "../../runtime/rules.ts";
import { explain, type Grade } from "./grade.ts";
import { exerciseDir } from "./paths.ts";
import { cachedGrade, cachedResult, loadState } from "./state.ts";
import type { LessonState, LessonStatus } from "./progress.ts";

/** Done by the checks run so far (a lesson never checked is not done). */
const doneByChecks = (lesson: Lesson) => existsSync(exerciseDir(lesson)) && cachedResult(loadState(), lesson) === true;

/**
 * The lesson to do after `passed`: the first one, in order, that is not done. `check` and `watch`
 * both say it, in the same words (nextLine): one rule, so they never point to different lessons.
 */
export function nextToDo(passed: Lesson, isDone: (l: Lesson) => boolean = doneByChecks, lessons: readonly Lesson[] = LESSONS): Lesson | undefined {
  return lessons.find((l) => l.id !== passed.id && !isDone(l));
}

/** "Next: s02 · Tool dispatch (lessons/s02_tool_dispatch/agent.ts)" */
export function nextLine(next: Lesson): string {
  return `Next: ${next.id} · ${next.title} (lessons/${next.dir}/${next.entry})`;
}

/** The verdict of one check; `watch` leaves out the "run check again" advice. */
export function checkReport(lesson: Lesson, grade: Grade, { watch = false } = {}): string[] {
  if (grade.ok) {
    const next = nextToDo(lesson);
    return [green(`✓ ${lesson.id} · ${lesson.title}: all ${grade.total} tests pass.`), next ? nextLine(next) : "Every lesson passes."];
  }
  // Every test may pass while the check still fails (a type error): the header says which.
  const allPass = grade.total > 0 && grade.passed === grade.total;
  const why = grade.failures[0]?.kind === "types" ? "but the files do not type-check" : "but the check found a problem";
  const counts = grade.total === 0 ? "" : allPass ? `: all ${grade.total} tests pass, ${why}` : ` (${grade.passed} of ${grade.total} tests pass)`;
  const lines = [red(`✗ ${lesson.id} · ${lesson.title} is not done yet${counts}.`), ""];
  lines.push(...explain(lesson, grade));
  const others = grade.failures.slice(1).filter((f) => f.kind !== "load");
  if (others.length > 0) {
    lines.push("", dim(`Also failing (${others.length}):`));
    const first = grade.failures[0];
    for (const f of others.slice(0, 6))
      lines.push(dim(`  ✗ ${f.test}${first && f.kind === first.kind && f.message === first.message ? " (the same)" : ""}`));
    if (others.length > 6) lines.push(dim(`  … and ${others.length - 6} more`));
  }
  lines.push("");
  if (watch) lines.push(dim("Save your file to check again."));
  else
    lines.push(
      dim(`Fix it, save, and run \`npm run check ${lesson.id}\` again · stuck? \`npm run hint ${lesson.id}\` · the runner's full output: \`npm run check ${lesson.id} -- --verbose\``),
    );
  return lines;
}

/**
 * Hint 1 (guiding questions), or hints 1 and 2 (closer to the code). Each says what the next ask
 * gives: after the first, a stronger hint; after the second, there is only the reference.
 */
export function hintLines(lesson: Lesson, level: 1 | 2, { watch = false } = {}): string[] {
  const lines = [bold(`Hint for ${lesson.id} · ${lesson.title}`), `  ${lesson.hints[0]}`];
  if (level === 2)
    lines.push(
      "",
      bold("A stronger hint (closer to the code):"),
      `  ${lesson.hints[1]}`,
      "",
      dim(`That was the last hint: asking again shows these two. Still stuck? \`npm run solution ${lesson.id}\` shows the reference.`),
    );
  else
    lines.push(
      "",
      dim(
        watch
          ? "Need more? Press h again: the next hint is stronger, closer to the code."
          : `Need more? Run \`npm run hint ${lesson.id}\` again (or \`npm run hint ${lesson.id} -- --more\`): the next hint is stronger, closer to the code.`,
      ),
    );
  lines.push(...ruleHint(lesson));
  return lines;
}

/** The rule the last check of this lesson broke, from the rule catalog (runtime/rules.ts). */
function ruleHint(lesson: Lesson): string[] {
  let rule;
  try {
    rule = cachedGrade(loadState(), lesson)?.failures[0]?.rule;
  } catch {
    return []; // the lesson's files are gone: no last check to speak of
  }
  if (!rule) return [];
  const lang = courseLang();
  const w = ruleWords(rule, lang);
  const lines = ["", bold(say({ en: `The rule your last check broke [${rule}]:`, zh: `上次检查违反的规则 [${rule}]：`, ja: `前回のチェックで破られたルール [${rule}]：`, ru: `Правило, нарушенное при последней проверке [${rule}]:` }, lang)), `  ${w.what}`, `  ${w.fix}`];
  // The net compares your loop with the reference: running the reference shows what it does.
  if (rule.startsWith("net-"))
    lines.push(
      say(
        {
          en: `  The reference's run of the same task: \`npm run lesson ${lesson.id} -- --solution\` (offline, the same model answers).`,
          zh: `  参考答案在同一任务上的运行：\`npm run lesson ${lesson.id} -- --solution\`（离线时模型相同）。`,
          ja: `  同じタスクでの参考解答の実行：\`npm run lesson ${lesson.id} -- --solution\`（オフラインではモデルの答えも同じ）。`,
          ru: `  Прогон эталона на той же задаче: \`npm run lesson ${lesson.id} -- --solution\` (офлайн ответы модели те же).`,
        },
        lang,
      ),
    );
  return lines;
}

const MARK: Record<LessonState, string> = {
  done: green("✓ done       "),
  current: yellow("▶ current    "),
  "in progress": "… in progress",
  "not started": dim("· not started"),
  missing: red("✗ missing    "),
};

export function listLines(all: LessonStatus[]): string[] {
  const done = all.filter((s) => s.state === "done").length;
  const lines = all.map(({ lesson, state }) => `  ${MARK[state]}  ${lesson.id}  ${lesson.title}${state === "missing" ? red(`  (lessons/${lesson.dir} is gone: \`npm run reset ${lesson.id}\`)`) : ""}`);
  lines.push("", `${done} of ${all.length} lessons done.${done === all.length ? " 🎉" : ""}`);
  return lines;
}
