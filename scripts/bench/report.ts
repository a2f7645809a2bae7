/**
 * The benchmark report as markdown, in English or Chinese, from the run's figures alone: a pure
 * function, so a page's block can be drawn again from the figures it keeps (`BenchFigures`, in
 * a comment inside the block) and the words tested without measuring anything.
 *
 * main.ts measures, then calls `renderBench(figures, "en")` for the terminal and writes each
 * page's block in its language (`benchBlock`). Words follow the glossary
 * (docs/guide/glossary.md); figure names (parallel_over_one_tool, …), lesson ids, commands and
 * tool names stay as they are.
 */
import { markdownTable, wordsFor, type Lang } from "../reliability/report.ts";
import type { evalSummary } from "../eval/figures.ts";
import type { contextEditingSummary, hookCostSummary } from "./part3-report.ts";

/** The JSON line of `npm run bench -- --json` (docs/guide/benchmarks.md). */
export interface BenchSummary {
  parallel_tools: { parallel_over_one_tool: number; sequential_over_parallel: number | null } | null;
  streaming: { first_text_fraction: number } | null;
  loop_overhead: { ms_per_turn: number; ms_per_turn_100: number; growth_100_over_10: number };
  learner_cycle: Record<string, number | boolean | null>;
  context: Record<string, number>;
  cost?: { cached_over_uncached: number; cached_units: number; uncached_units: number } | null;
  skills?: { prompt_tokens_1: number; prompt_tokens_50: number; growth_per_skill: number } | null;
  /** The final agent on the eval suite, offline (scripts/eval/figures.ts). */
  eval?: ReturnType<typeof evalSummary> | null;
  /** s20's context editing over a long session (scripts/bench/part3.ts). */
  context_editing?: ReturnType<typeof contextEditingSummary>;
  /** s19's hooks: ms per tool call, sandbox on and off (scripts/bench/part3.ts). */
  hook_cost?: ReturnType<typeof hookCostSummary>;
}

interface SessionRow {
  turns: number;
  total: number;
  last: number;
}

/** Everything the tables show: the summary and the few raw figures behind its ratios. */
export interface BenchFigures {
  date: string;
  lessons: string[];
  final: string;
  cores: number;
  load: number;
  parallel: { agent: string; k: number; tool_ms: number; many_ms: number; one_ms: number; seq_ms: number | null } | null;
  /** first/total ms of the streamed answer; `no_text` when none reached the screen first. */
  streaming: { agent: string; first_ms: number; total_ms: number } | { agent: string; no_text: true } | null;
  context: { file_chars: number; read_cap: number; uncapped: SessionRow; capped: SessionRow; cached: SessionRow; bench_marked: boolean; stopped: string[] };
  summary: BenchSummary;
}

const NA_ALL: { en: string } & Partial<Record<Lang, string>> = { en: "n/a (lesson not present)", zh: "不适用（这一课尚未加入）", ja: "該当なし（このレッスンはまだない）", ru: "н/д (урока ещё нет)" };
const na = (lang: Lang) => NA_ALL[lang] ?? NA_ALL.en;

