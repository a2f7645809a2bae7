/**
 * s23_evals, part two: from graded runs to figures, and two agents compared.
 *
 *   pass rate   passing runs / all runs (an error is a run that did not pass)
 *   pass@k      per task, the chance that at least one of k runs drawn from its n runs (c passed)
 *               passes: 1 − C(n−c, k) / C(n, k), the unbiased estimator; averaged over tasks
 *   pass^k      per task, the chance that all k drawn runs pass: C(c, k) / C(n, k)
 *
 * pass@k rewards an agent that sometimes succeeds, pass^k one that always does; the gap between
 * them is how unreliable it is. Comparing two agents starts from the tasks that flip.
 */
import type { Graded } from "./grade.ts";

/** A k the estimators cannot use: it names the numbers and what they must be. */
export class EstimatorError extends RangeError {}

function checkCounts(n: number, c: number, k: number): void {
  if (![n, c, k].every(Number.isInteger) || n < 1 || c < 0 || c > n || k < 1 || k > n)
    throw new EstimatorError(`need whole numbers with 0 ≤ c ≤ n and 1 ≤ k ≤ n (n=${n} runs, c=${c} passed, k=${k})`);
}

// #region estimators
/** pass@k of one task: n runs, c passed. C(n−c, k)/C(n, k) as a product, so no factorial overflows. */
export function passAtK(n: number, c: number, k: number): number {
  checkCounts(n, c, k);
  // Fewer than k failures: every draw of k runs holds a pass.
  if (n - c < k) return 1;
  let allFail = 1;
  for (let i = n - c + 1; i <= n; i++) allFail *= 1 - k / i;
  return 1 - allFail;
}

/** pass^k of one task: the chance that k runs drawn from the n all passed. */
export function passHatK(n: number, c: number, k: number): number {
  checkCounts(n, c, k);
  let allPass = 1;
  for (let i = 0; i < k; i++) allPass *= (c - i) / (n - i);
  return Math.max(0, allPass);
}
// #endregion estimators

/** One task's figures. */
export interface TaskScore {
  task: string;
  runs: number;
  passed: number;
  errors: number;
  pass_at_k: number;
  pass_hat_k: number;
}

/** One agent's figures over the suite. */
export interface Scores {
  agent: string;
  k: number;
  runs: number;
  pass_rate: number;
  pass_at_k: number;
  pass_hat_k: number;
  tasks: TaskScore[];
}

const mean = (xs: number[]) => (xs.length === 0 ? 0 : xs.reduce((a, b) => a + b, 0) / xs.length);

// #region score
/** The figures of one agent's graded runs (every task run at least k times). */
export function score(agent: string, graded: readonly Graded[], k: number): Scores {
  const tasks = [...new Set(graded.map((g) => g.task))].map((task): TaskScore => {
    const runs = graded.filter((g) => g.task === task);
    const passed = runs.filter((g) => g.outcome === "pass").length;
    const errors = runs.filter((g) => g.outcome === "error").length;
    return { task, runs: runs.length, passed, errors, pass_at_k: passAtK(runs.length, passed, k), pass_hat_k: passHatK(runs.length, passed, k) };
  });
  // Every run is in the denominator: a run that broke is a run that did not do the job.
  const passRate = graded.length === 0 ? 0 : graded.filter((g) => g.outcome === "pass").length / graded.length;
  return { agent, k, runs: graded.length, pass_rate: passRate, pass_at_k: mean(tasks.map((t) => t.pass_at_k)), pass_hat_k: mean(tasks.map((t) => t.pass_hat_k)), tasks };
}
// #endregion score

/** A task whose pass rate differs between the two agents. */
export interface Flip {
  task: string;
  /** Its pass rate with the first agent, then with the second. */
  before: number;
  after: number;
}

export interface Comparison {
  /** Tasks the second agent does better on, then those it does worse on (each with both pass rates). */
  better: Flip[];
  worse: Flip[];
  /** Tasks only one of the two ran: their figures do not compare. */
  unmatched: string[];
  /** The second agent's figure minus the first's. */
  pass_rate: number;
  pass_at_k: number;
  pass_hat_k: number;
}

// #region compare
/** What changed from agent `a` to agent `b`, task by task first (a total can hide a task that broke). */
export function compare(a: Scores, b: Scores): Comparison {
  const rate = (t: TaskScore) => t.passed / t.runs;
  const better: Flip[] = [];
  const worse: Flip[] = [];
  const unmatched: string[] = [];
  for (const task of new Set([...a.tasks, ...b.tasks].map((t) => t.task))) {
    const x = a.tasks.find((t) => t.task === task);
    const y = b.tasks.find((t) => t.task === task);
    if (!x || !y) unmatched.push(task);
    else if (rate(y) > rate(x)) better.push({ task, before: rate(x), after: rate(y) });
    else if (rate(y) < rate(x)) worse.push({ task, before: rate(x), after: rate(y) });
  }
  return { better, worse, unmatched, pass_rate: b.pass_rate - a.pass_rate, pass_at_k: b.pass_at_k - a.pass_at_k, pass_hat_k: b.pass_hat_k - a.pass_hat_k };
}
// #endregion compare

