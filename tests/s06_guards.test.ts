/**
 * s06_guards: each guard stops the run, and every way of stopping leaves a transcript the API
 * takes again. Grades lessons/ or solutions/ (COURSE_TREE). After each kind of stop the test
 * sends the transcript to the scripted model (transcriptProblems): an unanswered tool_use, an
 * empty message or a broken pair fails with the API's own error.
 */
import type Anthropic from "@anthropic-ai/sdk";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { call, say, steps, text } from "../runtime/scripted/scenarios/script.ts";
import { S06_TASK, S06_WORKSPACE } from "../runtime/scripted/scenarios/s06_guards.ts";
import type { FaultPlan, Scenario } from "../runtime/scripted/types.ts";
import { expectSendable, loadLesson, rule, scripted , assertProperty } from "../runtime/testing.ts";
import { quietLessonFile } from "./support.ts";
import { scratchWorkspace } from "../runtime/tools/files.ts";
import type { ToolContext } from "../solutions/s02_tool_dispatch/registry.ts";
import { SafeToolRegistry, defineTool } from "../solutions/s04_tool_errors/define-tool.ts";
import { checkedTools } from "../solutions/s04_tool_errors/tools.ts";

type Agent = typeof import("../solutions/s06_guards/agent.ts");
type GuardsModule = typeof import("../solutions/s06_guards/guards.ts");
const lesson = await loadLesson<Agent>("s06_guards");
const { DEFAULT_GUARDS, callKey, tokensOf } = await loadLesson<GuardsModule>("s06_guards", "guards.ts");

const keep = quietLessonFile();

async function workspace() {
  const root = await scratchWorkspace(S06_WORKSPACE);
  keep(root);
  return root;
}

/** s04's checked tools, plus `wait` (waits for its signal), recording every call dispatched. */
class Recording extends SafeToolRegistry {
  readonly dispatched: Anthropic.ToolUseBlock[] = [];
  constructor() {
    super([
      ...checkedTools(),
      defineTool({
        name: "wait",
        description: "Waits until stopped.",
        input: z.object({}),
        timeoutMs: 60_000,
        run: (_input, ctx) => new Promise<string>((_ok, fail) => ctx.signal.addEventListener("abort", () => fail(new Error("stopped")))),
      }),
    ]);
  }
  override dispatch(c: Anthropic.ToolUseBlock, ctx?: ToolContext) {
    this.dispatched.push(c);
    return super.dispatch(c, ctx);
  }
}

type Options = NonNullable<Parameters<Agent["runAgent"]>[2]>;

/** Runs the lesson's loop, then sends the transcript again: it must be accepted, whatever the stop. */
async function run(opts: { scenario?: Scenario; faults?: FaultPlan; history?: Anthropic.MessageParam[]; run?: Options } = {}) {
  const llm = scripted({ ...(opts.scenario ? { scenario: opts.scenario } : { scenario: "s06_guards" }), ...(opts.faults ? { faults: opts.faults } : {}) });
  const registry = new Recording();
  const history = opts.history ?? [{ role: "user", content: S06_TASK }];
  const outcome = await lesson.runAgent(llm, history, { registry, root: await workspace(), ...opts.run });
  const responses = [...llm.scripted.responses];
  const requests = llm.scripted.exchanges.length;
  await expectSendable(llm, history);
  return { outcome, history, registry, responses, requests };
}

const reason = (o: { status: string; reason?: string }) => (o.status === "stopped" ? o.reason : "done");

