/**
 * Where the course lives on disk. Every path the command line touches is built here, from the
 * manifest entry, so a lesson added to runtime/manifest.ts is found without any other change.
 */
import { existsSync, readdirSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import type { Lesson } from "../../runtime/manifest.ts";

/** The repository root (scripts/lib/ → ../..). */
export const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "..", "..");

/** The course's private state: result cache, hint counters, the pristine snapshot. Git-ignored. */
export const STATE_DIR = join(ROOT, ".course");

export const exerciseDir = (l: Lesson) => join(ROOT, "lessons", l.dir);
export const solutionDir = (l: Lesson) => join(ROOT, "solutions", l.dir);
export const testFileRel = (l: Lesson) => `tests/${l.dir}.test.ts`;
export const testFile = (l: Lesson) => join(ROOT, testFileRel(l));

/** Every file under `dir`, as sorted paths relative to it ("agent.ts", "lib/x.ts"). */
export function filesUnder(dir: string): string[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((d) => d.isFile())
    .map((d) => join(d.parentPath, d.name).slice(dir.length + 1))
    .sort();
}
