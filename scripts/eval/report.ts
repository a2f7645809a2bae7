/**
 * An eval's result in words and pictures, from the result alone (pure functions, tested without
 * running anything): the terminal table, the JSON line of `--json`, a Markdown and an HTML report
 * with a bar chart, and the side-by-side comparison of two results with the differences that matter.
 */
import { markdownTable, type Lang } from "../reliability/report.ts";
import type { EvalResult } from "./run.ts";
import type { Summary, TaskSummary } from "./stats.ts";
import type { Tokens } from "./meter.ts";

const pct = (x: number) => `${Math.round(x * 100)}%`;
const usd = (x: number | null) => (x === null ? "unknown" : x < 1 ? `$${x.toFixed(4)}` : `$${x.toFixed(2)}`);
const secs = (ms: number) => `${(ms / 1000).toFixed(1)} s`;
const num = (n: number) => (Number.isInteger(n) ? String(n) : n.toFixed(1));
const tok = (t: Tokens) => `${t.input}/${t.output}/${t.cacheRead}/${t.cacheWrite}`;
const stopsText = (s: Record<string, number>) =>
  Object.entries(s)
    .sort((a, b) => b[1] - a[1])
    .map(([k, v]) => `${k} ${v}`)
    .join(", ");

/** What the figure measures, said in the report itself. */
export function measures(r: Pick<EvalResult, "offline" | "agent" | "model">, lang: Lang = "en"): string {
  if (r.model === "none")
    return lang !== "zh"
      ? `${r.agent} calls no model: ${r.agent === "oracle" ? "it applies each task's reference solution, so every task must pass (the suite is solvable and its checks accept a right answer)" : "it changes nothing and answers nothing, so every task that asks for a change must fail (the checks reject doing nothing)"}.`
      : `${r.agent} 不调用模型：${r.agent === "oracle" ? "它套用每个任务的参考解，所以每个任务都必须通过（任务可解，检查接受正确答案）" : "它什么也不改、什么也不答，所以每个要求改动的任务都必须失败（检查不接受什么都不做）"}。`;
  if (r.offline)
    return lang !== "zh"
      ? "Offline: the scripted model plays each task's script, so this pass rate measures the LOOP (its tools, edits, pairing, plan, subagents, MCP servers and boundary), not a model. With a key, the same command measures the real model and agent."
      : "离线：脚本模型按每个任务的脚本作答，所以这个通过率衡量的是循环（工具、编辑、配对、计划、子 agent、MCP 服务器和边界），而不是模型。设置密钥后，同一条命令衡量的是真实的模型和 agent。";
  return lang !== "zh" ? `Model ${r.model}: this pass rate measures the model and the agent together.` : `模型 ${r.model}：这个通过率衡量的是模型和 agent 的整体。`;
}

const HEAD: { en: string[] } & Partial<Record<Lang, string[]>> = {
  en: ["task", "kind", "passed", "pass@k", "pass^k", "turns", "tokens in/out/cache read/cache write", "cost", "time", "stops"],
  zh: ["任务", "类型", "通过", "pass@k", "pass^k", "轮数", "token 输入/输出/缓存读/缓存写", "费用", "时间", "停止原因"],
};

function row(t: TaskSummary | (Summary & { task: string; kind: string; passed?: number }), runs: number): Array<string | number> {
  const passed = `${"passed" in t && t.passed !== undefined ? t.passed : Math.round(t.pass_rate * runs)}/${runs}`;
  return [t.task, t.kind, passed, pct(t.pass_at_k), pct(t.pass_hat_k), num(t.turns), tok(t.tokens), usd(t.cost_usd), secs(t.ms), stopsText(t.stops)];
}

/** The table of a result: one row per task, then the totals. */
export function resultTable(r: EvalResult, lang: Lang = "en"): string[] {
  const rows = r.tasks.map((t) => row(t, t.runs));
  rows.push(row({ ...r.summary, task: lang !== "zh" ? "all" : "全部", kind: "", passed: undefined }, r.summary.runs));
  return markdownTable(HEAD[lang] ?? HEAD.en, rows);
}

