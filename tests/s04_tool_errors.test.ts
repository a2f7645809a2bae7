/**
 * s04_tool_errors: every tool call is answered, whatever the tool does. Grades lessons/ or
 * solutions/ (COURSE_TREE). Unit tests drive safeDispatch with tools that throw, hang, or get
 * input that does not fit their schema; loop tests run the whole loop on the scripted model and
 * check the transcript goes on, valid, after each failure.
 */
import type Anthropic from "@anthropic-ai/sdk";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { call, say, steps, text } from "../runtime/scripted/scenarios/script.ts";
import { S04_TASK, S04_WORKSPACE } from "../runtime/scripted/scenarios/s04_tool_errors.ts";
import type { Scenario } from "../runtime/scripted/types.ts";
import { loadLesson, scripted , expectSendable , textIn , assertProperty } from "../runtime/testing.ts";
import { quietLessonFile } from "./support.ts";
import { scratchWorkspace } from "../runtime/tools/files.ts";

type Agent = typeof import("../solutions/s04_tool_errors/agent.ts");
type DefineTool = typeof import("../solutions/s04_tool_errors/define-tool.ts");
const lesson = await loadLesson<Agent>("s04_tool_errors");
const { defineTool, safeDispatch, SafeToolRegistry } = await loadLesson<DefineTool>("s04_tool_errors", "define-tool.ts");
const { waitForFile } = await loadLesson<typeof import("../solutions/s04_tool_errors/tools.ts")>("s04_tool_errors", "tools.ts");

const keep = quietLessonFile();

let ids = 0;
function toolUse(name: string, input: unknown): Anthropic.ToolUseBlock {
  return { type: "tool_use", id: `toolu_test_${++ids}`, name, input, caller: { type: "direct" } } as Anthropic.ToolUseBlock;
}

/** Tools that fail in every way, and a log of what actually ran. */
function trickyTools() {
  const ran: string[] = [];
  const seen: { signal?: AbortSignal } = {};
  const tools = [
    defineTool({
      name: "greet",
      description: "Greets someone.",
      input: z.object({ name: z.string(), times: z.number().int().optional() }),
      run: ({ name, times }) => {
        ran.push(`greet ${name}`);
        return `hello ${name}`.repeat(times ?? 1);
      },
    }),
    defineTool({
      name: "explode",
      description: "Always throws a plain Error.",
      input: z.object({}),
      run: () => {
        ran.push("explode");
        throw new TypeError("cannot read properties of undefined (reading 'port')");
      },
    }),
    defineTool({
      name: "explode_later",
      description: "Rejects after a tick.",
      input: z.object({}),
      run: async () => {
        ran.push("explode_later");
        await Promise.resolve();
        throw new RangeError("index out of range");
      },
    }),
    defineTool({
      name: "hang",
      description: "Waits until its signal aborts.",
      input: z.object({}),
      timeoutMs: 60,
      run: (_input, ctx) => {
        ran.push("hang");
        seen.signal = ctx.signal;
        return new Promise<string>((_resolve, reject) => ctx.signal.addEventListener("abort", () => reject(new Error("aborted"))));
      },
    }),
    defineTool({
      name: "hang_deaf",
      description: "Never settles and ignores its signal.",
      input: z.object({}),
      timeoutMs: 60,
      run: () => {
        ran.push("hang_deaf");
        return new Promise<string>(() => {});
      },
    }),
    defineTool({ name: "silent", description: "Returns nothing.", input: z.object({}), run: () => "" }),
  ];
  return { registry: new SafeToolRegistry(tools), ran, seen };
}

const ctx = { root: process.cwd() };
const textOf = (r: Anthropic.ToolResultBlockParam) => textIn(r.content);

/**
 * What the model must read when a tool ran past its limit (timeoutMessage, the lesson's part of
 * the deadline): which tool, that it ran out of time and was stopped, the limit, and what to do
 * instead. Any wording that says these is right.
 */
