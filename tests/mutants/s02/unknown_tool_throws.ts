// mutant of: solutions/s02_tool_dispatch/registry.ts
// expect: × answers an unknown tool with an is_error result
/**
 * s02_tool_dispatch: the tool registry. Each tool is one `ToolSpec`: what the model is told
 * (name, description, input_schema) and what runs (`run`). One registry holds them all: it
 * yields the definitions sent to the API and sends each tool_use to its tool by name. A name it
 * does not know is answered with an error result, never a crash.
 */
import type Anthropic from "@anthropic-ai/sdk";
import { runBash } from "../../../runtime/tools/bash.ts";
import { ToolError, editFile, listFiles, readFile, writeFile } from "../../../runtime/tools/files.ts";

/** What a tool gets besides its input: the workspace it acts in, and a signal to stop (s04). */
export interface ToolContext {
  root: string;
  signal?: AbortSignal;
}

// #region spec
/** One tool: what the model is told about it, and the function that runs it. */
export interface ToolSpec {
  name: string;
  description: string;
  input_schema: Anthropic.Tool.InputSchema;
  /** Only reads: safe to run at the same time as other read-only calls (lesson s03). */
  readOnly?: boolean;
  /** Returns the text the model sees. Throws `ToolError` to report a failure the model can act on. */
  run(input: Record<string, unknown>, ctx: ToolContext): Promise<string> | string;
}
// #endregion spec

/** A call's input as an object (the API always sends one; a hand-made call may not). */
function inputOf(call: Anthropic.ToolUseBlock): Record<string, unknown> {
  const input = call.input;
  return typeof input === "object" && input !== null && !Array.isArray(input) ? (input as Record<string, unknown>) : {};
}

export class ToolRegistry {
  private readonly tools = new Map<string, ToolSpec>();

  constructor(tools: ToolSpec[]) {
    for (const tool of tools) {
      if (this.tools.has(tool.name)) throw new Error(`two tools are named "${tool.name}": tool names must be unique`);
      this.tools.set(tool.name, tool);
    }
  }

  // #region definitions
  /** What the API is told: name, description and input schema of every tool, in order. */
  definitions(): Anthropic.Tool[] {
    return [...this.tools.values()].map(({ name, description, input_schema }) => ({ name, description, input_schema }));
  }
  // #endregion definitions

  get(name: string): ToolSpec | undefined {
    return this.tools.get(name);
  }

  names(): string[] {
    return [...this.tools.keys()];
  }

  // #region dispatch
  /** Runs the tool a call names and answers the call, by its id. Never throws for an unknown name. */
  async dispatch(call: Anthropic.ToolUseBlock, ctx: ToolContext = { root: process.cwd() }): Promise<Anthropic.ToolResultBlockParam> {
    const tool = this.tools.get(call.name);
    // BUG: an unknown tool name is treated as a programming error and thrown, not answered.
    if (!tool) throw new Error(`Unknown tool "${call.name}"`);
    try {
      const output = await tool.run(inputOf(call), ctx);
      return { type: "tool_result", tool_use_id: call.id, content: output };
    } catch (e) {
      // A failure the tool reports (no such file, old text not found) is an observation too.
      // Anything else is a bug and escapes: lesson s04 catches those as well.
      if (e instanceof ToolError) return { type: "tool_result", tool_use_id: call.id, is_error: true, content: `Error: ${e.message}` };
      throw e;
    }
  }
  // #endregion dispatch
}

/** A string field of a tool's input, or a ToolError saying what is missing (s04 validates with zod). */
export function stringField(input: Record<string, unknown>, key: string, fallback?: string): string {
  const value = input[key] ?? fallback;
  if (typeof value !== "string") throw new ToolError(`the input needs "${key}" as a string`);
  return value;
}

const path = { type: "string", description: "A path relative to the workspace root" } as const;

// #region tools
/** The tools of lessons s02 to s06: files in the workspace, and bash. */
export function defaultTools(): ToolSpec[] {
  return [
    {
      name: "read_file",
      description: "Read a text file of the workspace and return its content.",
      input_schema: { type: "object", properties: { path }, required: ["path"] },
      readOnly: true,
      run: (input, ctx) => readFile(ctx.root, stringField(input, "path")),
    },
    {
      name: "write_file",
      description: "Create or overwrite a file with the given content (folders are created).",
      input_schema: { type: "object", properties: { path, content: { type: "string" } }, required: ["path", "content"] },
      run: (input, ctx) => writeFile(ctx.root, stringField(input, "path"), stringField(input, "content")),
    },
    {
      name: "edit_file",
      description: "Replace old_text with new_text in a file. old_text must occur exactly once, character for character.",
      input_schema: {
        type: "object",
        properties: { path, old_text: { type: "string" }, new_text: { type: "string" } },
        required: ["path", "old_text", "new_text"],
      },
      run: (input, ctx) => editFile(ctx.root, stringField(input, "path"), stringField(input, "old_text"), stringField(input, "new_text")),
    },
    {
      name: "list_files",
      description: "List the files under a folder, recursively; optionally only those matching a glob such as \"src/**/*.ts\".",
      input_schema: {
        type: "object",
        properties: { path: { ...path, description: "Folder to list (default: the workspace root)" }, pattern: { type: "string" } },
      },
      readOnly: true,
      run: (input, ctx) => {
        const pattern = input.pattern === undefined ? undefined : stringField(input, "pattern");
        return listFiles(ctx.root, stringField(input, "path", "."), pattern);
      },
    },
    {
      name: "bash",
      description: "Run a shell command in the workspace and return its output.",
      input_schema: { type: "object", properties: { command: { type: "string", description: "The shell command to run" } }, required: ["command"] },
      run: (input, ctx) => runBash(input.command, { cwd: ctx.root }),
    },
  ];
}
// #endregion tools
