/**
 * s07_safe_tools: tools that cannot hurt you.
 *
 * Unlike s06, whose tools went wherever a path or a command pointed, the loop now gets its tools
 * from safe-tools.ts: file paths confined to the workspace (workspace.ts: `..`, absolute paths
 * and symlinks out are refused), bash with an output cap, a timeout that kills the whole process
 * group and an environment without keys (safe-bash.ts), and, in place of the seed's block list
 * (blocklist.ts shows three bypasses live), read-only commands that run freely while anything
 * else asks for approval (approval.ts): y/n on a terminal, refused without one unless --yes.
 * The loop itself is s06's, unchanged: safety lives in the tools, where every call passes.
 *
 * Run: npx tsx solutions/s07_safe_tools/agent.ts [--yes] ["your task"]
 */
import type Anthropic from "@anthropic-ai/sdk";
import { selectModel, type Llm } from "../../runtime/client.ts";
import { runMain, taskFromArgs } from "../../runtime/lesson.ts";
import { bold, dim, green, printFinal, printToolCall, printToolResult, red, say, sendableLine } from "../../runtime/print.ts";
import { textOf } from "../../runtime/transcript.ts";
import { S07_TASK, S07_WORKSPACE } from "../../runtime/tasks.ts";
import { scratchWorkspace } from "../../runtime/tools/files.ts";
import type { ToolContext, ToolRegistry } from "../../solutions/s02_tool_dispatch/registry.ts";
import { batches, runTools } from "../../solutions/s03_parallel_tools/run-tools.ts";
import { SafeToolRegistry } from "../../solutions/s04_tool_errors/define-tool.ts";
import { answerNotRun, appendResponse, describeOutcome, stoppedBy } from "../../solutions/s05_stop_reasons/outcome.ts";
import { DEFAULT_GUARDS, RepeatCounter, runSignal, tokensOf, type GuardStop, type GuardedOutcome, type Guards } from "../../solutions/s06_guards/guards.ts";
import { approveAll, terminalApprover, type Approver } from "./approval.ts";
import { runBypasses } from "./blocklist.ts";
import { safeTools } from "./safe-tools.ts";

export const system = (root: string) =>
  `You are a coding agent working in ${root}; tool paths are relative to it. Use the tools to act, then answer briefly.`;

export const DEFAULT_MAX_TOKENS = 4096;

export interface RunOptions {
  /** The tools (default: s04's tools made safe, confined to `root`). */
  registry?: ToolRegistry;
  /** The workspace the tools act in and cannot leave (default: the current directory). */
  root?: string;
  /** Asked before a command that is not read-only (default: y/n on the terminal, refused without one). */
  approve?: Approver;
  /** max_tokens of each request; a cut-off answer is asked again once with 4 times as many. */
  maxTokens?: number;
  /** Texts at which the model stops writing (stop_reason "stop_sequence"). */
  stopSequences?: string[];
  /** The run's limits; a field left out keeps its default (DEFAULT_GUARDS). */
  guards?: Partial<Guards>;
  /** Cancels the run from outside (Ctrl-C, a caller's own deadline). */
  signal?: AbortSignal;
}

