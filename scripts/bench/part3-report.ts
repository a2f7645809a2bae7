/**
 * Part III's figures on the benchmarks pages, drawn from the figures alone (scripts/bench/part3.ts
 * measures them): what s20's context editing saves over a long session and what it costs the
 * cache prefix, and what s19's hooks cost per tool call, with the sandbox on and off.
 *
 * Each has its own block on the page (`context_editing`, `hook_cost`), so `npm run bench -- --only
 * context_editing --update-docs` writes one without measuring the rest. The figures are kept in the
 * block as a comment and read back through their zod schema, so a page can be drawn again and a
 * figure of the wrong shape is named, not drawn. Words follow the glossary (docs/guide/glossary.md).
 */
import { z } from "zod";
import { markdownTable, wordsFor, type Lang } from "../reliability/report.ts";

// ── the figures ──

const ContextRun = z.strictObject({
  /** null: context editing off (`contextEditing: false`). */
  policy: z.strictObject({ budget: z.number().int().positive(), keep: z.number().int().nonnegative() }).nullable(),
  requests: z.number().int().nonnegative(),
  /** Input tokens of the last request (fresh + cache writes + cache reads). */
  last: z.number().int().nonnegative(),
  /** Input tokens of every request, summed. */
  total: z.number().int().nonnegative(),
  cache_read: z.number().int().nonnegative(),
  cache_write: z.number().int().nonnegative(),
  output: z.number().int().nonnegative(),
  /** The session's price in units of the input price (fresh input 1×, the rest by the price table). */
  cost: z.number().nonnegative(),
  /** What the run's ContextEditor counted: results cleared, cache prefix rewrites. */
  cleared: z.number().int().nonnegative(),
  rewrites: z.number().int().nonnegative(),
});
export type ContextRun = z.infer<typeof ContextRun>;

export const ContextEditingFigures = z.strictObject({
  date: z.string(),
  /** The lesson whose loop ran (null: s20 is not in the course yet). */
  agent: z.string().nullable(),
  turns: z.number().int().nonnegative(),
  file_chars: z.number().int().nonnegative(),
  read_cap: z.number().int().positive(),
  /** The price table's ratios to the input price, and the model they are of. */
  prices: z.strictObject({ model: z.string(), cache_write: z.number(), cache_read: z.number(), output: z.number() }),
  /** The first run is with context editing off; the others at one budget each. */
  runs: z.array(ContextRun),
  stopped: z.array(z.string()),
});
export type ContextEditingFigures = z.infer<typeof ContextEditingFigures>;

export const HOOK_SETS = ["none", "pre", "pre_post"] as const;
export type HookSet = (typeof HOOK_SETS)[number];

const HookRow = z.strictObject({
  hooks: z.enum(HOOK_SETS),
  sandbox: z.enum(["bubblewrap", "none"]),
  /** The loop's time per tool call, model time left out: the median over `samples` calls. */
  ms: z.number().nonnegative(),
  samples: z.number().int().nonnegative(),
});
export type HookRow = z.infer<typeof HookRow>;

export const HookCostFigures = z.strictObject({
  date: z.string(),
  /** The lesson whose loop ran (null: s19 is not in the course yet). */
  agent: z.string().nullable(),
  /** Tool calls measured per row (one a turn). */
  calls: z.number().int().nonnegative(),
  /** The hook's command (each configured hook runs it). */
  hook: z.string(),
  /** Why there are no bubblewrap rows (bwrap missing or unusable), or null. */
  no_sandbox_why: z.string().nullable(),
  rows: z.array(HookRow),
  problems: z.array(z.string()),
});
export type HookCostFigures = z.infer<typeof HookCostFigures>;

const round = (x: number, d = 2) => Math.round(x * 10 ** d) / 10 ** d;
const ratio = (a: number, b: number, d = 3) => (b > 0 ? round(a / b, d) : null);

/** One budget's figures over the run without context editing: the ratios the page prints. */
export function contextRatios(off: ContextRun, on: ContextRun) {
  return {
    last_over_off: ratio(on.last, off.last),
    total_over_off: ratio(on.total, off.total),
    cache_write_over_off: ratio(on.cache_write, off.cache_write),
    cost_over_off: ratio(on.cost, off.cost),
  };
}

