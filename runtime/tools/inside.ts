/**
 * Files the course itself reads, writes and deletes FOR the model, in a folder the model's
 * commands can change (s21's rewind, s23's grader): the synchronous twin of files.ts's checks.
 *
 * A command can leave a symbolic link anywhere in the workspace (`ln -s ~/.bashrc notes.txt`,
 * `ln -s /home/me src`); a plain writeFileSync, rmSync or readFileSync follows it, and a rewind
 * would overwrite or delete the file outside. So here, every path:
 *
 * - is checked component by component with lstat: a symbolic link ANYWHERE on the way (the file
 *   itself or a folder above it, up to `root`) is refused, never followed, wherever it points;
 * - is opened with O_NOFOLLOW | O_NONBLOCK, then the OPENED file is checked (fstat: a regular
 *   file with one name, since a hard link can be a file outside; its real path, read back from
 *   the descriptor, under `root`): a folder swapped for a link between the check and the open is
 *   caught there;
 * - is read with a size cap before reading (fstat, then a bounded read), never the whole file.
 *
 * A refusal is an InsideError whose message names the path and says why; nothing was written.
 */
import { closeSync, constants, fstatSync, ftruncateSync, lstatSync, mkdirSync, openSync, readlinkSync, readSync, realpathSync, unlinkSync, writeSync } from "node:fs";
import { isAbsolute, join, relative, resolve, sep } from "node:path";

export class InsideError extends Error {
  override name = "InsideError";
}

const within = (parent: string, child: string) => {
  const rel = relative(parent, child);
  return rel === "" || (rel !== ".." && !rel.startsWith(`..${sep}`) && !isAbsolute(rel));
};

/** The parts of `rel` under `root`, refused when it leaves it. */
function partsOf(root: string, rel: string): string[] {
  const abs = resolve(root, rel);
  if (!within(resolve(root), abs) || abs === resolve(root)) throw new InsideError(`${rel} is not a path inside ${root}`);
  return relative(resolve(root), abs).split(sep);
}

/**
 * Checks every folder on the way to `rel` (not the file itself): each must be a real folder, not a
 * link. Returns false when one is missing (then there is no file either), unless `make` creates it.
 */
function folders(root: string, rel: string, make: boolean): boolean {
  const parts = partsOf(root, rel);
  let dir = resolve(root);
  for (const part of parts.slice(0, -1)) {
    dir = join(dir, part);
    const st = lstatSync(dir, { throwIfNoEntry: false });
    if (!st) {
      if (!make) return false;
      mkdirSync(dir);
      continue;
    }
    if (st.isSymbolicLink()) throw new InsideError(`${relative(root, dir)} is a symbolic link (a command may have made it): it is not followed; nothing was read, written or deleted under it`);
    if (!st.isDirectory()) throw new InsideError(`${relative(root, dir)} is not a folder: nothing was written under it`);
  }
  return true;
}

/** Checks an open descriptor: a regular file with one name, really under `root`. Closes it and throws otherwise. */
function checkOpened(fd: number, root: string, rel: string): void {
  try {
    const st = fstatSync(fd);
    if (!st.isFile()) throw new InsideError(`${rel} is not a regular file`);
    if (st.nlink > 1) throw new InsideError(`${rel} has ${st.nlink} hard links (one may be a file outside): it is not touched`);
    let real: string | null = null;
    try {
      real = readlinkSync(`/proc/self/fd/${fd}`);
    } catch {
      real = realpathSync(join(root, rel));
    }
    if (!within(realpathSync(root), real)) throw new InsideError(`${rel} is outside ${root} (it is ${real}): it is not touched`);
  } catch (e) {
    closeSync(fd);
    throw e;
  }
}

function openRefusing(path: string, flags: number, rel: string): number {
  try {
    return openSync(path, flags | constants.O_NOFOLLOW | constants.O_NONBLOCK, 0o644);
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    if (code === "ELOOP" || code === "EMLINK") throw new InsideError(`${rel} is a symbolic link (a command may have made it): it is not followed`);
    if (code === "ENXIO" || code === "EAGAIN" || code === "EISDIR") throw new InsideError(`${rel} is not a regular file`);
    throw e;
  }
}

/** What readInside found: the first `maxBytes` bytes, the file's size, and whether it was cut. */
export interface Read {
  bytes: Buffer;
  size: number;
  cut: boolean;
}

/** The first `maxBytes` bytes of `rel` under `root` (null: no such file); links refused, the size known before reading. */
export function readInside(root: string, rel: string, maxBytes = 16 * 1024 * 1024): Read | null {
  if (!folders(root, rel, false)) return null;
  let fd: number;
  try {
    fd = openRefusing(join(resolve(root), rel), constants.O_RDONLY, rel);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === "ENOENT") return null;
    throw e;
  }
  checkOpened(fd, root, rel);
  try {
    const size = fstatSync(fd).size;
    const bytes = Buffer.alloc(Math.min(size, maxBytes));
    let got = 0;
    while (got < bytes.length) {
      const n = readSync(fd, bytes, got, bytes.length - got, got);
      if (n === 0) break;
      got += n;
    }
    return { bytes: bytes.subarray(0, got), size, cut: got < size };
  } finally {
    closeSync(fd);
  }
}

/** Writes `data` as the whole of `rel` under `root`, making its folders: no link on the way or at the end is followed. */
export function writeInside(root: string, rel: string, data: Buffer | string): void {
  folders(root, rel, true);
  const abs = join(resolve(root), rel);
  const existed = lstatSync(abs, { throwIfNoEntry: false }) !== undefined;
  // Opened without truncating: nothing is lost before the opened file is checked.
  const fd = openRefusing(abs, constants.O_WRONLY | constants.O_CREAT, rel);
  try {
    checkOpened(fd, root, rel);
  } catch (e) {
    if (!existed) {
      try {
        unlinkSync(abs);
      } catch {
        // it was made elsewhere: the check above says where
      }
    }
    throw e;
  }
  try {
    ftruncateSync(fd, 0);
    const buf = typeof data === "string" ? Buffer.from(data, "utf8") : data;
    for (let at = 0; at < buf.length; ) at += writeSync(fd, buf, at, buf.length - at, at);
  } finally {
    closeSync(fd);
  }
}

/** Deletes `rel` under `root` (nothing to do when it is not there). A link is removed itself, never what it points to; a folder on the way that is a link is refused. */
export function removeInside(root: string, rel: string): void {
  if (!folders(root, rel, false)) return;
  const abs = join(resolve(root), rel);
  const st = lstatSync(abs, { throwIfNoEntry: false });
  if (!st) return;
  if (st.isDirectory()) throw new InsideError(`${rel} is a folder now: it is not deleted`);
  // unlink never follows the last component: a link is removed, the file it names stays.
  unlinkSync(abs);
}
