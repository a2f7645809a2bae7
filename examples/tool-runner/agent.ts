/**
 * Appendix: the same task solved twice, once by the course's hand-built loop and once by the
 * SDK's own tool runner (`client.beta.messages.toolRunner`).
 *
 * The task is lesson s04's: read a port from a broken config file while waiting for a build that
 * never finishes. The model's first call has a wrong field, `read_json` throws on the broken
 * file, `wait_for_file` hangs. The tools are s04's, unchanged; the runner gets them through
 * `betaZodTool`, which checks each input with the same zod schema.
 *
 *   1. the course's loop as lesson s08 leaves it (`runAgent`): a typed outcome, every
 *      stop_reason handled, guards (s06), streaming with read-only calls started early (s08);
 *   2. the runner: it runs the loop, pairs the results, validates the input, catches throws.
 *      What it does not do (time a tool out, retry a cut-off answer, guard a run, say how a run
 *      ended) is listed on the appendix page, each point tested in tests/appendix/.
 *
 * Run: npx tsx examples/tool-runner/agent.ts ["your task"] [--stream]
 */
import type Anthropic from "@anthropic-ai/sdk";
import type { BetaRunnableTool } from "@anthropic-ai/sdk/lib/tools/BetaRunnableTool";
import type { BetaToolRunnerParams } from "@anthropic-ai/sdk/lib/tools/BetaToolRunner";
import { betaZodTool } from "@anthropic-ai/sdk/helpers/beta/zod";
import { selectModel, type Llm } from "../../runtime/client.ts";
import { runMain, taskFromArgs } from "../../runtime/lesson.ts";
import { bold, dim, heading, printFinal, printToolResult, say, yellow } from "../../runtime/print.ts";
import { textOf } from "../../runtime/scripted/conversation.ts";
import { S04_TASK, S04_WORKSPACE } from "../../runtime/scripted/scenarios/s04_tool_errors.ts";
import { scratchWorkspace } from "../../runtime/tools/files.ts";
import { runWithDeadline, SafeToolRegistry, type CheckedTool } from "../../solutions/s04_tool_errors/define-tool.ts";
import { checkedTools, readJson, waitForFile } from "../../solutions/s04_tool_errors/tools.ts";
import { describeOutcome } from "../../solutions/s05_stop_reasons/outcome.ts";
import type { GuardedOutcome } from "../../solutions/s06_guards/guards.ts";
import { runAgent, system } from "../../solutions/s08_streaming/agent.ts";

export const TASK = S04_TASK;
export const WORKSPACE = S04_WORKSPACE;
export const MAX_TOKENS = 4096;

/** The task's tools: s04's five checked tools, and the two that fail (one throws, one hangs). */
export function courseTools(): CheckedTool[] {
  return [...checkedTools(), readJson, waitForFile];
}

// #region hand-built
/** The course's loop as of lesson s08, with s04's registry of checked tools and s06's default guards. */
export async function solveByHand(llm: Llm, history: Anthropic.MessageParam[], root: string, opts: { maxTokens?: number } = {}): Promise<GuardedOutcome> {
  return runAgent(llm, history, { registry: new SafeToolRegistry(courseTools()), root, maxTokens: opts.maxTokens ?? MAX_TOKENS });
}
// #endregion hand-built

// #region runnable-tools
/**
 * A course tool as the runner wants it: `betaZodTool` makes the definition from the zod schema
 * and parses every input with it before `run`. The runner gives a tool no time limit, so each
 * one still runs under s04's deadline.
 */
export function toRunnable(tool: CheckedTool, root: string): BetaRunnableTool<Record<string, unknown>> {
  return betaZodTool({
    name: tool.name,
    description: tool.description,
    inputSchema: tool.schema,
    run: (input, context) => runWithDeadline(tool.timeoutMs, context?.signal ?? undefined, (signal) => tool.run(input, { root, signal })),
  });
}
// #endregion runnable-tools

/** What the runner takes as `tools`: runnable tools (any input type), plain definitions, toolsets. */
export type RunnerTools = BetaToolRunnerParams["tools"];

