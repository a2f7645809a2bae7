/**
 * The docs site in a real browser: `npm run test:e2e`.
 *
 * Builds the site (`npm run docs:build`; skip with --no-build), serves docs/.vitepress/dist on
 * 127.0.0.1 with a small static server on a free port, and drives it in headless Chromium
 * (Debian's /usr/bin/chromium, through playwright-core). On every lesson page of the manifest, in
 * every language of the site (en, and each of zh ja ru whose home page docs/<lang>/index.md
 * exists): imported code, the exercise's answers folded until asked (no line only the
 * reference solution has is visible before "Show the reference solution" is opened), the lesson's
 * picture labelled in the page's language, the diff view (summary card, code folded, the loop's
 * change first, line numbers, split view, any two lessons), the recorded run with every tool_use
 * linked to its tool_result, and the step-through player stepped through the whole run from the
 * keyboard. A lesson that gives files whole (s27): its diff view marks exactly those files, in its
 * card and on each file's header, after the exercise's files. Then: a learner's own JSONL in the viewer and the player, the language switch to and
 * from each language, local search in each (CJK words inside longer ones, no generated diff in the
 * results), each translated language's navigation and report blocks (headings, columns and rows), message tables drawn as HTML tables (none left
 * as text, none wider than the column), picture labels inside their boxes, previous/next kept inside the lessons, no dead internal link (a crawl), every
 * page at 1280 and 390 px without sideways scroll or raw `**`, and no console errors anywhere.
 * Screenshots of every lesson page (with --sample, of those that failed) and details at desktop
 * and phone widths go to docs/.vitepress/cache/e2e/ (git-ignored), kept as the run's artifacts. Prints one line per
 * check and exits non-zero when any fails.
 *
 * `--sample` (CI, through `npm run test:all -- --sample`): English is checked on every page as
 * above; Chinese, Japanese and Russian on a fixed sample of lessons each (the first, the last, every
 * sixth from an offset of the language's own) with all their home and guide pages, so four
 * languages fit CI's time. The dead-link crawl always covers every page of every language, and
 * every picture's words in every language are checked without a browser (npm test).
 *
 *   npm run test:e2e [-- --no-build] [-- --only s01] [-- --sample]
 */
import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, readFileSync, readdirSync, statSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { dirname, extname, join, normalize, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { chromium, type Browser, type Page } from "playwright-core";
import { LESSONS, findLesson, type Lesson } from "../../runtime/manifest.ts";
import { HTML_LANG, SCRIPT, SITE_LANGS, TRANSLATED, langDir, type SiteLang } from "../../docs/.vitepress/theme/langs.ts";
import { CODE_WORDS, missingLessonPages, pageTitle } from "../../scripts/docs/pages.ts";
import { answerLines, findRegion, importsIn, todoRegions } from "../../scripts/docs/regions.ts";
import { strictArgsOrExit } from "../../scripts/lib/args.ts";
import { dim } from "../../runtime/print.ts";
import { RULES } from "../../runtime/rules.ts";
import { givenMarkProblems } from "./given.ts";

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "../..");
const DIST = join(ROOT, "docs/.vitepress/dist");
const SHOTS = join(ROOT, "docs/.vitepress/cache/e2e");
const CHROMIUM = process.env.CHROMIUM_PATH ?? "/usr/bin/chromium";
/** The languages this build has: English, and each translation whose home page exists. */
const SITE: SiteLang[] = SITE_LANGS.filter((l) => l === "en" || existsSync(join(ROOT, "docs", l, "index.md")));
const OTHERS = SITE.filter((l) => l !== "en");
const NAMES: Record<SiteLang, string> = { en: "English", zh: "Chinese", ja: "Japanese", ru: "Russian" };
/** Whether a text is in a language's own script (English: always). */
const inScript = (lang: SiteLang, text: string) => SCRIPT[lang]?.test(text) ?? true;
/** A link's href that is none of the translations (the English page). */
const NOT_TRANSLATED = TRANSLATED.map((l) => `:not([href*="/${l}/"])`).join("");
const FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update", "--disable-sync"];
const cli = strictArgsOrExit({
  command: "npm run test:e2e",
  usage: "[-- --no-build] [-- --only sNN] [-- --sample]",
  options: { "no-build": { type: "boolean" }, only: { type: "string" }, sample: { type: "boolean" } },
});
/**
 * In --sample mode English is checked on every page; each translation on a fixed sample of its
 * lessons: the first and the last, and every sixth from an offset of its own (zh from s01, ja from
 * s03, ru from s05), so the three samples together cover different lessons.
 */
