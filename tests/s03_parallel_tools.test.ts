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
import { describe, expect, it } from "vitest";
import { call, say, steps, text } from "../runtime/scripted/scenarios/script.ts";
import { S03_SAMPLE, S03_TASK } from "../runtime/scripted/scenarios/s03_parallel_tools.ts";
import type { Scenario } from "../runtime/scripted/types.ts";
import { loadLesson, scripted , expectSendable , textIn , assertProperty } from "../runtime/testing.ts";
import { quietLessonFile } from "./support.ts";
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
    if (!s) throw new Error(`the call "${label}" never ran`);
    return s;
  };
  return { registry, spans, span };
}

let nextId = 0;
const use = (name: string, input: Record<string, unknown>): Anthropic.ToolUseBlock =>
  ({ type: "tool_use", id: `toolu_s03_${nextId++}`, name, input, caller: { type: "direct" } }) as Anthropic.ToolUseBlock;
const look = (label: string, ms: number) => use("look", { label, ms });
const change = (label: string, ms: number) => use("change", { label, ms });
const contentOf = (r: Anthropic.ToolResultBlockParam) => textIn(r.content);
const overlap = (a: Span, b: Span) => a.start < b.end && b.start < a.end;

describe("s03 runTools", () => {
  it("runs three read-only calls of 200 ms at the same time: each starts before any ends", async () => {
    const { registry, span } = timedTools();
    const calls = [look("a", 200), look("b", 200), look("c", 200)];
    const results = await runTools(registry, calls);
    // The order of the starts and ends proves it, however busy the machine: one after another,
    // the second call would start only after the first ended.
    const [a, b, c] = [span("a"), span("b"), span("c")];
    expect(Math.max(a.start, b.start, c.start), "every read-only call must start before the first one ends").toBeLessThan(Math.min(a.end, b.end, c.end));
    expect(results.map((r) => r.tool_use_id)).toEqual(calls.map((x) => x.id));
  });

  it("never runs two writes at the same time, and runs them in the order asked", async () => {
    const { registry, span } = timedTools();
    const calls = [change("first", 120), change("second", 20)];
    const results = await runTools(registry, calls);
    const [first, second] = [span("first"), span("second")];
    expect(overlap(first, second), "two calls that are not read-only overlapped").toBe(false);
    expect(second.start, "the second write started before the first had finished").toBeGreaterThanOrEqual(first.end);
    expect(results.map(contentOf)).toEqual(["change first", "change second"]);
  });

  it("answers in the order asked even when a later call finishes first", async () => {
    const { registry, span } = timedTools();
    const calls = [look("slow", 150), look("fast", 10)];
    const results = await runTools(registry, calls);
    expect(span("fast").end).toBeLessThan(span("slow").end); // they really ran together
    expect(results.map((r) => r.tool_use_id)).toEqual(calls.map((x) => x.id));
    expect(results.map(contentOf)).toEqual(["look slow", "look fast"]);
  });

  it("keeps a write between the reads before it and the reads after it", async () => {
    const { registry, span } = timedTools();
    const calls = [look("r1", 60), look("r2", 60), change("w", 30), look("r3", 10)];
    const results = await runTools(registry, calls);
    const [r1, r2, w, r3] = ["r1", "r2", "w", "r3"].map(span) as [Span, Span, Span, Span];
    expect(overlap(r1, r2), "r1 and r2 are read-only neighbours: they should run together").toBe(true);
    expect(w.start).toBeGreaterThanOrEqual(Math.max(r1.end, r2.end));
    expect(r3.start).toBeGreaterThanOrEqual(w.end);
    expect(results.map(contentOf)).toEqual(["look r1", "look r2", "change w", "look r3"]);
  });

  it("answers an unknown tool in its place, with is_error, and runs the rest", async () => {
    const { registry } = timedTools();
    const calls = [look("a", 5), use("no_such_tool", {}), look("b", 5)];
    const results = await runTools(registry, calls);
    expect(results.map((r) => r.tool_use_id)).toEqual(calls.map((x) => x.id));
    expect(results.map((r) => Boolean(r.is_error))).toEqual([false, true, false]);
  });

  it("property: any mix of calls is answered in order, writes overlap nothing, read-only neighbours run together", async () => {
    const callArb = fc.record({ readOnly: fc.boolean(), ms: fc.integer({ min: 0, max: 6 }) });
    await assertProperty(
      fc.asyncProperty(fc.array(callArb, { minLength: 1, maxLength: 6 }), async (plan) => {
        const { registry, span } = timedTools();
        const calls = plan.map((p, i) => (p.readOnly ? look(`c${i}`, p.ms) : change(`c${i}`, p.ms)));
        const results = await runTools(registry, calls);
        expect(results.map((r) => r.tool_use_id)).toEqual(calls.map((x) => x.id));
        const spans = plan.map((_, i) => span(`c${i}`));
        for (let i = 0; i < plan.length; i++)
          for (let j = i + 1; j < plan.length; j++) {
            const [a, b] = [spans[i]!, spans[j]!];
            const sameReadOnlyRun = plan.slice(i, j + 1).every((p) => p.readOnly);
            if (sameReadOnlyRun) expect(b.start, `calls ${i} and ${j} are neighbouring reads: ${j} must start before ${i} ends`).toBeLessThan(a.end);
            else expect(b.start, `call ${j} started before call ${i} finished, but a write sits between or among them`).toBeGreaterThanOrEqual(a.end);
          }
      }),
      { numRuns: 40 },
    );
  });
});

