/**
 * s12_guarded_agent: the capstone, `npm run agent`.
 *
 * Unlike s11, a lesson script with a default task, this is a program a person points at a real
 * repository: every option the earlier lessons made is a flag (cli.ts): the workspace and the
 * approval of commands that are not read-only (s07), the guards (s06), the logger and the
 * message table (s09), a conversation to resume (s10). A task on the command line is done once
 * (exit 0 when done, 1 when stopped); without one, the conversation of s10 begins (program.ts).
 * The loop is s11's, whole and imported: streaming, parallel read-only tools, guards, events,
 * recovery; this lesson adds the tools a coding agent needs (run_tests) and the flags.
 *
 * Run: npm run lesson s12 -- [--workspace DIR] [--yes] [--verbose] [--trace] ["task"]   (--help for all flags)
 */
import type Anthropic from "@anthropic-ai/sdk";
import type { Llm } from "../../runtime/client.ts";
import { guardPlantedBash } from "../../runtime/tools/planted.ts";
import { runMain, todo, transcriptOf } from "../../runtime/lesson.ts";
import { SAMPLE_REPOSITORY, S12_TASK } from "../../runtime/tasks.ts";
import { SafeToolRegistry, type CheckedTool } from "../../solutions/s04_tool_errors/define-tool.ts";
import type { Guards } from "../../solutions/s06_guards/guards.ts";
import { refuseAll, terminalApprover, type Approver } from "../../solutions/s07_safe_tools/approval.ts";
import type { EventSink } from "../../solutions/s09_observability/events.ts";
import { createLogger } from "../../solutions/s09_observability/log.ts";
import { replOver } from "../../solutions/s10_conversation/agent.ts";
import { runAgent as recoveringLoop, type RecoveredOutcome, type RunOptions } from "../../solutions/s11_recovery/agent.ts";
import type { Flags } from "./cli.ts";
import { capstoneProgram } from "./program.ts";
import { guardedTools } from "./run-tests.ts";

export { system, DEFAULT_MAX_TOKENS, type RunOptions, type RecoveredOutcome } from "../../solutions/s11_recovery/agent.ts";
export type { RunResult } from "./program.ts";

// #region loop
/**
 * The capstone's loop: s11's, whole (guards, streaming with early read-only calls, events,
 * recovery), with the coding agent's tools: s07's safe tools and run_tests.
 */
export function runAgent(llm: Llm, history: Anthropic.MessageParam[], opts: RunOptions = {}): Promise<RecoveredOutcome> {
  const root = opts.root ?? process.cwd();
  const registry = opts.registry ?? new SafeToolRegistry(capstoneTools(root, opts.approve ?? terminalApprover()));
  return recoveringLoop(llm, history, { ...opts, registry });
}
// #endregion loop

/**
 * s07's safe tools (bash asks before anything not read-only) and run_tests (asks only with no
 * sandbox, after a change); a test run, like a command, is checked for files planted for later.
 */
export function capstoneTools(root: string, approve: Approver): CheckedTool[] {
  return guardedTools(root, approve).map((t) => (t.name === "run_tests" ? guardPlantedBash(t, root, approve) : t));
}

// #region run
/** The loop's options from the flags: the workspace, approval, the guards, the logger. */
export function optionsFrom(flags: Flags, onEvent?: EventSink): RunOptions {
  // TODO: the loop's options from the flags: the workspace is `root`; `approve` asks on the terminal
  //       unless --yes (terminalApprover({ yes: flags.yes })); --max-turns, --budget and --timeout set the
  //       guards maxTurns, tokenBudget and timeoutMs (leave out the ones not given); onEvent is the
  //       sink given, or a logger (createLogger({ verbose: flags.verbose })).
  void onEvent;
  return todo(`s12 optionsFrom: turn the flags into the loop's options (workspace ${flags.workspace})`);
}

/** The REPL of s10 over this loop. */
export const createRepl = replOver<RunOptions>(runAgent);

/** The whole program, flags in, exit code and transcript out (program.ts; tests pass their own model). */
export const run = capstoneProgram<RunOptions>({ runAgent, optionsFrom, createRepl });
// #endregion run

/** The failing-login-test task on a scratch copy of the sample repository: run_tests needs no approval, so none is given. */
export const demo = (llm: Llm, task = S12_TASK) =>
  transcriptOf(task, SAMPLE_REPOSITORY, (history, root) => runAgent(llm, history, { root, approve: refuseAll, onEvent: () => {} }));

export { SAMPLE_REPOSITORY };

runMain(import.meta.url, async () => {
  // Ctrl-C stops a one-shot run cleanly (the REPL handles its own Ctrl-C).
  const controller = new AbortController();
  process.once("SIGINT", () => controller.abort());
  const { exitCode } = await run(process.argv.slice(2), { signal: controller.signal });
  process.exitCode = exitCode;
});
