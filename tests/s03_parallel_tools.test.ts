/**
 * s03_parallel_tools: the calls of one turn, run together when they may. Grades lessons/ or
 * solutions/ (COURSE_TREE). Instrumented tools record when each call starts and ends, so the
 * tests prove what ran at the same time, what never overlapped, and that the answer keeps the
 * order the model asked in, whatever order the calls finished in.
 */
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import type Anthropic from "@anthropic-ai/sdk";
import fc from "fast-check";
import { describe, it } from "vitest";
import { call, say, steps, text } from "../runtime/scripted/scenarios/script.ts";
import { S03_SAMPLE, S03_TASK } from "../runtime/scripted/scenarios/s03_parallel_tools.ts";
import type { Scenario } from "../runtime/scripted/types.ts";
import { RuleError, assertProperty, callsIn, driveLoop, errorText, expectSendable, loadLesson, resultFor, resultsIn, rule, scripted, textIn } from "../runtime/testing.ts";
import { OTHER_STOPS, expectStopsAt, naming, quietLessonFile } from "./support.ts";
import { scratchCopy } from "../runtime/tools/files.ts";
import { ToolRegistry, defaultTools, type ToolSpec } from "../solutions/s02_tool_dispatch/registry.ts";

type Agent = typeof import("../solutions/s03_parallel_tools/agent.ts");
type RunTools = typeof import("../solutions/s03_parallel_tools/run-tools.ts");
const lesson = await loadLesson<Agent>("s03_parallel_tools");
const { runTools } = await loadLesson<RunTools>("s03_parallel_tools", "run-tools.ts");

const keep = quietLessonFile();

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

interface Span {
  label: string;
  tool: string;
  start: number;
  end: number;
}

/**
 * Two tools that take `ms` milliseconds and record their span: `look` (read-only) and `change`
 * (not read-only). Their input is { label, ms }; each answers "<tool> <label>".
 */
function timedTools() {
  const spans: Span[] = [];
  const timed = (name: string, readOnly: boolean): ToolSpec => ({
    name,
    description: `${name}, takes input.ms milliseconds`,
    input_schema: { type: "object", properties: { label: { type: "string" }, ms: { type: "number" } } },
    readOnly,
    run: async (input) => {
      const span: Span = { label: String(input.label), tool: name, start: performance.now(), end: Number.NaN };
      spans.push(span);
      await sleep(Number(input.ms ?? 0));
      span.end = performance.now();
      return `${name} ${span.label}`;
    },
  });
  const registry = new ToolRegistry([timed("look", true), timed("change", false)]);
  const span = (label: string) => {
    const s = spans.find((x) => x.label === label);
    if (!s) throw new RuleError("unanswered-tool-use", `the call "${label}" never ran: run every call of the turn ${WHERE}.`);
    return s;
  };
  return { registry, spans, span };
}

/**
 * Ids as the API makes them: random strings, so their sort order says nothing about the order
 * of the calls (a loop that sorts results by id must fail). Deterministic, for a stable check.
 */
let nextId = 0;
const ALPHABET = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";
function apiLikeId(n: number): string {
  let x = Math.imul(n + 1, 0x9e3779b1);
  let id = "toolu_01";
  for (let k = 0; k < 22; k++) {
    x = Math.imul(x ^ (x >>> 15), 0x85ebca6b) + k;
    x >>>= 0;
    id += ALPHABET[x % ALPHABET.length];
  }
  return id;
}
const use = (name: string, input: Record<string, unknown>): Anthropic.ToolUseBlock =>
  ({ type: "tool_use", id: apiLikeId(nextId++), name, input, caller: { type: "direct" } }) as Anthropic.ToolUseBlock;
const look = (label: string, ms: number) => use("look", { label, ms });
const change = (label: string, ms: number) => use("change", { label, ms });
const contentOf = (r: Anthropic.ToolResultBlockParam | undefined) => textIn(r?.content);
const overlap = (a: Span, b: Span) => a.start < b.end && b.start < a.end;
const WHERE = "(runTools / batches in lessons/s03_parallel_tools/run-tools.ts)";