export interface RunnerOptions {
  root: string;
  maxTokens?: number;
  /** The runner's only guard: at most this many requests. */
  maxIterations?: number;
  /** Aborts the request in flight and reaches each tool as `context.signal`. */
  signal?: AbortSignal;
  /** Streaming only: gets the text as it arrives (default: written to the terminal). */
  onText?: (delta: string) => void;
}

export interface RunnerResult {
  /** The last response, whatever its stop_reason. */
  final: Anthropic.Beta.BetaMessage;
  /** The whole conversation as the runner kept it (its own copy: `history` is not changed). */
  messages: Anthropic.MessageParam[];
}

// #region runner
/** The same task with the SDK's tool runner. */
export async function solveWithRunner(
  { client, model }: Llm,
  history: Anthropic.MessageParam[],
  tools: RunnerTools,
  opts: RunnerOptions,
): Promise<RunnerResult> {
  const runner = client.beta.messages.toolRunner(
    {
      model,
      max_tokens: opts.maxTokens ?? MAX_TOKENS,
      system: system(opts.root),
      tools,
      messages: history,
      // The runner's default sends only the new messages of each turn to a thread the server
      // keeps; the scripted model and compatible servers take the whole history every turn.
      thread: false,
      ...(opts.maxIterations ? { max_iterations: opts.maxIterations } : {}),
    },
    opts.signal ? { signal: opts.signal } : {},
  );

  // Each iteration is one response; the runner answers its tool calls after the loop body.
  for await (const message of runner) {
    for (const block of message.content) if (block.type === "tool_use") printCall(block);
    // Optional: the results the runner is about to send. It runs the tools once and keeps them.
    const results = await runner.generateToolResponse();
    for (const result of results?.content ?? [])
      if (typeof result !== "string" && result.type === "tool_result") printToolResult(textOf(result.content), result.is_error);
  }
  const final = await runner.done();
  return { final, messages: conversationOf(runner.params.messages) };
}
// #endregion runner

// #region stream
/** The runner with `stream: true`: the text of each turn is printed as it arrives. */
export async function streamWithRunner(
  { client, model }: Llm,
  history: Anthropic.MessageParam[],
  tools: RunnerTools,
  opts: RunnerOptions,
): Promise<RunnerResult> {
  const runner = client.beta.messages.toolRunner({
    model,
    max_tokens: opts.maxTokens ?? MAX_TOKENS,
    system: system(opts.root),
    tools,
    messages: history,
    thread: false,
    stream: true,
  });
  const onText = opts.onText ?? ((delta: string) => process.stdout.write(delta));
  for await (const stream of runner) {
    stream.on("text", onText);
    const message = await stream.finalMessage();
    onText("\n");
    for (const block of message.content) if (block.type === "tool_use") printCall(block);
  }
  const final = await runner.done();
  return { final, messages: conversationOf(runner.params.messages) };
}
// #endregion stream

// #region budget
/** Tokens of one response, cache reads and writes included (lesson s06 counts them the same way). */
export function tokensOf(u: Anthropic.Beta.BetaUsage): number {
  return u.input_tokens + u.output_tokens + (u.cache_read_input_tokens ?? 0) + (u.cache_creation_input_tokens ?? 0);
}

/**
 * A guard the runner does not have, added on top: a token budget for the whole run. The only way
 * to stop the runner between turns is to leave its loop, and then the transcript is yours to settle.
 */
export async function solveWithinBudget(
  { client, model }: Llm,
  history: Anthropic.MessageParam[],
  tools: RunnerTools,
  opts: RunnerOptions & { budget: number },
): Promise<RunnerResult & { spent: number; overBudget: boolean }> {
  const runner = client.beta.messages.toolRunner({
    model,
    max_tokens: opts.maxTokens ?? MAX_TOKENS,
    system: system(opts.root),
    tools,
    messages: history,
    thread: false,
  });
  let spent = 0;
  for await (const message of runner) {
    spent += tokensOf(message.usage);
    if (spent <= opts.budget) continue;
    // subtle: in the loop body the runner's history does not hold this reply yet, and once we
    // leave the loop it never will (and runner.done() never settles). Keep the reply ourselves,
    // and answer its calls without running them, so the transcript can be sent again.
    const calls = message.content.filter((b): b is Anthropic.Beta.BetaToolUseBlock => b.type === "tool_use");
    const messages: Anthropic.Beta.BetaMessageParam[] = [...runner.params.messages];
    if (message.content.length > 0) messages.push({ role: "assistant", content: message.content });
    if (calls.length > 0)
      messages.push({
        role: "user",
        content: calls.map((c) => ({ type: "tool_result" as const, tool_use_id: c.id, is_error: true, content: `Not run: the token budget (${opts.budget}) is spent` })),
      });
    return { final: message, messages: conversationOf(messages), spent, overBudget: true };
  }
  return { final: await runner.done(), messages: conversationOf(runner.params.messages), spent, overBudget: false };
}
// #endregion budget

