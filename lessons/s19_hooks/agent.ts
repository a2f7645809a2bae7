/**
 * s19_hooks: the team's checks in the loop.
 *
 * Unlike s18, whose rules were data the agent read, a team can now run its own commands at the
 * loop's steps (hooks.ts: configured in the same settings files, run in the sandbox with a
 * timeout, a JSON event on stdin, an exit code and JSON back). Before a tool call (PreToolUse) a
 * hook may deny it with a reason, change its input or allow it unasked; after it (PostToolUse) a
 * hook may add context for the model; when the user's prompt is submitted (UserPromptSubmit) it
 * may add context too; and when the model says it is done (Stop) a hook may send it back with a
 * reason ("the tests still fail"), a bounded number of times. A hook never gets past s18's gate:
 * PreToolUse runs after the rules and the mode (s18's Screen), only for a call they let through;
 * a changed input is judged by the rules again, and an "allow" only spares the question. A hook
 * for `bash` sees every tool that runs a command (bash_background). A broken hook is reported
 * and changes nothing. The tool hooks reach s18's loop through s11's `dispatch` hook (inside the
 * gate, whatever extension added the tool) and `answer`; the Stop hook wraps the run, as s17
 * wraps its MCP servers around the loop. The rules and hooks are read once, when the run starts.
 *
 * Run: npm run lesson s19 ["your task"]    Check: npm run check s19
 * Your work is here: HookRun.pre and HookedTools.dispatch (the tool hooks) and runAgent (the Stop hook); hooks.ts runs them.
 */
import type Anthropic from "@anthropic-ai/sdk";
import type { Llm } from "../../runtime/client.ts";
import { lesson, todo, transcriptOf } from "../../runtime/lesson.ts";
import { dim, say, yellow } from "../../runtime/print.ts";
import { lessonTask, SAMPLE_REPOSITORY } from "../../runtime/tasks.ts";
import type { ToolContext, ToolRegistry } from "../../solutions/s02_tool_dispatch/registry.ts";
import { SafeToolRegistry } from "../../solutions/s04_tool_errors/define-tool.ts";
import { refuseAll } from "../../solutions/s07_safe_tools/approval.ts";
import { createLogger } from "../../solutions/s09_observability/log.ts";
import type { Extension } from "../../solutions/s11_recovery/extend.ts";
import { runAgent as permissionLoop, commandOf, DEFAULT_MAX_TOKENS, type Screen, system, type RecoveredOutcome, type RunOptions as PermissionOptions } from "../../solutions/s18_permissions/agent.ts";
import { loadRules, userConfigDir } from "../../solutions/s18_permissions/permissions.ts";
import { Hooks, describeProblem, loadHooks, type Hook, type HookProblem } from "./hooks.ts";

export { system, DEFAULT_MAX_TOKENS, type RecoveredOutcome };

export const TASK = lessonTask("s19_hooks");

/** How many times Stop hooks may send the model back in one run: then the run ends as the model said. */
export const MAX_STOP_ROUNDS = 3;

export interface RunOptions extends PermissionOptions {
  /** The hooks (default: those of the user's settings file and the workspace's .agent/settings.json). */
  hooks?: readonly Hook[];
  /** Each hook that crashed, hung or printed garbage (default: a line on the terminal). */
  onHookProblem?: (p: HookProblem) => void;
  /** At most this many Stop hook rounds (default MAX_STOP_ROUNDS). */
  maxStopRounds?: number;
}

const textOf = (content: Anthropic.ToolResultBlockParam["content"]) => (typeof content === "string" ? content : (content ?? []).map((b) => (b.type === "text" ? b.text : "")).join("\n"));

/** What the model is told that a hook said: marked as a hook's, never as the user's words. */
export const hookNote = (event: string, text: string) => `[${event} hook] ${text}`;

/** The names a tool hook's matcher is tried on: the tool's own, and "bash" for a tool that runs a command. */
export const hookNames = (call: Anthropic.ToolUseBlock): string[] => (commandOf(call) !== undefined && call.name !== "bash" ? [call.name, "bash"] : [call.name]);

/** The run's hooks, and what they said during a turn that goes with its results. */
export class HookRun {
  /** Notes for the model, sent after this turn's results. */
  readonly notes: string[] = [];

  constructor(readonly hooks: Hooks) {}

  // #region gate
  /** PreToolUse, s18's Screen: after the rules and the mode let the call through, before the question. */
  readonly pre: Screen = async (call) => {
    // TODO: const pre = await this.hooks.run("PreToolUse", { tool_name: call.name, tool_input: call.input }, hookNames(call)).
    //       pre.decision "block" → return { refused: <a reason that says a PreToolUse hook blocked it, with pre.reason or "no reason given"> }
    //       (s18's gate answers "Not run: …" and never runs it). pre.updatedInput → return it as `input` (the gate judges
    //       and runs that input instead) and tell the model in this.notes: ONE line, hookNote("PreToolUse", …) naming the
    //       call and its new input (JSON.stringify(pre.updatedInput)). pre.decision "allow" → allow: true
    //       (the gate does not ask; its deny rules still hold). Never run the tool yourself.
    void [hookNames, hookNote]; // (delete this line when you use them)
    return todo(`s19 HookRun.pre: the PreToolUse hooks on a ${call.name} call`);
  };
}

