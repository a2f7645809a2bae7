/**
 * s04_tool_errors: every tool call is answered, whatever the tool does. Grades lessons/ or
 * solutions/ (COURSE_TREE). Unit tests drive safeDispatch with tools that throw, hang, or get
 * input that does not fit their schema; loop tests run the whole loop on the scripted model and
 * check the transcript goes on, valid, after each failure.
 */
import type Anthropic from "@anthropic-ai/sdk";
import fc from "fast-check";
import { describe, it } from "vitest";
import { z } from "zod";
import { call, say, steps, text } from "../runtime/scripted/scenarios/script.ts";
import { S04_TASK, S04_WORKSPACE } from "../runtime/scripted/scenarios/s04_tool_errors.ts";
import type { Scenario } from "../runtime/scripted/types.ts";
import type { RuleId } from "../runtime/rules.ts";
import { LOOP_TIMEOUT_MS, RuleError, assertProperty, callsIn, driveLoop, errorText, loadLesson, resultFor, resultsIn, rule, scripted, textIn } from "../runtime/testing.ts";
import { OTHER_STOPS, brief, expectStopsAt, naming, quietLessonFile, show } from "./support.ts";
import { scratchWorkspace } from "../runtime/tools/files.ts";
import { fieldProblems } from "../runtime/transcript.ts";
import { onTestClock } from "./test-clock.ts";

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
    defineTool({
      name: "hang_long",
      description: "Waits until its signal aborts; its own limit is far away, so only the caller stops it.",
      input: z.object({}),
      timeoutMs: 60_000,
      run: (_input, ctx) => {
        ran.push("hang_long");
        seen.signal = ctx.signal;
        return new Promise<string>((_resolve, reject) => ctx.signal.addEventListener("abort", () => reject(new Error("aborted"))));
      },
    }),
    defineTool({ name: "silent", description: "Returns nothing.", input: z.object({}), run: () => "" }),
    defineTool({ name: "blank", description: "Returns only whitespace.", input: z.object({}), run: () => " \n\t \n" }),
    defineTool({ name: "grep_log", description: "Finds the lines of a log that mention failures.", input: z.object({}), readOnly: true, run: () => "2 matches:\nERROR disk full\njob 7 failed" }),
  ];
  return { registry: new SafeToolRegistry(tools), ran, seen };
}

const ctx = { root: process.cwd() };
const textOf = (r: Anthropic.ToolResultBlockParam | undefined) => textIn(r?.content);
const SAFE = "(safeDispatch in lessons/s04_tool_errors/define-tool.ts)";

/**
 * safeDispatch(call), bounded: it answers within `ms` on the test's clock (tests/test-clock.ts:
 * the tools' deadlines are setTimeouts that fire when the test moves its clock past them, however
 * busy the machine is), and never throws. A deadline that never fires fails here as the rule it
 * breaks, not as a test that hangs; `late` says what that means for this call.
 */
