/**
 * s10_conversation: a REPL over one history (seed 002's outer loop).
 *
 * Unlike s09, where a run answered one task and the program ended, the loop now runs once per
 * question of a conversation, always on the SAME history: a follow-up is answered from what the
 * model saw before. The session is saved after every turn (.course/sessions/) and can be
 * resumed. Ctrl-C cancels the turn in flight, not the session, and `settleTurn` (repl.ts) leaves
 * the history sendable whatever the cancelled turn left behind. The loop itself is s09's.
 *
 * Run: npx tsx solutions/s10_conversation/agent.ts [--resume NAME] ["first question"]
 *      then type questions, /help, /save NAME, /reset, /exit; Ctrl-C cancels an answer.
 */
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import type Anthropic from "@anthropic-ai/sdk";
import { selectModel, type Llm } from "../../runtime/client.ts";
import { runMain } from "../../runtime/lesson.ts";
import { dim, printTurnEnd, say } from "../../runtime/print.ts";
import type { ToolContext, ToolRegistry } from "../../solutions/s02_tool_dispatch/registry.ts";
import { SafeToolRegistry } from "../../solutions/s04_tool_errors/define-tool.ts";
import { answerNotRun, appendResponse, stoppedBy } from "../../solutions/s05_stop_reasons/outcome.ts";
import { DEFAULT_GUARDS, RepeatCounter, runSignal, tokensOf, type GuardStop, type GuardedOutcome, type Guards } from "../../solutions/s06_guards/guards.ts";
import { terminalApprover, type Approver } from "../../solutions/s07_safe_tools/approval.ts";
import { safeTools } from "../../solutions/s07_safe_tools/safe-tools.ts";
import { EarlyStart } from "../../solutions/s08_streaming/early-tools.ts";
import { streamTurn, type StreamHandlers } from "../../solutions/s08_streaming/stream-turn.ts";
import { ObservedRegistry, type EventSink } from "../../solutions/s09_observability/events.ts";
import { createLogger } from "../../solutions/s09_observability/log.ts";
import { addTurn, emptyTotals, turnUsage } from "../../solutions/s09_observability/usage.ts";
import { S10_FOLLOW_UP, S10_TASK } from "../../runtime/tasks.ts";
import { Repl, askOn, attachTerminal, terminalLines } from "./repl.ts";
import { loadSession } from "./session.ts";

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
  /** Receives one event per step: think, act, observe, stop. */
  onEvent?: EventSink;
}

// #region loop
/** The loop. `history` grows in place; returns how the run ended. */
export async function runAgent({ client, model }: Llm, history: Anthropic.MessageParam[], opts: RunOptions = {}): Promise<GuardedOutcome> {
  const emit: EventSink = opts.onEvent ?? (() => {});
  const startedAt = Date.now();
  let totals = emptyTotals();
  const tools = opts.registry ?? new SafeToolRegistry(safeTools({ workspace: opts.root ?? process.cwd(), approve: opts.approve ?? terminalApprover() }));
  // Every tool call, early or not, passes through here: ACT before it runs, OBSERVE after.
  const registry = new ObservedRegistry(tools, emit, () => turns);
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
  // STOP: every way out of the loop goes through here, so the last event always says how it ended.
  const finish = (outcome: GuardedOutcome): GuardedOutcome => {
    emit({ type: "stop", turn: turns, outcome, totals, ms: Date.now() - startedAt });
    return outcome;
  };
  const stop = (reason: GuardStop, detail: string): GuardedOutcome =>
    finish({ status: "stopped", reason, detail, turns, ...(last ? { message: last } : {}) });
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
    const asked = Date.now();
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
    // THINK: the response, what it cost, how long it took; the run's totals grow by it.
    const usage = turnUsage(model, response.usage);
    totals = addTurn(totals, usage);
    emit({ type: "think", turn: turns, message: response, usage, ms: Date.now() - asked });

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
        return finish({ status: "done", message: response, turns });
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
        return finish(stoppedBy(response, turns));
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
    // Each is answered, failed or not; the observed registry reports each one as it runs.
    const results = await early.results(calls);
    history.push({ role: "user", content: results });
  }
}
// #endregion loop

// #region repl
/** Options of a conversation: where sessions live, which one, and the loop's own options. */
export interface ConversationOptions {
  dir?: string;
  name?: string;
  history?: Anthropic.MessageParam[];
  /** Passed to every run of the loop (the REPL adds the signal of the turn). */
  agent?: Omit<RunOptions, "signal">;
}

/** The REPL over one history: each question runs the whole loop, cancellable with Ctrl-C. */
export function createRepl(llm: Llm, opts: ConversationOptions = {}): Repl {
  return new Repl({
    ...(opts.dir ? { dir: opts.dir } : {}),
    ...(opts.name ? { name: opts.name } : {}),
    ...(opts.history ? { history: opts.history } : {}),
    model: llm.model,
    // The same history every time: the loop appends to it, the REPL keeps it.
    runTurn: (history, signal) => runAgent(llm, history, { onEvent: createLogger(), ...opts.agent, signal }),
    onTurnEnd: printTurnEnd,
  });
}
// #endregion repl

/** The default conversation: a question, a follow-up that needs the first answer, saved. */
export async function demo(llm: Llm): Promise<Anthropic.MessageParam[]> {
  const repl = createRepl(llm, { dir: mkdtempSync(join(tmpdir(), "s10-sessions-")), name: "demo" });
  for (const line of [S10_TASK, S10_FOLLOW_UP, "/save"]) await repl.handle(line);
  return repl.history;
}

async function main(): Promise<void> {
  const { values, positionals } = parseArgs({ allowPositionals: true, options: { resume: { type: "string" } } });
  const llm = selectModel();
  say(llm.banner);
  const session = values.resume ? loadSession(values.resume) : undefined;
  // One readline for the questions and for approvals asked during a turn.
  const rl = terminalLines();
  const agent = { approve: askOn(rl) };
  const repl = createRepl(llm, session ? { name: session.name, history: session.messages, agent } : { agent });
  say(dim(session ? `resumed "${session.name}" (${session.messages.length} messages)` : `session "${repl.name}" · /help for commands · Ctrl-C cancels an answer`));
  if (llm.offline && !session) say(dim(`offline: try "${S10_TASK}", then "${S10_FOLLOW_UP}"`));
  const first = positionals.join(" ").trim();
  if (first && (await repl.handle(first)) === "exit") return;
  await attachTerminal(repl, "> ", rl);
  if (repl.history.length > 0) say(dim(`(saved as "${repl.name}": resume with --resume ${repl.name})`));
}

runMain(import.meta.url, main);
