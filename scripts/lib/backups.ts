/**
 * Nothing of the learner's is lost: before a course command replaces files under lessons/<dir>/,
 * the folder as it is goes to .course/backups/<id>-<time>/ (every file, byte for byte), and
 * `npm run reset sNN -- --undo` brings the last one back.
 *
 *   .course/backups/s03-2026-12-01T07-10-03.123Z/agent.ts   the files, as under lessons/<dir>/
 *
 * Backups are never deleted by the course, except the one `--undo` has just put back.
 */
import { cpSync, existsSync, mkdirSync, readFileSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { dirname, join, relative } from "node:path";
import type { Lesson } from "../../runtime/manifest.ts";
import { ROOT, STATE_DIR, exerciseDir, filesUnder } from "./paths.ts";

export const BACKUP_DIR = join(STATE_DIR, "backups");

export interface Backup {
  /** The folder, e.g. /…/.course/backups/s03-2026-12-01T07-10-03.123Z */
  dir: string;
  /** The same, relative to the course root, for messages. */
  rel: string;
  /** When it was taken (ISO 8601), from its name. */
  at: string;
}

/** "2026-12-01T07:10:03.123Z" → "2026-12-01T07-10-03.123Z" (no ":" in file names, for Windows). */
const stamp = (d: Date) => d.toISOString().replaceAll(":", "-");
const unstamp = (s: string) => s.replace(/T(\d\d)-(\d\d)-(\d\d)/, "T$1:$2:$3");
const NAME = /^(.+)-(\d{4}-\d\d-\d\dT\d\d-\d\d-\d\d\.\d{3}Z)(?:-(\d+))?$/;

/** Does the folder hold anything worth keeping? */
export function hasFiles(lesson: Lesson): boolean {
  return filesUnder(exerciseDir(lesson)).length > 0;
}

/** Copies lessons/<dir>/ as it is now into a new backup; undefined when there is nothing to keep. */
export function backUp(lesson: Lesson, now = new Date()): Backup | undefined {
  const src = exerciseDir(lesson);
  const files = filesUnder(src);
  if (files.length === 0) return undefined;
  mkdirSync(BACKUP_DIR, { recursive: true });
  let name = `${lesson.id}-${stamp(now)}`;
  for (let n = 2; existsSync(join(BACKUP_DIR, name)); n++) name = `${lesson.id}-${stamp(now)}-${n}`;
  const dir = join(BACKUP_DIR, name);
  for (const f of files) {
    mkdirSync(dirname(join(dir, f)), { recursive: true });
    cpSync(join(src, f), join(dir, f));
  }
  return { dir, rel: relative(ROOT, dir), at: now.toISOString() };
}

/** The lesson's backups, oldest first. */
export function backups(lesson: Lesson): Backup[] {
  if (!existsSync(BACKUP_DIR)) return [];
  return readdirSync(BACKUP_DIR, { withFileTypes: true })
    .filter((d) => d.isDirectory())
    .map((d) => ({ d, m: NAME.exec(d.name) }))
    .filter(({ m }) => m?.[1] === lesson.id)
    .sort((a, b) => a.m![2]!.localeCompare(b.m![2]!) || Number(a.m![3] ?? 1) - Number(b.m![3] ?? 1))
    .map(({ d, m }) => ({ dir: join(BACKUP_DIR, d.name), rel: relative(ROOT, join(BACKUP_DIR, d.name)), at: unstamp(m![2]!) }));
}

/** Does lessons/<dir>/ hold exactly the files of the backup? */
export function matches(lesson: Lesson, backup: Backup): boolean {
  const now = filesUnder(exerciseDir(lesson));
  const kept = filesUnder(backup.dir);
  return now.join("\0") === kept.join("\0") && now.every((f) => readFileSync(join(exerciseDir(lesson), f)).equals(readFileSync(join(backup.dir, f))));
}

/** Writes the backup's files into lessons/<dir>/ exactly (files not in it are removed). */
export function bringBack(lesson: Lesson, backup: Backup): { written: string[]; removed: string[] } {
  const dir = exerciseDir(lesson);
  const kept = filesUnder(backup.dir);
  const removed = filesUnder(dir).filter((f) => !kept.includes(f));
  for (const f of removed) rmSync(join(dir, f), { force: true });
  const written: string[] = [];
  for (const f of kept) {
    const bytes = readFileSync(join(backup.dir, f));
    const path = join(dir, f);
    if (existsSync(path) && readFileSync(path).equals(bytes)) continue;
    mkdirSync(dirname(path), { recursive: true });
    writeFileSync(path, bytes);
    written.push(f);
  }
  return { written, removed };
}

/** Removes a backup once its files are back in lessons/. */
export function drop(backup: Backup): void {
  rmSync(backup.dir, { recursive: true, force: true });
}
