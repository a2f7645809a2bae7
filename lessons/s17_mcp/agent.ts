/**
 * s17_mcp: tools from outside, over the Model Context Protocol.
 *
 * Unlike s16, whose tools were all written in this course, the loop now takes tools from MCP
 * servers (mcp.ts): processes it starts from a config file in the `mcpServers` format, talks to
 * over stdio with the SDK's client, and stops when the run ends. Each server tool is an API tool
 * named mcp__<server>__<tool>; its results (text, images, isError) become tool_result blocks; a
 * server that crashes, hangs or fails is an is_error result, never an exception in the loop.
 *
 * Run: npx tsx lessons/s17_mcp/agent.ts ["your task"]    Check: npm run check s17
 * Your work is here (the servers' lifetime) and in mcp.ts (the tools' names and schemas, the results).
 */
import type Anthropic from "@anthropic-ai/sdk";
import type { Llm } from "../../runtime/client.ts";
import { lesson, todo, transcriptOf } from "../../runtime/lesson.ts";
import { dim, say, yellow } from "../../runtime/print.ts";
import { CONTINUE_PROMPT, MCP_EXAMPLE_CONFIG, S17_TASK, SAMPLE_REPOSITORY } from "../../runtime/tasks.ts";
import type { ToolContext } from "../../solutions/s02_tool_dispatch/registry.ts";
import { SafeToolRegistry } from "../../solutions/s04_tool_errors/define-tool.ts";
import { answerNotRun, appendResponse } from "../../solutions/s05_stop_reasons/outcome.ts";
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
import { REMIND_AFTER, withTool } from "../../solutions/s14_planning/agent.ts";
import { MAX_DEPTH, taskTool } from "../../solutions/s15_subagents/task-tool.ts";
import { loadSkillTool, skillsPrompt } from "../../solutions/s16_skills/skills.ts";
import { DEFAULT_MAX_TOKENS, system, type RecoveredOutcome, type RunOptions as SkilledOptions } from "../../solutions/s16_skills/agent.ts";
import { McpRegistry, McpServers, readMcpConfig, type ServerConfig } from "./mcp.ts";

export { system, DEFAULT_MAX_TOKENS, type RecoveredOutcome };

export interface RunOptions extends SkilledOptions {
  /** MCP servers to start for this run (readMcpConfig(file)); they are stopped when it ends. */
  mcpServers?: Record<string, ServerConfig>;
  /** Servers already started by the caller (who stops them); used instead of mcpServers. */
  mcp?: McpServers;
  /** A server that does not answer a call within this many ms: is_error (default 60 s). */
  mcpCallTimeoutMs?: number;
  /** A server that could not be started (the run goes on without it). */
  onMcpProblem?: (problem: string) => void;
}

// #region loop
/** The run: the MCP servers started, the loop, the servers stopped however the loop ended. */
export async function runAgent(llm: Llm, history: Anthropic.MessageParam[], opts: RunOptions = {}): Promise<RecoveredOutcome> {
  // NEW: servers live as long as the run: started here, closed in `finally` (done, stopped or thrown).
  const started = !opts.mcp && opts.mcpServers ? await McpServers.start(opts.mcpServers, { callTimeoutMs: opts.mcpCallTimeoutMs ?? 60_000 }) : undefined;
  for (const problem of started?.problems ?? []) (opts.onMcpProblem ?? ((p: string) => say(yellow(p))))(problem);
  // TODO: run agentLoop(llm, history, { ...opts, mcp: started (when there is one) }) and return its
  //       outcome, and stop the servers you started (started.close()) however the loop ends:
  //       done, stopped, or thrown.
  void agentLoop; // (delete this line when you use it)
  return todo(`s17 runAgent: run the loop with ${started ? "the MCP servers' tools" : "no MCP server"}, then stop the servers`);
}
// #endregion loop

// #region agent-loop
/** The loop of s16, with the MCP servers' tools. `history` grows in place; returns how the run ended. */
async function agentLoop(llm: Llm, history: Anthropic.MessageParam[], opts: RunOptions = {}): Promise<RecoveredOutcome> {
  const { client, model } = llm;
  const emit: EventSink = opts.onEvent ?? (() => {});
  const startedAt = Date.now();
  let totals = emptyTotals();
  const guard = new RunGuards(opts.guards, opts.signal);
  const recovery = new Recovery(history, opts.recovery, opts.maxTokens ?? DEFAULT_MAX_TOKENS);
  const root = opts.root ?? process.cwd();
  const plan = opts.plan ?? new Plan();
  const tools = opts.registry ?? new SafeToolRegistry(capstoneTools(root, opts.approve ?? terminalApprover()));
  // s16: the skills' names and descriptions in the system prompt; load_skill returns a body.
  const skills = opts.skills ?? [];
  const own = withTool(skills.length > 0 ? withTool(tools, loadSkillTool(skills)) : tools, todoTool(plan, () => guard.turns));
  // s15: above maxDepth, a task tool (a child loop); its tokens count here as they are spent.
  const depth = opts.depth ?? 0;
  const maxDepth = opts.maxDepth ?? MAX_DEPTH;
  const spend = (n: number) => {
    guard.used += n;
    opts.onTokens?.(n);
  };
  const task = taskTool({ parent: own, guard, depth, spend, ...(opts.onChild ? { onChild: opts.onChild } : {}), runChild: (h, child) => runAgent(llm, h, { root, maxDepth, cache: opts.cache ?? true, ...(opts.onChild ? { onChild: opts.onChild } : {}), ...child }) });
  const delegating = depth < maxDepth ? withTool(own, task) : own;
  // NEW: the MCP servers' tools beside the others; their calls go to the servers (children get none).
  const registry = new ObservedRegistry(opts.mcp ? new McpRegistry(delegating, opts.mcp) : delegating, emit, () => guard.turns);
  const ctx: ToolContext = { root, signal: guard.signal };
  const finish = (outcome: RecoveredOutcome): RecoveredOutcome => {
    emit({ type: "stop", turn: guard.turns, outcome, totals, ms: Date.now() - startedAt });
    return outcome;
  };

  while (true) {
    const limit = guard.check();
    if (limit) return finish(limit);

    // s13: the prompt goes out with its cache breakpoints, on a copy: `history` keeps none.
    const prompt = { system: system(root) + skillsPrompt(skills), tools: registry.definitions(), messages: history };
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
// #endregion agent-loop

/** The default task on a scratch copy of the sample repository, with the example MCP server. */
export const demo = (llm: Llm, task = S17_TASK) =>
  transcriptOf(task, SAMPLE_REPOSITORY, (history, root) => runAgent(llm, history, { root, approve: refuseAll, mcpServers: readMcpConfig(MCP_EXAMPLE_CONFIG) }));

lesson(import.meta.url, {
  task: S17_TASK,
  workspace: SAMPLE_REPOSITORY,
  before: () => say(dim("MCP servers: examples/mcp-notes/mcp.json (notes, started for the run, stopped after it)")),
  run: ({ llm, history, root, signal, flag }) =>
    runAgent(llm, history, { root, signal, mcpServers: readMcpConfig(MCP_EXAMPLE_CONFIG), onEvent: createLogger({ verbose: flag("verbose") }) }),
  printAnswer: false,
});
