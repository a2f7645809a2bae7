/**
 * The net under the rules: the graded loop and the reference solution, driven through the same
 * scenarios, must do the same things (runtime/differential.ts says what is compared and what is
 * left out). A lesson's test file registers it with one line, last:
 *
 *   differentialNet("s05");
 *
 * Two tests:
 *   - the lesson's own task: `demo(llm)` of the graded lesson beside the reference's, each on a
 *     fresh scripted model (the lesson's scenario, in its own scratch workspace);
 *   - generated model answers: fast-check plans (scripts/reliability/plan.ts: text, thinking, one
 *     or several calls per turn, the same call twice, unknown tools, input that breaks the schema,
 *     tools that fail, hang, return huge or binary output, every stop_reason, empty content, the
 *     same turn repeated) with the API's faults between them (a 429 or 529 the SDK retries, a 429
 *     it gives up on, a stream cut mid-answer for a loop that streams), each played to both loops
 *     by a scripted model that answers by turn.
 *     The seed is fixed per lesson, so a verdict is the same each time; a difference is shrunk to
 *     a small plan (a bounded number of steps) and shown as turns.
 *
 * The graded loop is loaded the way a learner's files load: the lesson's own files from the
 * graded tree (lessons/, or COURSE_TREE_DIR), every earlier lesson's from solutions/ (the loaders
 * of scripts/reliability/lessons.ts). A difference fails with a `net-*` rule, which ranks after
 * every rule of the lesson (runtime/rules.ts): a rule test that fails still leads the verdict.
 */
import { existsSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type Anthropic from "@anthropic-ai/sdk";
import fc from "fast-check";
import { describe, it } from "vitest";
import { withinRunningTime } from "../../runtime/clock.ts";
import { compareRuns, type Difference, type RunRecord } from "../../runtime/differential.ts";
import { TodoError } from "../../runtime/lesson.ts";
import { findLesson, type Lesson } from "../../runtime/manifest.ts";
import { RuleError, ROOT, errorText, gradedTree, gradedTreeDir, loadLesson, scripted } from "../../runtime/testing.ts";
import { FUZZ_TASK } from "../../scripts/reliability/fuzz.ts";
import { adapterFor, fuzzTools, importSolution, type LessonAdapter, type LoopResult, type ModuleLoader, type Ran } from "../../scripts/reliability/lessons.ts";
import { describePlan, planArb, planFaults, planScenario, TOOL_NAMES, type Plan } from "../../scripts/reliability/plan.ts";

export interface NetOptions {
  /** Generated cases per check (default 24; 6 when the tree graded is solutions/ itself). */
  runs?: number;
  /** Run the lesson's own task (its `demo`) too (default yes). */
  task?: boolean;
  /** Run generated model answers (default yes, where the lesson has a loop the fuzzer knows). */
  generated?: boolean;
  /**
   * More options for the loop on generated answers, the same for both loops (s19: hooks on some
   * of the generated tools, so its gate and its notes are in the runs compared).
   */
  extra?: Record<string, unknown>;
}

/** How long one run may take before it counts as a loop that did not return (far above any run's need). */
const RUN_LIMIT_MS = 10_000;
const NOT_RETURNED = "did not return within";
/** At most this many shrink steps after a difference is found (each runs both loops). */
const SHRINK_STEPS = 60;
/**
 * How many more times the reference runs on a case before yours is said to differ from it. Where
 * timing has a say (two children at once, a job's output, a busy machine), the reference itself
 * may end a case in more than one way; yours passes when it does what one of its runs did, and
 * fails only when it differs from every one. A case the reference always ends the same way (most)
 * costs nothing more: the extra runs start only after a difference.
 */
const REFERENCE_RETRIES = 3;

/** `reference()` again, up to REFERENCE_RETRIES times, until a run agrees with `yours`: null then, else the first difference. */
export async function againstReference(first: RunRecord, yours: RunRecord, reference: () => Promise<RunRecord>): Promise<Difference | null> {
  const d = compareRuns(first, yours);
  if (d === null) return null;
  for (let i = 0; i < REFERENCE_RETRIES; i++) if (compareRuns(await reference(), yours) === null) return null;
  return d;
}

type Mod = Record<string, unknown>;

/** The graded lesson's files from the graded tree, earlier lessons' from solutions/ (a learner's imports). */
export function learnerLoader(lesson: Lesson): ModuleLoader {
  return async (dir, file) => {
    if (dir !== lesson.dir) return importSolution(dir, file);
    const base = gradedTreeDir() ?? join(ROOT, gradedTree());
    return existsSync(join(base, dir, file)) ? loadLesson<Mod>(dir, file) : null;
  };
}

/**
 * What differs between two correct runs by nature, read the same in both: the paths of scratch
 * folders (each run has its own) and times (a test runner's "duration_ms 12.3", "took 40ms").
 */
/** The temp folder as it is NOW: each test file of the learner's suite sets its own (tests/leftovers.each.ts). */
const scratchPaths = () => new RegExp(`${tmpdir().replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}/[^/\\s"'\\\\]+`, "g");
const TIMES = /\b(duration_ms:?\s*)[\d.]+|\b\d+(?:\.\d+)?\s?(?:ms|s)\b/g;
const scrub = <T>(v: T): T => JSON.parse(JSON.stringify(v ?? null).replace(scratchPaths(), "<scratch>").replace(TIMES, (_m, lead?: string) => `${lead ?? ""}<time>`)) as T;

/** Runs `work` with a limit on this process's running time: a loop that does not return is recorded as such. */
const limited = <T>(work: Promise<T>): Promise<T> => withinRunningTime(work, RUN_LIMIT_MS, () => new Error(`${NOT_RETURNED} ${RUN_LIMIT_MS / 1000} s`));

const resultWords = (r: LoopResult): string =>
  r.kind === "message" ? `a final message with stop_reason ${String(r.message?.stop_reason)}` : `an Outcome { status: "${r.status}"${r.reason ? `, reason: "${r.reason}"` : ""} }`;

/** One generated plan through one loop, recorded. */
async function recordPlan(adapter: LessonAdapter, plan: Plan, extra: Record<string, unknown> = {}): Promise<RunRecord> {
  const ran: Ran[] = [];
  const tools = fuzzTools(adapter.space.toolKinds, ran);
  // The SDK retries twice (a 429 or 529 of the plan's faults), as a lesson's client does.
  const llm = scripted({ scenario: planScenario(plan), maxRequests: 40, ...(plan.faults ? { faults: planFaults(plan) } : {}) }, { maxRetries: 2 });
  const history: Anthropic.MessageParam[] = [{ role: "user", content: FUZZ_TASK }];
  // The events of a loop that emits them (s09 on); a loop that takes no onEvent ignores it.
  const events: unknown[] = [];
  let end: RunRecord["end"];
  try {
    end = { kind: "returned", result: resultWords(await limited(adapter.run(llm, history, tools, { extra: { ...extra, onEvent: (e: unknown) => events.push(e) } }))) };
  } catch (e) {
    if (e instanceof TodoError) throw e;
    end = { kind: "threw", error: errorText(e) };
  }
  return scrub({
    requests: llm.scripted.exchanges.map((e) => e.request),
    history,
    end,
    // The calls that ran: every one, or in a streaming loop (which may start a read-only call
    // early and throw its result away) those that change things.
    effects: ran.filter((r) => !adapter.claims.streaming || !r.readOnly).map((r) => `the call n=${r.n}${r.readOnly ? "" : ` (${TOOL_NAMES.write})`}`),
    stillRunning: ran.filter((r) => !r.ended).map((r) => `the call n=${r.n}`),
    events,
  });
}

/** The lesson's own task, through its `demo(llm)`, recorded. */
async function recordDemo(mod: Mod): Promise<RunRecord> {
  const demo = mod.demo as ((llm: unknown) => Promise<unknown>) | undefined;
  if (typeof demo !== "function") throw new Error("the lesson's agent.ts exports no demo(llm): restore it with `npm run reset`");
  // The SDK's own retries, as the lesson runs them; each run on a fresh model.
  const llm = scripted({ maxRequests: 100 }, { maxRetries: 2 });
  let history: unknown = [];
  let end: RunRecord["end"];
  try {
    history = await limited(demo(llm));
    end = { kind: "returned", result: "its transcript" };
  } catch (e) {
    if (e instanceof TodoError) throw e;
    end = { kind: "threw", error: errorText(e) };
  }
  const messages = Array.isArray(history) ? history : [];
  return scrub({ requests: llm.scripted.exchanges.map((e) => e.request), history: messages, end });
}

const fail = (d: Difference, after = "") => new RuleError(d.rule, `${d.message}${after}`);

/** How many times a generated case that differed is run again before its difference counts. */
export const REPLAYS = 3;

/**
 * A case that differed, run again (both loops, as the property ran it) up to `times` times: the
 * first difference that comes back, or null when none does. A loop whose difference is its own
 * comes back on the first run; one that only a loaded machine's timing made differ does not.
 */
export async function replayed<P>(differ: (plan: P) => Promise<Difference | null>, plan: P, times = REPLAYS): Promise<Difference | null> {
  for (let i = 0; i < times; i++) {
    const d = await differ(plan);
    if (d) return d;
  }
  return null;
}

/** Registers the net's tests for one lesson (call it last in the lesson's test file). */
export function differentialNet(id: string, opts: NetOptions = {}): void {
  const lesson = findLesson(id);
  if (!lesson) throw new Error(`differentialNet: no lesson ${id} in runtime/manifest.ts`);
  const n = Number(lesson.id.slice(1));
  const seed = 20_261_202 + n;
  // Graded on the reference itself (`npm test`), the net only shows that a run is the same each
  // time (nothing the projection keeps depends on timing): a few cases do, and keep the suite fast.
  const self = gradedTreeDir() === undefined && gradedTree() === "solutions";
  const runs = self ? Math.min(6, opts.runs ?? 24) : (opts.runs ?? 24);
  describe("the net: your loop beside the reference", () => {
    if (opts.task !== false)
      it("does on the lesson's own task what the reference does", async () => {
        const refMod = (await importSolution(lesson.dir, lesson.entry))!;
        const ref = await recordDemo(refMod);
        const yours = await recordDemo((await learnerLoader(lesson)(lesson.dir, lesson.entry)) ?? {});
        const d = await againstReference(ref, yours, () => recordDemo(refMod));
        if (d) throw fail(d, `\n(on the lesson's own task, \`npm run lesson ${lesson.id}\` offline; run it with --solution to see the reference's)`);
      });
    if (opts.generated !== false)
      it("does on generated model answers what the reference does", async () => {
        const reference = await adapterFor(lesson);
        const graded = await adapterFor(lesson, learnerLoader(lesson));
        if (!reference || !graded) throw new Error(`${lesson.id}: no loop the net knows how to call (agentLoop or runAgent)`);
        // A loop that does not return on a case is reported on that case at once (no shrinking:
        // each step would wait out the limit again).
        let hung: { plan: Plan; d: Difference } | undefined;
        // The generated answers, with the API's faults between them: the SDK's retries (429, 529)
        // under every loop, a 429 it gives up on, and for a loop that streams, a cut stream.
        const space = { ...reference.space, faults: true, streamFaults: reference.claims.streaming };
        const differ = async (plan: Plan) => {
          const yours = await recordPlan(graded, plan, opts.extra);
          const again = () => recordPlan(reference, plan, opts.extra);
          const d = await againstReference(await again(), yours, again);
          if (d && yours.end.kind === "threw" && yours.end.error.startsWith(NOT_RETURNED)) hung ??= { plan, d };
          return d;
        };
        const out = await fc.check(
          fc.asyncProperty(fc.limitShrink(planArb(space), SHRINK_STEPS), async (plan) => hung !== undefined || (await differ(plan)) === null),
          { numRuns: runs, seed },
        );
        if (hung) throw fail(hung.d, `\nthe model's answers, turn by turn (seed ${seed}):${describePlan(hung.plan)}`);
        if (!out.failed) return;
        if (out.errorInstance instanceof TodoError) throw out.errorInstance;
        const [plan] = out.counterexample ?? [];
        const d = plan ? await replayed(differ, plan) : null;
        // A difference that never came back in REPLAYS runs of its case was the machine's timing (a
        // loaded CI machine), not the loop. A property that threw (not a difference) is reported as it is.
        if (!d && plan && out.errorInstance instanceof Error && /returning false/.test(out.errorInstance.message)) return;
        if (!d) throw new Error(`the net: a generated case failed but does not fail again (seed ${seed}): ${errorText(out.errorInstance)}`);
        throw fail(d, `\nthe model's answers, turn by turn (a small case, found among ${runs} generated ones, seed ${seed}):${describePlan(plan!)}`);
        // Two loops on every case, and after a difference up to SHRINK_STEPS more: more than the
        // runner's minute per test on a busy machine. A loop that does not return is bounded by
        // RUN_LIMIT_MS on each case, so this is a bound, not a verdict.
      }, 300_000);
  });
}
