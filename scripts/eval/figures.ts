/**
 * The eval's figures for the benchmarks page and `npm run bench -- --json`, offline:
 *
 *   the suite      the final agent over every task, once: passed, turns, tokens, cost per task
 *   caching        the final agent with and without its cache breakpoints (s13's `cache: false`):
 *                  the suite's cost at list prices, and their ratio
 *   plan           s14 (the loop with a plan) and s13 (the same loop without): turns per run on
 *                  the tasks both pass, and on the task that asks for a plan
 *
 * Offline the scripted model plays each task's script, so these figures measure the loop: what a
 * plan costs in turns, what the cache saves; not whether a real model needs the plan (`npm run
 * eval -- --agent s13 --agent s14` with a key measures that). `evalBlock` draws the page's block
 * from the figures alone, in each language.
 */
import { markdownTable, wordsFor, type Lang } from "../reliability/report.ts";
import { output } from "../../runtime/print.ts";
import { resolveAgent } from "./agents.ts";
import type { Tokens } from "./meter.ts";
import { measures, passChart } from "./report.ts";
import { runEval, type EvalResult } from "./run.ts";
import { loadSuite } from "./suite.ts";

export interface EvalFigures {
  date: string;
  agent: string;
  tasks: Array<{ task: string; kind: string; passed: number; runs: number; turns: number; tokens: Tokens; cost_usd: number | null }>;
  pass_rate: number;
  turns: number;
  tokens: Tokens;
  cost_usd: number | null;
  caching: { with_usd: number | null; without_usd: number | null; cached_over_uncached: number | null };
  plan: { with_agent: string; without_agent: string; compared: string[]; with_turns: number; without_turns: number; task: string; task_with_turns: number | null; task_without_turns: number | null };
}

/** The JSON the bench's summary carries under `eval`. */
export function evalSummary(f: EvalFigures) {
  return {
    tasks: f.tasks.length,
    pass_rate: f.pass_rate,
    turns: round(f.turns),
    tokens: f.tokens,
    cost_usd: f.cost_usd === null ? null : round(f.cost_usd, 4),
    cached_over_uncached_cost: f.caching.cached_over_uncached,
    plan_turns: round(f.plan.with_turns),
    no_plan_turns: round(f.plan.without_turns),
  };
}

const round = (x: number, d = 2) => Math.round(x * 10 ** d) / 10 ** d;
const mean = (xs: number[]) => (xs.length ? xs.reduce((a, b) => a + b, 0) / xs.length : 0);

/** Runs the four offline evals (about a minute on 2 cores) and keeps what the page shows. */
export async function measureEvalFigures(progress: (s: string) => void = () => {}): Promise<EvalFigures> {
  // The tasks that need a Part IV feature have their own comparison (--compare-features): these figures are Part II's.
  const tasks = loadSuite().tasks.filter((t) => !t.feature);
  const restore = output.write;
  output.write = () => {};
  const run = async (name: string): Promise<EvalResult> => {
    progress(`eval: ${name} over ${tasks.length} tasks`);
    return runEval({ tasks, agent: await resolveAgent(name), runs: 1, model: { offline: true }, outDir: null });
  };
  try {
    const final = await run("final");
    const nocache = await run("final:nocache");
    const withPlan = await run("s14");
    const withoutPlan = await run("s13");
    const bothPass = withPlan.tasks.filter((t) => t.passed === t.runs && withoutPlan.tasks.find((u) => u.task === t.task)?.passed === t.runs).map((t) => t.task);
    const turnsOn = (r: EvalResult, ids: string[]) => mean(r.tasks.filter((t) => ids.includes(t.task)).map((t) => t.turns));
    const planTask = tasks.find((t) => t.kind === "plan")?.id ?? "";
    const on = (r: EvalResult, id: string) => r.tasks.find((t) => t.task === id)?.turns ?? null;
    const c = final.summary.cost_usd;
    const u = nocache.summary.cost_usd;
    return {
      date: new Date().toISOString().slice(0, 10),
      agent: "final (s17)",
      tasks: final.tasks.map((t) => ({ task: t.task, kind: t.kind, passed: t.passed, runs: t.runs, turns: t.turns, tokens: t.tokens, cost_usd: t.cost_usd })),
      pass_rate: final.summary.pass_rate,
      turns: final.summary.turns,
      tokens: final.summary.tokens,
      cost_usd: c,
      caching: { with_usd: c, without_usd: u, cached_over_uncached: c !== null && u ? round(c / u) : null },
      plan: {
        with_agent: "s14",
        without_agent: "s13",
        compared: bothPass,
        with_turns: turnsOn(withPlan, bothPass),
        without_turns: turnsOn(withoutPlan, bothPass),
        task: planTask,
        task_with_turns: on(withPlan, planTask),
        task_without_turns: on(withoutPlan, planTask),
      },
    };
  } finally {
    output.write = restore;
  }
}

const usd = (x: number | null) => (x === null ? "unknown" : `$${x.toFixed(4)}`);
const n1 = (x: number | null) => (x === null ? "—" : Number.isInteger(x) ? String(x) : x.toFixed(1));

