/**
 * The rule catalog (runtime/rules.ts) as a table in the docs' message-rules page, in each of the
 * course's languages (English, Chinese, Japanese, Russian). The page holds one line where the
 * table goes,
 *
 *   <!-- rule-catalog -->
 *
 * and the site's markdown (catalogPlugin, in docs/.vitepress/config.ts) puts the table there when
 * it builds the page, from the catalog as it is then: a lesson that registers rules in its
 * course.json shows them on the next build, with no page edited (docs/guide/contributing.md).
 *
 * `npx tsx scripts/lib/rules-doc.ts [en|zh|ja|ru]` prints the table a language's page shows.
 */
import { join } from "node:path";
import { COURSE_LANGS, RULES, STAGES, ruleEntry, type Lang, type RuleId } from "../../runtime/rules.ts";
import { langOfPath } from "../../docs/.vitepress/theme/langs.ts";
import { sourcePlugin } from "../docs/pages.ts";
import { ROOT } from "./paths.ts";

export const PAGES: Record<Lang, string> = {
  en: join(ROOT, "docs/guide/message-rules.md"),
  zh: join(ROOT, "docs/zh/guide/message-rules.md"),
  ja: join(ROOT, "docs/ja/guide/message-rules.md"),
  ru: join(ROOT, "docs/ru/guide/message-rules.md"),
};

/** The line of a page the table replaces (alone on its line). */
export const MARKER = "<!-- rule-catalog -->";

const STAGE_NAMES: Record<Lang, Record<(typeof STAGES)[number], string>> = {
  en: { syntax: "1 · it parses", types: "2 · it type-checks", hang: "3 · the loop returns", growth: "4 · the history grows", pairing: "5 · the pairing rules", lesson: "6 · the lesson's own rules", net: "7 · the net: beside the reference" },
  zh: { syntax: "1 · 能解析", types: "2 · 通过类型检查", hang: "3 · 循环能返回", growth: "4 · history 在增长", pairing: "5 · 配对规则", lesson: "6 · 各课自己的规则", net: "7 · 兜底网：与参考答案对照" },
  ja: { syntax: "1 · 構文解析できる", types: "2 · 型チェックが通る", hang: "3 · ループが戻る", growth: "4 · history が伸びる", pairing: "5 · 対応づけのルール", lesson: "6 · 各レッスン固有のルール", net: "7 · セーフティネット：参考解答と並べて" },
  ru: { syntax: "1 · разбирается", types: "2 · проходит проверку типов", hang: "3 · цикл возвращается", growth: "4 · history растёт", pairing: "5 · правила пар", lesson: "6 · правила урока", net: "7 · страховка: рядом с эталоном" },
};