/**
 * The runner speaks the beta types, whose messages may also be `system` messages (it adds one
 * only for `addTools()`/`removeTools()`, which this example does not use). Everything else is
 * the JSON of a Messages API conversation, as the course's checker reads it.
 */
export function conversationOf(messages: Anthropic.Beta.BetaMessageParam[]): Anthropic.MessageParam[] {
  const other = messages.find((m) => m.role !== "user" && m.role !== "assistant");
  if (other) throw new Error(`the runner's history holds a "${other.role}" message: not a plain Messages API conversation`);
  return messages as unknown as Anthropic.MessageParam[];
}

/** A call as the course prints one (the runner's blocks are the beta types). */
function printCall(block: Anthropic.Beta.BetaToolUseBlock): void {
  say(`${yellow("→")} ${block.name} ${JSON.stringify(block.input)}`);
}

/** The text of the runner's last response, as printFinal shows an answer. */
function printAnswer(message: Anthropic.Beta.BetaMessage): void {
  const text = message.content.flatMap((b) => (b.type === "text" ? [b.text] : [])).join("\n");
  say("");
  say(bold("Answer:") + " " + (text || dim("(no text)")));
}

/** One line on a transcript: its length and how many tool results were errors. */
export function summary(messages: Anthropic.MessageParam[]): string {
  const results = messages.flatMap((m) => (Array.isArray(m.content) ? m.content : [])).filter((b) => b.type === "tool_result");
  const failed = results.filter((b) => b.type === "tool_result" && b.is_error).length;
  return `${messages.length} messages, ${results.length} tool results (${failed} with is_error)`;
}

/** Both runs on fresh scratch copies of the task's workspace; returns both transcripts. */
export async function solveTwice(llm: Llm, task = TASK) {
  const byHand: Anthropic.MessageParam[] = [{ role: "user", content: task }];
  const outcome = await solveByHand(llm, byHand, await scratchWorkspace(WORKSPACE));
  const root = await scratchWorkspace(WORKSPACE);
  const runner = await solveWithRunner(llm, [{ role: "user", content: task }], courseTools().map((t) => toRunnable(t, root)), { root });
  return { byHand, outcome, runner };
}

async function main(): Promise<void> {
  const llm = selectModel();
  say(llm.banner);
  const task = taskFromArgs(TASK);
  const isDefault = task === TASK;
  // The default task works in scratch copies of a broken workspace; a task of your own works here.
  const workspace = async () => (isDefault ? await scratchWorkspace(WORKSPACE) : process.cwd());

  heading("1. The course's loop (s08 runAgent)");
  const byHand: Anthropic.MessageParam[] = [{ role: "user", content: task }];
  const outcome = await solveByHand(llm, byHand, await workspace());
  printFinal(outcome.message);

  heading(`2. The SDK's tool runner${process.argv.includes("--stream") ? " (streaming)" : ""}`);
  const root = await workspace();
  const tools = courseTools().map((t) => toRunnable(t, root));
  const solve = process.argv.includes("--stream") ? streamWithRunner : solveWithRunner;
  const run = await solve(llm, [{ role: "user", content: task }], tools, { root });
  printAnswer(run.final);

  heading("Side by side");
  say(`${bold("course loop")}  ${summary(byHand)}; ${describeOutcome(outcome)}`);
  say(`${bold("tool runner")}  ${summary(run.messages)}; last stop_reason: ${run.final.stop_reason}`);
  say(dim("The runner returns the last message whatever its stop_reason: telling done from cut off is up to you."));
}

runMain(import.meta.url, main);
