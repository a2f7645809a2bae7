/**
 * s13_caching: the loop pays for what it re-sends only once.
 *
 * Part II starts from the capstone's loop: s11's (s06's guards, s08's streaming with read-only
 * calls started early, s09's events, s11's recovery) with s12's tools. What is new: each request goes out with prompt-cache breakpoints the loop places itself (cache.ts): the
 * tools and the system prompt once, the newest messages moved forward every turn, never more than
 * four, and never stored in the history. The budget (s06) already counts cache tokens.
 *
 * Run: npx tsx lessons/s13_caching/agent.ts ["your task"]    Check: npm run check s13
 * Your work is here (the request of each turn) and in cache.ts (markLastBlock, withCacheBreakpoints).
 */
import type Anthropic from "@anthropic-ai/sdk";
import type { Llm } from "../../runtime/client.ts";
import { lesson, todo, transcriptOf } from "../../runtime/lesson.ts";
import { bold, dim, heading, say } from "../../runtime/print.ts";
import { CONTINUE_PROMPT, S13_TASK, SAMPLE_REPOSITORY } from "../../runtime/tasks.ts";
import type { ToolContext } from "../../solutions/s02_tool_dispatch/registry.ts";
import { SafeToolRegistry } from "../../solutions/s04_tool_errors/define-tool.ts";
import { answerNotRun, appendResponse, describeOutcome } from "../../solutions/s05_stop_reasons/outcome.ts";
import { afterResponse } from "../../solutions/s06_guards/agent.ts";
import { RunGuards } from "../../solutions/s06_guards/guards.ts";
import { refuseAll, terminalApprover } from "../../solutions/s07_safe_tools/approval.ts";
import { EarlyStart } from "../../solutions/s08_streaming/early-tools.ts";
import { streamTurn } from "../../solutions/s08_streaming/stream-turn.ts";
import { ObservedRegistry, type EventSink } from "../../solutions/s09_observability/events.ts";
import { addTurn, emptyTotals, formatUsage, turnUsage, type Totals } from "../../solutions/s09_observability/usage.ts";
import { DEFAULT_MAX_TOKENS, system, type RecoveredOutcome, type RunOptions as RecoveringOptions } from "../../solutions/s11_recovery/agent.ts";
import { Recovery, isPromptTooLong, retryTurn, windowOf } from "../../solutions/s11_recovery/recovery.ts";
import { capstoneTools } from "../../solutions/s12_guarded_agent/agent.ts";
import { cacheReadShare, withCacheBreakpoints, type Prompt } from "./cache.ts";

export { system, DEFAULT_MAX_TOKENS, type RecoveredOutcome };

export interface RunOptions extends RecoveringOptions {
  /** Mark cache breakpoints (default true). false only to measure what they save. */
  cache?: boolean;
}

