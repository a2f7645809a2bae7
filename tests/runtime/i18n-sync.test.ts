/**
 * The translations' sync check (scripts/docs/i18n-sync.ts) on a small site of its own: a page
 * whose English source changed after its translation is reported, with the English lines that
 * changed, until the translation's record is updated; a missing page or rule is named.
 */
import { execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { markTranslated, normalize, pictureLabels, pictureWords, readLock, syncFindings, untranslatedLabels } from "../../scripts/docs/i18n-sync.ts";

let root = "";
const write = (rel: string, text: string) => {
  mkdirSync(dirname(join(root, rel)), { recursive: true });
  writeFileSync(join(root, rel), text);
};
const ENGLISH = "# Commands\n\nRun `npm run check s01`.\n\nIt prints the rule.\n\n<!-- bench:latest:start -->\n| a | 1 |\n<!-- bench:latest:end -->\n";

beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), "i18n-sync-"));
  execFileSync("git", ["init", "-q"], { cwd: root });
  write("docs/guide/commands.md", ENGLISH);
  write("docs/zh/guide/commands.md", "# 课程命令\n\n运行 `npm run check s01`。\n");
  write("docs/index.md", "# Home\n");
  write("docs/zh/index.md", "# 首页\n");
});
afterEach(() => rmSync(root, { recursive: true, force: true }));

const findings = (rules?: Record<string, string[]>) => syncFindings({ root, languages: ["zh"], ...(rules ? { rules } : {}) });

