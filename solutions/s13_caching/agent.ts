/**
 * s13_caching: the loop pays for what it re-sends only once.
 *
 * Part II starts from the guarded loop of s06 with what s03–s12 added around it (parallel
 * read-only tools, streaming, a broken stream sent again, events, the capstone's safe tools). What
 * is new: each request goes out with prompt-cache breakpoints the loop places itself (cache.ts):
 * the tools and the system prompt once, the newest messages moved forward every turn, never more
 * than four, and never stored in the history. The budget (s06) already counts cache tokens.
 *
 * Run: npx tsx solutions/s13_caching/agent.ts ["your task"]
 */
import type Anthropic from "@anthropic-ai/sdk";
import { selectModel, type Llm } from "../../runtime/client.ts";
import { loadEnv } from "../../runtime/env.ts";
import { runMain, taskFromArgs } from "../../runtime/lesson.ts";
import { bold, dim, heading, say, sendableLine } from "../../runtime/print.ts";
import { S13_TASK } from "../../runtime/scripted/scenarios/s13_caching.ts";
import { scratchCopy } from "../../runtime/tools/files.ts";
import type { ToolRegistry } from "../../solutions/s02_tool_dispatch/registry.ts";
import { runTools } from "../../solutions/s03_parallel_tools/run-tools.ts";
import { SafeToolRegistry } from "../../solutions/s04_tool_errors/define-tool.ts";
import { answerNotRun, appendResponse, describeOutcome, stoppedBy, type ModelStop, type Outcome } from "../../solutions/s05_stop_reasons/outcome.ts";
import { DEFAULT_GUARDS, RepeatCounter, runSignal, tokensOf, type GuardStop, type Guards } from "../../solutions/s06_guards/guards.ts";
import { refuseAll, terminalApprover, type Approver } from "../../solutions/s07_safe_tools/approval.ts";
import { streamTurn, type StreamHandlers } from "../../solutions/s08_streaming/stream-turn.ts";
import { ObservedRegistry, type EventSink } from "../../solutions/s09_observability/events.ts";
import { addTurn, emptyTotals, formatUsage, turnUsage, type Totals } from "../../solutions/s09_observability/usage.ts";
import { retryTurn } from "../../solutions/s11_recovery/recovery.ts";
import { SAMPLE_REPOSITORY, capstoneTools, system } from "../../solutions/s12_guarded_agent/agent.ts";
import { cacheReadShare, withCacheBreakpoints } from "./cache.ts";

export const DEFAULT_MAX_TOKENS = 4096;

export interface RunOptions {
  /** The tools (default: the capstone's safe tools in `root`). */
  registry?: ToolRegistry;
  /** The workspace the tools act in (default: the current directory). */
  root?: string;
  /** Asked before a command that is not read-only (default: the terminal; refused without one). */
  approve?: Approver;
  maxTokens?: number;
  guards?: Partial<Guards>;
  signal?: AbortSignal;
  stream?: StreamHandlers;
  onEvent?: EventSink;
  /** Mark cache breakpoints (default true). false only to measure what they save. */
  cache?: boolean;
}

export type PartTwoOutcome = Outcome<ModelStop | GuardStop>;

