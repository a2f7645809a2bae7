/**
 * What the commands print: a check's verdict (first broken rule first), hints, the lesson list.
 * Shared by the one-shot commands and watch mode, so both say the same thing the same way.
 */
import { existsSync } from "node:fs";
import { LESSONS, type Lesson } from "../../runtime/manifest.ts";
import { bold, dim, green, red, yellow } from "../../runtime/print.ts";
import { courseLang, ruleWords, type Lang } from "../../runtime/rules.ts";
import { inEvery, lessonTitle, word, type WordId } from "../../runtime/words.ts";
import { explain, type Grade } from "./grade.ts";
import { lessonHints } from "./hints.ts";
import { exerciseDir } from "./paths.ts";
import { cachedGrade, cachedResult, loadState } from "./state.ts";
import type { LessonState, LessonStatus } from "./progress.ts";

/** The words of this view in the learner's language. */
const t = (words: Record<Lang, string>) => inEvery(words);

/** Done by the checks run so far (a lesson never checked is not done). */
const doneByChecks = (lesson: Lesson) => existsSync(exerciseDir(lesson)) && cachedResult(loadState(), lesson) === true;

/**
 * The lesson to do after `passed`: the first one, in order, that is not done. `check` and `watch`
 * both say it, in the same words (nextLine): one rule, so they never point to different lessons.
 */
export function nextToDo(passed: Lesson, isDone: (l: Lesson) => boolean = doneByChecks, lessons: readonly Lesson[] = LESSONS): Lesson | undefined {
  return lessons.find((l) => l.id !== passed.id && !isDone(l));
}

/** "Next: s02 · Tool dispatch (lessons/s02_tool_dispatch/agent.ts)", in the learner's language. */
export function nextLine(next: Lesson): string {
  return word("check.next", { id: next.id, title: lessonTitle(next), path: `lessons/${next.dir}/${next.entry}` });
}