describe("the translations' sync check", () => {
  it("a translation with no record is reported until it is marked; then the site is in sync", () => {
    expect(findings().map((f) => [f.kind, f.where])).toEqual([
      ["no-record", "zh/guide/commands.md"],
      ["no-record", "zh/index.md"],
    ]);
    markTranslated(root, ["zh/guide/commands.md", "docs/zh/index.md"], ["zh"]);
    expect(findings()).toEqual([]);
    expect(readLock(root).pages["zh/guide/commands.md"]?.source).toBe("guide/commands.md");
  });

  it("fails on a changed English page, shows the lines that changed, and passes once the record is updated", () => {
    markTranslated(root, ["zh/guide/commands.md", "zh/index.md"], ["zh"]);
    write("docs/guide/commands.md", ENGLISH.replace("It prints the rule.", "It prints the rule and where it broke."));
    const drift = findings();
    expect(drift.map((f) => [f.kind, f.where])).toEqual([["drift", "zh/guide/commands.md"]]);
    expect(drift[0]!.message).toContain("npm run docs:sync -- --mark zh/guide/commands.md");
    expect(drift[0]!.diff).toContain("-It prints the rule.");
    expect(drift[0]!.diff).toContain("+It prints the rule and where it broke.");
    markTranslated(root, ["zh/guide/commands.md"], ["zh"]);
    expect(findings()).toEqual([]);
  });

  it("a generated block that changes (its generator writes every language) is not drift", () => {
    markTranslated(root, ["zh/guide/commands.md", "zh/index.md"], ["zh"]);
    write("docs/guide/commands.md", ENGLISH.replace("| a | 1 |", "| a | 2 |\n| b | 3 |"));
    expect(findings()).toEqual([]);
    expect(normalize(ENGLISH)).not.toContain("| a | 1 |");
    // Markers named in prose are words, not a block: a change between them is drift.
    const prose = "Generated blocks (between `<!-- name:start -->` and `<!-- name:end -->`) are left out.";
    expect(normalize(prose)).toBe(prose);
  });

  it("without the old blob in the clone, drift is still reported, and says why there is no diff", () => {
    markTranslated(root, ["zh/guide/commands.md", "zh/index.md"], ["zh"]);
    const lock = readLock(root);
    writeFileSync(join(root, "docs/i18n.json"), JSON.stringify({ pages: { ...lock.pages, "zh/guide/commands.md": { ...lock.pages["zh/guide/commands.md"]!, blob: "0".repeat(40) } } }));
    write("docs/guide/commands.md", "# Commands\n\nSomething else.\n");
    const [drift] = findings();
    expect(drift?.kind).toBe("drift");
    expect(drift?.diff).toMatch(/is not in this clone/);
  });

  it("names a page missing in a language, a translation of no English page, and a rule without a language's words", () => {
    markTranslated(root, ["zh/guide/commands.md", "zh/index.md"], ["zh"]);
    write("docs/guide/new.md", "# New\n");
    write("docs/zh/guide/old.md", "# 旧\n");
    const got = findings({ "results-first": ["en", "zh"], "my-rule": ["en"] });
    expect(got.map((f) => [f.kind, f.where])).toEqual([
      ["missing-page", "zh/guide/new.md"],
      ["orphan-page", "zh/guide/old.md"],
      ["missing-rule", "my-rule"],
    ]);
    expect(got[2]!.message).toMatch(/no zh words/);
    // A language the site adds later (ja) needs every page and every rule.
    const ja = syncFindings({ root, languages: ["zh", "ja"], rules: { "results-first": ["en", "zh"] } });
    expect(ja.filter((f) => f.where.startsWith("ja/")).map((f) => f.kind)).toEqual(["missing-page", "missing-page", "missing-page"]);
    expect(ja.some((f) => f.kind === "missing-rule" && f.message.includes("no ja words"))).toBe(true);
  });

  it("names a lesson whose hints a language of npm run hint lacks", () => {
    markTranslated(root, ["zh/guide/commands.md", "zh/index.md"], ["zh"]);
    const got = syncFindings({ root, languages: ["zh"], courseLanguages: ["en", "zh"], hints: { s01: ["en", "zh"], s02: ["en"] } });
    expect(got.map((f) => [f.kind, f.where])).toEqual([["missing-hint", "s02"]]);
    expect(got[0]!.message).toMatch(/runtime\/i18n\/hints\.zh\.json/);
  });

  it("names a lesson whose picture has labels without a language's words; code labels (the same in English and Chinese) need none", () => {
    markTranslated(root, ["zh/guide/commands.md", "zh/index.md"], ["zh"]);
    const diagram = {
      title: { en: "The loop", zh: "循环", ja: "ループ" },
      boxes: [
        { id: "a", label: { en: "tool_use", zh: "tool_use" }, sub: { en: "run each", zh: "逐个运行", ja: "run each" } },
        { id: "b", label: { en: "done", zh: "结束", ja: "完了", ru: "готово" } },
      ],
      arrows: [{ from: "a", to: "b", label: { en: "yes", zh: "是", ja: " " } }],
    };
    const labels = pictureLabels(diagram);
    expect(labels.map((l) => l.en)).toEqual(["The loop", "tool_use", "run each", "done", "yes"]);
    // ja: missing on none but the copied English ("run each") and the blank ("yes"); ru: every translatable label but "done".
    expect(untranslatedLabels(labels, "ja")).toEqual(["run each", "yes"]);
    expect(untranslatedLabels(labels, "ru")).toEqual(["The loop", "run each", "yes"]);
    const got = syncFindings({ root, languages: ["zh"], pictures: { s01: labels } });
    expect(got).toEqual([]);
    const both = syncFindings({ root, languages: ["zh", "ja"], pictures: { s01: labels } }).filter((f) => f.kind === "missing-picture-words");
    expect(both.map((f) => [f.where, f.message.match(/\d+ label\(s\) without \w+/)?.[0]])).toEqual([["s01", "2 label(s) without ja"]]);
    expect(both[0]!.message).toMatch(/"run each", "yes".*diagrams\.ts.*course\.json "diagram"/);
  });

  it("finds every lesson's picture, and every label of it in every language of the site", async () => {
    const pictures = await pictureWords();
    const empty = Object.entries(pictures).filter(([, labels]) => labels.length < 3).map(([id]) => id);
    expect(empty, "these lessons have no picture (diagrams.ts or course.json \"diagram\")").toEqual([]);
    const gaps = Object.entries(pictures).flatMap(([id, labels]) =>
      ["zh", "ja", "ru"].flatMap((lang) => {
        const lacking = untranslatedLabels(labels, lang);
        return lacking.length ? [`${id} ${lang}: ${lacking.join(" | ")}`] : [];
      }),
    );
    expect(gaps, "labels of the lessons' pictures without words in a language of the site (docs/.vitepress/theme/diagrams.ts, solutions/<lesson>/course.json)").toEqual([]);
  });

  it("names a language the site has and npm run check does not speak, and the other way round", () => {
    markTranslated(root, ["zh/guide/commands.md", "zh/index.md"], ["zh"]);
    expect(syncFindings({ root, languages: ["zh"], courseLanguages: ["en", "zh"] })).toEqual([]);
    const got = syncFindings({ root, languages: ["zh"], courseLanguages: ["en", "ru"] });
    expect(got.map((f) => [f.kind, f.where])).toEqual([
      ["cli-language", "zh"],
      ["cli-language", "ru"],
    ]);
    expect(got[0]!.message).toMatch(/COURSE_LANGS in runtime\/rules\.ts/);
  });

  it("refuses to mark a page of a language the site does not have, or one without its English page", () => {
    expect(() => markTranslated(root, ["ja/index.md"], ["zh"])).toThrow(/not a page of a translated language/);
    write("docs/zh/guide/only-zh.md", "# 只有中文\n");
    expect(() => markTranslated(root, ["zh/guide/only-zh.md"], ["zh"])).toThrow(/its English page\) does not exist/);
  });
});
