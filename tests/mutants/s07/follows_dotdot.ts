// mutant of: solutions/s07_safe_tools/workspace.ts
// expect: refuses \.\., absolute paths and symlinks out
/**
 * s07 · the workspace: one root directory that the file tools cannot leave.
 *
 * Every path the model sends is resolved against the root, then through the file system's own
 * answer (realpath), and only then compared with the root. A path check on the string alone
 * ("does it contain ..?") misses symlinks; a realpath alone misses files that do not exist yet
 * (write_file creates them). This does both: it resolves the deepest part that exists, follows
 * dangling symlinks by hand, and appends the rest.
 */
import { lstatSync, readlinkSync, realpathSync } from "node:fs";
import { basename, dirname, isAbsolute, join, relative, resolve, sep } from "node:path";

/** A path the model asked for that lies outside the workspace (or is not a path at all). */
export class OutsideWorkspaceError extends Error {
  override name = "OutsideWorkspaceError";
}

/** Is `candidate` (an absolute, resolved path) the root itself or under it? */
export function isInside(root: string, candidate: string): boolean {
  const rel = relative(root, candidate);
  return rel === "" || (rel !== ".." && !rel.startsWith(`..${sep}`) && !isAbsolute(rel));
}

// #region real-path
/**
 * The real location of `path`, even when it does not exist yet: realpath of the deepest
 * existing ancestor + the missing rest. A dangling symlink counts as existing: we follow it by
 * hand, so `link -> /etc/new-file` resolves to /etc/new-file, not to a harmless-looking name.
 */
export function realLocation(path: string): string {
  let current = resolve(path);
  const missing: string[] = [];
  for (let hops = 0; hops < 40; hops++) {
    try {
      return join(realpathSync(current), ...missing);
    } catch {
      // Does not resolve. Either it is missing, or it is a symlink to something missing.
    }
    let isLink = false;
    try {
      isLink = lstatSync(current).isSymbolicLink();
    } catch {
      // Missing entirely.
    }
    if (isLink) {
      current = resolve(dirname(current), readlinkSync(current));
      continue;
    }
    const parent = dirname(current);
    if (parent === current) return join(current, ...missing);
    missing.unshift(basename(current));
    current = parent;
  }
  throw new OutsideWorkspaceError(`too many symbolic links while resolving "${path}"`);
}
// #endregion real-path

// #region workspace
export class Workspace {
  /** The root, itself resolved (on some systems /tmp is a symlink). */
  readonly root: string;

  constructor(root: string) {
    this.root = realpathSync(resolve(root));
  }

  /**
   * The real absolute path for a path the model sent, or OutsideWorkspaceError with a message
   * the model can act on. Relative paths are relative to the root; an absolute path is allowed
   * only when it lies inside the root.
   */
  resolve(path: unknown): string {
    if (typeof path !== "string" || path.trim() === "")
      throw new OutsideWorkspaceError('a file path is needed, e.g. {"path": "src/index.ts"}');
    if (path.includes("\0")) throw new OutsideWorkspaceError(`the path ${JSON.stringify(path)} contains a NUL byte`);
    if (path.startsWith("~")) throw this.outside(path);
    // subtle: resolve() only cleans the string; realLocation() asks the file system, symlinks included.
    const lexical = resolve(this.root, path);
    const real = realLocation(lexical);
    // BUG: only absolute paths are checked; a relative path is trusted, `..` and all.
    if (isAbsolute(path) && !isInside(this.root, real)) throw this.outside(path, isInside(this.root, lexical) ? real : undefined);
    return real;
  }

  private outside(path: string, linkTarget?: string): OutsideWorkspaceError {
    const via = linkTarget ? ` (it is a symbolic link to ${linkTarget})` : "";
    return new OutsideWorkspaceError(
      `"${path}" is outside the workspace${via}. File tools only reach files under ${this.root}: ` +
        `use a path relative to it, such as "README.md" or "src/".`,
    );
  }

  /** The same path, relative to the root ("." for the root itself), for tools that take one. */
  relative(path: unknown): string {
    return relative(this.root, this.resolve(path)) || ".";
  }
}
// #endregion workspace