/** The JSON the bench's summary carries under `context_editing`. */
export function contextEditingSummary(f: ContextEditingFigures) {
  const off = f.runs.find((r) => r.policy === null);
  if (f.agent === null || !off) return null;
  return {
    turns: f.turns,
    off: { last_tokens: off.last, total_tokens: off.total, cost_units: Math.round(off.cost) },
    budgets: f.runs.flatMap((r) => (r.policy ? [{ budget: r.policy.budget, keep: r.policy.keep, last_tokens: r.last, total_tokens: r.total, cost_units: Math.round(r.cost), ...contextRatios(off, r) }] : [])),
  };
}

const rowOf = (f: HookCostFigures, hooks: HookSet, sandbox: HookRow["sandbox"]) => f.rows.find((r) => r.hooks === hooks && r.sandbox === sandbox);
/** ms a row adds per call over the same sandbox without hooks (null when either is missing). */
export function addedMs(f: HookCostFigures, hooks: HookSet, sandbox: HookRow["sandbox"]): number | null {
  const row = rowOf(f, hooks, sandbox);
  const base = rowOf(f, "none", sandbox);
  return row && base ? round(row.ms - base.ms) : null;
}

/** The JSON the bench's summary carries under `hook_cost`. */
export function hookCostSummary(f: HookCostFigures) {
  if (f.agent === null) return null;
  const preSandbox = addedMs(f, "pre", "bubblewrap");
  const preNone = addedMs(f, "pre", "none");
  return {
    calls: f.calls,
    ms_per_call_no_hooks: rowOf(f, "none", "none")?.ms ?? null,
    added_ms_pre_sandbox: preSandbox,
    added_ms_pre_post_sandbox: addedMs(f, "pre_post", "bubblewrap"),
    added_ms_pre_no_sandbox: preNone,
    added_ms_pre_post_no_sandbox: addedMs(f, "pre_post", "none"),
    sandbox_over_no_sandbox: preSandbox !== null && preNone !== null && preNone > 0 ? round(preSandbox / preNone) : null,
  };
}

// ── the words ──

