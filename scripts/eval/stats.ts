/**
 * The figures of an eval, from its runs.
 *
 *   pass rate   passing runs / all runs
 *   pass@k      the chance that at least one of k runs passes, per task, averaged over tasks:
 *               1 − C(n−c, k) / C(n, k) for n runs of which c passed (the unbiased estimator of
 *               the Codex paper, HumanEval); with n = k it is 1 when any run passed
 *   pass^k      the chance that ALL k runs pass (τ-bench): C(c, k) / C(n, k); with n = k it is 1
 *               only when every run passed. pass@k rewards an agent that sometimes succeeds,
 *               pass^k one that always does: the gap between them is its unreliability.
 */
import { addTokens, noTokens, type Tokens } from "./meter.ts";

/** C(n, k) as a float (small n: exact enough for these ratios). */
export function choose(n: number, k: number): number {
  if (k < 0 || k > n) return 0;
  let r = 1;
  for (let i = 1; i <= k; i++) r = (r * (n - k + i)) / i;
  return r;
}

/** pass@k for one task: n runs, c of them passed. */
export function passAtK(n: number, c: number, k: number): number {
  if (k < 1 || k > n) throw new RangeError(`pass@k needs 1 ≤ k ≤ n (k=${k}, n=${n})`);
  if (n - c < k) return 1;
  return 1 - choose(n - c, k) / choose(n, k);
}

/** pass^k for one task: n runs, c of them passed. */
export function passHatK(n: number, c: number, k: number): number {
  if (k < 1 || k > n) throw new RangeError(`pass^k needs 1 ≤ k ≤ n (k=${k}, n=${n})`);
  return choose(c, k) / choose(n, k);
}

/** One run of one task, as the report keeps it. */
export interface RunRecord {
  task: string;
  run: number;
  pass: boolean;
  /** Each criterion of the check, in words. */
  checks: Array<{ name: string; ok: boolean; detail: string }>;
  stop: string;
  turns: number;
  requests: number;
  tokens: Tokens;
  cost_usd: number | null;
  ms: number;
  /** Where its transcript, diff and grade are kept (relative to the course). */
  dir: string;
  error?: string;
  /** What went wrong around the loop without stopping it (an MCP server that did not start). */
  notes?: string[];
  /** Stopped by the user mid-run: left out of every figure. */
  interrupted?: boolean;
}

export interface TaskSummary {
  task: string;
  kind: string;
  changes: boolean;
  runs: number;
  passed: number;
  pass_rate: number;
  pass_at_k: number;
  pass_hat_k: number;
  turns: number;
  tokens: Tokens;
  cost_usd: number | null;
  ms: number;
  stops: Record<string, number>;
}

export interface Summary {
  tasks: number;
  runs: number;
  k: number;
  pass_rate: number;
  pass_at_k: number;
  pass_hat_k: number;
  /** Mean turns per run. */
  turns: number;
  /** Tokens of all runs. */
  tokens: Tokens;
  /** Dollars of all runs at list prices; null when a price is unknown. */
  cost_usd: number | null;
  /** Wall time of all runs, summed (ms). */
  ms: number;
  stops: Record<string, number>;
}

const mean = (xs: number[]) => (xs.length === 0 ? 0 : xs.reduce((a, b) => a + b, 0) / xs.length);
const sumCost = (xs: Array<number | null>) => (xs.some((x) => x === null) ? null : xs.reduce<number>((a, b) => a + (b ?? 0), 0));

function countStops(runs: RunRecord[]): Record<string, number> {
  const out: Record<string, number> = {};
  for (const r of runs) out[r.stop] = (out[r.stop] ?? 0) + 1;
  return out;
}

export function summarizeTask(task: { id: string; kind: string; changes: boolean }, runs: RunRecord[], k: number): TaskSummary {
  const passed = runs.filter((r) => r.pass).length;
  return {
    task: task.id,
    kind: task.kind,
    changes: task.changes,
    runs: runs.length,
    passed,
    pass_rate: runs.length ? passed / runs.length : 0,
    pass_at_k: runs.length >= k ? passAtK(runs.length, passed, k) : 0,
    pass_hat_k: runs.length >= k ? passHatK(runs.length, passed, k) : 0,
    turns: mean(runs.map((r) => r.turns)),
    tokens: runs.reduce((t, r) => addTokens(t, r.tokens), noTokens()),
    cost_usd: sumCost(runs.map((r) => r.cost_usd)),
    ms: runs.reduce((a, r) => a + r.ms, 0),
    stops: countStops(runs),
  };
}

export function summarize(tasks: TaskSummary[], runs: RunRecord[], k: number): Summary {
  return {
    tasks: tasks.length,
    runs: runs.length,
    k,
    pass_rate: runs.length ? runs.filter((r) => r.pass).length / runs.length : 0,
    pass_at_k: mean(tasks.map((t) => t.pass_at_k)),
    pass_hat_k: mean(tasks.map((t) => t.pass_hat_k)),
    turns: mean(runs.map((r) => r.turns)),
    tokens: runs.reduce((t, r) => addTokens(t, r.tokens), noTokens()),
    cost_usd: sumCost(runs.map((r) => r.cost_usd)),
    ms: runs.reduce((a, r) => a + r.ms, 0),
    stops: countStops(runs),
  };
}
