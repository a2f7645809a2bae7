/**
 * The command line's own words, and the lessons' titles, in the learner's language (COURSE_LANG or
 * the locale: courseLang() of runtime/rules.ts).
 *
 * - Words: the English ones are below, by id; every other language keeps its words in
 *   runtime/i18n/cli.<lang>.json (id → text), as the hints and the rules do, so a translation is
 *   added or corrected without touching code. `{name}` in a text is filled in by `word()`; a
 *   translation keeps every `{name}` of the English text. A word a language lacks is said in
 *   English, and `npm run docs:sync` (and verify) names it.
 * - Titles: a lesson's title in a language is the heading of its page in that language
 *   (docs/<lang>/lessons/<dir>.md, "# s06 · 防护"), the one the site's sidebar shows too: one
 *   source. No page, or a heading without a title, gives the English title (the lesson's own);
 *   `npm run docs:sync` names it.
 *
 * Code, paths, commands and rule ids inside a text stay as they are in every language.
 */
import { existsSync, readFileSync } from "node:fs";
import { courseLang, type Lang } from "./rules.ts";

export const CLI_WORDS = {
  // ── the lesson list (npm run list, watch's l) ──
  "list.done": "done",
  "list.current": "current",
  "list.in-progress": "in progress",
  "list.not-started": "not started",
  "list.missing": "missing",
  "list.gone": "(lessons/{dir} is gone: `npm run reset {id}`)",
  "list.summary": "{done} of {total} lessons done.",
  "list.so-far": "(from the checks run so far; `npm run list` checks every lesson)",
  "list.checking-one": "Checking {ids} (changed since its last check), all at once …",
  "list.checking-many": "Checking {ids} (changed since their last check), all at once …",
  // ── a mistake on the command line (scripts/lib/args.ts) ──
  "args.usage": "usage: {command}",
  "args.mistake": "{command}: {what}. {usage}",
  "args.unknown-flag": "unknown flag {flag}",
  "args.unexpected": "unexpected argument \"{arg}\"",
  "args.needs-value": "{flag} needs a value",
  "args.no-value": "{flag} takes no value",
  "args.npm-kept": "unknown flag {flags} (npm kept it for itself: flags for the course go after `--`, as in `{command} … -- --flag`)",
  "lesson.npm-kept": "unknown flag {flags} (npm kept it for itself: put `--` before flags)",
  "lesson.id-first": "the lesson id comes first, not \"{arg}\"",
  "lesson.usage-note": "(other flags go to the lesson's script)",
  "reset.undo-ref": "--undo takes no --ref (it brings back your last backup)",
  // ── a lesson named on the command line ──
  "usage.which": "which lesson? e.g. `npm run {command} s01` (`npm run list` shows them all)",
  "usage.unknown": "no lesson \"{key}\": the lessons are {ids}",
  "usage.folder-missing": "lessons/{dir} is missing. Bring it back with `npm run reset {id}`.",
  // ── npm run check ──
  "check.next": "Next: {id} · {title} ({path})",
  "check.all-pass": "✓ All {n} lessons pass. `npm run list` shows them.",
  "check.current": "Current lesson: {id} · {title}",
  "check.runner-output": "── the test runner's output ──",
  "check.npm-verbose": "(npm took --verbose as its own log level: for the test runner's output, write `npm run check … -- --verbose`)",
  // ── npm run hint ──
  "hint.none-needed": "Every lesson passes: no hint needed.",
  // ── npm run lesson ──
  "lesson.solution-missing": "{file} is missing from the course.",
  "lesson.exercise-missing": "{file} is missing. Restore the exercise with `npm run reset {id}`.",
  "lesson.no-parse": "{folder} does not parse, so it cannot run:\n    {error}\nFix the syntax at the line shown and save.",
  // ── npm run reset ──
  "reset.no-pristine": "there is no pristine copy of lessons/{dir}: it is neither committed to git nor in .course/pristine/. Get the course again (git clone) to restore it.",
  "reset.no-ref": "git has no lessons/{dir} at \"{ref}\".",
  "reset.already": "lessons/{dir} is already pristine: nothing to reset.",
  "reset.not-tty": "reset replaces your work in lessons/{dir} (a copy is kept in .course/backups/). Not on a terminal, so not asking: add --yes after `--` (`npm run reset {id} -- --yes`).",
  "reset.ask": "Reset lessons/{dir} to its pristine state (from {source})? Your files there go to .course/backups/ first. [y/N] ",
  "reset.nothing-changed": "Nothing changed.",
  "reset.done": "✓ lessons/{dir} is pristine again (from {source}).",
  "reset.restored": "  restored {file}",
  "reset.removed": "  removed {file}",
  "reset.kept": "Your files as they were are in {backup}/ · `npm run reset {id} -- --undo` puts them back.",
  "undo.none": "There is no backup of lessons/{dir} in .course/backups/: nothing to undo.",
  "undo.already": "lessons/{dir} already holds the files of {backup}/: nothing to undo.",
  "undo.done": "✓ lessons/{dir} is back as it was at {at} (from {backup}/).",
  "undo.replaced": "The files it replaced are in {backup}/ (`npm run reset {id} -- --undo` again swaps back).",
  // ── npm run solution ──
  "solution.missing": "solutions/{dir} is missing from the course.",
  "solution.header": "The reference solution of {id} · {title} (you asked for it).",
  "solution.adds-given": "What it adds to the exercise as given (`-- --full` prints the whole files, `-- --mine` diffs against your file):",
  "solution.adds-mine": "What it adds to your exercise (`-- --full` prints the whole files):",
  // ── npm run watch ──
  "watch.banner": " · saves under lessons/ are checked at once · q quits",
  "watch.watching": "Watching lessons/ · current lesson: {id} {title}",
  "watch.cached": "(the last check's result: your files have not changed since)",
  "watch.checking": "── checking {id} {title} …",
  "watch.passes": "✓ {id} passes ({passed}/{total} tests).",
  "watch.all-done": "🎉 Every lesson passes. `npm run list` shows them all; press q to quit.",
  "watch.nothing-to-run": "Every lesson passes: nothing to run.",
  "watch.keys": "keys: [h] hint  [r] run the lesson  [l] list  [c] check again  [q] quit",
  "watch.bye": "Bye. Your progress is in your files: `npm run list` shows it.",
  "watch.script-missing": "lessons/{dir}/{entry} is missing: `npm run reset {id}`.",
  "watch.no-fs-watch": "Cannot watch {dir} for saves: they are noticed within a second instead (press c to check at once).",
  // ── a command that failed on something outside the course (scripts/lib/failure.ts) ──
  "fail.timeout": "{command}: {started} did not finish within its time limit. On a busy or slow machine everything takes longer: run it again when the machine is quieter, or with COURSE_TIME_SCALE=3 (every limit three times as long). ({error})",
  "fail.not-installed": "{command}: {program} is not installed (or not on PATH). Install it and run again. ({error})",
  "fail.a-program": "a program it needs",
  "fail.disk-full": "{command}: the disk is full. Free some space (the temp folder, .course/) and run again. ({error})",
  "fail.out-of-files": "{command}: the machine ran out of open files or processes. Close other programs, or run it again with fewer at once. ({error})",
  "fail.unexpected": "{command} stopped on an unexpected error: {error}. Run it again; if it happens again, COURSE_DEBUG=1 shows where (the stack), to report.",
  // ── a check's findings (scripts/lib/grade.ts) ──
  "grade.hang": "the test \"{test}\" did not finish: the loop did not return (an await that never settles, or a loop with no exit). The other tests of this lesson were skipped.",
  "grade.api-busy-retry": "the API (here, the scripted model) answered {status} and the SDK gave up on it: the request itself was fine, it came at a moment the API could not answer. Let the SDK retry it: give the client maxRetries (RETRIES in recovery.ts), so a 429 or 5xx is sent again after the wait it asks for.\n{error}",
  "grade.api-busy": "the API (here, the scripted model) answered {status} and the SDK gave up on it: the request itself was fine, it came at a moment the API could not answer. The SDK retries these on its own (maxRetries); this lesson's loop need not handle them.\n{error}",
  "grade.api-rejected": "the API (here, the scripted model) rejected a request your loop sent ({status}):\n{error}",
  "grade.loop-threw": "your loop stopped with an error: {error}",
  "grade.not-met": "{said}This check is not met: {title}.",
  "grade.blocked": "the loop did not return: it has blocked the test process for {seconds} s (a loop that never awaits, so nothing else can run). {last}",
  "grade.blocked-cpu": "the loop did not return: it has blocked the test process for {seconds} s of CPU time (a loop that never awaits, so nothing else can run). {last}",
  "grade.timeout": "the check did not finish in {seconds} s: the loop in lessons/{dir} did not return.",
  "grade.stopped": "the check was stopped.",
  "grade.no-result": "the test runner gave no result for {file}:\n{output}",
  "grade.no-tests": "{file} is missing: this lesson has no tests yet.",
  "grade.no-parse": "lessons/{dir} does not parse, so no test could run:\n{error}\nFix the syntax at the line shown and save.",
  "grade.import-missing": "something the {id} code or its tests import does not exist:\n{error}",
  "grade.cannot-start": "the tests of {id} could not start:\n{error}",
  // ── a lesson's run (runtime/lesson.ts, runtime/print.ts) ──
  "run.workspace": "workspace: {path}",
  "run.scratch": "(a scratch copy, removed when the run ends; --keep keeps it)",
  "run.scratch-kept": "(a scratch copy, kept after the run: --keep)",
  "run.kept": "workspace kept: {path} (remove it when done: rm -r {path})",
  "run.outcome": "Outcome:",
  "run.unscripted": "not done (the offline model has no script for this task)",
  "run.loop-reported": "; your loop reported: {what}",
  "run.answer": "Answer:",
  "run.no-text": "(no text)",
  "run.sendable": "{n} messages, every tool_use answered: can be sent again",
  "run.todo": "TODO left: {task}\n  Fill it in (look for \"// TODO:\" in the file), then check it with `npm run check`.",
  "run.aborted": "Stopped: the request was aborted.",
  "run.timeout": "The request timed out. Try again, or raise the timeout; offline, remove the key from .env.",
  "run.no-connection": "Could not reach the model's server ({error}). Check your network and ANTHROPIC_BASE_URL, or remove the keys from .env to run offline.",
  "run.401": "The server refused your key (401). Check ANTHROPIC_API_KEY / ANTHROPIC_AUTH_TOKEN in .env, or remove them to run offline.",
  "run.403": "Your key may not use this model or endpoint (403): {error}",
  "run.404": "Not found (404): {error}. Check MODEL_ID (a model the endpoint serves: GET /v1/models lists them; a retired model answers 404 too) and ANTHROPIC_BASE_URL (without /v1).",
  "run.429": "Rate limited (429) even after the SDK's retries. Wait a minute and run again.",
  "run.400": "The API rejected the request (400): {error}\n  If it names messages.N, your loop broke a message rule; `npm run check` shows which.",
  "run.5xx": "The model's server failed ({status}) even after retries: {error}. Try again later.",
  "run.stream-broke": "The model's server broke off its answer mid-stream ({type}): {error}. Run again; lesson s11 shows how a loop recovers.",
  "run.api-error": "API error {status}: {error}",
  "run.connection-broke": "The connection to the model's server broke mid-answer ({error}). Run again; lesson s11 shows how a loop recovers.",
  "run.unexpected": "Unexpected error: {error}",
  "run.debug": "  (run with DEBUG=1 to see where it came from)",
  "run.offline-banner": "model: scripted (offline) — set ANTHROPIC_API_KEY to use Claude",
  "run.no-script": "offline: the scripted model has no script for this task. It can take one step it recognises (list the files, read a file, run a `command`, run the tests) and quote it, or answer from the team's notes through an MCP notes server; it cannot reason or finish a task of its own. For a real answer, put ANTHROPIC_API_KEY (or ANTHROPIC_BASE_URL) in .env and run again.",
  "run.not-done-offline": "Not done: the scripted model (offline) has no script for this task. It took at most the one step it recognised and quoted it; it did not reason about it or change anything. Offline, run a lesson's own task (run it without a task; `npm run agent -- --scenarios` lists the tasks it knows). For this task, put ANTHROPIC_API_KEY (or ANTHROPIC_BASE_URL) in .env and run again.",
  // ── the net under a lesson's run (runtime/net.ts) ──
  "net.repeats": "Stopped: the model answered that it was done (stop_reason \"{stop}\", no tool to run) and your loop asked it again, {n} times in a row. Does your loop return when stop_reason is not \"tool_use\"?\n  If it means to ask again, run with --max-requests=0 (or COURSE_MAX_REQUESTS=0) to turn this check off.",
  "net.after-done": "Stopped: the model answered that it was done (stop_reason \"{stop}\", no tool to run) {n} times in this run, and each time your loop went on. Does your loop return when stop_reason is not \"tool_use\"?\n  If it means to go on, run with --max-requests=0 (or COURSE_MAX_REQUESTS=0) to turn this check off.",
  "net.limit": "Stopped: your loop made {limit} requests in one run and never returned. Does it stop when stop_reason is not \"tool_use\"?\n  To allow more, run again with --max-requests=N (or set COURSE_MAX_REQUESTS=N; 0 turns this check off).",
  "net.not-a-number": "{name} must be a whole number (0 for no limit), not \"{raw}\".",
} as const satisfies Record<string, string>;