async function answer(registry: InstanceType<typeof SafeToolRegistry>, c: Anthropic.ToolUseBlock, opts: { signal?: AbortSignal; ms?: number; late?: string; started?: () => void } = {}) {
  const ms = opts.ms ?? 2_000;
  try {
    const got = await onTestClock(
      async () => {
        const pending = safeDispatch(registry, c, { ...ctx, ...(opts.signal ? { signal: opts.signal } : {}) });
        opts.started?.();
        return pending;
      },
      { limit: ms, grace: 5_000 },
    );
    rule(!("late" in got), "tool-timeout", opts.late ?? `safeDispatch had not answered the call to ${c.name} after ${ms / 1000} s on the test's clock: run the tool with runWithDeadline and the tool's own timeoutMs ${SAFE}.`);
    const r = (got as { value: Anthropic.ToolResultBlockParam }).value;
    rule(r !== undefined && r !== null, "unanswered-tool-use", `safeDispatch returned ${show(r)} for the call ${c.id} (${c.name}): every call is answered with a tool_result, a failed one with is_error: true and the reason (errorResult) ${SAFE}.`);
    const fields = r && typeof r === "object" && r.type === "tool_result" ? fieldProblems(r, `the result of ${c.name}`) : [];
    rule(fields.length === 0, "api-rejected", () => `safeDispatch answered a call with a block the API refuses: ${fields[0]} ${SAFE}.`);
    rule(r && r.type === "tool_result" && r.tool_use_id === c.id, "result-by-id", `safeDispatch answered the call ${c.id} (${c.name}) with ${r && typeof r === "object" && "type" in r ? brief(r as Anthropic.ToolResultBlockParam) : show(r)}: a tool_result with tool_use_id ${c.id}.`);
    return r;
  } catch (e) {
    if (e instanceof RuleError) throw e;
    throw new RuleError("tool-failure-observed", `safeDispatch threw on a call to ${c.name} instead of answering it: ${errorText(e)}. Catch whatever the tool throws and answer errorResult(call, describeFailure(call.name, e)) ${SAFE}.`);
  }
}

/**
 * What the model must read when a tool ran past its limit (timeoutMessage, the lesson's part of
 * the deadline): which tool, that it ran out of time and was stopped, the limit, and what to do
 * instead. Any wording that says these is right.
 */
function expectTimeoutMessage(said: string, tool: string, ms: number): void {
  const where = `(timeoutMessage in lessons/s04_tool_errors/define-tool.ts; it says ${show(said)})`;
  rule(said.includes(tool), "tool-timeout", `the message must name the tool that ran out of time, "${tool}" ${where}.`);
  rule(/did not finish|timed? ?out|time ?limit|took (too long|longer)|ran out of time|deadline/i.test(said), "tool-timeout", `the message must say the tool ran out of time ("did not finish within …", "ran out of time after …") ${where}.`);
  const seconds = String(ms / 1000).replace(".", "\\.");
  rule(
    new RegExp(`(^|[^\\d.])(${seconds}\\s*(s\\b|sec|second)|${ms}\\s*(ms\\b|millisecond))`, "i").test(said),
    "tool-timeout",
    `the message must give the limit, ${ms / 1000} s (or ${ms} ms), so the model knows how long it waited ${where}.`,
  );
  rule(
    /\b(instead|another|other|smaller|narrower|different|split|not (repeat|retry|call|wait)|don't|do not)\b/i.test(said),
    "tool-timeout",
    `the message must say what to do instead of the same call again (a smaller input, another way) ${where}.`,
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
    const schema = tool.input_schema as Record<string, unknown> & { properties?: Record<string, { type?: string }> };
    rule(
      schema.type === "object" && schema.properties?.path?.type === "string" && schema.properties?.limit?.type === "integer",
      "tool-definition",
      `defineTool made the input_schema ${show(schema)}: it must be the zod schema as JSON schema (type "object", path: string, limit: integer).`,
    );
    rule(show(schema.required) === '["path"]', "tool-definition", `input_schema.required is ${show(schema.required)}: only the fields zod requires, ["path"].`);
    rule(schema.additionalProperties === false && !("$schema" in schema), "tool-definition", "input_schema must be strict (additionalProperties: false) and carry no $schema key.");
  });
});

