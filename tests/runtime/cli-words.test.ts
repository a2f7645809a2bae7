/**
 * The command line in the learner's language (runtime/words.ts): with COURSE_LANG=zh, ja or ru,
 * `npm run list`, `check`, `hint`, `solution`, `reset`, `watch` and a lesson's run say the lessons'
 * titles (the headings of the translated lesson pages) and their own words in that language; a
 * word or a title a language lacks is said in English and named by the sync check (npm run docs:sync).
 */
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { LESSONS, type Lesson } from "../../runtime/manifest.ts";
import { TodoError, explainError } from "../../runtime/lesson.ts";
import { requestLimit } from "../../runtime/net.ts";
import { sendableLine } from "../../runtime/print.ts";
import { stripEscapes } from "../../runtime/terminal-text.ts";
import { COURSE_LANGS, type Lang } from "../../runtime/rules.ts";
import { CLI_WORDS, lessonTitle, pageTitleIn, slotsOf, translatedWords, word, type WordId } from "../../runtime/words.ts";
import { SCRIPT } from "../../docs/.vitepress/theme/langs.ts";
import { cliWords, lessonTitles, syncFindings } from "../../scripts/docs/i18n-sync.ts";
import { failureText, parseFailure, type Grade } from "../../scripts/lib/grade.ts";
import { saidOfVerdict } from "../../scripts/lib/hang.ts";
import type { LessonStatus } from "../../scripts/lib/progress.ts";
import { checkReport, hintLines, listLines, nextLine } from "../../scripts/lib/views.ts";
import { WatchSession } from "../../scripts/lib/watch.ts";
import { runCourse } from "../../scripts/course.ts";

const OTHERS = COURSE_LANGS.filter((l): l is Exclude<Lang, "en"> => l !== "en");
const ROOT = join(import.meta.dirname, "../..");
const s01 = LESSONS[0]!;
const s02 = LESSONS[1]!;

/** The title a translated page's heading gives, read here on its own ("# s01 · エージェントループ"). */
const headingTitle = (lang: string, l: Lesson) => /^# s\d+ · (.+)$/m.exec(readFileSync(join(ROOT, "docs", lang, "lessons", `${l.dir}.md`), "utf8"))![1]!.trim();

/** Colours off, so the lines compare as text. */
const plain = (lines: string[]) => stripEscapes(lines.join("\n"));

let saved: string | undefined;
beforeEach(() => {
  saved = process.env.COURSE_LANG;
});
afterEach(() => {
  if (saved === undefined) delete process.env.COURSE_LANG;
  else process.env.COURSE_LANG = saved;
  vi.restoreAllMocks();
});

/** What the words of the list say in each language (a broken lookup says the English ones). */
const STATUS: Record<Lang, { current: string; notStarted: string; summary: RegExp }> = {
  en: { current: "current", notStarted: "not started", summary: /0 of \d+ lessons done\./ },
  zh: { current: "当前", notStarted: "未开始", summary: /\d+ 课中完成了 0 课。/ },
  ja: { current: "現在", notStarted: "未着手", summary: /\d+ レッスン中 0 レッスン完了。/ },
  ru: { current: "текущий", notStarted: "не начат", summary: /Пройдено уроков: 0 из \d+\./ },
};