/** runTools, a throw turned into the rule it breaks. */
async function run(registry: ToolRegistry, calls: Anthropic.ToolUseBlock[]) {
  try {
    return await runTools(registry, calls);
  } catch (e) {
    const unknown = calls.some((c) => !registry.get(c.name));
    throw new RuleError(unknown ? "unknown-tool" : "loop-threw", `runTools threw on the calls [${calls.map((c) => c.name).join(", ")}]: ${errorText(e)}${unknown ? ". A call to a tool that is not in the registry is not read-only: it runs alone, and dispatch answers it with is_error" : ""} ${WHERE}.`);
  }
}

/** Every call answered once, under its id, in the order asked (the lesson's promise). */
function expectAnsweredInOrder(calls: Anthropic.ToolUseBlock[], results: Anthropic.ToolResultBlockParam[]) {
  const ids = new Set(results.map((r) => r.tool_use_id));
  const missing = calls.filter((c) => !ids.has(c.id));
  rule(missing.length === 0, "unanswered-tool-use", () => `runTools returned ${results.length} result(s) for ${calls.length} call(s); no result for ${missing.map((c) => `${c.id} (${c.name} ${String(c.input && (c.input as { label?: unknown }).label)})`).join(", ")}: answer every call of the turn ${WHERE}.`);
  rule(results.length === calls.length, "duplicate-result", `runTools returned ${results.length} results for ${calls.length} calls: one result per call.`);
  const got = results.map((r) => r.tool_use_id).join(", ");
  rule(got === calls.map((c) => c.id).join(", "), "results-in-order", `the results come in the order [${results.map((r) => calls.findIndex((c) => c.id === r.tool_use_id)).join(", ")}] of the calls: return them in the order the model asked (0, 1, 2, …), whatever order they finish in ${WHERE}.`);
  calls.forEach((c, i) => {
    const want = `${c.name} ${String((c.input as { label?: unknown }).label)}`;
    if (knownTool(c)) rule(contentOf(results[i]) === want, "result-by-id", `the result for ${c.id} says ${JSON.stringify(contentOf(results[i]))}: each call's own output ("${want}") goes under its id.`);
  });
}
const knownTool = (c: Anthropic.ToolUseBlock) => c.name === "look" || c.name === "change";

