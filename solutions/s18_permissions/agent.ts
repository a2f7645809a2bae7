/**
 * s18_permissions: who may do what.
 *
 * Unlike s17, whose tools ran whenever the model called them (s07 asked only before a bash
 * command that writes), every call now passes a permission gate first. The gate asks
 * permissions.ts for a verdict: the rules of the user's and the project's settings files (deny
 * beats ask beats allow), then the run's mode (default, acceptEdits, plan, bypassPermissions).
 * A denied call is not run: it is answered with an is_error tool_result that names the rule, so
 * every tool_use still has its result and the model can change course. An "ask" goes to the
 * approver (s07's terminal question, or --yes). In plan mode the model may only read until the
 * user approves the plan it sends with exit_plan_mode; the run then goes on, the plan in its context.
 * The gate reaches s17's loop through s11's `dispatch` hook: it wraps the run's registry once
 * every extension has added its tools, so every call passes it (MCP's, memory's, jobs', a
 * subagent's, a tool a later lesson adds), under its own name; a tool that runs a command
 * (bash_background) meets bash's rules too. The base tools keep their own questions (a file
 * planted for later, tests run with no sandbox): they go to the same person, in every mode.
 *
 * Run: npm run lesson s18 -- --solution ["your task"]   (the rules of examples/login-service/.agent/settings.json)
 */
import type Anthropic from "@anthropic-ai/sdk";
import type { Llm } from "../../runtime/client.ts";
import { CourseError } from "../../runtime/env.ts";
import { lesson, transcriptOf } from "../../runtime/lesson.ts";
import { dim, say } from "../../runtime/print.ts";
import { lessonTask, SAMPLE_REPOSITORY } from "../../runtime/tasks.ts";
import { ToolError } from "../../runtime/tools/files.ts";
import { sandboxInfo } from "../../runtime/tools/sandbox.ts";
import type { ToolContext, ToolRegistry, ToolSpec } from "../../solutions/s02_tool_dispatch/registry.ts";
import { SafeToolRegistry } from "../../solutions/s04_tool_errors/define-tool.ts";
import { refuseAll, terminalApprover } from "../../solutions/s07_safe_tools/approval.ts";
import { createLogger } from "../../solutions/s09_observability/log.ts";
import { withTools, type Extension } from "../../solutions/s11_recovery/extend.ts";
import { capstoneTools } from "../../solutions/s12_guarded_agent/agent.ts";
import { runAgent as mcpLoop, DEFAULT_MAX_TOKENS, system, type RecoveredOutcome, type RunOptions as McpOptions } from "../../solutions/s17_mcp/agent.ts";
import { EXIT_PLAN, MODES, loadRules, userConfigDir, type Mode, type Rule, type Verdict } from "./permissions.ts";
import { Policy, commandOf, describeCall, type Screen } from "./policy.ts";

export { system, DEFAULT_MAX_TOKENS, type RecoveredOutcome };
export { Policy, commandOf, describeCall, type Screen };

export const TASK = lessonTask("s18_permissions");

export interface RunOptions extends McpOptions {
  /** What a call no rule decides gets (default "default": ask for anything that is not read-only). */
  permissionMode?: Mode;
  /** The rules (default: the user's settings file and the workspace's .agent/settings.json). */
  rules?: readonly Rule[];
  /** The user's config folder, for its settings.json (default userConfigDir()). */
  userConfigDir?: string;
  /** Is the OS sandbox on? (default: sandboxInfo()); bypassPermissions needs it. */
  sandboxed?: boolean;
  /** Each verdict, as it is given (to show it). */
  onVerdict?: (call: Anthropic.ToolUseBlock, verdict: Verdict) => void;
  /** Run after the rules and the mode, before the question (s19's PreToolUse hooks). */
  screen?: Screen;
}

/** A mode the run cannot take: bypassPermissions without the sandbox, or a name that is no mode. */
export class PermissionModeError extends CourseError {}

// #region gate
/** `inner`'s tools, each call judged first: denied, asked about, or passed on to `inner`. */
export class PermissionGate extends SafeToolRegistry {
  constructor(
    private readonly inner: ToolRegistry,
    private readonly policy: Policy,
  ) {
    super(inner.names().map((n) => inner.get(n)!));
  }

  override async dispatch(call: Anthropic.ToolUseBlock, ctx?: ToolContext): Promise<Anthropic.ToolResultBlockParam> {
    const judged = await this.judge(call);
    if (judged.type === "tool_result") return judged;
    this.policy.let(commandOf(judged));
    return this.inner.dispatch(judged, ctx);
  }

  /** The rules, then the mode, then the screen (s19's hooks), then the question: the call that runs, or the result that answers it. */
  async judge(call: Anthropic.ToolUseBlock): Promise<Anthropic.ToolUseBlock | Anthropic.ToolResultBlockParam> {
    let verdict = this.policy.verdict(call, this.inner.get(call.name));
    const denied = await this.refusal(call, verdict, false);
    if (denied) return denied;
    const screened = (await this.policy.screen?.(call)) ?? {};
    if (screened.refused) return { type: "tool_result", tool_use_id: call.id, is_error: true, content: `Not run: ${screened.refused}.` };
    // A changed input is judged again: the rules hold for what runs.
    const judged = screened.input ? { ...call, input: screened.input } : call;
    if (screened.input) verdict = this.policy.verdict(judged, this.inner.get(call.name));
    return (await this.refusal(judged, verdict, screened.allow !== true)) ?? judged;
  }

