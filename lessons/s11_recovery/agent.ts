/**
 * s11_recovery: the loop survives a failing API.
 *
 * Unlike s10, whose loop gave up on the first error, the loop now sorts failures by who can
 * recover from them (recovery.ts). The SDK retries 429, 5xx and 529 itself: the client is only
 * configured (RETRIES). A stream that breaks after it began is the loop's: nothing was appended,
 * so the same turn is sent again (retryTurn). "prompt is too long" and stop_reason
 * model_context_window_exceeded: the history is compacted, every tool_use/tool_result pair kept
 * whole (compact.ts), and the turn retried. An answer cut off by max_tokens in its text is kept
 * and continued; a cut-off tool call is never run but asked again with a larger limit.
 * Part II changes this loop only through the hooks of extend.ts (none are used here).
 *
 * Run: npm run lesson s11   (offline: the default task through every fault)
 *      npm run lesson s11 -- --chat   (the conversation of s10, now recovering)
 */
import { parseArgs } from "node:util";
import type Anthropic from "@anthropic-ai/sdk";
import { scriptedLlm, selectModel, type FaultPlan, type Llm } from "../../runtime/client.ts";
import { runMain, sandboxLine, todo } from "../../runtime/lesson.ts";
import { dim, say, yellow } from "../../runtime/print.ts";
import { CONTINUE_PROMPT, S11_TASK } from "../../runtime/tasks.ts";
import type { ToolContext } from "../../solutions/s02_tool_dispatch/registry.ts";
import { SafeToolRegistry } from "../../solutions/s04_tool_errors/define-tool.ts";
import { answerNotRun, appendResponse, describeOutcome, type ModelStop, type Outcome } from "../../solutions/s05_stop_reasons/outcome.ts";
import { afterResponse } from "../../solutions/s06_guards/agent.ts";
import { RunGuards, type GuardStop } from "../../solutions/s06_guards/guards.ts";
import { terminalApprover } from "../../solutions/s07_safe_tools/approval.ts";
import { safeTools } from "../../solutions/s07_safe_tools/safe-tools.ts";
import { EarlyStart } from "../../solutions/s08_streaming/early-tools.ts";
import { streamTurn } from "../../solutions/s08_streaming/stream-turn.ts";
import { DEFAULT_MAX_TOKENS, system, type RunOptions as ObservedOptions } from "../../solutions/s09_observability/agent.ts";
import { RunEvents } from "../../solutions/s09_observability/events.ts";
import { createLogger } from "../../solutions/s09_observability/log.ts";
import { replOver } from "../../solutions/s10_conversation/agent.ts";
import { conversation } from "../../solutions/s10_conversation/terminal.ts";
import { Extensions, type Extension } from "./extend.ts";
import { RETRIES, Recovery, isPromptTooLong, retryTurn, windowOf, type RecoveryLimits } from "./recovery.ts";

export { system, DEFAULT_MAX_TOKENS };

export interface RunOptions extends ObservedOptions {
  /** How hard the loop tries to recover (DEFAULT_RECOVERY). */
  recovery?: Partial<RecoveryLimits>;
  /** Later lessons' changes to this loop (extend.ts), applied in order; none in this lesson. */
  extensions?: readonly Extension[];
}

/** Why a run stopped, now also: the history could not be made to fit the context window. */
export type RecoveredOutcome = Outcome<ModelStop | GuardStop | "prompt_too_long">;

