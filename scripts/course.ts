/**
 * The course command line. One entry point, several commands:
 *
 *   npm run lesson sNN [-- --solution] [task…]   run the exercise (or the reference)
 *   npm run check [sNN]                          grade your exercise in lessons/
 *   npm run verify                               every pristine exercise fails, every solution passes
 *
 * Every mistake a learner can make here (an unknown id, a deleted folder) gets a short message
 * and a non-zero exit, never a stack trace.
 */
import { spawnSync } from "node:child_process";
import { existsSync, readFileSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { LESSONS, findLesson, type Lesson } from "../runtime/manifest.ts";
import { bold, green, red, yellow } from "../runtime/print.ts";
import { ROOT } from "../runtime/testing.ts";

class UsageError extends Error {}

function lessonOrFail(key: string | undefined, command: string): Lesson {
  if (!key) throw new UsageError(`which lesson? e.g. \`npm run ${command} s01\` (\`npm run list\` shows them all)`);
  const lesson = findLesson(key);
  if (!lesson) throw new UsageError(`no lesson "${key}": the lessons are ${LESSONS.map((l) => l.id).join(", ")}`);
  return lesson;
}

function testFile(lesson: Lesson): string {
  return join("tests", `${lesson.dir}.test.ts`);
}

/** Runs one lesson's tests on a tree; returns whether they passed and the runner's output. */
export function runTests(lessons: Lesson[], tree: "lessons" | "solutions", extra: string[] = []) {
  const r = spawnSync(
    process.execPath,
    [join(ROOT, "node_modules/vitest/vitest.mjs"), "run", ...lessons.map(testFile), ...extra],
    { cwd: ROOT, env: { ...process.env, COURSE_TREE: tree, FORCE_COLOR: process.stdout.isTTY ? "1" : "0" }, encoding: "utf8" },
  );
  return { ok: r.status === 0, output: `${r.stdout ?? ""}${r.stderr ?? ""}` };
}

function cmdLesson(args: string[]): number {
  const solution = args.includes("--solution");
  const rest = args.filter((a) => a !== "--solution");
  const lesson = lessonOrFail(rest[0], "lesson");
  const tree = solution ? "solutions" : "lessons";
  const file = join(tree, lesson.dir, lesson.entry);
  if (!existsSync(join(ROOT, file))) throw new UsageError(`${file} is missing. Restore the exercise with \`npm run reset ${lesson.id}\`.`);
  const r = spawnSync(process.execPath, ["--import", "tsx", join(ROOT, file), ...rest.slice(1)], { stdio: "inherit", cwd: process.cwd() });
  return r.status ?? 1;
}

function cmdCheck(args: string[]): number {
  const lesson = args[0] ? lessonOrFail(args[0], "check") : LESSONS[0]!;
  if (!existsSync(join(ROOT, "lessons", lesson.dir)))
    throw new UsageError(`lessons/${lesson.dir} is missing. Restore it with \`npm run reset ${lesson.id}\`.`);
  console.log(bold(`Checking lessons/${lesson.dir} …`));
  const { ok, output } = runTests([lesson], "lessons");
  process.stdout.write(output);
  console.log(ok ? green(`✓ ${lesson.id} passes. On to the next lesson!`) : yellow(`✗ ${lesson.id} is not done yet. \`npm run hint ${lesson.id}\` may help.`));
  return ok ? 0 : 1;
}

function filesUnder(dir: string): string[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((d) => d.isFile())
    .map((d) => join(d.parentPath, d.name).slice(dir.length + 1))
    .sort();
}

function cmdVerify(): number {
  const problems: string[] = [];
  for (const l of LESSONS) {
    const ex = join(ROOT, "lessons", l.dir);
    const sol = join(ROOT, "solutions", l.dir);
    if (!existsSync(join(ex, l.entry))) problems.push(`${l.id}: lessons/${l.dir}/${l.entry} is missing`);
    if (!existsSync(join(sol, l.entry))) problems.push(`${l.id}: solutions/${l.dir}/${l.entry} is missing`);
    if (!existsSync(join(ROOT, testFile(l)))) problems.push(`${l.id}: ${testFile(l)} is missing`);
    const exFiles = filesUnder(ex);
    const solFiles = filesUnder(sol);
    if (exFiles.join() !== solFiles.join())
      problems.push(`${l.id}: lessons/ and solutions/ do not have the same files (${exFiles.join(", ")} vs ${solFiles.join(", ")})`);
    const exText = exFiles.map((f) => readFileSync(join(ex, f), "utf8")).join("\n");
    const solText = solFiles.map((f) => readFileSync(join(sol, f), "utf8")).join("\n");
    if (!/\/\/ TODO:/.test(exText)) problems.push(`${l.id}: the exercise has no // TODO: marker`);
    if (/\/\/ TODO:|\btodo\(/.test(solText)) problems.push(`${l.id}: the solution still has a TODO`);
  }
  for (const l of LESSONS) {
    const sol = runTests([l], "solutions");
    const ex = runTests([l], "lessons");
    const line = `${l.id.padEnd(4)} solution ${sol.ok ? green("passes") : red("FAILS")}   exercise ${ex.ok ? red("PASSES") : green("fails")}`;
    console.log(line);
    if (!sol.ok) problems.push(`${l.id}: the solution fails its tests:\n${sol.output.slice(-3000)}`);
    if (ex.ok) problems.push(`${l.id}: the pristine exercise passes its tests (they cannot tell a solved lesson from an unsolved one)`);
  }
  if (problems.length > 0) {
    console.error(red(`\nverify: ${problems.length} problem(s)`));
    for (const p of problems) console.error(`  - ${p}`);
    return 1;
  }
  console.log(green(`verify: all ${LESSONS.length} lessons ok (exercises fail, solutions pass)`));
  return 0;
}

const commands: Record<string, (args: string[]) => number> = {
  lesson: cmdLesson,
  check: cmdCheck,
  verify: cmdVerify,
};

function main(): number {
  const [command, ...args] = process.argv.slice(2);
  const run = command ? commands[command] : undefined;
  if (!run) {
    console.error(`usage: tsx scripts/course.ts <${Object.keys(commands).join("|")}> [lesson] (got "${command ?? ""}")`);
    return 2;
  }
  try {
    return run(args);
  } catch (e) {
    if (e instanceof UsageError) {
      console.error(red(e.message));
      return 2;
    }
    throw e;
  }
}

process.exitCode = main();
