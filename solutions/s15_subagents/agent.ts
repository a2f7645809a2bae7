/**
 * s15_subagents: the loop hands sub-tasks to child loops.
 *
 * Unlike s14, the model gets a `task` tool (task-tool.ts): each call runs this same loop as a
 * child, on a fresh history holding only the task's prompt, with read-only tools the parent has,
 * its own guards and a share of the parent's remaining budget. Only the child's final answer
 * comes back, as the task call's tool_result; the child's transcript is its own, saved beside the
 * parent's. Several task calls in one turn run at the same time (read-only, s03). A child that
 * stops on a guard or fails is an is_error result; its tokens count in the parent's budget; agents
 * nest at most maxDepth deep.
 *
 * Run: npx tsx solutions/s15_subagents/agent.ts ["your task"]
 */
import { join } from "node:path";
import type Anthropic from "@anthropic-ai/sdk";
import type { Llm } from "../../runtime/client.ts";
import { lesson, transcriptOf } from "../../runtime/lesson.ts";
import { dim, say } from "../../runtime/print.ts";
import { CONTINUE_PROMPT, S15_TASK, SAMPLE_REPOSITORY } from "../../runtime/tasks.ts";
import type { ToolContext } from "../../solutions/s02_tool_dispatch/registry.ts";
import { SafeToolRegistry } from "../../solutions/s04_tool_errors/define-tool.ts";
import { answerNotRun, appendResponse, describeOutcome } from "../../solutions/s05_stop_reasons/outcome.ts";
import { afterResponse } from "../../solutions/s06_guards/agent.ts";
import { RunGuards, tokensOf } from "../../solutions/s06_guards/guards.ts";
import { refuseAll, terminalApprover } from "../../solutions/s07_safe_tools/approval.ts";
import { EarlyStart } from "../../solutions/s08_streaming/early-tools.ts";
import { streamTurn } from "../../solutions/s08_streaming/stream-turn.ts";
import { ObservedRegistry, type EventSink } from "../../solutions/s09_observability/events.ts";
import { createLogger } from "../../solutions/s09_observability/log.ts";
import { addTurn, emptyTotals, turnUsage } from "../../solutions/s09_observability/usage.ts";
import { Recovery, isPromptTooLong, retryTurn, windowOf } from "../../solutions/s11_recovery/recovery.ts";
import { capstoneTools } from "../../solutions/s12_guarded_agent/agent.ts";
import { withCacheBreakpoints } from "../../solutions/s13_caching/cache.ts";
import { Plan, staleReminder, todoTool } from "../../solutions/s14_planning/plan.ts";
import { DEFAULT_MAX_TOKENS, REMIND_AFTER, system, withTool, type RecoveredOutcome, type RunOptions as PlanningOptions } from "../../solutions/s14_planning/agent.ts";
import { MAX_DEPTH, saveChildren, taskTool, type ChildRun } from "./task-tool.ts";

export { system, DEFAULT_MAX_TOKENS, type RecoveredOutcome };

export interface RunOptions extends PlanningOptions {
  /** This agent's depth: 0 for the top one; a child runs at its parent's depth + 1. */
  depth?: number;
  /** Agents nest at most this deep (default MAX_DEPTH); an agent at maxDepth gets no task tool. */
  maxDepth?: number;
  /** Every child run when it ends (its transcript, how it ended), children's children included. */
  onChild?: (child: ChildRun) => void;
  /** The tokens of every response, this agent's and its children's (a parent's budget counts them). */
  onTokens?: (n: number) => void;
}

// #region loop
/** The loop. `history` grows in place; returns how the run ended. */
export async function runAgent(llm: Llm, history: Anthropic.MessageParam[], opts: RunOptions = {}): Promise<RecoveredOutcome> {
  const { client, model } = llm;
  const emit: EventSink = opts.onEvent ?? (() => {});
  const startedAt = Date.now();
  let totals = emptyTotals();
  const guard = new RunGuards(opts.guards, opts.signal);
  const recovery = new Recovery(history, opts.recovery, opts.maxTokens ?? DEFAULT_MAX_TOKENS);
  const root = opts.root ?? process.cwd();
  const plan = opts.plan ?? new Plan();
  const tools = opts.registry ?? new SafeToolRegistry(capstoneTools(root, opts.approve ?? terminalApprover()));
  const own = withTool(tools, todoTool(plan, () => guard.turns));
  // NEW: above maxDepth, a task tool: the same loop as a child, fresh history, some read-only tools,
  // its own guards and a share of this budget. Its tokens count here as they are spent.
  const depth = opts.depth ?? 0;
  const maxDepth = opts.maxDepth ?? MAX_DEPTH;
  const spend = (n: number) => {
    guard.used += n;
    opts.onTokens?.(n);
  };
  const task = taskTool({ parent: own, guard, depth, spend, ...(opts.onChild ? { onChild: opts.onChild } : {}), runChild: (h, child) => runAgent(llm, h, { root, maxDepth, cache: opts.cache ?? true, ...(opts.onChild ? { onChild: opts.onChild } : {}), ...child }) });
  const registry = new ObservedRegistry(depth < maxDepth ? withTool(own, task) : own, emit, () => guard.turns);
  const ctx: ToolContext = { root, signal: guard.signal };
  const finish = (outcome: RecoveredOutcome): RecoveredOutcome => {
    emit({ type: "stop", turn: guard.turns, outcome, totals, ms: Date.now() - startedAt });
    return outcome;
  };

  while (true) {
    const limit = guard.check();
    if (limit) return finish(limit);

    // s13: the prompt goes out with its cache breakpoints, on a copy: `history` keeps none.
    const prompt = { system: system(root), tools: registry.definitions(), messages: history };
    const cached = opts.cache === false ? prompt : withCacheBreakpoints(prompt);
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
    opts.onTokens?.(tokensOf(response.usage)); // a child's, passed up to its parent's budget
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
    const results = await early.results(calls);
    if (calls.some((c) => c.name === "todo")) opts.onPlan?.(plan);
    // s14: a stale plan is recalled in a text block AFTER the results.
    const reminder = staleReminder(plan, guard.turns, opts.remindAfter ?? REMIND_AFTER);
    history.push({ role: "user", content: reminder ? [...results, { type: "text", text: reminder }] : results });
  }
}
// #endregion loop

/** The default task on a scratch copy of the sample repository. */
export const demo = (llm: Llm, task = S15_TASK) =>
  transcriptOf(task, SAMPLE_REPOSITORY, (history, root) => runAgent(llm, history, { root, approve: refuseAll }));

const children: ChildRun[] = [];
lesson(import.meta.url, {
  task: S15_TASK,
  workspace: SAMPLE_REPOSITORY,
  run: ({ llm, history, root, signal, flag }) =>
    runAgent(llm, history, {
      root,
      signal,
      onEvent: createLogger({ verbose: flag("verbose") }),
      onChild: (c) => {
        children.push(c);
        say(dim(`  ↳ subagent ${c.id} "${c.description}" (depth ${c.depth}): ${c.outcome ? describeOutcome(c.outcome) : `failed: ${c.error}`}, ${c.history.length} messages of its own`));
      },
    }),
  printAnswer: false,
  after: () => {
    const files = saveChildren(join(".course", "runs", `s15-${Date.now()}`), children);
    if (files.length > 0) say(dim(`children's transcripts: ${files.join(", ")}`));
  },
});
