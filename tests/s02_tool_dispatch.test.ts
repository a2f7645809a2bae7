/**
 * s02_tool_dispatch: one registry, many tools. Grades lessons/ or solutions/ (COURSE_TREE).
 * The registry is tested on its own (right tool, answered by id, unknown name → is_error), then
 * the loop drives it against the scripted model in a scratch workspace.
 */
import { readFile } from "node:fs/promises";
import type Anthropic from "@anthropic-ai/sdk";
import { describe, it } from "vitest";
import { call, say, steps, text } from "../runtime/scripted/scenarios/script.ts";
import { S02_TASK, S02_WORKSPACE } from "../runtime/scripted/scenarios/s02_tool_dispatch.ts";
import type { Scenario } from "../runtime/scripted/types.ts";
import type { RuleId } from "../runtime/rules.ts";
import { RuleError, callsIn, driveLoop, errorText, expectSendable, loadLesson, resultFor, resultsIn, rule, scripted, textIn } from "../runtime/testing.ts";
import { OTHER_STOPS, brief, expectStopsAt, naming, quietLessonFile, refusedRequest, show } from "./support.ts";
import { ToolError, scratchWorkspace } from "../runtime/tools/files.ts";

type Agent = typeof import("../solutions/s02_tool_dispatch/agent.ts");
type Registry = typeof import("../solutions/s02_tool_dispatch/registry.ts");
type ToolSpec = import("../solutions/s02_tool_dispatch/registry.ts").ToolSpec;
const lesson = await loadLesson<Agent>("s02_tool_dispatch");
const { ToolRegistry, defaultTools } = await loadLesson<Registry>("s02_tool_dispatch", "registry.ts");

const keep = quietLessonFile();

async function workspace(): Promise<string> {
  const root = await scratchWorkspace(S02_WORKSPACE);
  keep(root);
  return root;
}

/** Tools that record every call they get: which tool ran, with which input. */
function recordingTools() {
  const ran: Array<{ tool: string; input: Record<string, unknown> }> = [];
  const tool = (name: string, answer: (input: Record<string, unknown>) => string): ToolSpec => ({
    name,
    description: `test tool ${name}`,
    input_schema: { type: "object", properties: { x: { type: "string" } } },
    run: (input) => {
      ran.push({ tool: name, input });
      return answer(input);
    },
  });
  const tools = [
    tool("alpha", (i) => `alpha got ${String(i.x)}`),
    tool("beta", (i) => `beta got ${String(i.x)}`),
    tool("failing", () => {
      throw new ToolError("this tool reports a failure");
    }),
  ];
  return { ran, tools };
}

let nextId = 0;
const useBlock = (name: string, input: Record<string, unknown> = {}): Anthropic.ToolUseBlock =>
  ({ type: "tool_use", id: `toolu_test_${nextId++}`, name, input, caller: { type: "direct" } }) as Anthropic.ToolUseBlock;

const textOfResult = (r: Anthropic.ToolResultBlockParam | undefined) => textIn(r?.content);
const REGISTRY = "(ToolRegistry.dispatch in lessons/s02_tool_dispatch/registry.ts)";

/** registry.dispatch(call), a throw turned into the rule it breaks (dispatch answers, it does not throw). */
async function dispatch(registry: InstanceType<typeof ToolRegistry>, c: Anthropic.ToolUseBlock, id: RuleId, root = process.cwd()) {
  try {
    return await registry.dispatch(c, { root });
  } catch (e) {
    throw new RuleError(id, `dispatch threw on a call to ${c.name} instead of answering it: ${errorText(e)}. Return a tool_result for ${c.id} ${REGISTRY}.`);
  }
}

