/**
 * `npm run new-lesson -- sNN_slug --from sMM`: writes a new lesson's files, every piece of
 * docs/guide/contributing.md, as stubs that already fit together. The lesson is a small extension
 * of sMM's loop (s11's extension points); its stub idea adds a line to the system prompt, so
 *
 *   - the solution passes its test, and the exercise (the same file with the idea as a TODO) fails
 *     it, naming the lesson's rule;
 *   - its scenario answers its default task offline, its mutant (the idea dropped) fails with the
 *     rule leading, its alternative (the idea written another way) passes;
 *   - the pages (en, zh, ja, ru: every language of the site) import its `// #region loop` and say what is left to write.
 *
 * Nothing existing is edited: the rules page shows the lesson's rule when the site is built (rules-doc.ts).
 * Then replace the stub idea with the lesson's own, keeping the shape, and `npm run new-lesson --
 * sNN` lists what is still missing. Refused: a folder that exists, an id taken, a base before s11
 * (no extension points) or without a loop of its own.
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { createTwoFilesPatch } from "diff";
import type { Lesson } from "../../runtime/manifest.ts";

export class ScaffoldError extends Error {
  override name = "ScaffoldError";
}

export interface ScaffoldSpec {
  /** The course's folder to write into (the repository, or a copy of it in a test). */
  root: string;
  /** "s24" */
  id: string;
  /** "headless": the folder is s24_headless. */
  slug: string;
  /** The lesson this one extends. */
  base: Lesson;
  /** Every lesson now (to refuse an id or folder taken). */
  lessons: readonly Lesson[];
  title?: string;
}

/** "s24_headless" or "s24" with a title → id and slug; null when neither says a slug. */
export function parseLessonName(name: string, title?: string): { id: string; slug: string } | null {
  const m = /^(s\d\d)(?:_([a-z][a-z0-9_]*))?$/.exec(name.trim().toLowerCase());
  if (!m) return null;
  const slug = m[2] ?? title?.toLowerCase().replace(/[^a-z0-9]+/g, "_").replace(/^_+|_+$/g, "");
  return slug ? { id: m[1]!, slug } : null;
}

const titleOf = (slug: string) => slug.replace(/_/g, " ").replace(/^./, (c) => c.toUpperCase());

/** Writes the lesson's files; returns their paths (relative to root). */
export function scaffoldLesson(spec: ScaffoldSpec): string[] {
  const { root, id, slug, base, lessons } = spec;
  const dir = `${id}_${slug}`;
  const title = spec.title ?? titleOf(slug);
  const n = Number(id.slice(1));
  const b = Number(base.id.slice(1));
  if (lessons.some((l) => l.id === id)) throw new ScaffoldError(`${id} is taken (${lessons.find((l) => l.id === id)!.dir}): choose the next free number`);
  if (existsSync(join(root, "solutions", dir)) || existsSync(join(root, "lessons", dir))) throw new ScaffoldError(`solutions/${dir} or lessons/${dir} exists already: nothing was written`);
  if (b >= n) throw new ScaffoldError(`--from ${base.id}: a lesson builds on an earlier one (${base.id} is not before ${id})`);
  if (b < 11) throw new ScaffoldError(`--from ${base.id}: a new lesson extends a loop through s11's extension points (solutions/s11_recovery/extend.ts); use s11 or later`);
  const baseEntry = readFileSync(join(root, "solutions", base.dir, base.entry), "utf8");
  if (!/export (async )?function runAgent\b|export \{[^}]*\brunAgent\b/.test(baseEntry))
    throw new ScaffoldError(`--from ${base.id}: solutions/${base.dir}/${base.entry} exports no runAgent (it has no loop to extend); use the lesson whose loop it grades`);

  const rule = `${slug.replace(/_/g, "-")}-idea`;
  const task = `(${id}) List the files of the workspace, then say in one sentence what this project is.`;
  // The options a demo and a test need, as far as the base knows them (s18: settings; s19: hooks).
  const extra = `${b >= 18 ? ", userConfigDir: root" : ""}${b >= 19 ? ", hooks: []" : ""}`;
  const files: Record<string, string> = {};
  const solution = agentFile({ id, dir, title, base, extra, todo: false });
  files[`solutions/${dir}/agent.ts`] = solution;
  files[`lessons/${dir}/agent.ts`] = agentFile({ id, dir, title, base, extra, todo: true });
  files[`solutions/${dir}/course.json`] = courseJson({ id, title, base, task, rule });
  files[`tests/${dir}.test.ts`] = testFile({ id, dir, title, rule, extra });
  files[`runtime/scripted/scenarios/${dir}.ts`] = scenarioFile({ id, dir, title });
  files[`docs/lessons/${dir}.md`] = pageEn({ id, dir, title, base });
  files[`docs/zh/lessons/${dir}.md`] = pageZh({ id, dir, title, base });
  files[`docs/ja/lessons/${dir}.md`] = pageJa({ id, dir, title, base });
  files[`docs/ru/lessons/${dir}.md`] = pageRu({ id, dir, title, base });
  const file = `solutions/${dir}/agent.ts`;
  files[`tests/mutants/${id}/idea_dropped.patch`] = patchOf(
    ["# rule: " + rule, "# why: the idea is never applied: the system prompt goes out as the base's"],
    file,
    solution,
    solution.replace("system: (text) => `${text}\\n\\n${NOTE}`,", "// BUG: the note is never added.\n    system: (text) => text,"),
  );
  files[`tests/alternatives/${id}/idea_by_join.patch`] = patchOf(
    ["# why: the note joined to the prompt with an array, not a template"],
    file,
    solution,
    solution.replace("system: (text) => `${text}\\n\\n${NOTE}`,", 'system: (text) => [text, "", NOTE].join("\\n"),'),
  );
  for (const [rel, text] of Object.entries(files)) {
    mkdirSync(dirname(join(root, rel)), { recursive: true });
    writeFileSync(join(root, rel), text);
  }
  return Object.keys(files);
}