/** The verdict of one check; `watch` leaves out the "run check again" advice. */
export function checkReport(lesson: Lesson, grade: Grade, { watch = false } = {}): string[] {
  const title = lessonTitle(lesson);
  if (grade.ok) {
    const next = nextToDo(lesson);
    return [
      green(t({ en: `✓ ${lesson.id} · ${title}: all ${grade.total} tests pass.`, zh: `✓ ${lesson.id} · ${title}：全部 ${grade.total} 个测试通过。`, ja: `✓ ${lesson.id} · ${title}：${grade.total} 件のテストすべてに合格しました。`, ru: `✓ ${lesson.id} · ${title}: все тесты (${grade.total}) проходят.` })),
      next ? nextLine(next) : t({ en: "Every lesson passes.", zh: "每一课都通过了。", ja: "すべてのレッスンに合格しました。", ru: "Все уроки пройдены." }),
    ];
  }
  // Every test may pass while the check still fails (a type error): the header says which.
  const allPass = grade.total > 0 && grade.passed === grade.total;
  const types = grade.failures[0]?.kind === "types";
  const n = grade.total;
  const counts =
    n === 0
      ? { en: "", zh: "", ja: "", ru: "" }
      : allPass
        ? {
            en: `: all ${n} tests pass, ${types ? "but the files do not type-check" : "but the check found a problem"}`,
            zh: `：全部 ${n} 个测试通过，${types ? "但文件没有通过类型检查" : "但检查发现了问题"}`,
            ja: `：${n} 件のテストはすべて合格ですが、${types ? "ファイルが型チェックを通りません" : "チェックが問題を見つけました"}`,
            ru: `: все тесты (${n}) проходят, ${types ? "но файлы не проходят проверку типов" : "но проверка нашла проблему"}`,
          }
        : { en: ` (${grade.passed} of ${n} tests pass)`, zh: `（${n} 个测试中通过 ${grade.passed} 个）`, ja: `（${n} 件中 ${grade.passed} 件のテストに合格）`, ru: ` (проходит ${grade.passed} из ${n} тестов)` };
  const lines = [
    red(
      t({
        en: `✗ ${lesson.id} · ${title} is not done yet${counts.en}.`,
        zh: `✗ ${lesson.id} · ${title} 还没有完成${counts.zh}。`,
        ja: `✗ ${lesson.id} · ${title} はまだ完成していません${counts.ja}。`,
        ru: `✗ ${lesson.id} · ${title}: ещё не готово${counts.ru}.`,
      }),
    ),
    "",
  ];
  lines.push(...explain(lesson, grade));
  const others = grade.failures.slice(1).filter((f) => f.kind !== "load");
  if (others.length > 0) {
    lines.push("", dim(t({ en: `Also failing (${others.length}):`, zh: `另外还有失败（${others.length}）：`, ja: `ほかにも失敗しています（${others.length}）：`, ru: `Также не проходят (${others.length}):` })));
    const first = grade.failures[0];
    for (const f of others.slice(0, 6))
      lines.push(dim(`  ✗ ${f.test}${first && f.kind === first.kind && f.message === first.message ? t({ en: " (the same)", zh: "（同上）", ja: "（同じ）", ru: " (то же)" }) : ""}`));
    if (others.length > 6) lines.push(dim(t({ en: `  … and ${others.length - 6} more`, zh: `  ……还有 ${others.length - 6} 个`, ja: `  …ほか ${others.length - 6} 件`, ru: `  … и ещё ${others.length - 6}` })));
  }
  lines.push("");
  if (watch) lines.push(dim(t({ en: "Save your file to check again.", zh: "保存文件即可再次检查。", ja: "ファイルを保存すると、もう一度チェックします。", ru: "Сохраните файл, чтобы проверить снова." })));
  else
    lines.push(
      dim(
        t({
          en: `Fix it, save, and run \`npm run check ${lesson.id}\` again · stuck? \`npm run hint ${lesson.id}\` · the runner's full output: \`npm run check ${lesson.id} -- --verbose\``,
          zh: `改好、保存，再运行 \`npm run check ${lesson.id}\` · 卡住了？\`npm run hint ${lesson.id}\` · 测试运行器的完整输出：\`npm run check ${lesson.id} -- --verbose\``,
          ja: `直して保存し、もう一度 \`npm run check ${lesson.id}\` を実行 · 行き詰まったら \`npm run hint ${lesson.id}\` · テストランナーの全出力：\`npm run check ${lesson.id} -- --verbose\``,
          ru: `Исправьте, сохраните и снова запустите \`npm run check ${lesson.id}\` · застряли? \`npm run hint ${lesson.id}\` · полный вывод: \`npm run check ${lesson.id} -- --verbose\``,
        }),
      ),
    );
  return lines;
}

/**
 * Hint 1 (guiding questions), or hints 1 and 2 (closer to the code). Each says what the next ask
 * gives: after the first, a stronger hint; after the second, there is only the reference.
 */
