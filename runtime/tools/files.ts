/**
 * The file tools of the lessons from s02 on: read, write, edit (exact replacement), list. Every
 * path is relative to a root directory (the workspace the agent works in). A tool that knows it
 * failed (no such file, old text missing or not unique) throws a `ToolError` whose message says
 * what to do next; the loop turns it into an `is_error` result the model can act on.
 *
 * Lesson s07 confines the paths the model sends (its Workspace gives a clear error for `..`,
 * absolute paths and symlinks out). Under that check, every open here is itself safe, whatever
 * the path string said and whatever changed on disk since it was checked:
 *
 * - opened with O_NOFOLLOW (a symbolic link as the file itself is refused, never followed) and
 *   O_NONBLOCK (a FIFO, a device or a socket cannot make the open wait forever);
 * - then the OPENED file is checked (fstat of the descriptor): a regular file, exactly one hard
 *   link (a hard link can be the same file as one outside), and its real path, read back from
 *   the descriptor (/proc/self/fd on Linux), inside the root. A folder swapped for a symlink
 *   between the check and the open is caught here, because this checks what was opened.
 * - a secret file (`.env*`, keys, credentials, the course's `.course/`: ./secrets.ts) is refused
 *   by its name and by the name of its real location, before and after the open, so one created
 *   during the run is refused like one that was there at the start;
 * - a write opens (creating if needed) WITHOUT truncating, checks, and only then truncates and
 *   writes through the same descriptor; a file it created in the wrong place is removed again.
 */
import { constants, readdirSync, rmSync, type Stats } from "node:fs";
import { cp, lstat, mkdir, mkdtemp, open, readdir, readlink, realpath, stat, unlink, type FileHandle } from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, isAbsolute, join, relative, resolve, sep } from "node:path";
import { SECRET_DIR, isSecretPath } from "./secrets.ts";

/** A failure the tool reports to the model (is_error), as opposed to a bug in the tool. */
export class ToolError extends Error {
  override name = "ToolError";
}

/** read_file returns at most this many characters. */
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

function codeOf(e: unknown): string | undefined {
  return typeof e === "object" && e !== null && "code" in e ? String((e as { code?: unknown }).code) : undefined;
}

function within(parent: string, child: string): boolean {
  const rel = relative(parent, child);
  return rel === "" || (rel !== ".." && !rel.startsWith(`..${sep}`) && !isAbsolute(rel));
}

function kindOf(st: Stats): string {
  if (st.isDirectory()) return "a folder";
  if (st.isFIFO()) return "a FIFO (named pipe)";
  if (st.isSocket()) return "a socket";
  if (st.isCharacterDevice() || st.isBlockDevice()) return "a device";
  if (st.isSymbolicLink()) return "a symbolic link";
  return "not a regular file";
}

/** Where an open descriptor really is: /proc/self/fd on Linux; elsewhere the path, if it is still the same file. */
async function realPathOf(fh: FileHandle, abs: string, st: Stats): Promise<string | null> {
  if (process.platform === "linux") {
    try {
      return await readlink(`/proc/self/fd/${fh.fd}`);
    } catch {
      // /proc not mounted: fall through.
    }
  }
  try {
    const real = await realpath(abs);
    const again = await stat(real);
    return again.dev === st.dev && again.ino === st.ino ? real : null;
  } catch {
    return null;
  }
}

type OpenMode = "read" | "write" | "edit";

/** Secret files and the course's state are out of reach of every file tool, whether they exist or not. */
function refuseSecret(root: string, abs: string, where: string): void {
  const part = isSecretPath(resolve(root), abs);
  if (part)
    throw new ToolError(
      `${where} is a secret file (${part}: keys, credentials, .env files and the course's .course/ are out of reach of every tool, in every workspace). Nothing was read or written; if the task needs it, ask the user.`,
    );
}

/**
 * Opens `abs` for a file tool and checks what was opened (see the top of this file). Missing
 * files throw the usual ENOENT error for the caller to word.
 */
