/**
 * A lesson's own registrations, kept in its folder: `solutions/sNN_slug/course.json`.
 *
 * From s18 on, a lesson does not edit the course's central lists. Its `course.json` holds its
 * manifest entry (title, idea, entry file, two hints), its tasks, its rules (English and Chinese,
 * with their stage) and its picture; the central lists read it:
 *
 *   runtime/manifest.ts           LESSONS gains the lesson, in id order
 *   runtime/tasks.ts              lessonTask(dir, name) returns its tasks
 *   runtime/rules.ts              RULES gains its rules (an id used twice is an error naming both files)
 *   runtime/scripted/scenarios/   index.ts loads runtime/scripted/scenarios/<dir>.ts, when there is one
 *   docs (diagrams, syllabus)     the picture comes from here when diagrams.ts has none
 *
 * The file is checked when the course starts (zod): a mistake is one line naming the file, the
 * field and what is wrong. `npm run new-lesson -- sNN --from sMM` writes a new lesson's files (this one
 * first); `npm run new-lesson -- sNN` lists what it still lacks.
 * Lessons s01–s17 were written before this file existed and are still listed in the central files.
 */
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { z } from "zod";

/** The folder of the course. */
const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "..");

/** The file a lesson registers itself with, in its solution's folder. */
export const REGISTRATION_FILE = "course.json";

const words = z.strictObject({ en: z.string().min(1), zh: z.string().min(1), ja: z.string().min(1).optional(), ru: z.string().min(1).optional() });
const sentence = z.strictObject({ what: z.string().min(1), fix: z.string().min(1) });

const Box = z.looseObject({ id: z.string().min(1), col: z.number().int().min(0), row: z.number().int().min(0), label: words });
const Arrow = z.looseObject({ from: z.string().min(1), to: z.string().min(1) });

export const RegistrationSchema = z.strictObject({
  lesson: z.strictObject({
    id: z.string().regex(/^s\d\d$/, 'an id like "s18"'),
    title: z.string().min(1),
    idea: z.string().min(1),
    entry: z.string().regex(/\.ts$/, "a .ts file of the folder"),
    hints: z.tuple([z.string().min(1), z.string().min(1)]),
  }),
  /**
   * The lesson this one builds on ("s22"): the page's "What changed since …" diffs against its
   * solution (default: the lesson before in id order). `npm run new-lesson -- sNN --from sMM` writes it.
   */
  base: z.string().regex(/^s\d\d$/, 'a lesson id like "s22"').optional(),
  /**
   * This lesson's program is the course's final agent: `npm run agent` (scripts/agent.ts) runs the
   * program file named here of the LAST lesson that names one, and the eval's `final` agent its loop.
   */
  agent: z.string().regex(/^[\w./-]+\.ts$/, 'the program file of the folder, like "program.ts"').optional(),
  /**
   * With "agent": the module whose runAgent the eval's `final` agent runs, when it is not the
   * lesson's entry (s27: its program's loop, as `npm run agent` runs it without flags).
   */
  loop: z.string().regex(/^[\w./-]+\.ts$/, 'a module of the folder that exports runAgent, like "program.ts"').optional(),
  /**
   * How many answers saying "done" one run of the lesson may go on after before the harness's net
   * calls it a runaway (runtime/net.ts DONE_ANSWERS, 5): a lesson whose loop sends the model back
   * on purpose (a goal loop, a Stop hook) raises it.
   */
  doneAnswers: z.number().int().min(1).max(100).optional(),
  /** Named tasks: "task" is the lesson's default task. */
  tasks: z.record(z.string().regex(/^[a-z][a-z0-9-]*$/), z.string().min(1)).default({}),
  rules: z.record(z.string().regex(/^[a-z][a-z0-9-]*$/, "a rule id in kebab-case"), z.strictObject({ stage: z.literal("lesson"), en: sentence, zh: sentence, ja: sentence.optional(), ru: sentence.optional() })).default({}),
  diagram: z.looseObject({ title: words, caption: words, cols: z.number().int().min(1), rows: z.number().int().min(1), boxes: z.array(Box).min(1), arrows: z.array(Arrow) }),
});

export type RegistrationData = z.infer<typeof RegistrationSchema>;

export interface Registration extends RegistrationData {
  /** The lesson's folder name: "s18_permissions". */
  dir: string;
  /** The registration file, relative to the course: for messages. */
  file: string;
}

/** A registration file that cannot be read: the file, the field, what is wrong. */
export class RegistrationError extends Error {
  override name = "RegistrationError";
}

function readOne(dir: string, path: string): Registration {
  const file = relative(ROOT, path);
  let raw: unknown;
  try {
    raw = JSON.parse(readFileSync(path, "utf8"));
  } catch (e) {
    throw new RegistrationError(`${file}: not valid JSON (${(e as Error).message}). Fix the file; see docs/guide/contributing.md.`);
  }
  const parsed = RegistrationSchema.safeParse(raw);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    throw new RegistrationError(`${file}: ${issue.path.join(".") || "(the file)"}: ${issue.message}. See docs/guide/contributing.md ("A lesson registers itself").`);
  }
  const id = /^(s\d\d)_/.exec(dir)?.[1];
  if (parsed.data.lesson.id !== id) throw new RegistrationError(`${file}: lesson.id is "${parsed.data.lesson.id}" but the folder is ${dir}: they must agree ("${id}").`);
  return { ...parsed.data, dir, file };
}

/** Every lesson folder under `root`/solutions with a course.json, in id order. */
export function readRegistrations(root = ROOT): Registration[] {
  const solutions = join(root, "solutions");
  if (!existsSync(solutions)) return [];
  return readdirSync(solutions, { withFileTypes: true })
    .filter((d) => d.isDirectory() && /^s\d\d_[a-z0-9_]+$/.test(d.name) && existsSync(join(solutions, d.name, REGISTRATION_FILE)))
    .map((d) => readOne(d.name, join(solutions, d.name, REGISTRATION_FILE)))
    .sort((a, b) => a.lesson.id.localeCompare(b.lesson.id));
}

let cached: Registration[] | undefined;
/** The course's registrations, read once. */
export function registrations(): Registration[] {
  cached ??= readRegistrations();
  return cached;
}

/** One lesson's registration, by folder name. */
export function registrationOf(dir: string): Registration | undefined {
  return registrations().find((r) => r.dir === dir);
}

/** The course's final agent: what `npm run agent` runs and the eval calls `final`. */
export interface FinalAgent {
  /** The lesson: "s22". */
  id: string;
  /** Its folder: "s22_background". */
  dir: string;
  /** Its program, relative to the course: "solutions/s22_background/program.ts" (exports run(argv, deps)). */
  program: string;
  /** Its loop's module, relative to the course: its course.json's "loop", else the lesson's entry (exports runAgent). */
  loop: string;
}

/**
 * The LAST lesson whose course.json names a program (`"agent": "program.ts"`): a new lesson
 * moves `npm run agent` to its own program with that one line of its own file, and nothing
 * else (package.json runs scripts/agent.ts, which asks this).
 */
export function finalAgent(regs: readonly Registration[] = registrations()): FinalAgent {
  const last = regs.filter((r) => r.agent !== undefined).at(-1);
  if (!last) throw new RegistrationError(`no lesson's course.json names the agent's program ("agent": "program.ts"): npm run agent has nothing to run.`);
  return { id: last.lesson.id, dir: last.dir, program: `solutions/${last.dir}/${last.agent}`, loop: `solutions/${last.dir}/${last.loop ?? last.lesson.entry}` };
}
