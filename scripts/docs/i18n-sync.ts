/**
 * The translations' sync check: every page and every rule exists in every language of the site,
 * and a translated page whose English source changed after it was translated is reported with the
 * English lines that changed since. The command line's languages too: every lesson's hints, its
 * title (the heading of its translated page, which `npm run list`, check and hint show) and every
 * word of the command line (runtime/words.ts, runtime/i18n/cli.<lang>.json, each `{slot}` kept).
 *
 *   npm run docs:sync                         report (exit 1 on a missing page or rule, or drift)
 *   npm run docs:sync -- --mark zh/guide/x.md  record that zh/guide/x.md is up to date with the English page now
 *   npm run docs:sync -- --mark-all           record every translation as up to date (after checking them)
 *
 * The record is docs/i18n.json: per translated page, the English page it translates, a hash of
 * that page's text as it was translated (generated blocks, between `<!-- name:start -->` and
 * `<!-- name:end -->` markers, left out: their generator writes every language) and its git blob,
 * so the check can show the lines that changed since (`git cat-file`; without that blob, it says
 * so and names the page all the same). `npm run verify` runs the same check.
 *
 * The languages are the site's (docs/.vitepress/config.ts `locales`: the root is English, every
 * other locale is a folder docs/<lang>/). A new language (ja, ru) needs its locale in the config,
 * its pages, its words for each rule (runtime/rules.ts and each course.json) and its records here.
 */
import { createHash } from "node:crypto";
import { execFileSync } from "node:child_process";
import { existsSync, readFileSync, readdirSync, writeFileSync } from "node:fs";
import { join, relative, sep } from "node:path";
import { structuredPatch } from "diff";

export const LOCK_FILE = "docs/i18n.json";

export interface PageRecord {
  /** The English page this one translates, relative to docs/. */
  source: string;
  /** sha256 of the English page's text (generated blocks left out) when it was translated. */
  hash: string;
  /** Its git blob (`git hash-object`), to show what changed since. */
  blob: string;
}

export interface Lock {
  /** Translated page (relative to docs/, e.g. "zh/guide/commands.md") → what it was translated from. */
  pages: Record<string, PageRecord>;
}

export interface SyncOptions {
  /** The repository root. */
  root: string;
  /** The site's languages other than English (their folders under docs/). */
  languages: readonly string[];
  /** Each rule id with the languages its words are written in. */
  rules?: Record<string, readonly string[]>;
  /** The languages `npm run check` and `npm run hint` speak (runtime/rules.ts COURSE_LANGS). */
  courseLanguages?: readonly string[];
  /** Each lesson id with the languages its two hints are written in (English: the lesson's own). */
  hints?: Record<string, readonly string[]>;
  /** Each lesson id with its picture's labels (docs/.vitepress/theme/diagrams.ts or the lesson's course.json "diagram"). */
  pictures?: Record<string, readonly PictureWords[]>;
  /**
   * Each lesson with its title in each language of the course: the English one, and the title the
   * heading of its page in each other language gives (undefined: no page, or no title there).
   */
  titles?: Record<string, { dir: string; en: string } & Record<string, string | undefined>>;
  /** The command line's words: the English ones by id (runtime/words.ts), and each other language's (runtime/i18n/cli.<lang>.json). */
  cliWords?: { en: Readonly<Record<string, string>>; translated: Readonly<Record<string, Readonly<Record<string, string>>>> };
}

/** One label of a lesson's picture, in the languages it is written in. */
export type PictureWords = { en: string; zh?: string } & Record<string, string | undefined>;

export interface Finding {
  kind: "missing-page" | "orphan-page" | "no-record" | "drift" | "missing-rule" | "missing-hint" | "missing-picture-words" | "cli-language" | "missing-title" | "missing-cli-word" | "orphan-cli-word";
  /** The page (relative to docs/) or the rule id. */
  where: string;
  message: string;
  /** For drift: the English lines changed since the translation (a unified diff), or why there is none. */
  diff?: string;
}

/** A generated block: its start and end markers, each on a line of its own. */
const GENERATED = /^([ \t]*<!--\s*([\w-]+):(?:start|latest:start)\s*-->[ \t]*)$[\s\S]*?^([ \t]*<!--\s*\2:(?:end|latest:end)\s*-->[ \t]*)$/gm;

/** A page's text as the check compares it: generated blocks emptied, line ends and trailing blanks ignored. */
export function normalize(text: string): string {
  return text
    .replace(/\r\n/g, "\n")
    .replace(GENERATED, "$1\n$3")
    .split("\n")
    .map((l) => l.trimEnd())
    .join("\n")
    .trim();
}