const fmt = (n: number) => String(n);
const W_ALL = {
  en: {
    na: (lesson: string) => `n/a (lesson not present) (${lesson})`,
    date: (d: string, kind: Part3Kind) => `_${d}, \`npm run bench\` (or \`npm run bench -- --only ${kind}\`):_`,
    ceHead: (agent: string, turns: number, chars: number, cap: number) => `### Context editing (${agent}: ${turns} turns, each reads a file of ${chars} characters, read_file cap ${cap})`,
    ceCols: ["run", "requests", "input tokens, last request", "input tokens, all requests", "cache reads", "cache writes", "cost", "cleared / prefix rewritten", "figure"],
    off: "context editing off (contextEditing: false)",
    on: (budget: number, keep: number) => `budget ${budget} characters, keep ${keep}`,
    cleared: (n: number, r: number) => `${n} results / ${r} times`,
    prices: (model: string, w: number, r: number, o: number) =>
      `Cost: the session's input and output at ${model}'s list prices (the offline model is priced as it), in units of the input price: fresh input 1×, cache writes ${w}×, cache reads ${r}×, output ${o}×. The ratios are to the run with context editing off, measured in the same run.`,
    stopped: (s: string) => `note: a session ${s}`,
    hcHead: (agent: string, calls: number, hook: string) => `### Hook cost (${agent}: ${calls} tool calls per row, one a turn; each hook runs \`${hook}\`)`,
    hcCols: ["hooks", "sandbox", "ms per call (median)", "added per call"],
    hooks: { none: "none", pre: "PreToolUse", pre_post: "PreToolUse + PostToolUse" } as Record<HookSet, string>,
    sandbox: { bubblewrap: "bubblewrap", none: "none (COURSE_SANDBOX=off)" } as Record<HookRow["sandbox"], string>,
    noSandbox: (why: string) => `No bubblewrap rows: ${why}.`,
    perHook: (sandbox: number | null, none: number | null, r: number | null) =>
      `One hook adds ${sandbox ?? "—"} ms per call in the sandbox and ${none ?? "—"} ms without it${r !== null ? ` (sandbox_over_no_sandbox = ${r})` : ""}. Medians over the calls of one run, the rows measured in turns; reported, not judged.`,
    problem: (p: string) => `note: a hook ${p}`,
  },
  zh: {
    na: (lesson: string) => `不适用（这一课尚未加入）（${lesson}）`,
    date: (d: string, kind: Part3Kind) => `_${d}，\`npm run bench\`（或 \`npm run bench -- --only ${kind}\`）：_`,
    ceHead: (agent: string, turns: number, chars: number, cap: number) => `### 上下文编辑（${agent}：${turns} 轮，每轮读取一个 ${chars} 个字符的文件，read_file 上限 ${cap}）`,
    ceCols: ["运行", "请求数", "输入 token（最后一次请求）", "输入 token（全部请求）", "缓存读取", "缓存写入", "成本", "清除 / 前缀重写", "指标"],
    off: "关闭上下文编辑（contextEditing: false）",
    on: (budget: number, keep: number) => `预算 ${budget} 个字符，保留 ${keep} 个`,
    cleared: (n: number, r: number) => `${n} 个结果 / ${r} 次`,
    prices: (model: string, w: number, r: number, o: number) =>
      `成本：会话的输入和输出按 ${model} 的公开价格计算（离线模型按它计价），以输入价格为单位：新输入 1×，缓存写入 ${w}×，缓存读取 ${r}×，输出 ${o}×。比值都是与同一次运行中关闭上下文编辑的会话相比。`,
    stopped: (s: string) => `注意：有一个会话 ${s}`,
    hcHead: (agent: string, calls: number, hook: string) => `### 钩子的开销（${agent}：每行 ${calls} 次工具调用，每轮一次；每个钩子运行 \`${hook}\`）`,
    hcCols: ["钩子", "沙箱", "每次调用毫秒（中位数）", "每次调用增加"],
    hooks: { none: "无", pre: "PreToolUse", pre_post: "PreToolUse + PostToolUse" } as Record<HookSet, string>,
    sandbox: { bubblewrap: "bubblewrap", none: "无（COURSE_SANDBOX=off）" } as Record<HookRow["sandbox"], string>,
    noSandbox: (why: string) => `没有 bubblewrap 的行：${why}。`,
    perHook: (sandbox: number | null, none: number | null, r: number | null) =>
      `一个钩子在沙箱中让每次调用多花 ${sandbox ?? "—"} ms，不用沙箱时多花 ${none ?? "—"} ms${r !== null ? `（sandbox_over_no_sandbox = ${r}）` : ""}。都是同一次运行中各次调用的中位数，各行轮流测量；只报告，不评判。`,
    problem: (p: string) => `注意：有一个钩子 ${p}`,
  },
};

/** ja and ru: the headings and column names (the rest in English for now). */
const HEADS: Partial<Record<Lang, Partial<(typeof W_ALL)["en"]>>> = {
  ja: {
    ceHead: (agent: string, turns: number, chars: number, cap: number) => `### コンテキスト編集（${agent}：${turns} ターン、毎ターン ${chars} 文字のファイルを読む、read_file 上限 ${cap}）`,
    ceCols: ["実行", "リクエスト", "入力トークン（最後のリクエスト）", "入力トークン（全リクエスト）", "キャッシュ読み取り", "キャッシュ書き込み", "費用", "消去 / 接頭辞の書き換え", "指標"],
    hcHead: (agent: string, calls: number, hook: string) => `### フックの費用（${agent}：1 行あたり ${calls} 回のツール呼び出し、1 ターンに 1 回；各フックは \`${hook}\` を実行）`,
    hcCols: ["フック", "サンドボックス", "呼び出しあたり ms（中央値）", "呼び出しあたりの増加"],
  },
  ru: {
    ceHead: (agent: string, turns: number, chars: number, cap: number) => `### Редактирование контекста (${agent}: ходов ${turns}, каждый читает файл в ${chars} символов, предел read_file ${cap})`,
    ceCols: ["запуск", "запросы", "входные токены, последний запрос", "входные токены, все запросы", "чтения кэша", "записи кэша", "цена", "очищено / префикс переписан", "показатель"],
    hcHead: (agent: string, calls: number, hook: string) => `### Цена хуков (${agent}: ${calls} вызовов инструментов на строку, по одному за ход; каждый хук выполняет \`${hook}\`)`,
    hcCols: ["хуки", "песочница", "мс на вызов (медиана)", "добавлено на вызов"],
  },
};
const W = (lang: Lang) => wordsFor(W_ALL, lang, HEADS);

