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

/** Lessons with a page: the locale's own, else the English one; a lesson with neither is left out. */
function lessonItems(locale: Locale): DefaultTheme.SidebarItem[] {
  return LESSONS.flatMap((l) => {
    const link = pageLink(locale, `lessons/${l.dir}`);
    return link ? [{ text: `${l.id} · ${l.title}`, link }] : [];
  });
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
  markdown: {
    config: (md) => {
      md.use(lessonPagesPlugin(ROOT, LESSONS));
    },
  },
});
