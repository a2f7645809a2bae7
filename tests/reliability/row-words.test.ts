/**
 * The reliability report's rows in every translated language (scripts/reliability/row-words.ts):
 * Japanese and Russian have a word for every key and every pattern Chinese has, so a page in any
 * language shows no row in English that another translation has words for. (markdownTable escapes a |.)
 */
import { describe, expect, it } from "vitest";
import { rowWords } from "../../scripts/reliability/report.ts";
import type { RowWords } from "../../scripts/reliability/row-words.ts";

const zh = rowWords("zh")!;
const kinds = Object.keys(zh) as Array<keyof RowWords>;

describe("the reliability report's row words in zh, ja, ru", () => {
  for (const lang of ["ja", "ru"] as const) {
    it(`${lang}: every table has the keys (or the patterns, in order) of the Chinese one, each with words of its own`, () => {
      const w = rowWords(lang);
      expect(w, `no row words for ${lang}: scripts/reliability/words-${lang}.ts`).toBeDefined();
      for (const kind of kinds) {
        const mine = w![kind];
        const theirs = zh[kind];
        if (typeof theirs === "string") {
          expect(typeof mine === "string" && mine.length > 0, `${lang}.${kind} is empty`).toBe(true);
        } else if (Array.isArray(theirs)) {
          const sources = (x: unknown) => (x as Array<[RegExp, string]>).map(([re]) => re.source);
          expect(sources(mine), `${lang}.${kind}: the English patterns must be zh's, in zh's order (a pattern is what it translates)`).toEqual(sources(theirs));
          const empty = (mine as Array<[RegExp, string]>).filter(([, to]) => to.trim() === "").map(([re]) => re.source);
          expect(empty, `${lang}.${kind}: patterns without words`).toEqual([]);
        } else {
          expect(Object.keys(mine).sort(), `${lang}.${kind}: the ids must be zh's`).toEqual(Object.keys(theirs).sort());
          const empty = Object.entries(mine as Record<string, string>).filter(([, to]) => to.trim() === "").map(([k]) => k);
          expect(empty, `${lang}.${kind}: ids without words`).toEqual([]);
        }
      }
    });

    it(`${lang}: the words keep each pattern's captures ($1, $2)`, () => {
      const w = rowWords(lang)!;
      for (const kind of kinds) {
        const theirs = zh[kind];
        if (!Array.isArray(theirs)) continue;
        (w[kind] as Array<[RegExp, string]>).forEach(([re, to], i) => {
          const want = ((theirs as Array<[RegExp, string]>)[i]![1].match(/\$\d/g) ?? []).sort();
          expect((to.match(/\$\d/g) ?? []).sort(), `${lang}.${kind} ${re.source}: the captures of zh's words`).toEqual(want);
        });
      }
    });
  }
});
