/**
 * Grading: runs the lessons' tests with vitest (in a child process, JSON reporter) and turns the
 * result into what a learner needs first: the first broken rule, in plain words, and what to do.
 *
 *   gradeLessons([lesson], "lessons")  → Map<id, Grade>
 *   explain(lesson, grade)             → the lines `npm run check` prints
 *
 * A child process keeps the command line alive whatever the learner's code does (a syntax
 * error, an endless loop, a crash): the worst case is a failed grade with a clear message.
 */
import { spawn } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, relative } from "node:path";
import { z } from "zod";
import type { Lesson } from "../../runtime/manifest.ts";
import { ROOT, exerciseDir, filesUnder, testFile, testFileRel } from "./paths.ts";

export type Tree = "lessons" | "solutions";

/** One failed test, already reduced to what matters. */
export interface Failure {
  /** "describe › test" */
  test: string;
  kind: "todo" | "api" | "transcript" | "assertion" | "error" | "load";
  /** The explanation, without the stack. */
  message: string;
  /** Where in the learner's file it happened ("lessons/s01_agent_loop/agent.ts:69"), when known. */
  where?: string;
  /** Where in the test file the expectation is, for assertion failures. */
  testLine?: string;
}

export interface Grade {
  ok: boolean;
  passed: number;
  total: number;
  failures: Failure[];
  /** The test runner's own output (shown with --verbose). */
  output: string;
}

const assertion = z.object({
  ancestorTitles: z.array(z.string()),
  title: z.string(),
  status: z.string(),
  failureMessages: z.array(z.string()).nullable().optional(),
});
const fileResult = z.object({
  name: z.string(),
  status: z.string(),
  message: z.string().optional(),
  assertionResults: z.array(assertion),
});
const report = z.object({ testResults: z.array(fileResult) });

