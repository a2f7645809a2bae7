/**
 * s14_planning: the model keeps a plan, and the loop keeps it honest.
 *
 * Unlike s13, the loop now owns a to-do list (plan.ts). The model writes it with the `todo` tool,
 * sending the whole list each time; the loop checks it (at most one item in progress) and shows
 * the progress. When the model has not touched the plan for `remindAfter` turns, the loop adds a
 * short reminder to the next user message, as a text block AFTER that turn's tool results: the API
 * refuses a message whose tool results do not come first.
 *
 * Run: npx tsx lessons/s14_planning/agent.ts ["your task"]    Check: npm run check s14
 * Your work is here (the reminder after the results) and in plan.ts (Plan.update, staleReminder).
 */
import type Anthropic from "@anthropic-ai/sdk";
import type { Llm } from "../../runtime/client.ts";
import { lesson, todo, transcriptOf } from "../../runtime/lesson.ts";
import { dim, say } from "../../runtime/print.ts";
import { CONTINUE_PROMPT, S14_TASK, SAMPLE_REPOSITORY } from "../../runtime/tasks.ts";
import type { ToolContext, ToolRegistry, ToolSpec } from "../../solutions/s02_tool_dispatch/registry.ts";
import { SafeToolRegistry } from "../../solutions/s04_tool_errors/define-tool.ts";
import { answerNotRun, appendResponse } from "../../solutions/s05_stop_reasons/outcome.ts";
import { afterResponse } from "../../solutions/s06_guards/agent.ts";
import { RunGuards } from "../../solutions/s06_guards/guards.ts";
import { refuseAll, terminalApprover } from "../../solutions/s07_safe_tools/approval.ts";
import { EarlyStart } from "../../solutions/s08_streaming/early-tools.ts";
import { streamTurn } from "../../solutions/s08_streaming/stream-turn.ts";
import { ObservedRegistry, type EventSink } from "../../solutions/s09_observability/events.ts";
import { createLogger } from "../../solutions/s09_observability/log.ts";
import { addTurn, emptyTotals, turnUsage } from "../../solutions/s09_observability/usage.ts";
import { Recovery, isPromptTooLong, retryTurn, windowOf } from "../../solutions/s11_recovery/recovery.ts";
import { capstoneTools } from "../../solutions/s12_guarded_agent/agent.ts";
import { withCacheBreakpoints } from "../../solutions/s13_caching/cache.ts";
import { DEFAULT_MAX_TOKENS, system, type RecoveredOutcome, type RunOptions as CachedOptions } from "../../solutions/s13_caching/agent.ts";
import { Plan, staleReminder, todoTool } from "./plan.ts";

export { system, DEFAULT_MAX_TOKENS, type RecoveredOutcome };

/** Turns without a change to the plan before the loop reminds the model of it. */
export const REMIND_AFTER = 3;

export interface RunOptions extends CachedOptions {
  /** The plan (default: a new, empty one). Pass one to keep it across runs, or to read it after. */
  plan?: Plan;
  /** Turns without a change to the plan before a reminder (default REMIND_AFTER). */
  remindAfter?: number;
  /** Called after each turn in which the model wrote the plan (to show the progress). */
  onPlan?: (plan: Plan) => void;
}

/** The registry's tools plus `tool` (unless it already has one by that name). */
export function withTool(registry: ToolRegistry, tool: ToolSpec): ToolRegistry {
  if (registry.get(tool.name)) return registry;
  return new SafeToolRegistry([...registry.names().map((n) => registry.get(n)!), tool]);
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
  // NEW: the plan is the loop's; the model reads and rewrites it through the todo tool.
  const plan = opts.plan ?? new Plan();
  const tools = opts.registry ?? new SafeToolRegistry(capstoneTools(root, opts.approve ?? terminalApprover()));
  const registry = new ObservedRegistry(withTool(tools, todoTool(plan, () => guard.turns)), emit, () => guard.turns);
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
    // NEW: a plan left alone for `remindAfter` turns is recalled, in a text block AFTER the
    // results. subtle: tool_result blocks must come first in the message; text before them is refused.
    // TODO: ask staleReminder(plan, guard.turns, opts.remindAfter ?? REMIND_AFTER) for this turn's
    //       reminder; push ONE user message: the results, then (when there is a reminder) a text
    //       block with it. Not before the results, and not as a user message of its own.
    void [staleReminder, REMIND_AFTER, results]; // (delete this line when you use them)
    todo(`s14 runAgent: answer the ${calls.length} call(s) of turn ${guard.turns}, with the plan's reminder after the results when it is stale`);
  }
}
// #endregion loop

/** The default task on a scratch copy of the sample repository (bash commands that write are refused). */
export const demo = (llm: Llm, task = S14_TASK) =>
  transcriptOf(task, SAMPLE_REPOSITORY, (history, root) => runAgent(llm, history, { root, approve: refuseAll }));

lesson(import.meta.url, {
  task: S14_TASK,
  workspace: SAMPLE_REPOSITORY,
  run: ({ llm, history, root, signal, flag }) =>
    runAgent(llm, history, {
      root,
      signal,
      onEvent: createLogger({ verbose: flag("verbose") }),
      onPlan: (plan) => say(dim(plan.render().split("\n").map((l) => `  ${l}`).join("\n"))),
    }),
  printAnswer: false,
});