// #region loop
/** The loop. `history` grows in place; returns how the run ended. */
export async function runAgent({ client, model }: Llm, history: Anthropic.MessageParam[], opts: RunOptions = {}): Promise<RecoveredOutcome> {
  const emit: EventSink = opts.onEvent ?? (() => {});
  const startedAt = Date.now();
  let totals = emptyTotals();
  const guard = new RunGuards(opts.guards, opts.signal);
  const recovery = new Recovery(history, opts.recovery, opts.maxTokens ?? DEFAULT_MAX_TOKENS);
  const root = opts.root ?? process.cwd();
  const tools = opts.registry ?? new SafeToolRegistry(capstoneTools(root, opts.approve ?? terminalApprover()));
  const registry = new ObservedRegistry(tools, emit, () => guard.turns);
  const ctx: ToolContext = { root, signal: guard.signal };
  const finish = (outcome: RecoveredOutcome): RecoveredOutcome => {
    emit({ type: "stop", turn: guard.turns, outcome, totals, ms: Date.now() - startedAt });
    return outcome;
  };

  while (true) {
    const limit = guard.check();
    if (limit) return finish(limit);

    // NEW: the prompt goes out with its cache breakpoints, on a copy: `history` keeps none.
    const prompt = { system: system(root), tools: registry.definitions(), messages: history };
    // TODO: `cached` is the prompt with the breakpoints of withCacheBreakpoints(prompt), or the
    //       prompt as it is when opts.cache is false (a run that measures what caching saves).
    //       Never put a marker into `history` itself.
    void withCacheBreakpoints; // (delete this line when you use it)
    const cached: Prompt = todo(`s13 runAgent: send the prompt with its cache breakpoints (turn ${guard.turns + 1})`);
    let early = new EarlyStart(registry, ctx);
    const asked = Date.now();
    let response: Anthropic.Message;
    try {
      // A stream that breaks half-way is sent again: nothing of it was appended.
      response = await retryTurn(
        () =>
          streamTurn(
            client,
            { model, max_tokens: recovery.maxTokens, ...cached, ...(opts.stopSequences ? { stop_sequences: opts.stopSequences } : {}) },
            early.listening(opts.stream),
            guard.signal,
          ),
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
      await early.settle();
      const halted = guard.halted();
      if (halted) return finish(halted);
      // Too long for the context window: compact (pairs kept whole) and ask again.
      if (isPromptTooLong(e)) {
        if (recovery.compact(windowOf(e))) continue;
        return finish(guard.stop("prompt_too_long", "the conversation does not fit the context window, even compacted: start a new one (/reset)"));
      }
      throw e;
    }
    guard.count(response); // its tokens, cache reads and writes included (s06)
    // s08: a turn that did not end with tool_use runs none of its calls: the early ones are stopped.
    if (response.stop_reason !== "tool_use") await early.settle();
    const usage = turnUsage(model, response.usage);
    totals = addTurn(totals, usage);
    emit({ type: "think", turn: guard.turns, message: response, usage, ms: Date.now() - asked });

    // The model ran out of context while answering: compact, then ask again (nothing appended).
    if (response.stop_reason === "model_context_window_exceeded" && recovery.compactHalf()) {
      await early.settle();
      continue;
    }
    // Cut off by max_tokens. subtle: a cut-off tool_use has unfinished input (it arrives as {}):
    // never run it, ask again with a larger limit. A cut-off text is kept, and the model continues it.
    if (response.stop_reason === "max_tokens") {
      await early.settle();
      if (recovery.canContinue(response)) {
        recovery.continuations++;
        appendResponse(history, response);
        history.push({ role: "user", content: CONTINUE_PROMPT });
        say(dim(`  answer cut off by max_tokens: asking the model to continue (${recovery.continuations})`));
        continue;
      }
      if (recovery.raiseLimit(response)) continue;
    }

    const next = afterResponse(history, response, guard.turns);
    if (next === "again") continue;
    if (next !== "tools") return finish(next);
    const calls = response.content.filter((b): b is Anthropic.ToolUseBlock => b.type === "tool_use");
    const repeated = guard.repeated(calls);
    if (repeated) {
      await early.settle();
      answerNotRun(history, response, `the run stopped: ${repeated.detail}`);
      return finish(repeated);
    }
    history.push({ role: "user", content: await early.results(calls) });
  }
}
// #endregion loop

/** One line per turn: what it cost, and how much of its input the cache served. */
export function cacheLine(message: Anthropic.Message, turn: number, model: string): string {
  const share = Math.round(cacheReadShare(message.usage) * 100);
  return dim(`  turn ${turn}: ${formatUsage(turnUsage(model, message.usage))} · ${share}% of the input read from the cache`);
}

/** Prints each turn's cache line and how the run ended; keeps the run's totals. */
function cacheLog(model: string, keep: (t: Totals) => void): EventSink {
  return (e) => {
    if (e.type === "think") say(cacheLine(e.message, e.turn, model));
    if (e.type === "stop") {
      keep(e.totals);
      say(bold(describeOutcome(e.outcome)));
    }
  };
}

/** The default task on a scratch copy of the sample repository (bash commands that write are refused). */
export const demo = (llm: Llm, task = S13_TASK) =>
  transcriptOf(task, SAMPLE_REPOSITORY, (history, root) => runAgent(llm, history, { root, approve: refuseAll }));

const usd = (t: Totals) => (t.costUsd === null ? "unknown" : `$${t.costUsd.toFixed(4)}`);
let cached = emptyTotals();
lesson(import.meta.url, {
  task: S13_TASK,
  workspace: SAMPLE_REPOSITORY,
  heading: "With the loop's cache breakpoints",
  run: ({ llm, history, root, signal }) => runAgent(llm, history, { root, signal, onEvent: cacheLog(llm.model, (t) => (cached = t)) }),
  after: async (_outcome, { llm, task, root, signal }) => {
    heading("The same task without them");
    let plain = emptyTotals();
    await runAgent(llm, [{ role: "user", content: task }], { root, signal, cache: false, onEvent: cacheLog(llm.model, (t) => (plain = t)) });
    say("");
    say(`${bold("Cost")}: ${usd(cached)} with breakpoints, ${usd(plain)} without (list prices; cache writes 1.25×, reads 0.1× of input)`);
  },
});
