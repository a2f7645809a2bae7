/**
 * s17's MCP servers, the parts the lesson shows whole: the config file (`--mcp-config`, checked
 * with zod) and the cap on a server's result (like a tool's output: text past the bash tool's cap
 * cut with a note, at most a few images). solutions/s17_mcp/mcp.ts re-exports both.
 */
import { dirname, resolve } from "node:path";
import type Anthropic from "@anthropic-ai/sdk";
import { z } from "zod";
import { readConfigFile } from "../config-file.ts";
import { CourseError } from "../env.ts";
import { BASH_MAX_OUTPUT, capOutput } from "./bash.ts";

/** One server of an `mcpServers` config: the command that starts it. */
const ServerConfig = z.object({
  command: z.string().min(1),
  args: z.array(z.string()).default([]),
  env: z.record(z.string(), z.string()).default({}),
  cwd: z.string().optional(),
  /** false: start this server outside the OS sandbox (it needs the network, or files elsewhere); a warning says so. */
  sandbox: z.boolean().default(true),
});
export type ServerConfig = z.input<typeof ServerConfig>;
/** A server's config with its defaults filled in (what McpServers.start launches). */
export const serverConfig = (raw: ServerConfig) => ServerConfig.parse(raw);
const McpConfig = z.object({ mcpServers: z.record(z.string().regex(/^[a-zA-Z0-9_-]{1,40}$/, "letters, digits, _ and - only"), ServerConfig) });

export class McpConfigError extends CourseError {
  override name = "McpConfigError";
}

/** Reads a config file: `{ "mcpServers": { "<name>": { "command", "args"?, "env"?, "cwd"?, "sandbox"? } } }`. Servers start in the file's folder. */
export function readMcpConfig(file: string): Record<string, ServerConfig> {
  const fail = (m: string) => new McpConfigError(`--mcp-config ${m}`);
  const data = readConfigFile(file, McpConfig, '{ "mcpServers": { "<name>": { "command": "…", "args": ["…"] } } }', fail);
  if (!data) throw fail(`${file}: no such file`);
  const dir = dirname(resolve(file));
  return Object.fromEntries(Object.entries(data.mcpServers).map(([name, s]) => [name, { ...s, cwd: resolve(dir, s.cwd ?? ".") }]));
}

/** An MCP result, like a tool's output: text past the bash tool's cap cut with a note, at most a few images. */
export const MCP_MAX_IMAGES = 4;
export const MCP_MAX_IMAGE_CHARS = 4_000_000;
export function capResult(result: Anthropic.ToolResultBlockParam, max = BASH_MAX_OUTPUT): Anthropic.ToolResultBlockParam {
  if (!Array.isArray(result.content)) return result;
  let left = max;
  let images = 0;
  const content = result.content.flatMap((b): Array<Anthropic.TextBlockParam | Anthropic.ImageBlockParam> => {
    if (b.type === "text") {
      const text = capOutput(b.text, Math.max(left, 0));
      left -= b.text.length;
      return left + b.text.length > 0 ? [{ type: "text", text }] : [];
    }
    if (b.type === "image") {
      const size = b.source.type === "base64" ? b.source.data.length : 0;
      if (++images <= MCP_MAX_IMAGES && size <= MCP_MAX_IMAGE_CHARS) return [b];
      return [{ type: "text", text: `[an image left out: at most ${MCP_MAX_IMAGES} images of ${MCP_MAX_IMAGE_CHARS} characters each per result]` }];
    }
    return [];
  });
  if (left < 0) content.push({ type: "text", text: `[the server's text was cut: ${-left} of ${max - left} characters not shown]` });
  return { ...result, content: content.length > 0 ? content : [{ type: "text", text: "(no output)" }] };
}
