/**
 * s17 · tools from MCP servers, over stdio, with the SDK's client.
 *
 * Each server is a process the agent starts (its command from a config file in the `mcpServers`
 * format). The client lists its tools; each becomes an API tool named `mcp__<server>__<tool>`
 * with the server's JSON Schema as its input_schema. A call is sent to the server, and its result
 * mapped to a tool_result: text and image content become text and image blocks, `isError`
 * becomes is_error. A server that crashes, hangs past the call's time limit or fails to start is
 * an is_error result (or a problem reported at the start) with a plain message, never an
 * exception in the loop. `close()` stops every server: the loop calls it when the run ends.
 *
 * An MCP server is code the agent runs for the model, so it runs inside the same rules as a tool
 * (runtime/tools/server-launch.ts): the tools' environment allow list plus the config's `env`
 * (never the agent's key), inside the OS sandbox where there is one (`"sandbox": false` in a
 * server's config starts it outside, with a warning), killed with everything it started when the
 * agent ends. Its results are capped like a tool's output.
 */
import type Anthropic from "@anthropic-ai/sdk";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { say, yellow } from "../../runtime/print.ts";
import { capResult, serverConfig, type ServerConfig } from "../../runtime/tools/mcp-config.ts";
import { launchServer } from "../../runtime/tools/server-launch.ts";
export { McpConfigError, readMcpConfig, capResult, MCP_MAX_IMAGES, MCP_MAX_IMAGE_CHARS, type ServerConfig } from "../../runtime/tools/mcp-config.ts";
import type { ToolContext, ToolRegistry, ToolSpec } from "../../solutions/s02_tool_dispatch/registry.ts";
import { SafeToolRegistry } from "../../solutions/s04_tool_errors/define-tool.ts";

/** The API name of a server's tool: `mcp__<server>__<tool>`, only the characters the API allows. */
export function toolName(server: string, tool: string): string {
  return `mcp__${server}__${tool}`.replace(/[^a-zA-Z0-9_-]/g, "_").slice(0, 128);
}

// #region map-result
type CallResult = { content?: unknown; isError?: unknown; structuredContent?: unknown };
const IMAGE_TYPES = ["image/jpeg", "image/png", "image/gif", "image/webp"] as const;

/** An MCP call's result as a tool_result: text and images as blocks, isError as is_error. */
export function toToolResult(id: string, result: CallResult): Anthropic.ToolResultBlockParam {
  const blocks: Array<Anthropic.TextBlockParam | Anthropic.ImageBlockParam> = [];
  for (const c of Array.isArray(result.content) ? (result.content as Array<Record<string, unknown>>) : []) {
    if (c.type === "text" && typeof c.text === "string" && c.text) blocks.push({ type: "text", text: c.text });
    else if (c.type === "image" && IMAGE_TYPES.includes(c.mimeType as (typeof IMAGE_TYPES)[number]) && typeof c.data === "string")
      blocks.push({ type: "image", source: { type: "base64", media_type: c.mimeType as (typeof IMAGE_TYPES)[number], data: c.data } });
    else blocks.push({ type: "text", text: `[${String(c.type)} content${typeof c.mimeType === "string" ? ` (${c.mimeType})` : ""}: not shown]` });
  }
  if (blocks.length === 0 && result.structuredContent !== undefined) blocks.push({ type: "text", text: JSON.stringify(result.structuredContent) });
  if (blocks.length === 0) blocks.push({ type: "text", text: result.isError ? "The tool failed and said nothing more." : "(no output)" });
  return { type: "tool_result", tool_use_id: id, content: blocks, ...(result.isError === true ? { is_error: true } : {}) };
}
// #endregion map-result

interface Connected {
  name: string;
  client: Client;
  tools: Array<{ name: string; description?: string; inputSchema: Record<string, unknown> }>;
  pid: number | null;
  /** Set when the server's process is gone. */
  gone?: string;
  /** Kills it (and what it started) and cleans up after it. */
  stop: () => void;
}

export class McpServers {
  private constructor(
    private readonly servers: Connected[],
    /** Servers that could not be started, and why. */
    readonly problems: string[],
    private readonly callTimeoutMs: number,
  ) {}