async function openChecked(root: string, abs: string, mode: OpenMode): Promise<FileHandle> {
  const where = shown(root, abs);
  refuseSecret(root, abs, where);
  const { O_RDONLY, O_RDWR, O_WRONLY, O_CREAT, O_NOFOLLOW, O_NONBLOCK } = constants;
  const base = mode === "read" ? O_RDONLY : mode === "edit" ? O_RDWR : O_WRONLY | O_CREAT;
  let existed = true;
  if (mode === "write") existed = await lstat(abs).then(() => true, () => false);
  let fh: FileHandle;
  try {
    fh = await open(abs, base | O_NOFOLLOW | O_NONBLOCK, 0o644);
  } catch (e) {
    const code = codeOf(e);
    if (code === "ELOOP" || code === "EMLINK")
      throw new ToolError(`${where} is a symbolic link: file tools do not follow links; use the path of the file itself`);
    if (code === "EISDIR") throw new ToolError(`${where} is a folder, not a file: list it with list_files`);
    if (code === "ENXIO" || code === "EAGAIN" || code === "ENODEV" || code === "EWOULDBLOCK")
      throw new ToolError(`${where} is not a regular file (a FIFO, device or socket): file tools only read and write regular files`);
    throw e;
  }
  try {
    const st = await fh.stat();
    if (!st.isFile()) throw new ToolError(`${where} is ${kindOf(st)}, not a regular file${st.isDirectory() ? ": list it with list_files" : ": file tools only read and write regular files"}`);
    const real = await realPathOf(fh, abs, st);
    const rootReal = await realpath(root).catch(() => resolve(root));
    if (real !== null && within(rootReal, real) && isSecretPath(rootReal, real)) {
      if (!existed) await unlink(real).catch(() => {});
      refuseSecret(rootReal, real, where);
    }
    if (real === null || !within(rootReal, real)) {
      // Created in the wrong place (a folder on the way was swapped for a link): remove it again.
      if (!existed && real !== null) await unlink(real).catch(() => {});
      throw new ToolError(`${where} is outside the workspace (its real location${real ? `, ${real},` : ""} is not under the root): use a path inside it`);
    }
    if (st.nlink > 1)
      throw new ToolError(`${where} has ${st.nlink} hard links: file tools refuse such files (a hard link may be the same file as one outside the workspace)`);
    return fh;
  } catch (e) {
    await fh.close();
    throw e;
  }
}

/** Creates the folders of `abs`, after checking that the deepest one that exists is inside the root. */
async function makeParents(root: string, abs: string): Promise<void> {
  let dir = dirname(abs);
  while (!(await lstat(dir).then(() => true, () => false))) {
    const up = dirname(dir);
    if (up === dir) break;
    dir = up;
  }
  const rootReal = await realpath(root).catch(() => resolve(root));
  const real = await realpath(dir).catch(() => dir);
  if (!within(rootReal, real)) throw new ToolError(`${shown(root, abs)} is outside the workspace (its folder ${real} is not under the root): use a path inside it`);
  await mkdir(dirname(abs), { recursive: true });
}

/** Reads at most `maxBytes` of an open file as UTF-8 text; says how big the file is. */
async function readSome(fh: FileHandle, maxBytes: number): Promise<{ text: string; size: number }> {
  const { size } = await fh.stat();
  const length = Math.min(size, maxBytes);
  const buffer = Buffer.alloc(length);
  let got = 0;
  while (got < length) {
    const { bytesRead } = await fh.read(buffer, got, length - got, got);
    if (bytesRead === 0) break;
    got += bytesRead;
  }
  return { text: buffer.subarray(0, got).toString("utf8"), size };
}

/** Past this size a file is read only in part (read_file shows the start; edit_file refuses). */
const MAX_READ_BYTES = 16 * 1024 * 1024;

