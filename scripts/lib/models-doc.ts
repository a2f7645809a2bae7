/**
 * The scripted model's model table (runtime/scripted/models.ts) as a table in the compatibility
 * page of every language of the site that has one (en, zh, ja, ru), between the markers
 *
 *   <!-- model-table:start -->  …  <!-- model-table:end -->
 *
 * `npx tsx scripts/lib/models-doc.ts` writes every such page; `--check` exits 1 when one is out of date
 * (tests/runtime/models-doc.test.ts runs the same comparison).
 */
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { EFFORT_LEVELS, MODEL_TABLE, type ModelSpec } from "../../runtime/scripted/models.ts";
import { MODEL_NOTES } from "./model-notes.ts";
import { ROOT } from "./paths.ts";

import { SITE_LANGS, langDir, type SiteLang as Lang } from "../../docs/.vitepress/theme/langs.ts";

export const MODEL_PAGES = Object.fromEntries(SITE_LANGS.map((l) => [l, join(ROOT, "docs", langDir(l), "guide/compatibility.md")])) as Record<Lang, string>;

/** The languages whose compatibility page exists (English always; a translation once its page is written). */
export const modelPageLangs = (): Lang[] => SITE_LANGS.filter((l) => l === "en" || existsSync(MODEL_PAGES[l]));

const START = "<!-- model-table:start -->";
const END = "<!-- model-table:end -->";

const WORDS = {
  en: {
    head: ["model id (aliases)", "lifecycle", "context window", "output limit (`max_tokens`)", "thinking types", "`output_config.effort`", "prefill", "sampling (`2023-06-01`)", "forced tool (`any`, `tool`)", "budget over `max_tokens` (interleaved beta)"],
    yes: "accepted",
    no: "refused",
    lifecycle: { active: "active", deprecated: "deprecated, retires", retired: "retired" },
    sampling: { any: "each in its range", one: "`temperature` or `top_p`, not both", defaults: "defaults only", none: "refused, defaults too" },
    with: "with",
    own: "(the lessons' id offline)",
    notes: "Notes:",
    intro:
      "Generated from `MODEL_TABLE` (runtime/scripted/models.ts) by scripts/lib/models-doc.ts: edit the table, then run `npx tsx scripts/lib/models-doc.ts`. A retired model stays in `GET /v1/models?lifecycle[]=retired`; a request naming it gets the API's 404.",
  },
  zh: {
    head: ["模型 id（别名）", "生命周期", "上下文窗口", "输出上限（`max_tokens`）", "thinking 类型", "`output_config.effort`", "预填充", "采样参数（`2023-06-01`）", "强制工具（`any`、`tool`）", "预算超过 `max_tokens`（interleaved beta）"],
    yes: "接受",
    no: "拒绝",
    lifecycle: { active: "在用", deprecated: "已弃用，退役于", retired: "已退役" },
    sampling: { any: "各自在范围内", one: "`temperature` 或 `top_p`，不能同时", defaults: "只能取默认值", none: "拒绝，默认值也不行" },
    with: "加",
    own: "（课程离线时用的 id）",
    notes: "注：",
    intro:
      "由 scripts/lib/models-doc.ts 从 `MODEL_TABLE`（runtime/scripted/models.ts）生成：改表，然后运行 `npx tsx scripts/lib/models-doc.ts`。已退役的模型仍出现在 `GET /v1/models?lifecycle[]=retired` 里；请求它会得到 API 的 404。",
  },
  ja: {
    head: ["モデル id（エイリアス）", "ライフサイクル", "コンテキストウィンドウ", "出力上限（`max_tokens`）", "thinking の種類", "`output_config.effort`", "プリフィル", "サンプリング（`2023-06-01`）", "強制ツール（`any`、`tool`）", "`max_tokens` を超える予算（interleaved beta）"],
    yes: "受け付ける",
    no: "拒否",
    lifecycle: { active: "現役", deprecated: "非推奨、退役日", retired: "退役済み" },
    sampling: { any: "それぞれ範囲内で", one: "`temperature` か `top_p`、両方は不可", defaults: "既定値のみ", none: "拒否、既定値も不可" },
    with: "＋",
    own: "（オフラインのレッスンの id）",
    notes: "注：",
    intro:
      "scripts/lib/models-doc.ts が `MODEL_TABLE`（runtime/scripted/models.ts）から生成：表を編集してから `npx tsx scripts/lib/models-doc.ts` を実行する。退役したモデルは `GET /v1/models?lifecycle[]=retired` に残り、それを指定したリクエストは API の 404 を受け取る。",
  },
  ru: {
    head: ["id модели (псевдонимы)", "жизненный цикл", "контекстное окно", "предел вывода (`max_tokens`)", "типы thinking", "`output_config.effort`", "префилл", "выборка (`2023-06-01`)", "принудительный инструмент (`any`, `tool`)", "бюджет больше `max_tokens` (interleaved beta)"],
    yes: "принимается",
    no: "отклоняется",
    lifecycle: { active: "действует", deprecated: "устарела, выводится", retired: "выведена" },
    sampling: { any: "каждый в своём диапазоне", one: "`temperature` или `top_p`, не оба", defaults: "только по умолчанию", none: "отклоняются, даже по умолчанию" },
    with: "с",
    own: "(id уроков офлайн)",
    notes: "Примечания:",
    intro:
      "Создано из `MODEL_TABLE` (runtime/scripted/models.ts) скриптом scripts/lib/models-doc.ts: правьте таблицу, затем запустите `npx tsx scripts/lib/models-doc.ts`. Выведенная модель остаётся в `GET /v1/models?lifecycle[]=retired`; запрос с ней получает 404 от API.",
  },
} as const satisfies Record<Lang, unknown>;