  /** Starts every server and lists its tools; one that fails to start is a problem, not a crash. */
  static async start(
    configs: Record<string, ServerConfig>,
    opts: { startTimeoutMs?: number; callTimeoutMs?: number; workspace?: string; warn?: (warning: string) => void } = {},
  ): Promise<McpServers> {
    const started = await Promise.all(
      Object.entries(configs).map(async ([name, raw]): Promise<Connected | string> => {
        const config = serverConfig(raw);
        // Inside the tools' rules: their environment allow list, the sandbox, killed when the agent ends.
        const launch = launchServer(name, config, opts.workspace ?? process.cwd());
        for (const w of launch.warnings) (opts.warn ?? ((line: string) => say(yellow(line))))(w);
        const transport = new StdioClientTransport({ command: launch.command, args: launch.args, env: launch.env, stderr: "pipe", ...(launch.cwd ? { cwd: launch.cwd } : {}) });
        const unwatch = launch.watch(() => transport.pid ?? undefined);
        const stop = () => {
          unwatch();
          launch.cleanup();
        };
        let stderr = "";
        transport.stderr?.on("data", (d: Buffer) => void (stderr = (stderr + d.toString()).slice(-2_000)));
        const client = new Client({ name: "agent-loop-course", version: "1.0.0" });
        try {
          await client.connect(transport, { timeout: opts.startTimeoutMs ?? 20_000 });
          const { tools } = await client.listTools(undefined, { timeout: opts.startTimeoutMs ?? 20_000 });
          const server: Connected = { name, client, tools: tools as Connected["tools"], pid: transport.pid, stop };
          client.onclose = () => void (server.gone ??= `the server's process ended${stderr.trim() ? ` (its last words: ${stderr.trim().split("\n").slice(-2).join(" / ")})` : ""}`);
          return server;
        } catch (e) {
          await client.close().catch(() => {});
          stop();
          return `MCP server "${name}" (${config.command} ${config.args.join(" ")}) did not start: ${(e as Error).message}${stderr.trim() ? `; it said: ${stderr.trim().split("\n").slice(-3).join(" / ")}` : ""}`;
        }
      }),
    );
    return new McpServers(
      started.filter((s): s is Connected => typeof s !== "string"),
      started.filter((s): s is string => typeof s === "string"),
      opts.callTimeoutMs ?? 60_000,
    );
  }

  // #region tools
  /** Every server's tools, as the API sees them (the JSON Schema is the server's own). */
  specs(): ToolSpec[] {
    return this.servers.flatMap((s) =>
      s.tools.map((t) => {
        const { $schema: _ignored, ...schema } = t.inputSchema;
        return {
          name: toolName(s.name, t.name),
          description: `${t.description ?? t.name} (from the MCP server "${s.name}")`,
          input_schema: { ...schema, type: "object" } as Anthropic.Tool.InputSchema,
          run: () => "", // never called: McpRegistry sends these calls to the server
        };
      }),
    );
  }

  /** Sends one call to its server; every failure becomes an is_error result that says what happened. */
  async call(call: Anthropic.ToolUseBlock, signal?: AbortSignal): Promise<Anthropic.ToolResultBlockParam> {
    const server = this.servers.find((s) => s.tools.some((t) => toolName(s.name, t.name) === call.name));
    const tool = server?.tools.find((t) => toolName(server.name, t.name) === call.name);
    const fail = (why: string): Anthropic.ToolResultBlockParam => ({ type: "tool_result", tool_use_id: call.id, is_error: true, content: why });
    if (!server || !tool) return fail(`Unknown MCP tool "${call.name}".`);
    if (server.gone) return fail(`The MCP server "${server.name}" is not running: ${server.gone}. Its tools cannot be used in this run.`);
    try {
      const result = await server.client.callTool({ name: tool.name, arguments: call.input as Record<string, unknown> }, undefined, { timeout: this.callTimeoutMs, ...(signal ? { signal } : {}) });
      return capResult(toToolResult(call.id, result as CallResult));
    } catch (e) {
      const message = (e as Error).message;
      if (/timed out|timeout/i.test(message)) return fail(`The MCP server "${server.name}" did not answer ${tool.name} within ${this.callTimeoutMs / 1000} s; the call was abandoned.`);
      if (server.gone || /closed/i.test(message)) return fail(`The MCP server "${server.name}" stopped during ${tool.name}: ${server.gone ?? message}.`);
      return fail(`The MCP server "${server.name}" failed on ${tool.name}: ${message}`);
    }
  }
  // #endregion tools

  /** Stops every server (the loop calls it when the run ends). */
  async close(): Promise<void> {
    await Promise.all(this.servers.map((s) => s.client.close().catch(() => {})));
    // What a server started and left running (in its sandbox, or carrying its marker) goes too.
    for (const s of this.servers) s.stop();
  }

  /** The pids of the servers' processes (tests check they are gone after close()). */
  pids(): number[] {
    return this.servers.flatMap((s) => (s.pid ? [s.pid] : []));
  }
}

// #region registry
/** A registry with the servers' tools added: their calls go to the servers, the others as before. */
export class McpRegistry extends SafeToolRegistry {
  constructor(
    private readonly base: ToolRegistry,
    private readonly mcp: McpServers,
  ) {
    super([...base.names().map((n) => base.get(n)!), ...mcp.specs()]);
  }

  override dispatch(call: Anthropic.ToolUseBlock, ctx?: ToolContext): Promise<Anthropic.ToolResultBlockParam> {
    return call.name.startsWith("mcp__") && !this.base.get(call.name) ? this.mcp.call(call, ctx?.signal) : this.base.dispatch(call, ctx);
  }
}
// #endregion registry
