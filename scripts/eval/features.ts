/**
 * `npm run eval -- --compare-features`: each task that needs a Part IV feature (task.json
 * `feature`), run by the final agent through its headless interface twice, with the feature and
 * without it (program.ts), graded by the same hidden check. The table says, per task, what the
 * feature changed: pass, turns and cost, and what each run did (the branches that came back, the
 * workflow's step runs after the kill, the evaluator's requests).
 */
import { markdownTable } from "../reliability/report.ts";
import { programAgent } from "./program.ts";
import { runEval, type EvalOptions, type EvalResult } from "./run.ts";
import type { RunRecord } from "./stats.ts";
import type { EvalTask } from "./suite.ts";

/** The agents of the comparison: the final agent with each task's feature, and without it. */
export const WITH = "final-with-feature";
export const WITHOUT = "final-without-feature";

/** One side of a task's comparison. */
export interface Side {
  passed: number;
  runs: number;
  turns: number;
  cost_usd: number | null;
  /** What the runs did with (or without) the feature, from their notes. */
  did: string[];
}

export interface FeatureRow {
  task: string;
  feature: string;
  with: Side;
  without: Side;
}

export interface FeatureComparison {
  rows: FeatureRow[];
  results: [EvalResult, EvalResult];
}

/** The tasks a comparison runs: those that name a feature. */
export const featureTasks = (tasks: readonly EvalTask[]) => tasks.filter((t) => t.feature !== undefined);

const side = (r: EvalResult, task: string): Side => {
  const runs: RunRecord[] = r.runs.filter((x) => x.task === task);
  const t = r.tasks.find((x) => x.task === task);
  const did = runs.flatMap((x) => (x.notes ?? []).map((n) => n.replace(/^\w+ (on|off): /, "")));
  return { passed: t?.passed ?? 0, runs: t?.runs ?? 0, turns: t?.turns ?? 0, cost_usd: t?.cost_usd ?? null, did: [...new Set(did)] };
};

/** Runs every feature task with and without its feature (the same k, the same model), one agent after the other. */
export async function compareFeatures(opts: Omit<EvalOptions, "agent">): Promise<FeatureComparison> {
  const tasks = featureTasks(opts.tasks);
  const on = await runEval({ ...opts, tasks, agent: programAgent(WITH, true) });
  const off = opts.signal?.aborted ? { ...on, runs: [], tasks: [] } : await runEval({ ...opts, tasks, agent: programAgent(WITHOUT, false) });
  const rows = tasks
    .filter((t) => on.tasks.some((x) => x.task === t.id))
    .map((t) => ({ task: t.id, feature: t.feature!.name, with: side(on, t.id), without: side(off, t.id) }));
  return { rows, results: [on, off] };
}

const usd = (x: number | null) => (x === null ? "unknown" : `$${x.toFixed(4)}`);
const cell = (s: Side) => `${s.passed}/${s.runs} · ${Number.isInteger(s.turns) ? s.turns : s.turns.toFixed(1)} turns · ${usd(s.cost_usd)}`;

/** The table a person reads: one row per task. */
export function featureTable(rows: readonly FeatureRow[]): string[] {
  return markdownTable(
    ["task", "feature", "with: passed · turns · cost", "without: passed · turns · cost", "with: what it did", "without: what it did"],
    rows.map((r) => [r.task, r.feature, cell(r.with), cell(r.without), r.with.did.join("; ") || "—", r.without.did.join("; ") || "—"]),
  );
}

/** One line per task whose verdict the feature changes (or does not). */
export function featureLines(rows: readonly FeatureRow[]): string[] {
  return rows.map((r) => {
    const a = r.with.passed / Math.max(1, r.with.runs);
    const b = r.without.passed / Math.max(1, r.without.runs);
    const verdict = a > b ? "the feature makes it pass" : a < b ? "it passes only WITHOUT the feature" : "the feature changes nothing here";
    return `${r.task} (${r.feature}): passes ${Math.round(a * 100)}% with, ${Math.round(b * 100)}% without: ${verdict}`;
  });
}

/** The JSON of `--compare-features --json`. */
export const featureJson = (c: FeatureComparison) => ({ features: c.rows, differences: featureLines(c.rows) });
