/**
 * The file tools of the lessons from s02 on: read, write, edit (exact replacement), list. Every
 * path is relative to a root directory (the workspace the agent works in). A tool that knows it
 * failed (no such file, old text missing or not unique) throws a `ToolError` whose message says
 * what to do next; the loop turns it into an `is_error` result the model can act on.
 *
 * These tools resolve paths inside the root but do not yet refuse `..`, absolute paths or
 * symlinks that point out of it: lesson s07 confines them.
 */
import { cp, mkdir, mkdtemp, readdir, readFile as fsReadFile, stat, writeFile as fsWriteFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, join, relative, resolve, sep } from "node:path";

/** A failure the tool reports to the model (is_error), as opposed to a bug in the tool. */
export class ToolError extends Error {
  override name = "ToolError";
}

/** read_file returns at most this many characters (seed 000 uses the same cap). */
export const READ_MAX_CHARS = 20_000;
/** list_files returns at most this many paths. */
export const LIST_MAX_ENTRIES = 500;
/** Folders list_files does not walk into. */
export const LIST_SKIP = new Set(["node_modules", ".git"]);

function resolveIn(root: string, path: string): string {
  if (typeof path !== "string" || path.trim() === "") throw new ToolError("the path is empty: give a path relative to the workspace, e.g. \"src/index.ts\"");
  return resolve(root, path);
}

/** A path as the model should see it: relative to the root, with forward slashes. */
function shown(root: string, abs: string): string {
  const rel = relative(root, abs).split(sep).join("/");
  return rel === "" ? "." : rel;
}

function missing(e: unknown): boolean {
  return typeof e === "object" && e !== null && "code" in e && (e as { code?: unknown }).code === "ENOENT";
}

/** The text of a file, cut at `maxChars` with a note saying how much was left out. */
export async function readFile(root: string, path: string, maxChars = READ_MAX_CHARS): Promise<string> {
  const abs = resolveIn(root, path);
  let text: string;
  try {
    if ((await stat(abs)).isDirectory()) throw new ToolError(`${shown(root, abs)} is a folder, not a file: list it with list_files`);
    text = await fsReadFile(abs, "utf8");
  } catch (e) {
    if (missing(e)) throw new ToolError(`no file at ${shown(root, abs)}: check the path with list_files`);
    throw e;
  }
  if (text.length <= maxChars) return text;
  return `${text.slice(0, maxChars)}\n… [cut: ${text.length - maxChars} of ${text.length} characters not shown]`;
}

/** Writes (creates or replaces) a whole file, creating its folders. */
export async function writeFile(root: string, path: string, content: string): Promise<string> {
  const abs = resolveIn(root, path);
  if (typeof content !== "string") throw new ToolError("content must be a string: the whole new text of the file");
  await mkdir(dirname(abs), { recursive: true });
  await fsWriteFile(abs, content, "utf8");
  return `wrote ${content.length} characters to ${shown(root, abs)}`;
}

/** How many times `needle` occurs in `text` (non-overlapping). */
export function countOccurrences(text: string, needle: string): number {
  if (needle.length === 0) return 0;
  let n = 0;
  for (let at = text.indexOf(needle); at >= 0; at = text.indexOf(needle, at + needle.length)) n++;
  return n;
}

/**
 * Replaces `oldText` with `newText` in a file. `oldText` must occur exactly once, character for
 * character: when it is missing or ambiguous nothing is written and the error says why.
 */
export async function editFile(root: string, path: string, oldText: string, newText: string): Promise<string> {
  if (typeof oldText !== "string" || oldText.length === 0)
    throw new ToolError("old_text is empty: give the exact text to replace (to create a file, use write_file)");
  if (typeof newText !== "string") throw new ToolError("new_text must be a string (it may be empty to delete old_text)");
  const abs = resolveIn(root, path);
  const where = shown(root, abs);
  let text: string;
  try {
    text = await fsReadFile(abs, "utf8");
  } catch (e) {
    if (missing(e)) throw new ToolError(`no file at ${where}: check the path with list_files, or create it with write_file`);
    throw e;
  }
  const count = countOccurrences(text, oldText);
  if (count === 0)
    throw new ToolError(`old_text was not found in ${where}: it must match the file exactly (spaces and line breaks too); read the file first`);
  if (count > 1)
    throw new ToolError(`old_text occurs ${count} times in ${where}: include more of the surrounding text so it matches exactly once`);
  const at = text.indexOf(oldText);
  await fsWriteFile(abs, text.slice(0, at) + newText + text.slice(at + oldText.length), "utf8");
  return `replaced 1 occurrence in ${where}`;
}

/**
 * A glob as a regular expression over forward-slash paths: `*` matches within one folder,
 * `**` across folders, `?` one character. A pattern without `/` matches the file name anywhere.
 */
export function globToRegExp(pattern: string): RegExp {
  const p = pattern.includes("/") ? pattern.replace(/^\.\//, "") : `**/${pattern}`;
  let re = "";
  for (let i = 0; i < p.length; i++) {
    const c = p[i]!;
    if (c === "*" && p[i + 1] === "*") {
      const slash = p[i + 2] === "/";
      re += slash ? "(?:.*/)?" : ".*";
      i += slash ? 2 : 1;
    } else if (c === "*") re += "[^/]*";
    else if (c === "?") re += "[^/]";
    else re += c.replace(/[.+^${}()|[\]\\]/g, "\\$&");
  }
  return new RegExp(`^${re}$`);
}

/**
 * The files under a folder, recursively, one path per line relative to the root, sorted;
 * `node_modules` and `.git` skipped. With `pattern`, only the paths the glob matches.
 */
export async function listFiles(root: string, path = ".", pattern?: string, max = LIST_MAX_ENTRIES): Promise<string> {
  const start = resolveIn(root, path);
  try {
    if (!(await stat(start)).isDirectory()) return shown(root, start);
  } catch (e) {
    if (missing(e)) throw new ToolError(`no folder at ${shown(root, start)}: list "." to see the workspace`);
    throw e;
  }
  const match = pattern ? globToRegExp(pattern) : null;
  const found: string[] = [];
  const walk = async (dir: string): Promise<void> => {
    const entries = await readdir(dir, { withFileTypes: true });
    for (const d of entries) {
      if (LIST_SKIP.has(d.name)) continue;
      const abs = join(dir, d.name);
      if (d.isDirectory()) await walk(abs);
      else {
        const rel = shown(root, abs);
        if (!match || match.test(rel)) found.push(rel);
      }
    }
  };
  await walk(start);
  found.sort();
  if (found.length === 0) return pattern ? `(no files match ${pattern})` : "(no files)";
  const more = found.length > max ? `\n… [${found.length - max} more files not shown]` : "";
  return found.slice(0, max).join("\n") + more;
}

/** A fresh folder under the system's temp dir holding `files` (path → text): a lesson's scratch workspace. */
export async function scratchWorkspace(files: Record<string, string>, prefix = "agent-course-"): Promise<string> {
  const root = await mkdtemp(join(tmpdir(), prefix));
  for (const [path, text] of Object.entries(files)) await writeFile(root, path, text);
  return root;
}

/** A fresh scratch copy of a folder (a sample repository), so a lesson's run never changes the original. */
export async function scratchCopy(dir: string, prefix = "agent-course-"): Promise<string> {
  const root = await mkdtemp(join(tmpdir(), prefix));
  await cp(dir, root, { recursive: true, filter: (src) => !LIST_SKIP.has(src.split(sep).pop() ?? "") });
  return root;
}