/** The few lines above the table: who ran, how, and the headline figures. */
export function headline(r: EvalResult, lang: Lang = "en"): string[] {
  const s = r.summary;
  if (r.stopped_early) {
    const early = lang !== "zh" ? "stopped early (Ctrl-C): these figures cover the runs that finished" : "提前停止（Ctrl-C）：这些数值只包括已完成的运行";
    return [...headline({ ...r, stopped_early: false }, lang), early];
  }
  if (lang === "zh")
    return [
      `agent ${r.agent} · 模型 ${r.model} · 沙箱 ${r.sandbox} · ${s.tasks} 个任务 × ${r.k} 次 = ${s.runs} 次运行`,
      `通过率 ${pct(s.pass_rate)} · pass@${r.k} ${pct(s.pass_at_k)} · pass^${r.k} ${pct(s.pass_hat_k)} · 平均 ${num(s.turns)} 轮 · 费用 ${usd(s.cost_usd)}（标价） · 用时 ${secs(s.ms)}`,
    ];
  return [
    `agent ${r.agent} · model ${r.model} · sandbox ${r.sandbox} · ${s.tasks} task${s.tasks === 1 ? "" : "s"} × ${r.k} run${r.k === 1 ? "" : "s"} = ${s.runs} runs`,
    `pass rate ${pct(s.pass_rate)} · pass@${r.k} ${pct(s.pass_at_k)} · pass^${r.k} ${pct(s.pass_hat_k)} · ${num(s.turns)} turns per run · cost ${usd(s.cost_usd)} at list prices · ${secs(s.ms)} of runs`,
  ];
}

/** The runs that failed, each with the first criterion that did not hold (or the error). */
export function failures(r: EvalResult): string[] {
  return r.runs
    .filter((x) => !x.pass)
    .map((x) => {
      // An agent that threw (a TODO left, an API error) says so first: its checks only show what it left undone.
      const why = (x.stop === "error" || x.stop === "timeout" ? x.error : undefined) ?? x.checks.find((c) => !c.ok)?.detail ?? x.error ?? "failed";
      const notes = x.notes?.length ? ` [${x.notes.join("; ")}]` : "";
      return `${x.task} run ${x.run}: ${why}${x.stop !== "done" ? ` (stopped: ${x.stop})` : ""}${notes}${x.dir ? ` — ${x.dir}` : ""}`;
    });
}

/** The one JSON line of `--json`. */
export function jsonLine(r: EvalResult, file?: string) {
  const s = r.summary;
  return {
    agent: r.agent,
    model: r.model,
    offline: r.offline,
    sandbox: r.sandbox,
    k: r.k,
    tasks: s.tasks,
    runs: s.runs,
    pass_rate: s.pass_rate,
    pass_at_k: s.pass_at_k,
    pass_hat_k: s.pass_hat_k,
    turns: s.turns,
    tokens: s.tokens,
    cost_usd: s.cost_usd,
    ms: s.ms,
    stops: s.stops,
    per_task: r.tasks.map((t) => ({ task: t.task, kind: t.kind, changes: t.changes, runs: t.runs, passed: t.passed, pass_at_k: t.pass_at_k, pass_hat_k: t.pass_hat_k, turns: t.turns, tokens: t.tokens, cost_usd: t.cost_usd, ms: t.ms, stops: t.stops })),
    ...(file ? { result: file } : {}),
  };
}

// ── The chart ──

const esc = (s: string) => s.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;").replace(/"/g, "&quot;");

/**
 * A horizontal bar chart as SVG: one group per task, one bar per result (pass rate, 0 to 100%).
 * Plain SVG, so it shows in the HTML report, on the site and in any Markdown viewer that allows it.
 */
