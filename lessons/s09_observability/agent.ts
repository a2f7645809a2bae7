/**
 * s09_observability: every step visible.
 *
 * Unlike s08, whose loop printed as it went, the loop now emits one typed event per step
 * (events.ts): THINK when a response arrives (with its usage and cost, usage.ts), ACT and
 * OBSERVE around every tool call (an observed registry, so even the calls started mid-stream are
 * seen), and STOP however the run ends, with the run's totals. Who listens decides what to do:
 * a logger for a person (log.ts, louder with --verbose), a JSONL file under .course/runs/
 * (jsonl.ts), the message table `[0] user … [n] assistant` (trace.ts, --trace), a test.
 *
 * Run: npm run lesson s09 -- [--verbose] [--trace] [--yes] ["your task"]    Check: npm run check s09
 * Your work is in events.ts (RunEvents.think, RunEvents.stop); trace.ts (messageTable) is given.
 */
import type Anthropic from "@anthropic-ai/sdk";
import type { Llm } from "../../runtime/client.ts";
import { lesson, transcriptOf } from "../../runtime/lesson.ts";
import { dim, heading, say } from "../../runtime/print.ts";
import { S12_TASK, SAMPLE_REPOSITORY } from "../../runtime/tasks.ts";
import type { ToolContext } from "../../solutions/s02_tool_dispatch/registry.ts";
import { SafeToolRegistry } from "../../solutions/s04_tool_errors/define-tool.ts";
import { answerNotRun } from "../../solutions/s05_stop_reasons/outcome.ts";
import { afterResponse } from "../../solutions/s06_guards/agent.ts";
import { RunGuards, type GuardedOutcome } from "../../solutions/s06_guards/guards.ts";
import { demoApprover, preApproved, terminalApprover } from "../../solutions/s07_safe_tools/approval.ts";
import { safeTools } from "../../solutions/s07_safe_tools/safe-tools.ts";
import { DEFAULT_MAX_TOKENS, system, type RunOptions as StreamingOptions } from "../../solutions/s08_streaming/agent.ts";
import { EarlyStart } from "../../solutions/s08_streaming/early-tools.ts";
import { streamTurn } from "../../solutions/s08_streaming/stream-turn.ts";
import { RunEvents, fanOut, type AgentEvent, type EventSink } from "./events.ts";
import { RunLog } from "./jsonl.ts";
import { createLogger } from "./log.ts";
import { messageTable } from "./trace.ts";

export { system, DEFAULT_MAX_TOKENS };

export interface RunOptions extends StreamingOptions {
  /** Receives one event per step: think, act, observe, stop. */
  onEvent?: EventSink;
}

// #region loop
/** The loop. `history` grows in place; returns how the run ended. */
export async function runAgent({ client, model }: Llm, history: Anthropic.MessageParam[], opts: RunOptions = {}): Promise<GuardedOutcome> {
  const guard = new RunGuards(opts.guards, opts.signal, opts.clock);
  // THINK, ACT, OBSERVE and STOP (events.ts): the loop says when, RunEvents says what.
  const events = new RunEvents(model, opts.onEvent, () => guard.turns);
  const tools = opts.registry ?? new SafeToolRegistry(safeTools({ workspace: opts.root ?? process.cwd(), approve: opts.approve ?? terminalApprover() }));
  // Every tool call, early or not, passes through here: ACT before it runs, OBSERVE after.
  const registry = events.observe(tools);
  const ctx: ToolContext = { root: opts.root ?? process.cwd(), signal: guard.signal };
  let maxTokens = opts.maxTokens ?? DEFAULT_MAX_TOKENS;
  let retried = false;

  while (true) {
    // The guards, before each request. Here history ends with a user message (the task or the
    // last results, every call answered), so stopping here leaves a transcript that can be sent again.
    const limit = guard.check();
    if (limit) return events.stop(limit);

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
        early.listening(opts.stream),
        guard.signal,
      );
    } catch (e) {
      // The deadline (or Ctrl-C) aborted the stream: the partial answer is dropped, nothing was
      // added to history, and the early tools were stopped by the same signal.
      await early.settle();
      const halted = guard.halted();
      if (halted) return events.stop(halted);
      throw e;
    }
    guard.count(response);
    // s08: a turn that did not end with tool_use runs none of its calls: the early ones are stopped.
    if (response.stop_reason !== "tool_use") await early.settle();
    // THINK: the response, what it cost, how long it took; the run's totals grow by it.
    events.think(response, asked);

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
    if (next !== "tools") return events.stop(next);

    // A call the model keeps repeating (same tool, same input) stops the run. subtle: the turn's
    // calls are still answered (not run), or the transcript would end on an unanswered tool_use.
    const calls = response.content.filter((b): b is Anthropic.ToolUseBlock => b.type === "tool_use");
    const repeated = guard.repeated(calls);
    if (repeated) {
      await early.settle();
      answerNotRun(history, response, `the run stopped: ${repeated.detail}`);
      return events.stop(repeated);
    }

    // All the calls of the turn, early or not; the observed registry reports each one as it runs.
    const results = await early.results(calls);
    history.push({ role: "user", content: results });
  }
}
// #endregion loop

/** The test command of the default task (the failing login test), approved in advance for the demo. */
export const S09_TEST_COMMAND = "node --test";

/** The failing-login-test task on a scratch copy of the sample repository; returns the transcript. */
export const demo = (llm: Llm, task = S12_TASK) => transcriptOf(task, SAMPLE_REPOSITORY, (history, root) => runAgent(llm, history, { root, approve: demoApprover(llm) }));

// The default task is the failing login test, on a scratch copy of the sample repository; its test command is pre-approved.
const responses: Anthropic.Message[] = [];
let log: RunLog | undefined;
lesson(import.meta.url, {
  task: S12_TASK,
  workspace: SAMPLE_REPOSITORY,
  model: { scripted: { streamDelayMs: 10 } },
  before: ({ isDefault }) => {
    if (isDefault) say(dim(`(pre-approved: ${S09_TEST_COMMAND})`));
  },
  run: ({ llm, history, root, signal, isDefault, task, flag }) => {
    log = new RunLog({ lesson: "s09_observability", model: llm.model, task });
    const ask = terminalApprover({ yes: flag("yes") });
    const keep = (e: AgentEvent) => e.type === "think" && responses.push(e.message);
    const onEvent = fanOut(createLogger({ verbose: flag("verbose") }), log.sink, keep);
    return runAgent(llm, history, { root, approve: isDefault ? preApproved([S09_TEST_COMMAND], ask) : ask, signal, onEvent });
  },
  // The logger already printed the answer and how the run ended.
  printAnswer: false,
  after: (_outcome, { history, flag }) => {
    log?.transcript(history);
    if (flag("trace")) {
      heading("The message table");
      for (const line of messageTable(history, responses)) say(line);
    }
    say(dim(`run log: ${log?.path}`));
  },
});
