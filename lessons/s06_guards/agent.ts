/**
 * s06_guards: the loop stops itself, and every way of stopping leaves a valid transcript.
 *
 * Unlike s05, where only the model could end a run, the loop now has guards (guards.ts): a limit
 * on turns, a token budget that counts cache tokens too, a wall-clock deadline that aborts the
 * request in flight, and a stop when the model repeats the same call. Each is a typed option
 * with a default, and one RunGuards object keeps the run's count. Subtle, and the point of the
 * lesson: whichever way the run stops, no tool_use is left unanswered, so `history` can be sent
 * to the API again (to resume, or to ask why).
 *
 * Run: npm run lesson s06 ["your task"]    Check: npm run check s06
 * Your work, one idea (stop cleanly): guards.ts's RunGuards.check (the limits checked before each
 * request) and, here, the stop on a repeated call. The rest is given and explained on the page:
 * the token count (tokensOf), the call key (callKey) and the aborted request below.
 */
import type Anthropic from "@anthropic-ai/sdk";
import type { Clock } from "../../runtime/clock.ts";
import { scriptedLlm, type FaultPlan, type Llm } from "../../runtime/client.ts";
import { lesson, todo, transcriptOf } from "../../runtime/lesson.ts";
import { bold, dim, printToolCall, printToolResult, say, sendableLine } from "../../runtime/print.ts";
import { S06_TASK, S06_WORKSPACE } from "../../runtime/tasks.ts";
import { textOf } from "../../runtime/transcript.ts";
import { scratchWorkspace } from "../../runtime/tools/files.ts";
import type { ToolContext, ToolRegistry } from "../../solutions/s02_tool_dispatch/registry.ts";
import { batches, runTools } from "../../solutions/s03_parallel_tools/run-tools.ts";
import { SafeToolRegistry } from "../../solutions/s04_tool_errors/define-tool.ts";
import { checkedTools } from "../../solutions/s04_tool_errors/tools.ts";
import { answerNotRun, appendResponse, describeOutcome, stoppedBy, type Outcome } from "../../solutions/s05_stop_reasons/outcome.ts";
import { DEFAULT_GUARDS, RunGuards, type GuardedOutcome, type Guards } from "./guards.ts";

export const system = (root: string) =>
  `You are a coding agent working in ${root}; tool paths are relative to it. Use the tools to act, then answer briefly.`;

export const DEFAULT_MAX_TOKENS = 4096;

export interface RunOptions {
  /** The tools (default: s04's checked tools). */
  registry?: ToolRegistry;
  /** The workspace the tools act in (default: the current directory). */
  root?: string;
  /** max_tokens of each request; a cut-off answer is asked again once with 4 times as many. */
  maxTokens?: number;
  /** Texts at which the model stops writing (stop_reason "stop_sequence"). */
  stopSequences?: string[];
  /** The run's limits; a field left out keeps its default (DEFAULT_GUARDS). */
  guards?: Partial<Guards>;
  /** Cancels the run from outside (Ctrl-C, a caller's own deadline). */
  signal?: AbortSignal;
  /** What the deadline runs on (default: the machine's time; tests give their own clock). */
  clock?: Clock;
}

// #region loop
/** The loop. `history` grows in place; returns how the run ended. */
export async function runAgent({ client, model }: Llm, history: Anthropic.MessageParam[], opts: RunOptions = {}): Promise<GuardedOutcome> {
  const registry = opts.registry ?? new SafeToolRegistry(checkedTools());
  const guard = new RunGuards(opts.guards, opts.signal, opts.clock);
  const ctx: ToolContext = { root: opts.root ?? process.cwd(), signal: guard.signal };
  let maxTokens = opts.maxTokens ?? DEFAULT_MAX_TOKENS;
  let retried = false;

  while (true) {
    // The guards, before each request. Here history ends with a user message (the task or the
    // last results, every call answered), so stopping here leaves a transcript that can be sent again.
    const limit = guard.check();
    if (limit) return limit;

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
        { signal: guard.signal },
      );
    } catch (e) {
      // The deadline (or the caller) aborted the request in flight: nothing was added to history.
      const halted = guard.halted();
      if (halted) return halted;
      throw e;
    }
    guard.count(response);

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
      // TODO: stop with `repeated`, but first answer every call of this turn without running
      //       it (answerNotRun), or the transcript ends on an unanswered tool_use.
      return todo("s06 runAgent: answer the turn's calls (not run), then stop with repeated_call");
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

// #region after-response
/**
 * s05's handling of every stop_reason, as one step the later loops share: store the response
 * (never empty), then "tools" when it asks for tools, "again" when it paused, else the Outcome.
 */
export function afterResponse(history: Anthropic.MessageParam[], response: Anthropic.Message, turns: number): Outcome | "again" | "tools" {
  appendResponse(history, response);
  switch (response.stop_reason) {
    case "end_turn":
      return { status: "done", message: response, turns };
    case "pause_turn":
      // The turn is not over: it goes back as it is, and the model continues from there.
      say(dim("  pause_turn: sending the paused turn back"));
      return "again";
    case "tool_use":
      return "tools";
    default:
      // max_tokens again, stop_sequence, refusal, model_context_window_exceeded, or a value this
      // loop does not know: not success. A call the model asked for is answered, not run.
      answerNotRun(history, response, `the response ended with stop_reason "${response.stop_reason}"`);
      return stoppedBy(response, turns);
  }
}
// #endregion after-response

/** The lesson's default task in a scratch workspace, with the default guards; returns the transcript. */
export const demo = (llm: Llm, task = S06_TASK) => transcriptOf(task, S06_WORKSPACE, (history, root) => runAgent(llm, history, { root }));

/** Offline only: the default task once per guard, each time with that guard tightened. */
async function tour(): Promise<void> {
  say("");
  say(bold("── Each guard, on the same task (scripted) ──"));
  const runs: Array<{ label: string; guards: Partial<Guards>; faults?: FaultPlan }> = [
    { label: "maxTurns: 2", guards: { maxTurns: 2 } },
    { label: "tokenBudget: 1500", guards: { tokenBudget: 1_500 } },
    { label: "timeoutMs: 1000, model answers slowly", guards: { timeoutMs: 1_000 }, faults: [null, { kind: "latency", ms: 30_000 }] },
  ];
  for (const { label, guards, faults } of runs) {
    const history: Anthropic.MessageParam[] = [{ role: "user", content: S06_TASK }];
    say("");
    say(bold(label));
    const outcome = await runAgent(scriptedLlm(faults ? { faults } : {}), history, { root: await scratchWorkspace(S06_WORKSPACE), guards });
    say(`Outcome: ${describeOutcome(outcome)}`);
    say(sendableLine(history));
  }
}

// The default task polls in a scratch workspace for a file that never comes; a task of your own works here.
lesson(import.meta.url, {
  task: S06_TASK,
  workspace: S06_WORKSPACE,
  before: () => say(dim(`guards: ${JSON.stringify(DEFAULT_GUARDS)}`)),
  run: ({ llm, history, root }) => runAgent(llm, history, { root }),
  describe: describeOutcome,
  after: async (_outcome, { llm, isDefault }) => {
    if (llm.offline && isDefault) await tour();
  },
});
