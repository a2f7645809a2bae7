/**
 * The course site: English at /, Simplified Chinese at /zh/, local search, sidebars built from
 * runtime/manifest.ts. Lesson pages get their generated diff and recorded run automatically
 * (scripts/docs/pages.ts). A lesson in the manifest whose page is missing does not break the
 * build (lessons land while others are written): it is left out of that sidebar, the build warns
 * naming the file, and `npm run test:e2e` (run by CI) fails naming it.
 */
import { existsSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import cjkFriendly from "markdown-it-cjk-friendly";
import { defineConfig, type DefaultTheme } from "vitepress";
import { LESSONS } from "../../runtime/manifest.ts";
import { lessonPagesPlugin, missingLessonPages, missingPagesMessage, pagesIn, pageTitle } from "../../scripts/docs/pages.ts";

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "../..");
const DOCS = join(ROOT, "docs");

const missing = missingLessonPages(ROOT, LESSONS);
if (missing.length > 0) console.warn(`\n${missingPagesMessage(missing)}\n`);

// A lesson page is published once its lesson is in the manifest: until then it is a draft (its
// solution may not exist yet, and its imports would fail the build).
const drafts = ["lessons", "zh/lessons"].flatMap((folder) =>
  pagesIn(join(DOCS, folder))
    .filter((stem) => !LESSONS.some((l) => l.dir === stem))
    .map((stem) => `${folder}/${stem}.md`),
);
if (drafts.length > 0) console.warn(`docs: not published until their lesson is in runtime/manifest.ts: ${drafts.join(", ")}`);

type Locale = "en" | "zh";
const PREFIX: Record<Locale, string> = { en: "/", zh: "/zh/" };

/** Guides in reading order; any other page in docs/guide/ follows, titled by its heading. */
const GUIDES: { stem: string; en: string; zh: string }[] = [
  { stem: "getting-started", en: "Getting started", zh: "快速开始" },
  { stem: "commands", en: "Course commands", zh: "课程命令" },
  { stem: "message-rules", en: "Message pairing rules", zh: "消息配对规则" },
  { stem: "transcripts", en: "Transcript viewer", zh: "对话记录查看器" },
  { stem: "compatibility", en: "Compatible clients", zh: "兼容的客户端" },
  { stem: "course-map", en: "The loop, growing", zh: "循环的成长" },
  { stem: "contributing", en: "Contributing a lesson", zh: "贡献一课" },
];

/** A page's link in a locale: its translation when it exists, else the English page. */
function pageLink(locale: Locale, path: string): string | null {
  if (locale === "zh" && existsSync(join(DOCS, "zh", `${path}.md`))) return `/zh/${path}`;
  return existsSync(join(DOCS, `${path}.md`)) ? `/${path}` : null;
}

function folderItems(locale: Locale, folder: string, known: { stem: string; en: string; zh: string }[] = []) {
  const items: DefaultTheme.SidebarItem[] = [];
  const stems = [...known.map((k) => k.stem), ...pagesIn(join(DOCS, folder)).filter((s) => !known.some((k) => k.stem === s))];
  for (const stem of stems) {
    const link = pageLink(locale, `${folder}/${stem}`);
    if (!link) continue; // a guide another part of the course has not written yet
    const k = known.find((x) => x.stem === stem);
    const file = join(DOCS, link.startsWith("/zh/") ? "zh" : "", `${folder}/${stem}.md`);
    items.push({ text: k ? k[locale] : pageTitle(file), link });
  }
  return items;
}

/** A lesson's title in a locale: the heading of its page in that language ("s06 · 防护"), else the manifest's. */
function lessonTitle(locale: Locale, l: (typeof LESSONS)[number]): string {
  const file = join(DOCS, locale === "zh" ? "zh" : "", "lessons", `${l.dir}.md`);
  return existsSync(file) ? pageTitle(file) : `${l.id} · ${l.title}`;
}

/** Lessons with a page: the locale's own, else the English one; a lesson with neither is left out. */
function lessonItems(locale: Locale): DefaultTheme.SidebarItem[] {
  return LESSONS.flatMap((l) => {
    const link = pageLink(locale, `lessons/${l.dir}`);
    return link ? [{ text: lessonTitle(locale, l), link }] : [];
  });
}

type PrevNext = { text: string; link: string };

/** Previous and next of a lesson page: the neighbouring lessons, never a guide or the appendix. */
function lessonNeighbours(relativePath: string): { prev: PrevNext | false; next: PrevNext | false } | null {
  const m = /^(zh\/)?lessons\/(s\d+_[a-z0-9_]+)\.md$/.exec(relativePath);
  if (!m) return null;
  const locale: Locale = m[1] ? "zh" : "en";
  const published = LESSONS.filter((l) => pageLink(locale, `lessons/${l.dir}`));
  const i = published.findIndex((l) => l.dir === m[2]);
  if (i < 0) return null;
  const link = (l: (typeof LESSONS)[number] | undefined): PrevNext | false =>
    l ? { text: lessonTitle(locale, l), link: pageLink(locale, `lessons/${l.dir}`)! } : false;
  return { prev: link(published[i - 1]), next: link(published[i + 1]) };
}

