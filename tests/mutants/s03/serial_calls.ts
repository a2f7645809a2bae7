// mutant of: solutions/s03_parallel_tools/run-tools.ts
// expect: × runs three read-only calls of 200 ms at the same time
/**
 * s03_parallel_tools: running the tool calls of one turn. Calls that only read (their ToolSpec
 * says `readOnly`) cannot disturb each other, so a run of consecutive read-only calls goes out
 * at once; any other call runs alone, after everything before it and before everything after
 * it. Whatever order they finish in, the results come back in the order the model asked.
 */
import type Anthropic from "@anthropic-ai/sdk";
import type { ToolContext, ToolRegistry } from "../../../solutions/s02_tool_dispatch/registry.ts";

// #region batches
/**
 * Splits a turn's calls into batches that run one after another: consecutive read-only calls
 * share a batch; every other call (a write, bash, an unknown tool) is a batch of its own.
 */
export function batches(registry: ToolRegistry, calls: Anthropic.ToolUseBlock[]): Anthropic.ToolUseBlock[][] {
  const readOnly = (call: Anthropic.ToolUseBlock) => registry.get(call.name)?.readOnly === true;
  const out: Anthropic.ToolUseBlock[][] = [];
  for (const call of calls) {
    const last = out[out.length - 1];
    if (last && readOnly(call) && readOnly(last[0]!)) last.push(call);
    else out.push([call]);
  }
  return out;
}
// #endregion batches

// #region run-tools
/** Runs every call of one turn and returns their results in the order asked. */
export async function runTools(
  registry: ToolRegistry,
  calls: Anthropic.ToolUseBlock[],
  ctx?: ToolContext,
): Promise<Anthropic.ToolResultBlockParam[]> {
  const results: Anthropic.ToolResultBlockParam[] = [];
  for (const batch of batches(registry, calls)) {
    // The calls of a batch start together; Promise.all keeps the order of its input, not of
    // completion, so a quick second call cannot overtake a slow first one in the answer.
    // BUG: every call of the batch waits for the one before it, even read-only ones.
    for (const call of batch) results.push(await registry.dispatch(call, ctx));
  }
  return results;
}
// #endregion run-tools
