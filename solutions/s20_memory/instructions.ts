/**
 * s20's instruction files: how a project (and its user) tells the agent its ways.
 *
 * AGENTS.md and CLAUDE.md are looked for in the user's config folder and in every folder from the
 * repository root (the nearest folder above the workspace that holds .git; the workspace alone
 * when there is none) down to the workspace. They are layered in that order: the user's first,
 * then the repository root's, then each folder nearer the workspace, so the nearest file is read
 * last and wins where they disagree. Each file is cut at MAX_FILE_CHARS and all of them at
 * MAX_TOTAL_CHARS (the nearest keep their room first), with a note saying what was cut. A
 * symbolic link is not followed (it could point anywhere, or at a file already read).
 */
import { closeSync, constants, fstatSync, lstatSync, openSync, readSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import { promptSafe } from "../../runtime/terminal-text.ts";

/** The names looked for in each folder, in this order. */
export const INSTRUCTION_FILES = ["AGENTS.md", "CLAUDE.md"] as const;
/** One file past this many characters is cut. */
export const MAX_FILE_CHARS = 8_000;
/** All the files together past this many characters: the farthest are cut first. */
export const MAX_TOTAL_CHARS = 20_000;

/** One instruction file as it goes into the system prompt. */
export interface Layer {
  /** Where it is, absolute. */
  path: string;
  /** What goes into the prompt (cut, with its note, when the file is too long). */
  text: string;
  /** How long the file is. */
  size: number;
  /** Was it cut? */
  cut: boolean;
}

const isFile = (path: string) => {
  try {
    return lstatSync(path).isFile();
  } catch {
    return false;
  }
};
/** .git is a folder, or a file in a linked worktree. */
const exists = (path: string) => {
  try {
    return Boolean(lstatSync(path));
  } catch {
    return false;
  }
};

/** The repository the workspace is in: the nearest folder at or above it that holds .git (null: none). */
export function repositoryRoot(workspace: string): string | null {
  for (let dir = resolve(workspace); ; dir = dirname(dir)) {
    if (exists(join(dir, ".git"))) return dir;
    if (dirname(dir) === dir) return null;
  }
}

// #region discover
/**
 * The instruction files for `workspace`, in the order they are layered: the user's config folder
 * first, then every folder from the repository root down to the workspace (AGENTS.md before
 * CLAUDE.md in each). Only regular files count.
 */
export function findInstructions(workspace: string, userDir: string): string[] {
  const top = repositoryRoot(workspace) ?? resolve(workspace);
  // NEW: the workspace itself, then each folder above it put in front, up to the repository root: the nearest comes last.
  const folders = [resolve(workspace)];
  for (let dir = folders[0]!; dir !== top && dirname(dir) !== dir; ) {
    dir = dirname(dir);
    folders.unshift(dir);
  }
  return [resolve(userDir), ...folders].flatMap((dir) => INSTRUCTION_FILES.map((name) => join(dir, name)).filter(isFile));
}
// #endregion discover

// #region layer
/**
 * The files' texts, capped: each at `maxFile`, all at `maxTotal`, the nearest (the last) given
 * its room first. What is cut says so, in the text the model reads.
 */
export function layerInstructions(files: readonly { path: string; text: string }[], maxFile = MAX_FILE_CHARS, maxTotal = MAX_TOTAL_CHARS): Layer[] {
  let room = maxTotal;
  const layers: Layer[] = [];
  for (const { path, text } of [...files].reverse()) {
    const keep = Math.max(0, Math.min(text.length, maxFile, room));
    room -= keep;
    const cut = keep < text.length;
    const why = keep < Math.min(text.length, maxFile) ? `the instruction files together are capped at ${maxTotal} characters` : `one file is capped at ${maxFile} characters`;
    const note = `[cut: ${path} has ${text.length} characters; only the first ${keep} are here (${why})]`;
    layers.unshift({ path, size: text.length, cut, text: cut ? `${text.slice(0, keep)}\n… ${note}` : text });
  }
  return layers;
}
// #endregion layer

/** At most this many bytes of one file are read (a UTF-8 character is at most 4 bytes): the size is known BEFORE reading. */
export const MAX_READ_BYTES = MAX_FILE_CHARS * 4;

/** The start of a file (no link followed, a regular file only), at most MAX_READ_BYTES, and its size: a 600 MB file costs 32 KB. */
function readStart(path: string): { text: string; size: number } {
  let fd: number;
  try {
    fd = openSync(path, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
  } catch {
    return { text: "", size: 0 }; // gone, or swapped for a link since it was found: nothing is read
  }
  try {
    const { size } = fstatSync(fd);
    if (!fstatSync(fd).isFile()) return { text: "", size: 0 };
    const buf = Buffer.alloc(Math.min(size, MAX_READ_BYTES));
    const got = buf.length > 0 ? readSync(fd, buf, 0, buf.length, 0) : 0;
    return { text: buf.subarray(0, got).toString("utf8").replace(/\uFFFD$/, ""), size };
  } finally {
    closeSync(fd);
  }
}

/** The instruction files of `workspace` and `userDir`, read (each cut BEFORE reading, at MAX_READ_BYTES) and capped. */
export function loadInstructions(workspace: string, userDir: string): Layer[] {
  const read = findInstructions(workspace, userDir).map((path) => ({ path, ...readStart(path) }));
  return layerInstructions(read).map((layer, i) =>
    read[i]!.size > MAX_READ_BYTES ? { ...layer, size: read[i]!.size, cut: true, text: `${layer.text}\n… [the file has ${read[i]!.size} bytes: only its first ${MAX_READ_BYTES} were read]` } : layer,
  );
}

/** Where a layer comes from, the way the model reads it. */
function origin(path: string, workspace: string, userDir: string): string {
  if (dirname(path) === resolve(userDir)) return "the user's own instructions, for every project";
  const rel = relative(resolve(workspace), path) || path;
  return dirname(path) === resolve(workspace) ? `the workspace's ${rel}` : `${rel}, a folder above the workspace`;
}

/** The part of the system prompt that holds the instructions ("" when there are none). */
export function instructionsPrompt(layers: readonly Layer[], workspace: string, userDir: string): string {
  if (layers.length === 0) return "";
  // A file any command could write: control and invisible characters written out (promptSafe), never raw.
  const parts = layers.map((l) => `## ${promptSafe(origin(l.path, workspace, userDir), true)}\n\n${promptSafe(l.text.trim())}`);
  return `\n\n# Instructions from the project and the user\n\nFollow them. They are layered: a later one is nearer the workspace and wins where they disagree.\n\n${parts.join("\n\n")}`;
}