describe("s06 guards: each one stops the run, and the transcript can be sent again", () => {
  it("has a typed default for every guard", () => {
    for (const k of ["maxTurns", "tokenBudget", "timeoutMs", "maxRepeats"] as const) expect(DEFAULT_GUARDS[k]).toBeGreaterThan(0);
  });

  it("max_turns: makes no request past the limit", async () => {
    const { outcome, requests, history } = await run({ run: { guards: { maxTurns: 2 } } });
    expect(reason(outcome)).toBe("max_turns");
    expect(requests).toBe(2);
    expect(outcome.turns).toBe(2);
    expect(history.at(-1)!.role).toBe("user");
  });

  it("repeated_call: the same call with its keys in another order counts as the same; the last is answered, not run", async () => {
    const { outcome, registry, history } = await run();
    expect(reason(outcome)).toBe("repeated_call");
    const polls = registry.dispatched.filter((c) => c.name === "list_files");
    expect(polls, `list_files ran ${polls.length} times; maxRepeats is ${DEFAULT_GUARDS.maxRepeats}`).toHaveLength(DEFAULT_GUARDS.maxRepeats);
    const last = history.at(-1)!.content as Anthropic.ToolResultBlockParam[];
    expect(last[0]).toMatchObject({ type: "tool_result", is_error: true });
  });

  it("repeated_call through the loop: the same tool with DIFFERENT inputs is not a repeat; identical ones are", async () => {
    const n = DEFAULT_GUARDS.maxRepeats + 2;
    const scenario: Scenario = {
      id: "test-different-inputs",
      title: "one tool, a different input each turn, then an answer",
      reply: steps(...Array.from({ length: n }, (_, i) => () => ({ content: [text(`Looking at dir${i}.`), call("list_files", { path: `dir${i}` })] })), () => say("Looked everywhere.")),
    };
    const { outcome, registry } = await run({ scenario, run: { guards: { maxTurns: n + 5 } } });
    rule(
      reason(outcome) === "done",
      "guard-repeat",
      `list_files was called ${n} times, each with a different path, and the loop stopped with "${reason(outcome)}": a repeat is the same tool AND the same input. Key the calls by name and input (callKey), not by name alone.`,
    );
    const ran = registry.dispatched.filter((c) => c.name === "list_files").length;
    rule(ran === n, "guard-repeat", `list_files ran ${ran} of ${n} times: calls with different inputs all run.`);

    const same: Scenario = {
      id: "test-same-input",
      title: "one tool, the same input each turn",
      reply: steps(...Array.from({ length: n }, () => () => ({ content: [text("Again."), call("list_files", { path: "dir0" })] })), () => say("Done.")),
    };
    const again = await run({ scenario: same, run: { guards: { maxTurns: n + 5 } } });
    rule(reason(again.outcome) === "repeated_call", "guard-repeat", `the same list_files call came ${n} times and the loop stopped with "${reason(again.outcome)}": identical calls past maxRepeats (${DEFAULT_GUARDS.maxRepeats}) stop the run with "repeated_call".`);
  });

  it("keeps the defaults of the guards it is not given", async () => {
    const { outcome } = await run({ run: { guards: { maxTurns: 20 } } });
    expect(reason(outcome)).toBe("repeated_call");
  });

  it("timeout: aborts the request in flight and stops (the model would take 60 s)", async () => {
    const { outcome, history, requests } = await run({ faults: [null, { kind: "latency", ms: 60_000 }], run: { guards: { timeoutMs: 300 } } });
    expect(reason(outcome)).toBe("timeout");
    expect(requests, "the second request was under way when the deadline came").toBe(2);
    expect(history.map((m) => m.role)).toEqual(["user", "assistant", "user"]);
  });

  it("timeout: stops a tool that is running, and its call is still answered", async () => {
    const scenario: Scenario = { id: "test-wait", title: "waits", reply: () => ({ content: [text("Waiting."), call("wait", {})] }) };
    const { outcome, history } = await run({ scenario, run: { guards: { timeoutMs: 300 } } });
    expect(reason(outcome)).toBe("timeout");
    const results = history.at(-1)!.content as Anthropic.ToolResultBlockParam[];
    expect(results).toMatchObject([{ type: "tool_result", is_error: true }]);
  });

  it("aborted: the caller's signal stops the run", async () => {
    const controller = new AbortController();
    const pending = run({ faults: [{ kind: "latency", ms: 60_000 }], run: { signal: controller.signal } });
    setTimeout(() => controller.abort(), 100);
    const { outcome, history } = await pending;
    expect(reason(outcome)).toBe("aborted");
    expect(history).toHaveLength(1);
  });

  it("token_budget: counts cache reads and cache writes, not only input and output", async () => {
    // A big first message marked for caching: most of every request's input is cache tokens.
    const big = `Background for the task:\n${"The build writes dist/ready.txt when it is done. ".repeat(400)}`;
    const history: Anthropic.MessageParam[] = [
      { role: "user", content: [{ type: "text", text: big, cache_control: { type: "ephemeral" } }, { type: "text", text: S06_TASK }] },
    ];
    const first = await run({ history: structuredClone(history), run: { guards: { maxTurns: 1 } } });
    const u = first.responses[0]!.usage;
    const cached = (u.cache_creation_input_tokens ?? 0) + (u.cache_read_input_tokens ?? 0);
    expect(cached, "test setup: the scripted model reports cache tokens").toBeGreaterThan(2_000);
    // One turn's input + output alone is far under this budget; with its cache tokens it is over.
    const budget = u.input_tokens + u.output_tokens + 500;
    const { outcome } = await run({ history: structuredClone(history), run: { guards: { tokenBudget: budget, maxRepeats: 50, maxTurns: 5 } } });
    expect(reason(outcome), `a budget of ${budget} is spent after one turn that cost ${tokensOf(u)} tokens (${cached} of them cache)`).toBe("token_budget");
    expect(outcome.turns).toBe(1);
  });

  it("tokensOf adds input, output, cache read and cache creation (null counts as 0)", () => {
    const usage = { input_tokens: 10, output_tokens: 20, cache_read_input_tokens: 300, cache_creation_input_tokens: 4000 } as Anthropic.Usage;
    expect(tokensOf(usage)).toBe(4330);
    expect(tokensOf({ ...usage, cache_read_input_tokens: null, cache_creation_input_tokens: null })).toBe(30);
  });

  it("the model's own stops still end the run as in s05", async () => {
    const scenario: Scenario = { id: "test-done", title: "answers", reply: () => say("Nothing to wait for.") };
    const { outcome } = await run({ scenario });
    expect(outcome.status).toBe("done");
  });
});

