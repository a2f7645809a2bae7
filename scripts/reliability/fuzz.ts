/**
 * The property every loop must keep, whatever the model and the tools do (within what the lesson
 * claims): the loop returns (no throw), the transcript passes the checker and can be sent again,
 * nothing that was in the history is lost, and the lesson's own promises hold (failures marked
 * is_error from s02/s04, a cut-off tool_use never run and an Outcome returned from s05; a call
 * started early by a streaming loop, s08, only when read-only and thrown away when its turn does
 * not end with tool_use), and no tool is still running when the loop returns.
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

const textOfResult = (r: Anthropic.ToolResultBlockParam): string =>
  typeof r.content === "string" ? r.content : (r.content ?? []).map((b) => (b.type === "text" ? b.text : "")).join("\n");

/** The tool_result that answers the generated call numbered `n`, if that call is in the history. */
function resultFor(history: Anthropic.MessageParam[], n: number): Anthropic.ToolResultBlockParam | undefined {
  for (let i = 0; i + 1 < history.length; i++) {
    if (history[i]!.role !== "assistant") continue;
    const use = blocksOf(history[i]!).find((b): b is Anthropic.ToolUseBlockParam => b.type === "tool_use" && (b.input as { n?: unknown } | null)?.n === n);
    if (!use) continue;
    return blocksOf(history[i + 1]!).find((b): b is Anthropic.ToolResultBlockParam => b.type === "tool_result" && b.tool_use_id === use.id);
  }
  return undefined;
}

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
  // A loop that returns is done with every call it started: run, stopped or thrown away, none
  // is still running behind the caller's back.
  const running = ran.filter((r) => !r.ended);
  if (running.length > 0)
    return {
      ok: false,
      kind: "violation",
      problem: `call(s) n=${running.map((r) => r.n).join(",")} were still running when the loop returned: stop (abort) and await every call whose result is not used`,
    };
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
    // s05: a call in a turn that ended with max_tokens, refusal, … was cut off or not meant: never
    // run. s08's one exception: a streaming loop may start a read-only call early, before the
    // turn's stop_reason is known; when the turn then ends with anything but tool_use, that call
    // is stopped and its result thrown away: answered is_error ("not run"), its output never sent.
    const cut = cutOffTurns(plan);
    const inCut = ran.filter((r) => cut.has(Math.floor((r.n - 1) / 100)));
    const wrongly = inCut.filter((r) => !(claims.streaming && r.readOnly));
    if (wrongly.length > 0)
      return {
        ok: false,
        kind: "violation",
        problem: `call(s) n=${wrongly.map((r) => r.n).join(",")} ran although their turn did not end with stop_reason tool_use`,
      };
    for (const r of inCut) {
      const result = resultFor(history, r.n);
      if (!result) continue; // the turn was not stored (asked again): nothing of it was sent
      const text = textOfResult(result);
      if (result.is_error !== true || (r.output && text.includes(r.output)))
        return {
          ok: false,
          kind: "violation",
          problem: `call n=${r.n} was started early in a turn that did not end with tool_use, and its result was used (${JSON.stringify(text.slice(0, 80))}): throw it away, answer the call is_error "not run"`,
        };
    }
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
  // The verdict of each plan that failed, so the report names the rule it broke even when the
  // same plan passes when run again (a failure that depends on timing).
  const failures = new WeakMap<Plan, Verdict & { ok: false }>();
  const restore = output.write;
  output.write = () => {};
  try {
    const result = await fc.check(
      fc.asyncProperty(planArb(adapter.space), async (plan) => {
        const verdict = await runPlan(adapter, plan);
        if (!verdict.ok) failures.set(plan, verdict);
        return verdict.ok;
      }),
      { numRuns, ...(seed !== undefined ? { seed } : {}), endOnFailure: false, maxSkipsPerRun: 1000 },
    );
    const stats: FuzzStats = { lesson: adapter.lesson.id, runs: result.numRuns, violations: 0, crashes: 0, ms: performance.now() - start };
    if (result.failed && result.counterexample) {
      const [plan] = result.counterexample;
      const first = failures.get(plan);
      const again = await runPlan(adapter, plan);
      const verdict = again.ok ? first : again;
      const problem = !verdict
        ? `the property failed without a verdict (${String(result.errorInstance ?? "no error")})`
        : again.ok
          ? `${verdict.problem} (this plan failed once and passed when run again: the failure depends on timing)`
          : verdict.problem;
      stats[verdict?.kind === "crash" ? "crashes" : "violations"] = 1;
      stats.counterexample = `${adapter.lesson.id} (seed ${result.seed}, shrunk after ${result.numShrinks} steps): ${problem}\n  plan:${fc.stringify(plan)}`;
    }
    return stats;
  } finally {
    output.write = restore;
  }
}