describe.each(OTHERS)("COURSE_LANG=%s", (lang) => {
  beforeEach(() => {
    process.env.COURSE_LANG = lang;
  });

  it("every lesson's title is its translated page's heading, written in the language", () => {
    for (const l of LESSONS) {
      expect(lessonTitle(l), `${l.id}'s title in ${lang}`).toBe(headingTitle(lang, l));
      expect(SCRIPT[lang]!.test(lessonTitle(l)), `${l.id}'s ${lang} title "${lessonTitle(l)}" is not in ${lang}`).toBe(true);
    }
  });

  it("npm run list: the states and the titles in the language, the marks still in one column", () => {
    const all: LessonStatus[] = LESSONS.map((lesson, i) => ({ lesson, state: i === 0 ? "current" : "not started" }));
    const lines = plain(listLines(all)).split("\n");
    expect(lines[0], `npm run list (scripts/lib/views.ts listLines), ${lang}: the current lesson's line says "current" in ${lang}; look up the state with word("list.current")`).toContain(`▶ ${STATUS[lang].current}`);
    expect(lines[0], `npm run list, ${lang}: s01's line names the title of docs/${lang}/lessons/s01_agent_loop.md; take the title from lessonTitle() (runtime/words.ts)`).toContain(`s01  ${headingTitle(lang, s01)}`);
    expect(lines[1], `npm run list, ${lang}: a lesson not started says so in ${lang}; look up the state with word("list.not-started")`).toContain(`· ${STATUS[lang].notStarted}`);
    expect(lines[1], `npm run list, ${lang}: s02's line names the title of its ${lang} page; take the title from lessonTitle()`).toContain(`s02  ${headingTitle(lang, s02)}`);
    expect(lines.join("\n"), `npm run list, ${lang}: the summary line is the ${lang} "list.summary" of runtime/i18n/cli.${lang}.json, its counts filled in`).toMatch(STATUS[lang].summary);
    expect(lines.join("\n"), `npm run list, ${lang}: an English state, summary or title is left; say every word through word() and every title through lessonTitle()`).not.toMatch(/not started|current|lessons done|The agent loop|Tool dispatch/);
    // The lesson ids line up: every mark takes the same width on a terminal.
    const column = (line: string) => {
      const before = line.slice(0, line.indexOf(" s0"));
      return [...before].reduce((n, ch) => n + (/[\u3000-\u9fff\uff00-\uff60]/.test(ch) ? 2 : 1), 0);
    };
    expect(column(lines[0]!), `npm run list, ${lang}: the marks of two lines take different widths on a terminal, so the lesson ids do not line up; pad by displayWidth() (wide characters count 2), not by length`).toBe(column(lines[1]!));
  });

  it("npm run check: the verdict and the next lesson name the titles in the language", () => {
    const failed: Grade = { ok: false, passed: 2, total: 7, failures: [{ test: "t", kind: "todo", message: "s01 agentLoop: fill it in", where: "lessons/s01_agent_loop/agent.ts:69" }], output: "" };
    const text = plain(checkReport(s01, failed));
    expect(text, `npm run check (checkReport, scripts/lib/views.ts), ${lang}: a failed check's heading names s01 by its ${lang} title; use lessonTitle()`).toContain(`s01 · ${headingTitle(lang, s01)}`);
    expect(text, `npm run check, ${lang}: a failed check's report still says the English title; use lessonTitle(), not lesson.title`).not.toContain(s01.title);
    const passed: Grade = { ok: true, passed: 7, total: 7, failures: [], output: "" };
    const ok = plain(checkReport(s01, passed));
    expect(ok, `npm run check, ${lang}: a passed check's heading names s01 by its ${lang} title; use lessonTitle()`).toContain(`s01 · ${headingTitle(lang, s01)}`);
    expect(ok, `npm run check, ${lang}: a passed check's report still says the English title; use lessonTitle(), not lesson.title`).not.toContain(s01.title);
    // The lesson to do next (check and watch say it the same way).
    const next = plain([nextLine(s02)]);
    expect(next, `npm run check (nextLine, scripts/lib/views.ts), ${lang}: the next lesson is said by the ${lang} "check.next", its id, title and path filled in`).toBe(translatedWords(lang)["check.next"]!.replace("{id}", "s02").replace("{title}", headingTitle(lang, s02)).replace("{path}", `lessons/${s02.dir}/${s02.entry}`));
    expect(next, `npm run check, ${lang}: the next-lesson line starts with the English "Next:"; say it with word("check.next")`).not.toMatch(/^Next:/);
  });

  it("npm run check: a finding the check words itself (a hang, an API refusal, a check not met) is said in the language, from the same cached verdict", () => {
    const hang = parseFailure(s01, "s01 › loops", "Error: Test timed out in 5000ms.");
    const refused = parseFailure(s01, "s01 › sends", 'BadRequestError: 400 {"type":"error","error":{"type":"invalid_request_error","message":"messages.2: roles must alternate"}}');
    const unmet = parseFailure(s01, "s01 › the loop › stops at end_turn", "AssertionError: expected 2 to be 1");
    for (const f of [hang, refused, unmet]) {
      expect(f.said, `${f.kind}: a word of the command line, so a cached verdict is said in any language`).toBeDefined();
      expect(f.message, "the English text stays in the verdict (the runner's tools read it)").toBe(word(f.said!.id, f.said!.vars, "en"));
      const text = plain(checkReport(s01, { ok: false, passed: 0, total: 3, failures: [f], output: "" }));
      expect(text, `npm run check, ${lang}: the ${f.kind} finding is not said in ${lang} in the report; print failureText(f, lang) (scripts/lib/grade.ts), not f.message`).toContain(failureText(f, lang).split("\n")[0]!);
      expect(failureText(f, lang), `failureText (scripts/lib/grade.ts), ${lang}: the ${f.kind} finding is the English message; say f.said's word in the language`).not.toBe(f.message);
      expect(text, `npm run check, ${lang}: the ${f.kind} finding is said in English in the report; print failureText(f, lang)`).not.toMatch(/did not finish|rejected a request|This check is not met/);
    }
  });

  it("npm run check: a loop that blocks the test process, its verdict found again from the runner's English text and said in the language", () => {
    for (const [id, last] of [["grade.blocked-cpu", "The last request: 3 message(s)."], ["grade.blocked", ""]] as const) {
      const english = word(id, { seconds: 12, last }, "en").trim();
      const said = saidOfVerdict(english);
      expect(said, `saidOfVerdict (scripts/lib/hang.ts): the runner's English ${id} text is not read back to its word and values; match every form of the English word`).toEqual({ id, vars: { seconds: 12, last } });
      expect(word(said!.id, said!.vars, lang), `${lang}: the ${id} verdict read back is not the ${lang} word of runtime/i18n/cli.${lang}.json with its {seconds} and {last}`).toBe(translatedWords(lang)[id]!.replace("{seconds}", "12").replace("{last}", last));
    }
    expect(saidOfVerdict("the check was stopped."), `saidOfVerdict (scripts/lib/hang.ts): a text that is no word of the command line is taken for one; read only what a word can say`).toBeUndefined();
  });

  it("npm run hint: the heading names the title in the language", () => {
    const text = plain(hintLines(s02, 1));
    expect(text.split("\n")[0], `npm run hint (hintLines, scripts/lib/views.ts), ${lang}: the heading does not name s02 by its ${lang} title; use lessonTitle()`).toContain(headingTitle(lang, s02));
    expect(text, `npm run hint, ${lang}: the English title is still said; use lessonTitle(), not lesson.title`).not.toContain(s02.title);
  });

  it("npm run solution, reset and a mistake on the command line speak the language", async () => {
    const out: string[] = [];
    vi.spyOn(console, "log").mockImplementation((...a: unknown[]) => void out.push(a.join(" ")));
    vi.spyOn(console, "error").mockImplementation((...a: unknown[]) => void out.push(a.join(" ")));
    expect(await runCourse(["hint", "s99"]), `npm run hint s99 (scripts/course.ts), ${lang}: an unknown lesson is a mistake on the command line: exit code 2`).toBe(2);
    expect(plain(out), `npm run hint s99, ${lang}: the mistake is not said by the ${lang} "usage.unknown" with the lesson ids; say it with word()`).toContain(word("usage.unknown", { key: "s99", ids: LESSONS.map((l) => l.id).join(", ") }));
    expect(plain(out), `npm run hint s99, ${lang}: the English "no lesson" is still said; say it with word("usage.unknown")`).not.toContain("no lesson");
    out.length = 0;
    expect(await runCourse(["check", "s01", "--verbos"]), `npm run check s01 --verbos (scripts/course.ts), ${lang}: an unknown flag is a mistake on the command line: exit code 2`).toBe(2);
    expect(await runCourse(["reset", "s01", "--undo", "--ref", "main"]), `npm run reset s01 --undo --ref main (scripts/course.ts), ${lang}: --undo with --ref is a mistake on the command line: exit code 2`).toBe(2);
    const table = translatedWords(lang);
    expect(plain(out), `npm run check --verbos, ${lang}: the mistake is not said by the ${lang} "args.mistake" and "args.unknown-flag" of runtime/i18n/cli.${lang}.json`).toContain(`npm run check${table["args.mistake"]!.slice("{command}".length, table["args.mistake"]!.indexOf("{what}"))}${word("args.unknown-flag", { flag: "--verbos" })}`);
    expect(plain(out), `npm run reset --undo --ref, ${lang}: the mistake is not said by the ${lang} "reset.undo-ref"; say it with word()`).toContain(word("reset.undo-ref"));
    expect(plain(out), `npm run reset --undo --ref, ${lang}: the usage is not said by the ${lang} "args.usage"; say it with word()`).toContain(table["args.usage"]!.replace("{command}", "npm run reset sNN"));
    expect(plain(out), `a mistake on the command line, ${lang}: English words are still said (unknown flag, usage:, takes no --ref); say every one with word()`).not.toMatch(/unknown flag|usage:|takes no --ref/);
    out.length = 0;
    expect(await runCourse(["solution", "s01", "--full"]), `npm run solution s01 --full (scripts/course.ts), ${lang}: it prints the solution and exits 0`).toBe(0);
    expect(plain(out).split("\n")[0], `npm run solution s01 --full, ${lang}: the first line is not the ${lang} "solution.header" with s01's ${lang} title`).toBe(word("solution.header", { id: "s01", title: headingTitle(lang, s01) }));
    expect(plain(out), `npm run solution s01 --full, ${lang}: the English "reference solution" is still said; say the header with word("solution.header")`).not.toContain("reference solution");
  });

  it("npm run watch: its lines and its keys in the language", async () => {
    const printed: string[] = [];
    const session = new WatchSession({
      lessons: () => LESSONS,
      check: async () => ({ ok: false, passed: 0, total: 1, failures: [{ test: "t", kind: "todo", message: "m" }], output: "" }),
      isDone: () => false,
      report: () => ["REPORT"],
      hint: () => [],
      list: async () => [],
      runLesson: async () => undefined,
      print: (line) => printed.push(line),
      debounceMs: 1,
    });
    await session.start();
    session.quit();
    const text = plain(printed);
    expect(text, `npm run watch (scripts/lib/watch.ts), ${lang}: the lesson watched is not named by its ${lang} title; use lessonTitle()`).toContain(`s01 ${headingTitle(lang, s01)}`);
    expect(text, `npm run watch, ${lang}: the keys are not said by the ${lang} "watch.keys" of runtime/i18n/cli.${lang}.json`).toContain(translatedWords(lang)["watch.keys"]!);
    expect(text, `npm run watch, ${lang}: quitting is not said by the ${lang} "watch.bye"`).toContain(translatedWords(lang)["watch.bye"]!);
    expect(text, `npm run watch, ${lang}: English lines are still said (Watching, keys:, Bye.); say every one with word()`).not.toMatch(/Watching|keys: \[h\]|Bye\./);
  });

  it("a lesson's run: whether the transcript can be sent again, a TODO left, the net's limit, in the language", () => {
    const line = plain([sendableLine([{ role: "user", content: "hi" }])]);
    expect(line, `a lesson's run (sendableLine, runtime/print.ts), ${lang}: the line is not the ${lang} "run.sendable" with its count`).toBe(translatedWords(lang)["run.sendable"]!.replace("{n}", "1"));
    const table = translatedWords(lang);
    expect(explainError(new TodoError("answer every tool_use")), `a lesson's run (explainError, runtime/lesson.ts), ${lang}: a TODO left is not said by the ${lang} "run.todo" with its task`).toBe(table["run.todo"]!.replace("{task}", "answer every tool_use"));
    expect(() => requestLimit(["--max-requests=lots"]), `the net's limit (requestLimit, runtime/net.ts), ${lang}: --max-requests=lots is not refused with the ${lang} "net.not-a-number"`).toThrow(table["net.not-a-number"]!.replace("{name}", "--max-requests").replace("{raw}", "lots"));
  });

  it("every word of the command line is written in the language, its {slots} kept", () => {
    const table = translatedWords(lang);
    expect(Object.keys(table).sort(), `runtime/i18n/cli.${lang}.json: one entry per word of runtime/words.ts`).toEqual(Object.keys(CLI_WORDS).sort());
    for (const id of Object.keys(CLI_WORDS) as WordId[]) {
      expect(slotsOf(table[id]!), `${lang} "${id}" keeps the English slots`).toEqual(slotsOf(CLI_WORDS[id]));
      // A word of slots and punctuation only ("{command}: {what}. {usage}") has nothing to translate.
      if (/[A-Za-z]/.test(CLI_WORDS[id].replace(/\{\w+\}/g, "")))
        expect(SCRIPT[lang]!.test(table[id]!), `${lang} "${id}" is not written in ${lang}: ${table[id]}`).toBe(true);
    }
  });
});