// #region loop
/** The loop. `history` grows in place; returns how the run ended. */
export async function runAgent({ client, model }: Llm, history: Anthropic.MessageParam[], opts: RunOptions = {}): Promise<PartTwoOutcome> {
  const emit: EventSink = opts.onEvent ?? (() => {});
  const root = opts.root ?? process.cwd();
  const registry = new ObservedRegistry(opts.registry ?? new SafeToolRegistry(capstoneTools(root, opts.approve ?? terminalApprover())), emit, () => turns);
  const guards: Guards = { ...DEFAULT_GUARDS, ...opts.guards };
  const run = runSignal(guards.timeoutMs, opts.signal);
  const repeats = new RepeatCounter(guards.maxRepeats);
  const startedAt = Date.now();
  let maxTokens = opts.maxTokens ?? DEFAULT_MAX_TOKENS;
  let turns = 0;
  let used = 0;
  let totals: Totals = emptyTotals();
  let last: Anthropic.Message | undefined;
  const finish = (outcome: PartTwoOutcome): PartTwoOutcome => {
    emit({ type: "stop", turn: turns, outcome, totals, ms: Date.now() - startedAt });
    return outcome;
  };
  const stop = (reason: GuardStop, detail: string) => finish({ status: "stopped", reason, detail, turns, ...(last ? { message: last } : {}) });
  const halted = (why: "timeout" | "aborted") => stop(why, why === "timeout" ? `the run reached its time limit of ${guards.timeoutMs / 1000} s` : "the run was cancelled by its caller");

  while (true) {
    // The guards, where every tool_use is answered (s06).
    const why = run.why();
    if (why) return halted(why);
    if (turns >= guards.maxTurns) return stop("max_turns", `reached the limit of ${guards.maxTurns} turns`);
    if (used >= guards.tokenBudget) return stop("token_budget", `spent ${used} tokens of a budget of ${guards.tokenBudget}`);

    // NEW: the prompt goes out with its cache breakpoints, on a copy: `history` keeps none.
    const prompt = { system: system(root), tools: registry.definitions(), messages: history };
    const request = { model, max_tokens: maxTokens, ...(opts.cache === false ? prompt : withCacheBreakpoints(prompt)) };
    const asked = Date.now();
    let response: Anthropic.Message;
    try {
      response = await retryTurn(() => streamTurn(client, request, opts.stream, run.signal), { signal: run.signal });
    } catch (e) {
      const why = run.why();
      if (why) return halted(why);
      throw e;
    }
    turns++;
    used += tokensOf(response.usage); // cache reads and writes included (s06)
    last = response;
    const usage = turnUsage(model, response.usage);
    totals = addTurn(totals, usage);
    emit({ type: "think", turn: turns, message: response, usage, ms: Date.now() - asked });

    // A cut-off tool call is never run: asked again once with a larger limit (s05).
    if (response.stop_reason === "max_tokens" && maxTokens === (opts.maxTokens ?? DEFAULT_MAX_TOKENS) && response.content.some((b) => b.type === "tool_use")) {
      maxTokens *= 4;
      continue;
    }
    appendResponse(history, response);
    if (response.stop_reason === "end_turn") return finish({ status: "done", message: response, turns });
    if (response.stop_reason === "pause_turn") continue;
    if (response.stop_reason !== "tool_use") {
      answerNotRun(history, response, `the response ended with stop_reason "${response.stop_reason}"`);
      return finish(stoppedBy(response, turns));
    }
    const calls = response.content.filter((b): b is Anthropic.ToolUseBlock => b.type === "tool_use");
    const repeated = repeats.record(calls);
    if (repeated) {
      const detail = `${repeated.name} was called with the same input more than ${guards.maxRepeats} times`;
      answerNotRun(history, response, `the run stopped: ${detail}`);
      return stop("repeated_call", detail);
    }
    history.push({ role: "user", content: await runTools(registry, calls, { root, signal: run.signal }) });
  }
}
// #endregion loop

/** One line per turn: what it cost, and how much of its input the cache served. */
export function cacheLine(message: Anthropic.Message, turn: number, model: string): string {
  const share = Math.round(cacheReadShare(message.usage) * 100);
  return dim(`  turn ${turn}: ${formatUsage(turnUsage(model, message.usage))} · ${share}% of the input read from the cache`);
}

/** The default task on a scratch copy of the sample repository, with breakpoints or without. */
export async function demo(llm: Llm, task = S13_TASK, cache = true): Promise<{ history: Anthropic.MessageParam[]; totals: Totals }> {
  const root = await scratchCopy(SAMPLE_REPOSITORY);
  const history: Anthropic.MessageParam[] = [{ role: "user", content: task }];
  let totals = emptyTotals();
  await runAgent(llm, history, {
    root,
    approve: refuseAll,
    cache,
    onEvent: (e) => {
      if (e.type === "think") say(cacheLine(e.message, e.turn, llm.model));
      if (e.type === "stop") {
        totals = e.totals;
        say(bold(describeOutcome(e.outcome)));
      }
    },
  });
  return { history, totals };
}

async function main(): Promise<void> {
  loadEnv();
  const llm = selectModel();
  say(llm.banner);
  const task = taskFromArgs(S13_TASK);
  heading("With the loop's cache breakpoints");
  const cached = await demo(llm, task, true);
  say(sendableLine(cached.history));
  heading("The same task without them");
  const plain = await demo(llm, task, false);
  const cost = (t: Totals) => (t.costUsd === null ? "unknown" : `$${t.costUsd.toFixed(4)}`);
  say("");
  say(`${bold("Cost")}: ${cost(cached.totals)} with breakpoints, ${cost(plain.totals)} without (list prices; cache writes 1.25×, reads 0.1× of input)`);
}

runMain(import.meta.url, main);
