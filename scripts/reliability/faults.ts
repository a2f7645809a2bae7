/**
 * Fault injection: the scripted model fails on purpose in the middle of a task (after a tool turn
 * is already in the history) and the loop must either recover, or stop with a clear outcome (an
 * Outcome, or an error the course explains in plain words), and lose nothing that was already in
 * the transcript, which must still be sendable.
 *
 * Each fault runs twice: with the SDK's default retries (2) and with retries off (0), because
 * what a loop survives depends on both. Stream faults apply to the streaming lessons (s08+);
 * user abort to the lessons that take a signal (s06+).
 */
import type Anthropic from "@anthropic-ai/sdk";
import { explainError } from "../../runtime/lesson.ts";
import { output } from "../../runtime/print.ts";
import type { Fault } from "../../runtime/scripted/types.ts";
import { scripted, transcriptProblems } from "../../runtime/testing.ts";
import { fuzzTools, type LessonAdapter } from "./lessons.ts";
import { planScenario, withDescription, type Plan } from "./plan.ts";

export interface FaultCase {
  id: string;
  what: string;
  fault?: Fault;
  /** Client timeout, ms (for latency past the timeout). */
  timeoutMs?: number;
  /** Abort the run this many ms after it starts. */
  abortAfterMs?: number;
  /** The scripted model waits this long before every answer (so an abort lands mid-request). */
  latencyMs?: number;
  needs?: "streaming" | "signal";
}

export const FAULT_CASES: FaultCase[] = [
  { id: "429", what: "429 rate limited, retry-after: 1", fault: { kind: "rate_limit", retryAfterSeconds: 1 } },
  { id: "500", what: "500 internal server error", fault: { kind: "server_error" } },
  { id: "529", what: "529 overloaded", fault: { kind: "overloaded" } },
  { id: "stream-error", what: "an `error` event mid-stream", fault: { kind: "stream_error", afterEvents: 3 }, needs: "streaming" },
  { id: "stream-cut", what: "the stream cut mid-way", fault: { kind: "stream_cut", afterEvents: 3 }, needs: "streaming" },
  { id: "timeout", what: "latency past the timeout (3 s vs 300 ms)", fault: { kind: "latency", ms: 3000 }, timeoutMs: 300 },
  { id: "abort", what: "the user aborts mid-request", abortAfterMs: 150, latencyMs: 1000, needs: "signal" },
];

export type FaultVerdict = "recovered" | "clear stop" | "FAILED" | "n/a";

export interface FaultResult {
  lesson: string;
  fault: string;
  retries: number;
  verdict: FaultVerdict;
  detail: string;
}

/** One tool turn, then an answer: the fault hits the second request, when history has a tool turn. */
function twoStepPlan(adapter: LessonAdapter): Plan {
  const call = adapter.n === 1 ? { tool: "bash", input: "valid" as const, command: "echo hi" } : { tool: "fz_ok", input: "valid" as const };
  return withDescription({ turns: [{ blocks: [{ type: "text", text: "Let me check." }, { type: "call", call }], stop: "natural" }] });
}

export function applies(c: FaultCase, adapter: LessonAdapter): boolean {
  if (c.needs === "streaming") return adapter.claims.streaming;
  if (c.needs === "signal") return adapter.claims.signal;
  return true;
}

/**
 * Messages as text to compare, the way the API reads them: a request's cache_control markers
 * (s13+ put them on a copy of the history) and a string content written as one text block aside.
 */
function comparable(messages: Anthropic.MessageParam[]): string {
  const plain = messages.map((m) => ({ role: m.role, content: typeof m.content === "string" ? [{ type: "text", text: m.content }] : m.content }));
  return JSON.stringify(plain, (key, value: unknown) => (key === "cache_control" ? undefined : value));
}

export async function runFault(adapter: LessonAdapter, c: FaultCase, retries: number): Promise<FaultResult> {
  const base = { lesson: adapter.lesson.id, fault: c.id, retries };
  if (!applies(c, adapter)) return { ...base, verdict: "n/a", detail: c.needs === "streaming" ? "does not stream" : "takes no signal" };
  const faultAt = 1;
  const llm = scripted(
    {
      scenario: planScenario(twoStepPlan(adapter)),
      maxRequests: 40,
      ...(c.fault ? { faults: (i: number) => (i === faultAt ? c.fault! : null) } : {}),
      ...(c.latencyMs ? { latencyMs: c.latencyMs } : {}),
    },
    { maxRetries: retries, ...(c.timeoutMs ? { timeout: c.timeoutMs } : {}) },
  );
  const history: Anthropic.MessageParam[] = [{ role: "user", content: "Fault task: call a tool, then answer." }];
  const controller = new AbortController();
  const timer = c.abortAfterMs ? setTimeout(() => controller.abort(), c.abortAfterMs) : undefined;
  let outcome = "";
  let thrown: unknown;
  const restore = output.write;
  output.write = () => {};
  try {
    const r = await adapter.run(llm, history, fuzzTools(["ok"], []), {
      ...(c.abortAfterMs ? { signal: controller.signal } : {}),
      ...(c.timeoutMs && adapter.claims.signal ? { timeoutMs: c.timeoutMs * 2 } : {}),
    });
    outcome = r.kind === "outcome" ? `${r.status}${r.reason ? ` (${r.reason})` : ""}` : `returned (stop_reason ${r.message.stop_reason})`;
  } catch (e) {
    thrown = e;
  } finally {
    output.write = restore;
    if (timer) clearTimeout(timer);
  }

  // Nothing lost: the history still starts with what the last request before the failure sent.
  const sent = llm.scripted.exchanges
    .map((x) => (x.request as { messages?: Anthropic.MessageParam[] }).messages)
    .filter((m): m is Anthropic.MessageParam[] => Array.isArray(m));
  const before = sent[Math.min(faultAt, sent.length - 1)] ?? [];
  const kept = comparable(history.slice(0, before.length)) === comparable(before);
  if (!kept) return { ...base, verdict: "FAILED", detail: "messages that were already in the transcript were lost or changed" };
  const problems = await transcriptProblems(llm, history);
  if (problems) return { ...base, verdict: "FAILED", detail: problems.split("\n").slice(0, 2).join(" ") };

  if (thrown === undefined) {
    const stopped = outcome.startsWith("stopped");
    return { ...base, verdict: stopped ? "clear stop" : "recovered", detail: outcome };
  }
  const explained = explainError(thrown);
  if (explained) return { ...base, verdict: "clear stop", detail: `threw, explained as: ${explained.split("\n")[0]}` };
  return { ...base, verdict: "FAILED", detail: `threw an error the course does not explain: ${String(thrown)}` };
}

export async function runFaults(adapters: LessonAdapter[], cases = FAULT_CASES, retries = [2, 0]): Promise<FaultResult[]> {
  const jobs: Array<Promise<FaultResult>> = [];
  // Faults wait (retry-after, timeouts): run them side by side, a lesson at a time.
  const results: FaultResult[] = [];
  for (const a of adapters) {
    for (const c of cases) for (const r of retries) jobs.push(runFault(a, c, r));
    results.push(...(await Promise.all(jobs.splice(0))));
  }
  return results;
}