describe("s02 the registry", () => {
  it("yields one API tool definition per tool, in order, with its schema", () => {
    const defs = new ToolRegistry(defaultTools()).definitions();
    const names = defs.map((d) => d.name);
    for (const want of ["read_file", "write_file", "edit_file", "bash"])
      rule(names.includes(want), "tool-definition", `registry.definitions() names [${names.join(", ")}]: it must offer ${want} (one definition per tool of defaultTools()).`);
    rule(names.some((n) => n === "list_files" || n === "glob"), "tool-definition", `registry.definitions() names [${names.join(", ")}]: it must offer list_files (or glob).`);
    for (const d of defs) {
      rule(d.input_schema?.type === "object" && typeof d.description === "string", "tool-definition", `the definition of ${d.name} needs a description and an input_schema of type "object"; it is ${show(d)}.`);
      // Only what the API understands: no handler or flags leak into the request.
      const keys = Object.keys(d).sort().join(", ");
      rule(keys === "description, input_schema, name", "tool-definition", `the definition of ${d.name} has the fields [${keys}]: send only name, description and input_schema (the handler and readOnly stay in the registry).`);
    }
  });

  it("sends a call to the tool it names, with its input, and answers it by id", async () => {
    const { ran, tools } = recordingTools();
    const registry = new ToolRegistry(tools);
    const c = useBlock("beta", { x: "42" });
    const result = await dispatch(registry, c, "dispatch");
    rule(ran.length === 1 && ran[0]!.tool === "beta", "dispatch", `a call to beta ran [${ran.map((r) => r.tool).join(", ") || "nothing"}]: look the tool up by call.name and run it ${REGISTRY}.`);
    rule(show(ran[0]!.input) === show({ x: "42" }), "dispatch", `beta was run with ${show(ran[0]!.input)}; the call's input is {"x":"42"}: pass the call's input to the tool.`);
    rule(result?.type === "tool_result" && result.tool_use_id === c.id, "result-by-id", `dispatch answered ${brief(result)}: a tool_result with tool_use_id ${c.id}, the id of the call.`);
    rule(textOfResult(result).trim() === "beta got 42", "result-is-output", `the result of beta is ${show(textOfResult(result))}: put what the tool returned ("beta got 42") in content.`);
    rule(result.is_error !== true, "dispatch", `the result of a call that worked has is_error: true: leave is_error out (or false) when the tool succeeded.`);
  });

  it("answers an unknown tool with an is_error result naming it and the tools that exist, never a throw", async () => {
    const { ran, tools } = recordingTools();
    const c = useBlock("run_tests", { module: "login" });
    const result = await dispatch(new ToolRegistry(tools), c, "unknown-tool");
    rule(result?.type === "tool_result" && result.tool_use_id === c.id, "unknown-tool", `a call to the unknown tool run_tests was answered with ${brief(result)}: answer it with a tool_result for ${c.id}.`);
    rule(result.is_error === true, "unknown-tool", `the answer to a call of the unknown tool run_tests has no is_error: true: mark it as an error, so the model knows the call failed.`);
    const said = textOfResult(result);
    rule(said.includes("run_tests"), "unknown-tool", `the answer to the unknown tool says ${show(said)}: name the tool it asked for, "run_tests".`);
    rule(["alpha", "beta", "failing"].every((n) => new RegExp(`\\b${n}\\b`).test(said)), "unknown-tool", `the answer to the unknown tool says ${show(said)}: list the tools that exist (alpha, beta, failing), each name apart from the next (", " between them), so the model can pick one.`);
    rule(ran.length === 0, "unknown-tool", `a call to an unknown tool ran ${ran.map((r) => r.tool).join(", ")}: when the name is not in the registry, run nothing.`);
  });

  it("turns a ToolError (the tool reporting a failure) into an is_error result with its message", async () => {
    const { tools } = recordingTools();
    const c = useBlock("failing");
    const result = await dispatch(new ToolRegistry(tools), c, "tool-failure-observed");
    rule(result?.tool_use_id === c.id && result.is_error === true, "tool-failure-observed", `the tool "failing" threw a ToolError and was answered with ${brief(result)}: answer it with is_error: true, under its id ${c.id}.`);
    rule(textOfResult(result).includes("this tool reports a failure"), "tool-failure-observed", `the error result says ${show(textOfResult(result))}: include the ToolError's message ("this tool reports a failure"), so the model knows what went wrong.`);
  });

  it("runs the real file tools relative to the workspace root", async () => {
    const root = await workspace();
    const registry = new ToolRegistry(defaultTools());
    const read = await dispatch(registry, useBlock("read_file", { path: "src/greet.mjs" }), "dispatch", root);
    rule(textOfResult(read).includes("Helo,"), "dispatch", `read_file of src/greet.mjs answered ${show(textOfResult(read))}: run the tool with the call's input and the context's root.`);
    const edit = await dispatch(registry, useBlock("edit_file", { path: "src/greet.mjs", old_text: "nope", new_text: "x" }), "tool-failure-observed", root);
    rule(edit.is_error === true && /not found/.test(textOfResult(edit)), "tool-failure-observed", `an edit_file whose old_text is not in the file was answered ${brief(edit)}: a ToolError becomes is_error: true with its message.`);
  });
});

