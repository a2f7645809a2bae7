/**
 * Counting a run's tokens where every agent's requests pass: the SDK client's `fetch`. Each
 * Messages API response (JSON, or SSE when streamed) is read from a copy of its body for its
 * usage, so the count holds for any loop (the learner's own, subagents included) without the
 * loop's help. Input is counted as the API reports it: fresh input, cache writes, cache reads.
 */
import type Anthropic from "@anthropic-ai/sdk";
import { priceFor } from "../../solutions/s09_observability/usage.ts";

export interface Tokens {
  input: number;
  output: number;
  cacheRead: number;
  cacheWrite: number;
}

export const noTokens = (): Tokens => ({ input: 0, output: 0, cacheRead: 0, cacheWrite: 0 });

export function addTokens(a: Tokens, b: Tokens): Tokens {
  return { input: a.input + b.input, output: a.output + b.output, cacheRead: a.cacheRead + b.cacheRead, cacheWrite: a.cacheWrite + b.cacheWrite };
}

/** Dollars at list prices (s09's table); null when the model's price is unknown. */
export function costOf(model: string, t: Tokens): number | null {
  const p = priceFor(model)?.price;
  if (!p) return null;
  return (t.input * p.input + t.output * p.output + t.cacheWrite * p.cacheWrite + t.cacheRead * p.cacheRead) / 1_000_000;
}

type Usage = Partial<Anthropic.Usage> & Partial<Anthropic.MessageDeltaUsage>;

function tokensOfUsage(u: Usage | undefined): Tokens {
  return { input: u?.input_tokens ?? 0, output: u?.output_tokens ?? 0, cacheRead: u?.cache_read_input_tokens ?? 0, cacheWrite: u?.cache_creation_input_tokens ?? 0 };
}

/** The usage in a streamed response: message_start's, with message_delta's (cumulative) counts over it. */
export function usageOfSse(text: string): Tokens {
  let start: Usage | undefined;
  let delta: Usage | undefined;
  for (const line of text.split("\n")) {
    if (!line.startsWith("data:")) continue;
    try {
      const event = JSON.parse(line.slice(5)) as { type?: string; message?: { usage?: Usage }; usage?: Usage };
      if (event.type === "message_start") start = event.message?.usage;
      if (event.type === "message_delta") delta = { ...delta, ...event.usage };
    } catch {
      // Not JSON: not an event we count.
    }
  }
  const merged: Usage = { ...start };
  for (const [k, v] of Object.entries(delta ?? {})) if (typeof v === "number") (merged as Record<string, number>)[k] = v;
  return tokensOfUsage(merged);
}

export class Meter {
  requests = 0;
  tokens = noTokens();
  private readonly pending: Promise<void>[] = [];

  /** `inner` with every Messages API response counted. */
  wrap(inner: typeof fetch): typeof fetch {
    return async (input, init) => {
      const response = await inner(input, init);
      const url = typeof input === "string" ? input : input instanceof URL ? input.href : input.url;
      if (!/\/v1\/messages(\?|$)/.test(url) || !response.ok || !response.body) return response;
      this.requests++;
      const copy = response.clone();
      const sse = (response.headers.get("content-type") ?? "").includes("text/event-stream");
      this.pending.push(
        copy
          .text()
          .then((text) => {
            this.tokens = addTokens(this.tokens, sse ? usageOfSse(text) : tokensOfUsage((JSON.parse(text) as { usage?: Usage }).usage));
          })
          .catch(() => {
            // A response cut off mid-way: its usage never arrived, so it is not counted.
          }),
      );
      return response;
    };
  }

  /** Waits for every response's body to be read. */
  async settle(): Promise<void> {
    await Promise.all(this.pending);
  }
}
