/**
 * s09 · usage and cost, per turn and per run.
 *
 * Every response reports its tokens; a turn re-sends the whole history, so a run's spend is the
 * SUM over its turns. Input is three numbers (input_tokens excludes the cached part): fresh
 * input, cache writes and cache reads, each with its own price. Prices are US dollars per
 * million tokens, from the public price list; check them before you rely on a total.
 */
import type Anthropic from "@anthropic-ai/sdk";

// #region prices
export interface Price {
  input: number;
  output: number;
  cacheWrite: number;
  cacheRead: number;
}

/** USD per million tokens, by model id prefix (the longest matching prefix wins). */
export const PRICES: Record<string, Price> = {
  "claude-opus-4-5": { input: 5, output: 25, cacheWrite: 6.25, cacheRead: 0.5 },
  "claude-opus-4": { input: 15, output: 75, cacheWrite: 18.75, cacheRead: 1.5 },
  "claude-sonnet-4": { input: 3, output: 15, cacheWrite: 3.75, cacheRead: 0.3 },
  "claude-3-7-sonnet": { input: 3, output: 15, cacheWrite: 3.75, cacheRead: 0.3 },
  "claude-haiku-4-5": { input: 1, output: 5, cacheWrite: 1.25, cacheRead: 0.1 },
  "claude-3-5-haiku": { input: 0.8, output: 4, cacheWrite: 1, cacheRead: 0.08 },
};

/** The offline model costs nothing; its usage is priced as this model would be, to show the sums. */
export const OFFLINE_PRICED_AS = "claude-sonnet-4";

export function priceFor(model: string): { price: Price; as: string } | undefined {
  const id = model === "scripted-model" ? OFFLINE_PRICED_AS : model;
  const key = Object.keys(PRICES)
    .filter((k) => id.startsWith(k))
    .sort((a, b) => b.length - a.length)[0];
  return key ? { price: PRICES[key]!, as: key } : undefined;
}
// #endregion prices

// #region usage
/** One turn's tokens, all four kinds, and their cost (null when the model's price is unknown). */
export interface TurnUsage {
  input: number;
  output: number;
  cacheWrite: number;
  cacheRead: number;
  costUsd: number | null;
}

export function turnUsage(model: string, usage: Anthropic.Usage): TurnUsage {
  const t = {
    input: usage.input_tokens,
    output: usage.output_tokens,
    cacheWrite: usage.cache_creation_input_tokens ?? 0,
    cacheRead: usage.cache_read_input_tokens ?? 0,
  };
  const p = priceFor(model)?.price;
  const costUsd = p ? (t.input * p.input + t.output * p.output + t.cacheWrite * p.cacheWrite + t.cacheRead * p.cacheRead) / 1_000_000 : null;
  return { ...t, costUsd };
}

/** A run's totals: the sum of its turns. */
export interface Totals extends TurnUsage {
  turns: number;
}

export const emptyTotals = (): Totals => ({ turns: 0, input: 0, output: 0, cacheWrite: 0, cacheRead: 0, costUsd: 0 });

export function addTurn(totals: Totals, u: TurnUsage): Totals {
  return {
    turns: totals.turns + 1,
    input: totals.input + u.input,
    output: totals.output + u.output,
    cacheWrite: totals.cacheWrite + u.cacheWrite,
    cacheRead: totals.cacheRead + u.cacheRead,
    // Unknown once any turn's price is unknown: a partial sum would look like a real total.
    costUsd: totals.costUsd === null || u.costUsd === null ? null : totals.costUsd + u.costUsd,
  };
}
// #endregion usage

/** "1 234 in (+56 cache write, 7 890 cache read), 321 out, $0.0123" */
export function formatUsage(u: TurnUsage): string {
  const n = (x: number) => x.toLocaleString("en-US");
  const cache = u.cacheWrite || u.cacheRead ? ` (+${n(u.cacheWrite)} cache write, ${n(u.cacheRead)} cache read)` : "";
  const cost = u.costUsd === null ? "cost unknown" : `$${u.costUsd.toFixed(4)}`;
  return `${n(u.input)} in${cache}, ${n(u.output)} out, ${cost}`;
}
