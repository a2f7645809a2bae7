/**
 * What every lesson page gets without its author doing anything, and the checks that keep the
 * site whole. Used by docs/.vitepress/config.ts at build time.
 *
 * - `lessonPagesPlugin`: a markdown-it rule. On a lesson page (docs/lessons/sNN_slug.md or
 *   docs/<lang>/lessons/sNN_slug.md, zh ja ru) it replaces a line `<LessonDiff id="sNN" />` with the diff
 *   generated from the two solutions, and, when the page does not place them itself, appends
 *   "What changed since the previous lesson" and "A recorded run" (the transcript viewer).
 * - `missingLessonPages`: every lesson in the manifest needs its page in every language of the site; the
 *   build warns naming the missing files and the browser test (`npm run test:e2e`) fails.
 */
import { existsSync, readFileSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { baseOf, type Lesson } from "../../runtime/manifest.ts";
import { diffMarkdown, lessonDiff, type Lang } from "./diff.ts";
import { LANG_PREFIX, SITE_LANGS, langDir, langOfPath } from "../../docs/.vitepress/theme/langs.ts";
import { diagramFor } from "../../docs/.vitepress/theme/diagrams.ts";
import { registrationOf } from "../../runtime/registrations.ts";
import { rowsOf } from "../../docs/.vitepress/theme/player.ts";
import type { FailedRecording, RecordedTranscript } from "../../docs/.vitepress/theme/transcript.ts";
import { messageTableHtml, renderMessageBlocks, type TableRow } from "./message-table.ts";
import { exerciseHasRegion, exercisePath, findRegion, isAnswer, parseImport, type CodeImport } from "./regions.ts";

/** The page files of a lesson, one per language of the site, relative to the repository root. */
export function lessonPagePaths(lesson: Lesson): Record<Lang, string> {
  return Object.fromEntries(SITE_LANGS.map((l) => [l, `docs/${langDir(l)}lessons/${lesson.dir}.md`])) as Record<Lang, string>;
}

/** Page files the manifest needs and the docs lack, relative to the repository root. */
export function missingLessonPages(root: string, lessons: Lesson[]): string[] {
  return lessons.flatMap((l) => Object.values(lessonPagePaths(l)).filter((p) => !existsSync(join(root, p))));
}

export function missingPagesMessage(missing: string[]): string {
  return (
    `docs: ${missing.length} lesson page(s) listed in runtime/manifest.ts are missing:\n` +
    missing.map((m) => `  - ${m}`).join("\n") +
    `\nEvery lesson has a page in every language of the site: ${SITE_LANGS.join(", ")} (docs/guide/contributing.md, "The docs page"). ` +
    `The site builds without them (the lesson is left out of that sidebar), but \`npm run test:e2e\` and CI fail until they exist.`
  );
}

const LESSON_PAGE = new RegExp(`^${LANG_PREFIX}lessons/(s\\d+_[a-z0-9_]+)\\.md$`);
const DIFF_TAG = /^\s*<LessonDiff\s+id="([^"]+)"\s*\/>\s*$/;
const VIEWER_TAG = /<TranscriptViewer\b/;
const PLAYER_TAG = /<LessonPlayer\b/;
const PICTURE_TAG = /<(IdeaDiagram|LoopDiagram)\b/;

