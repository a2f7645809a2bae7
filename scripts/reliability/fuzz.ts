/**
 * The property every loop must keep, whatever the model and the tools do (within what the lesson
 * claims): the loop returns (no throw), the transcript passes the checker and can be sent again,
 * nothing that was in the history is lost, and the lesson's own promises hold (failures marked
 * is_error from s02/s04, a cut-off tool_use never run and an Outcome returned from s05).
 */
import type Anthropic from "@anthropic-ai/sdk";
import fc from "fast-check";
import { scripted, transcriptProblems } from "../../runtime/testing.ts";
import { output } from "../../runtime/print.ts";
import { fuzzTools, type LessonAdapter, type Ran } from "./lessons.ts";
import { cutOffTurns, planArb, planScenario, TOOL_NAMES, type Plan } from "./plan.ts";

export const FUZZ_TASK = "Fuzz task: use the tools as you like, then answer.";

export type Verdict = { ok: true } | { ok: false; kind: "crash" | "violation"; problem: string };

function errorText(e: unknown): string {
  if (e instanceof Error) return `${e.constructor.name}: ${e.message.split("\n")[0]}`;
  return String(e);
}

const blocksOf = (m: Anthropic.MessageParam) => (typeof m.content === "string" ? [] : m.content);

/** Runs one plan through one lesson's loop and checks every property the lesson claims. */
export async function runPlan(adapter: LessonAdapter, plan: Plan): Promise<Verdict> {
  const ran: Ran[] = [];
  const tools = fuzzTools(adapter.space.toolKinds, ran);
  const llm = scripted({ scenario: planScenario(plan), maxRequests: 80 });
  const history: Anthropic.MessageParam[] = [{ role: "user", content: FUZZ_TASK }];
  let result;
  try {
    result = await adapter.run(llm, history, tools);
  } catch (e) {
    return { ok: false, kind: "crash", problem: `the loop threw instead of returning: ${errorText(e)}` };
  }
  const problems = await transcriptProblems(llm, history);
  if (problems) return { ok: false, kind: "violation", problem: problems };
  const { claims } = adapter;
  // The task is still there: unchanged, or (in a loop that compacts a full context) quoted in
  // the summary that replaced the oldest turns.
  const first = history[0];
  const firstText = first ? (typeof first.content === "string" ? first.content : first.content.map((b) => (b.type === "text" ? b.text : "")).join("\n")) : "";
  const kept = first?.role === "user" && (first.content === FUZZ_TASK || (claims.compacts && firstText.includes(FUZZ_TASK)));
  if (!kept) return { ok: false, kind: "violation", problem: "messages[0] (the task) was changed or lost" };

  if (claims.outcome) {
    if (result.kind !== "outcome" || (result.status !== "done" && result.status !== "stopped"))
      return { ok: false, kind: "violation", problem: `runAgent returned ${JSON.stringify(result)}, not an Outcome with status "done" or "stopped"` };
  }
  if (claims.stopReasons) {
    // A call in a turn that ended with max_tokens, refusal, … was cut off or not meant: never run.
    // A streaming loop may start a read-only call early, before the turn ends (s08): reading
    // changes nothing, so only calls that act count there.
    const cut = cutOffTurns(plan);
    const wrongly = ran.filter((r) => cut.has(Math.floor((r.n - 1) / 100)) && !(claims.streaming && r.readOnly));
    if (wrongly.length > 0)
      return {
        ok: false,
        kind: "violation",
        problem: `call(s) n=${wrongly.map((r) => r.n).join(",")} ran although their turn did not end with stop_reason tool_use`,
      };
  }
  // Failures must be marked is_error where the lesson claims it.
  const known = new Set(tools.map((t) => t.name));
  for (let i = 0; i + 1 < history.length; i++) {
    const m = history[i]!;
    if (m.role !== "assistant") continue;
    const results = blocksOf(history[i + 1]!).filter((b): b is Anthropic.ToolResultBlockParam => b.type === "tool_result");
    for (const b of blocksOf(m)) {
      if (b.type !== "tool_use") continue;
      const r = results.find((x) => x.tool_use_id === b.id);
      if (!r) continue; // the checker already covers pairing
      const input = b.input as Record<string, unknown>;
      const validInput = typeof input.n === "number" && Object.keys(input).length === 1;
      const why =
        !known.has(b.name) && claims.unknownToolIsError
          ? "an unknown tool"
          : b.name === TOOL_NAMES.throw && claims.toolThrows && validInput
            ? "a tool that threw"
            : b.name === TOOL_NAMES.hang && claims.toolHangs && validInput
              ? "a tool that timed out"
              : !validInput && known.has(b.name) && claims.badInputIsError
                ? "input that breaks the schema"
                : null;
      if (why && r.is_error !== true)
        return { ok: false, kind: "violation", problem: `the result for ${b.name} (${b.id}), ${why}, is not marked is_error: true` };
    }
  }
  return { ok: true };
}

export interface FuzzStats {
  lesson: string;
  runs: number;
  violations: number;
  crashes: number;
  /** The first counterexample, shrunk, readable. */
  counterexample?: string;
  ms: number;
}

/**
 * Runs `numRuns` generated plans through one lesson. On a failure fast-check shrinks the plan to
 * a small one; the report keeps the shrunk plan and the problem.
 */
export async function fuzzLesson(adapter: LessonAdapter, numRuns: number, seed?: number): Promise<FuzzStats> {
  const start = performance.now();
  let last: Verdict = { ok: true };
  const restore = output.write;
  output.write = () => {};
  try {
    const result = await fc.check(
      fc.asyncProperty(planArb(adapter.space), async (plan) => {
        last = await runPlan(adapter, plan);
        return last.ok;
      }),
      { numRuns, ...(seed !== undefined ? { seed } : {}), endOnFailure: false, maxSkipsPerRun: 1000 },
    );
    const stats: FuzzStats = { lesson: adapter.lesson.id, runs: result.numRuns, violations: 0, crashes: 0, ms: performance.now() - start };
    if (result.failed && result.counterexample) {
      const [plan] = result.counterexample;
      const verdict = await runPlan(adapter, plan);
      const kind = verdict.ok ? "violation" : verdict.kind;
      stats[kind === "crash" ? "crashes" : "violations"] = 1;
      stats.counterexample = `${adapter.lesson.id} (seed ${result.seed}, shrunk after ${result.numShrinks} steps): ${
        verdict.ok ? String(result.errorInstance ?? "failed") : verdict.problem
      }\n  plan:${fc.stringify(plan)}`;
    }
    return stats;
  } finally {
    output.write = restore;
  }
}
