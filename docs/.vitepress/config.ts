/**
 * The course site: English at /, Simplified Chinese at /zh/, Japanese at /ja/, Russian at /ru/
 * (theme/langs.ts), local search, sidebars built from
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
import { HTML_LANG, LANG_PREFIX, SITE_LANGS, TRANSLATED, langDir, type SiteLang } from "./theme/langs.ts";
import { catalogPlugin } from "../../scripts/lib/rules-doc.ts";
import { lessonPagesPlugin, wrappableLineNumbers, missingLessonPages, missingPagesMessage, pagesIn, pageTitle } from "../../scripts/docs/pages.ts";

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "../..");
const DOCS = join(ROOT, "docs");

const missing = missingLessonPages(ROOT, LESSONS);
if (missing.length > 0) console.warn(`\n${missingPagesMessage(missing)}\n`);

// A lesson page is published once its lesson is in the manifest: until then it is a draft (its
// solution may not exist yet, and its imports would fail the build).
const drafts = SITE_LANGS.map((l) => `${langDir(l)}lessons`).flatMap((folder) =>
  pagesIn(join(DOCS, folder))
    .filter((stem) => !LESSONS.some((l) => l.dir === stem))
    .map((stem) => `${folder}/${stem}.md`),
);
if (drafts.length > 0) console.warn(`docs: not published until their lesson is in runtime/manifest.ts: ${drafts.join(", ")}`);

type Locale = SiteLang;
const PREFIX = (locale: Locale) => `/${langDir(locale)}`;

/** Guides in reading order; any other page in docs/guide/ follows, titled by its heading. */
const GUIDES: ({ stem: string } & Record<Locale, string>)[] = [
  { stem: "getting-started", en: "Getting started", zh: "快速开始", ja: "はじめに", ru: "Начало работы" },
  { stem: "commands", en: "Course commands", zh: "课程命令", ja: "コースのコマンド", ru: "Команды курса" },
  { stem: "message-rules", en: "Message pairing rules", zh: "消息配对规则", ja: "メッセージの対応規則", ru: "Правила пар сообщений" },
  { stem: "transcripts", en: "Transcript viewer", zh: "对话记录查看器", ja: "トランスクリプトビューア", ru: "Просмотр записей" },
  { stem: "compatibility", en: "Compatible clients", zh: "兼容的客户端", ja: "互換クライアント", ru: "Совместимые клиенты" },
  { stem: "course-map", en: "The loop, growing", zh: "循环的成长", ja: "成長するループ", ru: "Как растёт цикл" },
  { stem: "contributing", en: "Contributing a lesson", zh: "贡献一课", ja: "レッスンを寄稿する", ru: "Как добавить урок" },
];

/** A page's link in a locale: its translation when it exists, else the English page. */
function pageLink(locale: Locale, path: string): string | null {
  if (locale !== "en" && existsSync(join(DOCS, locale, `${path}.md`))) return `/${locale}/${path}`;
  return existsSync(join(DOCS, `${path}.md`)) ? `/${path}` : null;
}

function folderItems(locale: Locale, folder: string, known: ({ stem: string } & Record<Locale, string>)[] = []) {
  const items: DefaultTheme.SidebarItem[] = [];
  const stems = [...known.map((k) => k.stem), ...pagesIn(join(DOCS, folder)).filter((s) => !known.some((k) => k.stem === s))];
  for (const stem of stems) {
    const link = pageLink(locale, `${folder}/${stem}`);
    if (!link) continue; // a guide another part of the course has not written yet
    const k = known.find((x) => x.stem === stem);
    const file = join(DOCS, `${link.slice(1)}.md`);
    items.push({ text: k ? k[locale] : pageTitle(file), link });
  }
  return items;
}

/** A lesson's title in a locale: the heading of its page in that language ("s06 · 防护"), else the manifest's. */
function lessonTitle(locale: Locale, l: (typeof LESSONS)[number]): string {
  const file = join(DOCS, langDir(locale), "lessons", `${l.dir}.md`);
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
  const m = new RegExp(`^${LANG_PREFIX}lessons/(s\\d+_[a-z0-9_]+)\\.md$`).exec(relativePath);
  if (!m) return null;
  const locale: Locale = (m[1] as Locale | undefined) ?? "en";
  const published = LESSONS.filter((l) => pageLink(locale, `lessons/${l.dir}`));
  const i = published.findIndex((l) => l.dir === m[2]);
  if (i < 0) return null;
  const link = (l: (typeof LESSONS)[number] | undefined): PrevNext | false =>
    l ? { text: lessonTitle(locale, l), link: pageLink(locale, `lessons/${l.dir}`)! } : false;
  return { prev: link(published[i - 1]), next: link(published[i + 1]) };
}

const GROUPS: Record<Locale, { guide: string; lessons: string; appendix: string }> = {
  en: { guide: "Guide", lessons: "Lessons", appendix: "Appendix" },
  zh: { guide: "指南", lessons: "课程", appendix: "附录" },
  ja: { guide: "ガイド", lessons: "レッスン", appendix: "付録" },
  ru: { guide: "Руководство", lessons: "Уроки", appendix: "Приложение" },
};

function sidebar(locale: Locale): DefaultTheme.SidebarItem[] {
  const t = GROUPS[locale];
  const groups: DefaultTheme.SidebarItem[] = [
    { text: t.guide, items: folderItems(locale, "guide", GUIDES) },
    { text: t.lessons, items: lessonItems(locale) },
  ];
  const appendix = folderItems(locale, "appendix");
  if (appendix.length > 0) groups.push({ text: t.appendix, items: appendix });
  return groups;
}