/** The context editing section's lines, as the terminal shows them. */
export function renderContextEditing(f: ContextEditingFigures, lang: Lang): string[] {
  const w = W(lang);
  const off = f.runs.find((r) => r.policy === null);
  if (f.agent === null || !off) return [w.ceHead("s20", f.turns, f.file_chars, f.read_cap), "", w.na("s20"), ""];
  const rows = f.runs.map((r) => {
    const x = contextRatios(off, r);
    const figure = r.policy ? `last_over_off = ${x.last_over_off ?? "—"} · total_over_off = ${x.total_over_off ?? "—"} · cost_over_off = ${x.cost_over_off ?? "—"}` : "";
    return [r.policy ? w.on(r.policy.budget, r.policy.keep) : w.off, fmt(r.requests), fmt(r.last), fmt(r.total), fmt(r.cache_read), fmt(r.cache_write), fmt(Math.round(r.cost)), r.policy ? w.cleared(r.cleared, r.rewrites) : "—", figure];
  });
  const out = [w.ceHead(f.agent, f.turns, f.file_chars, f.read_cap), "", ...markdownTable(w.ceCols, rows)];
  out.push(w.prices(f.prices.model, f.prices.cache_write, f.prices.cache_read, f.prices.output), "");
  for (const s of f.stopped) out.push(w.stopped(s), "");
  return out;
}

/** The hook cost section's lines, as the terminal shows them. */
export function renderHookCost(f: HookCostFigures, lang: Lang): string[] {
  const w = W(lang);
  if (f.agent === null) return [w.hcHead("s19", f.calls, f.hook), "", w.na("s19"), ""];
  const rows = f.rows.map((r) => {
    const added = r.hooks === "none" ? null : addedMs(f, r.hooks, r.sandbox);
    return [w.hooks[r.hooks], w.sandbox[r.sandbox], r.ms.toFixed(2), added === null ? "—" : `${added >= 0 ? "+" : ""}${added.toFixed(2)} ms`];
  });
  const s = hookCostSummary(f)!;
  const out = [w.hcHead(f.agent, f.calls, f.hook), "", ...markdownTable(w.hcCols, rows)];
  out.push(w.perHook(s.added_ms_pre_sandbox, s.added_ms_pre_no_sandbox, s.sandbox_over_no_sandbox), "");
  if (f.no_sandbox_why) out.push(w.noSandbox(f.no_sandbox_why), "");
  for (const p of f.problems) out.push(w.problem(p), "");
  return out;
}

// ── the blocks ──

export type Part3Kind = "context_editing" | "hook_cost";

const KEPT = (kind: Part3Kind) => new RegExp(`<!-- ${kind}:figures (\\{.*\\}) -->`);

function block(kind: Part3Kind, date: string, lines: string[], figures: unknown, lang: Lang): string {
  // A comment must not hold "--": the figures' JSON escapes it.
  const json = JSON.stringify(figures).replace(/--/g, "-\\u002d");
  return [`<!-- ${kind}:latest:start -->`, "", `<div class="report-block" data-report="${kind}">`, "", W(lang).date(date, kind), "", ...lines, "</div>", "", `<!-- ${kind}:figures ${json} -->`, "", `<!-- ${kind}:latest:end -->`].join("\n");
}

/** The page's context editing block, in its language, with the figures it was drawn from. */
export const contextEditingBlock = (f: ContextEditingFigures, lang: Lang) => block("context_editing", f.date, renderContextEditing(f, lang), f, lang);
/** The page's hook cost block, in its language, with the figures it was drawn from. */
export const hookCostBlock = (f: HookCostFigures, lang: Lang) => block("hook_cost", f.date, renderHookCost(f, lang), f, lang);

/** The figures a page's block keeps (null: no block yet); figures of another shape are an error naming the field. */
export function contextEditingFiguresOf(page: string): ContextEditingFigures | null {
  const m = KEPT("context_editing").exec(page);
  return m ? ContextEditingFigures.parse(JSON.parse(m[1]!)) : null;
}
export function hookCostFiguresOf(page: string): HookCostFigures | null {
  const m = KEPT("hook_cost").exec(page);
  return m ? HookCostFigures.parse(JSON.parse(m[1]!)) : null;
}
