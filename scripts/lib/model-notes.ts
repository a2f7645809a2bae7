/**
 * Where a model's facts come from when they are not the model's own page, or are not confirmed, in each
 * language of the site: the notes under the model table of docs/guide/compatibility.md. Kept apart
 * from MODEL_TABLE (runtime/scripted/models.ts) because they are words for the page, not rules the
 * scripted model applies: a note changes no lesson's behaviour, so editing one leaves every mutation
 * score fresh. tests/runtime/models-doc.test.ts checks that each note names a model of the table.
 */
import type { SiteLang } from "../../docs/.vitepress/theme/langs.ts";

export const MODEL_NOTES: Readonly<Record<string, Readonly<Record<SiteLang, string>>>> = {
  "claude-fable-5-2": { en: "release day and forced tool use: not confirmed (third-party: the same rules as Fable 5.1)", zh: "发布日期和强制工具：未确认（第三方资料：规则与 Fable 5.1 相同）", ja: "リリース日と強制ツール：未確認（第三者資料：Fable 5.1 と同じ規則）", ru: "дата выпуска и принудительный инструмент: не подтверждены (сторонние материалы: те же правила, что у Fable 5.1)" },
  "claude-haiku-5-5": { en: "`disabled` and sampling at defaults only: not confirmed (third-party)", zh: "`disabled` 和采样参数只能取默认值：未确认（第三方资料）", ja: "`disabled` とサンプリングは既定値のみ：未確認（第三者資料）", ru: "`disabled` и выборка только со значениями по умолчанию: не подтверждено (сторонние материалы)" },
  "claude-opus-5-5": { en: "release day: not confirmed", zh: "发布日期：未确认", ja: "リリース日：未確認", ru: "дата выпуска: не подтверждена" },
  "claude-opus-5": { en: "`disabled`: inferred (its thinking is adaptive, not always on)", zh: "`disabled`：推断（它的思考是 adaptive，不是始终开启）", ja: "`disabled`：推定（その思考は adaptive で、常時オンではない）", ru: "`disabled`: выведено (его мышление adaptive, а не всегда включено)" },
  "claude-opus-4-8": { en: "context window, output limit and release day: not confirmed (as Opus 4.7; the day a year before its retirement floor)", zh: "上下文窗口、输出上限和发布日期：未确认（按 Opus 4.7；日期取其最早退役日的前一年）", ja: "コンテキストウィンドウ、出力上限、リリース日：未確認（Opus 4.7 と同じ；日付は最も早い退役日の一年前）", ru: "контекстное окно, предел вывода и дата выпуска: не подтверждены (как у Opus 4.7; дата — за год до самой ранней даты вывода из эксплуатации)" },
  "claude-sonnet-4-5-20250929": {
    en: "retires November 30, 2026 (its page); listed as deprecated (the API's lifecycle, not the date, says when it is retired); deprecation day not confirmed",
    zh: "2026 年 11 月 30 日退役（它的页面）；这里列为已弃用（是否已退役看 API 的 lifecycle，而不是日期）；弃用日期未确认",
    ja: "2026 年 11 月 30 日に退役（そのページ）；ここでは非推奨として載せる（退役したかどうかは日付ではなく API の lifecycle が決める）；非推奨になった日は未確認",
    ru: "выводится из эксплуатации 30 ноября 2026 года (её страница); здесь указана как устаревшая (выведена ли она, решает lifecycle API, а не дата); дата устаревания не подтверждена",
  },
  "claude-opus-4-5-20251101": { en: "deprecation dates: a third-party transcription of the deprecations page", zh: "弃用日期：来自第三方对弃用页的转录", ja: "非推奨の日付：非推奨ページの第三者による書き写し", ru: "даты вывода из употребления: сторонняя копия страницы об устаревании" },
};
