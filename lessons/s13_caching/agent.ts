/**
 * s13_caching: the loop pays for what it re-sends only once.
 *
 * Part II starts from the capstone's loop: s11's (s06's guards, s08's streaming with read-only
 * calls started early, s09's events, s11's recovery) with s12's tools, imported whole. Unlike s12,
 * each request now goes out with prompt-cache breakpoints the loop places itself (cache.ts): the
 * tools and the system prompt once, the newest messages moved forward every turn, never more than
 * four, and never stored in the history. The change reaches the loop through one hook, `request`
 * (s11's extend.ts). The budget (s06) already counts cache tokens.
 *
 * Run: npm run lesson s13 ["your task"]    Check: npm run check s13
 * Your work is here (the request of each turn) and in cache.ts (markLastBlock, withCacheBreakpoints).
 */
import type Anthropic from "@anthropic-ai/sdk";
import type { Llm } from "../../runtime/client.ts";
import { lesson, todo, transcriptOf } from "../../runtime/lesson.ts";
import { bold, dim, heading, say } from "../../runtime/print.ts";
import { S13_TASK, SAMPLE_REPOSITORY } from "../../runtime/tasks.ts";
import { describeOutcome } from "../../solutions/s05_stop_reasons/outcome.ts";
import { refuseAll } from "../../solutions/s07_safe_tools/approval.ts";
import type { EventSink } from "../../solutions/s09_observability/events.ts";
import { emptyTotals, formatUsage, turnUsage, type Totals } from "../../solutions/s09_observability/usage.ts";
import type { Extension } from "../../solutions/s11_recovery/extend.ts";
import { runAgent as capstoneLoop, DEFAULT_MAX_TOKENS, system, type RecoveredOutcome, type RunOptions as RecoveringOptions } from "../../solutions/s12_guarded_agent/agent.ts";
import { cacheReadShare, withCacheBreakpoints, type Prompt } from "./cache.ts";

export { system, DEFAULT_MAX_TOKENS, type RecoveredOutcome };

export interface RunOptions extends RecoveringOptions {
  /** Mark cache breakpoints (default true). false only to measure what they save. */
  cache?: boolean;
}

// #region loop
/** NEW: every request goes out with its cache breakpoints, on a copy: `history` keeps none. */
export const caching =
  (opts: RunOptions): Extension =>
  ({ guard }) => ({
    request: (prompt): Prompt => {
      // TODO: return the prompt with the breakpoints of withCacheBreakpoints(prompt), or the
      //       prompt as it is when opts.cache is false (a run that measures what caching saves).
      //       Never put a marker into `history` itself.
      void [withCacheBreakpoints, prompt, opts]; // (delete this line when you use them)
      return todo(`s13 runAgent: send the prompt with its cache breakpoints (turn ${guard.turns + 1})`);
    },
  });

/** The capstone's loop (s11's, with s12's tools), caching. `history` grows in place; returns how the run ended. */
export function runAgent(llm: Llm, history: Anthropic.MessageParam[], opts: RunOptions = {}): Promise<RecoveredOutcome> {
  return capstoneLoop(llm, history, { ...opts, extensions: [caching(opts), ...(opts.extensions ?? [])] });
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
