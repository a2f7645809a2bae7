/**
 * s07_safe_tools: tools that cannot hurt you.
 *
 * Unlike s06, whose tools went wherever a path or a command pointed, the loop now gets its tools
 * from safe-tools.ts: file paths confined to the workspace (workspace.ts: `..`, absolute paths
 * and symlinks out are refused), bash with an output cap, a timeout that kills the whole process
 * group and an environment without keys (safe-bash.ts), and, in place of a substring block list
 * (blocklist.ts shows three bypasses live), read-only commands that run freely while anything
 * else asks for approval (approval.ts): y/n on a terminal, refused without one unless --yes.
 * The loop itself is s06's, unchanged (imported): safety lives in the tools, where every call passes.
 *
 * Run: npm run lesson s07 -- --solution [--yes] ["your task"]
 */
import type Anthropic from "@anthropic-ai/sdk";
import type { Llm } from "../../runtime/client.ts";
import { lesson, transcriptOf } from "../../runtime/lesson.ts";
import { dim, green, heading, red, say } from "../../runtime/print.ts";
import { S07_TASK, S07_WORKSPACE } from "../../runtime/tasks.ts";
import { SafeToolRegistry } from "../../solutions/s04_tool_errors/define-tool.ts";
import { describeOutcome } from "../../solutions/s05_stop_reasons/outcome.ts";
import type { GuardedOutcome } from "../../solutions/s06_guards/guards.ts";
import { runAgent as guardedLoop, type RunOptions as GuardedOptions } from "../../solutions/s06_guards/agent.ts";
import { demoApprover, terminalApprover, type Approver } from "./approval.ts";
import { runBypasses } from "./blocklist.ts";
import { safeTools } from "./safe-tools.ts";

export { system, DEFAULT_MAX_TOKENS } from "../../solutions/s06_guards/agent.ts";

/** s06's options; the tools default to s04's made safe, confined to `root`, which they cannot leave. */
export interface RunOptions extends GuardedOptions {
  /** Asked before a command that is not read-only (default: y/n on the terminal, refused without one). */
  approve?: Approver;
}

// #region loop
/** s06's loop, unchanged; only its tools are now the safe ones, confined to the workspace. */
export function runAgent(llm: Llm, history: Anthropic.MessageParam[], opts: RunOptions = {}): Promise<GuardedOutcome> {
  const workspace = opts.root ?? process.cwd();
  const registry = opts.registry ?? new SafeToolRegistry(safeTools({ workspace, approve: opts.approve ?? terminalApprover() }));
  return guardedLoop(llm, history, { ...opts, registry });
}
// #endregion loop

/** The lesson's default task in a scratch workspace; the marker command is approved. */
export const demo = (llm: Llm, task = S07_TASK) => transcriptOf(task, S07_WORKSPACE, (history, root) => runAgent(llm, history, { root, approve: demoApprover(llm) }));

/** A substring block list against three bypasses, run live on harmless stand-ins. */
function showBypasses(): void {
  heading("A substring block list, and three ways around it");
  for (const r of runBypasses()) {
    say(`${r.command.padEnd(28)} block list: ${r.blocked ? green("blocked") : red("allowed")}   ${r.ran}`);
    say(dim(`${"".padEnd(28)} ${r.how}`));
  }
  say("");
}

// The default task runs in a scratch workspace; a task of your own works on the current directory.
lesson(import.meta.url, {
  task: S07_TASK,
  workspace: S07_WORKSPACE,
  before: ({ isDefault, flag }) => {
    if (flag("yes")) say("(--yes: every command approved)");
    if (isDefault) showBypasses();
  },
  run: ({ llm, history, root, flag }) => runAgent(llm, history, { root, approve: terminalApprover({ yes: flag("yes") }) }),
  describe: describeOutcome,
});