const W_ALL = {
  en: {
    suite: "### The final agent on the task suite (offline)",
    chart: "Pass rate per task, final agent, offline",
    date: (d: string) => `_${d}, \`npm run bench\` (the same as \`npm run eval\`):_`,
    head: ["task", "kind", "passed", "turns", "tokens in/out/cache read/cache write", "cost"],
    all: "all",
    effects: "### Part II's features, measured on the suite (offline)",
    cacheHead: ["run", "cost of the suite (list prices)", "figure"],
    cached: "s17 with its cache breakpoints",
    uncached: "s17 with cache: false",
    planHead: ["run", "turns per run (tasks both pass)", "turns on"],
    withPlan: "s14 (with the plan)",
    withoutPlan: "s13 (without it)",
    planNote: (n: number) =>
      `Turns are compared on the ${n} tasks both loops pass (s13 and s14 have no subagents or MCP tools). Offline, the plan costs turns (its \`todo\` writes) and saves none: the scripted model follows its script with or without a plan. Whether a plan saves a real model's turns is what \`npm run eval -- --agent s13 --agent s14\` with a key measures.`,
  },
  zh: {
    suite: "### 最终 agent 在任务集上的结果（离线）",
    chart: "每个任务的通过率（最终 agent，离线）",
    date: (d: string) => `_${d}，\`npm run bench\`（与 \`npm run eval\` 相同）：_`,
    head: ["任务", "类型", "通过", "轮数", "token 输入/输出/缓存读/缓存写", "费用"],
    all: "全部",
    effects: "### 第二部分的功能在任务集上的效果（离线）",
    cacheHead: ["运行", "整个任务集的费用（标价）", "指标"],
    cached: "s17，带自己的缓存断点",
    uncached: "s17，cache: false",
    planHead: ["运行", "每次运行的轮数（两者都通过的任务）", "该任务的轮数"],
    withPlan: "s14（有计划）",
    withoutPlan: "s13（没有计划）",
    planNote: (n: number) =>
      `轮数只在两个循环都通过的 ${n} 个任务上比较（s13 和 s14 没有子 agent 和 MCP 工具）。离线时，计划要花轮数（写 \`todo\`），却省不下轮数：脚本模型有没有计划都按脚本走。计划能否为真实模型省下轮数，要设置密钥后用 \`npm run eval -- --agent s13 --agent s14\` 来测。`,
  },
};

export const EVAL_START = "<!-- eval:latest:start -->";
export const EVAL_END = "<!-- eval:latest:end -->";

/** ja and ru: the headings and column names (the rest in English for now). */
const HEADS: Partial<Record<Lang, Partial<(typeof W_ALL)["en"]>>> = {
  ja: {
    suite: "### タスクセットでの最終エージェント（オフライン）",
    head: ["タスク", "種類", "合格", "ターン", "トークン 入力/出力/キャッシュ読み/キャッシュ書き", "費用"],
    effects: "### パート II の機能をタスクセットで測る（オフライン）",
    cacheHead: ["実行", "タスクセットの費用（定価）", "指標"],
    planHead: ["実行", "実行あたりのターン（両方合格したタスク）", "そのタスクのターン"],
  },
  ru: {
    suite: "### Итоговый агент на наборе задач (офлайн)",
    head: ["задача", "вид", "пройдено", "ходы", "токены вход/выход/чтение кэша/запись кэша", "цена"],
    effects: "### Возможности части II, измеренные на наборе задач (офлайн)",
    cacheHead: ["запуск", "цена набора (по прайсу)", "показатель"],
    planHead: ["запуск", "ходов на запуск (задачи, пройденные обоими)", "ходы задачи"],
  },
};
const W = (lang: Lang) => wordsFor(W_ALL, lang, HEADS);

/** The page's block, drawn from the figures alone. */
export function evalBlock(f: EvalFigures, lang: Lang): string {
  const w = W(lang);
  const rows = f.tasks.map((t) => [t.task, t.kind, `${t.passed}/${t.runs}`, n1(t.turns), `${t.tokens.input}/${t.tokens.output}/${t.tokens.cacheRead}/${t.tokens.cacheWrite}`, usd(t.cost_usd)]);
  const passed = f.tasks.reduce((a, t) => a + t.passed, 0);
  const runs = f.tasks.reduce((a, t) => a + t.runs, 0);
  rows.push([w.all, "", `${passed}/${runs}`, n1(f.turns), `${f.tokens.input}/${f.tokens.output}/${f.tokens.cacheRead}/${f.tokens.cacheWrite}`, usd(f.cost_usd)]);
  const lines = [
    EVAL_START,
    "",
    '<div class="report-block" data-report="eval">',
    "",
    w.suite,
    "",
    w.date(f.date),
    "",
    measures({ offline: true, agent: f.agent, model: "scripted-model (offline)" }, lang),
    "",
    ...markdownTable(w.head, rows),
    passChart([{ agent: f.agent, tasks: f.tasks.map((t) => ({ task: t.task, pass_rate: t.runs ? t.passed / t.runs : 0 })) }], w.chart),
    "",
    w.effects,
    "",
    ...markdownTable(w.cacheHead, [
      [w.cached, usd(f.caching.with_usd), `cached_over_uncached_cost = ${f.caching.cached_over_uncached ?? "—"}`],
      [w.uncached, usd(f.caching.without_usd), ""],
    ]),
    ...markdownTable(w.planHead.map((h, i) => (i === 2 ? `${h} ${f.plan.task}` : h)), [
      [w.withPlan, n1(f.plan.with_turns), n1(f.plan.task_with_turns)],
      [w.withoutPlan, n1(f.plan.without_turns), n1(f.plan.task_without_turns)],
    ]),
    w.planNote(f.plan.compared.length),
    "",
    "</div>",
    "",
    // The figures the block was drawn from, so it can be drawn again (a comment holds no "--").
    `<!-- eval:figures ${JSON.stringify(f).replace(/--/g, "-\\u002d")} -->`,
    "",
    EVAL_END,
  ];
  return lines.join("\n");
}

/** The figures a page's eval block was drawn from, or null. */
export function evalFiguresOf(page: string): EvalFigures | null {
  const m = /<!-- eval:figures (.*) -->/.exec(page);
  return m ? (JSON.parse(m[1]!) as EvalFigures) : null;
}