const SAMPLE_OFFSET: Partial<Record<SiteLang, number>> = { zh: 0, ja: 2, ru: 4 };
const sampled = (lang: SiteLang, dir: string) => {
  const i = LESSONS.findIndex((l) => l.dir === dir);
  return i === 0 || i === LESSONS.length - 1 || (i - (SAMPLE_OFFSET[lang] ?? 0)) % 6 === 0;
};
/** Whether a lesson page of this language is checked page by page in this run. */
const checksLesson = (lang: SiteLang, dir: string) => !cli.values.sample || lang === "en" || sampled(lang, dir);
/** Whether a page (a site path) is visited by the every-page checks in this run: in --sample, a translation's lesson pages on its sample. */
const checksPath = (path: string) => {
  const m = /^\/([a-z]{2})\/lessons\/([^/.#?]+)/.exec(path);
  return !m || !(TRANSLATED as readonly string[]).includes(m[1]!) || checksLesson(m[1] as SiteLang, m[2]!);
};
const onlyKey = cli.values.only;
if (onlyKey !== undefined && !findLesson(onlyKey)) {
  console.error(`npm run test:e2e: no lesson "${onlyKey}" for --only: the lessons are ${LESSONS.map((l) => l.id).join(", ")}`);
  process.exit(2);
}

// ---------------------------------------------------------------- reporting

const failures: string[] = [];
let passed = 0;

async function check(name: string, fn: () => Promise<void>): Promise<void> {
  const started = Date.now();
  const took = () => dim(` (${((Date.now() - started) / 1000).toFixed(1)} s)`);
  try {
    await fn();
    passed++;
    console.log(`  ok    ${name}${took()}`);
  } catch (e) {
    const why = e instanceof Error ? e.message.split("\n")[0] : String(e);
    failures.push(`${name}: ${why}`);
    console.log(`  FAIL  ${name}${took()}\n        ${why}`);
  }
}

function expect(cond: unknown, message: string): asserts cond {
  if (!cond) throw new Error(message);
}

// ---------------------------------------------------------------- static server

const TYPES: Record<string, string> = {
  ".html": "text/html; charset=utf-8",
  ".js": "text/javascript",
  ".css": "text/css",
  ".json": "application/json",
  ".svg": "image/svg+xml",
  ".png": "image/png",
  ".woff2": "font/woff2",
  ".ico": "image/x-icon",
  ".txt": "text/plain",
};

/** The file a clean URL names: /a/b → a/b.html, /a/ → a/index.html. Null when there is none. */
function fileFor(urlPath: string): string | null {
  const clean = normalize(decodeURIComponent(urlPath)).replace(/^(\.\.[\\/])+/, "");
  const base = join(DIST, clean);
  if (!base.startsWith(DIST)) return null;
  for (const candidate of [base, `${base}.html`, join(base, "index.html")])
    if (existsSync(candidate) && statSync(candidate).isFile()) return candidate;
  return null;
}

function serve(): Promise<{ server: Server; origin: string }> {
  const server = createServer((req, res) => {
    const path = new URL(req.url ?? "/", "http://x").pathname;
    const file = fileFor(path);
    if (!file) {
      res.writeHead(404, { "content-type": TYPES[".html"] });
      res.end(existsSync(join(DIST, "404.html")) ? readFileSync(join(DIST, "404.html")) : "not found");
      return;
    }
    res.writeHead(200, { "content-type": TYPES[extname(file)] ?? "application/octet-stream" });
    res.end(readFileSync(file));
  });
  return new Promise((ok) => server.listen(0, "127.0.0.1", () => ok({ server, origin: `http://127.0.0.1:${(server.address() as AddressInfo).port}` })));
}

// ---------------------------------------------------------------- browser helpers

/** Console errors, page errors and failed same-origin requests, by page. */
const consoleErrors: string[] = [];

function watchErrors(page: Page, origin: string): void {
  page.on("console", (msg) => {
    if (msg.type() === "error") consoleErrors.push(`${page.url()}: console error: ${msg.text()} ${msg.location().url}`);
  });
  page.on("pageerror", (err) => consoleErrors.push(`${page.url()}: uncaught: ${err.message}`));
  page.on("response", (res) => {
    if (res.url().startsWith(origin) && res.status() >= 400) consoleErrors.push(`${page.url()}: ${res.status()} for ${res.url()}`);
  });
}

async function open(page: Page, url: string): Promise<void> {
  const res = await page.goto(url, { waitUntil: "networkidle" });
  expect(res && res.status() === 200, `${url} answered ${res?.status() ?? "nothing"}`);
}

interface Recording {
  type: string;
  error?: string;
  messages?: { role: string; content: unknown }[];
}

function toolUseCount(rec: Recording): number {
  let n = 0;
  for (const m of rec.messages ?? [])
    if (Array.isArray(m.content)) for (const b of m.content as { type?: string }[]) if (b.type === "tool_use") n++;
  return n;
}

const squash = (s: string) => s.replace(/\s+/g, " ").trim();

/** The page's text a reader can see: text nodes under .vp-doc whose element is rendered (not in a closed <details>). */
async function visibleText(page: Page): Promise<string> {
  const text = await page.locator(".vp-doc").first().evaluate((root) => {
    const walker = document.createTreeWalker(root, NodeFilter.SHOW_TEXT);
    const parts: string[] = [];
    for (let n = walker.nextNode(); n; n = walker.nextNode()) {
      const el = n.parentElement;
      if (el && el.checkVisibility({ contentVisibilityAuto: true, opacityProperty: true, visibilityProperty: true }) && !el.closest("details:not([open]) > :not(summary)"))
        parts.push(n.textContent ?? "");
    }
    return parts.join("");
  });
  return squash(text);
}

/**
 * An exercise's answer stays folded until asked (issue 14): no line that only the reference
 * solution of a TODO region has (regions.ts) is visible on the lesson page; the page has a closed
 * "Show the reference solution" block, and opening it shows the answers of the regions it imports.
 */
async function checkAnswersFolded(page: Page, lesson: Lesson, lang: SiteLang): Promise<void> {
  const regions = todoRegions(ROOT, lesson.dir);
  const answers = regions.flatMap((r) => answerLines(ROOT, r, 24).map((line) => ({ where: `${r.path}#${r.region}`, line })));
  const before = await visibleText(page);
  const open = answers.filter((a) => before.includes(squash(a.line)));
  expect(open.length === 0, `the answer to ${open[0]?.where} shows before it is asked for: "${open[0]?.line}" (fold it under "Your turn")`);
  const source = readFileSync(join(ROOT, "docs", langDir(lang), "lessons", `${lesson.dir}.md`), "utf8");
  const imported = new Set(importsIn(source).map((i) => `${i.path}#${i.region}`));
  const shownAnswers = answers.filter((a) => imported.has(a.where));
  if (shownAnswers.length === 0) return;
  const fold = page.locator(".reference-solution details");
  expect((await fold.count()) >= 1, "no folded reference solution on a page that imports an exercise's answer");
  const summary = squash((await fold.first().locator("summary").textContent()) ?? "");
  const want = CODE_WORDS[lang].show;
  expect(summary === want, `the folded block is titled "${summary}", not "${want}"`);
  expect(!(await fold.first().evaluate((d) => (d as HTMLDetailsElement).open)), "the reference solution is open before it is asked for");
  const yourTurn = await page.locator("h2#your-turn").count();
  expect(yourTurn === 1, 'no "Your turn" heading (#your-turn) on the page');
  const after = await page.locator("h2#your-turn ~ .reference-solution details").count();
  expect(after >= 1, 'the folded reference solution is not after "Your turn"');
  for (let i = 0; i < (await fold.count()); i++) await fold.nth(i).locator("summary").click();
  const opened = await visibleText(page);
  const missing = [...new Set(shownAnswers.map((a) => a.where))].filter((w) => !shownAnswers.some((a) => a.where === w && opened.includes(squash(a.line))));
  expect(missing.length === 0, `opening "${want}" does not show the answer to ${missing.join(", ")}`);
  for (let i = 0; i < (await fold.count()); i++) await fold.nth(i).locator("summary").click();
}

/** The lesson page's checks, in one language. */
async function checkLessonPage(page: Page, origin: string, lesson: Lesson, index: number, lang: SiteLang): Promise<void> {
  const url = `${origin}/${langDir(lang)}lessons/${lesson.dir}`;
  await open(page, url);
  const h1 = (await page.locator(".vp-doc h1").first().textContent({ timeout: 5000 }))?.trim();
  expect(h1, "the page has no title (h1)");

  // Code imported from solutions/ (any highlighted block that is not the generated diff).
  const code = await page.locator('.vp-doc div[class*="language-"]:not(.language-diff) pre code').count();
  expect(code >= 1, "no code block: a lesson page imports its code from solutions/ with <<<");

  // The diff view (appended as #what-changed, or placed by the page with <LessonDiff />): a summary
  // card, the code folded (it holds the answers), opened it leads with the loop's change.
  if (index > 0) await checkDiffView(page, lesson, LESSONS[index - 1]!);

  await checkAnswersFolded(page, lesson, lang);

  // Imported code names its file and numbers its lines; no code block scrolls sideways (it wraps).
  const numbered = await page.locator(".vp-doc .code-file + div.numbered").count();
  expect(numbered >= 1, "no imported code block with its file name above it and its line numbers");
  const firstNumber = await page.locator(".vp-doc div.numbered code").first().getAttribute("style");
  expect(/counter-reset:\s*code-line \d+/.test(firstNumber ?? ""), "an imported block does not start at its line in the file");
  const scrolling = await page.locator('.vp-doc div[class*="language-"] pre').evaluateAll((els) => els.filter((e) => e.scrollWidth - e.clientWidth > 1).length);
  expect(scrolling === 0, `${scrolling} code block(s) scroll sideways at ${page.viewportSize()?.width} px`);

  // The lesson's picture: an SVG drawn with text labels, in the page's language.
  const pictures = page.locator(".vp-doc .course-diagram:not(.lp-diagram) svg");
  expect((await pictures.count()) >= 1, `no picture of the lesson's idea: give solutions/${lesson.dir}/course.json a "diagram" (s01–s17: an entry of docs/.vitepress/theme/diagrams.ts)`);
  const labels = (await pictures.first().locator("text").allTextContents()).map((l) => l.trim()).filter(Boolean);
  expect(labels.length >= 3, `the picture has ${labels.length} labels`);
  expect(labels.some((l) => inScript(lang, l)), `the picture's labels are not in ${NAMES[lang]}: ${labels.slice(0, 3).join(" | ")} (docs/.vitepress/theme/diagrams.ts, or the lesson's course.json "diagram")`);
  const box = await pictures.first().boundingBox();
  expect(box && box.width > 200 && box.height > 60, "the picture is not drawn (no size)");
  // Every label inside its box (wrapped, not cut off or running over the border).
  const spilled = await pictures.first().locator("g[data-box]").evaluateAll((groups) =>
    groups.flatMap((g) => {
      const r = (g.querySelector("rect") as SVGRectElement).getBBox();
      return Array.from(g.querySelectorAll("text")).filter((t) => {
        const b = (t as SVGTextElement).getBBox();
        return b.x < r.x - 1 || b.x + b.width > r.x + r.width + 1 || b.y < r.y - 1 || b.y + b.height > r.y + r.height + 1;
      }).map((t) => `${g.getAttribute("data-box")}: "${t.textContent}"`);
    }),
  );
  expect(spilled.length === 0, `picture labels run out of their boxes (docs/.vitepress/theme/diagrams.ts): ${spilled.slice(0, 3).join("; ")}`);

  // Message tables are HTML tables (the recorded run's and the hand-written \`\`\`messages blocks), none left as text.
  const source = readFileSync(join(ROOT, "docs", langDir(lang), "lessons", `${lesson.dir}.md`), "utf8");
  const tables = (source.match(/^```messages\b/gm) ?? []).length + (source.match(/<RecordedTable\s*\/>/g) ?? []).length;
  expect((await page.locator(".vp-doc table.run-table").count()) >= tables, `the page has ${tables} message table(s) in its source and shows fewer as tables`);
  const asText = await page.locator('.vp-doc div[class*="language-"] pre').evaluateAll((els) => els.filter((e) => /^\s*\[\d+\]\s+(user|assistant)\b/m.test(e.textContent ?? "")).length);
  expect(asText === 0, `${asText} message table(s) written as text: write them as a \`\`\`messages block (scripts/docs/message-table.ts)`);

  // The recorded run, with every tool_use linked to its tool_result.
  const res = await fetch(`${origin}/transcripts/${lesson.dir}.json`);
  expect(res.ok, `no recording at /transcripts/${lesson.dir}.json`);
  const rec = (await res.json()) as Recording;
  expect(rec.type === "recorded", `the run could not be recorded: ${rec.error ?? rec.type}`);
  await page.locator(".tv-message").first().waitFor({ timeout: 10_000 });
  const shown = await page.locator(".tv-message").count();
  expect(shown === rec.messages!.length, `the viewer shows ${shown} messages, the recording has ${rec.messages!.length}`);
  const uses = await page.locator("[data-tool-use]").evaluateAll((els) =>
    els.map((el) => ({ id: el.getAttribute("data-tool-use") ?? "", colour: getComputedStyle(el).borderLeftColor })),
  );
  expect(uses.length === toolUseCount(rec), `the viewer shows ${uses.length} tool_use blocks, the recording has ${toolUseCount(rec)}`);
  for (const u of uses) {
    const result = page.locator(`[data-tool-result="${u.id}"]`);
    expect((await result.count()) === 1, `tool_use ${u.id} is not linked to exactly one tool_result`);
    const colour = await result.evaluate((el) => getComputedStyle(el).borderLeftColor);
    expect(colour === u.colour, `tool_use ${u.id} and its tool_result have different colours (${u.colour} vs ${colour})`);
    const href = await page.locator(`[data-tool-use="${u.id}"] a.tv-id`).getAttribute("href");
    const target = await result.getAttribute("id");
    expect(href === `#${target}`, `tool_use ${u.id} does not link to its result's anchor`);
  }
  if (uses[0]) {
    await page.locator(`[data-tool-use="${uses[0].id}"]`).hover();
    const hot = await page.locator(`[data-tool-result="${uses[0].id}"]`).getAttribute("class");
    expect(hot?.includes("tv-hot"), "hovering a tool_use does not light up its tool_result");
  }
  const stops = await page.locator(".tv-stop").count();
  expect(stops >= 1, "no stop_reason shown on the assistant turns");

  await checkPlayer(page, rec.messages!.length, toolUseCount(rec));
}

/** The loop region of a lesson's entry file, as written. */
function loopOf(l: Lesson): string | null {
  const file = join(ROOT, "solutions", l.dir, l.entry);
  if (!existsSync(file)) return null;
  const r = findRegion(readFileSync(file, "utf8"), "loop");
  return r ? r.lines.join("\n") : null;
}

async function checkDiffView(page: Page, lesson: Lesson, previous: Lesson): Promise<void> {
  const view = page.locator(".ldv").first();
  expect((await view.count()) === 1, `no diff view against ${previous.id}`);
  await view.locator(".ldv-card").waitFor({ timeout: 10_000 });
  const title = squash((await view.locator(".ldv-card-title strong").textContent()) ?? "");
  expect(title === `${previous.id} → ${lesson.id}`, `the diff card compares "${title}", not ${previous.id} → ${lesson.id}`);
  expect((await view.locator(".ldv-files").count()) === 0, "the diff's code is open before it is asked for (it holds the exercise's answers)");
  if ((await view.locator(".ldv-open").count()) === 0) return; // no file changed
  await view.locator(".ldv-open").click();
  const kinds = await view.locator(".ldv-hunk").evaluateAll((els) => els.map((e) => e.getAttribute("data-kind") ?? ""));
  expect(kinds.length >= 1, "the opened diff shows no hunk");
  // A lesson whose entry has its own loop, changed from the previous one, leads with it (a lesson
  // that imports the previous loop has no loop change to show).
  const [mine, theirs] = [loopOf(lesson), loopOf(previous)];
  if (mine !== null && theirs !== null && mine !== theirs) expect(kinds[0] === "loop", `the diff leads with a "${kinds[0]}" hunk, not the loop's change`);
  const numbers = await view.locator(".ldv-code td.ldv-n").first().textContent();
  expect(/^\d+$/.test(squash(numbers ?? "")), "the diff shows no line numbers");
  await view.locator(".ldv-split").click();
  expect((await view.locator(".ldv-files.ldv-split .ldv-code tr").first().locator("td").count()) === 4, "the split view is not two columns of numbered lines");
  await view.locator(".ldv-unified").click();
  // Any two lessons: compare with the first lesson.
  const first = LESSONS[0]!;
  await view.locator("select.ldv-from").selectOption(first.dir);
  await page.waitForFunction((want) => document.querySelector(".ldv-card-title strong")?.textContent?.trim() === want, `${first.id} → ${lesson.id}`, { timeout: 5000 });
  await view.locator(".ldv-open").click().catch(() => {});
}

/** The files of a lesson the learner is given: its solution's files the exercise's folder holds as they are (the entry aside). */
function givenFiles(l: Lesson): string[] {
  const dir = join(ROOT, "solutions", l.dir);
  return readdirSync(dir, { recursive: true, encoding: "utf8" }).filter((f) => {
    const mine = join(ROOT, "lessons", l.dir, f);
    return f !== l.entry && statSync(join(dir, f)).isFile() && existsSync(mine) && readFileSync(mine, "utf8") === readFileSync(join(dir, f), "utf8");
  });
}

/**
 * A lesson that gives some files whole (s27: its program and its team are given, the exercise is in
 * agent.ts and verdict.ts): the diff view marks each given file, and only those, both in its card
 * and on the file's header, and shows the exercise's files first (docs/.vitepress/theme/diffmodel.ts
 * sorts them, LessonDiffView.vue marks them).
 */
async function checkGivenMarked(page: Page, origin: string, lesson: Lesson): Promise<void> {
  const given = givenFiles(lesson);
  expect(given.length > 0, `${lesson.id} gives no file whole (lessons/${lesson.dir} and solutions/${lesson.dir} differ in every file): this check needs a lesson that does`);
  await open(page, `${origin}/lessons/${lesson.dir}`);
  const view = page.locator(".ldv").first();
  await view.locator(".ldv-card").waitFor({ timeout: 10_000 });
  const word = "given code, not the exercise";
  const listed = await view.locator(".ldv-card dt").evaluateAll((dts, want) => dts.filter((dt) => dt.textContent?.trim() === want).flatMap((dt) => Array.from(dt.nextElementSibling?.querySelectorAll("code") ?? []).map((c) => c.textContent?.trim() ?? "")), word);
  await view.locator(".ldv-open").click();
  await view.locator(".ldv-file").first().waitFor({ timeout: 10_000 });
  const files = await view.locator(".ldv-file").evaluateAll((els) => els.map((e) => ({ path: e.getAttribute("data-path") ?? "", marked: e.querySelector(".ldv-file-head .ldv-given") !== null })));
  const problems = givenMarkProblems(lesson.id, { given, files, listed });
  expect(problems.length === 0, problems.join("\n"));
}

/** The player's state: its step, the stage it lights, the rows of its table. */
async function playerState(page: Page): Promise<{ step: number; stage: string; lit: string[]; rows: number }> {
  const player = page.locator(".lp").first();
  return {
    step: Number(await player.getAttribute("data-step")),
    stage: (await player.getAttribute("data-stage")) ?? "",
    lit: await player.locator(".lp-node.lp-lit").evaluateAll((els) => els.map((e) => e.getAttribute("data-node") ?? "")),
    rows: await player.locator(".lp-row").count(),
  };
}

/**
 * The step-through player steps through the whole run from the keyboard: the table grows one
 * message at a time to every message of the recording, the diagram lights the stage the caption
 * names, tool calls run and their results are appended, the run ends "done"; ids are paired by
 * colour; ▶ plays on its own.
 */
async function checkPlayer(page: Page, messages: number, toolUses: number): Promise<void> {
  const player = page.locator(".lp").first();
  expect((await player.count()) === 1, "no step-through player on the page");
  await player.locator(".lp-row").first().waitFor({ timeout: 10_000 });
  await player.focus();
  await page.keyboard.press("Home");
  let s = await playerState(page);
  expect(s.step === 0 && s.rows === 1 && s.stage === "task", `Home does not go to the first step (step ${s.step}, ${s.rows} rows, stage ${s.stage})`);
  const seen = new Set<string>([s.stage]);
  let rows = s.rows;
  // To the end of the recording: a run may be "done" and go on (s19's Stop hook sends the model back).
  for (let i = 0; i < 400 && !(s.stage === "done" && s.rows === messages); i++) {
    await page.keyboard.press("ArrowRight");
    const next = await playerState(page);
    expect(next.step === s.step + 1, `→ went from step ${s.step} to ${next.step}`);
    expect(next.rows >= rows && next.rows <= rows + 1, `the table went from ${rows} to ${next.rows} rows in one step`);
    expect(next.lit.length === 1 && next.lit[0] === next.stage, `the diagram lights ${next.lit.join(",") || "nothing"} at stage ${next.stage}`);
    rows = next.rows;
    s = next;
    seen.add(s.stage);
  }
  // Request by request: PageDown from the start lands on the first request being sent.
  await page.keyboard.press("Home");
  await page.keyboard.press("PageDown");
  const firstCall = await playerState(page);
  expect(firstCall.stage === "call", `PageDown goes to stage "${firstCall.stage}", not the next request ("call")`);
  await page.keyboard.press("End");
  s = await playerState(page);
  expect(s.stage === "done", `the last step is "${s.stage}", not "done"`);
  expect(s.rows === messages, `at the end the table shows ${s.rows} messages, the recording has ${messages}`);
  for (const stage of ["call", "append", "check", "done", ...(toolUses > 0 ? ["tools", "results"] : [])])
    expect(seen.has(stage), `stepping through never reached the "${stage}" stage`);
  const pairs = await player.locator(".lp-block[data-pair]").evaluateAll((els) =>
    els.map((e) => ({ id: e.getAttribute("data-pair") ?? "", kind: e.className, colour: getComputedStyle(e).borderLeftColor })),
  );
  for (const use of pairs.filter((p) => p.kind.includes("lp-kind-tool_use"))) {
    const result = pairs.find((p) => p.id === use.id && p.kind.includes("lp-kind-tool_result"));
    expect(result, `the player shows no tool_result for ${use.id}`);
    expect(result.colour === use.colour, `tool_use ${use.id} and its result have different colours in the player`);
  }
  expect(pairs.filter((p) => p.kind.includes("lp-kind-tool_use")).length === toolUses, "the player's table does not show every tool_use");
  await page.keyboard.press("Home");
  await player.locator(".lp-play").click();
  await page.waitForFunction(() => Number(document.querySelector(".lp")?.getAttribute("data-step")) >= 2, null, { timeout: 8000 });
  await player.locator(".lp-play").click();
}

// ---------------------------------------------------------------- the crawl

/** Every internal link of every page reachable from the home pages answers 200, anchors included. */
async function crawl(origin: string, starts: string[]): Promise<{ pages: number; links: number; dead: string[]; html: string[] }> {
  const seen = new Set<string>();
  const html = new Map<string, string>();
  const dead: string[] = [];
  let links = 0;
  const queue = [...starts];
  const get = async (path: string): Promise<string | null> => {
    if (html.has(path)) return html.get(path)!;
    const res = await fetch(origin + path);
    if (res.status !== 200) return null;
    const text = (res.headers.get("content-type") ?? "").includes("html") ? await res.text() : "";
    html.set(path, text);
    return text;
  };
  while (queue.length > 0) {
    const path = queue.shift()!;
    if (seen.has(path)) continue;
    seen.add(path);
    const page = await get(path);
    if (page === null) continue;
    for (const m of page.matchAll(/<a\b[^>]*?\shref="([^"]*)"/g)) {
      const raw = m[1]!.replace(/&amp;/g, "&");
      if (/^(https?:|mailto:|tel:|javascript:)/.test(raw)) continue;
      links++;
      const u = new URL(raw, origin + path);
      const target = u.pathname;
      const body = await get(target);
      if (body === null) {
        dead.push(`${path} → ${raw} (${target} not found)`);
        continue;
      }
      if (u.hash.length > 1 && body !== "") {
        const id = decodeURIComponent(u.hash.slice(1));
        if (!body.includes(`id="${id}"`)) dead.push(`${path} → ${raw} (no #${id} on ${target})`);
      }
      if (body !== "" && !seen.has(target)) queue.push(target);
    }
  }
  const pagesSeen = [...seen].filter((p) => (html.get(p) ?? "") !== "");
  return { pages: seen.size, links, dead, html: pagesSeen };
}

// ---------------------------------------------------------------- main

async function main(): Promise<number> {
  if (!existsSync(CHROMIUM)) {
    console.error(`Chromium is not installed at ${CHROMIUM}. Install it with \`apt-get install -y chromium\` (or set CHROMIUM_PATH).`);
    return 1;
  }
  if (!cli.values["no-build"]) {
    console.log("== building the site (npm run docs:build)");
    const b = spawnSync("npm", ["run", "docs:build"], { cwd: ROOT, stdio: "inherit" });
    if (b.status !== 0) {
      console.error("the docs build failed");
      return 1;
    }
  }
  expect(existsSync(join(DIST, "index.html")), "docs/.vitepress/dist/index.html is missing: build the site first");
  const lessons = onlyKey ? [findLesson(onlyKey)].filter((l): l is Lesson => l !== undefined) : LESSONS;

  const { server, origin } = await serve();
  let browser: Browser | undefined;
  try {
    console.log(`== ${origin}, ${CHROMIUM}`);
    browser = await chromium.launch({ executablePath: CHROMIUM, headless: true, args: FLAGS });
    const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    const page = await context.newPage();
    watchErrors(page, origin);

    await check(`every lesson of the manifest has its page in every language of the site (${SITE.join(", ")})`, async () => {
      const missing = missingLessonPages(ROOT, lessons).filter((p) => SITE.some((l) => p.startsWith(`docs/${langDir(l)}lessons/`)));
      expect(missing.length === 0, `missing: ${missing.join(", ")}`);
    });

    // The rules table is made from the catalog when the site is built (scripts/lib/rules-doc.ts): every rule, a lesson's own included.
    await check(`the rules page lists every rule of the catalog (${Object.keys(RULES).length}), in every language of the site`, async () => {
      for (const lang of SITE) {
        const path = `/${langDir(lang)}guide/message-rules`;
        if (!existsSync(join(ROOT, `docs${path}.md`))) continue; // not translated yet: the English page stands in
        await open(page, origin + path);
        const ids = new Set(await page.locator(".vp-doc table td:first-child code").allTextContents());
        const missing = Object.keys(RULES).filter((id) => !ids.has(id));
        expect(missing.length === 0, `${path}: rules missing from the table: ${missing.slice(0, 8).join(", ") || "(no table)"}`);
      }
    });

    await check("home page (en)", async () => {
      await open(page, `${origin}/`);
      const name = await page.locator(".VPHero .name").textContent();
      expect(name?.includes("Agent Loop"), `hero says "${name}"`);
      expect((await page.locator("html").getAttribute("lang")) === "en-US", "html lang is not en-US");
    });
    for (const lang of OTHERS)
      await check(`home page (${HTML_LANG[lang]})`, async () => {
        await open(page, `${origin}/${lang}/`);
        const name = await page.locator(".VPHero .name").textContent();
        expect(name && inScript(lang, name), `hero is not in ${NAMES[lang]}: "${name}"`);
        expect((await page.locator("html").getAttribute("lang")) === HTML_LANG[lang], `html lang is not ${HTML_LANG[lang]}`);
        mkdirSync(SHOTS, { recursive: true });
        await page.screenshot({ path: join(SHOTS, `home-${lang}-desktop.png`) });
      });

    for (const [i, lesson] of LESSONS.entries()) {
      if (!lessons.includes(lesson)) continue;
      for (const lang of SITE) {
        // A page missing in a language is named by the check above.
        if (!existsSync(join(ROOT, "docs", langDir(lang), "lessons", `${lesson.dir}.md`))) continue;
        if (!checksLesson(lang, lesson.dir)) continue;
        // The page's screenshot, kept as the run's artifact (docs/.vitepress/cache/e2e, git-ignored),
        // is taken as the check leaves it: no second visit. With --sample (CI) only for a page
        // whose check failed (a full-page screenshot of a long page takes seconds).
        await check(`${lesson.id} page (${HTML_LANG[lang]}): code, diff, picture, recorded run with linked pairs`, async () => {
          let ok = false;
          try {
            await checkLessonPage(page, origin, lesson, i, lang);
            ok = true;
          } finally {
            if (!ok || !cli.values.sample) {
              mkdirSync(SHOTS, { recursive: true });
              await page.screenshot({ path: join(SHOTS, `page-${lesson.dir}-${lang}.png`), fullPage: true }).catch(() => {});
            }
          }
        });
      }
    }

    // A lesson that gives files whole, its diff view in English (the marker's words are the view's own).
    const giving = findLesson("s27");
    if (giving && lessons.includes(giving))
      await check(`${giving.id}'s diff view marks the files it gives whole, the exercise's files first`, async () => {
        await checkGivenMarked(page, origin, giving);
      });

    const first = lessons[0] ?? LESSONS[0]!;
    for (const lang of OTHERS)
      await check(`language switch: English → ${lang} → English on a lesson page`, async () => {
        await open(page, `${origin}/lessons/${first.dir}`);
        await page.locator(".VPNavBarTranslations button").hover();
        await page.locator(`.VPNavBarTranslations a[href*="/${lang}/lessons/${first.dir}"]`).click();
        await page.waitForURL(`**/${lang}/lessons/${first.dir}`);
        const want = HTML_LANG[lang];
        await page.waitForFunction((w) => document.documentElement.lang === w, want, { timeout: 5000 }).catch(() => {});
        expect((await page.locator("html").getAttribute("lang")) === want, `html lang is not ${want} after the switch`);
        expect(inScript(lang, (await page.locator(".VPSidebar").textContent()) ?? ""), `the sidebar is not in ${NAMES[lang]} after the switch`);
        await page.locator(".VPNavBarTranslations button").hover();
        await page.locator(`.VPNavBarTranslations a[href$="/lessons/${first.dir}"]${NOT_TRANSLATED}`).click();
        await page.waitForURL((u) => u.pathname === `/lessons/${first.dir}`);
        await page.waitForFunction(() => document.documentElement.lang === "en-US", null, { timeout: 5000 }).catch(() => {});
        expect((await page.locator("html").getAttribute("lang")) === "en-US", "html lang is not en-US after switching back");
      });

    // Chinese and Japanese have no spaces: "配对规则" is found inside "消息配对规则" (a CJK tokenizer in
    // the config). Each translation's pairing-rules page is found by its own title, and a CJK title
    // by the part of it after its first character (a word inside a longer run).
    const searches: [string, string, string][] = [["/", "tool_result", ""]];
    for (const lang of OTHERS) {
      const file = join(ROOT, "docs", lang, "guide/message-rules.md");
      if (!existsSync(file)) continue;
      const title = pageTitle(file);
      const cjk = /[\u3040-\u30ff\u3400-\u9fff]/.test(title);
      const word = cjk ? title.replace(/[^\u3040-\u30ff\u3400-\u9fff]/g, "").slice(1, 5) : (title.split(/\s+/).sort((a, b) => b.length - a.length)[0] ?? title);
      searches.push([`/${lang}/`, word, `/${lang}/guide/message-rules`]);
    }
    if (OTHERS.includes("zh")) searches.push(["/zh/", "消息配对", "/zh/guide/message-rules"], ["/zh/", "配对规则", "/zh/guide/message-rules"]);
    for (const [home, query, want] of searches)
      await check(`local search on ${home} finds "${query}"`, async () => {
        await open(page, `${origin}${home}`);
        await page.locator(".VPNavBarSearch button").click();
        await page.locator(".VPLocalSearchBox input").fill(query);
        await page.locator(".VPLocalSearchBox .result").first().waitFor({ timeout: 5000 });
        const hrefs = await page.locator(".VPLocalSearchBox .result").evaluateAll((els) => els.map((e) => e.getAttribute("href") ?? ""));
        expect(hrefs[0]?.startsWith(home), `the first result (${hrefs[0]}) is not in the ${home} locale`);
        if (want) expect(hrefs.slice(0, 5).some((h) => h.startsWith(want)), `${want} is not among the first results: ${hrefs.slice(0, 5).join(", ")}`);
        await page.keyboard.press("Escape");
      });

    // The generated diffs are not in the index: a search for a word of the loop lands on prose.
    await check('local search: no result is a generated "What changed" section', async () => {
      await open(page, `${origin}/`);
      await page.locator(".VPNavBarSearch button").click();
      await page.locator(".VPLocalSearchBox input").fill("tool");
      await page.locator(".VPLocalSearchBox .result").first().waitFor({ timeout: 5000 });
      const first = (await page.locator(".VPLocalSearchBox .result").first().textContent()) ?? "";
      expect(!/What changed/.test(first), `the first result for "tool" is a generated diff: ${squash(first).slice(0, 80)}`);
      const excerpts = await page.locator(".VPLocalSearchBox .result .excerpt").allTextContents();
      const diffy = excerpts.find((e) => /^\s*[-+]{1}\s{2,}\S/m.test(e) || /solutions\/s\d+_\w+\/ → /.test(e));
      expect(!diffy, `a result shows diff text: ${squash(diffy ?? "").slice(0, 80)}`);
      await page.keyboard.press("Escape");
    });

    for (const lang of OTHERS)
      await check(`${NAMES[lang]} navigation: every sidebar entry is ${NAMES[lang]} (the previous/next links: below)`, async () => {
        await open(page, `${origin}/${lang}/lessons/${first.dir}`);
        const items = (await page.locator(".VPSidebar .VPSidebarItem .text").allTextContents()).map(squash).filter(Boolean);
        expect(items.length > LESSONS.length, `the ${lang} sidebar has only ${items.length} entries`);
        const english = items.filter((t) => !inScript(lang, t));
        expect(english.length === 0, `English in the ${lang} sidebar: ${english.join(" | ")}`);
        // The previous/next titles of each lesson page: checked with their links below, on the same visit.
      });

    for (const lang of OTHERS)
      await check(`the generated report blocks of the ${lang} benchmarks and reliability pages are in ${NAMES[lang]}`, async () => {
        for (const path of [`/${lang}/guide/benchmarks`, `/${lang}/guide/reliability`]) {
          if (!existsSync(join(ROOT, `docs${path}.md`))) continue; // not translated yet: the English page stands in
          await open(page, origin + path);
          const heads = (await page.locator(".vp-doc h3").allTextContents()).map(squash);
          const english = heads.filter((h) => !inScript(lang, h));
          expect(heads.length > 0 && english.length === 0, `${path}: headings not in ${NAMES[lang]}: ${english.join(" | ") || "(no headings)"}`);
          // The tables' rows (and the toolsets' column names) are translated for zh only: ja and ru
          // have their headings and column heads, the rows' words in English until written
          // (scripts/reliability/report.ts HEADS).
          if (lang !== "zh") continue;
          const ths = (await page.locator(".vp-doc table th").allTextContents()).map(squash).filter((t) => /^[a-z][a-z /,]+$/i.test(t) && !/^(s\d+|n\/a)$/.test(t));
          expect(ths.length === 0, `${path}: English column names: ${[...new Set(ths)].slice(0, 6).join(" | ")}`);
          // The rows too: a cell's words (its code, the tools' own output, left out) hold no English
          // verdict, goal or fault description.
          expect((await page.locator(".vp-doc .report-block table").count()) >= 1, `${path}: no generated report table (.report-block) on the page`);
          const cells = await page.locator(".vp-doc .report-block table td").evaluateAll((tds) =>
            tds.map((td) => {
              const c = td.cloneNode(true) as HTMLElement;
              c.querySelectorAll("code").forEach((x) => x.remove());
              return (c.textContent ?? "").trim();
            }),
          );
          const englishRows = cells.filter((c) => /\b(recovered|clear stop|stopped|escapes|not claimed|not run|goal|calls? of|turns|no output cap|rate limited, retry|internal server error|mid-stream|mid-way|aborts|past the timeout|with a line that|is not JSON|without messages)\b/.test(c));
          expect(englishRows.length === 0, `${path}: English in the report's rows: ${[...new Set(englishRows)].slice(0, 4).join(" | ")}`);
        }
      });

    await check("previous/next stay inside the lessons (the first has no previous, the last no next), titled in the page's language", async () => {
      for (const lang of SITE) {
        const p = lang === "en" ? "" : `/${lang}`;
        for (const [i, l] of LESSONS.entries()) {
          if (!lessons.includes(l) || !checksLesson(lang, l.dir)) continue;
          if (!existsSync(join(ROOT, "docs", langDir(lang), "lessons", `${l.dir}.md`))) continue;
          await open(page, `${origin}${p}/lessons/${l.dir}`);
          // Read at once: a missing link is null, not a wait for one to appear (the first and last lessons).
          const [prev, next] = await page.evaluate(() => [".prev", ".next"].map((c) => document.querySelector(`.VPDocFooter .pager-link${c}`)?.getAttribute("href") ?? null));
          // A neighbour without a page in this language is linked in English (the config's fallback).
          const own = (d: string) => existsSync(join(ROOT, "docs", langDir(lang), "lessons", `${d}.md`));
          const want = (j: number) => (LESSONS[j] ? `${own(LESSONS[j]!.dir) ? p : ""}/lessons/${LESSONS[j]!.dir}` : null);
          expect(prev === want(i - 1), `${p}/lessons/${l.dir}: previous is ${prev}, not ${want(i - 1)}`);
          expect(next === want(i + 1), `${p}/lessons/${l.dir}: next is ${next}, not ${want(i + 1)}`);
          // In a translated language, the links' titles are in its script too.
          const labels = (await page.locator(".VPDocFooter .pager .title").allTextContents()).map(squash);
          const english = labels.filter((t) => !inScript(lang, t));
          expect(english.length === 0, `${p}/lessons/${l.dir}: previous/next titles not in ${NAMES[lang]}: ${english.join(" | ")}`);
        }
      }
    });

    await check("viewer and player open a learner's JSONL run: pairs linked, is_error marked, stop_reason shown, replayed step by step", async () => {
      await open(page, `${origin}/guide/transcripts`);
      const messages = [
        { role: "user", content: "list the files" },
        { role: "assistant", content: [{ type: "text", text: "Two calls." }, { type: "tool_use", id: "toolu_a", name: "bash", input: { command: "ls" } }, { type: "tool_use", id: "toolu_b", name: "read_file", input: { path: "nope" } }] },
        { role: "user", content: [{ type: "tool_result", tool_use_id: "toolu_a", content: "a.txt" }, { type: "tool_result", tool_use_id: "toolu_b", content: "ENOENT", is_error: true }] },
        { role: "assistant", content: [{ type: "text", text: "Done." }] },
      ];
      const jsonl = [
        // The shape lesson s09 writes: {"type":"think","message":{…the Message…}} per response.
        { type: "run", lesson: "s09_observability", task: "list the files" },
        { type: "think", turn: 1, message: { type: "message", role: "assistant", stop_reason: "tool_use", usage: { input_tokens: 10, output_tokens: 5 }, content: messages[1]!.content } },
        { type: "act", turn: 1, call: messages[1]!.content[1] },
        { type: "think", turn: 2, message: { type: "message", role: "assistant", stop_reason: "end_turn", usage: { input_tokens: 30, output_tokens: 3 }, content: messages[3]!.content } },
        { type: "transcript", messages },
      ].map((l) => JSON.stringify(l)).join("\n");
      await page.locator("input.tv-file").setInputFiles({ name: "my-run.jsonl", mimeType: "application/x-ndjson", buffer: Buffer.from(jsonl) });
      await page.locator(".tv-message").first().waitFor({ timeout: 5000 });
      expect((await page.locator(".tv-message").count()) === 4, "the viewer does not show the file's 4 messages");
      expect((await page.locator(".tv-caption").textContent())?.includes("my-run.jsonl"), "the caption does not name the file");
      expect((await page.locator('[data-tool-result="toolu_b"].tv-is-error .tv-badge-error').count()) === 1, "the is_error result is not marked");
      expect((await page.locator('[data-tool-result="toolu_a"].tv-is-error').count()) === 0, "a good result is marked as an error");
      const stops = await page.locator(".tv-stop").allTextContents();
      expect(stops.join("|") === "stop_reason: tool_use|stop_reason: end_turn", `stop_reasons shown: ${stops.join(", ")}`);

      await page.locator("input.tv-file").setInputFiles({ name: "broken.jsonl", mimeType: "text/plain", buffer: Buffer.from('{"type":"think"}\nnot json\n') });
      const err = await page.locator(".tv-error").textContent({ timeout: 5000 });
      expect(err?.includes("line 2 is not JSON"), `a broken file gives "${err}"`);

      // The same file in a lesson page's player: replayed step by step, its stop_reasons shown.
      await open(page, `${origin}/lessons/${first.dir}`);
      await page.locator(".lp-row").first().waitFor({ timeout: 10_000 });
      await page.locator("input.lp-file").setInputFiles({ name: "my-run.jsonl", mimeType: "application/x-ndjson", buffer: Buffer.from(jsonl) });
      await page.waitForFunction(() => document.querySelector(".lp-source")?.textContent?.includes("my-run.jsonl"), null, { timeout: 5000 });
      await page.locator(".lp").focus();
      await page.keyboard.press("End");
      const end = await playerState(page);
      expect(end.rows === 4 && end.stage === "done", `the player replays the file to ${end.rows} rows at stage ${end.stage}, not 4 rows and "done"`);
      const playerStops = (await page.locator(".lp-row .lp-c-stop code").allTextContents()).join("|");
      expect(playerStops === "tool_use|end_turn", `the player shows stop_reasons ${playerStops}`);
      await page.locator("input.lp-file").setInputFiles({ name: "broken.jsonl", mimeType: "text/plain", buffer: Buffer.from("not json\n") });
      const perr = await page.locator(".lp-error").textContent({ timeout: 5000 });
      expect(perr?.includes("line 1 is not JSON"), `a broken file in the player gives "${perr}"`);
    });

    await check("screenshots of a lesson page at desktop and phone widths", async () => {
      mkdirSync(SHOTS, { recursive: true });
      const shot = lessons[lessons.length - 1] ?? first;
      for (const [name, viewport] of [["desktop", { width: 1280, height: 900 }], ["phone", { width: 390, height: 844 }]] as const) {
        await page.setViewportSize(viewport);
        for (const lang of SITE) {
          await open(page, `${origin}/${langDir(lang)}lessons/${shot.dir}`);
          await page.locator(".tv-message").first().waitFor({ timeout: 10_000 });
          const overflow = await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
          expect(overflow <= 1, `the ${name} page scrolls sideways by ${overflow}px`);
          const stem = join(SHOTS, `${shot.dir}-${lang}-${name}`);
          await page.screenshot({ path: `${stem}.png`, fullPage: true });
          await page.screenshot({ path: `${stem}-top.png` });
          const box = await page.locator(".tv").first().boundingBox();
          if (box) await page.screenshot({ path: `${stem}-viewer.png`, fullPage: true, clip: { x: 0, y: box.y - 20, width: viewport.width, height: Math.min(box.height + 40, 1400) } });
          if ((await page.locator(".ldv").count()) > 0) await page.locator(".ldv").first().screenshot({ path: `${stem}-diff.png` });
        }
      }
      // Dark mode (the theme follows the system's preference).
      await page.emulateMedia({ colorScheme: "dark" });
      await open(page, `${origin}/lessons/${shot.dir}`);
      await page.locator(".tv-message").first().waitFor({ timeout: 10_000 });
      expect((await page.locator("html.dark").count()) === 1, "the site does not follow a dark system preference");
      const darkBox = await page.locator(".tv").first().boundingBox();
      if (darkBox) await page.screenshot({ path: join(SHOTS, `${shot.dir}-en-dark-viewer.png`), fullPage: true, clip: { x: 0, y: darkBox.y - 20, width: 1280, height: 900 } });
      await open(page, `${origin}/guide/message-rules`);
      await page.locator(".pairing-diagram").screenshot({ path: join(SHOTS, "pairing-dark.png") });
      await page.emulateMedia({ colorScheme: "light" });

      // The two pictures: the loop (s01) and the pairing rules.
      for (const [name, viewport] of [["desktop", { width: 1280, height: 900 }], ["phone", { width: 390, height: 844 }]] as const) {
        await page.setViewportSize(viewport);
        for (const [stem, path, selector] of [
          ["loop", `/lessons/${LESSONS[0]!.dir}`, ".loop-diagram"],
          ["pairing", "/guide/message-rules", ".pairing-diagram"],
          ...OTHERS.map((l) => [`pairing-${l}`, `/${l}/guide/message-rules`, ".pairing-diagram"] as const),
        ]) {
          await open(page, origin + path);
          const diagram = page.locator(selector);
          expect((await diagram.locator("svg text").count()) > 5, `${path}: the picture ${selector} has no labels`);
          await diagram.screenshot({ path: join(SHOTS, `${stem}-${name}.png`) });
        }
      }
      await page.setViewportSize({ width: 1280, height: 900 });
    });

    let everyPage: string[] = [];
    await check("no dead internal links (crawl of every page, anchors included)", async () => {
      const { pages, links, dead, html } = await crawl(origin, SITE.flatMap((lang) => [`/${langDir(lang)}`, ...lessons.map((l) => `/${langDir(lang)}lessons/${l.dir}`)]));
      everyPage = html;
      expect(pages > 5, `the crawl found only ${pages} pages`);
      expect(dead.length === 0, `${dead.length} dead of ${links}: ${dead.slice(0, 8).join("; ")}`);
      console.log(`        ${pages} pages, ${links} links`);
    });

    // Every page of the site, every language, at a laptop's and a phone's width: each page opened
    // once, measured at 1280 px, then resized to 390 px and measured again (the layout follows the
    // width without a reload; a reload per width doubled the time of the whole browser test).
    const widths = [["1280 px", { width: 1280, height: 900 }], ["390 px", { width: 390, height: 844 }]] as const;
    await check(`every page (${everyPage.filter(checksPath).length}${cli.values.sample ? `, sample of ${everyPage.length}` : ""}) at ${widths.map(([n]) => n).join(" and ")}: nothing scrolls sideways, no raw ** left by the markdown`, async () => {
      const wide: string[] = [];
      const stars: string[] = [];
      for (const path of everyPage.filter(checksPath)) {
        await page.setViewportSize(widths[0][1]);
        await open(page, origin + path);
        for (const [name, viewport] of widths) {
          if (viewport !== widths[0][1]) {
            await page.setViewportSize(viewport);
            // Two frames: the resize's layout is done before anything is measured.
            await page.evaluate(() => new Promise((done) => requestAnimationFrame(() => requestAnimationFrame(done))));
          }
          const overflow = await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
          if (overflow > 1) wide.push(`${path} at ${name} (${overflow}px)`);
          // A message table fits the text column, and does not scroll inside it either.
          const tableOut = await page.locator(".vp-doc table.run-table").evaluateAll((els) => {
            const doc = document.querySelector(".vp-doc")!.getBoundingClientRect();
            return els.filter((e) => e.getBoundingClientRect().right > doc.right + 1 || e.scrollWidth - e.clientWidth > 1).length;
          });
          if (tableOut > 0) wide.push(`${path} at ${name} (${tableOut} message table(s) wider than the column)`);
        }
        // Read at once (a page without a .vp-doc, as a home page, has no markdown to check).
        const raw = await page.evaluate(() => {
          const root = document.querySelector(".vp-doc");
          if (!root) return "";
          const walker = document.createTreeWalker(root, NodeFilter.SHOW_TEXT);
          for (let n = walker.nextNode(); n; n = walker.nextNode())
            if (n.textContent?.includes("**") && !n.parentElement?.closest("pre, code")) return n.textContent.trim().slice(0, 60);
          return "";
        });
        if (raw) stars.push(`${path}: "${raw}"`);
      }
      await page.setViewportSize({ width: 1280, height: 900 });
      expect(wide.length === 0, `${wide.length} page width(s) scroll sideways: ${wide.slice(0, 6).join(", ")}`);
      expect(stars.length === 0, `raw ** shows on ${stars.length} page(s): ${stars.slice(0, 4).join("; ")}`);
    });

    await check("no console errors on any page visited", async () => {
      expect(consoleErrors.length === 0, `${consoleErrors.length}: ${consoleErrors.slice(0, 5).join(" | ")}`);
    });
  } finally {
    await browser?.close();
    server.close();
  }
  console.log(`\n${passed} passed, ${failures.length} failed${failures.length ? `:\n  - ${failures.join("\n  - ")}` : ""}`);
  console.log(`screenshots: ${SHOTS}`);
  return failures.length === 0 ? 0 : 1;
}

main().then(
  (code) => process.exit(code),
  (e: unknown) => {
    console.error(`e2e: ${e instanceof Error ? e.message : String(e)}`);
    process.exit(1);
  },
);
