/**
 * npx tsx scripts/docs/render-reports.ts
 *
 * Draws the generated report blocks of the benchmark and reliability pages again, each in its
 * page's language, from the figures the block keeps (`<!-- bench:figures … -->`,
 * `<!-- reliability:figures … -->`): for a change of words or layout in scripts/bench/report.ts
 * or scripts/reliability/report.ts, without running the (slow) bench or reliability again.
 */
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { ROOT } from "../../runtime/testing.ts";
import { benchBlock, benchFiguresOf } from "../bench/report.ts";
import { figuresOf, reliabilityBlock, replaceBlock, type Lang } from "../reliability/report.ts";

const PAGES: Array<{ kind: "bench" | "reliability"; pages: Record<Lang, string> }> = [
  { kind: "bench", pages: { en: "docs/guide/benchmarks.md", zh: "docs/zh/guide/benchmarks.md" } },
  { kind: "reliability", pages: { en: "docs/guide/reliability.md", zh: "docs/zh/guide/reliability.md" } },
];

for (const { kind, pages } of PAGES) {
  const texts = { en: readFileSync(join(ROOT, pages.en), "utf8"), zh: readFileSync(join(ROOT, pages.zh), "utf8") };
  for (const lang of ["en", "zh"] as const) {
    const source = texts[lang];
    const figures = kind === "bench" ? (benchFiguresOf(source) ?? benchFiguresOf(texts.en)) : (figuresOf(source) ?? figuresOf(texts.en));
    if (!figures) {
      console.error(`${pages[lang]}: its ${kind} block keeps no figures (written before they were kept): run \`npm run ${kind} -- --update-docs\` once`);
      process.exitCode = 1;
      continue;
    }
    const block = kind === "bench" ? benchBlock(figures as Parameters<typeof benchBlock>[0], lang) : reliabilityBlock(figures as Parameters<typeof reliabilityBlock>[0], lang);
    const next = replaceBlock(source, block, kind);
    if (next !== source) {
      writeFileSync(join(ROOT, pages[lang]), next);
      console.log(`updated ${pages[lang]}`);
    } else console.log(`${pages[lang]}: unchanged`);
  }
}
