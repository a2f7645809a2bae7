/**
 * `npm run hint` in the learner's language: each lesson's two hints in runtime/i18n/hints.<lang>.json
 * (scripts/lib/hints.ts), written in the language, with the code of the English hint kept as it is;
 * a language or a lesson without them gets the English ones.
 */
import { describe, expect, it } from "vitest";
import { LESSONS } from "../../runtime/manifest.ts";
import { COURSE_LANGS } from "../../runtime/rules.ts";
import { lessonHints, translatedHints } from "../../scripts/lib/hints.ts";
import { hintLines } from "../../scripts/lib/views.ts";

/** A language's own script: a hint in it is not the English one left in place. */
const SCRIPT: Record<string, RegExp> = { zh: /[\u4e00-\u9fff]/, ja: /[\u3040-\u30ff]/, ru: /[\u0400-\u04ff]/ };

/** The code of a hint: identifiers with _ or a dot, calls, and quoted literals; a translation keeps each. */
const codeOf = (hint: string) => [...hint.matchAll(/[A-Za-z_$][\w$]*(?:[._][\w$]+)+|[A-Za-z_$][\w$]*\(|"[^"\s]+"/g)].map((m) => m[0]);

describe("the hints in every language of the course", () => {
  const others = COURSE_LANGS.filter((l) => l !== "en");
  it.each(others)("%s: every lesson has its two hints, in the language, the English hints' code kept", (lang) => {
    const hints = translatedHints(lang);
    expect(Object.keys(hints), `runtime/i18n/hints.${lang}.json: one entry per lesson, in the lessons' order`).toEqual(LESSONS.map((l) => l.id));
    const seconds = LESSONS.filter((l) => SCRIPT[lang]!.test(hints[l.id]?.[1] ?? "")).length;
    expect(seconds, `runtime/i18n/hints.${lang}.json: the stronger hints are mostly not in ${lang}`).toBeGreaterThanOrEqual(Math.floor(LESSONS.length * 0.8));
    for (const l of LESSONS) {
      const [first, second] = hints[l.id]!;
      for (const [i, h] of [first, second].entries()) {
        // The first hint is guiding questions, always prose; the second may be code alone (s07's, s09's).
        if (i === 0) expect(SCRIPT[lang]!.test(h), `${l.id}'s first hint is not written in ${lang}: ${h.slice(0, 60)}`).toBe(true);
        const missing = codeOf(l.hints[i]!).filter((c) => !h.includes(c));
        expect(missing, `${l.id} hint ${i + 1} (${lang}) lost code of the English hint`).toEqual([]);
      }
    }
  });

  it("npm run hint speaks the learner's language, and English where there is no translation", () => {
    const s01 = LESSONS[0]!;
    expect(lessonHints(s01, "en")).toEqual([s01.hints[0], s01.hints[1]]);
    for (const lang of others) expect(lessonHints(s01, lang)).toEqual(translatedHints(lang)[s01.id]);
    const saved = process.env.COURSE_LANG;
    try {
      process.env.COURSE_LANG = "ja";
      const text = hintLines(s01, 2).join("\n");
      expect(text).toContain(translatedHints("ja")[s01.id]![1]);
      expect(text).toContain("ヒント");
      expect(text).not.toContain(s01.hints[1]!);
    } finally {
      if (saved === undefined) delete process.env.COURSE_LANG;
      else process.env.COURSE_LANG = saved;
    }
  });
});