function patchOf(header: string[], file: string, before: string, after: string): string {
  if (before === after) throw new ScaffoldError(`internal: the stub's patch for ${file} changes nothing`);
  const body = createTwoFilesPatch(file, file, before, after, undefined, undefined, { context: 3 })
    .split("\n")
    .filter((l) => !/^(Index:|=+$)/.test(l))
    .map((l) => (l.startsWith("--- ") || l.startsWith("+++ ") ? l.replace(/\t.*$/, "") : l))
    .join("\n");
  return `${header.join("\n")}\n${body.trimEnd()}\n`;
}

function agentFile(o: { id: string; dir: string; title: string; base: Lesson; extra: string; todo: boolean }): string {
  const idea = o.todo
    ? `    system: (text) => {
      // TODO: return the base's system prompt with NOTE after it, on a line of its own after a blank line.
      return todo(\`add NOTE to the system prompt (text: \${text.length} characters)\`);
    },`
    : "    system: (text) => `${text}\\n\\n${NOTE}`,";
  return `/**
 * ${o.dir}: ${o.title}.
 *
 * Unlike ${o.base.id}, … (WRITE: what this lesson adds, in one paragraph). This file is the stub
 * \`npm run new-lesson\` wrote: its idea (a note in the system prompt) stands in for the lesson's
 * own, through the same extension point, so every piece already fits. Replace it.
 *
 * Run: npm run lesson ${o.id}
 */
import type Anthropic from "@anthropic-ai/sdk";
import type { Llm } from "../../runtime/client.ts";
import { lesson, ${o.todo ? "todo, " : ""}transcriptOf } from "../../runtime/lesson.ts";
import { lessonTask, SAMPLE_REPOSITORY } from "../../runtime/tasks.ts";
import { refuseAll } from "../../solutions/s07_safe_tools/approval.ts";
import { createLogger } from "../../solutions/s09_observability/log.ts";
import type { Extension } from "../../solutions/s11_recovery/extend.ts";
import { runAgent as previousLoop } from "../../solutions/${o.base.dir}/${o.base.entry}";

export const TASK = lessonTask("${o.dir}");

/** The options of ${o.base.id}'s loop: this lesson adds none yet. */
export type RunOptions = NonNullable<Parameters<typeof previousLoop>[2]>;

/** What the stub idea adds to the system prompt. */
export const NOTE = "(${o.id}) Say which files you read before you answer.";

// #region loop
/** NEW: the lesson's idea, as an extension of ${o.base.id}'s loop (s11's extend.ts lists the hooks). */
export const idea = (): Extension => () => ({
${idea}
});

/** ${o.base.id}'s loop with the idea. \`history\` grows in place; returns how the run ended. */
export function runAgent(llm: Llm, history: Anthropic.MessageParam[], opts: RunOptions = {}) {
  return previousLoop(llm, history, { ...opts, extensions: [idea(), ...(opts.extensions ?? [])] });
}
// #endregion loop

/** The default task on a scratch copy of the sample repository (the docs record this run): no command is approved for anyone. */
export const demo = (llm: Llm, task = TASK) => transcriptOf(task, SAMPLE_REPOSITORY, (history, root) => runAgent(llm, history, { root, approve: refuseAll${o.extra} }));

lesson(import.meta.url, {
  task: TASK,
  workspace: SAMPLE_REPOSITORY,
  run: ({ llm, history, root, signal, flag }) => runAgent(llm, history, { root, signal, onEvent: createLogger({ verbose: flag("verbose") }) }),
  printAnswer: false,
});
`;
}

