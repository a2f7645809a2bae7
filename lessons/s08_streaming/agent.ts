/**
 * s08_streaming: the answer as it arrives.
 *
 * Unlike s07, which waited for each whole response (`messages.create`), the loop now streams it
 * (`messages.stream`, in stream-turn.ts): text is handed on as it arrives, each tool call is
 * noticed as soon as its input is complete, and read-only calls start while the rest of the
 * message is still streaming (early-tools.ts). `finalMessage()` is the very Message create()
 * would have returned, so the transcript is the same as without streaming. Ctrl-C aborts the
 * stream; nothing of the partial answer is kept, so the history can be sent again.
 *
 * Run: npx tsx lessons/s08_streaming/agent.ts [--yes] ["your task"]    (Ctrl-C stops it)    Check: npm run check s08
 */
import type Anthropic from "@anthropic-ai/sdk";
import { selectModel, type Llm } from "../../runtime/client.ts";
import { runMain, taskFromArgs } from "../../runtime/lesson.ts";
import { bold, dim, printToolCall, printToolResult, say, sendableLine } from "../../runtime/print.ts";
import { textOf } from "../../runtime/transcript.ts";
import { S08_TASK, S08_WORKSPACE } from "../../runtime/tasks.ts";
import { scratchWorkspace } from "../../runtime/tools/files.ts";
import type { ToolContext, ToolRegistry } from "../../solutions/s02_tool_dispatch/registry.ts";
import { batches } from "../../solutions/s03_parallel_tools/run-tools.ts";
import { SafeToolRegistry } from "../../solutions/s04_tool_errors/define-tool.ts";
import { answerNotRun, appendResponse, describeOutcome, stoppedBy } from "../../solutions/s05_stop_reasons/outcome.ts";
import { DEFAULT_GUARDS, RepeatCounter, runSignal, tokensOf, type GuardStop, type GuardedOutcome, type Guards } from "../../solutions/s06_guards/guards.ts";
import { approveAll, terminalApprover, type Approver } from "../../solutions/s07_safe_tools/approval.ts";
import { safeTools } from "../../solutions/s07_safe_tools/safe-tools.ts";
import { EarlyStart } from "./early-tools.ts";
import { streamTurn, type StreamHandlers } from "./stream-turn.ts";

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
  /** Called as the answer streams: each piece of text, each tool call once its input is complete. */
  stream?: StreamHandlers;
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

    // Read-only calls of this turn may start while the answer is still streaming.
    const early = new EarlyStart(registry, ctx);
    let response: Anthropic.Message;
    try {
      response = await streamTurn(
        client,
        {
          model,
          max_tokens: maxTokens,
          system: system(ctx.root),
          tools: registry.definitions(),
          messages: history,
          ...(opts.stopSequences ? { stop_sequences: opts.stopSequences } : {}),
        },
        {
          onText: (delta) => opts.stream?.onText?.(delta),
          onToolUse: (call) => {
            opts.stream?.onToolUse?.(call);
            early.notice(call);
          },
        },
        run.signal,
      );
    } catch (e) {
      // The deadline (or Ctrl-C) aborted the stream: the partial answer is dropped, nothing was
      // added to history, and the early tools were stopped by the same signal.
      await early.settle();
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
      await early.settle();
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
    if (early.count > 0) say(dim(`  ${early.count} read-only call(s) started while the answer was streaming`));
    const results = await early.results(calls);
    for (const result of results) printToolResult(textOf(result.content), result.is_error);
    history.push({ role: "user", content: results });
  }
}
// #endregion loop

/** The lesson's default task in a scratch workspace, streamed; returns the transcript. */
export async function demo(llm: Llm, task = S08_TASK): Promise<Anthropic.MessageParam[]> {
  const root = await scratchWorkspace(S08_WORKSPACE);
  const history: Anthropic.MessageParam[] = [{ role: "user", content: task }];
  await runAgent(llm, history, { root, approve: approveAll });
  return history;
}

async function main(): Promise<void> {
  // Offline, the scripted model streams at a set pace, so the text visibly arrives.
  const llm = selectModel({ scripted: { streamDelayMs: 40 } });
  say(llm.banner);
  const yes = process.argv.includes("--yes");
  const task = taskFromArgs(S08_TASK);
  const isDefault = task === S08_TASK;
  const root = isDefault ? await scratchWorkspace(S08_WORKSPACE) : process.cwd();
  say(`workspace: ${root}   ${dim("(Ctrl-C stops the run; a second Ctrl-C quits at once)")}`);

  // Ctrl-C aborts the run (the stream, and any tool in flight) instead of killing the process.
  const controller = new AbortController();
  process.once("SIGINT", () => controller.abort());
  const history: Anthropic.MessageParam[] = [{ role: "user", content: task }];
  let midLine = false;
  const outcome = await runAgent(llm, history, {
    root,
    approve: terminalApprover({ yes }),
    signal: controller.signal,
    stream: {
      onText: (delta) => {
        process.stdout.write(delta);
        midLine = !delta.endsWith("\n");
      },
      // A tool call ends the streamed text: go to a new line before the tool lines are printed.
      onToolUse: () => {
        if (midLine) process.stdout.write("\n");
        midLine = false;
      },
    },
  });
  say("");
  say(`${bold("Outcome:")} ${describeOutcome(outcome)}`);
  say(sendableLine(history));
}

runMain(import.meta.url, main);
