/**
 * The course command line. One entry point, several commands, all driven by runtime/manifest.ts:
 *
 *   npm run lesson sNN [-- --solution] [task…]   run the exercise (or the reference)
 *   npm run check [sNN] [-- --verbose]           grade your exercise; no id: the current lesson
 *   npm run watch                                check on every save, move on when it passes; keys h r l c q
 *   npm run hint [sNN] [-- --more]               a hint as guiding questions; again (or --more): a stronger one
 *   npm run reset sNN [-- --yes]                 put the exercise back as it was, byte for byte; your
 *                                                files go to .course/backups/ first
 *   npm run reset sNN -- --undo                  bring back the files the last reset replaced
 *   npm run list                                 every lesson and its state, from the checks
 *   npm run solution sNN [-- --full]             the reference: what it adds to the exercise (or all of it)
 *   npm run verify [-- sNN…]                     every pristine exercise fails, every solution passes (CI)
 *
 * Every mistake a learner can make here (an unknown id, a deleted folder, a file that does not
 * parse, an unknown flag) gets a short message and a non-zero exit, never a stack trace. Flags
 * are strict (scripts/lib/args.ts): a flag a command does not take is an error, exit 2.
 */
import { spawn, spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, realpathSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { createInterface } from "node:readline/promises";
import { LESSONS, findLesson, type Lesson } from "../runtime/manifest.ts";
import { REGISTRATION_FILE } from "../runtime/registrations.ts";
import { bold, cyan, dim, green, red, yellow } from "../runtime/print.ts";
import { inEvery, lessonTitle, word } from "../runtime/words.ts";
import { ROOT, exerciseDir, filesUnder, solutionDir, testFileRel } from "./lib/paths.ts";
import { isPristine, pristine, restore, takeSnapshots } from "./lib/pristine.ts";
import { HelpRequested, UsageError, mistakeLine, npmSwallowed, strictArgs, usageLine } from "./lib/args.ts";
import { gradingEnv } from "./lib/grading-env.ts";
import { backUp, backups, bringBack, drop, matches } from "./lib/backups.ts";
import type { Grade } from "./lib/grade.ts";
import { checkLesson, currentLesson, statuses } from "./lib/progress.ts";
import { cachedGrade, cachedResult, loadState, updateState } from "./lib/state.ts";
import { checkReport, hintLines, listLines } from "./lib/views.ts";
// What only one command needs (the TypeScript parser, diff, watch, mutants) is imported by that
// command: `npm run list` and `hint` start faster without them.

/** A learner's code may loop forever; a check gives up after this long (COURSE_CHECK_TIMEOUT_MS). */
const checkTimeoutMs = () => Number(process.env.COURSE_CHECK_TIMEOUT_MS) || 180_000;

function lessonOrFail(key: string | undefined, command: string): Lesson {
  if (!key) throw new UsageError(word("usage.which", { command }));
  const lesson = findLesson(key);
  if (!lesson) throw new UsageError(word("usage.unknown", { key, ids: LESSONS.map((l) => l.id).join(", ") }));
  return lesson;
}

function folderOrFail(lesson: Lesson): void {
  if (!existsSync(exerciseDir(lesson)))
    throw new UsageError(word("usage.folder-missing", { dir: lesson.dir, id: lesson.id }));
}

const print = (lines: string[]) => {
  for (const l of lines) console.log(l);
};

// ── lesson ──────────────────────────────────────────────────────────────────────────────────

/** The usage of `npm run lesson`, its note in the learner's language. */
const lessonUsage = () => ({ command: "npm run lesson", usage: `sNN [-- --solution] [task…] ${word("lesson.usage-note")}` });

async function cmdLesson(args: string[]): Promise<number> {
  // The words and flags after the id are the lesson script's own (a task, s12's --yes…): they
  // are passed on, and the script refuses what it does not take. The id comes first.
  const swallowed = npmSwallowed();
  if (swallowed.length > 0) throw new UsageError(mistakeLine(lessonUsage(), word("lesson.npm-kept", { flags: swallowed.join(", ") })));
  const solution = args.includes("--solution");
  const rest = args.filter((a) => a !== "--solution");
  if (rest[0] === "--help" || rest[0] === "-h") throw new HelpRequested(usageLine(lessonUsage()));
  if (rest[0]?.startsWith("-")) throw new UsageError(mistakeLine(lessonUsage(), word("lesson.id-first", { arg: rest[0] })));
  const lesson = lessonOrFail(rest[0], "lesson");
  const tree = solution ? "solutions" : "lessons";
  const file = join(tree, lesson.dir, lesson.entry);
  if (!existsSync(join(ROOT, file)))
    throw new UsageError(solution ? word("lesson.solution-missing", { file }) : word("lesson.exercise-missing", { file, id: lesson.id }));
  const { firstSyntaxError } = await import("./lib/syntax.ts");
  const broken = firstSyntaxError(join(ROOT, tree, lesson.dir), ROOT);
  if (broken) {
    console.error(red(word("lesson.no-parse", { folder: `${tree}/${lesson.dir}`, error: broken })));
    return 1;
  }
  const r = spawnSync(process.execPath, ["--import", "tsx", join(ROOT, file), ...rest.slice(1)], { stdio: "inherit", cwd: process.cwd() });
  return r.status ?? 1;
}

// ── check ───────────────────────────────────────────────────────────────────────────────────

async function cmdCheck(argv: string[]): Promise<number> {
  const { positionals: positional, values } = strictArgs(
    { command: "npm run check", usage: "[sNN] [-- --verbose]", options: { verbose: { type: "boolean" } }, positionals: { max: 1 } },
    argv,
  );
  const verbose = values.verbose === true;
  // `npm run check s01 --verbose` (no `--`): npm takes --verbose as its own log level.
  if (!verbose && process.env.npm_lifecycle_event && process.env.npm_config_loglevel === "verbose")
    console.log(dim(word("check.npm-verbose")));
  const opts = { timeoutMs: checkTimeoutMs() };
  // The verdict first; with --verbose the runner's whole output follows it.
  const report = (lesson: Lesson, grade: Grade) => {
    print(checkReport(lesson, grade));
    if (verbose) {
      console.log(bold(`\n${word("check.runner-output")}`));
      process.stdout.write(grade.output.replace(/^JSON report written to .*\n?/m, ""));
    }
  };
  if (positional[0]) {
    const lesson = lessonOrFail(positional[0], "check");
    folderOrFail(lesson);
    console.log(dim(inEvery({ en: `Checking lessons/${lesson.dir} …`, zh: `正在检查 lessons/${lesson.dir} ……`, ja: `lessons/${lesson.dir} をチェックしています…`, ru: `Проверяю lessons/${lesson.dir} …` })));
    const grade = await checkLesson(lesson, opts);
    report(lesson, grade);
    return grade.ok ? 0 : 1;
  }
  console.log(dim(inEvery({ en: "Finding your current lesson (the first one whose check does not pass) …", zh: "正在找你当前的课（第一个检查没有通过的课）……", ja: "現在のレッスン（チェックに通らない最初のレッスン）を探しています…", ru: "Ищу ваш текущий урок (первый, чья проверка не проходит) …" })));
  const current = await currentLesson(LESSONS, opts);
  if (!current) {
    console.log(green(word("check.all-pass", { n: LESSONS.length })));
    return 0;
  }
  folderOrFail(current.lesson);
  console.log(bold(word("check.current", { id: current.lesson.id, title: lessonTitle(current.lesson) })));
  const grade = current.grade ?? (await checkLesson(current.lesson, opts));
  report(current.lesson, grade);
  return grade.ok ? 0 : 1;
}

// ── hint ────────────────────────────────────────────────────────────────────────────────────

async function cmdHint(argv: string[]): Promise<number> {
  const { positionals: positional, values } = strictArgs(
    { command: "npm run hint", usage: "[sNN] [-- --more]", options: { more: { type: "boolean" } }, positionals: { max: 1 } },
    argv,
  );
  const lesson = positional[0] ? lessonOrFail(positional[0], "hint") : (await currentLesson(LESSONS, { run: false }))?.lesson;
  if (!lesson) {
    console.log(green(word("hint.none-needed")));
    return 0;
  }
  const seen = loadState().hints[lesson.id] ?? 0;
  const level: 1 | 2 = values.more === true || seen >= 1 ? 2 : 1;
  updateState((s) => {
    s.hints[lesson.id] = Math.max(level, s.hints[lesson.id] ?? 0);
  });
  print(hintLines(lesson, level));
  return 0;
}

// ── reset ───────────────────────────────────────────────────────────────────────────────────

async function confirm(question: string): Promise<boolean> {
  const rl = createInterface({ input: process.stdin, output: process.stdout });
  try {
    const answer = await rl.question(question);
    return /^y(es)?$/i.test(answer.trim());
  } finally {
    rl.close();
  }
}

const RESET_USAGE = { command: "npm run reset", usage: "sNN [-- --yes] [-- --ref REF] | sNN -- --undo" };

async function cmdReset(argv: string[]): Promise<number> {
  const { positionals, values } = strictArgs(
    { ...RESET_USAGE, options: { yes: { type: "boolean" }, undo: { type: "boolean" }, ref: { type: "string" } }, positionals: { max: 1 } },
    argv,
  );
  const lesson = lessonOrFail(positionals[0], "reset");
  if (values.undo) {
    if (values.ref !== undefined) throw new UsageError(mistakeLine(RESET_USAGE, word("reset.undo-ref")));
    return undoReset(lesson);
  }
  const ref = values.ref ?? "HEAD";
  const p = pristine(lesson, ref);
  if (!p)
    throw new UsageError(
      ref === "HEAD"
        ? word("reset.no-pristine", { dir: lesson.dir })
        : word("reset.no-ref", { dir: lesson.dir, ref }),
    );
  if (existsSync(exerciseDir(lesson)) && isPristine(lesson, p)) {
    console.log(green(word("reset.already", { dir: lesson.dir })));
    return 0;
  }
  if (!values.yes) {
    if (!process.stdin.isTTY)
      throw new UsageError(word("reset.not-tty", { dir: lesson.dir, id: lesson.id }));
    const ok = await confirm(yellow(word("reset.ask", { dir: lesson.dir, source: p.source })));
    if (!ok) {
      console.log(word("reset.nothing-changed"));
      return 1;
    }
  }
  const kept = backUp(lesson);
  const { written, removed } = restore(lesson, p);
  console.log(green(word("reset.done", { dir: lesson.dir, source: p.source })));
  for (const f of written) console.log(dim(word("reset.restored", { file: f })));
  for (const f of removed) console.log(dim(word("reset.removed", { file: f })));
  if (kept) console.log(word("reset.kept", { backup: kept.rel, id: lesson.id }));
  return 0;
}

/** Brings back the last backup of the lesson; what it replaces is kept as a backup in turn. */
function undoReset(lesson: Lesson): number {
  const all = backups(lesson);
  const last = all[all.length - 1];
  if (!last) {
    console.error(red(word("undo.none", { dir: lesson.dir })));
    return 1;
  }
  if (existsSync(exerciseDir(lesson)) && matches(lesson, last)) {
    console.log(green(word("undo.already", { dir: lesson.dir, backup: last.rel })));
    return 0;
  }
  // The files there now (unless they are the pristine exercise) are kept too: an undo loses nothing.
  const replaced = existsSync(exerciseDir(lesson)) && isPristine(lesson) !== true ? backUp(lesson) : undefined;
  const { written, removed } = bringBack(lesson, last);
  drop(last);
  console.log(green(word("undo.done", { dir: lesson.dir, at: last.at, backup: last.rel })));
  for (const f of written) console.log(dim(word("reset.restored", { file: f })));
  for (const f of removed) console.log(dim(word("reset.removed", { file: f })));
  if (replaced) console.log(word("undo.replaced", { backup: replaced.rel, id: lesson.id }));
  return 0;
}

// ── list ────────────────────────────────────────────────────────────────────────────────────

async function cmdList(argv: string[]): Promise<number> {
  strictArgs({ command: "npm run list", usage: "", options: {} }, argv);
  // Only the lessons changed since their last check are checked (an untouched exercise is "not
  // started" without a run), all of them at once in one test runner.
  const onCheck = (stale: Lesson[]) =>
    console.log(dim(word(stale.length === 1 ? "list.checking-one" : "list.checking-many", { ids: stale.map((l) => l.id).join(", ") })));
  print(listLines(await statuses(LESSONS, { timeoutMs: checkTimeoutMs(), onCheck })));
  return 0;
}

// ── solution ────────────────────────────────────────────────────────────────────────────────

function colorPatch(patch: string): string {
  return patch
    .split("\n")
    .map((l) => (l.startsWith("+++") || l.startsWith("---") ? bold(l) : l.startsWith("+") ? green(l) : l.startsWith("-") ? red(l) : l.startsWith("@@") ? cyan(l) : l))
    .join("\n");
}

async function cmdSolution(argv: string[]): Promise<number> {
  const { positionals: positional, values } = strictArgs(
    { command: "npm run solution", usage: "sNN [-- --full | --mine]", options: { full: { type: "boolean" }, mine: { type: "boolean" } }, positionals: { max: 1 } },
    argv,
  );
  const flags = new Set(Object.entries(values).filter(([, v]) => v === true).map(([k]) => k));
  const lesson = lessonOrFail(positional[0], "solution");
  const sol = solutionDir(lesson);
  const files = filesUnder(sol);
  if (files.length === 0) throw new UsageError(word("solution.missing", { dir: lesson.dir }));
  console.log(bold(word("solution.header", { id: lesson.id, title: lessonTitle(lesson) })));
  if (flags.has("full")) {
    for (const f of files) {
      console.log(bold(`\n── solutions/${lesson.dir}/${f} ──`));
      console.log(readFileSync(join(sol, f), "utf8"));
    }
    return 0;
  }
  // The diff from the pristine exercise shows what the lesson asks for; `--mine` from your file.
  const p = flags.has("mine") ? undefined : pristine(lesson);
  console.log(dim(`${word(p ? "solution.adds-given" : "solution.adds-mine")}\n`));
  const { createTwoFilesPatch } = await import("diff");
  const exFiles = new Set([...(p ? p.files.keys() : filesUnder(exerciseDir(lesson))), ...files]);
  for (const f of [...exFiles].sort()) {
    const mine = join(exerciseDir(lesson), f);
    const before = p ? (p.files.get(f)?.toString("utf8") ?? "") : existsSync(mine) ? readFileSync(mine, "utf8") : "";
    const after = existsSync(join(sol, f)) ? readFileSync(join(sol, f), "utf8") : "";
    if (before === after) continue;
    console.log(colorPatch(createTwoFilesPatch(`lessons/${lesson.dir}/${f}`, `solutions/${lesson.dir}/${f}`, before, after, "", "", { context: 3 })));
  }
  return 0;
}

// ── watch ───────────────────────────────────────────────────────────────────────────────────

async function cmdWatch(argv: string[]): Promise<number> {
  strictArgs({ command: "npm run watch", usage: "", options: {} }, argv);
  const { WatchSession, attachTerminal } = await import("./lib/watch.ts");
  // The test runner, kept warm between saves: a save re-runs only that lesson's test file.
  const { WarmRunner } = await import("./lib/warm-runner.ts");
  const warm = new WarmRunner();
  const isDone = (lesson: Lesson) => existsSync(exerciseDir(lesson)) && cachedResult(loadState(), lesson) === true;
  // The type checker parses the libraries on the lesson the session starts with.
  const first = LESSONS.find((l) => !isDone(l));
  warm.start(first && existsSync(exerciseDir(first)) ? exerciseDir(first) : undefined);
  const session = new WatchSession({
    lessons: () => LESSONS,
    check: (lesson, signal) => checkLesson(lesson, { signal, timeoutMs: checkTimeoutMs(), warm }),
    isDone,
    cached: (lesson) => (existsSync(exerciseDir(lesson)) ? cachedGrade(loadState(), lesson) : undefined),
    report: (lesson, grade) => checkReport(lesson, grade, { watch: true }),
    hint: (lesson, level) => hintLines(lesson, level, { watch: true }),
    // Instant: what the checks run so far say (a lesson never checked counts as not done).
    list: async () => [...listLines(await statuses(LESSONS, { run: false })), dim(word("list.so-far"))],
    runLesson: (lesson) =>
      new Promise<void>((resolve) => {
        const file = join(ROOT, "lessons", lesson.dir, lesson.entry);
        if (!existsSync(file)) {
          console.log(red(word("watch.script-missing", { dir: lesson.dir, entry: lesson.entry, id: lesson.id })));
          return resolve();
        }
        console.log(bold(`\n── npm run lesson ${lesson.id} ──`));
        terminal.pauseKeys();
        const child = spawn(process.execPath, ["--import", "tsx", file], { stdio: "inherit", cwd: ROOT });
        const done = () => {
          terminal.resumeKeys();
          resolve();
        };
        child.on("close", done);
        child.on("error", done);
      }),
    print: (line) => console.log(line),
  });
  console.log(bold("npm run watch") + dim(word("watch.banner")));
  const terminal = attachTerminal(session, { lessonsDir: join(ROOT, "lessons") });
  process.on("SIGINT", () => session.quit());
  await session.start();
  await session.finished;
  terminal.close();
  return 0;
}

// ── verify ──────────────────────────────────────────────────────────────────────────────────

/** Runs lessons' tests on a tree without blocking (several side by side); whether they passed and the runner's output. Their own folder (gradingEnv) is removed when they end. */
export function runTestsAsync(lessons: Lesson[], tree: "lessons" | "solutions", extraArgs: string[] = []): Promise<{ ok: boolean; output: string }> {
  const runDir = mkdtempSync(join(tmpdir(), "course-verify-"));
  return new Promise<{ ok: boolean; output: string }>((done) => {
    const child = spawn(process.execPath, [join(ROOT, "node_modules/vitest/vitest.mjs"), "run", ...lessons.map(testFileRel), ...extraArgs], {
      cwd: ROOT,
      env: gradingEnv(tree, runDir, { FORCE_COLOR: "0" }),
      stdio: ["ignore", "pipe", "pipe"],
    });
    let output = "";
    child.stdout.on("data", (d: Buffer) => void (output += d.toString()));
    child.stderr.on("data", (d: Buffer) => void (output += d.toString()));
    child.on("error", (e) => done({ ok: false, output: `${output}\n${e.message}` }));
    child.on("close", (code) => done({ ok: code === 0, output }));
  }).finally(() => rmSync(runDir, { recursive: true, force: true }));
}

/** Maps items, `width` at a time; the results in the items' order. */
async function inParallel<T, R>(items: readonly T[], width: number, work: (item: T) => Promise<R>): Promise<R[]> {
  const results: R[] = new Array(items.length);
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const i = next++;
      results[i] = await work(items[i]!);
    }
  };
  await Promise.all(Array.from({ length: Math.min(width, items.length) }, worker));
  return results;
}

