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
import { todo } from "../../runtime/lesson.ts";
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
  // TODO: the unbiased estimator 1 − C(n−c, k)/C(n, k). When fewer than k runs failed (n − c < k),
  // every draw of k runs holds a pass: 1. Otherwise compute C(n−c, k)/C(n, k) as the product over
  // i from n−c+1 to n of (1 − k/i), so no factorial overflows.
  return todo("passAtK: 1 − C(n−c, k)/C(n, k)");
}

/** pass^k of one task: the chance that k runs drawn from the n all passed. */
export function passHatK(n: number, c: number, k: number): number {
  checkCounts(n, c, k);
  // TODO: C(c, k)/C(n, k), the chance that all k drawn runs passed: the product over i from 0 to
  // k−1 of (c − i)/(n − i); 0 when fewer than k passed.
  return todo("passHatK: C(c, k)/C(n, k)");
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
  // TODO: the pass rate: passing runs over ALL runs (a run that broke did not do the job); no runs at all: 0, not 0 / 0.
  const passRate: number = todo("score: the pass rate over every run");
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
  // TODO: task by task first. For each task in both results, compare its pass rate (passed / runs; not
  // pass@k or pass^k, which equal it only when k = 1):
  // higher with b → better, lower → worse, each as { task, before: a's rate, after: b's rate }.
  // A task in one result only → unmatched. Then the totals: pass_rate, pass_at_k and pass_hat_k as
  // b's figure minus a's.
  return todo("compare: the tasks that flip, then the totals");
}
// #endregion compare

