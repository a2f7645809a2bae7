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
 * Run: npm run lesson s08 -- [--yes] ["your task"]    (Ctrl-C stops it)    Check: npm run check s08
 */
import type Anthropic from "@anthropic-ai/sdk";
import type { Llm } from "../../runtime/client.ts";
import { lesson, transcriptOf } from "../../runtime/lesson.ts";
import { dim, printToolCall, printToolResult, say, streamToTerminal } from "../../runtime/print.ts";
import { S08_TASK, S08_WORKSPACE } from "../../runtime/tasks.ts";
import { textOf } from "../../runtime/transcript.ts";
import type { ToolContext } from "../../solutions/s02_tool_dispatch/registry.ts";
import { batches } from "../../solutions/s03_parallel_tools/run-tools.ts";
import { SafeToolRegistry } from "../../solutions/s04_tool_errors/define-tool.ts";
import { answerNotRun, describeOutcome } from "../../solutions/s05_stop_reasons/outcome.ts";
import { afterResponse, DEFAULT_MAX_TOKENS, system } from "../../solutions/s06_guards/agent.ts";
import { RunGuards, type GuardedOutcome } from "../../solutions/s06_guards/guards.ts";
import { demoApprover, terminalApprover } from "../../solutions/s07_safe_tools/approval.ts";
import type { RunOptions as SafeOptions } from "../../solutions/s07_safe_tools/agent.ts";
import { safeTools } from "../../solutions/s07_safe_tools/safe-tools.ts";
import { EarlyStart } from "./early-tools.ts";
import { streamTurn, type StreamHandlers } from "./stream-turn.ts";

export { system, DEFAULT_MAX_TOKENS };

export interface RunOptions extends SafeOptions {
  /** Called as the answer streams: each piece of text, each tool call once its input is complete. */
  stream?: StreamHandlers;
}

// #region loop
/** The loop. `history` grows in place; returns how the run ended. */
export async function runAgent({ client, model }: Llm, history: Anthropic.MessageParam[], opts: RunOptions = {}): Promise<GuardedOutcome> {
  const registry = opts.registry ?? new SafeToolRegistry(safeTools({ workspace: opts.root ?? process.cwd(), approve: opts.approve ?? terminalApprover() }));
  const guard = new RunGuards(opts.guards, opts.signal, opts.clock);
  const ctx: ToolContext = { root: opts.root ?? process.cwd(), signal: guard.signal };
  let maxTokens = opts.maxTokens ?? DEFAULT_MAX_TOKENS;
  let retried = false;

  while (true) {
    // The guards, before each request. Here history ends with a user message (the task or the
    // last results, every call answered), so stopping here leaves a transcript that can be sent again.
    const limit = guard.check();
    if (limit) return limit;

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
        early.listening(opts.stream),
        guard.signal,
      );
    } catch (e) {
      // The deadline (or Ctrl-C) aborted the stream: the partial answer is dropped, nothing was
      // added to history, and the early tools were stopped by the same signal.
      await early.settle();
      const halted = guard.halted();
      if (halted) return halted;
      throw e;
    }
    guard.count(response);

    // s05 + early start: only a turn that ended with tool_use runs its calls. Any other ending
    // (refusal, max_tokens, pause_turn, a reason this loop does not know, …): the calls started
    // early are stopped and their results thrown away; each call is answered "not run" below.
    if (response.stop_reason !== "tool_use") await early.settle();

    // subtle: cut off by max_tokens, the last block may be a tool_use whose input never finished
    // (it arrives as {}). Run none of it, store none of it: ask again, once, with a larger limit.
    if (response.stop_reason === "max_tokens" && !retried) {
      retried = true;
      maxTokens *= 4;
      say(dim(`  max_tokens: the answer was cut off; asking again with max_tokens ${maxTokens}`));
      continue;
    }

    // s05: the turn goes into history as it came; then done, paused (ask again), stopped, or tools.
    const next = afterResponse(history, response, guard.turns);
    if (next === "again") continue;
    if (next !== "tools") return next;

    // A call the model keeps repeating (same tool, same input) stops the run. subtle: the turn's
    // calls are still answered (not run), or the transcript would end on an unanswered tool_use.
    const calls = response.content.filter((b): b is Anthropic.ToolUseBlock => b.type === "tool_use");
    const repeated = guard.repeated(calls);
    if (repeated) {
      await early.settle();
      answerNotRun(history, response, `the run stopped: ${repeated.detail}`);
      return repeated;
    }

    // The early calls are awaited; the rest run now as s03 runs them, results in call order.
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
export const demo = (llm: Llm, task = S08_TASK) => transcriptOf(task, S08_WORKSPACE, (history, root) => runAgent(llm, history, { root, approve: demoApprover(llm) }));

lesson(import.meta.url, {
  task: S08_TASK,
  workspace: S08_WORKSPACE,
  // Offline, the scripted model streams at a set pace, so the text visibly arrives.
  model: { scripted: { streamDelayMs: 40 } },
  before: () => say(dim("(Ctrl-C stops the run; a second Ctrl-C quits at once)")),
  run: ({ llm, history, root, signal, flag }) =>
    runAgent(llm, history, { root, approve: terminalApprover({ yes: flag("yes") }), signal, stream: streamToTerminal() }),
  // The answer was printed as it streamed.
  printAnswer: false,
  describe: describeOutcome,
});