export function hintLines(lesson: Lesson, level: 1 | 2, { watch = false } = {}): string[] {
  const title = lessonTitle(lesson);
  const hints = lessonHints(lesson);
  const lines = [bold(t({ en: `Hint for ${lesson.id} · ${title}`, zh: `${lesson.id} · ${title} 的提示`, ja: `${lesson.id} · ${title} のヒント`, ru: `Подсказка к ${lesson.id} · ${title}` })), `  ${hints[0]}`];
  if (level === 2)
    lines.push(
      "",
      bold(t({ en: "A stronger hint (closer to the code):", zh: "更强的提示（更接近代码）：", ja: "もっと強いヒント（コードに近い）：", ru: "Подсказка посильнее (ближе к коду):" })),
      `  ${hints[1]}`,
      "",
      dim(
        t({
          en: `That was the last hint: asking again shows these two. Still stuck? \`npm run solution ${lesson.id}\` shows the reference.`,
          zh: `这是最后一条提示：再问会显示这两条。还是卡住？\`npm run solution ${lesson.id}\` 会显示参考答案。`,
          ja: `これが最後のヒントです。もう一度尋ねるとこの 2 つが表示されます。まだ行き詰まっていますか？ \`npm run solution ${lesson.id}\` で参考解答が見られます。`,
          ru: `Это была последняя подсказка: при повторном запросе будут показаны эти две. Всё ещё не выходит? \`npm run solution ${lesson.id}\` покажет эталон.`,
        }),
      ),
    );
  else
    lines.push(
      "",
      dim(
        watch
          ? t({ en: "Need more? Press h again: the next hint is stronger, closer to the code.", zh: "还需要？再按一次 h：下一条提示更强，更接近代码。", ja: "まだ必要ですか？もう一度 h を押すと、次のヒントはもっと強く、コードに近くなります。", ru: "Нужно больше? Нажмите h ещё раз: следующая подсказка сильнее, ближе к коду." })
          : t({
              en: `Need more? Run \`npm run hint ${lesson.id}\` again (or \`npm run hint ${lesson.id} -- --more\`): the next hint is stronger, closer to the code.`,
              zh: `还需要？再运行一次 \`npm run hint ${lesson.id}\`（或 \`npm run hint ${lesson.id} -- --more\`）：下一条提示更强，更接近代码。`,
              ja: `まだ必要ですか？もう一度 \`npm run hint ${lesson.id}\`（または \`npm run hint ${lesson.id} -- --more\`）を実行すると、次のヒントはもっと強く、コードに近くなります。`,
              ru: `Нужно больше? Запустите \`npm run hint ${lesson.id}\` ещё раз (или \`npm run hint ${lesson.id} -- --more\`): следующая подсказка сильнее, ближе к коду.`,
            }),
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
  const lines = ["", bold(inEvery({ en: `The rule your last check broke [${rule}]:`, zh: `上次检查违反的规则 [${rule}]：`, ja: `前回のチェックで破られたルール [${rule}]：`, ru: `Правило, нарушенное при последней проверке [${rule}]:` }, lang)), `  ${w.what}`, `  ${w.fix}`];
  // The net compares your loop with the reference: running the reference shows what it does.
  if (rule.startsWith("net-"))
    lines.push(
      inEvery(
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

/** Each state's mark and word in the list, and the colour it is printed in. */
const MARK: Record<LessonState, [string, WordId, (s: string) => string]> = {
  done: ["✓", "list.done", green],
  current: ["▶", "list.current", yellow],
  "in progress": ["…", "list.in-progress", (s) => s],
  "not started": ["·", "list.not-started", dim],
  missing: ["✗", "list.missing", red],
};

/** How many columns a text takes in a terminal: a wide (CJK, full-width) character takes two. */
export function displayWidth(text: string): number {
  let width = 0;
  for (const ch of text) width += /[\u1100-\u115f\u2e80-\ua4cf\uac00-\ud7a3\uf900-\ufaff\ufe30-\ufe4f\uff00-\uff60\uffe0-\uffe6]/u.test(ch) ? 2 : 1;
  return width;
}

/** A test's name on one line of the list: its last part (after "›"), at most 70 columns. */
const clipTitle = (test: string) => {
  const t = (test.split(" › ").pop() ?? test).replace(/\s+/g, " ").trim();
  return t.length > 70 ? `${t.slice(0, 69)}…` : t;
};

export function listLines(all: LessonStatus[]): string[] {
  const done = all.filter((s) => s.state === "done").length;
  // The marks in one column whatever the language: each padded to the widest word.
  const marks = Object.fromEntries(Object.entries(MARK).map(([state, [sign, id]]) => [state, `${sign} ${word(id)}`])) as Record<LessonState, string>;
  const width = Math.max(...Object.values(marks).map(displayWidth));
  const mark = (state: LessonState) => MARK[state][2](marks[state] + " ".repeat(width - displayWidth(marks[state])));
  // A lesson begun and not done: its tests passing, and the first that fails (`npm run check sNN` says why).
  const where = (p: LessonStatus["progress"]) => (p ? dim(`  ${p.passed}/${p.total}${p.failing ? ` · ✗ ${clipTitle(p.failing)}` : ""}`) : "");
  const lines = all.map(({ lesson, state, progress }) => `  ${mark(state)}  ${lesson.id}  ${lessonTitle(lesson)}${state === "missing" ? red(`  ${word("list.gone", { dir: lesson.dir, id: lesson.id })}`) : where(progress)}`);
  lines.push("", `${word("list.summary", { done, total: all.length })}${done === all.length ? " 🎉" : ""}`);
  return lines;
}