// #region loop
/** The loop. `history` grows in place; returns how the run ended. */
export async function runAgent({ client, model }: Llm, history: Anthropic.MessageParam[], opts: RunOptions = {}): Promise<RecoveredOutcome> {
  const guard = new RunGuards(opts.guards, opts.signal, opts.clock);
  const events = new RunEvents(model, opts.onEvent, () => guard.turns);
  const recovery = new Recovery(history, opts.recovery, opts.maxTokens ?? DEFAULT_MAX_TOKENS);
  const ctx: ToolContext = { root: opts.root ?? process.cwd(), signal: guard.signal };
  // A later lesson's change (extend.ts) is one hook at one step below: the tools, the request, the answer.
  const extend = new Extensions(opts.extensions, { guard, root: ctx.root });
  const tools = extend.tools(opts.registry ?? new SafeToolRegistry(safeTools({ workspace: ctx.root, approve: opts.approve ?? terminalApprover() })));
  // Every tool call, early or not, passes through here: ACT before it runs, OBSERVE after.
  const registry = events.observe(tools);

  while (true) {
    // The guards, before each request. Here history ends with a user message (the task or the
    // last results, every call answered), so stopping here leaves a transcript that can be sent again.
    const limit = guard.check();
    if (limit) return events.stop(limit);

    // What this turn sends: the system prompt, the tools and the history (a later lesson may change any field, on a copy).
    const request = extend.request({
      model,
      max_tokens: recovery.maxTokens,
      system: extend.system(system(ctx.root)),
      tools: registry.definitions(),
      messages: history,
      ...(opts.stopSequences ? { stop_sequences: opts.stopSequences } : {}),
    });
    // Read-only calls of this turn may start while the answer is still streaming.
    let early = new EarlyStart(registry, ctx);
    const asked = Date.now();
    let response: Anthropic.Message;
    try {
      // A stream that breaks half-way is sent again: nothing of it was appended.
      response = await retryTurn(
        () =>
          streamTurn(client, request, early.listening(opts.stream), guard.signal),
        {
          retries: recovery.limits.streamRetries,
          signal: guard.signal,
          onRetry: async (n, e) => {
            await early.settle();
            early = new EarlyStart(registry, ctx);
            say(dim(`  stream broke (${(e as Error).message}), sending the turn again (${n})`));
          },
        },
      );
    } catch (e) {
      // The deadline (or Ctrl-C) aborted the stream: the partial answer is dropped, nothing was
      // added to history, and the early tools were stopped by the same signal.
      await early.settle();
      const halted = guard.halted();
      if (halted) return events.stop(halted);
      // Too long for the context window: compact (pairs kept whole) and ask again.
      if (isPromptTooLong(e)) {
        // TODO: while compactions are left, compact the history to the window the error names
        //       (recovery.compact(windowOf(e)) is false when none are left) and `continue`: the same
        //       turn is asked again. When that is not possible, return events.stop(guard.stop("prompt_too_long",
        //       "…")) (the history is still sendable).
        void windowOf;
        return todo("s11 loop: prompt too long → compact the history and ask again");
      }
      throw e;
    }
    guard.count(response);
    extend.counted(response);
    // s08: a turn that did not end with tool_use runs none of its calls: the early ones are stopped.
    if (response.stop_reason !== "tool_use") await early.settle();
    // THINK: the response, what it cost, how long it took; the run's totals grow by it.
    events.think(response, asked);

    // The model ran out of context while answering: compact, then ask again (nothing appended).
    if (response.stop_reason === "model_context_window_exceeded" && recovery.compactHalf()) continue;
    // Cut off by max_tokens. subtle: a cut-off tool_use has unfinished input (it arrives as {}):
    // never run it, ask again with a larger limit. A cut-off text is kept, and the model continues it.
    if (response.stop_reason === "max_tokens") {
      if (recovery.canContinue(response)) {
        recovery.continuations++;
        appendResponse(history, response);
        history.push({ role: "user", content: CONTINUE_PROMPT });
        say(dim(`  answer cut off by max_tokens: asking the model to continue (${recovery.continuations})`));
        continue;
      }
      if (recovery.raiseLimit(response)) continue;
    }

    // s05: the turn goes into history as it came; then done, paused (ask again), stopped, or tools.
    const next = afterResponse(history, response, guard.turns);
    if (next === "again") continue;
    if (next !== "tools") return events.stop(next);
    const calls = response.content.filter((b): b is Anthropic.ToolUseBlock => b.type === "tool_use");
    const repeated = guard.repeated(calls);
    if (repeated) {
      await early.settle();
      answerNotRun(history, response, `the run stopped: ${repeated.detail}`);
      return events.stop(repeated);
    }
    history.push({ role: "user", content: extend.answer(await early.results(calls), calls) });
  }
}
// #endregion loop

/** The REPL of s10, over this loop. */
export const createRepl = replOver<RunOptions>(runAgent);

/** Small enough that the default task's answer needs continuing. */
export const S11_MAX_TOKENS = 200;

/** The default task with a small max_tokens: the answer is cut off and continued. */
export async function demo(llm: Llm): Promise<Anthropic.MessageParam[]> {
  const history: Anthropic.MessageParam[] = [{ role: "user", content: S11_TASK }];
  await runAgent(llm, history, { maxTokens: S11_MAX_TOKENS });
  return history;
}

/** Offline: an earlier question, then the default task through a 429, a 529, a cut stream and a full context. */
async function tour(): Promise<void> {
  const faults: FaultPlan = [null, null, { kind: "rate_limit", retryAfterSeconds: 1 }, { kind: "overloaded" }, { kind: "stream_cut", afterEvents: 5 }, null, { kind: "prompt_too_long" }];
  const llm = scriptedLlm({ faults, scenario: "s11_recovery" }, RETRIES);
  const history: Anthropic.MessageParam[] = [];
  for (const question of ["read package.json", S11_TASK]) {
    history.push({ role: "user", content: question });
    say(dim(`> ${question}`));
    // The logger shows each step: the cut-off answer and its continuation arrive as two turns.
    const outcome = await runAgent(llm, history, { maxTokens: S11_MAX_TOKENS, onEvent: createLogger() });
    if (outcome.status !== "done") return say(yellow(`(${describeOutcome(outcome)})`));
  }
  const faulted = llm.scripted.exchanges.flatMap((e) => (e.fault ? [e.fault.kind] : []));
  const sdkRetries = (k: string) => k === "rate_limit" || k === "overloaded" || k === "server_error";
  const bySdk = faulted.filter(sdkRetries);
  const byLoop = faulted.filter((k) => !sdkRetries(k));
  say(dim(`(${llm.scripted.exchanges.length} requests · retried by the SDK: ${bySdk.join(", ")} · recovered by the loop: ${byLoop.join(", ")} · ${history.length} messages kept, every pair whole)`));
}

runMain(import.meta.url, async () => {
  const { values, positionals } = parseArgs({ allowPositionals: true, options: { resume: { type: "string" }, chat: { type: "boolean" } } });
  const llm = selectModel(RETRIES);
  say(llm.banner);
  say(sandboxLine());
  if (llm.offline && !values.chat && !values.resume && positionals.length === 0) return tour();
  await conversation((o) => createRepl(llm, o), llm, { ...(values.resume ? { resume: values.resume } : {}), first: positionals.join(" ").trim() });
});