  /** null when the call may run; otherwise the result that answers it instead (`ask`: put the question now). */
  async refusal(call: Anthropic.ToolUseBlock, verdict: Verdict, ask: boolean): Promise<Anthropic.ToolResultBlockParam | null> {
    // NEW: a denied call is not run, and still answered: an is_error result that says why (the rule
    // and its file), so the pairing holds and the model can choose another way.
    if (verdict.behavior === "deny") return { type: "tool_result", tool_use_id: call.id, is_error: true, content: `Not run: ${verdict.reason}.` };
    if (verdict.behavior === "ask" && ask) {
      const answer = await this.policy.approve({ command: describeCall(call), reason: verdict.reason });
      if (!answer.approved) return { type: "tool_result", tool_use_id: call.id, is_error: true, content: `Not run: the user did not allow it (${answer.why}).` };
    }
    return null;
  }
}
// #endregion gate

/** Plan mode's way out: the model sends its plan; the user approves it (the run goes on in default mode) or not. */
export function exitPlanTool(policy: Policy): ToolSpec {
  return {
    name: EXIT_PLAN,
    description: "Plan mode: send your plan to the user for approval. Once approved, you may change files and run commands to carry it out.",
    input_schema: { type: "object", properties: { plan: { type: "string", description: "The steps you will take, in order" } }, required: ["plan"] },
    // It changes nothing in the workspace: plan mode lets it through; the user is asked here.
    readOnly: true,
    run: async (input) => {
      if (policy.mode !== "plan") throw new ToolError("the plan was approved already: carry it out");
      const plan = typeof input.plan === "string" ? input.plan.trim() : "";
      if (!plan) throw new ToolError("send the plan as `plan`: the steps you will take");
      const answer = await policy.approve({ command: `carry out this plan:\n${plan}`, reason: "plan mode: the model asks you to approve its plan" });
      if (!answer.approved) throw new ToolError(`the user did not approve the plan (${answer.why}). Read more if you need to, then send a revised plan`);
      policy.mode = "default";
      return `The user approved the plan. You may now change files and run commands (each still passes the permission rules). The plan:\n${plan}`;
    },
  };
}

/** The run's policy from its options; bypassPermissions only where the OS sandbox is on. */
export function policyFor(opts: RunOptions, root: string): Policy {
  const mode = opts.permissionMode ?? "default";
  if (!MODES.includes(mode)) throw new PermissionModeError(`"${String(mode)}" is not a permission mode: use one of ${MODES.join(", ")}`);
  if (mode === "bypassPermissions" && !(opts.sandboxed ?? sandboxInfo().kind !== "none"))
    throw new PermissionModeError(`bypassPermissions never asks, so it runs only inside the OS sandbox, and there is none here (${sandboxInfo().why ?? "COURSE_SANDBOX is off"}): use acceptEdits or default`);
  return new Policy(mode, opts.rules ?? loadRules(root, opts.userConfigDir ?? userConfigDir()), opts.approve ?? terminalApprover(), root, opts.onVerdict, opts.screen);
}

// #region loop
/** NEW: in plan mode, the way out of it; and at dispatch, every call of the run behind the gate. */
export const permissions =
  (policy: Policy): Extension =>
  () => ({
    tools: (tools) => (policy.mode === "plan" ? withTools(tools, exitPlanTool(policy)) : tools),
    dispatch: (tools) => new PermissionGate(tools, policy),
  });

/** s17's loop, with permissions. `history` grows in place; returns how the run ended. */
export async function runAgent(llm: Llm, history: Anthropic.MessageParam[], opts: RunOptions = {}): Promise<RecoveredOutcome> {
  const root = opts.root ?? process.cwd();
  const policy = policyFor(opts, root);
  // The base tools ask their own questions (planted files, tests with no sandbox) of the same person.
  const registry = opts.registry ?? new SafeToolRegistry(capstoneTools(root, policy.toolApprover));
  return mcpLoop(llm, history, { ...opts, root, registry, extensions: [permissions(policy), ...(opts.extensions ?? [])] });
}
// #endregion loop

/** The default task on a scratch copy of the sample repository, under its .agent/settings.json (what the rules do not allow is refused). */
export const demo = (llm: Llm, task = TASK) => transcriptOf(task, SAMPLE_REPOSITORY, (history, root) => runAgent(llm, history, { root, approve: refuseAll, userConfigDir: root }));

lesson(import.meta.url, {
  task: TASK,
  workspace: SAMPLE_REPOSITORY,
  before: () => say(dim("permissions: the rules of examples/login-service/.agent/settings.json, mode default (ask for anything not read-only)")),
  run: ({ llm, history, root, signal, flag }) =>
    runAgent(llm, history, {
      root,
      signal,
      onEvent: createLogger({ verbose: flag("verbose") }),
      onVerdict: (call, v) => say(dim(`  permission: ${call.name} → ${v.behavior} (${v.reason})`)),
    }),
  printAnswer: false,
});
