/**
 * s03_parallel_tools: running the tool calls of one turn. Calls that only read (their ToolSpec
 * says `readOnly`) cannot disturb each other, so a run of consecutive read-only calls goes out
 * at once; any other call runs alone, after everything before it and before everything after
 * it. Whatever order they finish in, the results come back in the order the model asked.
 */
import type Anthropic from "@anthropic-ai/sdk";
import { todo } from "../../runtime/lesson.ts";
import type { ToolContext, ToolRegistry } from "../../solutions/s02_tool_dispatch/registry.ts";

// #region batches
/**
 * Splits a turn's calls into batches that run one after another: consecutive read-only calls
 * share a batch; every other call (a write, bash, an unknown tool) is a batch of its own.
 */
export function batches(registry: ToolRegistry, calls: Anthropic.ToolUseBlock[]): Anthropic.ToolUseBlock[][] {
  const readOnly = (call: Anthropic.ToolUseBlock) => registry.get(call.name)?.readOnly === true;
  // TODO: walk through `calls` in order. A read-only call joins the previous batch when that
  //       batch is read-only too; any other call (or the first one) starts a new batch.
  //       e.g. [read, read, write, read] → [[read, read], [write], [read]]
  void readOnly; // (delete this line when you use it)
  return todo("s03 batches: group consecutive read-only calls; every other call alone");
}
// #endregion batches

// #region run-tools
/** Runs every call of one turn and returns their results in the order asked. */
export async function runTools(
  registry: ToolRegistry,
  calls: Anthropic.ToolUseBlock[],
  ctx?: ToolContext,
): Promise<Anthropic.ToolResultBlockParam[]> {
  // TODO: run the batches one after another. Inside a batch, start every call at once
  //       (registry.dispatch(call, ctx) for each) and wait for all of them: Promise.all keeps
  //       the order of its input, whatever order they finish in. Return all the results, in
  //       the order the calls were asked.
  void [registry, calls, ctx]; // (delete this line when you use them)
  return todo("s03 runTools: run each batch's calls together, batches in order, results in the order asked");
}
// #endregion run-tools