describe("English, and what a language lacks", () => {
  it("COURSE_LANG=en (or no language of the course) says the English words and titles", () => {
    for (const l of [undefined, "en", "de"]) {
      if (l === undefined) delete process.env.COURSE_LANG;
      else process.env.COURSE_LANG = l;
      if (l === undefined && (process.env.LC_ALL || process.env.LC_MESSAGES || process.env.LANG || "").match(/^(zh|ja|ru)/)) continue;
      expect(lessonTitle(s01), `COURSE_LANG=${l}: s01's title is not the English one of runtime/manifest.ts; lessonTitle() falls back to English for no language or one the course lacks`).toBe(s01.title);
      expect(plain(listLines([{ lesson: s01, state: "current" }])), `COURSE_LANG=${l}: npm run list does not say the English state and title in its columns (scripts/lib/views.ts listLines)`).toContain(`▶ current      s01  ${s01.title}`);
    }
  });

  it("a word a language lacks, or whose translation lost a slot, is said in English", () => {
    expect(word("list.done", {}, "ja", {}), `word() (runtime/words.ts): a word the ja table lacks is not said in English; fall back to CLI_WORDS`).toBe("done");
    expect(word("list.summary", { done: 1, total: 2 }, "ja", { "list.summary": "{done} レッスン完了。" }), `word(): a ja "list.summary" that lost its {total} slot is used; a translation without every English slot falls back to English`).toBe("1 of 2 lessons done.");
    expect(word("list.summary", { done: 1, total: 2 }, "ja", { "list.summary": "{total} レッスン中 {done} レッスン完了。" }), `word(): a ja "list.summary" with every slot (in another order) is not used, or its slots are not filled by name`).toBe("2 レッスン中 1 レッスン完了。");
  });

  it("a lesson without a page in the language keeps its English title", () => {
    const docs = mkdtempSync(join(tmpdir(), "titles-"));
    try {
      expect(pageTitleIn(s01, "ja", pathToFileURL(`${docs}/`)), `pageTitleIn() (runtime/words.ts): a docs folder without ja/lessons/${s01.dir}.md gives s01 a ja title; give none when the page is missing, so the English title stands`).toBeUndefined();
      const madeUp = { id: "s99", dir: "s99_made_up", title: "A made-up lesson" };
      for (const lang of OTHERS) expect(lessonTitle(madeUp, lang), `lessonTitle() (runtime/words.ts), ${lang}: a lesson without a ${lang} page does not keep its English title`).toBe("A made-up lesson");
    } finally {
      rmSync(docs, { recursive: true, force: true });
    }
  });

  it("the sync check names a title and a word a language lacks, and a translation that lost a slot", async () => {
    const root = mkdtempSync(join(tmpdir(), "sync-words-"));
    try {
      const titles = { s01: { dir: "s01_agent_loop", en: "The agent loop", zh: "Agent 循环", ja: "The agent loop", ru: undefined } };
      const cli = { en: { "list.done": "done", "list.summary": "{done} of {total} lessons done." }, translated: { zh: { "list.done": "已完成", "list.summary": "{total} 课中完成了 {done} 课。" }, ja: { "list.summary": "{done} 完了", "old.word": "古い" }, ru: { "list.done": "готово", "list.summary": "Пройдено: {done} из {total}." } } };
      const got = syncFindings({ root, languages: [], courseLanguages: ["en", "zh", "ja", "ru"], titles, cliWords: cli }).filter((f) => f.kind !== "cli-language");
      expect(got.map((f) => [f.kind, f.where]), `syncFindings (scripts/docs/i18n-sync.ts): not the findings [kind, where] of a title two languages lack, two words ja lacks or lost slots of, and a ja word English has not`).toEqual([
        ["missing-title", "s01"],
        ["missing-title", "s01"],
        ["missing-cli-word", "list.done"],
        ["missing-cli-word", "list.summary"],
        ["orphan-cli-word", "old.word"],
      ]);
      expect(got[0]!.message, `syncFindings: the missing ja title does not name its page docs/ja/lessons/s01_agent_loop.md`).toMatch(/no ja words: .*docs\/ja\/lessons\/s01_agent_loop\.md/);
      expect(got[1]!.message, `syncFindings: the missing ru title does not say "no ru words"`).toMatch(/no ru words/);
      expect(got[2]!.message, `syncFindings: the missing ja word does not name runtime/i18n/cli.ja.json, where to add it`).toMatch(/runtime\/i18n\/cli\.ja\.json/);
      expect(got[3]!.message, `syncFindings: the ja word that lost slots does not name the slots it must keep ({done}, {total})`).toMatch(/\{done\}, \{total\}/);
      // The course's own titles and words: none missing in any language.
      const own = syncFindings({ root, languages: [], courseLanguages: [...COURSE_LANGS], titles: await lessonTitles(), cliWords: await cliWords() });
      expect(own.filter((f) => f.kind !== "cli-language").map((f) => f.message), "the course's own titles and words: a language lacks some; add them (npm run docs:sync lists them), in docs/<lang>/lessons and runtime/i18n/cli.<lang>.json").toEqual([]);
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  });
});