// #region loop
/** The loop. `history` grows in place; returns how the run ended. */
export async function runAgent({ client, model }: Llm, history: Anthropic.MessageParam[], opts: RunOptions = {}): Promise<GuardedOutcome> {
  const registry = opts.registry ?? new SafeToolRegistry(safeTools({ workspace: opts.root ?? process.cwd(), approve: opts.approve ?? terminalApprover() }));
  const guards: Guards = { ...DEFAULT_GUARDS, ...opts.guards };
  // One signal for the run: the request in flight and the tools running stop when it aborts.
  const run = runSignal(guards.timeoutMs, opts.signal);
  const ctx: ToolContext = { root: opts.root ?? process.cwd(), signal: run.signal };
  const repeats = new RepeatCounter(guards.maxRepeats);
  let maxTokens = opts.maxTokens ?? DEFAULT_MAX_TOKENS;
  let retried = false;
  let turns = 0;
  let used = 0;
  let last: Anthropic.Message | undefined;
  const stop = (reason: GuardStop, detail: string): GuardedOutcome => ({ status: "stopped", reason, detail, turns, ...(last ? { message: last } : {}) });
  const halted = (why: "timeout" | "aborted") =>
    stop(why, why === "timeout" ? `the run reached its time limit of ${guards.timeoutMs / 1000} s; the work in flight was aborted` : "the run was cancelled by its caller");

  /** The guard that ends the run now, or null. Checked before each request. */
  const guardStop = (): GuardedOutcome | null => {
    const why = run.why();
    if (why) return halted(why);
    if (turns >= guards.maxTurns) return stop("max_turns", `reached the limit of ${guards.maxTurns} turns`);
    if (used >= guards.tokenBudget) return stop("token_budget", `spent ${used} tokens of a budget of ${guards.tokenBudget}`);
    return null;
  };

  while (true) {
    // The guards, before each request. Here history ends with a user message (the task or the
    // last results, every call answered), so stopping here leaves a transcript that can be sent again.
    const guarded = guardStop();
    if (guarded) return guarded;

    let response: Anthropic.Message;
    try {
      response = await client.messages.create(
        {
          model,
          max_tokens: maxTokens,
          system: system(ctx.root),
          tools: registry.definitions(),
          messages: history,
          ...(opts.stopSequences ? { stop_sequences: opts.stopSequences } : {}),
        },
        { signal: run.signal },
      );
    } catch (e) {
      // The deadline (or the caller) aborted the request in flight: nothing was added to history.
      const why = run.why();
      if (why) return halted(why);
      throw e;
    }
    turns++;
    used += tokensOf(response.usage);
    last = response;

    // subtle: cut off by max_tokens, the last block may be a tool_use whose input never finished
    // (it arrives as {}). Run none of it, store none of it: ask again, once, with a larger limit.
    if (response.stop_reason === "max_tokens" && !retried) {
      retried = true;
      maxTokens *= 4;
      say(dim(`  max_tokens: the answer was cut off; asking again with max_tokens ${maxTokens}`));
      continue;
    }

    // The assistant's turn goes into history as it came; an empty one is not stored at all.
    appendResponse(history, response);

    switch (response.stop_reason) {
      case "end_turn":
        return { status: "done", message: response, turns };
      case "pause_turn":
        // The turn is not over: it goes back as it is, and the model continues from there.
        say(dim("  pause_turn: sending the paused turn back"));
        continue;
      case "tool_use":
        break;
      default:
        // max_tokens again, stop_sequence, refusal, model_context_window_exceeded, or a value this
        // loop does not know: not success. A call the model asked for is answered, not run.
        answerNotRun(history, response, `the response ended with stop_reason "${response.stop_reason}"`);
        return stoppedBy(response, turns);
    }

    // A call the model keeps repeating (same tool, same input) stops the run. subtle: the turn's
    // calls are still answered (not run), or the transcript would end on an unanswered tool_use.
    const calls = response.content.filter((b): b is Anthropic.ToolUseBlock => b.type === "tool_use");
    const repeated = repeats.record(calls);
    if (repeated) {
      const detail = `${repeated.name} was called with the same input more than ${guards.maxRepeats} times`;
      answerNotRun(history, response, `the run stopped: ${detail}`);
      return stop("repeated_call", detail);
    }

    // All the calls of the turn at once: read-only ones together, the others alone, in order.
    // Each is answered, failed or not: runTools calls registry.dispatch, which is now safeDispatch.
    calls.forEach(printToolCall);
    say(dim(`  run: ${batches(registry, calls).map((b) => b.map((c) => c.name).join(" ‖ ")).join("  →  ")}`));
    const results = await runTools(registry, calls, ctx);
    for (const result of results) printToolResult(textOf(result.content), result.is_error);
    history.push({ role: "user", content: results });
  }
}
// #endregion loop

/** The lesson's default task in a scratch workspace; the marker command is approved. */
export async function demo(llm: Llm, task = S07_TASK): Promise<Anthropic.MessageParam[]> {
  const root = await scratchWorkspace(S07_WORKSPACE);
  const history: Anthropic.MessageParam[] = [{ role: "user", content: task }];
  await runAgent(llm, history, { root, approve: approveAll });
  return history;
}

/** The seed's block list against three bypasses, run live on harmless stand-ins. */
function showBypasses(): void {
  say(bold("── The seed's block list, and three ways around it ──"));
  for (const r of runBypasses()) {
    say(`${r.command.padEnd(28)} block list: ${r.blocked ? green("blocked") : red("allowed")}   ${r.ran}`);
    say(dim(`${"".padEnd(28)} ${r.how}`));
  }
  say("");
}

async function main(): Promise<void> {
  const llm = selectModel();
  say(llm.banner);
  const yes = process.argv.includes("--yes");
  const task = taskFromArgs(S07_TASK);
  // The default task runs in a scratch workspace; a task of your own works on the current directory.
  const isDefault = task === S07_TASK;
  if (isDefault) showBypasses();
  const root = isDefault ? await scratchWorkspace(S07_WORKSPACE) : process.cwd();
  say(`workspace: ${root}${yes ? "   (--yes: every command approved)" : ""}`);

  const history: Anthropic.MessageParam[] = [{ role: "user", content: task }];
  const outcome = await runAgent(llm, history, { root, approve: terminalApprover({ yes }) });
  if (outcome.status === "done") printFinal(outcome.message);
  say("");
  say(`${bold("Outcome:")} ${describeOutcome(outcome)}`);
  say(sendableLine(history));
}

runMain(import.meta.url, main);