function courseJson(o: { id: string; title: string; base: Lesson; task: string; rule: string }): string {
  const json = {
    lesson: {
      id: o.id,
      title: o.title,
      idea: `WRITE: the one idea of ${o.id}, in a sentence (the syllabus and \`npm run list\` show it).`,
      entry: "agent.ts",
      hints: [
        "WRITE: guiding questions, the first hint a learner gets (what should they ask themselves before writing the TODO?).",
        "WRITE: a stronger hint, close to the code: the stub's is system: (text) => `${text}\\n\\n${NOTE}`.",
      ],
    },
    base: o.base.id,
    tasks: { task: o.task },
    rules: {
      [o.rule]: {
        stage: "lesson",
        en: { what: `WRITE: the rule of ${o.id}'s idea. The stub: every request's system prompt ends with the lesson's NOTE.`, fix: "WRITE: what to do when it is broken. The stub: return the prompt with NOTE after it in the system hook." },
        zh: { what: `待写：${o.id} 的规则。占位：每个请求的系统提示都以本课的 NOTE 结尾。`, fix: "待写：违反时怎么做。占位：在 system 钩子里返回带 NOTE 的提示。" },
        ja: { what: `書く：${o.id} のルール。仮：すべてのリクエストのシステムプロンプトはレッスンの NOTE で終わる。`, fix: "書く：破られたときにすること。仮：system フックで NOTE を付けたプロンプトを返す。" },
        ru: { what: `НАПИСАТЬ: правило ${o.id}. Заглушка: системная подсказка каждого запроса заканчивается NOTE урока.`, fix: "НАПИСАТЬ: что делать при нарушении. Заглушка: верните в хуке system подсказку с NOTE в конце." },
      },
    },
    diagram: {
      title: { en: `${o.title}: WRITE the picture's title`, zh: `${o.title}：待写图的标题`, ja: `${o.title}：図のタイトルを書く`, ru: `${o.title}: НАПИСАТЬ заголовок рисунка` },
      caption: {
        en: `WRITE: one sentence under the picture (${o.base.id}'s loop, and what ${o.id} adds).`,
        zh: `待写：图下的一句话（${o.base.id} 的循环，以及 ${o.id} 加了什么）。`,
        ja: `書く：図の下の一文（${o.base.id} のループと、${o.id} が加えるもの）。`,
        ru: `НАПИСАТЬ: одно предложение под рисунком (цикл ${o.base.id} и что добавляет ${o.id}).`,
      },
      cols: 2,
      rows: 1,
      boxes: [
        { id: "loop", col: 0, row: 0, label: { en: `${o.base.id}'s loop`, zh: `${o.base.id} 的循环`, ja: `${o.base.id} のループ`, ru: `цикл ${o.base.id}` } },
        { id: "idea", col: 1, row: 0, label: { en: `${o.id}: the idea`, zh: `${o.id}：新想法`, ja: `${o.id}：新しい考え`, ru: `${o.id}: идея` } },
      ],
      arrows: [{ from: "idea", to: "loop" }],
    },
  };
  return `${JSON.stringify(json, null, 2)}\n`;
}

function testFile(o: { id: string; dir: string; title: string; rule: string; extra: string }): string {
  return `/**
 * ${o.dir}: ${o.title}. Grades lessons/ or solutions/ (COURSE_TREE). WRITE: what the tests hold,
 * one rule per test, each through the learner's loop. The stub checks the stub idea.
 */
import type Anthropic from "@anthropic-ai/sdk";
import { describe, it } from "vitest";
import { SAMPLE_REPOSITORY, lessonTask } from "../runtime/tasks.ts";
import { driveLoop, loadLesson, rule, scripted, textIn, transcriptProblems } from "../runtime/testing.ts";
import { scratchCopy } from "../runtime/tools/files.ts";
import { approveAll } from "../solutions/s07_safe_tools/approval.ts";
import { differentialNet } from "./differential/net.ts";
import { quietLessonFile } from "./support.ts";

type Agent = typeof import("../solutions/${o.dir}/agent.ts");
const lesson = await loadLesson<Agent>("${o.dir}");
const keep = quietLessonFile();
const TASK = lessonTask("${o.dir}");
const LOOP = "(runAgent in lessons/${o.dir}/agent.ts)";

describe("${o.id} ${o.title}", () => {
  it("the default task: every request's system prompt carries the lesson's note, and the transcript can be sent again", async () => {
    const root = keep(await scratchCopy(SAMPLE_REPOSITORY));
    const llm = scripted();
    const history: Anthropic.MessageParam[] = [{ role: "user", content: TASK }];
    // The loop's own requests (driveLoop sends the transcript once more after it, to check it).
    let sent: unknown[] = [];
    await driveLoop(llm, history, async () => {
      const outcome = await lesson.runAgent(llm, history, { root, approve: approveAll${o.extra} });
      sent = llm.scripted.exchanges.map((e) => e.request);
      return outcome;
    });
    const systems = sent.map((request) => textIn((request as { system?: unknown }).system ?? ""));
    const without = systems.findIndex((s) => !s.trimEnd().endsWith(lesson.NOTE));
    rule(systems.length > 0 && without === -1, "${o.rule}", \`request \${without} went out with a system prompt that does not end with the lesson's note: return the prompt with NOTE after it in the idea's system hook \${LOOP}.\`);
    const problems = await transcriptProblems(llm, history);
    rule(problems === null, "${o.rule}", () => \`the transcript cannot be sent again: \${problems}\`);
  });
});

differentialNet("${o.id}");
`;
}