/** Runs the lesson's loop through driveLoop: the pairing rules and "sent again" are checked after it. */
async function runLoop(scenario: Scenario | undefined, task: string, registry: InstanceType<typeof ToolRegistry>, root = process.cwd()) {
  const llm = scripted(scenario ? { scenario } : {});
  const history: Anthropic.MessageParam[] = [{ role: "user", content: task }];
  let requests = 0; // the loop's own, before driveLoop sends the transcript again
  const final = await driveLoop(llm, history, naming(async () => {
    const r = await lesson.agentLoop(llm, history, registry, { root });
    requests = llm.scripted.exchanges.length;
    return r;
  }));
  // The loop returned while the model waited for results: say that, not what the model did next.
  const last = history.at(-1);
  const unsent = final?.stop_reason === "tool_use" && last?.role === "user" ? resultsIn(last) : [];
  if (unsent.length > 0) {
    const names = callsIn(history.at(-2)).map((c) => c.name);
    const failed = unsent.filter((r) => r.is_error).map((r) => callsIn(history.at(-2)).find((c) => c.id === r.tool_use_id)?.name ?? r.tool_use_id);
    rule(
      failed.length === 0,
      "tool-failure-observed",
      `the loop returned after answering [${names.join(", ")}], with ${failed.length === 1 ? `an error result (${failed[0]})` : `error results (${failed.join(", ")})`} among them, and never sent those results to the model: a failed call is an observation like any other. Send the results back and go on; return only when stop_reason is not "tool_use".`,
    );
    rule(false, "stop-when-done", `the loop returned after answering [${names.join(", ")}] and never sent those results: the model was waiting for them (stop_reason "tool_use"). Send the results back and go on; return only when stop_reason is not "tool_use".`);
  }
  return { llm, history, final, requests };
}

