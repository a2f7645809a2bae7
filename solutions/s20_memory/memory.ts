/**
 * s20's memory tool: notes the agent keeps across runs, in one folder of the workspace
 * (.agent/memory/). view lists the folder or shows a file, create writes one, str_replace changes
 * one, delete removes one. Every path is relative to the folder and stays in it: s07's file tools
 * do the reading and writing with the memory folder as their root (no link followed, no secret
 * file, no path out of it), and the folder itself must be a real folder of the workspace, not a
 * link to somewhere else. At the start of a run the system prompt says which notes there are.
 * A note is read by the next run (its name in the system prompt, its text when viewed), so a
 * change to one is a change to .agent/ like any other (runtime/tools/planted.ts): the person is
 * asked first, in every mode (bypassPermissions too), and a no changes nothing. Viewing asks nothing.
 */
import { lstatSync, mkdirSync, opendirSync } from "node:fs";
import { lstat, realpath, unlink } from "node:fs/promises";
import { isAbsolute, join, relative, resolve, sep } from "node:path";
import { z } from "zod";
import { promptSafe } from "../../runtime/terminal-text.ts";
import { ToolError, editFile, listFiles, readFile, writeFile } from "../../runtime/tools/files.ts";
import { note as journal, plantedKind } from "../../runtime/tools/planted.ts";
import { defineTool, type CheckedTool } from "../../solutions/s04_tool_errors/define-tool.ts";
import type { Approver } from "../../solutions/s07_safe_tools/approval.ts";

/** Where the notes are, inside the workspace. */
export const MEMORY_DIR = join(".agent", "memory");
/** The most notes the system prompt names. */
export const MAX_LISTED = 50;

/** The memory folder of `root`, made if it is not there; refused when it (or .agent) is a link or not a folder. */
export function memoryFolder(root: string): string {
  let dir = resolve(root);
  for (const part of MEMORY_DIR.split(sep)) {
    dir = join(dir, part);
    const st = lstatSync(dir, { throwIfNoEntry: false });
    if (!st) mkdirSync(dir);
    else if (!st.isDirectory()) throw new ToolError(`${relative(root, dir)} is ${st.isSymbolicLink() ? "a symbolic link" : "not a folder"}: the memory folder must be a real folder of the workspace; nothing was read or written`);
  }
  return dir;
}