/** The text of a file, cut at `maxChars` with a note saying how much was left out. */
export async function readFile(root: string, path: string, maxChars = READ_MAX_CHARS): Promise<string> {
  const abs = resolveIn(root, path);
  let text: string;
  try {
    const fh = await openChecked(root, abs, "read");
    try {
      const some = await readSome(fh, MAX_READ_BYTES);
      text = some.text;
      if (Buffer.byteLength(text) < some.size)
        return `${text.slice(0, maxChars)}\n… [cut: the file has ${some.size} bytes; only the start is shown]`;
    } finally {
      await fh.close();
    }
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
  await makeParents(root, abs);
  const fh = await openChecked(root, abs, "write");
  try {
    await fh.truncate(0);
    await fh.writeFile(content, "utf8");
  } finally {
    await fh.close();
  }
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
  let fh: FileHandle;
  try {
    fh = await openChecked(root, abs, "edit");
  } catch (e) {
    if (missing(e)) throw new ToolError(`no file at ${where}: check the path with list_files, or create it with write_file`);
    throw e;
  }
  try {
    const { text, size } = await readSome(fh, MAX_READ_BYTES);
    if (Buffer.byteLength(text) < size) throw new ToolError(`${where} is too large to edit (${size} bytes; at most ${MAX_READ_BYTES})`);
    const count = countOccurrences(text, oldText);
    if (count === 0)
      throw new ToolError(`old_text was not found in ${where}: it must match the file exactly (spaces and line breaks too); read the file first`);
    if (count > 1)
      throw new ToolError(`old_text occurs ${count} times in ${where}: include more of the surrounding text so it matches exactly once`);
    const at = text.indexOf(oldText);
    const next = Buffer.from(text.slice(0, at) + newText + text.slice(at + oldText.length), "utf8");
    await fh.truncate(0);
    await fh.write(next, 0, next.length, 0);
  } finally {
    await fh.close();
  }
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
  refuseSecret(root, start, shown(root, start));
  try {
    const st = await lstat(start);
    if (st.isSymbolicLink()) throw new ToolError(`${shown(root, start)} is a symbolic link: list_files does not follow links; list the folder itself`);
    const rootReal = await realpath(root).catch(() => resolve(root));
    if (!within(rootReal, await realpath(start))) throw new ToolError(`${shown(root, start)} is outside the workspace: list "." to see the workspace`);
    if (!st.isDirectory()) return shown(root, start);
  } catch (e) {
    if (missing(e)) throw new ToolError(`no folder at ${shown(root, start)}: list "." to see the workspace`);
    throw e;
  }
  const match = pattern ? globToRegExp(pattern) : null;
  const found: string[] = [];
  const walk = async (dir: string): Promise<void> => {
    const entries = await readdir(dir, { withFileTypes: true });
    for (const d of entries) {
      if (LIST_SKIP.has(d.name) || (d.isDirectory() && SECRET_DIR.test(d.name))) continue;
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

/** The scratch folders this process made, removed when it exits (unless kept). */
const scratchMade = new Set<string>();

/** Removes every scratch folder this process made and did not keep (it runs by itself at exit). */
export function removeScratch(): void {
  for (const dir of scratchMade) rmSync(dir, { recursive: true, force: true });
  scratchMade.clear();
}

/** Keeps a scratch folder after the process exits (`--keep`): it is no longer removed at exit. */
export function keepScratch(dir: string): void {
  scratchMade.delete(dir);
}

/**
 * A scratch folder's name carries the process that made it (`<prefix>scratch.<pid>.XXXXXX`): a
 * process killed before its exit handler ran (SIGKILL, a signal it does not handle, a crash)
 * cannot remove its folders, so the next process that makes one removes those whose maker is gone.
 */
const SCRATCH_NAME = /scratch\.(\d+)\.[A-Za-z0-9]{6}$/;
let swept = false;

/** Removes the scratch folders in the temp dir whose process no longer runs. Returns what it removed. */
export function sweepOrphanScratch(dir = tmpdir()): string[] {
  const removed: string[] = [];
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch {
    return removed;
  }
  for (const name of names) {
    const pid = Number(SCRATCH_NAME.exec(name)?.[1] ?? NaN);
    if (!Number.isInteger(pid) || pid <= 0 || pid === process.pid || isRunning(pid)) continue;
    rmSync(join(dir, name), { recursive: true, force: true });
    removed.push(name);
  }
  return removed;
}

function isRunning(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === "EPERM"; // it runs, as another user
  }
}

/** sweepOrphanScratch, once per process: before the first scratch folder it makes. */
export function sweepOrphanScratchOnce(): void {
  if (swept) return;
  swept = true;
  sweepOrphanScratch();
}

async function scratchDir(prefix: string): Promise<string> {
  sweepOrphanScratchOnce();
  const dir = await mkdtemp(join(tmpdir(), `${prefix}scratch.${process.pid}.`));
  if (scratchMade.size === 0) process.once("exit", removeScratch);
  scratchMade.add(dir);
  return dir;
}

/**
 * A fresh folder under the system's temp dir holding `files` (path → text): a lesson's scratch
 * workspace. Removed when the process exits, however the run ended, unless `keepScratch` keeps it.
 */
export async function scratchWorkspace(files: Record<string, string>, prefix = "agent-course-"): Promise<string> {
  const root = await scratchDir(prefix);
  for (const [path, text] of Object.entries(files)) await writeFile(root, path, text);
  return root;
}

/** A fresh scratch copy of a folder (a sample repository), so a lesson's run never changes the original; removed at exit like scratchWorkspace's. */
export async function scratchCopy(dir: string, prefix = "agent-course-"): Promise<string> {
  const root = await scratchDir(prefix);
  await cp(dir, root, { recursive: true, filter: (src) => !LIST_SKIP.has(src.split(sep).pop() ?? "") });
  return root;
}
