/**
 * npx tsx scripts/docs/render-reports.ts
 *
 * Draws the generated report blocks of the benchmark (bench, eval, Part III) and reliability pages
 * again, in every language whose page exists, each in its page's language, from the figures the block keeps (`<!-- bench:figures … -->`,
 * `<!-- reliability:figures … -->`): for a change of words or layout in scripts/bench/report.ts
 * or scripts/reliability/report.ts, without running the (slow) bench or reliability again.
 */
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { ROOT } from "../../runtime/testing.ts";
import { contextEditingBlock, contextEditingFiguresOf, hookCostBlock, hookCostFiguresOf } from "../bench/part3-report.ts";
import { benchBlock, benchFiguresOf } from "../bench/report.ts";
import { evalBlock, evalFiguresOf } from "../eval/figures.ts";
import { SITE_LANGS, langDir } from "../../docs/.vitepress/theme/langs.ts";
import { figuresOf, reliabilityBlock, replaceBlock, type Lang } from "../reliability/report.ts";

/** Each report's page in every language of the site (a translation's once it is written). */
const pagesOf = (file: string) => Object.fromEntries(SITE_LANGS.map((l) => [l, `docs/${langDir(l)}guide/${file}`])) as Record<Lang, string>;
const PAGES: Array<{ kind: "bench" | "reliability"; pages: Record<Lang, string> }> = [
  { kind: "bench", pages: pagesOf("benchmarks.md") },
  { kind: "reliability", pages: pagesOf("reliability.md") },
];

for (const { kind, pages } of PAGES) {
  const langs = SITE_LANGS.filter((l) => existsSync(join(ROOT, pages[l])));
  const texts = Object.fromEntries(langs.map((l) => [l, readFileSync(join(ROOT, pages[l]), "utf8")])) as Record<Lang, string>;
  for (const lang of langs) {
    const source = texts[lang];
    const figures = kind === "bench" ? (benchFiguresOf(source) ?? benchFiguresOf(texts.en)) : (figuresOf(source) ?? figuresOf(texts.en));
    if (!figures) {
      console.error(`${pages[lang]}: its ${kind} block keeps no figures (written before they were kept): run \`npm run ${kind} -- --update-docs\` once`);
      process.exitCode = 1;
      continue;
    }
    const block = kind === "bench" ? benchBlock(figures as Parameters<typeof benchBlock>[0], lang) : reliabilityBlock(figures as Parameters<typeof reliabilityBlock>[0], lang);
    let next = replaceBlock(source, block, kind);
    if (kind === "bench") {
      // The eval's and Part III's blocks on the same page, each from the figures it keeps (else the English page's).
      const ev = evalFiguresOf(source) ?? evalFiguresOf(texts.en);
      if (ev) next = replaceBlock(next, evalBlock(ev, lang), "eval");
      const ce = contextEditingFiguresOf(source) ?? contextEditingFiguresOf(texts.en);
      if (ce) next = replaceBlock(next, contextEditingBlock(ce, lang), "context_editing");
      const hc = hookCostFiguresOf(source) ?? hookCostFiguresOf(texts.en);
      if (hc) next = replaceBlock(next, hookCostBlock(hc, lang), "hook_cost");
    }
    if (next !== source) {
      writeFileSync(join(ROOT, pages[lang]), next);
      console.log(`updated ${pages[lang]}`);
    } else console.log(`${pages[lang]}: unchanged`);
  }
}