async function cmdVerify(argv: string[]): Promise<number> {
  const { positionals, values } = strictArgs(
    { command: "npm run verify", usage: "[-- [--sample] [--no-solutions] sNN…]", options: { sample: { type: "boolean" }, "no-solutions": { type: "boolean" } }, positionals: { max: LESSONS.length } },
    argv,
  );
  const lessons = positionals.length > 0 ? positionals.map((k) => lessonOrFail(k, "verify")) : LESSONS;
  const problems: string[] = [];
  // Every piece the contributing guide asks for (scripts/lib/checklist.ts; `npm run new-lesson -- sNN` shows the list).
  const { checklistProblems } = await import("./lib/checklist.ts");
  for (const l of lessons) problems.push(...checklistProblems(l));
  // Every page and rule in every language of the site, no translation behind its English page (npm run docs:sync).
  const { syncProblems } = await import("./docs/i18n-sync.ts");
  problems.push(...(await syncProblems(ROOT, lessons === LESSONS ? undefined : lessons.map((l) => l.dir))).map((p) => `translations: ${p}`));
  for (const l of lessons) {
    const ex = join(ROOT, "lessons", l.dir);
    const sol = join(ROOT, "solutions", l.dir);
    if (!existsSync(join(ex, l.entry))) problems.push(`${l.id}: lessons/${l.dir}/${l.entry} is missing`);
    if (!existsSync(join(sol, l.entry))) problems.push(`${l.id}: solutions/${l.dir}/${l.entry} is missing`);
    if (!existsSync(join(ROOT, testFileRel(l)))) problems.push(`${l.id}: ${testFileRel(l)} is missing`);
    // A lesson's course.json (its registration) is the solution's alone: the learner has nothing to write there.
    const exFiles = filesUnder(ex).filter((f) => f !== REGISTRATION_FILE);
    const solFiles = filesUnder(sol).filter((f) => f !== REGISTRATION_FILE);
    if (exFiles.join() !== solFiles.join())
      problems.push(`${l.id}: lessons/ and solutions/ do not have the same files (${exFiles.join(", ")} vs ${solFiles.join(", ")})`);
    const exText = exFiles.map((f) => readFileSync(join(ex, f), "utf8")).join("\n");
    const solText = solFiles.map((f) => readFileSync(join(sol, f), "utf8")).join("\n");
    if (!/\/\/ TODO:/.test(exText)) problems.push(`${l.id}: the exercise has no // TODO: marker`);
    if (/\/\/ TODO:|\btodo\(/.test(solText)) problems.push(`${l.id}: the solution still has a TODO`);
  }
  // Two lessons at a time (most of a test run is waiting on child processes); printed in order.
  // --no-solutions (test:all --no-learner, as CI runs it right after npm test): the solutions'
  // runs are npm test's lesson files exactly, so they are not run a second time here.
  const solutions = !values["no-solutions"];
  if (!solutions) console.log(dim("verify --no-solutions: every solution passes its tests in npm test (the learner suite), run just before; here the exercises"));
  const runs = await inParallel(lessons, 2, async (l) => [solutions ? await runTestsAsync([l], "solutions") : undefined, await runTestsAsync([l], "lessons")] as const);
  for (const [i, l] of lessons.entries()) {
    const [sol, ex] = runs[i]!;
    const line = `${l.id.padEnd(4)} ${sol ? `solution ${sol.ok ? green("passes") : red("FAILS")}   ` : ""}exercise ${ex.ok ? red("PASSES") : green("fails")}`;
    console.log(line);
    if (sol && !sol.ok) problems.push(`${l.id}: the solution fails its tests:\n${sol.output.slice(-3000)}`);
    if (ex.ok) problems.push(`${l.id}: the pristine exercise passes its tests (they cannot tell a solved lesson from an unsolved one)`);
  }
  // Mutants (patches in tests/mutants/) must fail with their rule leading; alternatives
  // (tests/alternatives/) are valid loops that must pass. See scripts/lib/mutants.ts.
  const { findPatches, runMutants } = await import("./lib/mutants.ts");
  const found = [findPatches(lessons, "mutant"), findPatches(lessons, "alternative")];
  for (const f of found) problems.push(...f.problems);
  // Every TODO region has mutants, each graded by the lesson that hands it out (scripts/lib/regions.ts).
  const { checkMap, verifySummary } = await import("./lib/regions.ts");
  const map = checkMap(lessons, found[0]!.mutants);
  problems.push(...map.problems);
  // --sample (CI): every check but the patches, which are graded on a fixed sample: the first
  // mutant of each TODO region and the first alternative of each lesson (scripts/lib/regions.ts).
  const { sampleOf } = await import("./lib/regions.ts");
  const patches = found.flatMap((f) => f.mutants);
  const chosen = values.sample ? sampleOf(map.maps, patches) : patches;
  if (values.sample) console.log(dim(`verify --sample: ${chosen.length} of ${patches.length} patches (the first mutant of each TODO region, the first alternative of each lesson); npm run verify grades them all`));
  const graded = await runMutants(chosen, (r) =>
    console.log(`${r.mutant.lesson.id} ${r.mutant.kind} ${r.mutant.name}: ${r.caught ? green(r.mutant.kind === "mutant" ? "caught" : "passes") : red("WRONG")} (${r.detail})`),
  );
  console.log("");
  for (const line of verifySummary(map.maps, graded)) console.log(line);
  for (const r of graded.filter((g) => !g.caught))
    problems.push(`${r.mutant.lesson.id} ${r.mutant.kind} ${r.mutant.name} (${r.mutant.file}): ${r.detail}\n${r.output.slice(0, 2000)}`);
  if (problems.length > 0) {
    console.error(red(`\nverify: ${problems.length} problem(s)`));
    for (const p of problems) console.error(`  - ${p}`);
    return 1;
  }
  console.log(green(`verify${values.sample ? " --sample" : ""}: ${lessons === LESSONS ? "all " : ""}${lessons.length} lesson(s) ok (exercises fail, ${solutions ? "solutions pass" : "solutions left to npm test"}, ${graded.filter((g) => g.mutant.kind === "mutant").length} mutants caught, ${graded.filter((g) => g.mutant.kind === "alternative").length} alternatives pass)`));
  return 0;
}

// ── main ────────────────────────────────────────────────────────────────────────────────────

const commands: Record<string, (args: string[]) => number | Promise<number>> = {
  lesson: cmdLesson,
  check: cmdCheck,
  watch: cmdWatch,
  hint: cmdHint,
  reset: cmdReset,
  list: cmdList,
  solution: cmdSolution,
  verify: cmdVerify,
};

/** Runs one course command (`["check", "s01", "--verbose"]`); returns its exit code. Never throws. */
export async function runCourse(argv: string[]): Promise<number> {
  const [command, ...args] = argv;
  const run = command ? commands[command] : undefined;
  if (!run) {
    console.error(`usage: tsx scripts/course.ts <${Object.keys(commands).join("|")}> [lesson] (got "${command ?? ""}")`);
    return 2;
  }
  try {
    takeSnapshots(LESSONS);
    return await run(args);
  } catch (e) {
    if (e instanceof HelpRequested) {
      console.log(e.message);
      return 0;
    }
    if (e instanceof UsageError) {
      console.error(red(e.message));
      return 2;
    }
    // A raw Node error (a process past its time limit, a program missing) is said in words (scripts/lib/failure.ts).
    const { failureWords } = await import("./lib/failure.ts");
    console.error(red(failureWords(`npm run ${command}`, e)));
    if (process.env.DEBUG) console.error(e);
    else console.error(dim(word("run.debug")));
    return 1;
  }
}

/** Is this file the program being run (not a module a test imported)? */
function isEntry(): boolean {
  if (!process.argv[1]) return false;
  try {
    return realpathSync(process.argv[1]) === realpathSync(fileURLToPath(import.meta.url));
  } catch {
    return false;
  }
}

if (isEntry()) {
  // `npm run solution s01 | head` closes the pipe early: that is not an error.
  process.stdout.on("error", (e: NodeJS.ErrnoException) => {
    if (e.code === "EPIPE") process.exit(0);
  });
  runCourse(process.argv.slice(2)).then(
    (code) => {
      process.exitCode = code;
      // Watch mode leaves stdin and fs watchers behind; the commands are done, so end here.
      if (process.argv[2] === "watch") process.exit(code);
    },
    () => process.exit(1),
  );
}
