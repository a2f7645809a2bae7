/**
 * A lesson's two hints in the learner's language. The English ones are the lesson's own (its
 * manifest entry or course.json); the others live in runtime/i18n/hints.<lang>.json (lesson id →
 * [guiding questions, the stronger hint]), so a translation is added without touching a lesson.
 * A language without a lesson's hints gets the English ones; `npm run docs:sync` names them.
 */
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import type { Lesson } from "../../runtime/manifest.ts";
import { courseLang, type Lang } from "../../runtime/rules.ts";
import { ROOT } from "./paths.ts";

export const hintsFile = (lang: Lang) => join(ROOT, "runtime", "i18n", `hints.${lang}.json`);

/** Every lesson's hints in `lang`, as its file holds them (an unreadable file is named). */
export function translatedHints(lang: Lang): Record<string, [string, string]> {
  const file = hintsFile(lang);
  if (lang === "en" || !existsSync(file)) return {};
  let data: unknown;
  try {
    data = JSON.parse(readFileSync(file, "utf8"));
  } catch (e) {
    throw new Error(`runtime/i18n/hints.${lang}.json does not parse: ${(e as Error).message}`);
  }
  const out: Record<string, [string, string]> = {};
  for (const [id, h] of Object.entries(data as Record<string, unknown>)) {
    if (id.startsWith("$")) continue;
    if (!Array.isArray(h) || h.length !== 2 || !h.every((x) => typeof x === "string" && x.trim()))
      throw new Error(`runtime/i18n/hints.${lang}.json: "${id}" needs two hints, each a sentence`);
    out[id] = [h[0] as string, h[1] as string];
  }
  return out;
}

/** The lesson's hints in the learner's language, else its English ones. */
export function lessonHints(lesson: Lesson, lang: Lang = courseLang()): readonly [string, string] {
  return translatedHints(lang)[lesson.id] ?? [lesson.hints[0]!, lesson.hints[1]!];
}
