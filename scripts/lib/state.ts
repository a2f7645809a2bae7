/**
 * The course's memory, in .course/state.json (git-ignored): check results keyed by a hash of
 * everything the result depends on, and how many hints a learner has seen. Progress is never a
 * flag the learner sets: a lesson is done when its check passes on the files as they are now.
 */
import { createHash } from "node:crypto";
import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import { z } from "zod";
import type { Lesson } from "../../runtime/manifest.ts";
import { isRuleId, type RuleId } from "../../runtime/rules.ts";
import type { Grade } from "./grade.ts";
import { CLI_WORDS, type WordId } from "../../runtime/words.ts";
import { ROOT, STATE_DIR, exerciseDir, filesUnder, testFile } from "./paths.ts";

/** A check's verdict without the runner's output: enough to print the report again. */
const savedGrade = z.object({
  passed: z.number(),
  total: z.number(),
  failures: z.array(
    z.object({
      test: z.string(),
      kind: z.enum(["todo", "api", "transcript", "assertion", "error", "load", "rule", "types", "hang"]),
      rule: z.custom<RuleId>((v) => typeof v === "string" && isRuleId(v)).optional(),
      message: z.string(),
      where: z.string().optional(),
      testLine: z.string().optional(),
      // The explanation as a word of the command line, said in the language of whoever prints the cached verdict.
      said: z.object({ id: z.custom<WordId>((v) => typeof v === "string" && Object.hasOwn(CLI_WORDS, v)), vars: z.record(z.string(), z.union([z.string(), z.number()])) }).optional(),
    }),
  ),
});

const stateSchema = z.object({
  results: z.record(z.string(), z.object({ hash: z.string(), ok: z.boolean(), grade: savedGrade.optional() })).default({}),
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

/** Relative imports of a module: `from "./x.ts"`, `import("../y.ts")`, `import "./z.ts"`. */
const IMPORT = /\bfrom\s*["'](\.{1,2}\/[^"']+)["']|\bimport\s*\(\s*["'](\.{1,2}\/[^"']+)["']\s*\)|\bimport\s+["'](\.{1,2}\/[^"']+)["']/g;

/** `start` and every file it imports, directly or not, by relative path (absolute paths, sorted). */
export function importClosure(start: string[]): string[] {
  const seen = new Set<string>();
  const queue = [...start];
  while (queue.length > 0) {
    const file = queue.pop()!;
    if (seen.has(file)) continue;
    seen.add(file);
    if (!/\.(ts|mts|js|mjs)$/.test(file) || !existsSync(file)) continue;
    for (const m of readFileSync(file, "utf8").matchAll(IMPORT)) queue.push(resolve(dirname(file), (m[1] ?? m[2] ?? m[3])!));
  }
  return [...seen].sort();
}

/**
 * A hash of what a lesson's check result depends on: the exercise's files, its test file, every
 * file those import (tests/support.ts, the grading module, the solutions of earlier lessons, the
 * docs' transcript module…), all of runtime/ (the scripted model loads scenarios by name), the
 * test runner's configuration and the lockfile. Same hash, same result; any change there, and
 * the next `list` or `watch` checks the lesson again.
 */
export function lessonHash(lesson: Lesson): string {
  const h = createHash("sha256");
  const exercise = filesUnder(exerciseDir(lesson)).map((f) => join(exerciseDir(lesson), f));
  const files = new Set([
    ...importClosure([testFile(lesson), ...exercise]),
    ...filesUnder(join(ROOT, "runtime")).map((f) => join(ROOT, "runtime", f)),
    ...["vitest.config.ts", "package-lock.json", "package.json"].map((f) => join(ROOT, f)),
  ]);
  for (const file of [...files].sort()) {
    h.update(`${relative(ROOT, file)}\0`);
    h.update(existsSync(file) ? readFileSync(file) : "(missing)");
    h.update("\0");
  }
  return h.digest("hex");
}

/** The cached result for the lesson's files as they are now, or undefined. */
export function cachedResult(state: CourseState, lesson: Lesson, hash = lessonHash(lesson)): boolean | undefined {
  const r = state.results[lesson.id];
  return r && r.hash === hash ? r.ok : undefined;
}

/** The last check's verdict for the lesson's files as they are now (output left out), or undefined. */
export function cachedGrade(state: CourseState, lesson: Lesson, hash = lessonHash(lesson)): Grade | undefined {
  const r = state.results[lesson.id];
  if (!r || r.hash !== hash || !r.grade) return undefined;
  return { ok: r.ok, ...r.grade, output: "" };
}

export function recordResult(lesson: Lesson, hash: string, grade: Grade): void {
  const { passed, total } = grade;
  // Messages are kept short: the cache is for the report's first lines, not the runner's log.
  const failures = grade.failures.slice(0, 20).map((f) => ({ ...f, message: f.message.slice(0, 4000) }));
  updateState((s) => {
    s.results[lesson.id] = { hash, ok: grade.ok, grade: { passed, total, failures } };
  });
}