export const textHash = (text: string) => createHash("sha256").update(normalize(text)).digest("hex").slice(0, 16);

/** Markdown pages under a folder, relative to it, sorted. */
function markdownUnder(dir: string, skip: (rel: string) => boolean): string[] {
  if (!existsSync(dir)) return [];
  return (readdirSync(dir, { recursive: true, encoding: "utf8" }) as string[])
    .map((f) => f.split(sep).join("/"))
    .filter((f) => f.endsWith(".md") && !skip(f))
    .sort();
}

/** The English pages: every .md under docs/ but the other languages' folders, the theme and public files. */
export function englishPages(root: string, languages: readonly string[]): string[] {
  const other = new Set([...languages, ".vitepress", "public", "node_modules"]);
  return markdownUnder(join(root, "docs"), (f) => other.has(f.split("/")[0]!));
}

export function readLock(root: string): Lock {
  const file = join(root, LOCK_FILE);
  if (!existsSync(file)) return { pages: {} };
  const raw = JSON.parse(readFileSync(file, "utf8")) as Partial<Lock>;
  return { pages: raw.pages ?? {} };
}

export function writeLock(root: string, lock: Lock): void {
  const pages = Object.fromEntries(Object.entries(lock.pages).sort(([a], [b]) => a.localeCompare(b)));
  writeFileSync(join(root, LOCK_FILE), `${JSON.stringify({ pages }, null, 2)}\n`);
}

function git(root: string, args: string[], input?: string): string | null {
  try {
    return execFileSync("git", args, { cwd: root, encoding: "utf8", stdio: ["pipe", "pipe", "ignore"], ...(input !== undefined ? { input } : {}) });
  } catch {
    return null;
  }
}

/** The English lines changed since the recorded blob, as a unified diff (at most `max` lines). */
function changedLines(root: string, record: PageRecord, now: string, max = 60): string {
  const then = git(root, ["cat-file", "-p", record.blob]);
  if (then === null) return `(the English page as it was translated, git blob ${record.blob.slice(0, 10)}, is not in this clone: fetch the full history to see the lines)`;
  const patch = structuredPatch(`docs/${record.source} (translated)`, `docs/${record.source} (now)`, normalize(then) + "\n", normalize(now) + "\n", "", "", { context: 1 });
  const lines = patch.hunks.flatMap((h) => [`@@ -${h.oldStart},${h.oldLines} +${h.newStart},${h.newLines} @@`, ...h.lines]);
  return lines.length > max ? [...lines.slice(0, max), `… ${lines.length - max} more diff lines`].join("\n") : lines.join("\n");
}