function sidebar(locale: Locale): DefaultTheme.SidebarItem[] {
  const t = locale === "en" ? { guide: "Guide", lessons: "Lessons", appendix: "Appendix" } : { guide: "指南", lessons: "课程", appendix: "附录" };
  const groups: DefaultTheme.SidebarItem[] = [
    { text: t.guide, items: folderItems(locale, "guide", GUIDES) },
    { text: t.lessons, items: lessonItems(locale) },
  ];
  const appendix = folderItems(locale, "appendix");
  if (appendix.length > 0) groups.push({ text: t.appendix, items: appendix });
  return groups;
}

function nav(locale: Locale): DefaultTheme.NavItem[] {
  const p = PREFIX[locale];
  const first = LESSONS[0];
  const zh = locale === "zh";
  return [
    { text: zh ? "开始" : "Start", link: `${p}guide/getting-started` },
    ...(first ? [{ text: zh ? "课程" : "Lessons", link: `${p}lessons/${first.dir}` }] : []),
    { text: zh ? "配对规则" : "Pairing rules", link: `${p}guide/message-rules` },
    { text: zh ? "查看器" : "Viewer", link: `${p}guide/transcripts` },
  ];
}

export default defineConfig({
  title: "Build an Agent Loop",
  description: "A TypeScript course: from one raw tool call to a guarded coding agent, with the Anthropic SDK.",
  cleanUrls: true,
  lastUpdated: false,
  srcExclude: drafts,
  head: [["link", { rel: "icon", type: "image/svg+xml", href: "/favicon.svg" }]],
  locales: {
    root: {
      label: "English",
      lang: "en-US",
      themeConfig: { nav: nav("en"), sidebar: sidebar("en") },
    },
    zh: {
      label: "简体中文",
      lang: "zh-CN",
      link: "/zh/",
      title: "动手构建 Agent 循环",
      description: "一门 TypeScript 课程：用 Anthropic SDK，从一次原始的工具调用走到一个有防护的编程 agent。",
      themeConfig: {
        nav: nav("zh"),
        sidebar: sidebar("zh"),
        outline: { label: "本页目录" },
        docFooter: { prev: "上一页", next: "下一页" },
        langMenuLabel: "切换语言",
        returnToTopLabel: "回到顶部",
        sidebarMenuLabel: "菜单",
        darkModeSwitchLabel: "外观",
        lightModeSwitchTitle: "切换到浅色模式",
        darkModeSwitchTitle: "切换到深色模式",
        notFound: { title: "页面未找到", quote: "这一页不存在。", linkLabel: "回到首页", linkText: "回到首页" },
      },
    },
  },
  themeConfig: {
    search: {
      provider: "local",
      options: {
        // Runs at build time only: the generated diff and the folded answers are not what a
        // search for a word should land on.
        _render(src, env, md) {
          const html = md.render(src, env) as string;
          if ((env as { frontmatter?: { search?: boolean } }).frontmatter?.search === false) return "";
          return html.replace(/<!--\s*search:skip\s*-->[\s\S]*?<!--\s*\/search:skip\s*-->/g, "");
        },
        miniSearch: {
          options: {
            // Chinese has no spaces between words: a run of CJK characters is indexed (and a query
            // split) as overlapping pairs, so "配对规则" finds "消息配对规则". Everything else is
            // split as MiniSearch does. Self-contained: VitePress sends this function to the browser
            // as its source text.
            tokenize: (text: string): string[] => {
              const out: string[] = [];
              for (const part of text.split(/[\n\r\p{Z}\p{P}]+/u)) {
                if (!part) continue;
                for (const run of part.match(/[\u3040-\u30ff\u3400-\u9fff\uf900-\ufaff]+|[^\u3040-\u30ff\u3400-\u9fff\uf900-\ufaff]+/g) ?? []) {
                  if (!/[\u3040-\u30ff\u3400-\u9fff\uf900-\ufaff]/.test(run)) out.push(run);
                  else if (run.length === 1) out.push(run);
                  else for (let i = 0; i + 1 < run.length; i++) out.push(run.slice(i, i + 2));
                }
              }
              return out;
            },
          },
        },
        locales: {
          zh: {
            translations: {
              button: { buttonText: "搜索", buttonAriaLabel: "搜索" },
              modal: {
                displayDetails: "显示详情",
                resetButtonTitle: "清除",
                backButtonTitle: "关闭",
                noResultsText: "没有找到",
                footer: { selectText: "选择", navigateText: "切换", closeText: "关闭" },
              },
            },
          },
        },
      },
    },
  },
  transformPageData(pageData) {
    const around = lessonNeighbours(pageData.relativePath);
    if (around) {
      pageData.frontmatter.prev ??= around.prev;
      pageData.frontmatter.next ??= around.next;
    }
  },
  markdown: {
    config: (md) => {
      md.use(lessonPagesPlugin(ROOT, LESSONS));
      // **粗体**（含全角标点）也能渲染: CommonMark alone leaves the ** as text next to full-width punctuation.
      md.use(cjkFriendly as unknown as Parameters<typeof md.use>[0]);
    },
  },
});