describe("s04 safeDispatch: every failure is an is_error result", () => {
  it("answers a successful call with its output, by id", async () => {
    const { registry } = trickyTools();
    const r = await answer(registry, toolUse("greet", { name: "Ada" }));
    rule(textOf(r) === "hello Ada" && r.is_error !== true, "result-is-output", `the call greet({name: "Ada"}) was answered ${brief(r)}: the tool's output, "hello Ada", and no is_error.`);
    // A tool that worked, whose output talks about errors (a grep of a log): still not an error.
    const grep = await answer(registry, toolUse("grep_log", {}));
    rule(grep.is_error !== true, "tool-failure-observed", `grep_log ran and returned its matches ("ERROR disk full", "job 7 failed"), and was answered ${brief(grep)}: is_error says that the TOOL failed (it threw, timed out or got a bad input), not that its output mentions an error. Leave is_error out when the tool returned.`);
    rule(textOf(grep).includes("ERROR disk full"), "result-is-output", `grep_log returned its matches and was answered ${brief(grep)}: send what the tool returned.`);
  });

  it("answers a tool that throws (sync or async) with is_error and the error's message; nothing escapes", async () => {
    const { registry } = trickyTools();
    for (const [name, message] of [
      ["explode", "cannot read properties of undefined"],
      ["explode_later", "index out of range"],
    ] as const) {
      const r = await answer(registry, toolUse(name, {}));
      rule(r.is_error === true, "tool-failure-observed", `${name} threw, and its result (${brief(r)}) has no is_error: true: a failure is answered as an error.`);
      rule(textOf(r).includes(message), "tool-failure-observed", `${name} threw "${message}", and its result says ${show(textOf(r))}: include the exception's message, so the model knows what went wrong.`);
      const frame = /^\s*at .*(\(|\/|\\).*:\d+/m.exec(textOf(r));
      rule(!frame, "tool-failure-observed", () => `${name} threw, and its result carries a stack trace ("${frame![0].trim().slice(0, 60)}"): the model acts on what went wrong (the error's name and message) and what it can do; the agent's own stack means nothing to it and costs tokens. Use the error's message, not e.stack.`);
    }
  });

  it.each([
    ["a missing field", {}, /name/],
    ["an extra field", { name: "Ada", mood: "happy" }, /mood/],
    ["a wrong type", { name: 42 }, /name/],
    ["a wrong nested type", { name: "Ada", times: "twice" }, /times/],
  ])("refuses %s without running the tool, and says which field", async (what, input, field) => {
    const { registry, ran } = trickyTools();
    const r = await answer(registry, toolUse("greet", input));
    const said = textOf(r);
    rule(ran.length === 0, "invalid-input", `greet was run with ${show(input)} (${what}): check the input with inputProblem first and do not run the tool when it does not fit ${SAFE}.`);
    rule(r.is_error === true, "invalid-input", `greet(${show(input)}) (${what}) was answered without is_error: true: input that does not fit the schema is an error.`);
    rule(/^Invalid input for greet; it was not run\./.test(said) && field.test(said), "invalid-input", `greet(${show(input)}) (${what}) was answered ${show(said.split("\n")[0])}: answer with errorResult(call, inputProblem(tool, call.input)), which names the field and what greet takes.`);
    rule(/greet takes: .*Call it again with a corrected input\./s.test(said), "invalid-input", `the answer to ${what} must end with what greet takes and ask for a corrected call; it says ${show(said.split("\n").at(-1))}.`);
  });

  it("stops waiting for a tool past its timeout, stops the tool (its signal), and tells the model why", async () => {
    const { registry, seen } = trickyTools();
    const r = await answer(registry, toolUse("hang", {}), { late: `the tool "hang" has a timeoutMs of 60 ms, and safeDispatch had not answered after 2 s on the test's clock: run it with runWithDeadline(tool.timeoutMs, …) for a CheckedTool ${SAFE}.` });
    rule(r.is_error === true, "tool-timeout", `a tool past its time limit was answered ${brief(r)}: answer it with is_error: true.`);
    expectTimeoutMessage(textOf(r), "hang", 60);
    rule(seen.signal?.aborted === true, "tool-timeout", `the tool's signal did not abort at the deadline, so the tool keeps working: pass runWithDeadline's signal to tool.run(input, { ...ctx, signal }) ${SAFE}.`);
  });

  it("answers a tool that ignores its signal all the same, at the deadline", async () => {
    const { registry } = trickyTools();
    const r = await answer(registry, toolUse("hang_deaf", {}), { late: `the tool "hang_deaf" ignores its signal; safeDispatch must answer at its deadline (60 ms) all the same, and had not after 2 s on the test's clock ${SAFE}.` });
    rule(r.is_error === true, "tool-timeout", `a tool past its time limit was answered ${brief(r)}: answer it with is_error: true.`);
    expectTimeoutMessage(textOf(r), "hang_deaf", 60);
  });

  it("passes the caller's abort on to the tool", async () => {
    const { registry, seen } = trickyTools();
    const outer = new AbortController();
    // hang_long's own limit is a minute away: only the caller's signal can end it in time.
    // The caller aborts once the call is under way (safeDispatch has it), not after a guessed delay.
    const r = await answer(registry, toolUse("hang_long", {}), {
      signal: outer.signal,
      started: () => void Promise.resolve().then(() => outer.abort()),
      late: `the caller aborted its signal, and the tool hang_long was still running 2 s later (on the test's clock): pass ctx.signal to runWithDeadline, so the caller's abort stops the tool ${SAFE}.`,
    });
    rule(r.is_error === true, "tool-timeout", `a tool the caller stopped was answered ${brief(r)}: answer it with is_error: true.`);
    rule(seen.signal?.aborted === true, "tool-timeout", `the caller aborted, and the tool's own signal did not: pass runWithDeadline's signal to tool.run ${SAFE}.`);
  });

  it("answers an unknown tool and an empty output with something (never empty content)", async () => {
    const { registry } = trickyTools();
    const unknown = await answer(registry, toolUse("fly", {}));
    rule(unknown.is_error === true && /greet/.test(textOf(unknown)), "unknown-tool", `the unknown tool "fly" was answered ${brief(unknown)}: is_error: true, with the names of the tools there are.`);
    rule(["greet", "silent", "blank"].every((n) => new RegExp(`\\b${n}\\b`).test(textOf(unknown))), "unknown-tool", `the unknown tool "fly" was answered ${show(textOf(unknown))}: name the tools there are, each apart from the next (", " between them), so the model can pick one.`);
    const silent = await answer(registry, toolUse("silent", {}));
    rule(textOf(silent).trim().length > 0, "empty-text", `the tool "silent" returned "" and was answered ${brief(silent)}: say "(no output)" instead of empty content ${SAFE}.`);
    const blank = await answer(registry, toolUse("blank", {}));
    rule(textOf(blank).trim().length > 0, "empty-text", `the tool "blank" returned only whitespace and was answered ${show(textOf(blank))}: the API refuses blank text too; trim the output before you test it for "(no output)" ${SAFE}.`);
  });

  it("property: for any tool name and any input, it answers the call by id and never throws", async () => {
    const { registry } = trickyTools();
    await assertProperty(
      fc.asyncProperty(fc.constantFrom("greet", "explode", "explode_later", "silent", "nope"), fc.jsonValue(), async (name, input) => {
        const r = await answer(registry, toolUse(name, input));
        if (r.is_error) rule(textOf(r).trim().length > 0, "error-result-empty", `the call ${name}(${show(input)}) was answered is_error with empty content: say what went wrong.`);
      }),
      { numRuns: 60 },
      "tool-failure-observed",
    );
  });
});

/** Runs the lesson's loop through driveLoop; a throw of the loop's own fails as tool-failure-observed. */
async function runLoop(scenario: Scenario | undefined, task: string, registry: InstanceType<typeof SafeToolRegistry>, root = ctx.root) {
  const llm = scripted(scenario ? { scenario } : {});
  const history: Anthropic.MessageParam[] = [{ role: "user", content: task }];
  try {
    // driveLoop's limit (LOOP_TIMEOUT_MS, 12 s) only tells a hang from a slow machine: the
    // deadlines themselves are graded on the test's clock, by the safeDispatch tests above.
    const final = await driveLoop(llm, history, naming(() => lesson.agentLoop(llm, history, registry, { root })));
    return { llm, history, final };
  } catch (e) {
    // Every tool of these runs stops at its own deadline, well under a second: a loop still
    // waiting at driveLoop's limit waits for a tool its deadline did not stop.
    if (e instanceof RuleError && e.rule === "loop-did-not-return" && llm.scripted.exchanges.length > 0 && history.at(-1)?.role === "assistant")
      throw new RuleError("tool-timeout", `the loop was still waiting for the calls of history[${history.length - 1}] at driveLoop's limit (${LOOP_TIMEOUT_MS / 1000} s), and every tool here stops at its own timeoutMs (60 ms for hang, 500 ms for wait_for_file): run each tool with runWithDeadline(tool.timeoutMs, …) ${SAFE}.`);
    throw e;
  }
}

describe("s04 the loop goes on after a failure", () => {
  for (const stop of OTHER_STOPS)
    it(`stops at stop_reason ${stop} without running the tool_use in it`, async () => {
      await expectStopsAt(stop, (llm, history) => lesson.agentLoop(llm, history, undefined, { root: process.cwd() }), "list_files", { path: "." });
    });

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
    const calls = callsIn(history[1]);
    calls.forEach((c, i) => {
      const r = resultFor(history, c.id);
      rule(r?.is_error === true, ["tool-failure-observed", "invalid-input", "tool-timeout"][i] as RuleId, `${c.name} (${["throws", "gets an input that does not fit", "hangs"][i]}) was answered ${brief(r)}: answer it with is_error: true.`);
    });
    rule(textIn(final?.content) === "errors: 3", "tool-failure-observed", `the model saw ${show(textIn(final?.content))}: all three failures come back as errors in one message, and the loop goes on to the answer.`);
  });

  it("runs the default task: the model reads each error and recovers", async () => {
    const root = await scratchWorkspace(S04_WORKSPACE);
    keep(root);
    const { history, final } = await runLoop(undefined, S04_TASK, lesson.demoRegistry(), root);
    const errors = history.flatMap((m) => resultsIn(m)).filter((b) => b.is_error === true).map(textOf);
    rule(/Invalid input for read_json/.test(errors[0] ?? ""), "invalid-input", `the first error the model read is ${show(errors[0])}: read_json's bad input is answered "Invalid input for read_json; …".`);
    expectTimeoutMessage(errors[1] ?? "", "wait_for_file", waitForFile.timeoutMs);
    rule(/SyntaxError/.test(errors[2] ?? ""), "tool-failure-observed", `the third error the model read is ${show(errors[2])}: read_json's exception is answered with its name and message (SyntaxError: …).`);
    rule(errors.length === 3, "tool-failure-observed", `the model read ${errors.length} error results; the default task makes exactly 3 (bad input, a hang, a throw).`);
    rule(textIn(final?.content).includes("The port is 8080"), "tool-failure-observed", `the model's answer is ${show(textIn(final?.content))}: with each error told, it recovers and finds the port (8080).`);
  });

  it("offers the API the JSON schemas made from zod (the scripted model validates them)", async () => {
    const { llm } = await runLoop({ id: "test-plain", title: "no tools used", reply: () => say("ok") }, "hi", lesson.demoRegistry());
    const sent = llm.scripted.exchanges[0]!.request as { tools?: Anthropic.Tool[] };
    const readJson = sent.tools?.find((t) => t.name === "read_json");
    const schema = readJson?.input_schema as { type?: unknown; required?: unknown; additionalProperties?: unknown } | undefined;
    rule(
      schema?.type === "object" && show(schema.required) === '["path"]' && schema.additionalProperties === false,
      "tool-definition",
      `the request offered read_json with the schema ${show(schema)}: each tool's input_schema is its zod schema (defineTool), strict.`,
    );
  });
});

// The net under the rules: this lesson beside the reference, on its own task and on generated
// model answers (tests/differential/net.ts).
import { differentialNet } from "./differential/net.ts";
differentialNet("s04");
