/**
 * A file read by the program itself (a skill's SKILL.md, s16), from a folder a tool can write:
 * opened without following a link, and only when what was opened is a regular file with one
 * name (a hard link can be a file outside), really inside `folder`, and not too big. A planted
 * link to ~/.ssh/id_rsa or to another project's file is refused, never read into the prompt.
 */
import { closeSync, constants, fstatSync, openSync, readFileSync, readlinkSync, realpathSync } from "node:fs";
import { relative, isAbsolute, sep } from "node:path";

export class ConfinedReadError extends Error {
  override name = "ConfinedReadError";
}

const within = (parent: string, child: string) => {
  const rel = relative(parent, child);
  return rel === "" || (rel !== ".." && !rel.startsWith(`..${sep}`) && !isAbsolute(rel));
};

/** The text of `file`, which must be a regular file inside `folder` (links refused); throws ConfinedReadError. */
export function readConfined(file: string, folder: string, maxBytes = 256 * 1024): string {
  let fd: number;
  try {
    fd = openSync(file, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    throw new ConfinedReadError(code === "ELOOP" ? "it is a symbolic link (not followed)" : code === "ENOENT" ? "no such file" : `cannot be opened (${code})`);
  }
  try {
    const st = fstatSync(fd);
    if (!st.isFile()) throw new ConfinedReadError("it is not a regular file");
    if (st.nlink > 1) throw new ConfinedReadError("it has more than one name (a hard link may be a file outside)");
    if (st.size > maxBytes) throw new ConfinedReadError(`it is larger than ${maxBytes} bytes`);
    let real: string;
    try {
      real = readlinkSync(`/proc/self/fd/${fd}`);
    } catch {
      real = realpathSync(file);
    }
    if (!within(realpathSync(folder), real)) throw new ConfinedReadError(`it is outside its folder (${real})`);
    return readFileSync(fd, "utf8");
  } finally {
    closeSync(fd);
  }
}