describe("s03 runTools", () => {
  it("runs three read-only calls of 200 ms at the same time: each starts before any ends", async () => {
    const { registry, span } = timedTools();
    const calls = [look("a", 200), look("b", 200), look("c", 200)];
    const results = await run(registry, calls);
    expectAnsweredInOrder(calls, results);
    // The order of the starts and ends proves it, however busy the machine: one after another,
    // the second call would start only after the first ended.
    const [a, b, c] = [span("a"), span("b"), span("c")];
    rule(Math.max(a.start, b.start, c.start) < Math.min(a.end, b.end, c.end), "concurrency", `three read-only calls ran one after another (the last started ${Math.round(Math.max(a.start, b.start, c.start) - a.start)} ms after the first): start the calls of a read-only batch together (Promise.all) ${WHERE}.`);
  });

  it("never runs two writes at the same time, and runs them in the order asked", async () => {
    const { registry, span } = timedTools();
    const calls = [change("first", 120), change("second", 20)];
    const results = await run(registry, calls);
    const [first, second] = [span("first"), span("second")];
    rule(!overlap(first, second) && second.start >= first.end, "concurrency", `the two writes overlapped (the second started ${Math.round(second.start - first.start)} ms after the first, which took 120 ms): a call that is not read-only runs alone, after the one before it ${WHERE}.`);
    expectAnsweredInOrder(calls, results);
  });

  it("answers in the order asked even when a later call finishes first", async () => {
    const { registry, span } = timedTools();
    const calls = [look("slow", 150), look("fast", 10)];
    const results = await run(registry, calls);
    rule(span("fast").end < span("slow").end, "concurrency", `the fast read waited for the slow one: two neighbouring read-only calls run together ${WHERE}.`);
    expectAnsweredInOrder(calls, results);
  });

  it("keeps a write between the reads before it and the reads after it", async () => {
    const { registry, span } = timedTools();
    const calls = [look("r1", 60), look("r2", 60), change("w", 30), look("r3", 10)];
    const results = await run(registry, calls);
    const [r1, r2, w, r3] = ["r1", "r2", "w", "r3"].map(span) as [Span, Span, Span, Span];
    rule(w.start >= Math.max(r1.end, r2.end), "concurrency", `the write w (call 2) started before the reads r1 and r2 asked before it had finished: a write waits for everything before it ${WHERE}.`);
    rule(r3.start >= w.end, "concurrency", `the read r3 (call 3) started before the write w (call 2) had finished: a read after a write waits for it, it may need what the write changed ${WHERE}.`);
    rule(overlap(r1, r2), "concurrency", `r1 and r2 are read-only neighbours and ran one after the other: run them together ${WHERE}.`);
    expectAnsweredInOrder(calls, results);
  });

  it("answers an unknown tool in its place, with is_error, and runs the rest", async () => {
    const { registry } = timedTools();
    const calls = [look("a", 5), use("no_such_tool", {}), look("b", 5)];
    const results = await run(registry, calls);
    expectAnsweredInOrder(calls, results);
    const errors = results.map((r) => Boolean(r.is_error)).join(", ");
    rule(errors === "false, true, false", "unknown-tool", `the results' is_error are [${errors}]: only the call to the unknown tool (call 1) is an error.`);
  });

  it("property: any mix of calls is answered in order, writes overlap nothing, read-only neighbours run together", async () => {
    const callArb = fc.record({ readOnly: fc.boolean(), ms: fc.integer({ min: 0, max: 6 }) });
    await assertProperty(
      fc.asyncProperty(fc.array(callArb, { minLength: 1, maxLength: 6 }), async (plan) => {
        const { registry, span } = timedTools();
        const calls = plan.map((p, i) => (p.readOnly ? look(`c${i}`, p.ms) : change(`c${i}`, p.ms)));
        const results = await run(registry, calls);
        const spans = plan.map((_, i) => span(`c${i}`));
        const kinds = plan.map((p, i) => `${i}:${p.readOnly ? "read" : "write"}`).join(" ");
        for (let i = 0; i < plan.length; i++)
          for (let j = i + 1; j < plan.length; j++) {
            const [a, b] = [spans[i]!, spans[j]!];
            const sameReadOnlyRun = plan.slice(i, j + 1).every((p) => p.readOnly);
            if (sameReadOnlyRun) rule(b.start < a.end, "concurrency", `calls [${kinds}]: calls ${i} and ${j} are neighbouring reads, and ${j} started only after ${i} ended: run them together ${WHERE}.`);
            else rule(b.start >= a.end, "concurrency", `calls [${kinds}]: call ${j} started before call ${i} finished, but a write sits between or among them: a write runs alone, in its place ${WHERE}.`);
          }
        expectAnsweredInOrder(calls, results);
      }),
      { numRuns: 40 },
      "concurrency",
    );
  });
});

/** Every call of the default tasks works in the workspace it is given: an error result means a call went astray. */
function expectNoErrors(history: Anthropic.MessageParam[]): void {
  history.forEach((m, i) =>
    resultsIn(m).forEach((r) => {
      const c = callsIn(history[i - 1]).find((x) => x.id === r.tool_use_id);
      rule(r.is_error !== true, "dispatch", `history[${i}] answers ${c?.name ?? r.tool_use_id} with an error: ${JSON.stringify(contentOf(r).split("\n")[0]?.slice(0, 100))}. Dispatch each call with the context runTools is given (its ctx: the workspace root) ${WHERE}.`);
    }),
  );
}

/** Runs the lesson's loop through driveLoop: the pairing rules and "sent again" are checked after it. */
async function runLoop(scenario: Scenario | undefined, task: string, registry: ToolRegistry, root = process.cwd()) {
  const llm = scripted(scenario ? { scenario } : {});
  const history: Anthropic.MessageParam[] = [{ role: "user", content: task }];
  const final = await driveLoop(llm, history, naming(() => lesson.agentLoop(llm, history, registry, { root })));
  return { llm, history, final };
}

