/**
 * s11's extension points (solutions/s11_recovery/extend.ts) compose in any order: a `tools` hook
 * that adds a tool keeps the dispatch of the registry it wraps (s17's MCP servers, a permission
 * gate), and `request` may set any field of the request (a tool_choice) beside s13's markers.
 */
import type Anthropic from "@anthropic-ai/sdk";
import { describe, expect, it } from "vitest";
import { say } from "../../runtime/scripted/scenarios/script.ts";
import { scripted } from "../../runtime/testing.ts";
import type { ToolRegistry, ToolSpec } from "../../solutions/s02_tool_dispatch/registry.ts";
import { SafeToolRegistry } from "../../solutions/s04_tool_errors/define-tool.ts";
import { RunGuards } from "../../solutions/s06_guards/guards.ts";
import { Extensions, withTools, type Extension } from "../../solutions/s11_recovery/extend.ts";
import { runAgent as cachingLoop } from "../../solutions/s13_caching/agent.ts";
import { withTool } from "../../solutions/s14_planning/agent.ts";
import { McpRegistry, type McpServers } from "../../solutions/s17_mcp/mcp.ts";

const spec = (name: string): ToolSpec => ({ name, description: name, input_schema: { type: "object" }, run: () => `${name} ran` });
const call = (name: string): Anthropic.ToolUseBlock => ({ type: "tool_use", id: `toolu_${name}`, name, input: {} }) as Anthropic.ToolUseBlock;
const text = (r: Anthropic.ToolResultBlockParam) => (typeof r.content === "string" ? r.content : (r.content ?? []).map((b) => (b.type === "text" ? b.text : "")).join(""));

/** An MCP server set with one tool, answered by the servers' own dispatch (never by a spec's run). */
const servers = {
  specs: () => [{ ...spec("mcp__notes__search"), run: () => "WRONG: the spec ran instead of the server" }],
  call: async (c: Anthropic.ToolUseBlock) => ({ type: "tool_result" as const, tool_use_id: c.id, content: "the server answered" }),
} as unknown as McpServers;

/** A gate in the style of s18: a wrapper whose dispatch refuses `write` and passes the rest on. */
class Gate extends SafeToolRegistry {
  constructor(private readonly inner: ToolRegistry) {
    super(inner.names().map((n) => inner.get(n)!));
  }
  override dispatch(c: Anthropic.ToolUseBlock, ctx?: Parameters<ToolRegistry["dispatch"]>[1]) {
    return c.name === "write" ? Promise.resolve({ type: "tool_result" as const, tool_use_id: c.id, is_error: true, content: "gated" }) : this.inner.dispatch(c, ctx);
  }
}

const EXTENSIONS: Record<string, Extension> = {
  todo: () => ({ tools: (t) => withTool(t, spec("todo")) }),
  skills: () => ({ tools: (t) => withTools(t, spec("load_skill"), spec("task")) }),
  mcp: () => ({ tools: (t) => new McpRegistry(t, servers) }),
  gate: () => ({ tools: (t) => new Gate(t) }),
};

function permutations<T>(xs: T[]): T[][] {
  return xs.length <= 1 ? [xs] : xs.flatMap((x, i) => permutations([...xs.slice(0, i), ...xs.slice(i + 1)]).map((p) => [x, ...p]));
}

describe("extensions compose in any order", () => {
  const orders = permutations(Object.keys(EXTENSIONS));
  it.each(orders.map((o) => [o.join(" → "), o]))("%s: every tool is offered once and each call reaches its own handler", async (_name, order) => {
    const run = { guard: new RunGuards(), root: process.cwd() };
    const registry = new Extensions((order as string[]).map((k) => EXTENSIONS[k]!), run).tools(new SafeToolRegistry([spec("read"), spec("write")]));
    const names = registry.definitions().map((d) => d.name);
    expect(new Set(names).size, `a tool is offered twice: ${names.join(", ")}`).toBe(names.length);
    expect([...names].sort()).toEqual(["load_skill", "mcp__notes__search", "read", "task", "todo", "write"]);
    const out = async (name: string) => text(await registry.dispatch(call(name)));
    // The MCP registry's dispatch is kept, whatever was added after it.
    expect(await out("mcp__notes__search"), "the MCP tool's call did not reach the servers: a later tools hook rebuilt the registry and lost its dispatch").toBe("the server answered");
    // The gate wraps the base tools in every order: a later hook must not unwrap it.
    expect(await out("write"), "the gate's dispatch was lost: a later tools hook rebuilt the registry from its specs").toBe("gated");
    for (const name of ["read", "todo", "load_skill", "task"]) expect(await out(name)).toBe(`${name} ran`);
  });

  it("an added tool whose name the registry has already keeps the registry's", async () => {
    const base = new SafeToolRegistry([spec("todo")]);
    expect(withTool(base, { ...spec("todo"), run: () => "the newcomer" })).toBe(base);
  });
});

describe("the request hook may set any field of the request", () => {
  it("a tool_choice set by one extension is sent beside s13's cache markers, in either order", async () => {
    const choose: Extension = () => ({ request: () => ({ tool_choice: { type: "auto", disable_parallel_tool_use: true } }) });
    for (const extensions of [[choose], []]) {
      const llm = scripted({ scenario: { id: "t", title: "t", reply: () => say("done") } });
      const history: Anthropic.MessageParam[] = [{ role: "user", content: "hello" }];
      // s13 puts its own extension first; `choose` comes after it (or not at all).
      await cachingLoop(llm, history, { extensions, registry: new SafeToolRegistry([spec("read")]) });
      const sent = llm.scripted.exchanges[0]!.request as Anthropic.MessageCreateParams;
      expect(sent.tool_choice).toEqual(extensions.length ? { type: "auto", disable_parallel_tool_use: true } : undefined);
      expect(JSON.stringify(sent.system)).toContain("cache_control");
      expect(sent.model).toBe(llm.model);
    }
  });

  it("fields an extension does not return are kept as the loop made them", () => {
    const run = { guard: new RunGuards(), root: process.cwd() };
    const ext = new Extensions([() => ({ request: (r) => ({ max_tokens: r.max_tokens * 2 }) }), () => ({ request: () => ({ tool_choice: { type: "any" } }) })], run);
    const out = ext.request({ model: "m", max_tokens: 100, system: "s", tools: [], messages: [{ role: "user", content: "x" }] });
    expect(out).toEqual({ model: "m", max_tokens: 200, system: "s", tools: [], messages: [{ role: "user", content: "x" }], tool_choice: { type: "any" } });
  });
});