export function passChart(results: Array<{ agent: string; tasks: Array<{ task: string; pass_rate: number }> }>, title: string): string {
  const tasks = [...new Set(results.flatMap((r) => r.tasks.map((t) => t.task)))];
  const colors = ["#3c8772", "#c2703d"];
  const barH = 12;
  const gap = 8;
  const left = 150;
  const width = 520;
  const groupH = results.length * barH + gap;
  const top = 40;
  const height = top + tasks.length * groupH + 10;
  const parts = [
    `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 ${left + width + 60} ${height}" width="100%" role="img" aria-label="${esc(title)}" style="max-width:${left + width + 60}px;font-family:sans-serif;font-size:11px">`,
    `<text x="0" y="14" font-weight="bold">${esc(title)}</text>`,
    ...results.map((r, i) => `<rect x="${left + i * 160}" y="22" width="10" height="10" fill="${colors[i % 2]}"/><text x="${left + i * 160 + 14}" y="31">${esc(r.agent)}</text>`),
  ];
  tasks.forEach((task, ti) => {
    const y0 = top + ti * groupH;
    parts.push(`<text x="${left - 6}" y="${y0 + (results.length * barH) / 2 + 4}" text-anchor="end">${esc(task)}</text>`);
    results.forEach((r, ri) => {
      const t = r.tasks.find((x) => x.task === task);
      const rate = t?.pass_rate ?? 0;
      const y = y0 + ri * barH;
      parts.push(`<rect x="${left}" y="${y}" width="${width}" height="${barH - 2}" fill="#eee"/>`);
      parts.push(`<rect x="${left}" y="${y}" width="${Math.round(rate * width)}" height="${barH - 2}" fill="${colors[ri % 2]}"><title>${esc(`${r.agent} · ${task}: ${pct(rate)}`)}</title></rect>`);
      parts.push(`<text x="${left + width + 6}" y="${y + barH - 3}">${t ? pct(rate) : "—"}</text>`);
    });
  });
  parts.push("</svg>");
  return parts.join("");
}

/** The Markdown report of one result (or two, compared). */
export function markdownReport(results: EvalResult[], lang: Lang = "en"): string {
  const out: string[] = [lang !== "zh" ? "# Eval report" : "# 评测报告", ""];
  for (const r of results) {
    out.push(`## ${r.agent}`, "", ...headline(r, lang).map((l) => `${l}  `), "", `_${measures(r, lang)}_`, "", ...resultTable(r, lang));
    const failed = failures(r);
    if (failed.length) out.push(lang !== "zh" ? "Failed runs:" : "失败的运行：", "", ...failed.map((f) => `- ${f}`), "");
  }
  if (results.length === 2) out.push(lang !== "zh" ? "## Differences" : "## 差异", "", ...compareLines(results[0]!, results[1]!).map((l) => `- ${l}`), "");
  out.push(passChart(results, lang !== "zh" ? "Pass rate per task" : "每个任务的通过率"), "");
  return out.join("\n");
}