export type WordId = keyof typeof CLI_WORDS;

/** A language's words, as runtime/i18n/cli.<lang>.json holds them (id → text). */
export type WordTable = Readonly<Record<string, string>>;

const tables = new Map<Lang, WordTable>();

/** The words of `lang` from its file (English: none, the catalog above is English); a file that does not parse is named. */
export function translatedWords(lang: Lang): WordTable {
  if (lang === "en") return {};
  const known = tables.get(lang);
  if (known) return known;
  const file = new URL(`./i18n/cli.${lang}.json`, import.meta.url);
  const out: Record<string, string> = {};
  if (existsSync(file)) {
    let data: unknown;
    try {
      data = JSON.parse(readFileSync(file, "utf8"));
    } catch (e) {
      throw new Error(`runtime/i18n/cli.${lang}.json does not parse: ${(e as Error).message}`);
    }
    for (const [id, text] of Object.entries(data as Record<string, unknown>)) {
      if (id.startsWith("$")) continue;
      if (typeof text !== "string" || !text.trim()) throw new Error(`runtime/i18n/cli.${lang}.json: "${id}" needs its words, a non-empty string`);
      out[id] = text;
    }
  }
  tables.set(lang, out);
  return out;
}

/** The `{name}` slots of a text, sorted and without repeats. */
export function slotsOf(text: string): string[] {
  return [...new Set([...text.matchAll(/\{(\w+)\}/g)].map((m) => m[1]!))].sort();
}