describe("s06 callKey: same name and input, whatever the key order", () => {
  it("ignores key order at any depth, and tells different inputs apart", () => {
    const a = callKey({ name: "list_files", input: { path: ".", opts: { deep: true, max: 3 } } });
    const b = callKey({ name: "list_files", input: { opts: { max: 3, deep: true }, path: "." } });
    expect(a).toBe(b);
    expect(callKey({ name: "list_files", input: { path: "src" } })).not.toBe(callKey({ name: "list_files", input: { path: "." } }));
    expect(callKey({ name: "read_file", input: { path: "." } })).not.toBe(callKey({ name: "list_files", input: { path: "." } }));
  });

  it("property: any object, its keys shuffled, gives the same key", () => {
    const shuffle = (v: unknown, seed: number): unknown => {
      if (Array.isArray(v)) return v.map((x) => shuffle(x, seed));
      if (v && typeof v === "object") {
        const entries = Object.entries(v).map(([k, x]) => [k, shuffle(x, seed)] as const);
        const rotated = entries.map((_, i) => entries[(i + seed) % entries.length]!);
        return Object.fromEntries(seed % 2 ? rotated.reverse() : rotated);
      }
      return v;
    };
    assertProperty(
      fc.property(fc.dictionary(fc.string(), fc.jsonValue()), fc.nat(10), (input, seed) => {
        expect(callKey({ name: "t", input: shuffle(input, seed) })).toBe(callKey({ name: "t", input }));
      }),
    );
  });
});

describe("s06 property: whatever the guards and the model do, every stop leaves a sendable transcript", () => {
  it("holds for random guards and random turns", async () => {
    const turn = fc.constantFrom("poll", "two", "answer", "empty", "refuse");
    await assertProperty(
      fc.asyncProperty(
        fc.record({ maxTurns: fc.integer({ min: 1, max: 5 }), maxRepeats: fc.integer({ min: 1, max: 3 }), tokenBudget: fc.integer({ min: 300, max: 4_000 }) }),
        fc.array(turn, { minLength: 1, maxLength: 6 }),
        async (guards, script) => {
          const scenario: Scenario = {
            id: "test-random-guards",
            title: "random",
            reply: (ctx) => {
              switch (script[Math.min(ctx.requestIndex, script.length - 1)]) {
                case "poll":
                  return { content: [call("list_files", { path: ".", pattern: "x" })] };
                case "two":
                  return { content: [text("Two."), call("read_file", { path: "README.md" }), call("list_files", { pattern: "x", path: "." })] };
                case "empty":
                  return { content: [], stop_reason: "end_turn" };
                case "refuse":
                  return { content: [call("list_files", {})], stop_reason: "refusal" };
                default:
                  return say("Done.");
              }
            },
          };
          const { outcome } = await run({ scenario, run: { guards } });
          expect(outcome.turns).toBeLessThanOrEqual(guards.maxTurns);
        },
      ),
      { numRuns: 30 },
    );
  });
});