/** `inner`'s tools, inside s18's gate: each call that ran passed to the PostToolUse hooks. */
export class HookedTools extends SafeToolRegistry {
  constructor(
    private readonly inner: ToolRegistry,
    private readonly run: HookRun,
  ) {
    super(inner.names().map((n) => inner.get(n)!));
  }

  override async dispatch(call: Anthropic.ToolUseBlock, ctx?: ToolContext): Promise<Anthropic.ToolResultBlockParam> {
    // TODO: PostToolUse: const result = await this.inner.dispatch(call, ctx); then await this.run.hooks.run("PostToolUse",
    //       { tool_name, tool_input, tool_response: { is_error, content: textOf(result.content) } }, hookNames(call)); when it
    //       returns a context, push hookNote("PostToolUse", `${call.name}: ${context}`) to this.run.notes (sent after the
    //       turn's results). Return the result.
    void [textOf, ctx]; // (delete this line when you use them)
    return todo(`s19 HookedTools: the PostToolUse hooks after a ${call.name} call`);
  }
  // #endregion gate
}

// #region loop
/** NEW: at dispatch (inside s18's gate, whatever extension added the tool), the PostToolUse hooks; their notes after the turn's results. */
export const hooked =
  (run: HookRun): Extension =>
  () => ({
    dispatch: (tools) => (run.hooks.has("PostToolUse") ? new HookedTools(tools, run) : tools),
    answer: (results) => (run.notes.length ? [...results, { type: "text", text: run.notes.splice(0).join("\n") }] : results),
  });

/** s18's loop, with hooks. `history` grows in place; returns how the run ended. */
export async function runAgent(llm: Llm, history: Anthropic.MessageParam[], opts: RunOptions = {}): Promise<RecoveredOutcome> {
  const root = opts.root ?? process.cwd();
  const userDir = opts.userConfigDir ?? userConfigDir();
  const hooks = new Hooks(opts.hooks ?? loadHooks(root, userDir), root, opts.onHookProblem ?? ((p) => say(yellow(`  hook: ${describeProblem(p)}`))), opts.signal);
  const run = new HookRun(hooks);
  await promptSubmitted(hooks, history);
  // The rules are read once: a settings file changed during the run (a Stop round) changes nothing until the next.
  const screen = hooks.has("PreToolUse") ? { screen: run.pre } : {};
  const loopOpts: PermissionOptions = { ...opts, root, rules: opts.rules ?? loadRules(root, userDir), ...screen, extensions: [hooked(run), ...(opts.extensions ?? [])] };
  for (let round = 0; ; round++) {
    const outcome = await permissionLoop(llm, history, loopOpts);
    if (outcome.status !== "done" || !hooks.has("Stop")) return outcome;
    // TODO: the model says it is done: const stop = await hooks.run("Stop", { stop_hook_active: round > 0, last_assistant_message: <its text> }).
    //       No block → return outcome. A block → send the model back: say so to the person, with stop.reason ("no reason
    //       given" when there is none); push a user message hookNote("Stop", …) with stop.reason (none: say that a Stop hook
    //       blocked the end of the run), and let the loop run again; but once round reaches opts.maxStopRounds ??
    //       MAX_STOP_ROUNDS, say so, with the reason, and return outcome (a hook that always objects must not loop forever).
    void round; // (delete this line when you use it)
    return todo(`s19 runAgent: the Stop hooks after the model's answer (round ${round})`);
  }
}
// #endregion loop

/** UserPromptSubmit: the hooks see the prompt (the last user message); what they add goes with it, marked as theirs. */
async function promptSubmitted(hooks: Hooks, history: Anthropic.MessageParam[]): Promise<void> {
  const last = history.at(-1);
  if (!hooks.has("UserPromptSubmit") || last?.role !== "user") return;
  const blocks: Anthropic.ContentBlockParam[] = typeof last.content === "string" ? [{ type: "text", text: last.content }] : last.content;
  if (blocks.some((b) => b.type === "tool_result")) return;
  const said = await hooks.run("UserPromptSubmit", { prompt: blocks.map((b) => (b.type === "text" ? b.text : "")).join("\n") });
  if (said.context) last.content = [...blocks, { type: "text", text: hookNote("UserPromptSubmit", said.context) }];
}

/** The default task on a scratch copy of the sample repository: its Stop hook runs the tests (file edits accepted). */
export const demo = (llm: Llm, task = TASK) =>
  transcriptOf(task, SAMPLE_REPOSITORY, (history, root) => runAgent(llm, history, { root, approve: refuseAll, userConfigDir: root, permissionMode: "acceptEdits", onHookProblem: () => {} }));

lesson(import.meta.url, {
  task: TASK,
  workspace: SAMPLE_REPOSITORY,
  before: () => say(dim("hooks: those of examples/login-service/.agent/settings.json (a Stop hook runs the tests); file edits accepted")),
  run: ({ llm, history, root, signal, flag }) => runAgent(llm, history, { root, signal, permissionMode: "acceptEdits", onEvent: createLogger({ verbose: flag("verbose") }) }),
  printAnswer: false,
});
