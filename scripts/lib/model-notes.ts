/**
 * Where a model's facts come from when they are not the model's own page, or are not confirmed, in each
 * language of the site: the notes under the model table of docs/guide/compatibility.md. Kept apart
 * from MODEL_TABLE (runtime/scripted/models.ts) because they are words for the page, not rules the
 * scripted model applies: a note changes no lesson's behaviour, so editing one leaves every mutation
 * score fresh. tests/runtime/models-doc.test.ts checks that each note names a model of the table.
 */
import type { SiteLang } from "../../docs/.vitepress/theme/langs.ts";

export const MODEL_NOTES: Readonly<Record<string, Readonly<Record<SiteLang, string>>>> = {
  "claude-fable-5-2": { en: "release day and forced tool use: not confirmed (third-party: the same rules as Fable 5.1); sampling refused at any value: inferred from Fable 5", zh: "发布日期和强制工具：未确认（第三方资料：规则与 Fable 5.1 相同）；采样参数任何取值都拒绝：从 Fable 5 推断", ja: "リリース日と強制ツール：未確認（第三者資料：Fable 5.1 と同じ規則）；サンプリングはどの値でも拒否：Fable 5 からの推定", ru: "дата выпуска и принудительный инструмент: не подтверждены (сторонние материалы: те же правила, что у Fable 5.1); выборка отклоняется при любом значении: выведено из Fable 5" },
  "claude-haiku-5-5": { en: "`disabled` and sampling at defaults only: not confirmed (third-party)", zh: "`disabled` 和采样参数只能取默认值：未确认（第三方资料）", ja: "`disabled` とサンプリングは既定値のみ：未確認（第三者資料）", ru: "`disabled` и выборка только со значениями по умолчанию: не подтверждено (сторонние материалы)" },
  "claude-opus-5-5": { en: "release day: not confirmed; sampling refused at any value: inferred from Opus 4.7 and 4.8", zh: "发布日期：未确认；采样参数任何取值都拒绝：从 Opus 4.7 和 4.8 推断", ja: "リリース日：未確認；サンプリングはどの値でも拒否：Opus 4.7 と 4.8 からの推定", ru: "дата выпуска: не подтверждена; выборка отклоняется при любом значении: выведено из Opus 4.7 и 4.8" },
  "claude-opus-5": { en: "`disabled` only at effort `high` or below (What's new in Opus 5.5); sampling refused at any value: inferred from Opus 4.8", zh: "`disabled` 只在 effort 为 `high` 或更低时可用（Opus 5.5 的新功能页）；采样参数任何取值都拒绝：从 Opus 4.8 推断", ja: "`disabled` は effort が `high` 以下のときだけ（Opus 5.5 の新機能ページ）；サンプリングはどの値でも拒否：Opus 4.8 からの推定", ru: "`disabled` только при effort `high` или ниже (страница нового в Opus 5.5); выборка отклоняется при любом значении: выведено из Opus 4.8" },
  "claude-opus-4-8": { en: "context window, output limit and release day: not confirmed (as Opus 4.7; the day a year before its retirement floor)", zh: "上下文窗口、输出上限和发布日期：未确认（按 Opus 4.7；日期取其最早退役日的前一年）", ja: "コンテキストウィンドウ、出力上限、リリース日：未確認（Opus 4.7 と同じ；日付は最も早い退役日の一年前）", ru: "контекстное окно, предел вывода и дата выпуска: не подтверждены (как у Opus 4.7; дата — за год до самой ранней даты вывода из эксплуатации)" },
  "claude-sonnet-4-5-20250929": {
    en: "retires November 30, 2026 (its page); listed as deprecated (the API's lifecycle, not the date, says when it is retired); deprecation day not confirmed",
    zh: "2026 年 11 月 30 日退役（它的页面）；这里列为已弃用（是否已退役看 API 的 lifecycle，而不是日期）；弃用日期未确认",
    ja: "2026 年 11 月 30 日に退役（そのページ）；ここでは非推奨として載せる（退役したかどうかは日付ではなく API の lifecycle が決める）；非推奨になった日は未確認",
    ru: "выводится из эксплуатации 30 ноября 2026 года (её страница); здесь указана как устаревшая (выведена ли она, решает lifecycle API, а не дата); дата устаревания не подтверждена",
  },
  "claude-opus-4-5-20251101": { en: "deprecation dates: a third-party transcription of the deprecations page", zh: "弃用日期：来自第三方对弃用页的转录", ja: "非推奨の日付：非推奨ページの第三者による書き写し", ru: "даты вывода из употребления: сторонняя копия страницы об устаревании" },
  "claude-fable-5-1": { en: "sampling refused at any value: inferred from Fable 5", zh: "采样参数任何取值都拒绝：从 Fable 5 推断", ja: "サンプリングはどの値でも拒否：Fable 5 からの推定", ru: "выборка отклоняется при любом значении: выведено из Fable 5" },
  "claude-sonnet-5-5": { en: "`between_tools` only at effort `high` or below (What's new in Sonnet 5.5); sampling at defaults only: inferred from Sonnet 5", zh: "`between_tools` 只在 effort 为 `high` 或更低时可用（Sonnet 5.5 的新功能页）；采样参数只能取默认值：从 Sonnet 5 推断", ja: "`between_tools` は effort が `high` 以下のときだけ（Sonnet 5.5 の新機能ページ）；サンプリングは既定値のみ：Sonnet 5 からの推定", ru: "`between_tools` только при effort `high` или ниже (страница нового в Sonnet 5.5); выборка только по умолчанию: выведено из Sonnet 5" },
  "claude-mythos-5": { en: "offered separately, by invitation only; Fable 5's specifications (Fable 5's overview page)", zh: "单独提供，仅限受邀使用；规格与 Fable 5 相同（Fable 5 的概览页）", ja: "招待制で別途提供；仕様は Fable 5 と同じ（Fable 5 の概要ページ）", ru: "предоставляется отдельно, только по приглашению; характеристики Fable 5 (обзорная страница Fable 5)" },
  "claude-3-haiku-20240307": { en: "retirement day: third-party reports (April 19 or 20, 2026); deprecation day not confirmed (60 days' notice, the least the deprecations page promises); the release day is the id's date", zh: "退役日期：第三方报告（2026 年 4 月 19 日或 20 日）；弃用日期未确认（取弃用页承诺的最短提前量 60 天）；发布日期取自 id 中的日期", ja: "退役日：第三者の報告（2026 年 4 月 19 日または 20 日）；非推奨日は未確認（非推奨ページが約束する最短の 60 日前とした）；リリース日は id の日付", ru: "дата вывода: сторонние сообщения (19 или 20 апреля 2026 года); дата устаревания не подтверждена (за 60 дней — наименьший срок, который обещает страница об устаревании); дата выпуска — дата в id" },
};
