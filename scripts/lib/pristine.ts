/**
 * The pristine exercise: what `npm run reset` restores, byte for byte.
 *
 * Where it comes from, in order:
 *   1. git: the committed version, `git show <ref>:lessons/<dir>/<file>` for every file git
 *      has under that folder at <ref> (HEAD unless `--ref` says otherwise). Only when this folder
 *      IS a git repository's root (never a repository further up).
 *   2. no git (a downloaded archive): a snapshot under .course/pristine/<dir>/, taken by the
 *      first course command that sees the lesson (`takeSnapshots()` runs at every command).
 *
 * Only lessons/<dir>/ is ever written: files the learner added there are removed, the pristine
 * files written back; nothing else in the working tree is touched.
 */
import { spawnSync } from "node:child_process";
import { cpSync, existsSync, mkdirSync, readFileSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import type { Lesson } from "../../runtime/manifest.ts";
import { ROOT, STATE_DIR, exerciseDir, filesUnder } from "./paths.ts";

export type PristineFiles = Map<string, Buffer>;
export interface Pristine {
  files: PristineFiles;
  /** Where the files came from, for the message: "git HEAD" or ".course/pristine". */
  source: string;
}

const snapshotDir = (l: Lesson) => join(STATE_DIR, "pristine", l.dir);

function git(args: string[]): { ok: boolean; out: Buffer } {
  const r = spawnSync("git", args, { cwd: ROOT, maxBuffer: 64 * 1024 * 1024 });
  return { ok: r.status === 0 && !r.error, out: r.stdout ?? Buffer.alloc(0) };
}

/** Is the course folder itself the root of a git work tree? */
let gitRoot: boolean | undefined;
export function hasGit(): boolean {
  gitRoot ??= isGitRoot();
  return gitRoot;
}

function isGitRoot(): boolean {
  if (process.env.COURSE_NO_GIT === "1") return false;
  const r = git(["rev-parse", "--show-toplevel"]);
  if (!r.ok) return false;
  try {
    return realpathSync(r.out.toString().trim()) === realpathSync(ROOT);
  } catch {
    return false;
  }
}

function fromGit(lesson: Lesson, ref: string): PristineFiles | undefined {
  const ls = git(["ls-tree", "-r", "-z", "--name-only", ref, "--", `lessons/${lesson.dir}/`]);
  if (!ls.ok) return undefined;
  const paths = ls.out.toString().split("\0").filter(Boolean);
  if (paths.length === 0) return undefined;
  const files: PristineFiles = new Map();
  for (const p of paths) {
    const blob = git(["show", `${ref}:${p}`]);
    if (!blob.ok) return undefined;
    files.set(p.slice(`lessons/${lesson.dir}/`.length), blob.out);
  }
  return files;
}

function fromSnapshot(lesson: Lesson): PristineFiles | undefined {
  const dir = snapshotDir(lesson);
  const names = filesUnder(dir);
  if (names.length === 0) return undefined;
  return new Map(names.map((n) => [n, readFileSync(join(dir, n))]));
}

/** Without git, remember each lesson as it is the first time the course sees it. */
export function takeSnapshots(lessons: Lesson[]): void {
  if (hasGit()) return;
  for (const l of lessons) {
    if (existsSync(snapshotDir(l)) || !existsSync(exerciseDir(l))) continue;
    try {
      cpSync(exerciseDir(l), snapshotDir(l), { recursive: true });
    } catch {
      rmSync(snapshotDir(l), { recursive: true, force: true });
    }
  }
}

export function pristine(lesson: Lesson, ref = "HEAD"): Pristine | undefined {
  if (hasGit()) {
    const files = fromGit(lesson, ref);
    if (files) return { files, source: `git ${ref}` };
    if (ref !== "HEAD") return undefined;
  }
  const files = fromSnapshot(lesson);
  return files ? { files, source: ".course/pristine" } : undefined;
}

/** Does lessons/<dir> hold exactly the pristine files? */
export function isPristine(lesson: Lesson, p: Pristine | undefined = pristine(lesson)): boolean | undefined {
  if (!p) return undefined;
  const dir = exerciseDir(lesson);
  const now = filesUnder(dir);
  if (now.length !== p.files.size) return false;
  return now.every((f) => {
    const want = p.files.get(f);
    return want !== undefined && readFileSync(join(dir, f)).equals(want);
  });
}

/** Writes the pristine files back into lessons/<dir>, removing files that are not in it. */
export function restore(lesson: Lesson, p: Pristine): { written: string[]; removed: string[] } {
  const dir = exerciseDir(lesson);
  const removed = filesUnder(dir).filter((f) => !p.files.has(f));
  for (const f of removed) rmSync(join(dir, f), { force: true });
  const written: string[] = [];
  for (const [f, bytes] of p.files) {
    const path = join(dir, f);
    mkdirSync(dirname(path), { recursive: true });
    if (!existsSync(path) || !readFileSync(path).equals(bytes)) {
      writeFileSync(path, bytes);
      written.push(f);
    }
  }
  return { written, removed };
}

/**
 * Is each lesson's folder pristine? The same answer as isPristine() for every lesson, in two git
 * commands in a clone (`git status` of lessons/ against HEAD, untracked files included) instead of
 * a `git show` per file: `npm run list` stays fast. Without git, the snapshot comparison.
 */
export function pristineStates(lessons: Lesson[]): Map<string, boolean | undefined> {
  const out = new Map<string, boolean | undefined>();
  if (hasGit()) {
    const atHead = git(["ls-tree", "-z", "--name-only", "HEAD", "--", "lessons/"]);
    const status = git(["status", "--porcelain=v1", "-z", "--untracked-files=all", "--", "lessons/"]);
    if (atHead.ok && status.ok) {
      const committed = new Set(atHead.out.toString().split("\0").filter(Boolean));
      const changed = new Set<string>();
      for (const entry of status.out.toString().split("\0")) {
        const m = /(?:^|\s)lessons\/([^/]+)\//.exec(entry);
        if (m) changed.add(m[1]!);
      }
      for (const l of lessons)
        out.set(l.id, committed.has(`lessons/${l.dir}`) ? existsSync(exerciseDir(l)) && !changed.has(l.dir) : isPristine(l));
      return out;
    }
  }
  for (const l of lessons) out.set(l.id, isPristine(l));
  return out;
}