/** Everything out of sync: missing pages and rules, translations never recorded, and drift. */
export function syncFindings(opts: SyncOptions): Finding[] {
  const { root, languages } = opts;
  const lock = readLock(root);
  const english = englishPages(root, languages);
  const out: Finding[] = [];
  for (const lang of languages) {
    const translated = new Set(markdownUnder(join(root, "docs", lang), () => false));
    for (const page of english) {
      const path = `${lang}/${page}`;
      if (!translated.has(page)) {
        out.push({ kind: "missing-page", where: path, message: `docs/${path} is missing: translate docs/${page}, then npm run docs:sync -- --mark ${path}` });
        continue;
      }
      const record = lock.pages[path];
      const now = readFileSync(join(root, "docs", page), "utf8");
      if (!record) {
        out.push({ kind: "no-record", where: path, message: `docs/${path} has no record of the English page it translates: check it against docs/${page}, then npm run docs:sync -- --mark ${path}` });
        continue;
      }
      if (record.hash !== textHash(now))
        out.push({
          kind: "drift",
          where: path,
          message: `docs/${page} changed after docs/${path} was translated: bring the translation up to date with the lines below, then npm run docs:sync -- --mark ${path}`,
          diff: changedLines(root, record, now),
        });
    }
    for (const page of translated)
      if (!english.includes(page)) out.push({ kind: "orphan-page", where: `${lang}/${page}`, message: `docs/${lang}/${page} translates no English page (docs/${page} does not exist): remove it, or write the English page` });
  }
  for (const lang of ["en", ...languages])
    if (opts.courseLanguages && !opts.courseLanguages.includes(lang))
      out.push({ kind: "cli-language", where: lang, message: `the site speaks ${lang} but npm run check and hint do not: add "${lang}" to COURSE_LANGS in runtime/rules.ts, and its words` });
  for (const lang of opts.courseLanguages ?? [])
    if (lang !== "en" && !languages.includes(lang))
      out.push({ kind: "cli-language", where: lang, message: `npm run check speaks ${lang} but the site does not: add its locale to docs/.vitepress/config.ts and its pages` });
  for (const [id, has] of Object.entries(opts.rules ?? {}))
    for (const lang of ["en", ...languages])
      if (!has.includes(lang)) out.push({ kind: "missing-rule", where: id, message: `rule "${id}" has no ${lang} words (what, fix): add them in runtime/rules.ts or the lesson's course.json` });
  for (const [id, has] of Object.entries(opts.hints ?? {}))
    for (const lang of (opts.courseLanguages ?? []).filter((l) => l !== "en"))
      if (!has.includes(lang)) out.push({ kind: "missing-hint", where: id, message: `${id}'s hints have no ${lang} words: add "${id}": [the first hint, the stronger one] to runtime/i18n/hints.${lang}.json (npm run hint shows the English ones meanwhile)` });
  const cliLangs = (opts.courseLanguages ?? []).filter((l) => l !== "en");
  for (const [id, t] of Object.entries(opts.titles ?? {}))
    for (const lang of cliLangs) {
      const own = t[lang]?.trim();
      if (!own || own === t.en.trim())
        out.push({
          kind: "missing-title",
          where: id,
          message: `${id}'s title has no ${lang} words: write it in the heading of docs/${lang}/lessons/${t.dir}.md ("# ${id} · …"), the title npm run list, check and hint show in ${lang} (they show "${t.en}" meanwhile)`,
        });
    }
  if (opts.cliWords) {
    const { en, translated } = opts.cliWords;
    for (const lang of cliLangs) {
      const own = translated[lang] ?? {};
      for (const [id, english] of Object.entries(en)) {
        const text = own[id];
        if (text === undefined || !text.trim())
          out.push({ kind: "missing-cli-word", where: id, message: `the command line's word "${id}" has no ${lang} words: add "${id}": "…" to runtime/i18n/cli.${lang}.json, the English being ${JSON.stringify(english)} (the command line says it in English meanwhile)` });
        else if (slotsOf(text).join() !== slotsOf(english).join())
          out.push({ kind: "missing-cli-word", where: id, message: `runtime/i18n/cli.${lang}.json: "${id}" must keep the English text's slots (${slotsOf(english).map((s) => `{${s}}`).join(", ") || "none"}), it has ${slotsOf(text).map((s) => `{${s}}`).join(", ") || "none"}: fix them (the command line says it in English meanwhile)` });
      }
      for (const id of Object.keys(own))
        if (!Object.hasOwn(en, id))
          out.push({ kind: "orphan-cli-word", where: id, message: `runtime/i18n/cli.${lang}.json has "${id}", a word runtime/words.ts does not have: remove it, or add its English to CLI_WORDS` });
    }
  }
  for (const [id, labels] of Object.entries(opts.pictures ?? {}))
    for (const lang of languages) {
      const lacking = untranslatedLabels(labels, lang);
      if (lacking.length > 0)
        out.push({
          kind: "missing-picture-words",
          where: id,
          message: `${id}'s picture has ${lacking.length} label(s) without ${lang} words (${lacking.slice(0, 3).map((l) => JSON.stringify(l)).join(", ")}${lacking.length > 3 ? ", …" : ""}): give each its "${lang}" in docs/.vitepress/theme/diagrams.ts (w(en, zh, ja, ru)) or the lesson's course.json "diagram" (the ${lang} page shows them in English meanwhile)`,
        });
    }
  return out;
}

/**
 * The English labels of a picture that have no words in `lang`: a label is translated when its
 * `lang` words are there and differ from the English, unless the label is code (the same in English
 * and Chinese but for full-width punctuation and spaces, as "tool_use" or "finally：stopAll()"), which every
 * language shows as it is.
 */
export function untranslatedLabels(labels: readonly PictureWords[], lang: string): string[] {
  const bare = (s: string) => s.normalize("NFKC").replace(/\s+/g, "");
  const same = (a: string | undefined, b: string) => a !== undefined && bare(a) === bare(b);
  return labels.filter((w) => !same(w.zh, w.en) && (!w[lang]?.trim() || same(w[lang], w.en))).map((w) => w.en);
}

/** Every Words object ({ en, zh, … }) inside a picture: its title, caption, boxes, arrows and axis. */
export function pictureLabels(diagram: unknown): PictureWords[] {
  const out: PictureWords[] = [];
  const walk = (x: unknown) => {
    if (Array.isArray(x)) x.forEach(walk);
    else if (x && typeof x === "object") {
      if (typeof (x as { en?: unknown }).en === "string") out.push(x as PictureWords);
      else Object.values(x).forEach(walk);
    }
  };
  walk(diagram);
  return out;
}