/** A path inside the memory folder, as given: relative, with no way out. */
function notePath(path: string): string {
  const clean = path.replace(/^\/?memories?\//, "");
  if (clean.trim() === "") throw new ToolError("the path is empty: give a note's path inside the memory folder, e.g. \"project.md\"");
  if (isAbsolute(clean) || clean.split(/[\\/]/).includes("..")) throw new ToolError(`${path}: a note's path is relative to the memory folder and stays in it (no "/" at the start, no "..")`);
  if (promptSafe(clean, true) !== clean) throw new ToolError(`${promptSafe(JSON.stringify(path))}: a note's name is one line of visible characters (no newline, control or invisible character): it is listed in the system prompt of later runs`);
  return clean;
}

/** Deletes one regular file inside `dir` (not a link, not a folder, not outside). */
async function deleteNote(dir: string, path: string): Promise<string> {
  const abs = resolve(dir, path);
  const st = await lstat(abs).catch(() => null);
  if (!st) throw new ToolError(`no note at ${path}: view "." lists the notes`);
  if (!st.isFile()) throw new ToolError(`${path} is ${st.isSymbolicLink() ? "a symbolic link" : "not a note (a regular file)"}: only notes are deleted`);
  const real = await realpath(abs);
  const rel = relative(await realpath(dir), real);
  if (rel.startsWith("..") || isAbsolute(rel)) throw new ToolError(`${path} is outside the memory folder: nothing was deleted`);
  await unlink(real);
  return `deleted ${path}`;
}

/** A change to a note asks `approve` first (the note is planted for the next run); a no is a ToolError, nothing changed. */
async function askFirst(approve: Approver, command: string, note: string): Promise<void> {
  const path = join(MEMORY_DIR, note).split(sep).join("/");
  const kind = plantedKind(path) ?? "the agent's memory";
  const decision = await approve({ command: `memory ${command} ${note}`, reason: `${path} is ${kind}: the next run reads it` });
  journal({ path, kind, outcome: decision.approved ? "approved" : "refused", by: "memory" });
  if (!decision.approved) throw new ToolError(`not changed: ${path} is read by the next run, so a change needs the user's approval, and ${decision.why}. Tell the user what you wanted to keep and why.`);
}

/** The memory tool for the workspace `root`; `approve` is asked before a note changes. */
export function memoryTool(root: string, approve: Approver): CheckedTool {
  return defineTool({
    name: "memory",
    description:
      "Your memory across runs: notes in a folder of the workspace. command view (path \".\" lists the notes, a note's path shows it), " +
      "create (path, file_text: writes the whole note), str_replace (path, old_str found exactly once, new_str), delete (path). " +
      "Paths are relative to the memory folder. Keep what a later run needs (the project's ways, what you learned), not this run's chatter.",
    input: z.object({
      command: z.enum(["view", "create", "str_replace", "delete"]),
      path: z.string().describe("A note's path in the memory folder, e.g. project.md; \".\" for view of the whole folder"),
      file_text: z.string().optional().describe("create: the note's whole text"),
      old_str: z.string().optional().describe("str_replace: the exact text to replace"),
      new_str: z.string().optional().describe("str_replace: the text to put in its place"),
    }),
    async run({ command, path, file_text, old_str, new_str }) {
      const dir = memoryFolder(root);
      if (command === "view" && (path === "." || path === "/" || /^\/?memories?\/?$/.test(path))) return (await listFiles(dir, ".")) || "(no notes yet)";
      const note = notePath(path);
      if (command === "view") return readFile(dir, note);
      await askFirst(approve, command, note);
      if (command === "create") return writeFile(dir, note, file_text ?? "");
      if (command === "str_replace") return editFile(dir, note, old_str ?? "", new_str ?? "");
      return deleteNote(dir, note);
    },
  });
}

/** The most entries the listing looks at: a folder a command filled with files cannot slow every later run. */
export const MAX_SCANNED = 5_000;

/** The notes' paths in `dir`, walked entry by entry (links not followed) up to MAX_SCANNED; `more` when it stopped there. */
function noteNames(dir: string): { names: string[]; more: boolean } {
  const names: string[] = [];
  let seen = 0;
  const walk = (rel: string, depth: number): boolean => {
    let folder;
    try {
      folder = opendirSync(join(dir, rel));
    } catch {
      return true;
    }
    try {
      for (let e = folder.readSync(); e; e = folder.readSync()) {
        if (++seen > MAX_SCANNED) return false;
        const path = rel ? `${rel}/${e.name}` : e.name;
        if (e.isFile()) names.push(path);
        else if (e.isDirectory() && depth < 8 && !walk(path, depth + 1)) return false;
      }
    } finally {
      folder.closeSync();
    }
    return true;
  };
  return { names, more: !walk("", 0) };
}

/** The notes there are, for the system prompt ("" when the folder is missing). */
export function memoryPrompt(root: string): string {
  const dir = join(resolve(root), MEMORY_DIR);
  if (!lstatSync(dir, { throwIfNoEntry: false })?.isDirectory()) return "";
  const { names, more } = noteNames(dir);
  if (names.length === 0 && !more) return "\n\n# Memory\n\nYour memory folder is empty: save with the memory tool what a later run should know.";
  // Names are quoted as data (JSON), what JSON leaves raw written out: a name made by a command cannot start a line of the prompt.
  const listed = names.sort().slice(0, MAX_LISTED).map((n) => promptSafe(JSON.stringify(n))).join(", ");
  const rest = more ? `, and more (the folder holds over ${MAX_SCANNED} entries; only those were looked at)` : names.length > MAX_LISTED ? `, and ${names.length - MAX_LISTED} more` : "";
  return `\n\n# Memory\n\nNotes you kept in earlier runs (the memory tool views them): ${listed}${rest}.`;
}