describe("s03 the loop", () => {
  for (const stop of OTHER_STOPS)
    it(`stops at stop_reason ${stop} without running the tool_use in it`, async () => {
      await expectStopsAt(stop, (llm, history) => lesson.agentLoop(llm, history, undefined, { root: process.cwd() }), "list_files", { path: "." });
    });

  it("runs the failing-login task: the test run, three reads in parallel, then edit and re-run in order", async () => {
    const root = await scratchCopy(S03_SAMPLE);
    keep(root);
    const { history, final } = await runLoop(undefined, S03_TASK, new ToolRegistry(defaultTools()), root);

    expectNoErrors(history);
    const roles = history.map((m) => m.role).join(", ");
    rule(history.length === 8, "dispatch", `the history is [${roles}]: three turns of calls, each answered in ONE user message, and the answer make 8 messages; the model went off course after history[${history.length - 2}]'s results.`);
    const asked = callsIn(history[3]);
    const reads = resultsIn(history[4]);
    rule(reads.map((r) => r.tool_use_id).join() === asked.map((c) => c.id).join(), "results-in-order", `history[4] answers [${reads.map((r) => r.tool_use_id).join(", ")}]; history[3] asked [${asked.map((c) => c.id).join(", ")}]: answer in the order asked.`);
    rule(contentOf(reads[1]).includes("MAX_FAILED_ATTEMPTS"), "result-by-id", `the result for ${asked[1]?.id} (read_file) does not hold the file it read: each output under its own call's id.`);
    // The test run saw the edit: the two non-read-only calls ran in the order asked.
    rule((await readFile(join(root, "src/login.js"), "utf8")).includes("attempts >= MAX_FAILED_ATTEMPTS"), "concurrency", "the edit_file of history[5] did not change src/login.js: run each call that is not read-only, in order.");
    const rerun = resultFor(history, callsIn(history[5])[1]?.id ?? "");
    rule(contentOf(rerun).includes("# fail 0"), "concurrency", `the test run after the edit (history[5], second call) says ${JSON.stringify(contentOf(rerun).slice(0, 80))}: it must run after the edit, not at the same time.`);
    rule(final?.stop_reason === "end_turn", "stop-when-done", `agentLoop returned stop_reason ${JSON.stringify(final?.stop_reason)}: return the model's last response.`);
  });

  it("answers three parallel calls in ONE user message, in order, having run them at the same time", async () => {
    const { registry, span } = timedTools();
    const scenario: Scenario = {
      id: "test-three-reads",
      title: "three slow read-only calls in one turn",
      reply: steps(
        // Ids that sort against the order asked (the API's ids are random): the answer keeps the order of the calls.
        () => ({ content: [text("Three at once."), { ...call("look", { label: "x", ms: 200 }), id: "toolu_01Zx9" }, { ...call("look", { label: "y", ms: 100 }), id: "toolu_01Mb4" }, { ...call("look", { label: "z", ms: 10 }), id: "toolu_01Aa7" }] }),
        (ctx) => say(`Got ${ctx.results.map((r) => ctx.resultText(r)).join(", ")}.`),
      ),
    };
    const { history, final } = await runLoop(scenario, "three at once", registry);
    rule(history.length === 4, "dispatch", `the history is [${history.map((m) => m.role).join(", ")}]: one turn of three calls, its results in ONE user message, and the answer make 4 messages.`);
    const [x, y, z] = [span("x"), span("y"), span("z")];
    rule(Math.max(x.start, y.start, z.start) < Math.min(x.end, y.end, z.end), "concurrency", "the loop ran the three read-only calls one after another: hand them to runTools, which starts them together.");
    rule(textIn(final?.content) === "Got look x, look y, look z.", "results-in-order", `the model read ${JSON.stringify(textIn(final?.content))}: the results must come in the order asked (x, y, z).`);
  });

  it("demo() runs the default task offline and returns a transcript that can be sent again", async () => {
    const llm = scripted();
    const history = await lesson.demo(llm);
    await expectSendable(llm, history);
    expectNoErrors(history);
    rule(history.length === 8, "dispatch", `demo() returned ${history.length} messages; the default task takes 8.`);
  });
});

// The net under the rules: this lesson beside the reference, on its own task and on generated
// model answers (tests/differential/net.ts).
import { differentialNet } from "./differential/net.ts";
differentialNet("s03");