const W_ALL = {
  en: {
    date: (d: string) => `_${d}, \`npm run bench\`:_`,
    lead: (f: BenchFigures) => `Lessons present: ${f.lessons.join(", ")}. Final agent: ${f.final}. Machine: ${f.cores} cores, load average ${f.load.toFixed(1)} at the end of the run.`,
    parallel: "### Parallel tools",
    parallelCols: ["run", "wall time", "figure"],
    calls: (a: string, k: number, ms: number) => `${a}, ${k} calls of ${ms} ms`,
    oneCall: (a: string) => `${a}, 1 call`,
    sequential: (k: number) => `s02 (sequential), ${k} calls`,
    goalLe: (g: number) => ` (goal ≤ ${g})`,
    goalGe: (g: number, ideal: number) => ` (goal ≥ ${g}, ideal ${ideal})`,
    streaming: "### Streaming",
    firstText: (x: number, first: number, total: number) => `${x} (first text at ${first} ms of ${total} ms; goal ≤ 0.25)`,
    noText: (a: string) => `no text reached the screen before the end (${a}'s text callback not found)`,
    overhead: "### Loop overhead (model time subtracted)",
    overheadCols: ["session", "ms per turn", "figure"],
    turns: (n: number) => `${n} turns`,
    vs10: (x: number) => `×${x} vs 10 turns`,
    context: (turns: number, chars: number) => `### Context growth (${turns} turns, each reads a file of ${chars} characters)`,
    contextCols: ["run", "turns", "input tokens, all turns", "input tokens, last turn", "cache read share"],
    uncapped: "no output cap",
    capped: (cap: number) => `read_file cap (${cap} chars)`,
    cached: (bench: boolean) => `cap + cache_control on the last message${bench ? " (added by the bench)" : " (set by the agent)"}`,
    stoppedNote: (s: string) => `note: a session ${s}`,
    cost: "### Cost of caching (the same 20-turn session, list prices in units of the input price)",
    costCols: ["run", "cost", "figure"],
    ownBreakpoints: (a: string) => `${a} with its own cache breakpoints`,
    noCache: (a: string) => `${a} with cache: false`,
    costNa: " (s13: the final agent marks no cache breakpoint)",
    skills: "### Skills (the system prompt with 1 and with 50 skills of about 1 500 tokens each)",
    skillsCols: ["skills", "system-prompt tokens", "figure"],
    perSkill: (x: number) => `growth_per_skill = ${x} tokens (goal ≤ 40: a name and a description, never a body)`,
    cycle: "### The learner's cycle",
    skipped: "skipped (--skip-cycle)",
    notJudged: " (reported, not judged)",
    check: (s: number, changed: number | null) => `npm run check s01 in a fresh process: ${s} s (target ≤ 3 s)${changed !== null ? `; right after an edit (no remembered type check): ${changed} s` : ""}`,
    watch: (w: number, cold: number, warm: number, native: number | null) =>
      `watch's re-check of s01 after a save (warm test runner and type checker): ${w} s (target ≤ 1 s) · type check of lessons/s01: ${cold} s cold, ${warm} s warm${native !== null ? `, ${native} s through the native compiler` : ""}`,
    test: (alone: number, ok: string, beside: number, ok2: string, ratio: number, cores: number, load: number) =>
      `npm test: ${alone} s alone (${ok}); two side by side: ${beside} s (${ok2}), ${ratio}× · ${cores} cores, load ${load} at the start`,
    testOnly: (s: number) => `npm test: ${s} s`,
    passed: "passed",
    failed: "FAILED",
  },
  zh: {
    date: (d: string) => `_${d}，\`npm run bench\`：_`,
    lead: (f: BenchFigures) => `现有的课：${f.lessons.join(", ")}。最终 agent：${f.final}。机器：${f.cores} 核，运行结束时负载均值 ${f.load.toFixed(1)}。`,
    parallel: "### 并行工具",
    parallelCols: ["运行", "耗时", "指标"],
    calls: (a: string, k: number, ms: number) => `${a}，${k} 个各 ${ms} ms 的调用`,
    oneCall: (a: string) => `${a}，1 个调用`,
    sequential: (k: number) => `s02（逐个执行），${k} 个调用`,
    goalLe: (g: number) => `（目标 ≤ ${g}）`,
    goalGe: (g: number, ideal: number) => `（目标 ≥ ${g}，理想值 ${ideal}）`,
    streaming: "### 流式输出",
    firstText: (x: number, first: number, total: number) => `${x}（第一段文字在 ${first} ms 出现，共 ${total} ms；目标 ≤ 0.25）`,
    noText: (a: string) => `结束之前没有文字到达屏幕（没有找到 ${a} 的文字回调）`,
    overhead: "### 循环开销（已减去模型时间）",
    overheadCols: ["会话", "每轮毫秒", "指标"],
    turns: (n: number) => `${n} 轮`,
    vs10: (x: number) => `是 10 轮时的 ×${x}`,
    context: (turns: number, chars: number) => `### 上下文增长（${turns} 轮，每轮读取一个 ${chars} 个字符的文件）`,
    contextCols: ["运行", "轮数", "输入 token（全部轮）", "输入 token（最后一轮）", "缓存读取占比"],
    uncapped: "工具输出不设上限",
    capped: (cap: number) => `read_file 上限（${cap} 个字符）`,
    cached: (bench: boolean) => `上限 + 最后一条消息上的 cache_control${bench ? "（由基准测试加上）" : "（由 agent 自己设置）"}`,
    stoppedNote: (s: string) => `注意：有一个会话 ${s}`,
    cost: "### 缓存的成本（同一个 20 轮会话，按公开价格、以输入价格为单位）",
    costCols: ["运行", "成本", "指标"],
    ownBreakpoints: (a: string) => `${a}，带它自己的缓存断点`,
    noCache: (a: string) => `${a}，cache: false`,
    costNa: "（s13：最终 agent 没有设置缓存断点）",
    skills: "### 技能（系统提示中有 1 个和 50 个技能，每个约 1500 token）",
    skillsCols: ["技能数", "系统提示 token", "指标"],
    perSkill: (x: number) => `growth_per_skill = ${x} token（目标 ≤ 40：只有名字和描述，从不包括正文）`,
    cycle: "### 学习者的周期",
    skipped: "已跳过（--skip-cycle）",
    notJudged: "（只报告，不评判）",
    check: (s: number, changed: number | null) => `新进程中的 npm run check s01：${s} 秒（目标 ≤ 3 秒）${changed !== null ? `；刚改完代码（没有记住的类型检查结论）：${changed} 秒` : ""}`,
    watch: (w: number, cold: number, warm: number, native: number | null) =>
      `保存后 watch 对 s01 的重新检查（预热的测试运行器和类型检查器）：${w} 秒（目标 ≤ 1 秒）· lessons/s01 的类型检查：冷 ${cold} 秒，热 ${warm} 秒${native !== null ? `，经原生编译器 ${native} 秒` : ""}`,
    test: (alone: number, ok: string, beside: number, ok2: string, ratio: number, cores: number, load: number) =>
      `npm test：单独 ${alone} 秒（${ok}）；两个并排：${beside} 秒（${ok2}），${ratio}× · ${cores} 核，开始时负载 ${load}`,
    testOnly: (s: number) => `npm test：${s} 秒`,
    passed: "通过",
    failed: "失败",
  },
};