/** The HTML report: the same, standalone, with the chart. */
export function htmlReport(results: EvalResult[]): string {
  const tables = results
    .map((r) => {
      const head = HEAD.en.map((h) => `<th>${esc(h)}</th>`).join("");
      const rows = [...r.tasks.map((t) => row(t, t.runs)), row({ ...r.summary, task: "all", kind: "", passed: undefined }, r.summary.runs)]
        .map((cells) => `<tr>${cells.map((c) => `<td>${esc(String(c))}</td>`).join("")}</tr>`)
        .join("\n");
      const failed = failures(r);
      return `<h2>${esc(r.agent)}</h2>${headline(r).map((l) => `<p>${esc(l)}</p>`).join("")}<p><em>${esc(measures(r))}</em></p><table><thead><tr>${head}</tr></thead><tbody>${rows}</tbody></table>${failed.length ? `<ul>${failed.map((f) => `<li>${esc(f)}</li>`).join("")}</ul>` : ""}`;
    })
    .join("\n");
  const diff = results.length === 2 ? `<h2>Differences</h2><ul>${compareLines(results[0]!, results[1]!).map((l) => `<li>${esc(l)}</li>`).join("")}</ul>` : "";
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Eval report</title><style>body{font-family:sans-serif;max-width:1100px;margin:2em auto;padding:0 1em}table{border-collapse:collapse;font-size:13px}td,th{border:1px solid #ccc;padding:3px 6px;text-align:left}</style></head><body><h1>Eval report</h1>${tables}${diff}${passChart(results, "Pass rate per task")}</body></html>\n`;
}

// ── Comparing two results ──

const change = (a: number, b: number) => (a === 0 ? (b === 0 ? "no change" : "from 0") : `${b >= a ? "+" : ""}${Math.round(((b - a) / a) * 100)}%`);
const inputOf = (t: Tokens) => t.input + t.cacheRead + t.cacheWrite;

/** The differences that matter between two results: tasks that flip, then pass rate, turns, tokens, cost, time. */
export function compareLines(a: EvalResult, b: EvalResult): string[] {
  const lines: string[] = [];
  if (a.offline !== b.offline || a.model !== b.model) lines.push(`not the same model: ${a.agent} ran on ${a.model}, ${b.agent} on ${b.model}`);
  const tasks = [...new Set([...a.tasks.map((t) => t.task), ...b.tasks.map((t) => t.task)])];
  const shared = tasks.filter((t) => a.tasks.some((x) => x.task === t) && b.tasks.some((x) => x.task === t));
  if (shared.length < tasks.length) lines.push(`not the same tasks (${shared.length} of ${tasks.length} in both): the totals below compare different sets`);
  if (a.k !== b.k) lines.push(`not the same k: ${a.k} runs per task against ${b.k}`);
  for (const task of tasks) {
    const x = a.tasks.find((t) => t.task === task);
    const y = b.tasks.find((t) => t.task === task);
    if (!x || !y) {
      lines.push(`${task}: only in ${x ? a.agent : b.agent}'s result`);
      continue;
    }
    if (x.pass_rate !== y.pass_rate) lines.push(`${task}: passes ${pct(x.pass_rate)} with ${a.agent}, ${pct(y.pass_rate)} with ${b.agent}`);
  }
  const s = a.summary;
  const t = b.summary;
  lines.push(`pass rate: ${pct(s.pass_rate)} → ${pct(t.pass_rate)}; pass@k ${pct(s.pass_at_k)} → ${pct(t.pass_at_k)}; pass^k ${pct(s.pass_hat_k)} → ${pct(t.pass_hat_k)}`);
  lines.push(`turns per run: ${num(s.turns)} → ${num(t.turns)} (${change(s.turns, t.turns)})`);
  lines.push(`input tokens (fresh + cache): ${inputOf(s.tokens)} → ${inputOf(t.tokens)} (${change(inputOf(s.tokens), inputOf(t.tokens))}); output ${s.tokens.output} → ${t.tokens.output}`);
  if (s.cost_usd !== null && t.cost_usd !== null) lines.push(`cost at list prices: ${usd(s.cost_usd)} → ${usd(t.cost_usd)} (${change(s.cost_usd, t.cost_usd)})`);
  lines.push(`time of runs: ${secs(s.ms)} → ${secs(t.ms)}`);
  return lines;
}

/** Two results side by side: one row per task with both pass rates, turns and costs. */
export function compareTable(a: EvalResult, b: EvalResult): string[] {
  const tasks = [...new Set([...a.tasks.map((t) => t.task), ...b.tasks.map((t) => t.task)])];
  const cell = (r: EvalResult, task: string, f: (t: TaskSummary) => string) => {
    const t = r.tasks.find((x) => x.task === task);
    return t ? f(t) : "—";
  };
  const rows = tasks.map((task) => [
    task,
    cell(a, task, (t) => `${t.passed}/${t.runs}`),
    cell(b, task, (t) => `${t.passed}/${t.runs}`),
    cell(a, task, (t) => num(t.turns)),
    cell(b, task, (t) => num(t.turns)),
    cell(a, task, (t) => usd(t.cost_usd)),
    cell(b, task, (t) => usd(t.cost_usd)),
  ]);
  return markdownTable(["task", `passed (${a.agent})`, `passed (${b.agent})`, `turns (${a.agent})`, `turns (${b.agent})`, `cost (${a.agent})`, `cost (${b.agent})`], rows);
}
