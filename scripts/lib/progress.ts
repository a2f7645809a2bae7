/**
 * Progress, derived from the checks: a lesson is done when its tests pass on lessons/ as it is
 * now. Results are cached by file hash (state.ts), so `npm run list` runs only the checks whose
 * files changed, all of them in one test-runner process.
 */
import { existsSync } from "node:fs";
import type { Lesson } from "../../runtime/manifest.ts";
import { gradeLesson, gradeLessons, type Grade, type GradeOptions } from "./grade.ts";
import { exerciseDir } from "./paths.ts";
import { pristineStates } from "./pristine.ts";
import { cachedGrade, cachedResult, lessonHash, loadState, recordResult } from "./state.ts";

export type LessonState = "done" | "current" | "in progress" | "not started" | "missing";

export interface LessonStatus {
  lesson: Lesson;
  state: LessonState;
  /** A lesson begun and not done, checked on its files as they are: how many tests pass, and the first that fails. */
  progress?: { passed: number; total: number; failing?: string };
}

/** Grades one lesson's exercise and remembers the result for its files' hash. */
export async function checkLesson(lesson: Lesson, opts: GradeOptions = {}): Promise<Grade> {
  const hash = lessonHash(lesson);
  const grade = await gradeLesson(lesson, "lessons", opts);
  const stopped = grade.failures[0]?.kind === "load" && /was stopped|did not finish/.test(grade.failures[0].message);
  if (!stopped) recordResult(lesson, hash, grade);
  return grade;
}

/** How doneMap may run checks: `onCheck` hears which lessons it checks before it starts. */
export type DoneOptions = { run?: boolean; onCheck?: (lessons: Lesson[]) => void } & GradeOptions;

/**
 * Is each lesson done? Cached results where the files are unchanged; a lesson never checked whose
 * folder is the pristine exercise is not done without running anything (every pristine exercise
 * fails its tests: `npm run verify` holds it); one batch run for the rest.
 */
export async function doneMap(lessons: Lesson[], opts: DoneOptions = {}): Promise<Map<string, boolean | undefined>> {
  const state = loadState();
  const done = new Map<string, boolean | undefined>();
  const hashes = new Map<string, string>();
  let toRun: Lesson[] = [];
  for (const l of lessons) {
    if (!existsSync(exerciseDir(l))) {
      done.set(l.id, false);
      continue;
    }
    const hash = lessonHash(l);
    hashes.set(l.id, hash);
    const cached = cachedResult(state, l, hash);
    done.set(l.id, cached);
    if (cached === undefined) toRun.push(l);
  }
  if (toRun.length > 0 && opts.run !== false) {
    const untouched = pristineStates(toRun);
    for (const l of toRun) if (untouched.get(l.id) === true) done.set(l.id, false);
    toRun = toRun.filter((l) => untouched.get(l.id) !== true);
  }
  if (toRun.length > 0 && opts.run !== false) {
    opts.onCheck?.(toRun);
    const grades = await gradeLessons(toRun, "lessons", opts);
    for (const l of toRun) {
      const g = grades.get(l.id);
      if (!g) continue;
      done.set(l.id, g.ok);
      const stopped = g.failures[0]?.kind === "load" && /was stopped|did not finish/.test(g.failures[0].message);
      if (!stopped) recordResult(l, hashes.get(l.id)!, g);
    }
  }
  return done;
}

/** Every lesson with its state. `run: false` answers from the cache alone (unknown = not done). */
export async function statuses(lessons: Lesson[], opts: DoneOptions = {}): Promise<LessonStatus[]> {
  const done = await doneMap(lessons, opts);
  const untouched = pristineStates(lessons.filter((l) => done.get(l.id) !== true));
  const state = loadState();
  // Where a begun lesson stands, from its last check on these very files (none: not checked yet).
  const progress = (lesson: Lesson): Pick<LessonStatus, "progress"> => {
    if (untouched.get(lesson.id) !== false) return {};
    const g = cachedGrade(state, lesson);
    return g ? { progress: { passed: g.passed, total: g.total, ...(g.failures[0] ? { failing: g.failures[0].test } : {}) } } : {};
  };
  let currentSeen = false;
  return lessons.map((lesson) => {
    if (!existsSync(exerciseDir(lesson))) return { lesson, state: "missing" };
    if (done.get(lesson.id) === true) return { lesson, state: "done" };
    if (!currentSeen) {
      currentSeen = true;
      return { lesson, state: "current", ...progress(lesson) };
    }
    return { lesson, state: untouched.get(lesson.id) === false ? "in progress" : "not started", ...progress(lesson) };
  });
}

/**
 * The current lesson: the first one not done. Walks the lessons in order, trusting cached passes
 * and checking the others one by one until one fails; returns it with its grade (the grade is
 * undefined when `run` is false or every lesson is done).
 */
export async function currentLesson(
  lessons: Lesson[],
  opts: { run?: boolean } & GradeOptions = {},
): Promise<{ lesson: Lesson; grade?: Grade } | undefined> {
  const state = loadState();
  for (const l of lessons) {
    if (!existsSync(exerciseDir(l))) return { lesson: l };
    if (cachedResult(state, l) === true) continue;
    if (opts.run === false) return { lesson: l };
    const grade = await checkLesson(l, opts);
    if (!grade.ok) return { lesson: l, grade };
  }
  return undefined;
}
