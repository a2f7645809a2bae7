/**
 * One gate at dispatch (issue 31): every tool call of the final agent, whichever lesson or
 * extension added its tool, passes s18's rules, then the mode, then s19's hooks, under its own
 * name. A tool is added at every extension point (the base registry, a `tools` hook before the
 * gate's extension (s14's todo) and after it, an MCP server set, s20's memory, s22's jobs, a
 * subagent's registry), and a deny rule, plan mode and a blocking PreToolUse hook each stop it.
 * A property test draws tools × the four modes × rules and checks the gate applies decide()'s verdict.
 */
import { existsSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type Anthropic from "@anthropic-ai/sdk";
import fc from "fast-check";
import { describe, it } from "vitest";
import { call, say, text } from "../../runtime/scripted/scenarios/script.ts";
import type { Scenario, TurnContext } from "../../runtime/scripted/types.ts";
import { assertProperty, driveLoop, resultsIn, rule, scripted, textIn } from "../../runtime/testing.ts";
import { scratchWorkspace } from "../../runtime/tools/files.ts";
import type { ToolSpec } from "../../solutions/s02_tool_dispatch/registry.ts";
import { SafeToolRegistry } from "../../solutions/s04_tool_errors/define-tool.ts";
import type { Approver } from "../../solutions/s07_safe_tools/approval.ts";
import { withTools } from "../../solutions/s11_recovery/extend.ts";
import type { McpServers } from "../../solutions/s17_mcp/mcp.ts";
import { PermissionGate, Policy } from "../../solutions/s18_permissions/agent.ts";
import { MODES, decide, parseRule, type Mode } from "../../solutions/s18_permissions/permissions.ts";
import type { Hook } from "../../solutions/s19_hooks/hooks.ts";
import type { ChildRun } from "../../solutions/s15_subagents/task-tool.ts";
import { runAgent } from "../../solutions/s22_background/agent.ts";
import { quietLessonFile } from "../support.ts";

const keep = quietLessonFile();

/** A tool that leaves a file named after itself when it runs: whether it ran is on disk. */
const probe = (name: string, root: string, readOnly = false): ToolSpec => ({
  name,
  description: `leaves ${name}.ran in the workspace`,
  input_schema: { type: "object" },
  readOnly,
  run: () => {
    writeFileSync(join(root, `${name}.ran`), "ran\n");
    return `${name} ran`;
  },
});

/** An MCP server set with one tool, answered by the servers' own dispatch. */
const mcpLike = (root: string) =>
  ({
    specs: () => [{ ...probe("mcp__notes__probe", root), run: () => "WRONG: the spec ran instead of the server" }],
    call: async (c: Anthropic.ToolUseBlock) => {
      writeFileSync(join(root, "mcp__notes__probe.ran"), "ran\n");
      return { type: "tool_result" as const, tool_use_id: c.id, content: "the server answered" };
    },
  }) as unknown as McpServers;

/** Each extension point, the call that reaches a tool added there, and what shows it ran. */
const POINTS = [
  { point: "the base registry", call: () => call("probe_base", {}), ran: "probe_base.ran" },
  { point: "a tools hook before the gate's extension (s14's todo)", call: () => call("todo", { items: [{ content: "x", status: "in_progress" }] }), ran: null },
  { point: "a tools hook after the gate's extension", call: () => call("probe_after", {}), ran: "probe_after.ran" },
  { point: "an MCP server", call: () => call("mcp__notes__probe", {}), ran: "mcp__notes__probe.ran" },
  { point: "s20's memory tool", call: () => call("memory", { command: "create", path: "n.md", file_text: "planted\n" }), ran: ".agent/memory/n.md" },
  { point: "s22's bash_background", call: () => call("bash_background", { command: "touch job.ran" }), ran: null },
  { point: "a subagent's registry (s15's task tool)", call: () => call("task", { description: "probe", prompt: "CHILD: call probe_child", tools: ["probe_child"] }), ran: "probe_child.ran" },
] as const;

/** The parent makes one call per turn; a subagent (its prompt starts CHILD) calls probe_child once. */
const scenario: Scenario = {
  id: "gate_test",
  title: "a call at every extension point",
  reply: (ctx: TurnContext) => {
    if (ctx.firstPrompt.startsWith("CHILD")) return ctx.step === 0 ? { content: [call("probe_child", {})] } : say("child done");
    return ctx.step < POINTS.length ? { content: [text("Next."), POINTS[ctx.step]!.call()] } : say("done");
  },
};

const yes: Approver = async () => ({ approved: true });

async function runAll(blocker: { rules?: string[]; mode?: Mode; hook?: boolean }) {
  const root = keep(await scratchWorkspace({ "notes.txt": "keep me\n" }));
  const rules = (blocker.rules ?? []).map((t) => parseRule(t, "deny", "the test's rules"));
  const hooks: Hook[] = blocker.hook ? [{ event: "PreToolUse", command: "echo 'the hook says no' >&2; exit 2", matcher: /^(?:probe_.*|todo|mcp__.*|memory|bash)$/, timeoutMs: 30_000, source: "the test" }] : [];
  const children: ChildRun[] = [];
  const llm = scripted({ scenario });
  const history: Anthropic.MessageParam[] = [{ role: "user", content: "Call every tool." }];
  await driveLoop(
    llm,
    history,
    () =>
      runAgent(llm, history, {
        root,
        userConfigDir: join(root, ".no-user-config"),
        registry: new SafeToolRegistry([probe("probe_base", root), probe("probe_child", root, true)]),
        extensions: [() => ({ tools: (t) => withTools(t, probe("probe_after", root)) })],
        mcp: mcpLike(root),
        rules,
        hooks,
        permissionMode: blocker.mode ?? "acceptEdits",
        approve: yes,
        sandboxed: true,
        instructions: [],
        onHookProblem: () => {},
        onUntracked: () => {},
        onChild: (c) => children.push(c),
      }),
    { timeoutMs: 60_000 },
  );
  const results = history.flatMap((m) => (m.role === "user" ? resultsIn(m) : []));
  const childResult = children.flatMap((c) => c.history.flatMap((m) => (m.role === "user" ? resultsIn(m) : [])))[0];
  return { root, results, childResult };
}

const shown = (r: Anthropic.ToolResultBlockParam | undefined) => (r ? JSON.stringify({ is_error: r.is_error ?? false, content: textIn(r.content).slice(0, 140) }) : "no result");

describe("one gate at dispatch: every tool, whichever extension point added it", () => {
  it("with nothing to stop them, every tool runs (the probes can see a call run)", async () => {
    const { root, results, childResult } = await runAll({});
    POINTS.forEach((p, i) => {
      const r = p.point.includes("subagent") ? childResult : results[i];
      rule(r?.is_error !== true && (p.ran === null || existsSync(join(root, p.ran))), "permission-ask", () => `the call at ${p.point} did not run with no rule, acceptEdits and a yes (${shown(r)}).`);
    });
  });

  const stoppers = [
    { name: "a deny rule", blocker: { rules: ["probe_*", "todo", "mcp__*", "memory", "bash"] }, says: /denied by the rule/ },
    { name: "plan mode", blocker: { mode: "plan" as Mode }, says: /plan mode/ },
    { name: "a blocking PreToolUse hook (matcher bash for bash_background)", blocker: { hook: true }, says: /the hook says no/ },
  ];
  it.each(stoppers.map((s) => [s.name, s] as const))("%s stops the tool at every extension point", async (_name, s) => {
    const { root, results, childResult } = await runAll(s.blocker);
    POINTS.forEach((p, i) => {
      const child = p.point.includes("subagent");
      // A subagent has read-only tools only, which plan mode lets through: plan mode is no stop for them.
      if (child && s.blocker.mode === "plan") return;
      const r = child ? childResult : results[i];
      rule(
        r?.is_error === true && s.says.test(textIn(r.content)) && (p.ran === null || !existsSync(join(root, p.ran))) && !existsSync(join(root, "job.ran")),
        "permission-denied-result",
        () => `${s.name} did not stop the call at ${p.point}: it was answered ${shown(r)}. Every call passes s18's gate and s19's hooks at dispatch (s11's dispatch hook), whichever extension added its tool.`,
      );
    });
  });
});

describe("the gate applies decide()'s verdict, in every mode", () => {
  it("property: tools × the four modes × rules: denied calls do not run, asked calls run only on yes, allowed calls run unasked", async () => {
    const tools = ["read_file", "write_file", "probe", "mcp__notes__probe"] as const;
    const ruleText = fc.constantFrom("read_file", "write_file(*.txt)", "write_file", "probe", "mcp__*", "read_file(notes.txt)");
    const lists = fc.record({ allow: fc.array(ruleText, { maxLength: 2 }), ask: fc.array(ruleText, { maxLength: 2 }), deny: fc.array(ruleText, { maxLength: 2 }) });
    const root = keep(await scratchWorkspace({ "notes.txt": "keep me\n" }));
    let n = 0;
    await assertProperty(
      fc.asyncProperty(lists, fc.constantFrom(...tools), fc.constantFrom(...MODES), fc.boolean(), async (lists, tool, mode, answer) => {
        const rules = (["allow", "ask", "deny"] as const).flatMap((b) => lists[b].map((t) => parseRule(t, b, "settings")));
        let asked = 0;
        const approve: Approver = async () => (asked++, answer ? { approved: true } : { approved: false, why: "no" });
        const ran: string[] = [];
        const spec = (name: string, readOnly: boolean): ToolSpec => ({ name, description: name, input_schema: { type: "object" }, readOnly, run: () => (ran.push(name), "ok") });
        const inner = new SafeToolRegistry([spec("read_file", true), spec("write_file", false), spec("probe", false), spec("mcp__notes__probe", false)]);
        const gate = new PermissionGate(inner, new Policy(mode, rules, approve, root));
        const input = tool === "read_file" || tool === "write_file" ? { path: "notes.txt" } : {};
        const r = await gate.dispatch({ type: "tool_use", id: `toolu_p${++n}`, name: tool, input } as Anthropic.ToolUseBlock, { root });
        const want = decide(tool, input, rules, mode, { readOnly: tool === "read_file", root });
        const shouldRun = want.behavior === "allow" || (want.behavior === "ask" && answer);
        const ok = (ran.length === 1) === shouldRun && (r.is_error === true) === !shouldRun && asked === (want.behavior === "ask" ? 1 : 0);
        if (!ok) throw new Error(`[permission-precedence] ${tool} in ${mode} with ${JSON.stringify(lists)}: decide says ${want.behavior} (${want.reason}), the gate ${ran.length ? "ran it" : "did not run it"} after ${asked} question(s) (answer ${answer ? "yes" : "no"}): the gate must apply the verdict, no more, no less.`);
      }),
      { numRuns: 150 },
      "permission-precedence",
    );
  });
});