function expectTimeoutMessage(text: string, tool: string, ms: number): void {
  const where = "(timeoutMessage in lessons/s04_tool_errors/define-tool.ts)";
  expect(text, `the message must name the tool that ran out of time, "${tool}" ${where}`).toContain(tool);
  expect(text, `the message must say the tool ran out of time ("did not finish within …", "timed out after …") ${where}`).toMatch(
    /did not finish|timed? ?out|time ?limit|took (too long|longer)|ran out of time|deadline/i,
  );
  const seconds = String(ms / 1000).replace(".", "\\.");
  expect(text, `the message must give the limit, ${ms / 1000} s (or ${ms} ms), so the model knows how long it waited ${where}`).toMatch(
    new RegExp(`(^|[^\\d.])(${seconds}\\s*(s\\b|sec|second)|${ms}\\s*(ms\\b|millisecond))`, "i"),
  );
  expect(text, `the message must say what to do instead of the same call again (a smaller input, another way) ${where}`).toMatch(
    /\b(instead|another|other|smaller|narrower|different|split|not (repeat|retry|call|wait)|don't|do not)\b/i,
  );
}

describe("s04 defineTool: one zod schema for the API and for the check", () => {
  it("turns the zod schema into the input_schema sent to the API, strict", () => {
    const tool = defineTool({
      name: "read_file",
      description: "Read a file.",
      input: z.object({ path: z.string(), limit: z.number().int().optional() }),
      run: () => "",
    });
    expect(tool.input_schema.type).toBe("object");
    expect(tool.input_schema.properties).toMatchObject({ path: { type: "string" }, limit: { type: "integer" } });
    expect(tool.input_schema.required).toEqual(["path"]);
    expect(tool.input_schema.additionalProperties).toBe(false);
    expect(tool.input_schema).not.toHaveProperty("$schema");
  });
});

describe("s04 safeDispatch: every failure is an is_error result", () => {
  it("answers a successful call with its output, by id", async () => {
    const { registry } = trickyTools();
    const c = toolUse("greet", { name: "Ada" });
    const r = await safeDispatch(registry, c, ctx);
    expect(r).toMatchObject({ type: "tool_result", tool_use_id: c.id, content: "hello Ada" });
    expect(r.is_error).not.toBe(true);
  });

  it("answers a tool that throws (sync or async) with is_error and the error's message; nothing escapes", async () => {
    const { registry } = trickyTools();
    for (const [name, message] of [
      ["explode", "cannot read properties of undefined"],
      ["explode_later", "index out of range"],
    ] as const) {
      const c = toolUse(name, {});
      const r = await safeDispatch(registry, c, ctx).catch((e: unknown) => {
        throw new Error(`safeDispatch threw instead of answering ${name}: ${String(e)}`);
      });
      expect(r.tool_use_id).toBe(c.id);
      expect(r.is_error, `${name} threw: its result must have is_error: true`).toBe(true);
      expect(textOf(r)).toContain(message);
    }
  });

  it.each([
    ["a missing field", {}, /name/],
    ["an extra field", { name: "Ada", mood: "happy" }, /mood/],
    ["a wrong type", { name: 42 }, /name/],
    ["a wrong nested type", { name: "Ada", times: "twice" }, /times/],
  ])("refuses %s without running the tool, and says which field", async (_what, input, field) => {
    const { registry, ran } = trickyTools();
    const r = await safeDispatch(registry, toolUse("greet", input), ctx);
    expect(r.is_error, "input that does not fit the schema must be answered with is_error").toBe(true);
    expect(ran, "the tool must not run on invalid input").toEqual([]);
    expect(textOf(r)).toMatch(field);
    expect(textOf(r)).toMatch(/greet/);
    // Written for the model: what was wrong, that nothing ran, what the tool takes (not a raw ZodError dump).
    expect(textOf(r)).toMatch(/^Invalid input for greet; it was not run\./);
    expect(textOf(r)).toMatch(/greet takes: .*Call it again with a corrected input\./s);
  });

  it("stops waiting for a tool past its timeout, aborts its signal, and says so", async () => {
    const { registry, seen } = trickyTools();
    const r = await safeDispatch(registry, toolUse("hang", {}), ctx);
    expect(r.is_error, "a tool past its time limit must be answered with is_error").toBe(true);
    expectTimeoutMessage(textOf(r), "hang", 60);
    expect(seen.signal?.aborted, "the tool's signal must abort at the deadline, so it can stop its work").toBe(true);
  });

  it("answers a tool that ignores its signal all the same, at the deadline", async () => {
    const { registry } = trickyTools();
    const r = await safeDispatch(registry, toolUse("hang_deaf", {}), ctx);
    expect(r.is_error).toBe(true);
    expectTimeoutMessage(textOf(r), "hang_deaf", 60);
  });

  it("passes the caller's abort on to the tool", async () => {
    const { registry, seen } = trickyTools();
    const outer = new AbortController();
    const pending = safeDispatch(registry, toolUse("hang", {}), { ...ctx, signal: outer.signal });
    outer.abort();
    const r = await pending;
    expect(r.is_error).toBe(true);
    expect(seen.signal?.aborted).toBe(true);
  });

  it("answers an unknown tool and an empty output with something (never empty content)", async () => {
    const { registry } = trickyTools();
    const unknown = await safeDispatch(registry, toolUse("fly", {}), ctx);
    expect(unknown.is_error).toBe(true);
    expect(textOf(unknown)).toMatch(/greet/);
    const silent = await safeDispatch(registry, toolUse("silent", {}), ctx);
    expect(textOf(silent).trim().length).toBeGreaterThan(0);
  });

  it("property: for any tool name and any input, it answers the call by id and never throws", async () => {
    const { registry } = trickyTools();
    await assertProperty(
      fc.asyncProperty(fc.constantFrom("greet", "explode", "explode_later", "silent", "nope"), fc.jsonValue(), async (name, input) => {
        const c = toolUse(name, input);
        const r = await safeDispatch(registry, c, ctx);
        expect(r.tool_use_id).toBe(c.id);
        if (r.is_error) expect(textOf(r).trim().length).toBeGreaterThan(0);
      }),
      { numRuns: 60 },
    );
  });
});

/** Runs the lesson's loop on a scenario and checks the transcript after the run. */
async function runLoop(scenario: Scenario, task: string, registry: InstanceType<typeof SafeToolRegistry>) {
  const llm = scripted({ scenario });
  const history: Anthropic.MessageParam[] = [{ role: "user", content: task }];
  const final = await lesson.agentLoop(llm, history, registry, ctx);
  await expectSendable(llm, history);
  return { history, final };
}

describe("s04 the loop goes on after a failure", () => {
  it("answers a throwing tool, a bad input and a hang in ONE message, then continues to the answer", async () => {
    const { registry } = trickyTools();
    const scenario: Scenario = {
      id: "test-three-failures",
      title: "three failures at once, then an answer",
      reply: steps(
        () => ({ content: [text("Three at once."), call("explode", {}), call("greet", { who: "Ada" }), call("hang", {})] }),
        (ctx) => say(`errors: ${ctx.results.filter((r) => r.is_error).length}`),
      ),
    };
    const { history, final } = await runLoop(scenario, "fail three ways", registry);
    expect(final.stop_reason).toBe("end_turn");
    const results = history[2]!.content as Anthropic.ToolResultBlockParam[];
    expect(results.map((r) => r.is_error)).toEqual([true, true, true]);
    expect(final.content).toMatchObject([{ type: "text", text: "errors: 3" }]);
  });

  it("runs the default task: the model reads each error and recovers", async () => {
    const root = await scratchWorkspace(S04_WORKSPACE);
    keep(root);
    const llm = scripted();
    const history: Anthropic.MessageParam[] = [{ role: "user", content: S04_TASK }];
    const final = await lesson.agentLoop(llm, history, lesson.demoRegistry(), { root });
    await expectSendable(llm, history);
    const errors = history
      .flatMap((m) => (Array.isArray(m.content) ? m.content : []))
      .filter((b): b is Anthropic.ToolResultBlockParam => b.type === "tool_result" && b.is_error === true)
      .map(textOf);
    expect(errors).toHaveLength(3);
    expect(errors[0]).toMatch(/Invalid input for read_json/);
    expectTimeoutMessage(errors[1]!, "wait_for_file", waitForFile.timeoutMs);
    expect(errors[2]).toMatch(/SyntaxError/);
    expect(final.content).toMatchObject([{ type: "text", text: expect.stringContaining("The port is 8080") }]);
  });

  it("offers the API the JSON schemas made from zod (the scripted model validates them)", async () => {
    const llm = scripted({ scenario: { id: "test-plain", title: "no tools used", reply: () => say("ok") } });
    await lesson.agentLoop(llm, [{ role: "user", content: "hi" }], lesson.demoRegistry(), ctx);
    const sent = llm.scripted.exchanges[0]!.request as { tools: Anthropic.Tool[] };
    const readJson = sent.tools.find((t) => t.name === "read_json");
    expect(readJson?.input_schema).toMatchObject({ type: "object", required: ["path"], additionalProperties: false });
  });
});