const round = (x: number, d = 2) => Math.round(x * 10 ** d) / 10 ** d;
const num = (v: unknown) => (typeof v === "number" ? v : null);

/** ja and ru: the headings and column names (the rest in English for now). */
const HEADS: Partial<Record<Lang, Partial<(typeof W_ALL)["en"]>>> = {
  ja: {
    date: (d: string) => `_${d}、\`npm run bench\`：_`,
    parallel: "### 並列ツール",
    parallelCols: ["実行", "経過時間", "指標"],
    streaming: "### ストリーミング",
    overhead: "### ループのオーバーヘッド（モデルの時間を除く）",
    overheadCols: ["セッション", "ターンあたり ms", "指標"],
    context: (turns: number, chars: number) => `### コンテキストの増え方（${turns} ターン、毎ターン ${chars} 文字のファイルを読む）`,
    contextCols: ["実行", "ターン", "入力トークン（全ターン）", "入力トークン（最後のターン）", "キャッシュ読み取りの割合"],
    cost: "### キャッシュの費用（同じ 20 ターンのセッション、入力単価を単位とする定価）",
    costCols: ["実行", "費用", "指標"],
    skills: "### スキル（約 1 500 トークンのスキルが 1 個と 50 個のときのシステムプロンプト）",
    skillsCols: ["スキル", "システムプロンプトのトークン", "指標"],
    cycle: "### 学習者のサイクル",
    passed: "合格",
    failed: "失敗",
  },
  ru: {
    parallel: "### Параллельные инструменты",
    parallelCols: ["запуск", "время", "показатель"],
    streaming: "### Потоковый вывод",
    overhead: "### Накладные расходы цикла (без времени модели)",
    overheadCols: ["сессия", "мс на ход", "показатель"],
    context: (turns: number, chars: number) => `### Рост контекста (ходов: ${turns}, каждый читает файл в ${chars} символов)`,
    contextCols: ["запуск", "ходы", "входные токены, все ходы", "входные токены, последний ход", "доля чтения из кэша"],
    cost: "### Цена кэширования (та же сессия из 20 ходов, цены в единицах цены ввода)",
    costCols: ["запуск", "цена", "показатель"],
    skills: "### Навыки (системная подсказка с 1 и с 50 навыками примерно по 1 500 токенов)",
    skillsCols: ["навыки", "токены системной подсказки", "показатель"],
    cycle: "### Цикл ученика",
    passed: "пройдено",
    failed: "ПРОВАЛ",
  },
};
const W = (lang: Lang) => wordsFor(W_ALL, lang, HEADS);