// eslint-disable-next-line no-control-regex
const ANSI = /\x1b\[[0-9;]*m/g;
const stripAnsi = (s: string) => s.replace(ANSI, "");

export interface GradeOptions {
  /** Let the runner's own output through to our stdout as it comes (`--verbose`). */
  stream?: boolean;
  signal?: AbortSignal;
  /** Give up after this long (an endless loop in the learner's code). */
  timeoutMs?: number;
}

/** Runs the tests of `lessons` against one tree in ONE vitest process. */
export async function gradeLessons(lessons: Lesson[], tree: Tree, opts: GradeOptions = {}): Promise<Map<string, Grade>> {
  const grades = new Map<string, Grade>();
  const runnable: Lesson[] = [];
  for (const l of lessons) {
    if (!existsSync(testFile(l))) grades.set(l.id, loadFailure(`${testFileRel(l)} is missing: this lesson has no tests yet.`, ""));
    else if (tree === "lessons" && !existsSync(exerciseDir(l)))
      grades.set(l.id, loadFailure(`lessons/${l.dir} is missing. Bring it back with \`npm run reset ${l.id}\`.`, ""));
    else runnable.push(l);
  }
  if (runnable.length === 0) return grades;

  const tmp = mkdtempSync(join(tmpdir(), "course-grade-"));
  const out = join(tmp, "report.json");
  try {
    const { output, timedOut, aborted } = await runVitest(runnable.map(testFileRel), tree, out, opts);
    const parsed = readReport(out);
    for (const l of runnable) {
      const file = parsed?.success ? parsed.data.testResults.find((r) => r.name === testFile(l) || r.name.endsWith(`/${testFileRel(l)}`)) : undefined;
      if (aborted) grades.set(l.id, loadFailure("the check was stopped.", output));
      else if (timedOut)
        grades.set(l.id, loadFailure(`the check did not finish in ${Math.round((opts.timeoutMs ?? 0) / 1000)} s. Is there an endless loop in lessons/${l.dir}?`, output));
      else if (!file) grades.set(l.id, loadFailure(`the test runner gave no result for ${testFileRel(l)}:\n${lastLines(stripAnsi(output), 15)}`, output));
      else grades.set(l.id, fromFile(l, file, output));
    }
  } finally {
    rmSync(tmp, { recursive: true, force: true });
  }
  return grades;
}

function readReport(path: string) {
  try {
    return existsSync(path) ? report.safeParse(JSON.parse(readFileSync(path, "utf8"))) : undefined;
  } catch {
    return undefined; // cut short (the run was stopped): no result
  }
}

/**
 * Test runs in flight. Each runs in its own process group, so stopping one stops its workers
 * too (a learner's endless loop runs in a worker); when the command line ends, they all end.
 */
const running = new Set<number>();
function killGroup(pid: number): void {
  try {
    process.kill(-pid, "SIGKILL");
  } catch {
    /* already gone */
  }
}
let cleanupInstalled = false;
function installCleanup(): void {
  if (cleanupInstalled) return;
  cleanupInstalled = true;
  process.on("exit", () => running.forEach(killGroup));
  for (const sig of ["SIGINT", "SIGTERM", "SIGHUP"] as const)
    process.on(sig, () => {
      running.forEach(killGroup);
      process.exit(sig === "SIGINT" ? 130 : 143);
    });
}

export async function gradeLesson(lesson: Lesson, tree: Tree, opts: GradeOptions = {}): Promise<Grade> {
  return (await gradeLessons([lesson], tree, opts)).get(lesson.id)!;
}

function runVitest(files: string[], tree: Tree, outFile: string, opts: GradeOptions) {
  const args = [join(ROOT, "node_modules/vitest/vitest.mjs"), "run", ...files, "--reporter=default", "--reporter=json", `--outputFile.json=${outFile}`];
  const color = process.stdout.isTTY && !process.env.NO_COLOR;
  const child = spawn(process.execPath, args, {
    cwd: ROOT,
    env: colorEnv({ ...process.env, COURSE_TREE: tree }, Boolean(color)),
    stdio: ["ignore", "pipe", "pipe"],
    detached: true,
  });
  installCleanup();
  const pid = child.pid;
  if (pid !== undefined) running.add(pid);
  let output = "";
  const take = (chunk: Buffer) => {
    output += chunk.toString();
    if (opts.stream) process.stdout.write(chunk);
  };
  child.stdout.on("data", take);
  child.stderr.on("data", take);
  let timedOut = false;
  let aborted = false;
  const kill = () => (pid !== undefined ? killGroup(pid) : child.kill("SIGKILL"));
  const timer = opts.timeoutMs ? setTimeout(() => ((timedOut = true), kill()), opts.timeoutMs) : undefined;
  const onAbort = () => ((aborted = true), kill());
  opts.signal?.addEventListener("abort", onAbort, { once: true });
  if (opts.signal?.aborted) onAbort();
  return new Promise<{ output: string; timedOut: boolean; aborted: boolean }>((resolve) => {
    const done = () => {
      if (pid !== undefined) running.delete(pid);
      if (timer) clearTimeout(timer);
      opts.signal?.removeEventListener("abort", onAbort);
      resolve({ output, timedOut, aborted });
    };
    child.on("close", done);
    child.on("error", (e) => ((output += `\n${e.message}`), done()));
  });
}

/** Colours for the runner's output only when it ends up on a terminal. */
function colorEnv(env: NodeJS.ProcessEnv, color: boolean): NodeJS.ProcessEnv {
  delete env.FORCE_COLOR;
  delete env.NO_COLOR;
  return color ? { ...env, FORCE_COLOR: "1" } : { ...env, NO_COLOR: "1" };
}

function loadFailure(message: string, output: string): Grade {
  return { ok: false, passed: 0, total: 0, failures: [{ test: "(loading)", kind: "load", message }], output };
}

function lastLines(s: string, n: number): string {
  return s.trimEnd().split("\n").slice(-n).join("\n");
}

function fromFile(lesson: Lesson, file: z.infer<typeof fileResult>, output: string): Grade {
  const tests = file.assertionResults;
  const failed = tests.filter((t) => t.status === "failed");
  const passed = tests.filter((t) => t.status === "passed").length;
  const failures = failed.map((t) => parseFailure(lesson, [...t.ancestorTitles, t.title].join(" › "), t.failureMessages?.[0] ?? "failed"));
  if (tests.length === 0 || file.status === "failed" && failures.length === 0) {
    failures.unshift({ test: "(loading)", kind: "load", message: loadMessage(lesson, stripAnsi(file.message ?? "the test file failed to load")) });
  }
  return { ok: file.status === "passed" && failures.length === 0 && tests.length > 0, passed, total: tests.length, failures, output };
}

/** A file that does not even load: a syntax error, a missing import, a throw at the top level. */
function loadMessage(lesson: Lesson, raw: string): string {
  const text = relativize(raw).trim();
  if (/Transform failed|PARSE_ERROR|SyntaxError|Expected|Unexpected/.test(text))
    return `lessons/${lesson.dir} does not parse, so no test could run:\n${indent(text)}\nFix the syntax at the line shown and save.`;
  if (/Cannot find module|Failed to load url|does not provide an export/.test(text))
    return `something the ${lesson.id} code or its tests import does not exist:\n${indent(text)}`;
  return `the tests of ${lesson.id} could not start:\n${indent(text)}`;
}

const indent = (s: string, pad = "    ") => s.split("\n").map((l) => (l ? pad + l : l)).join("\n");

/** Paths in messages relative to the repository, as a learner sees them in their editor. */
function relativize(s: string): string {
  return s.replaceAll(`file://${ROOT}/`, "").replaceAll(`${ROOT}/`, "");
}

/** Splits "Name: message\n    at frame…" into its parts and classifies it. */
export function parseFailure(lesson: Lesson, test: string, raw: string): Failure {
  const clean = stripAnsi(raw);
  const stackAt = clean.search(/\n\s+at /);
  const head = (stackAt >= 0 ? clean.slice(0, stackAt) : clean).trim();
  const frames = stackAt >= 0 ? clean.slice(stackAt).split("\n").map((f) => f.trim()).filter((f) => f.startsWith("at ")) : [];
  const frameIn = (part: string) => {
    const f = frames.find((x) => x.includes(part));
    const m = f && /((?:\/|[A-Za-z]:\\)[^():]+):(\d+):\d+\)?$/.exec(f);
    return m ? `${relative(ROOT, m[1]!)}:${m[2]}` : undefined;
  };
  const where = frameIn(`/lessons/${lesson.dir}/`);
  const testLine = frameIn(`/${testFileRel(lesson)}`);
  const base = { test, ...(where ? { where } : {}), ...(testLine ? { testLine } : {}) };

  // The tests may wrap the learner's error ("the loop failed: …") and add the checker's verdict.
  let body = head.replace(/^(\w*Error): /, "");
  const wrapped = body.startsWith("the loop failed: ");
  if (wrapped) body = body.slice("the loop failed: ".length);

  const todo = /TODO left: ([^\n]*)/.exec(body);
  if (todo) return { ...base, kind: "todo", message: todo[1]!.trim(), where: where ?? findTodo(lesson, todo[1]!.trim()) };

  const api = /^(\d{3}) (\{[\s\S]*\})$/.exec(body);
  if (api) {
    let msg = api[2]!;
    try {
      const parsed = JSON.parse(api[2]!) as { error?: { message?: string } };
      msg = parsed.error?.message ?? msg;
    } catch {
      /* keep the raw body */
    }
    return { ...base, kind: "api", message: `the API (here, the scripted model) rejected a request your loop sent (${api[1]}):\n${msg}` };
  }
  if (wrapped || /broken rules? in the transcript|cannot be sent again/.test(body))
    return { ...base, kind: "transcript", message: wrapped ? `your loop stopped with an error: ${relativize(body)}` : body };
  if (/^AssertionError/.test(head)) return { ...base, kind: "assertion", message: relativize(body) };
  return { ...base, kind: "error", message: relativize(head) };
}

