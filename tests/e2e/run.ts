/**
 * The docs site in a real browser: `npm run test:e2e`.
 *
 * Builds the site (`npm run docs:build`; skip with --no-build), serves docs/.vitepress/dist on
 * 127.0.0.1 with a small static server on a free port, and drives it in headless Chromium
 * (Debian's /usr/bin/chromium, through playwright-core): the home pages, every lesson page of the
 * manifest in both languages (its code blocks, its generated diff, its recorded run with every
 * tool_use linked to its tool_result), opening a learner's own JSONL in the viewer, the language
 * switch, local search, no console errors anywhere, and no dead internal link (a crawl of every
 * page). Screenshots of a lesson page at desktop and phone widths go to
 * docs/.vitepress/cache/e2e/. Prints one line per check and exits non-zero when any fails.
 *
 *   npm run test:e2e [-- --no-build] [-- --only s01]
 */
import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, readFileSync, statSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { dirname, extname, join, normalize, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { chromium, type Browser, type Page } from "playwright-core";
import { LESSONS, findLesson, type Lesson } from "../../runtime/manifest.ts";
import { missingLessonPages } from "../../scripts/docs/pages.ts";
import { strictArgsOrExit } from "../../scripts/lib/args.ts";

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "../..");
const DIST = join(ROOT, "docs/.vitepress/dist");
const SHOTS = join(ROOT, "docs/.vitepress/cache/e2e");
const CHROMIUM = process.env.CHROMIUM_PATH ?? "/usr/bin/chromium";
const FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update", "--disable-sync"];
const cli = strictArgsOrExit({
  command: "npm run test:e2e",
  usage: "[-- --no-build] [-- --only sNN]",
  options: { "no-build": { type: "boolean" }, only: { type: "string" } },
});
const onlyKey = cli.values.only;
if (onlyKey !== undefined && !findLesson(onlyKey)) {
  console.error(`npm run test:e2e: no lesson "${onlyKey}" for --only: the lessons are ${LESSONS.map((l) => l.id).join(", ")}`);
  process.exit(2);
}

// ---------------------------------------------------------------- reporting

const failures: string[] = [];
let passed = 0;