/**
 * A word of the command line in the learner's language, its `{name}` slots filled from `vars`;
 * English when the language has none for it (or its text lost a slot of the English one).
 * `table` replaces the language's file (tests).
 */
export function word(id: WordId, vars: Record<string, string | number> = {}, lang: Lang = courseLang(), table: WordTable = translatedWords(lang)): string {
  const english: string = CLI_WORDS[id];
  const own = table[id];
  const text = own !== undefined && slotsOf(own).join() === slotsOf(english).join() ? own : english;
  return text.replace(/\{(\w+)\}/g, (slot, name: string) => (Object.hasOwn(vars, name) ? String(vars[name]) : slot));
}

/** What a lesson needs for its title: its id, its folder and its English title. */
export interface Titled {
  id: string;
  dir: string;
  title: string;
}

/** The title the heading of a lesson's page in `lang` gives ("# s06 · 防护" → "防护"), undefined without a page or a title there. */
export function pageTitleIn(lesson: Titled, lang: Lang, docs = new URL("../docs/", import.meta.url)): string | undefined {
  if (lang === "en") return lesson.title;
  const page = new URL(`${lang}/lessons/${lesson.dir}.md`, docs);
  if (!existsSync(page)) return undefined;
  const heading = /^#\s+(.+)$/m.exec(readFileSync(page, "utf8"))?.[1] ?? "";
  return heading.replace(/^s\d+\s*·\s*/, "").trim() || undefined;
}

const titles = new Map<string, string>();

/** A lesson's title in the learner's language: its page's heading in that language, else its English title. */
export function lessonTitle(lesson: Titled, lang: Lang = courseLang()): string {
  const key = `${lang}/${lesson.dir}`;
  let title = titles.get(key);
  if (title === undefined) {
    title = pageTitleIn(lesson, lang) ?? lesson.title;
    titles.set(key, title);
  }
  return title;
}

/** A word to say later, in the language of whoever prints it (a check's verdict is cached as it was found). */
export interface Said {
  id: WordId;
  vars: Record<string, string | number>;
}

/**
 * Words written beside the code that uses them (a check's verdict, whose sentences are built around
 * counts and rule words), in every language of the course: the type asks for each language of
 * COURSE_LANGS, so a language added there is a type error until each of them has its words.
 */
export function inEvery(words: Record<Lang, string>, lang: Lang = courseLang()): string {
  return words[lang];
}