/** The page's own words around the table, per language. */
const FRAME: Record<Lang, { intro: string; head: string; untranslated: string }> = {
  en: {
    intro:
      "Every failure `npm run check` reports names one of these rules, in brackets (`[results-first]`), with what it means and what to do. When several are broken, the one earliest in this order leads: it is usually the cause of the others. Where a later rule is the cause, it leads all the same: a loop with no stop check is told `stop-when-done` before the empty message it leaves, a result in an assistant message `wrong-role-block` before the two messages of one role it makes, a turn rebuilt wrong `not-verbatim` before its empty block. The language follows `COURSE_LANG` (`en`, `zh`, `ja` or `ru`) or your locale.",
    head: "| rule | stage | what it says | what to do |\n| --- | --- | --- | --- |",
    untranslated: "",
  },
  zh: {
    intro:
      "`npm run check` 报告的每个失败都会用方括号标出下列规则之一（如 `[results-first]`），并说明含义和做法。同时违反多条时，按下表顺序最靠前的一条排在最前：它通常是其他问题的原因。若后面的规则才是原因，仍由它排在最前：没有停止检查的循环先得到 `stop-when-done`，而不是它留下的空消息；放在 assistant 消息里的结果先得到 `wrong-role-block`，而不是由此产生的两条同角色消息；被改错重建的轮次先得到 `not-verbatim`，而不是它留下的空块。语言由 `COURSE_LANG`（`en`、`zh`、`ja` 或 `ru`）或系统区域设置决定。",
    head: "| 规则 | 阶段 | 含义 | 怎么做 |\n| --- | --- | --- | --- |",
    untranslated: "",
  },
  ja: {
    intro:
      "`npm run check` が報告する失敗はどれも、角括弧でこれらのルールのどれか（`[results-first]` など）を示し、その意味とすべきことを添えます。複数が破られているときは、この順で最も早いものが先頭に来ます。たいていそれが他の原因だからです。後のルールが原因である場合も、そのルールが先頭に来ます。停止判定のないループは、それが残す空のメッセージより先に `stop-when-done` を、assistant メッセージに置かれた結果は、それが生む同じ役割の二つのメッセージより先に `wrong-role-block` を、誤って作り直されたターンは、その空のブロックより先に `not-verbatim` を告げられます。言語は `COURSE_LANG`（`en`、`zh`、`ja`、`ru`）またはシステムのロケールに従います。",
    head: "| ルール | 段階 | 意味 | すべきこと |\n| --- | --- | --- | --- |",
    untranslated: "（英語のまま：まだ翻訳されていません）",
  },
  ru: {
    intro:
      "Каждая ошибка, о которой сообщает `npm run check`, называет в квадратных скобках одно из этих правил (`[results-first]`), что оно значит и что делать. Если нарушено несколько, первым идёт то, что раньше в этом порядке: обычно оно и есть причина остальных. Если причина — правило из конца списка, первым всё равно идёт оно: цикл без проверки остановки получает `stop-when-done` раньше, чем пустое сообщение, которое он оставляет; результат в сообщении assistant — `wrong-role-block` раньше, чем два сообщения одной роли, которые из этого получаются; неверно пересобранный ход — `not-verbatim` раньше, чем его пустой блок. Язык задаёт `COURSE_LANG` (`en`, `zh`, `ja` или `ru`) или локаль системы.",
    head: "| правило | этап | что оно значит | что делать |\n| --- | --- | --- | --- |",
    untranslated: "(по-английски: ещё не переведено)",
  },
};

/**
 * A table cell: pipes escaped, one line, and `<`/`>` outside code spans written as entities
 * (VitePress reads the page as a Vue template: "mcp__<server>__<tool>" would be an open element).
 */
const cell = (s: string) =>
  s
    .replaceAll("|", "\\|")
    .replaceAll("\n", " ")
    .split(/(`[^`]*`)/)
    .map((part) => (part.startsWith("`") ? part : part.replaceAll("<", "&lt;").replaceAll(">", "&gt;")))
    .join("");

/** The table with its introduction, in one language: what the page shows at the marker. */
export function catalogBlock(lang: Lang): string {
  const { intro, head, untranslated } = FRAME[lang];
  const ids = (Object.keys(RULES) as RuleId[]).sort((a, b) => STAGES.indexOf(ruleEntry(a).stage) - STAGES.indexOf(ruleEntry(b).stage));
  const rows = ids.map((id) => {
    const entry = ruleEntry(id);
    const w = entry[lang] ?? entry.en;
    const mark = entry[lang] ? "" : ` ${untranslated}`;
    return `| \`${id}\` | ${STAGE_NAMES[lang][entry.stage]} | ${cell(w.what)}${mark} | ${cell(w.fix)} |`;
  });
  return [intro, "", head, ...rows].join("\n");
}

const MARKER_LINE = /^[ \t]*<!-- rule-catalog -->[ \t]*$/m;

/** The page as the site shows it: the marker's line replaced by the table (a page without one unchanged). */
export function withCatalog(page: string, lang: Lang): string {
  return page.replace(MARKER_LINE, () => catalogBlock(lang));
}

/**
 * The markdown-it plugin of the site: on a page that holds the marker, the table of the page's
 * language, rendered as the page's own markdown (so the local search indexes it too).
 */
export const catalogPlugin = () => sourcePlugin("rule-catalog", (src, rel) => (src.includes(MARKER) ? withCatalog(src, langOfPath(rel)) : src));

if (process.argv[1] && import.meta.url === new URL(`file://${process.argv[1]}`).href) {
  const lang = process.argv[2] ?? "en";
  if (!(COURSE_LANGS as readonly string[]).includes(lang)) {
    console.error(`usage: npx tsx scripts/lib/rules-doc.ts [${COURSE_LANGS.join("|")}]   (prints the rules table of that language's page)`);
    process.exitCode = 2;
  } else console.log(catalogBlock(lang as Lang));
}