/** The lesson's picture (diagrams.ts) under the page's first paragraph of prose. */
function withPicture(src: string, dir: string): string {
  const lines = src.split("\n");
  const h1 = lines.findIndex((l) => /^#\s/.test(l));
  let i = h1 + 1;
  while (i < lines.length && !/^[^\s<`|#:>-]/.test(lines[i]!)) i++; // the first line of prose
  while (i < lines.length && lines[i]!.trim() !== "") i++; // the end of its paragraph
  lines.splice(i, 0, "", `<IdeaDiagram lesson="${dir}" />`);
  return lines.join("\n");
}

const HEADINGS: Record<Lang, { diff: (prev: string) => string; firstDiff: string; run: string; playerIntro: string; runIntro: string }> = {
  en: {
    diff: (prev) => `What changed since ${prev}`,
    firstDiff: "What changed since the previous lesson",
    run: "A recorded run",
    playerIntro:
      "The reference solution, run against its scripted scenario when this site was built, replayed request by request: the loop's stage lit on the left, `messages[]` growing on the right. Click in the player and use ← → to step, space to play. Open your own run (`.course/runs/*.jsonl`) to replay it the same way.",
    runIntro:
      "Every message of the same run in full, in order, each `tool_use` linked to its `tool_result` by id (hover one to light up the other). You can open the transcript of your own run here too.",
  },
  zh: {
    diff: (prev) => `与 ${prev} 相比的变化`,
    firstDiff: "与上一课相比的变化",
    run: "一次真实运行的记录",
    playerIntro:
      "参考答案在本站构建时针对其脚本场景实际运行，这里按请求逐步回放：左边亮起循环当前所在的步骤，右边的 `messages[]` 一条条增长。点一下播放器，用 ← → 单步，空格播放。也可以打开你自己的运行记录（`.course/runs/*.jsonl`），用同样的方式回放。",
    runIntro:
      "同一次运行的全部消息，按顺序完整列出，每个 `tool_use` 都按 id 与它的 `tool_result` 相连（鼠标悬停其中一个，另一个会高亮）。你也可以在这里打开自己运行得到的记录。",
  },
  ja: {
    diff: (prev) => `${prev} からの変更`,
    firstDiff: "前のレッスンからの変更",
    run: "記録された実行",
    playerIntro:
      "このサイトのビルド時に参考解答をそのシナリオで実際に動かした記録を、リクエストごとに再生します：左ではループのいまの段階が光り、右では `messages[]` が伸びていきます。プレーヤーをクリックし、← → で一歩ずつ、スペースで再生。自分の実行（`.course/runs/*.jsonl`）を開けば、同じように再生できます。",
    runIntro:
      "同じ実行のすべてのメッセージを順に全文で示します。各 `tool_use` は id で `tool_result` とつながっています（一方にマウスを乗せるともう一方が光ります）。自分の実行のトランスクリプトもここで開けます。",
  },
  ru: {
    diff: (prev) => `Что изменилось после ${prev}`,
    firstDiff: "Что изменилось после предыдущего урока",
    run: "Записанный запуск",
    playerIntro:
      "Эталонное решение, запущенное на своём сценарии при сборке сайта, воспроизводится запрос за запросом: слева подсвечен этап цикла, справа растёт `messages[]`. Щёлкните по плееру: ← → — шаг, пробел — воспроизведение. Откройте свой запуск (`.course/runs/*.jsonl`), чтобы воспроизвести его так же.",
    runIntro:
      "Все сообщения того же запуска целиком и по порядку; каждый `tool_use` связан со своим `tool_result` по id (наведите на один — подсветится другой). Здесь можно открыть и запись своего запуска.",
  },
};

export const CODE_WORDS: Record<Lang, { lines: (a: number, b: number) => string; exercise: string; show: string; yourTurn: string; folded: string }> = {
  en: {
    lines: (a, b) => (a === b ? `line ${a}` : `lines ${a}–${b}`),
    exercise: "your exercise: the TODOs are yours to write",
    show: "Show the reference solution",
    yourTurn: "Your turn",
    folded: "Try the exercise first: this is the code the tests accept, folded until you open it.",
  },
  zh: {
    lines: (a, b) => (a === b ? `第 ${a} 行` : `第 ${a}–${b} 行`),
    exercise: "你的练习：TODO 由你来写",
    show: "查看参考答案",
    yourTurn: "轮到你了",
    folded: "先自己做练习：下面是能通过测试的参考代码，点开才会显示。",
  },
  ja: {
    lines: (a, b) => (a === b ? `${a} 行目` : `${a}–${b} 行目`),
    exercise: "あなたの演習：TODO はあなたが書きます",
    show: "参考解答を見る",
    yourTurn: "やってみよう",
    folded: "まず演習に取り組んでください：これはテストが通るコードで、開くまでたたまれています。",
  },
  ru: {
    lines: (a, b) => (a === b ? `строка ${a}` : `строки ${a}–${b}`),
    exercise: "ваше упражнение: TODO пишете вы",
    show: "Показать эталонное решение",
    yourTurn: "Ваша очередь",
    folded: "Сначала попробуйте упражнение сами: здесь код, который проходит тесты, свёрнутый, пока вы его не откроете.",
  },
};

/** The "Your turn" heading in any language of the site ("动手"/"动手做" are older names of the same section). */
export const YOUR_TURN = /^##\s+(Your turn|轮到你了|动手做?|やってみよう|Ваша очередь)\s*(\{#[\w-]+\})?\s*$/;

const escapeHtml = (s: string) => s.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;");

/** A `<<<` import with its file name above it and the file's own line numbers. */
function codeImport(root: string, imp: CodeImport, lang: Lang, note = ""): string {
  const file = join(root, imp.path);
  const region = existsSync(file) ? findRegion(readFileSync(file, "utf8"), imp.region) : null;
  let rest = imp.rest;
  let where = "";
  if (region) {
    const count = region.lines.length;
    where = ` <span class="code-file-lines">${CODE_WORDS[lang].lines(region.first, region.first + count - 1)}</span>`;
    if (!region.nested && !rest.includes("{")) {
      const ext = /\.([a-z0-9]+)$/i.exec(imp.path)?.[1] ?? "";
      rest = `{${ext}:line-numbers=${region.first}}${rest ? ` ${rest}` : ""}`;
    }
  }
  const shown = note ? ` <span class="code-file-note">${escapeHtml(note)}</span>` : "";
  return [
    `<div class="code-file"><code>${escapeHtml(imp.path)}</code>${where}${shown}</div>`,
    "",
    `<<< @/../${imp.path}${imp.region ? `#${imp.region}` : ""}${rest}`,
    "",
  ].join("\n");
}

/** The closed block that holds an exercise's reference code. */
function foldedAnswers(root: string, imps: CodeImport[], lang: Lang): string {
  const w = CODE_WORDS[lang];
  return [
    "",
    "<!-- search:skip -->",
    "",
    '<div class="reference-solution">',
    "",
    `::: details ${w.show}`,
    w.folded,
    "",
    ...imps.map((imp) => codeImport(root, imp, lang)),
    ":::",
    "",
    "</div>",
    "",
    "<!-- /search:skip -->",
    "",
  ].join("\n");
}

/**
 * Every `<<<` import gets its file name and line numbers. An import of an exercise's answer
 * (regions.ts) is never shown open: on a lesson page the learner's copy of the region takes its
 * place and the answer moves, folded, to the end of "Your turn" (a section is added when the page
 * has none); on any other page it is folded where it stands.
 */
export function rewriteImports(src: string, root: string, lang: Lang, lessonPage: boolean): string {
  const answers: CodeImport[] = [];
  let fence: string | null = null;
  const lines = src.split("\n").map((line) => {
    const f = /^\s*(`{3,}|~{3,})/.exec(line)?.[1];
    if (f) {
      if (fence === null) fence = f;
      else if (f[0] === fence[0] && f.length >= fence.length) fence = null;
      return line;
    }
    if (fence !== null) return line;
    const imp = parseImport(line);
    if (!imp) return line;
    if (!isAnswer(root, imp)) return codeImport(root, imp, lang);
    if (!lessonPage) return foldedAnswers(root, [imp], lang);
    answers.push(imp);
    return exerciseHasRegion(root, imp) ? codeImport(root, { ...imp, path: exercisePath(imp.path)! }, lang, CODE_WORDS[lang].exercise) : "";
  });
  if (answers.length === 0) return lines.join("\n");
  const block = foldedAnswers(root, answers, lang);
  // Outside fences, the "Your turn" heading and the next heading of the same or a higher level.
  let at = -1;
  let end = lines.length;
  fence = null;
  for (const [i, line] of lines.entries()) {
    const f = /^\s*(`{3,}|~{3,})/.exec(line)?.[1];
    if (f) {
      if (fence === null) fence = f;
      else if (f[0] === fence[0] && f.length >= fence.length) fence = null;
      continue;
    }
    if (fence !== null) continue;
    if (at < 0 && YOUR_TURN.test(line)) at = i;
    else if (at >= 0 && /^#{1,2}\s/.test(line)) {
      end = i;
      break;
    }
  }
  if (at < 0) return `${lines.join("\n").trimEnd()}\n\n## ${CODE_WORDS[lang].yourTurn} {#your-turn}\n${block}`;
  if (!/\{#[\w-]+\}\s*$/.test(lines[at]!)) lines[at] = `${lines[at]!.trimEnd()} {#your-turn}`;
  lines.splice(end, 0, block);
  return lines.join("\n");
}

const TABLE_TAG = /^\s*<RecordedTable\s*\/>\s*$/;
const TABLE_WORDS: Record<Lang, { missing: string; caption: (n: number, turns: number) => string }> = {
  en: {
    missing: "The recorded run appears here once `npm run docs:build` has recorded this lesson.",
    caption: (n, turns) => `The transcript of the recorded run below: ${n} messages, ${turns} requests.`,
  },
  zh: {
    missing: "`npm run docs:build` 记录这一课之后，这里会显示它的运行记录。",
    caption: (n, turns) => `下面这次运行记录的对话：${n} 条消息，${turns} 次请求。`,
  },
  ja: {
    missing: "`npm run docs:build` がこのレッスンを記録すると、ここに実行の記録が表示されます。",
    caption: (n, turns) => `下の記録された実行のトランスクリプト：メッセージ ${n} 件、リクエスト ${turns} 回。`,
  },
  ru: {
    missing: "Записанный запуск появится здесь, когда `npm run docs:build` запишет этот урок.",
    caption: (n, turns) => `Запись запуска ниже: сообщений — ${n}, запросов — ${turns}.`,
  },
};

/**
 * The lesson's recorded run as a table (a `<RecordedTable />` line on a lesson page), built from
 * docs/public/transcripts/<lesson>.json, so what the page says about the run is what the run did.
 * Hand-written tables (```messages blocks) are drawn by the same function (message-table.ts).
 */
export function recordedTable(root: string, dir: string, lang: Lang): string {
  const w = TABLE_WORDS[lang];
  const file = join(root, "docs/public/transcripts", `${dir}.json`);
  if (!existsSync(file)) return `> ${w.missing}\n`;
  const rec = JSON.parse(readFileSync(file, "utf8")) as RecordedTranscript | FailedRecording;
  if (rec.type !== "recorded") return `> ${w.missing}\n`;
  const rows: TableRow[] = rowsOf(rec.messages, rec.turns).map((r) => ({
    index: r.index,
    role: r.role,
    stop: r.role === "assistant" ? (r.stop ?? null) : undefined,
    last: r.usage ? `${r.usage.input_tokens ?? 0} / ${r.usage.output_tokens ?? 0}` : "",
    blocks: r.blocks.map((b) => ({ ...b, id: b.id ? `…${b.id.slice(-6)}` : undefined })),
  }));
  return `${messageTableHtml(rows, lang, { last: "tokens", caption: w.caption(rec.messages.length, rec.turns.length) })}\n`;
}

/** Finds a lesson by its id ("s02") or folder ("s02_tool_dispatch"). */
function lessonByKey(lessons: Lesson[], key: string): Lesson | undefined {
  return lessons.find((l) => l.id === key || l.dir === key);
}

const PENDING: Record<Lang, (why: string) => string> = {
  en: (why) => `::: warning The diff is not available yet\n${why}\n:::\n`,
  zh: (why) => `::: warning 差异暂时无法生成\n${why}\n:::\n`,
  ja: (why) => `::: warning 差分はまだ生成できません\n${why}\n:::\n`,
  ru: (why) => `::: warning Разница пока недоступна\n${why}\n:::\n`,
};

/**
 * The diff's markdown, or a visible note (and a build warning) when it cannot be made yet: a page
 * written before its lesson is in the manifest, or a solution folder not there yet. A lesson
 * being written never breaks the build.
 */
function safeDiff(key: string, relativePath: string, root: string, lessons: Lesson[], lang: Lang): string {
  const lesson = lessonByKey(lessons, key);
  try {
    if (!lesson) throw new Error(`${key} is not in runtime/manifest.ts yet.`);
    return diffMarkdown(lessonDiff(root, lessons, lesson.dir), lang);
  } catch (e) {
    const why = (e as Error).message.replace(/^lesson diff: /, "");
    console.warn(`docs: ${relativePath}: no lesson diff: ${why}`);
    return PENDING[lang](why);
  }
}

/**
 * Rewrites a page's markdown before it is parsed. Pure: the tests call it directly.
 * `relativePath` is the page's path under docs/ ("lessons/s02_tool_dispatch.md").
 */
export function expandLessonPage(src: string, relativePath: string, root: string, lessons: Lesson[]): string {
  const page = LESSON_PAGE.exec(relativePath.split("\\").join("/"));
  const lang: Lang = langOfPath(relativePath);

  // Replace <LessonDiff id="…" /> lines outside code fences, on any page.
  let fence: string | null = null;
  let placedDiff = false;
  const lines = renderMessageBlocks(src, lang).split("\n").map((line) => {
    const f = /^\s*(`{3,}|~{3,})/.exec(line)?.[1];
    if (f) {
      if (fence === null) fence = f;
      else if (f[0] === fence[0] && f.length >= fence.length) fence = null;
      return line;
    }
    if (fence !== null) return line;
    if (page && TABLE_TAG.test(line)) return `\n${recordedTable(root, page[2]!, lang)}\n`;
    const tag = DIFF_TAG.exec(line);
    if (!tag) return line;
    placedDiff = true;
    return `\n${safeDiff(tag[1]!, relativePath, root, lessons, lang)}\n`;
  });
  let out = rewriteImports(lines.join("\n"), root, lang, page !== null);
  if (!page) return out;

  const lesson = lessonByKey(lessons, page[2]!);
  if (!lesson) return out; // a page for a lesson not (yet) in the manifest: left as written
  if (diagramFor(lesson.dir, registrationOf(lesson.dir)?.diagram) && !PICTURE_TAG.test(src)) out = withPicture(out, lesson.dir);
  const h = HEADINGS[lang];
  if (!placedDiff) {
    const previous = baseOf(lesson, lessons);
    const heading = previous ? h.diff(previous.id) : h.firstDiff;
    out += `\n\n## ${heading} {#what-changed}\n\n${safeDiff(lesson.dir, relativePath, root, lessons, lang)}\n`;
  }
  if (!VIEWER_TAG.test(src)) {
    const player = PLAYER_TAG.test(src) ? "" : `${h.playerIntro}\n\n<LessonPlayer lesson="${lesson.dir}" />\n\n`;
    out += `\n\n## ${h.run} {#recorded-run}\n\n${player}${h.runIntro}\n\n<TranscriptViewer lesson="${lesson.dir}" />\n`;
  } else if (!PLAYER_TAG.test(src)) {
    out += `\n\n${h.playerIntro}\n\n<LessonPlayer lesson="${lesson.dir}" />\n`;
  }
  return out;
}

interface CoreState {
  src: string;
  env: { relativePath?: string } | undefined;
}
interface RulerHost {
  core: { ruler: { before(name: string, rule: string, fn: (state: CoreState) => void): void } };
}

/**
 * A markdown-it plugin that rewrites a page's markdown before it is parsed, from the page's path
 * under docs/ (the site's generated parts: lesson pages, the rules table).
 */
export function sourcePlugin(name: string, rewrite: (src: string, relativePath: string) => string) {
  return (md: RulerHost) => {
    md.core.ruler.before("normalize", name, (state) => {
      const rel = state.env?.relativePath;
      if (rel !== undefined) state.src = rewrite(state.src, rel);
    });
  };
}

/** The markdown-it plugin: `markdown: { config: (md) => md.use(lessonPagesPlugin(root, LESSONS)) }`. */
export const lessonPagesPlugin = (root: string, lessons: Lesson[]) => sourcePlugin("lesson-pages", (src, rel) => (rel ? expandLessonPage(src, rel, root, lessons) : src));

/** The first "# " heading of a markdown file, for sidebars of pages this config does not know. */
export function pageTitle(file: string): string {
  const src = readFileSync(file, "utf8");
  const fm = /^---\n[\s\S]*?\ntitle:\s*(.+)\n[\s\S]*?---/.exec(src)?.[1];
  const h1 = /^#\s+(.+)$/m.exec(src)?.[1];
  return (fm ?? h1 ?? file.replace(/^.*\//, "").replace(/\.md$/, "")).trim().replace(/^["']|["']$/g, "");
}

/** Markdown pages directly inside a docs folder (stems, sorted), [] when the folder is missing. */
export function pagesIn(dir: string): string[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir)
    .filter((f) => f.endsWith(".md") && f !== "index.md")
    .map((f) => f.slice(0, -3))
    .sort();
}

type FenceRule = (...args: unknown[]) => string;

/**
 * Line numbers that survive wrapping: VitePress draws a block's numbers in a separate column, which
 * only lines up while no line wraps, so long lines have to scroll sideways. This replaces that
 * column with a CSS counter on each line, starting at the block's first number (a region's line in
 * its file), so code wraps to the text column and every line keeps its number (custom.css).
 */
export function wrappableLineNumbers(md: { renderer: { rules: Record<string, FenceRule | undefined> } }): void {
  const fence = md.renderer.rules.fence;
  if (!fence) return;
  md.renderer.rules.fence = (...args: unknown[]) => {
    const html = fence(...args);
    const column = /<div class="line-numbers-wrapper" aria-hidden="true">(?:<span class="line-number">(\d+)<\/span>)?[\s\S]*?<\/div>/.exec(html);
    if (!column) return html;
    const first = Number(column[1] ?? 1);
    return html
      .replace(column[0], "")
      .replace(" line-numbers-mode", " numbered")
      .replace("<code>", `<code style="counter-reset: code-line ${first - 1}">`);
  };
}
