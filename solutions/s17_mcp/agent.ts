/**
 * s17_mcp: tools from outside, over the Model Context Protocol.
 *
 * Unlike s16, whose tools were all written in this course, the loop now takes tools from MCP
 * servers (mcp.ts): processes it starts from a config file in the `mcpServers` format, talks to
 * over stdio with the SDK's client, and stops when the run ends. Each server tool is an API tool
 * named mcp__<server>__<tool>; its results (text, images, isError) become tool_result blocks; a
 * server that crashes, hangs or fails is an is_error result, never an exception in the loop. The
 * servers' tools reach s16's loop through one hook (s11's extend.ts), `tools`; the servers' life
 * is the run's: started before s16's loop, stopped in a `finally` after it.
 *
 * Run: npm run lesson s17 -- --solution ["your task"]   (the example server, examples/mcp-notes)
 */
import type Anthropic from "@anthropic-ai/sdk";
import type { Llm } from "../../runtime/client.ts";
import { lesson, transcriptOf } from "../../runtime/lesson.ts";
import { dim, say, yellow } from "../../runtime/print.ts";
import { MCP_EXAMPLE_CONFIG, S17_TASK, SAMPLE_REPOSITORY } from "../../runtime/tasks.ts";
import { refuseAll } from "../../solutions/s07_safe_tools/approval.ts";
import { createLogger } from "../../solutions/s09_observability/log.ts";
import type { Extension } from "../../solutions/s11_recovery/extend.ts";
import { runAgent as skilledLoop, DEFAULT_MAX_TOKENS, system, type RecoveredOutcome, type RunOptions as SkilledOptions } from "../../solutions/s16_skills/agent.ts";
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
/** NEW: the MCP servers' tools beside the others; their calls go to the servers (children get none: they are not read-only). */
export const mcpTools =
  (servers: McpServers): Extension =>
  () => ({ tools: (tools) => new McpRegistry(tools, servers) });

/** The run: the MCP servers started, s16's loop with their tools, the servers stopped however the loop ended. */
export async function runAgent(llm: Llm, history: Anthropic.MessageParam[], opts: RunOptions = {}): Promise<RecoveredOutcome> {
  // NEW: servers live as long as the run: started here, closed in `finally` (done, stopped or thrown).
  const started = !opts.mcp && opts.mcpServers ? await McpServers.start(opts.mcpServers, { callTimeoutMs: opts.mcpCallTimeoutMs ?? 60_000, workspace: opts.root ?? process.cwd() }) : undefined;
  for (const problem of started?.problems ?? []) (opts.onMcpProblem ?? ((p: string) => say(yellow(p))))(problem);
  const servers = opts.mcp ?? started;
  const extensions = [...(servers ? [mcpTools(servers)] : []), ...(opts.extensions ?? [])];
  try {
    return await skilledLoop(llm, history, { ...opts, extensions });
  } finally {
    await started?.close();
  }
}
// #endregion loop

/** The default task on a scratch copy of the sample repository, with the example MCP server. */
export const demo = (llm: Llm, task = S17_TASK) =>
  transcriptOf(task, SAMPLE_REPOSITORY, (history, root) => runAgent(llm, history, { root, approve: refuseAll, mcpServers: readMcpConfig(MCP_EXAMPLE_CONFIG) }));

lesson(import.meta.url, {
  task: S17_TASK,
  // The run's requests include its subagents' (the harness's net counts them all).
  requestLimit: 200,
  workspace: SAMPLE_REPOSITORY,
  before: () => say(dim("MCP servers: examples/mcp-notes/mcp.json (notes, started for the run, stopped after it)")),
  run: ({ llm, history, root, signal, flag }) =>
    runAgent(llm, history, { root, signal, mcpServers: readMcpConfig(MCP_EXAMPLE_CONFIG), onEvent: createLogger({ verbose: flag("verbose") }) }),
  printAnswer: false,
});
