/**
 * s02_tool_dispatch: one registry, many tools. Grades lessons/ or solutions/ (COURSE_TREE).
 * The registry is tested on its own (right tool, answered by id, unknown name → is_error), then
 * the loop drives it against the scripted model in a scratch workspace.
 */
import { readFile } from "node:fs/promises";
import type Anthropic from "@anthropic-ai/sdk";
import { describe, expect, it } from "vitest";
import { call, say, steps, text } from "../runtime/scripted/scenarios/script.ts";
import { S02_TASK, S02_WORKSPACE } from "../runtime/scripted/scenarios/s02_tool_dispatch.ts";
import type { Scenario } from "../runtime/scripted/types.ts";
import { loadLesson, scripted , expectSendable , textIn } from "../runtime/testing.ts";
import { quietLessonFile } from "./support.ts";
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

const resultsOf = (m: Anthropic.MessageParam | undefined) => (m?.content ?? []) as Anthropic.ToolResultBlockParam[];
const callsOf = (m: Anthropic.MessageParam | undefined) =>
  (m?.content as Anthropic.ContentBlock[]).filter((b): b is Anthropic.ToolUseBlock => b.type === "tool_use");
const textOfResult = (r: Anthropic.ToolResultBlockParam) => textIn(r.content);

describe("s02 the registry", () => {
  it("yields one API tool definition per tool, in order, with its schema", () => {
    const defs = new ToolRegistry(defaultTools()).definitions();
    const names = defs.map((d) => d.name);
    expect(names).toEqual(expect.arrayContaining(["read_file", "write_file", "edit_file", "bash"]));
    expect(names.some((n) => n === "list_files" || n === "glob")).toBe(true);
    for (const d of defs) {
      expect(d.input_schema.type).toBe("object");
      expect(typeof d.description).toBe("string");
      // Only what the API understands: no handler or flags leak into the request.
      expect(Object.keys(d).sort()).toEqual(["description", "input_schema", "name"]);
    }
  });

  it("sends a call to the tool it names, with its input, and answers it by id", async () => {
    const { ran, tools } = recordingTools();
    const registry = new ToolRegistry(tools);
    const c = useBlock("beta", { x: "42" });
    const result = await registry.dispatch(c, { root: process.cwd() });
    expect(ran).toEqual([{ tool: "beta", input: { x: "42" } }]);
    expect(result).toMatchObject({ type: "tool_result", tool_use_id: c.id, content: "beta got 42" });
    expect(result.is_error ?? false).toBe(false);
  });

  it("answers an unknown tool with an is_error result naming it and the tools that exist, never a throw", async () => {
    const { ran, tools } = recordingTools();
    const c = useBlock("run_tests", { module: "login" });
    const result = await new ToolRegistry(tools).dispatch(c, { root: process.cwd() });
    expect(result.type).toBe("tool_result");
    expect(result.tool_use_id).toBe(c.id);
    expect(result.is_error).toBe(true);
    expect(textOfResult(result)).toContain("run_tests");
    expect(textOfResult(result)).toContain("alpha");
    expect(ran).toEqual([]);
  });

  it("turns a ToolError (the tool reporting a failure) into an is_error result with its message", async () => {
    const { tools } = recordingTools();
    const c = useBlock("failing");
    const result = await new ToolRegistry(tools).dispatch(c, { root: process.cwd() });
    expect(result).toMatchObject({ tool_use_id: c.id, is_error: true });
    expect(textOfResult(result)).toContain("this tool reports a failure");
  });

  it("runs the real file tools relative to the workspace root", async () => {
    const root = await workspace();
    const registry = new ToolRegistry(defaultTools());
    const read = await registry.dispatch(useBlock("read_file", { path: "src/greet.mjs" }), { root });
    expect(textOfResult(read)).toContain("Helo,");
    const edit = await registry.dispatch(useBlock("edit_file", { path: "src/greet.mjs", old_text: "nope", new_text: "x" }), { root });
    expect(edit.is_error).toBe(true);
    expect(textOfResult(edit)).toMatch(/not found/);
  });
});

describe("s02 the loop with the registry", () => {
  it("runs the default task: several tools, one unknown, the file really edited, every call answered by id", async () => {
    const root = await workspace();
    const llm = scripted();
    const history: Anthropic.MessageParam[] = [{ role: "user", content: S02_TASK }];
    const final = await lesson.agentLoop(llm, history, new ToolRegistry(defaultTools()), { root });
    await expectSendable(llm, history);
    expect(final.stop_reason).toBe("end_turn");

    const asked = history.flatMap((m) => (m.role === "assistant" ? callsOf(m) : []));
    expect(asked.map((c) => c.name)).toEqual(["list_files", "read_file", "edit_file", "run_tests", "bash"]);
    // The edit went to edit_file and really happened in the workspace.
    expect(await readFile(`${root}/src/greet.mjs`, "utf8")).toContain("`Hello, ${name}!`");
    // Each result answers its own call, and only the unknown tool's result is an error.
    for (let i = 1; i < history.length - 1; i += 2) {
      const [c] = callsOf(history[i]);
      const [r] = resultsOf(history[i + 1]);
      expect(r!.tool_use_id).toBe(c!.id);
      expect(Boolean(r!.is_error), `${c!.name} → ${textOfResult(r!)}`).toBe(c!.name === "run_tests");
    }
    expect(textOfResult(resultsOf(history[10])[0]!)).toContain("passed");
  });

  it("offers the registry's definitions to the API on every request", async () => {
    const { tools } = recordingTools();
    const registry = new ToolRegistry(tools);
    const scenario: Scenario = { id: "test-one-call", title: "one call", reply: steps(() => ({ content: [call("alpha", { x: "1" })] }), () => say("ok")) };
    const llm = scripted({ scenario });
    await lesson.agentLoop(llm, [{ role: "user", content: "go" }], registry, { root: process.cwd() });
    const offered = llm.scripted.exchanges.map((e) => ((e.request as Anthropic.MessageCreateParams).tools ?? []).map((t) => ("name" in t ? t.name : "?")));
    expect(offered).toEqual([["alpha", "beta", "failing"], ["alpha", "beta", "failing"]]);
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
    const llm = scripted({ scenario });
    const history: Anthropic.MessageParam[] = [{ role: "user", content: "mixed" }];
    const final = await lesson.agentLoop(llm, history, new ToolRegistry(tools), { root: process.cwd() });
    await expectSendable(llm, history);

    expect(ran).toEqual([
      { tool: "beta", input: { x: "b" } },
      { tool: "alpha", input: { x: "a" } },
    ]);
    const calls = callsOf(history[1]);
    const results = resultsOf(history[2]);
    expect(results.map((r) => r.tool_use_id)).toEqual(calls.map((c) => c.id));
    expect(results.map((r) => Boolean(r.is_error))).toEqual([false, true, false]);
    expect(textOfResult(results[0]!)).toBe("beta got b");
    expect(textOfResult(results[2]!)).toBe("alpha got a");
    expect(final.content[0]).toMatchObject({ type: "text", text: "Got 3 results, 1 error(s)." });
  });

  it("demo() runs the default task offline and returns a transcript that can be sent again", async () => {
    const llm = scripted();
    const history = await lesson.demo(llm);
    expect(history.length).toBe(12);
    await expectSendable(llm, history);
  });
});
