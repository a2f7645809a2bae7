/**
 * s05_stop_reasons: every stop_reason, and a typed outcome.
 *
 * Unlike s04, whose loop ended on any stop_reason but "tool_use" and returned the last message as
 * if all were well, `runAgent` handles each value and returns an `Outcome` (outcome.ts): done,
 * or stopped and why. max_tokens: the answer was cut off, maybe in the middle of a tool call,
 * so nothing of it is run; ask again once with a larger limit. pause_turn: send the turn back
 * and let the model go on. stop_sequence, refusal, model_context_window_exceeded, and any value
 * the loop does not know: stop, and say so. An empty answer is not stored.
 *
 * Run: npm run lesson s05 ["your task"]    Check: npm run check s05
 * Your work is here (the loop) and in outcome.ts (appendResponse).
 */
import type Anthropic from "@anthropic-ai/sdk";
import { scriptedLlm, type Llm } from "../../runtime/client.ts";
import { lesson, todo, transcriptOf } from "../../runtime/lesson.ts";
import { dim, heading, printToolCall, printToolResult, say } from "../../runtime/print.ts";
import { textOf } from "../../runtime/transcript.ts";
import { S05_SMALL_MAX_TOKENS, S05_TASK, S05_TOUR_TASKS } from "../../runtime/tasks.ts";
import type { ToolContext, ToolRegistry } from "../../solutions/s02_tool_dispatch/registry.ts";
import { batches, runTools } from "../../solutions/s03_parallel_tools/run-tools.ts";
import { SafeToolRegistry } from "../../solutions/s04_tool_errors/define-tool.ts";
import { checkedTools } from "../../solutions/s04_tool_errors/tools.ts";
import { answerNotRun, appendResponse, describeOutcome, stoppedBy, type Outcome } from "./outcome.ts";

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
}

// #region loop
/** The loop. `history` grows in place; returns how the run ended. */
export async function runAgent({ client, model }: Llm, history: Anthropic.MessageParam[], opts: RunOptions = {}): Promise<Outcome> {
  const registry = opts.registry ?? new SafeToolRegistry(checkedTools());
  const ctx: ToolContext = { root: opts.root ?? process.cwd() };
  let maxTokens = opts.maxTokens ?? DEFAULT_MAX_TOKENS;
  let retried = false;
  let turns = 0;
  while (true) {
    const response = await client.messages.create({
      model,
      max_tokens: maxTokens,
      system: system(ctx.root),
      tools: registry.definitions(),
      messages: history,
      ...(opts.stopSequences ? { stop_sequences: opts.stopSequences } : {}),
    });
    turns++;

    // TODO: if the answer was cut off (stop_reason "max_tokens") and this run has not retried yet:
    //       raise maxTokens (4 times), remember that you retried, and `continue` WITHOUT storing
    //       or running anything of it: a tool_use at its end may have an unfinished input ({}).

    // The assistant's turn goes into history as it came; an empty one is not stored at all.
    appendResponse(history, response);

    // TODO: switch on response.stop_reason:
    //       "end_turn"   → return { status: "done", message: response, turns };
    //       "pause_turn" → continue: the stored turn goes back as it is, and the model goes on;
    //       "tool_use"   → go on below and run the calls;
    //       anything else (max_tokens after the retry, stop_sequence, refusal,
    //       model_context_window_exceeded, a value you do not know) → answerNotRun(history,
    //       response, why), then return stoppedBy(response, turns).
    if (response.stop_reason !== "tool_use") {
      void [retried, answerNotRun, stoppedBy]; // (delete this line when you use them)
      return todo("s05 runAgent: turn every stop_reason into an Outcome (done, continue, or stopped and why)");
    }

    // All the calls of the turn at once: read-only ones together, the others alone, in order.
    // Each is answered, failed or not: runTools calls registry.dispatch, which is now safeDispatch.
    const calls = response.content.filter((b): b is Anthropic.ToolUseBlock => b.type === "tool_use");
    calls.forEach(printToolCall);
    say(dim(`  run: ${batches(registry, calls).map((b) => b.map((c) => c.name).join(" ‖ ")).join("  →  ")}`));
    const results = await runTools(registry, calls, ctx);
    for (const result of results) printToolResult(textOf(result.content), result.is_error);
    history.push({ role: "user", content: results });
  }
}
// #endregion loop

/** The lesson's default task in a scratch workspace, with a max_tokens too small on purpose. */
export const demo = (llm: Llm, task = S05_TASK) => transcriptOf(task, {}, (history, root) => runAgent(llm, history, { root, maxTokens: S05_SMALL_MAX_TOKENS }));

/** Offline only: one short run per stop_reason the default task does not show. */
async function tour(): Promise<void> {
  heading("The other stop reasons (scripted)");
  for (const { title, task, stopSequences } of S05_TOUR_TASKS) {
    const history: Anthropic.MessageParam[] = [{ role: "user", content: task }];
    const outcome = await runAgent(scriptedLlm(), history, stopSequences ? { stopSequences } : {});
    say(`${title.padEnd(30)} → ${describeOutcome(outcome)} ${dim(`(${history.length} message${history.length === 1 ? "" : "s"} kept)`)}`);
  }
}

// The default task writes in a scratch workspace, with a small max_tokens so the first answer is cut off.
lesson(import.meta.url, {
  task: S05_TASK,
  workspace: {},
  run: ({ llm, history, root, isDefault }) => runAgent(llm, history, { root, ...(isDefault ? { maxTokens: S05_SMALL_MAX_TOKENS } : {}) }),
  describe: describeOutcome,
  after: async (_outcome, { llm, isDefault }) => {
    if (llm.offline && isDefault) await tour();
  },
});