/** The `{name}` slots of a text (runtime/words.ts fills them), sorted. */
const slotsOf = (text: string) => [...new Set([...text.matchAll(/\{(\w+)\}/g)].map((m) => m[1]!))].sort();

/** Each lesson with its title in every language of the course (runtime/words.ts: its page's heading). */
export async function lessonTitles(): Promise<NonNullable<SyncOptions["titles"]>> {
  const { LESSONS } = await import("../../runtime/manifest.ts");
  const { COURSE_LANGS } = await import("../../runtime/rules.ts");
  const { pageTitleIn } = await import("../../runtime/words.ts");
  return Object.fromEntries(LESSONS.map((l) => [l.id, { dir: l.dir, en: l.title, ...Object.fromEntries(COURSE_LANGS.filter((lang) => lang !== "en").map((lang) => [lang, pageTitleIn(l, lang)])) }]));
}

/** The command line's words: English (runtime/words.ts) and every other language of the course (runtime/i18n/cli.<lang>.json). */
export async function cliWords(): Promise<NonNullable<SyncOptions["cliWords"]>> {
  const { COURSE_LANGS } = await import("../../runtime/rules.ts");
  const { CLI_WORDS, translatedWords } = await import("../../runtime/words.ts");
  return { en: CLI_WORDS, translated: Object.fromEntries(COURSE_LANGS.filter((l) => l !== "en").map((l) => [l, translatedWords(l)])) };
}

/** Each lesson with its picture's labels (diagrams.ts, or the lesson's course.json). */
export async function pictureWords(): Promise<Record<string, PictureWords[]>> {
  const { LESSONS } = await import("../../runtime/manifest.ts");
  const { diagramFor } = await import("../../docs/.vitepress/theme/diagrams.ts");
  const { registrationOf } = await import("../../runtime/registrations.ts");
  return Object.fromEntries(LESSONS.map((l) => [l.id, pictureLabels(diagramFor(l.dir, registrationOf(l.dir)?.diagram))]));
}