async function check(name: string, fn: () => Promise<void>): Promise<void> {
  try {
    await fn();
    passed++;
    console.log(`  ok    ${name}`);
  } catch (e) {
    const why = e instanceof Error ? e.message.split("\n")[0] : String(e);
    failures.push(`${name}: ${why}`);
    console.log(`  FAIL  ${name}\n        ${why}`);
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

/** The lesson page's checks, in one language. */
async function checkLessonPage(page: Page, origin: string, lesson: Lesson, index: number, zh: boolean): Promise<void> {
  const url = `${origin}${zh ? "/zh" : ""}/lessons/${lesson.dir}`;
  await open(page, url);
  const h1 = (await page.locator(".vp-doc h1").first().textContent({ timeout: 5000 }))?.trim();
  expect(h1, "the page has no title (h1)");

  // Code imported from solutions/ (any highlighted block that is not the generated diff).
  const code = await page.locator('.vp-doc div[class*="language-"]:not(.language-diff) pre code').count();
  expect(code >= 1, "no code block: a lesson page imports its code from solutions/ with <<<");

  // The generated diff (appended as #what-changed, or placed by the page with <LessonDiff />).
  if (index > 0) {
    const diffs = await page.locator(".lesson-diff div.language-diff pre code").count();
    const text = (await page.locator(".vp-doc").textContent()) ?? "";
    const unchanged = text.includes("no file changed") || text.includes("没有文件变化");
    expect(diffs >= 1 || unchanged, `no generated diff against ${LESSONS[index - 1]!.id}`);
  }

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
}

// ---------------------------------------------------------------- the crawl

/** Every internal link of every page reachable from the home pages answers 200, anchors included. */
async function crawl(origin: string, starts: string[]): Promise<{ pages: number; links: number; dead: string[] }> {
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
  return { pages: seen.size, links, dead };
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

    await check("every lesson of the manifest has its page in both languages", async () => {
      const missing = missingLessonPages(ROOT, lessons);
      expect(missing.length === 0, `missing: ${missing.join(", ")}`);
    });

    await check("home page (en)", async () => {
      await open(page, `${origin}/`);
      const name = await page.locator(".VPHero .name").textContent();
      expect(name?.includes("Agent Loop"), `hero says "${name}"`);
      expect((await page.locator("html").getAttribute("lang")) === "en-US", "html lang is not en-US");
    });
    await check("home page (zh-CN)", async () => {
      await open(page, `${origin}/zh/`);
      const name = await page.locator(".VPHero .name").textContent();
      expect(name && /[\u4e00-\u9fff]/.test(name), `hero is not in Chinese: "${name}"`);
      expect((await page.locator("html").getAttribute("lang")) === "zh-CN", "html lang is not zh-CN");
      mkdirSync(SHOTS, { recursive: true });
      await page.screenshot({ path: join(SHOTS, "home-zh-desktop.png") });
    });

    for (const [i, lesson] of LESSONS.entries()) {
      if (!lessons.includes(lesson)) continue;
      for (const zh of [false, true])
        await check(`${lesson.id} page (${zh ? "zh-CN" : "en"}): code, diff, recorded run with linked pairs`, () =>
          checkLessonPage(page, origin, lesson, i, zh),
        );
    }

    const first = lessons[0] ?? LESSONS[0]!;
    await check("language switch: English → 简体中文 → English on a lesson page", async () => {
      await open(page, `${origin}/lessons/${first.dir}`);
      await page.locator(".VPNavBarTranslations button").hover();
      await page.locator(`.VPNavBarTranslations a[href*="/zh/lessons/${first.dir}"]`).click();
      await page.waitForURL(`**/zh/lessons/${first.dir}`);
      await page.waitForFunction(() => document.documentElement.lang === "zh-CN", null, { timeout: 5000 }).catch(() => {});
      expect((await page.locator("html").getAttribute("lang")) === "zh-CN", "html lang is not zh-CN after the switch");
      expect(/[\u4e00-\u9fff]/.test((await page.locator(".VPSidebar").textContent()) ?? ""), "the sidebar is not in Chinese after the switch");
      await page.locator(".VPNavBarTranslations button").hover();
      await page.locator(`.VPNavBarTranslations a[href$="/lessons/${first.dir}"]:not([href*="/zh/"])`).click();
      await page.waitForURL((u) => u.pathname === `/lessons/${first.dir}`);
      await page.waitForFunction(() => document.documentElement.lang === "en-US", null, { timeout: 5000 }).catch(() => {});
      expect((await page.locator("html").getAttribute("lang")) === "en-US", "html lang is not en-US after switching back");
    });

    for (const [home, query] of [["/", "tool_result"], ["/zh/", "消息配对"]] as const)
      await check(`local search on ${home} finds "${query}"`, async () => {
        await open(page, `${origin}${home}`);
        await page.locator(".VPNavBarSearch button").click();
        await page.locator(".VPLocalSearchBox input").fill(query);
        await page.locator(".VPLocalSearchBox .result").first().waitFor({ timeout: 5000 });
        const href = await page.locator(".VPLocalSearchBox .result").first().getAttribute("href");
        expect(href?.startsWith(home), `the first result (${href}) is not in the ${home} locale`);
        await page.keyboard.press("Escape");
      });

    await check("viewer opens a learner's JSONL run: pairs linked, is_error marked, stop_reason shown", async () => {
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
    });

    await check("screenshots of a lesson page at desktop and phone widths", async () => {
      mkdirSync(SHOTS, { recursive: true });
      const shot = lessons[lessons.length - 1] ?? first;
      for (const [name, viewport] of [["desktop", { width: 1280, height: 900 }], ["phone", { width: 390, height: 844 }]] as const) {
        await page.setViewportSize(viewport);
        for (const zh of [false, true]) {
          await open(page, `${origin}${zh ? "/zh" : ""}/lessons/${shot.dir}`);
          await page.locator(".tv-message").first().waitFor({ timeout: 10_000 });
          const overflow = await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
          expect(overflow <= 1, `the ${name} page scrolls sideways by ${overflow}px`);
          const stem = join(SHOTS, `${shot.dir}-${zh ? "zh" : "en"}-${name}`);
          await page.screenshot({ path: `${stem}.png`, fullPage: true });
          await page.screenshot({ path: `${stem}-top.png` });
          const box = await page.locator(".tv").first().boundingBox();
          if (box) await page.screenshot({ path: `${stem}-viewer.png`, fullPage: true, clip: { x: 0, y: box.y - 20, width: viewport.width, height: Math.min(box.height + 40, 1400) } });
          if ((await page.locator(".lesson-diff").count()) > 0) await page.locator(".lesson-diff").first().screenshot({ path: `${stem}-diff.png` });
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
          ["pairing-zh", "/zh/guide/message-rules", ".pairing-diagram"],
        ] as const) {
          await open(page, origin + path);
          const diagram = page.locator(selector);
          expect((await diagram.locator("svg text").count()) > 5, `${path}: the picture ${selector} has no labels`);
          await diagram.screenshot({ path: join(SHOTS, `${stem}-${name}.png`) });
        }
      }
      await page.setViewportSize({ width: 1280, height: 900 });
    });

    await check("no dead internal links (crawl of every page, anchors included)", async () => {
      const { pages, links, dead } = await crawl(origin, ["/", "/zh/", ...lessons.flatMap((l) => [`/lessons/${l.dir}`, `/zh/lessons/${l.dir}`])]);
      expect(pages > 5, `the crawl found only ${pages} pages`);
      expect(dead.length === 0, `${dead.length} dead of ${links}: ${dead.slice(0, 8).join("; ")}`);
      console.log(`        ${pages} pages, ${links} links`);
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