describe("s02 the loop with the registry", () => {
  for (const stop of OTHER_STOPS)
    it(`stops at stop_reason ${stop} without running the tool_use in it`, async () => {
      const registry = new ToolRegistry(defaultTools());
      await expectStopsAt(stop, (llm, history) => lesson.agentLoop(llm, history, registry, { root: process.cwd() }), "list_files", { path: "." });
    });

  it("runs the default task: several tools, one unknown, the file really edited, every call answered by id", async () => {
    const root = await workspace();
    const { history, final } = await runLoop(undefined, S02_TASK, new ToolRegistry(defaultTools()), root);

    // Each result answers its own call, and only the unknown tool's result is an error.
    for (let i = 1; i < history.length - 1; i += 2) {
      const [c] = callsIn(history[i]);
      if (!c) continue;
      const r = resultFor(history, c.id);
      const unknown = c.name === "run_tests";
      rule(Boolean(r?.is_error) === unknown, unknown ? "unknown-tool" : "dispatch", unknown
        ? `history[${i + 1}] answers the unknown tool run_tests without is_error: true.`
        : `history[${i + 1}] answers ${c.name} with an error: ${show(textOfResult(r))}. Run the tool the call names, with its input.`);
    }
    const asked = history.flatMap((m) => (m.role === "assistant" ? callsIn(m) : [])).map((c) => c.name);
    const want = ["list_files", "read_file", "edit_file", "run_tests", "bash"];
    rule(asked.join() === want.join(), "dispatch", `the model asked for [${asked.join(", ")}]; with every result right it asks for [${want.join(", ")}]. It went off course after the result of ${asked.at(-1)}: read that tool_result in the history.`);
    // The edit went to edit_file and really happened in the workspace.
    rule((await readFile(`${root}/src/greet.mjs`, "utf8")).includes("`Hello, ${name}!`"), "dispatch", "the edit_file call did not change src/greet.mjs in the workspace: run the tool with the call's input and ctx.");
    rule(final?.stop_reason === "end_turn" && textIn(final.content).includes("passes"), "stop-when-done", `agentLoop returned ${final ? `stop_reason ${show(final.stop_reason)}` : "nothing"}: return the model's last response, which says the test passes.`);
  });

  it("offers the registry's definitions to the API on every request", async () => {
    const { tools } = recordingTools();
    const registry = new ToolRegistry(tools);
    // The call is the turn's first block (no text before it).
    const scenario: Scenario = { id: "test-one-call", title: "one call", reply: steps(() => ({ content: [call("alpha", { x: "1" })] }), () => say("ok")) };
    const { llm, requests } = await runLoop(scenario, "go", registry);
    const offered = llm.scripted.exchanges.slice(0, requests).map((e) => ((e.request as Anthropic.MessageCreateParams).tools ?? []).map((t) => ("name" in t ? t.name : "?")).join(", "));
    offered.forEach((names, n) =>
      rule(names === "alpha, beta, failing", "tools-offered", `request ${n + 1} offered the tools [${names}]; the registry holds [alpha, beta, failing]: pass tools: registry.definitions() with every request.`),
    );
  });

  it("in one turn, sends each call to its own tool, answers an unknown one, and keeps going", async () => {
    const { ran, tools } = recordingTools();
    const scenario: Scenario = {
      id: "test-mixed-turn",
      title: "three calls in one turn, one of them unknown",
      reply: steps(
        () => ({ content: [text("Three at once."), call("beta", { x: "b" }), call("nope", { x: "?" }), call("alpha", { x: "a" })] }),
        (ctx) => say(`Got ${ctx.results.length} results, ${ctx.results.filter((r) => r.is_error).length} error(s).`),
      ),
    };
    const { history, final } = await runLoop(scenario, "mixed", new ToolRegistry(tools));
    const calls = callsIn(history[1]);
    const ranAs = ran.map((r) => `${r.tool}(${String(r.input.x)})`).join(", ");
    rule(ranAs === "beta(b), alpha(a)", "dispatch", `the turn asked for beta(b), nope(?), alpha(a); the tools that ran were [${ranAs}]: send each call to the tool it names, with its input, and run nothing for the unknown one.`);
    const [beta, nope, alpha] = calls.map((c) => resultFor(history, c.id));
    rule(nope?.is_error === true, "unknown-tool", `the call to the unknown tool "nope" (${calls[1]?.id}) is answered without is_error: true.`);
    for (const [r, want, c] of [[beta, "beta got b", calls[0]], [alpha, "alpha got a", calls[2]]] as const) {
      rule(r?.is_error !== true, "dispatch", `the call ${c?.id} to ${c?.name} is answered as an error: ${show(textOfResult(r))}.`);
      rule(textOfResult(r).trim() === want, "result-by-id", `the result for ${c?.id} (${c?.name}) is ${show(textOfResult(r))}: each call's own output goes under its id ("${want}").`);
    }
    rule(textIn(final?.content) === "Got 3 results, 1 error(s).", "dispatch", `the model saw ${show(textIn(final?.content))}: all three results, one of them an error, go back in one user message.`);
  });

  it("answers every call by its own input: the same tool twice, and a tool whose output is empty", async () => {
    const { ran, tools } = recordingTools();
    tools.push({ name: "quiet", description: "test tool quiet: prints nothing", input_schema: { type: "object", properties: {} }, run: () => "" });
    const scenario: Scenario = {
      id: "test-same-tool-twice",
      title: "alpha twice and a silent tool in one turn, alpha again in the next",
      reply: steps(
        () => ({ content: [call("alpha", { x: "1" }), call("alpha", { x: "2" }), call("quiet", {})] }),
        () => ({ content: [call("alpha", { x: "3" })] }),
        (ctx) => say(`Got ${ctx.results.length} result(s).`),
      ),
    };
    const { history } = await runLoop(scenario, "same tool twice", new ToolRegistry([...tools]));
    const ranAs = ran.map((r) => `${r.tool}(${String(r.input.x)})`).join(", ");
    rule(ranAs === "alpha(1), alpha(2), alpha(3)", "dispatch", `the model called alpha(1), alpha(2), quiet, then alpha(3); the registry ran [${ranAs}]: run the tool for every call, with that call's input (never reuse an earlier answer).`);
    const calls = [...callsIn(history[1]), ...callsIn(history[3])];
    for (const [c, want] of [[calls[0], "alpha got 1"], [calls[1], "alpha got 2"], [calls[2], ""], [calls[3], "alpha got 3"]] as const) {
      const r = c && resultFor(history, c.id);
      rule(r, "unanswered-tool-use", `the call ${c?.id} (${c?.name}) has no tool_result: every call is answered, also one whose tool printed nothing (send its empty output, or say "(no output)").`);
      if (want === "") continue;
      rule(textOfResult(r).trim() === want, "result-by-id", `the result for ${c!.id} (${c!.name} ${show(c!.input)}) is ${show(textOfResult(r))}: each call gets the output of its own input ("${want}").`);
    }
  });

  it("a tool that reports a failure (ToolError) is answered with is_error, and the loop goes on", async () => {
    const { tools } = recordingTools();
    const scenario: Scenario = {
      id: "test-failing-tool",
      title: "a failing tool and a working one, then an answer",
      reply: steps(() => ({ content: [call("failing", {}), call("alpha", { x: "ok" })] }), (ctx) => say(`errors: ${ctx.results.filter((r) => r.is_error).length}`)),
    };
    // Called directly, not through driveLoop: a throw here is the cause, whatever it left in the history.
    const llm = scripted({ scenario });
    const history: Anthropic.MessageParam[] = [{ role: "user", content: "fail once" }];
    let final: Anthropic.Message;
    try {
      final = await lesson.agentLoop(llm, history, new ToolRegistry(tools), { root: process.cwd() });
    } catch (e) {
      // The API refused a request: the request, not the tool, is what went wrong.
      throw refusedRequest(llm, e) ?? new RuleError("tool-failure-observed", `the loop threw when the tool "failing" reported a failure: ${errorText(e)}. Catch the ToolError in dispatch and answer it with is_error: true ${REGISTRY}.`);
    }
    await expectSendable(llm, history);
    const run = { history, final };
    const [failing] = callsIn(run.history[1]);
    const r = failing && resultFor(run.history, failing.id);
    rule(r?.is_error === true && textOfResult(r).includes("this tool reports a failure"), "tool-failure-observed", `the call to "failing" is answered ${brief(r)}: is_error: true, with the ToolError's message.`);
    rule(textIn(run.final?.content) === "errors: 1", "tool-failure-observed", `the model saw ${show(textIn(run.final?.content))} errors; one of the two calls failed.`);
  });

  it("demo() runs the default task offline and returns a transcript that can be sent again", async () => {
    const llm = scripted();
    const history = await lesson.demo(llm);
    await expectSendable(llm, history);
    rule(history.length === 12, "dispatch", `demo() returned ${history.length} messages; the default task, with every call dispatched right, takes 12 (five tools, then the answer).`);
  });
});

// The net under the rules: this lesson beside the reference, on its own task and on generated
// model answers (tests/differential/net.ts).
import { differentialNet } from "./differential/net.ts";
differentialNet("s02");