const NAV: Record<Locale, { start: string; lessons: string; rules: string; viewer: string }> = {
  en: { start: "Start", lessons: "Lessons", rules: "Pairing rules", viewer: "Viewer" },
  zh: { start: "开始", lessons: "课程", rules: "配对规则", viewer: "查看器" },
  ja: { start: "はじめに", lessons: "レッスン", rules: "対応規則", viewer: "ビューア" },
  ru: { start: "Начало", lessons: "Уроки", rules: "Правила пар", viewer: "Просмотр" },
};

/** A nav entry's link: the locale's page when it exists, else the English one (as the sidebar does). */
function navLink(locale: Locale, path: string): string {
  return pageLink(locale, path) ?? `${PREFIX(locale)}${path}`;
}

function nav(locale: Locale): DefaultTheme.NavItem[] {
  const first = LESSONS[0];
  const t = NAV[locale];
  return [
    { text: t.start, link: navLink(locale, "guide/getting-started") },
    ...(first ? [{ text: t.lessons, link: navLink(locale, `lessons/${first.dir}`) }] : []),
    { text: t.rules, link: navLink(locale, "guide/message-rules") },
    { text: t.viewer, link: navLink(locale, "guide/transcripts") },
  ];
}

/** Everything a translated locale says besides its pages: site title, menus, labels, search. */
const LOCALES: Record<Exclude<Locale, "en">, {
  label: string;
  title: string;
  description: string;
  theme: DefaultTheme.Config;
  search: { button: string; details: string; reset: string; back: string; none: string; select: string; navigate: string; close: string };
}> = {
  zh: {
    label: "简体中文",
    title: "动手构建 Agent 循环",
    description: "一门 TypeScript 课程：用 Anthropic SDK，从一次原始的工具调用走到一个有防护的编程 agent。",
    theme: {
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
    search: { button: "搜索", details: "显示详情", reset: "清除", back: "关闭", none: "没有找到", select: "选择", navigate: "切换", close: "关闭" },
  },
  ja: {
    label: "日本語",
    title: "エージェントループを作る",
    description: "TypeScript のコース：Anthropic SDK で、生のツール呼び出し一回から、ガードの付いたコーディングエージェントまで。",
    theme: {
      outline: { label: "このページの内容" },
      docFooter: { prev: "前のページ", next: "次のページ" },
      langMenuLabel: "言語を切り替える",
      returnToTopLabel: "トップに戻る",
      sidebarMenuLabel: "メニュー",
      darkModeSwitchLabel: "外観",
      lightModeSwitchTitle: "ライトモードに切り替え",
      darkModeSwitchTitle: "ダークモードに切り替え",
      notFound: { title: "ページが見つかりません", quote: "このページは存在しません。", linkLabel: "ホームに戻る", linkText: "ホームに戻る" },
    },
    search: { button: "検索", details: "詳細を表示", reset: "クリア", back: "閉じる", none: "見つかりませんでした", select: "選択", navigate: "移動", close: "閉じる" },
  },
  ru: {
    label: "Русский",
    title: "Собираем цикл агента",
    description: "Курс на TypeScript: с Anthropic SDK от одного сырого вызова инструмента до защищённого агента-программиста.",
    theme: {
      outline: { label: "На этой странице" },
      docFooter: { prev: "Предыдущая", next: "Следующая" },
      langMenuLabel: "Сменить язык",
      returnToTopLabel: "Наверх",
      sidebarMenuLabel: "Меню",
      darkModeSwitchLabel: "Оформление",
      lightModeSwitchTitle: "Светлая тема",
      darkModeSwitchTitle: "Тёмная тема",
      notFound: { title: "Страница не найдена", quote: "Такой страницы нет.", linkLabel: "На главную", linkText: "На главную" },
    },
    search: { button: "Поиск", details: "Показать подробности", reset: "Очистить", back: "Закрыть", none: "Ничего не найдено", select: "выбрать", navigate: "перейти", close: "закрыть" },
  },
};

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
      lang: HTML_LANG.en,
      themeConfig: { nav: nav("en"), sidebar: sidebar("en") },
    },
    ...Object.fromEntries(
      TRANSLATED.map((l) => [
        l,
        {
          label: LOCALES[l].label,
          lang: HTML_LANG[l],
          link: `/${l}/`,
          title: LOCALES[l].title,
          description: LOCALES[l].description,
          themeConfig: { nav: nav(l), sidebar: sidebar(l), ...LOCALES[l].theme },
        },
      ]),
    ),
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
        locales: Object.fromEntries(
          TRANSLATED.map((l) => {
            const t = LOCALES[l].search;
            return [
              l,
              {
                translations: {
                  button: { buttonText: t.button, buttonAriaLabel: t.button },
                  modal: {
                    displayDetails: t.details,
                    resetButtonTitle: t.reset,
                    backButtonTitle: t.back,
                    noResultsText: t.none,
                    footer: { selectText: t.select, navigateText: t.navigate, closeText: t.close },
                  },
                },
              },
            ];
          }),
        ),
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
      // The rules page's table, from the rule catalog as it is at build time (a lesson's course.json included).
      md.use(catalogPlugin());
      // **粗体**（含全角标点）也能渲染: CommonMark alone leaves the ** as text next to full-width punctuation.
      md.use(cjkFriendly as unknown as Parameters<typeof md.use>[0]);
      // After VitePress's own rules: numbered lines that wrap instead of scrolling sideways.
      wrappableLineNumbers(md as unknown as Parameters<typeof wrappableLineNumbers>[0]);
    },
  },
});
