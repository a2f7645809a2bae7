/**
 * A reference solution as a patch (solution.patch, a unified diff as `git diff` or `diff -u`
 * writes it), applied in-process with the `diff` library: it only writes files, so it needs no
 * command, no sandbox and no `patch` or `git` on the machine. Every path must stay inside the
 * workspace (runtime/tools/files.ts writes it, refusing any other).
 */
import { existsSync, readFileSync, rmSync } from "node:fs";
import { isAbsolute, join } from "node:path";
import { applyPatch, parsePatch } from "diff";
import { writeFile } from "../../runtime/tools/files.ts";

/** "a/src/x.js" or "b/src/x.js" → "src/x.js"; /dev/null stays null. */
function pathOf(name: string | undefined): string | null {
  if (!name || name === "/dev/null") return null;
  const p = name.replace(/^[ab]\//, "").split("\t")[0]!.trim();
  if (!p || isAbsolute(p) || p.split("/").includes("..")) throw new PatchError(`the patch names a path outside the workspace: ${name}`);
  return p;
}

export class PatchError extends Error {
  override name = "PatchError";
}

/** Applies every file of `patch` to `ws`; throws a PatchError naming the first file that does not apply. */
export async function applyUnifiedPatch(ws: string, patch: string): Promise<string[]> {
  const files = parsePatch(patch);
  if (files.length === 0 || files.every((f) => f.hunks.length === 0)) throw new PatchError("the patch has no hunks");
  const changed: string[] = [];
  for (const f of files) {
    const from = pathOf(f.oldFileName);
    const to = pathOf(f.newFileName);
    const target = to ?? from;
    if (!target) throw new PatchError("a file of the patch names neither an old nor a new path");
    const before = from && existsSync(join(ws, from)) ? readFileSync(join(ws, from), "utf8") : "";
    const after = applyPatch(before, f);
    if (after === false) throw new PatchError(`the patch does not apply to ${from ?? target}: the file is not what the patch expects`);
    if (to === null) rmSync(join(ws, from!), { force: true });
    else await writeFile(ws, to, after);
    changed.push(target);
  }
  return changed;
}
