/**
 * The tools from s04 on, defined with zod: s02's five tools (same implementations, from
 * runtime/tools/), each now with a schema that checks its input and makes its JSON schema, and a
 * time limit. Two more tools show what can go wrong in a real tool: `read_json` throws on a
 * broken file (a plain exception, not a ToolError), `wait_for_file` may wait forever.
 */
import { existsSync } from "node:fs";
import { resolve } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { z } from "zod";
import { BASH_TIMEOUT_MS, runBash } from "../../runtime/tools/bash.ts";
import { editFile, listFiles, readFile, writeFile } from "../../runtime/tools/files.ts";
import { defineTool, type CheckedTool } from "./define-tool.ts";

const path = z.string().min(1).describe("A path relative to the workspace root");

// #region tools
/** s02's tools, checked: the schema below is both the check and what the model is shown. */
export function checkedTools(): CheckedTool[] {
  return [
    defineTool({
      name: "read_file",
      description: "Read a text file of the workspace and return its content.",
      input: z.object({ path }),
      readOnly: true,
      run: ({ path }, ctx) => readFile(ctx.root, path),
    }),
    defineTool({
      name: "write_file",
      description: "Create or overwrite a file with the given content (folders are created).",
      input: z.object({ path, content: z.string() }),
      run: ({ path, content }, ctx) => writeFile(ctx.root, path, content),
    }),
    defineTool({
      name: "edit_file",
      description: "Replace old_text with new_text in a file. old_text must occur exactly once, character for character.",
      input: z.object({ path, old_text: z.string().min(1), new_text: z.string() }),
      run: ({ path, old_text, new_text }, ctx) => editFile(ctx.root, path, old_text, new_text),
    }),
    defineTool({
      name: "list_files",
      description: 'List the files under a folder, recursively; optionally only those matching a glob such as "src/**/*.ts".',
      input: z.object({ path: path.optional().describe("Folder to list (default: the workspace root)"), pattern: z.string().optional() }),
      readOnly: true,
      run: ({ path, pattern }, ctx) => listFiles(ctx.root, path ?? ".", pattern),
    }),
    defineTool({
      name: "bash",
      description: "Run a shell command in the workspace and return its output.",
      input: z.object({ command: z.string().min(1).describe("The shell command to run") }),
      // bash stops its own process at BASH_TIMEOUT_MS; our deadline is the backstop just after it.
      timeoutMs: BASH_TIMEOUT_MS + 5_000,
      run: ({ command }, ctx) => runBash(command, { cwd: ctx.root }),
    }),
  ];
}
// #endregion tools

// #region failing-tools
/** Parses a JSON file. A broken file makes JSON.parse throw a SyntaxError: a plain exception. */
export const readJson = defineTool({
  name: "read_json",
  description: "Read a JSON file of the workspace and return it parsed and pretty-printed.",
  input: z.object({ path }),
  readOnly: true,
  run: async ({ path }, ctx) => JSON.stringify(JSON.parse(await readFile(ctx.root, path)), null, 2),
});

/** Waits until a file exists (a build output, say). It may wait forever: its deadline stops it. */
export const waitForFile = defineTool({
  name: "wait_for_file",
  description: "Wait until a file exists in the workspace (a build output, for instance), then say so.",
  input: z.object({ path }),
  readOnly: true,
  timeoutMs: 500,
  run: async ({ path }, ctx) => {
    // The signal aborts at the deadline: sleep() then rejects, and the wait ends for real.
    while (!existsSync(resolve(ctx.root, path))) await sleep(100, undefined, { signal: ctx.signal });
    return `${path} exists`;
  },
});
// #endregion failing-tools
