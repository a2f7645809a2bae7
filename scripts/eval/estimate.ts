/** What an eval with a real model may cost, said before it starts (docs/guide/evals.md). */
import { priceFor } from "../../solutions/s09_observability/usage.ts";
import type { EvalTask } from "./suite.ts";

/**
 * What a run with a real model may cost, before it starts: each run as a session of half its turn
 * limit (typical) or all of it (most), every turn re-sending a context that grows from ~3 000
 * tokens by ~800 a turn, uncached, with ~400 output tokens a turn. A rough bound, said as such.
 */
export function estimateCost(tasks: Array<Pick<EvalTask, "limits">>, runs: number, model: string): { typical: number; most: number } | null {
  const p = priceFor(model)?.price;
  if (!p) return null;
  const session = (turns: number) => {
    let input = 0;
    for (let t = 0; t < turns; t++) input += 3000 + 800 * t;
    return (input * p.input + turns * 400 * p.output) / 1_000_000;
  };
  const typical = tasks.reduce((a, t) => a + session(Math.ceil(t.limits.turns / 2)), 0) * runs;
  const most = tasks.reduce((a, t) => a + session(t.limits.turns), 0) * runs;
  return { typical, most };
}

