/**
 * Set-up shared by the lesson test files: lesson output silenced while the file runs, and the
 * scratch folders its tests create removed at the end.
 */
import { rm } from "node:fs/promises";
import { afterAll, beforeAll } from "vitest";
import { quietOutput } from "../runtime/testing.ts";

/** Call once at the top of a test file; returns `keep(root)`, which registers a scratch folder. */
export function quietLessonFile(): (root: string) => string {
  let restore = () => {};
  const roots: string[] = [];
  beforeAll(() => {
    restore = quietOutput();
  });
  afterAll(async () => {
    restore();
    await Promise.all(roots.map((r) => rm(r, { recursive: true, force: true })));
  });
  return (root) => {
    roots.push(root);
    return root;
  };
}
