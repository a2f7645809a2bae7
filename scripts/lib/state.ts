/**
 * The course's memory, in .course/state.json (git-ignored): check results keyed by a hash of
 * everything the result depends on, and how many hints a learner has seen. Progress is never a
 * flag the learner sets: a lesson is done when its check passes on the files as they are now.
 */
import { createHash } from "node:crypto";
import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { z } from "zod";
import type { Lesson } from "../../runtime/manifest.ts";
import { ROOT, STATE_DIR, exerciseDir, filesUnder, testFile } from "./paths.ts";

const stateSchema = z.object({
  results: z.record(z.string(), z.object({ hash: z.string(), ok: z.boolean() })).default({}),
  hints: z.record(z.string(), z.number()).default({}),
});
export type CourseState = z.infer<typeof stateSchema>;

const STATE_FILE = join(STATE_DIR, "state.json");

export function loadState(): CourseState {
  try {
    if (existsSync(STATE_FILE)) {
      const parsed = stateSchema.safeParse(JSON.parse(readFileSync(STATE_FILE, "utf8")));
      if (parsed.success) return parsed.data;
    }
  } catch {
    /* a damaged state file is only a cache: start again */
  }
  return { results: {}, hints: {} };
}

export function saveState(state: CourseState): void {
  mkdirSync(STATE_DIR, { recursive: true });
  const tmp = `${STATE_FILE}.${process.pid}.tmp`;
  writeFileSync(tmp, JSON.stringify(state, null, 2) + "\n");
  renameSync(tmp, STATE_FILE);
}

/** Changes one thing in the state file, re-reading it first (two commands may run at once). */
export function updateState(change: (s: CourseState) => void): CourseState {
  const s = loadState();
  change(s);
  saveState(s);
  return s;
}

/**
 * A hash of what a lesson's check result depends on: the exercise's files, its test file, and
 * the code the tests and exercises import (runtime/, solutions/). Same hash, same result.
 */
export function lessonHash(lesson: Lesson): string {
  const h = createHash("sha256");
  const add = (label: string, dir: string) => {
    for (const f of filesUnder(dir)) {
      h.update(`${label}/${f}\0`);
      h.update(readFileSync(join(dir, f)));
      h.update("\0");
    }
  };
  add("exercise", exerciseDir(lesson));
  h.update(existsSync(testFile(lesson)) ? readFileSync(testFile(lesson)) : "no test file");
  add("runtime", join(ROOT, "runtime"));
  add("solutions", join(ROOT, "solutions"));
  return h.digest("hex");
}

/** The cached result for the lesson's files as they are now, or undefined. */
export function cachedResult(state: CourseState, lesson: Lesson, hash = lessonHash(lesson)): boolean | undefined {
  const r = state.results[lesson.id];
  return r && r.hash === hash ? r.ok : undefined;
}

export function recordResult(lesson: Lesson, hash: string, ok: boolean): void {
  updateState((s) => {
    s.results[lesson.id] = { hash, ok };
  });
}
