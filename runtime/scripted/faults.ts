/**
 * Faults on demand, written as short strings so a header, a flag or a test can ask for them:
 *
 *   429[:retry-after=2]      rate limited, with a retry-after header (seconds)
 *   500                      internal server error
 *   529                      overloaded
 *   prompt-too-long          400 "prompt is too long: N tokens > M maximum"
 *   stream-error[:after=3]   an `event: error` (overloaded_error) after N SSE events
 *   stream-cut[:after=3]     the connection drops after N SSE events
 *   latency:ms=500           wait before answering
 *
 * A list ("429,ok,500") gives one fault per request in order; "ok" means no fault.
 */
import type { Fault } from "./types.ts";

export class FaultSyntaxError extends Error {}

export function parseFault(spec: string): Fault | null {
  const [name = "", ...opts] = spec.trim().split(":");
  const args = new Map(
    opts.map((o) => {
      const [k = "", v = ""] = o.split("=");
      return [k.trim(), Number(v)] as const;
    }),
  );
  const num = (k: string): number | undefined => {
    const v = args.get(k);
    return v === undefined || Number.isNaN(v) ? undefined : v;
  };
  switch (name.trim().toLowerCase()) {
    case "ok":
    case "":
      return null;
    case "429":
    case "rate-limit":
      return { kind: "rate_limit", retryAfterSeconds: num("retry-after") ?? 1 };
    case "500":
    case "server-error":
      return { kind: "server_error" };
    case "529":
    case "overloaded":
      return { kind: "overloaded" };
    case "prompt-too-long":
      return { kind: "prompt_too_long" };
    case "stream-error":
      return { kind: "stream_error", afterEvents: num("after") ?? 3 };
    case "stream-cut":
      return { kind: "stream_cut", afterEvents: num("after") ?? 3 };
    case "latency":
      return { kind: "latency", ms: num("ms") ?? 500 };
    default:
      throw new FaultSyntaxError(
        `unknown fault "${spec}": use 429[:retry-after=N], 500, 529, prompt-too-long, stream-error[:after=N], stream-cut[:after=N], latency:ms=N or ok`,
      );
  }
}

export function parseFaultList(spec: string): Array<Fault | null> {
  return spec.split(",").map(parseFault);
}
