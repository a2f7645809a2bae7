/**
 * The languages of the site, in one place for the config (docs/.vitepress/config.ts), the theme
 * components (in the browser: this file imports nothing) and the scripts that write pages
 * (scripts/docs/pages.ts and the generators of scripts/). English lives at docs/, every other
 * language in docs/<lang>/; a page missing in a language falls back to the English page.
 * A language added here also needs COURSE_LANGS in runtime/rules.ts (npm run docs:sync says so).
 */

export const SITE_LANGS = ["en", "zh", "ja", "ru"] as const;
export type SiteLang = (typeof SITE_LANGS)[number];

/** The languages with a folder of their own under docs/ (every one but English). */
export const TRANSLATED = SITE_LANGS.filter((l) => l !== "en") as Exclude<SiteLang, "en">[];

/** The HTML lang of each language's pages (the config's locales). */
export const HTML_LANG: Record<SiteLang, string> = { en: "en-US", zh: "zh-CN", ja: "ja-JP", ru: "ru-RU" };

/** A letter of each language's own script (Japanese: kana or kanji), null for English. */
export const SCRIPT: Record<SiteLang, RegExp | null> = {
  en: null,
  zh: /[\u4e00-\u9fff]/,
  ja: /[\u3040-\u30ff\u4e00-\u9fff]/,
  ru: /[\u0400-\u04ff]/,
};

/** Words in every language; English is the only one required, the others fall back to it. */
export type Words<T = string> = { en: T } & Partial<Record<SiteLang, T>>;

/** The site language of an HTML lang ("ja-JP", "zh-CN"), English when it is none of them. */
export function siteLang(htmlLang: string | undefined): SiteLang {
  const code = (htmlLang ?? "").toLowerCase();
  return SITE_LANGS.find((l) => code === l || code.startsWith(`${l}-`)) ?? "en";
}

/** The words in a language, else English. */
export function pick<T>(words: Words<T>, lang: SiteLang): T {
  return words[lang] ?? words.en;
}

/** The folder of a language under docs/, with its slash ("" for English, "ja/"). */
export function langDir(lang: SiteLang): string {
  return lang === "en" ? "" : `${lang}/`;
}

/** A lesson's page in a language: its own when `pages` (the languages it has a page in) has it, else the English one. */
export function lessonHref(lang: SiteLang, dir: string, pages: readonly SiteLang[]): string {
  return `/${pages.includes(lang) ? langDir(lang) : ""}lessons/${dir}`;
}

/** The language of a page from its path under docs/ ("ja/lessons/s01_agent_loop.md" → "ja"). */
export function langOfPath(relativePath: string): SiteLang {
  const first = relativePath.split("\\").join("/").split("/")[0];
  return TRANSLATED.find((l) => l === first) ?? "en";
}

/** A regex source matching any translated folder prefix: `(?:(zh|ja|ru)\/)?`. */
export const LANG_PREFIX = `(?:(${TRANSLATED.join("|")})\\/)?`;