/** Records translated pages as up to date with their English pages as they are now. */
export function markTranslated(root: string, paths: readonly string[], languages: readonly string[]): string[] {
  const lock = readLock(root);
  const done: string[] = [];
  for (const raw of paths) {
    const path = raw.replace(/^docs\//, "");
    const lang = path.split("/")[0]!;
    const source = path.slice(lang.length + 1);
    if (!languages.includes(lang)) throw new Error(`${raw}: not a page of a translated language (${languages.join(", ")}): give it as <lang>/<page>.md`);
    if (!existsSync(join(root, "docs", path))) throw new Error(`docs/${path} does not exist`);
    if (!existsSync(join(root, "docs", source))) throw new Error(`docs/${source} (its English page) does not exist`);
    const text = readFileSync(join(root, "docs", source), "utf8");
    // -w keeps the blob in the repository's objects, so the diff works before the page is committed.
    const blob = (git(root, ["hash-object", "-w", "--stdin"], text) ?? "").trim();
    lock.pages[path] = { source, hash: textHash(text), blob };
    done.push(path);
  }
  writeLock(root, lock);
  return done;
}

/** The site's other languages, from the VitePress config's locales (the root locale is English). */
export async function siteLanguages(): Promise<string[]> {
  const config = (await import("../../docs/.vitepress/config.ts")).default as { locales?: Record<string, unknown> };
  return Object.keys(config.locales ?? {}).filter((k) => k !== "root");
}

/** The languages the CLI speaks (runtime/rules.ts COURSE_LANGS). */
export async function courseLanguages(): Promise<string[]> {
  return [...(await import("../../runtime/rules.ts")).COURSE_LANGS];
}

/** Every rule id with the languages its words are written in (runtime/rules.ts and the lessons' course.json). */
export async function ruleLanguages(): Promise<Record<string, string[]>> {
  const { RULES } = await import("../../runtime/rules.ts");
  const out: Record<string, string[]> = {};
  for (const [id, entry] of Object.entries(RULES)) {
    const e = entry as unknown as Record<string, { what?: string; fix?: string } | string>;
    out[id] = Object.keys(e).filter((k) => k !== "stage" && typeof e[k] === "object" && Boolean((e[k] as { what?: string }).what?.trim()) && Boolean((e[k] as { fix?: string }).fix?.trim()));
  }
  return out;
}

/** Each lesson with the languages of the course its hints are translated into (runtime/i18n/hints.<lang>.json). */
export async function hintLanguages(): Promise<Record<string, string[]>> {
  const { LESSONS } = await import("../../runtime/manifest.ts");
  const { COURSE_LANGS } = await import("../../runtime/rules.ts");
  const { translatedHints } = await import("../lib/hints.ts");
  const by = Object.fromEntries(COURSE_LANGS.filter((l) => l !== "en").map((l) => [l, translatedHints(l)] as const));
  return Object.fromEntries(LESSONS.map((l) => [l.id, ["en", ...Object.keys(by).filter((lang) => by[lang]![l.id])]]));
}

/** The course's own languages, pages, rules, hints, pictures, titles and command-line words, for syncFindings. */
export async function courseSyncOptions(root: string, languages: readonly string[]): Promise<SyncOptions> {
  return {
    root,
    languages,
    rules: await ruleLanguages(),
    courseLanguages: await courseLanguages(),
    hints: await hintLanguages(),
    pictures: await pictureWords(),
    titles: await lessonTitles(),
    cliWords: await cliWords(),
  };
}

/**
 * The check as one line per problem (drift followed by its diff), for `npm run verify`; with
 * `lessonDirs`, only those lessons' pages (and every rule), as `npm run verify -- sNN` checks one lesson.
 */
export async function syncProblems(root: string, lessonDirs?: readonly string[]): Promise<string[]> {
  const languages = await siteLanguages();
  const mine = (f: Finding) => !lessonDirs || !["missing-page", "orphan-page", "no-record", "drift"].includes(f.kind) || lessonDirs.some((d) => f.where.endsWith(`lessons/${d}.md`));
  return syncFindings(await courseSyncOptions(root, languages))
    .filter(mine)
    .map((f) => (f.diff ? `${f.message}\n${indent(f.diff)}` : f.message));
}

const indent = (s: string) =>
  s
    .split("\n")
    .map((l) => `      ${l}`)
    .join("\n");

if (process.argv[1] && import.meta.url === new URL(`file://${process.argv[1]}`).href) {
  const { ROOT } = await import("../lib/paths.ts");
  const { strictArgsOrExit } = await import("../lib/args.ts");
  const usage = "[--mark LANG/PAGE.md … | --mark-all]";
  const { values, positionals } = strictArgsOrExit({ command: "npm run docs:sync --", usage, options: { mark: { type: "boolean" }, "mark-all": { type: "boolean" }, help: { type: "boolean" } }, positionals: { max: Infinity } });
  if (values.help) {
    console.log(`usage: npm run docs:sync -- ${usage}\n\nWithout a flag: every page and rule in every language, and every translation older than its English page (the lines that changed).\n--mark: record these translations as up to date with their English pages (after bringing them up to date). --mark-all: every translation.`);
    process.exit(0);
  }
  if (positionals.length > 0 && !values.mark) {
    console.error(`npm run docs:sync --: unexpected argument "${positionals[0]}": pages are named after --mark. usage: npm run docs:sync -- ${usage}`);
    process.exit(2);
  }
  const languages = await siteLanguages();
  if (values.mark || values["mark-all"]) {
    const pages =
      values["mark-all"]
        ? languages.flatMap((lang) => englishPages(ROOT, languages).map((p) => `${lang}/${p}`).filter((p) => existsSync(join(ROOT, "docs", p))))
        : positionals;
    if (pages.length === 0) {
      console.error("which page? npm run docs:sync -- --mark zh/guide/commands.md");
      process.exit(2);
    }
    try {
      for (const p of markTranslated(ROOT, pages, languages)) console.log(`recorded: docs/${p} is up to date with docs/${p.slice(p.indexOf("/") + 1)}`);
    } catch (e) {
      console.error((e as Error).message);
      process.exit(2);
    }
  } else {
    const findings = syncFindings(await courseSyncOptions(ROOT, languages));
    for (const f of findings) console.log(`${f.kind}: ${f.message}${f.diff ? `\n${indent(f.diff)}` : ""}`);
    const pages = englishPages(ROOT, languages).length;
    console.log(
      findings.length === 0
        ? `docs:sync: ${pages} English page(s), each translated into ${languages.join(", ")} and up to date; every rule, hint, picture, lesson title and command-line word in every language`
        : `docs:sync: ${findings.length} problem(s) in ${relative(ROOT, join(ROOT, LOCK_FILE))}'s languages (${["en", ...languages].join(", ")})`,
    );
    process.exitCode = findings.length === 0 ? 0 : 1;
  }
}