/** 200000 → "200 000", as the rest of the page writes numbers. */
const num = (n: number) => String(n).replace(/\B(?=(\d{3})+(?!\d))/g, " ");
const day = (iso: string | null) => (iso ?? "").slice(0, 10);
const code = (s: string) => `\`${s}\``;

function row(m: ModelSpec, lang: Lang): string {
  const w = WORDS[lang];
  const ids = [code(m.id), ...m.aliases.map(code)].join(", ") + (m.id === "scripted-model" ? ` ${w.own}` : "");
  const life = m.lifecycle === "deprecated" ? `${w.lifecycle.deprecated} ${day(m.retires_at)}` : m.lifecycle === "retired" ? `${w.lifecycle.retired} ${day(m.retires_at)}` : w.lifecycle.active;
  const window = num(m.contextWindow) + (m.longContext ? ` (${num(m.longContext.tokens)} ${w.with} ${code(m.longContext.beta)})` : "");
  const yn = (b: boolean) => (b ? w.yes : w.no);
  // A type limited to some effort levels shows them (`disabled` (`low`–`high`)); the effort cell lists the levels unless all are taken.
  const span = (levels: readonly string[]) => (levels.length === 1 ? code(levels[0]!) : `${code(levels[0]!)}–${code(levels[levels.length - 1]!)}`);
  const thinking = m.thinking.map((t) => code(t) + (m.thinkingEffort?.[t] ? ` (${span(m.thinkingEffort[t]!)})` : "")).join(", ") || "—";
  const effort = m.effort.length === 0 ? w.no : m.effort.length === EFFORT_LEVELS.length ? w.yes : m.effort.map(code).join(", ");
  const cells = [ids, life, window, num(m.maxOutput), thinking, effort, yn(m.prefill), w.sampling[m.sampling], yn(m.forcedToolChoice), yn(m.interleaved)];
  return `| ${cells.join(" | ")} |`;
}

/** The generated block (markers included) for one language. */
export function modelTableBlock(lang: Lang): string {
  const w = WORDS[lang];
  const head = `| ${w.head.join(" | ")} |\n|${" --- |".repeat(w.head.length)}`;
  const notes = MODEL_TABLE.flatMap((m) => (MODEL_NOTES[m.id] ? [`- ${code(m.id)}: ${MODEL_NOTES[m.id]![lang]}`] : []));
  return [START, "", `<!-- ${w.intro.replace(/`/g, "")} -->`, "", head, ...MODEL_TABLE.map((m) => row(m, lang)), "", w.notes, "", ...notes, "", END].join("\n");
}

/** The page with its model block replaced; a page without the markers is returned as it is. */
export function withModelTable(page: string, lang: Lang): string {
  const a = page.indexOf(START);
  const b = page.indexOf(END);
  if (a < 0 || b < a) return page;
  return page.slice(0, a) + modelTableBlock(lang) + page.slice(b + END.length);
}

if (process.argv[1] && import.meta.url === new URL(`file://${process.argv[1]}`).href) {
  const check = process.argv.includes("--check");
  let stale = false;
  for (const lang of modelPageLangs()) {
    const page = readFileSync(MODEL_PAGES[lang], "utf8");
    if (!page.includes(START)) {
      console.log(`no ${START} marker in ${MODEL_PAGES[lang].slice(ROOT.length + 1)}: add the markers where the table goes`);
      stale = true;
      continue;
    }
    const next = withModelTable(page, lang);
    if (next === page) continue;
    stale = true;
    if (!check) writeFileSync(MODEL_PAGES[lang], next);
    console.log(`${check ? "out of date" : "wrote"}: ${MODEL_PAGES[lang].slice(ROOT.length + 1)}`);
  }
  process.exitCode = check && stale ? 1 : 0;
}