describe("s03 the loop", () => {
  it("runs seed 000's task: the test run, three reads in parallel, then edit and re-run in order", async () => {
    const root = await scratchCopy(S03_SAMPLE);
    keep(root);
    const llm = scripted();
    const history: Anthropic.MessageParam[] = [{ role: "user", content: S03_TASK }];
    const final = await lesson.agentLoop(llm, history, new ToolRegistry(defaultTools()), { root });
    await expectSendable(llm, history);

    expect(history.map((m) => m.role)).toEqual(["user", "assistant", "user", "assistant", "user", "assistant", "user", "assistant"]);
    const reads = history[4]!.content as Anthropic.ToolResultBlockParam[];
    const asked = (history[3]!.content as Anthropic.ContentBlock[]).filter((b) => b.type === "tool_use");
    expect(reads.map((r) => r.tool_use_id)).toEqual(asked.map((c) => c.id));
    expect(contentOf(reads[1]!)).toContain("MAX_FAILED_ATTEMPTS");
    // The test run saw the edit: the two non-read-only calls ran in the order asked.
    expect(await readFile(join(root, "src/login.js"), "utf8")).toContain("attempts >= MAX_FAILED_ATTEMPTS");
    expect(contentOf((history[6]!.content as Anthropic.ToolResultBlockParam[])[1]!)).toContain("# fail 0");
    expect(final.stop_reason).toBe("end_turn");
  });

  it("answers three parallel calls in ONE user message, in order, having run them at the same time", async () => {
    const { registry, span } = timedTools();
    const scenario: Scenario = {
      id: "test-three-reads",
      title: "three slow read-only calls in one turn",
      reply: steps(
        () => ({ content: [text("Three at once."), call("look", { label: "x", ms: 200 }), call("look", { label: "y", ms: 100 }), call("look", { label: "z", ms: 10 })] }),
        (ctx) => say(`Got ${ctx.results.map((r) => ctx.resultText(r)).join(", ")}.`),
      ),
    };
    const llm = scripted({ scenario });
    const history: Anthropic.MessageParam[] = [{ role: "user", content: "three at once" }];
    const final = await lesson.agentLoop(llm, history, registry, { root: process.cwd() });
    await expectSendable(llm, history);
    expect(history).toHaveLength(4);
    const [x, y, z] = [span("x"), span("y"), span("z")];
    expect(Math.max(x.start, y.start, z.start), "the loop ran the read-only calls one after another").toBeLessThan(Math.min(x.end, y.end, z.end));
    expect(final.content[0]).toMatchObject({ text: "Got look x, look y, look z." });
  });

  it("demo() runs the default task offline and returns a transcript that can be sent again", async () => {
    const llm = scripted();
    const history = await lesson.demo(llm);
    expect(history).toHaveLength(8);
    await expectSendable(llm, history);
  });
});
