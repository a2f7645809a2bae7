/**
 * One function picks the learner's language (runtime/rules.ts courseLang), and one gives words in
 * it (say): the rule catalog, `npm run check` and `npm run hint` go through them, so a language the
 * course adds (ja, ru) is an entry of COURSE_LANGS and its words, English filling any gap.
 */
import { describe, expect, it } from "vitest";
import { COURSE_LANGS, courseLang, RULES, ruleWords, say } from "../../runtime/rules.ts";

describe("the learner's language", () => {
  it("COURSE_LANG first, else the locale; a language the course has by its code, anything else English", () => {
    expect(courseLang({ COURSE_LANG: "zh" })).toBe("zh");
    expect(courseLang({ COURSE_LANG: "zh-TW" })).toBe("zh");
    expect(courseLang({ LANG: "zh_CN.UTF-8" })).toBe("zh");
    expect(courseLang({ LC_ALL: "zh_CN.UTF-8", LANG: "en_US.UTF-8" })).toBe("zh");
    expect(courseLang({ COURSE_LANG: "en", LANG: "zh_CN.UTF-8" })).toBe("en");
    expect(courseLang({ LANG: "fr_FR.UTF-8" })).toBe("en");
    expect(courseLang({ LANG: "zhx" }), "a code is matched whole, not as a prefix of another word").toBe("en");
    expect(courseLang({})).toBe("en");
  });

  it("say() gives the words of the language, English for one without its own", () => {
    expect(say({ en: "the rule", zh: "规则" }, "zh")).toBe("规则");
    expect(say({ en: "the rule" }, "zh")).toBe("the rule");
    expect(COURSE_LANGS[0]).toBe("en");
  });

  it("every rule has words in every language of the course", () => {
    for (const [id, entry] of Object.entries(RULES))
      for (const lang of COURSE_LANGS) {
        const w = (entry as unknown as Record<string, { what: string; fix: string }>)[lang];
        expect(w?.what && w.fix, `rule "${id}" has no ${lang} words`).toBeTruthy();
      }
    expect(ruleWords("results-first", "zh").what).toMatch(/[\u4e00-\u9fff]/);
    expect(ruleWords("results-first", "en").what).not.toMatch(/[\u4e00-\u9fff]/);
  });
});