/** Where the `todo("…")` with this text is, when the stack does not say. */
function findTodo(lesson: Lesson, text: string): string | undefined {
  const dir = exerciseDir(lesson);
  for (const f of filesUnder(dir)) {
    const lines = readFileSync(join(dir, f), "utf8").split("\n");
    const i = lines.findIndex((l) => l.includes("todo(") && l.includes(JSON.stringify(text).slice(1, 20)));
    if (i >= 0) return `lessons/${lesson.dir}/${f}:${i + 1}`;
  }
  return undefined;
}

/** What `npm run check` prints for a failed grade: the first broken rule first. */
export function explain(lesson: Lesson, grade: Grade): string[] {
  const first = grade.failures[0];
  if (!first) return [`${lesson.id}: every test passes.`];
  const lines: string[] = [];
  const at = first.where ? ` (${first.where})` : "";
  switch (first.kind) {
    case "load":
      lines.push(first.message);
      break;
    case "todo":
      lines.push(`A TODO is left${at}:`, `    ${first.message}`, "  Replace that todo(…) call with your code: the // TODO: comments above it say what to write.");
      break;
    case "api":
      lines.push(`In the test "${first.test}",`, ...first.message.split("\n").map((l) => `  ${l}`));
      lines.push(`  messages.N is history[N] in your loop${first.where ? `; the request was sent from ${first.where}` : ""}.`);
      break;
    case "transcript":
      lines.push(`In the test "${first.test}":`, indent(first.message, "  "));
      break;
    case "assertion":
      lines.push(`The test "${first.test}" failed:`, `  ${first.message}`);
      if (first.testLine) lines.push(`  (the expectation is at ${first.testLine}${first.where ? `; your code was at ${first.where}` : ""})`);
      break;
    case "error":
      lines.push(`In the test "${first.test}", your code threw${at}:`, `  ${first.message}`);
      break;
  }
  return lines;
}