function scenarioFile(o: { id: string; dir: string; title: string }): string {
  const name = o.dir.replace(/_([a-z0-9])/g, (_, c: string) => c.toUpperCase());
  return `/**
 * ${o.dir}: the scripted model's answer to the lesson's default task (WRITE: the run, message by
 * message, as the other scenarios' comments show it).
 *
 *   [0] user       the task
 *   [1] assistant  list_files .
 *   [2] user       tool_result
 *   [3] assistant  the answer
 */
import { lessonTask } from "../../tasks.ts";
import type { Reply, Scenario, TurnContext } from "../types.ts";
import { intents } from "./intents.ts";
import { call, say, text } from "./script.ts";

const TASK = lessonTask("${o.dir}");

function reply(ctx: TurnContext): Reply {
  if (ctx.firstPrompt.trim() !== TASK) return intents.reply(ctx);
  if (ctx.step === 0) return { content: [text("Listing the workspace first."), call("list_files", { path: "." })] };
  return say("I read the file list (list_files .): this is a small Node.js login service with its tests.");
}

export const ${name}: Scenario = { id: "${o.dir}", title: "${o.title}: lists the files, then answers", task: TASK, reply };
`;
}

function pageEn(o: { id: string; dir: string; title: string; base: Lesson }): string {
  return `# ${o.id} · ${o.title}

WRITE: the idea in a paragraph: what ${o.base.id}'s agent could not do, and what this lesson adds.

## The change

The idea is an extension of ${o.base.id}'s loop (the hooks of s11's \`extend.ts\`):

<<< @/../solutions/${o.dir}/agent.ts#loop

## Your turn

\`\`\`sh
npm run lesson ${o.id}     # run your exercise (lessons/${o.dir}/agent.ts)
npm run check ${o.id}      # grade it
\`\`\`

WRITE: what the learner writes in the TODO, and how to tell it works.
`;
}

function pageZh(o: { id: string; dir: string; title: string; base: Lesson }): string {
  return `# ${o.id} · ${o.title}（待写：中文标题）

待写：用一段话说明这一课的想法：${o.base.id} 的 agent 做不到什么，这一课加了什么。

## 改动

这个想法是 ${o.base.id} 循环的一个扩展（s11 的 \`extend.ts\` 中的钩子）：

<<< @/../solutions/${o.dir}/agent.ts#loop

## 轮到你了

\`\`\`sh
npm run lesson ${o.id}     # 运行你的练习（lessons/${o.dir}/agent.ts）
npm run check ${o.id}      # 评分
\`\`\`

待写：学习者在 TODO 里写什么，以及如何确认它能工作。
`;
}

function pageJa(o: { id: string; dir: string; title: string; base: Lesson }): string {
  return `# ${o.id} · ${o.title}（書く：日本語のタイトル）

書く：このレッスンの考えを一段落で：${o.base.id} のエージェントにできなかったこと、このレッスンが加えるもの。

## 変更点

この考えは ${o.base.id} のループの拡張です（s11 の \`extend.ts\` のフック）：

<<< @/../solutions/${o.dir}/agent.ts#loop

## やってみよう

\`\`\`sh
npm run lesson ${o.id}     # 自分の演習を実行する（lessons/${o.dir}/agent.ts）
npm run check ${o.id}      # 採点する
\`\`\`

書く：学習者が TODO に何を書くか、そしてそれが動くことをどう確かめるか。
`;
}

function pageRu(o: { id: string; dir: string; title: string; base: Lesson }): string {
  return `# ${o.id} · ${o.title} (НАПИСАТЬ: заголовок по-русски)

НАПИСАТЬ: идея урока одним абзацем: чего не умел агент ${o.base.id} и что добавляет этот урок.

## Изменение

Идея — расширение цикла ${o.base.id} (хуки \`extend.ts\` из s11):

<<< @/../solutions/${o.dir}/agent.ts#loop

## Ваша очередь

\`\`\`sh
npm run lesson ${o.id}     # запустить своё упражнение (lessons/${o.dir}/agent.ts)
npm run check ${o.id}      # проверить его
\`\`\`

НАПИСАТЬ: что ученик пишет в TODO и как убедиться, что это работает.
`;
}