/** The report's lines (without the date line and the JSON), as the terminal shows them. */
export function renderBench(f: BenchFigures, lang: Lang): string[] {
  const w = W(lang);
  const s = f.summary;
  const out: string[] = [w.lead(f), ""];
  out.push(w.parallel, "");
  if (f.parallel && s.parallel_tools) {
    const p = f.parallel;
    out.push(
      ...markdownTable(w.parallelCols, [
        [w.calls(p.agent, p.k, p.tool_ms), `${Math.round(p.many_ms)} ms`, ""],
        [w.oneCall(p.agent), `${Math.round(p.one_ms)} ms`, `parallel_over_one_tool = ${s.parallel_tools.parallel_over_one_tool}${w.goalLe(1.3)}`],
        [w.sequential(p.k), p.seq_ms === null ? na(lang) : `${Math.round(p.seq_ms)} ms`, `sequential_over_parallel = ${s.parallel_tools.sequential_over_parallel ?? na(lang)}${w.goalGe(2, p.k)}`],
      ]),
    );
  } else out.push(`${na(lang)} (s03)`, "");
  out.push(w.streaming, "");
  const st = f.streaming;
  const streamNote = !st ? na(lang) : "no_text" in st ? w.noText(st.agent) : w.firstText(s.streaming?.first_text_fraction ?? round(st.first_ms / st.total_ms, 3), Math.round(st.first_ms), Math.round(st.total_ms));
  out.push(`first_text_fraction: ${streamNote}`, "");
  out.push(w.overhead, "");
  const o = s.loop_overhead;
  out.push(
    ...markdownTable(w.overheadCols, [
      [w.turns(10), String(o.ms_per_turn), `ms_per_turn${w.goalLe(2)}`],
      [w.turns(100), String(o.ms_per_turn_100), w.vs10(o.growth_100_over_10)],
    ]),
  );
  const c = f.context;
  out.push(w.context(20, c.file_chars), "");
  out.push(
    ...markdownTable(w.contextCols, [
      [w.uncapped, String(c.uncapped.turns), String(c.uncapped.total), String(c.uncapped.last), "—"],
      [w.capped(c.read_cap), String(c.capped.turns), String(c.capped.total), String(c.capped.last), "—"],
      [w.cached(c.bench_marked), String(c.cached.turns), String(c.cached.total), String(c.cached.last), String(s.context.cache_read_share ?? "—")],
    ]),
  );
  for (const x of c.stopped) out.push(w.stoppedNote(x));
  if (s.cost !== undefined) {
    out.push(w.cost, "");
    if (s.cost)
      out.push(
        ...markdownTable(w.costCols, [
          [w.ownBreakpoints(f.final), String(s.cost.cached_units), `cached_over_uncached = ${s.cost.cached_over_uncached}${w.goalLe(0.35)}`],
          [w.noCache(f.final), String(s.cost.uncached_units), ""],
        ]),
      );
    else out.push(`${na(lang)}${w.costNa}`, "");
  }
  if (s.skills !== undefined) {
    out.push(w.skills, "");
    if (s.skills)
      out.push(
        ...markdownTable(w.skillsCols, [
          ["1", String(s.skills.prompt_tokens_1), ""],
          ["50", String(s.skills.prompt_tokens_50), w.perSkill(s.skills.growth_per_skill)],
        ]),
      );
    else out.push(`${na(lang)} (s16)`, "");
  }
  out.push(w.cycle, "");
  const lc = s.learner_cycle;
  const check = num(lc.check_s);
  const watch = num(lc.watch_recheck_s);
  const alone = num(lc.test_s);
  const beside = num(lc.test_beside_s);
  if (check === null && alone === null) out.push(w.skipped);
  else {
    const parts = [check !== null ? w.check(check, num(lc.check_types_changed_s)) : null, watch === null && beside === null && alone !== null ? w.testOnly(alone) : null].filter(Boolean);
    out.push(`${parts.join(lang === "zh" ? "；" : "; ")}${w.notJudged}`);
    if (watch !== null) out.push(`${w.watch(watch, num(lc.typecheck_s) ?? 0, num(lc.typecheck_warm_s) ?? 0, num(lc.typecheck_native_s))}${w.notJudged}`);
  }
  out.push("");
  if (alone !== null && beside !== null) {
    const ok = (b: unknown) => (b ? w.passed : w.failed);
    out.push(`${w.test(alone, ok(lc.test_ok), beside, ok(lc.test_beside_ok), round(beside / alone, 2), f.cores, num(lc.load_1m) ?? 0)}${w.notJudged}`, "");
  }
  return out;
}

const START = "<!-- bench:latest:start -->";
const END = "<!-- bench:latest:end -->";
const DATA = /<!-- bench:figures (\{[\s\S]*?\}) -->/;

/** The whole block between the page's markers, in the page's language, with the figures it was drawn from. */
export function benchBlock(f: BenchFigures, lang: Lang): string {
  const json = JSON.stringify(f).replace(/--/g, "-\\u002d");
  return `${START}\n\n<div class="report-block" data-report="bench">\n\n${W(lang).date(f.date)}\n\n${renderBench(f, lang).join("\n")}\n\`\`\`json\n${JSON.stringify(f.summary)}\n\`\`\`\n\n</div>\n\n<!-- bench:figures ${json} -->\n\n${END}`;
}

/** The figures a page's block was drawn from, or null (a block written before they were kept). */
export function benchFiguresOf(page: string): BenchFigures | null {
  const m = DATA.exec(page);
  return m ? (JSON.parse(m[1]!) as BenchFigures) : null;
}
