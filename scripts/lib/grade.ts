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
import { STAGES, courseLang, isRuleId, ruleOfApiMessage, ruleStage, ruleWords, type Lang, type RuleId, type Stage } from "../../runtime/rules.ts";
import { inEvery, word, type Said, type WordId } from "../../runtime/words.ts";
import { ROOT, exerciseDir, filesUnder, testFile, testFileRel } from "./paths.ts";
import { gradingEnv } from "./grading-env.ts";
import { HangWatch, saidOfVerdict } from "./hang.ts";
import { typeErrorsFast } from "./typecheck.ts";
import type { FileReport, WarmRunner } from "./warm-runner.ts";

export type Tree = "lessons" | "solutions";

/** One failed test, already reduced to what matters. */
export interface Failure {
  /** "describe › test" */
  test: string;
  kind: "todo" | "api" | "transcript" | "assertion" | "error" | "load" | "rule" | "types" | "hang";
  /** The rule it breaks (a key of runtime/rules.ts), when known. */
  rule?: RuleId;
  /** The explanation, without the stack (English). */
  message: string;
  /** The same explanation as a word of the command line (runtime/words.ts), said in the learner's language when the check prints it. */
  said?: Said;
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
  /** Type-check the lesson's files too (default: yes, for lessons/). */
  typecheck?: boolean;
  /** A folder laid out like solutions/ to grade instead of the tree (COURSE_TREE_DIR; mutants). */
  treeDir?: string;
  /** More arguments for vitest (a mutant's shorter test timeout). */
  vitestArgs?: string[];
  /** A runner kept warm between checks (watch mode). */
  warm?: WarmRunner;
}

/** Runs the tests of `lessons` against one tree in ONE vitest process. */
export async function gradeLessons(lessons: Lesson[], tree: Tree, opts: GradeOptions = {}): Promise<Map<string, Grade>> {
  const grades = new Map<string, Grade>();
  const runnable: Lesson[] = [];
  for (const l of lessons) {
    if (!existsSync(testFile(l))) grades.set(l.id, loadFailure(saying("grade.no-tests", { file: testFileRel(l) }), ""));
    else if (tree === "lessons" && !existsSync(exerciseDir(l))) grades.set(l.id, loadFailure(saying("usage.folder-missing", { dir: l.dir, id: l.id }), ""));
    else runnable.push(l);
  }
  if (runnable.length === 0) return grades;

  // The time limit is one check's: several lessons graded in one run (list after a clone) get
  // it once per two lessons (two test files run side by side), so a busy machine is slow, not hung.
  if (opts.timeoutMs && runnable.length > 2) opts = { ...opts, timeoutMs: opts.timeoutMs * Math.ceil(runnable.length / 2) };
  const tmp = mkdtempSync(join(tmpdir(), "course-grade-"));
  const out = join(tmp, "report.json");
  try {
    // Watch keeps a runner warm (lessons/ only); otherwise a fresh vitest process per check.
    const warm = tree === "lessons" && !opts.treeDir ? opts.warm : undefined;
    const running = warm
      ? warm.run(runnable.map(testFileRel), opts)
      : runVitest(runnable.map(testFileRel), tree, out, { ...opts, heartbeatFile: join(tmp, "heartbeat.json"), runDir: tmp }).then((r) => {
          const parsed = readReport(out);
          return { ...r, files: parsed?.success ? parsed.data.testResults : undefined };
        });
    // While the tests run: the lesson's own files type-checked (a type error leads the verdict).
    const types = new Map<string, Failure[]>();
    if (tree === "lessons" && opts.typecheck !== false)
      for (const l of runnable) {
        await new Promise((r) => setImmediate(r)); // let the runner start first
        types.set(l.id, await typeFailures(l, warm));
      }
    const { output, timedOut, aborted, hung, files } = await running;
    for (const l of runnable) {
      const file = files?.find((r) => r.name === testFile(l) || r.name.endsWith(`/${testFileRel(l)}`));
      let grade: Grade;
      if (aborted) grade = loadFailure(saying("grade.stopped", {}), output);
      else if (hung) grade = hangFailure(saidOfVerdict(hung) ? { message: hung, said: saidOfVerdict(hung)! } : { message: hung }, output);
      else if (timedOut) grade = hangFailure(saying("grade.timeout", { seconds: Math.round((opts.timeoutMs ?? 0) / 1000), dir: l.dir }), output);
      else if (!file) grade = loadFailure(saying("grade.no-result", { file: testFileRel(l), output: lastLines(stripAnsi(output), 15) }), output);
      else grade = fromFile(l, file, output);
      const typeProblems = types.get(l.id) ?? [];
      if (typeProblems.length > 0 && !grade.failures.some((f) => f.kind === "load" && /does not parse/.test(f.message)))
        grade = { ...grade, ok: false, failures: order([...typeProblems, ...grade.failures]) };
      grades.set(l.id, grade);
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

function runVitest(files: string[], tree: Tree, outFile: string, opts: GradeOptions & { heartbeatFile?: string; runDir: string }) {
  // The transformed modules (runtime/, the tests, the lesson) are kept on disk between checks,
  // keyed by their content: a fresh check transforms only what changed. Not for a mutant's
  // temporary copy, which would only fill the cache.
  const cache = opts.treeDir ? [] : ["--experimental.fsModuleCache"];
  const args = [join(ROOT, "node_modules/vitest/vitest.mjs"), "run", ...files, "--reporter=default", "--reporter=json", `--outputFile.json=${outFile}`, ...cache, ...(opts.vitestArgs ?? [])];
  const color = process.stdout.isTTY && !process.env.NO_COLOR;
  const child = spawn(process.execPath, args, {
    cwd: ROOT,
    env: colorEnv(gradingEnv(tree, opts.runDir, { ...(opts.treeDir ? { COURSE_TREE_DIR: opts.treeDir } : {}), ...(opts.heartbeatFile ? { COURSE_HEARTBEAT_FILE: opts.heartbeatFile } : {}) }), Boolean(color)),
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
  // A loop that blocks its worker is told from a slow test by the CPU time the worker burns
  // without a heartbeat (scripts/lib/hang.ts): a starved machine does not look like a hang.
  let hung: string | undefined;
  const hang = opts.heartbeatFile ? new HangWatch({ heartbeatFile: opts.heartbeatFile, runner: () => pid }) : undefined;
  const watchdog = hang
    ? setInterval(() => {
        const verdict = hang.look();
        if (verdict && !hung) {
          hung = verdict;
          kill();
        }
      }, 1000)
    : undefined;
  const onAbort = () => ((aborted = true), kill());
  opts.signal?.addEventListener("abort", onAbort, { once: true });
  if (opts.signal?.aborted) onAbort();
  return new Promise<{ output: string; timedOut: boolean; aborted: boolean; hung?: string }>((resolve) => {
    const done = () => {
      if (pid !== undefined) running.delete(pid);
      if (timer) clearTimeout(timer);
      if (watchdog) clearInterval(watchdog);
      opts.signal?.removeEventListener("abort", onAbort);
      resolve({ output, timedOut, aborted, ...(hung ? { hung } : {}) });
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

function loadFailure(words: { message: string; said?: Said }, output: string): Grade {
  return { ok: false, passed: 0, total: 0, failures: [{ test: "(loading)", kind: "load", ...words }], output };
}

function lastLines(s: string, n: number): string {
  return s.trimEnd().split("\n").slice(-n).join("\n");
}

function hangFailure(words: { message: string; said?: Said }, output: string): Grade {
  return { ok: false, passed: 0, total: 0, failures: [{ test: "(the loop)", kind: "hang", rule: "loop-did-not-return", ...words }], output };
}

/** Type errors in a lesson's files: from watch's warm type checker if there is one. */
async function typeFailures(lesson: Lesson, warm?: WarmRunner): Promise<Failure[]> {
  try {
    const dir = exerciseDir(lesson);
    return (await (warm ? warm.types.check(dir) : typeErrorsFast(dir))).map((p) => ({ test: "(type check)", kind: "types" as const, rule: "type-error" as const, message: p.message, where: p.where }));
  } catch {
    return []; // the type checker itself failed: the tests still grade
  }
}

/** The failures, the cause first (runtime/rules.ts's stages); the order within a stage is kept. */
export function order(failures: Failure[]): Failure[] {
  const rank = (f: Failure): number => {
    if (f.kind === "load") return -1;
    if (f.kind === "todo") return -0.5;
    // A check without a rule id of its own is a lesson rule, whatever its test's name maps to.
    const stage: Stage | undefined =
      f.kind === "types" ? "types" : f.kind === "hang" ? "hang" : f.kind === "assertion" ? "lesson" : f.rule ? ruleStage(f.rule) : undefined;
    return stage ? STAGES.indexOf(stage) : STAGES.length;
  };
  return failures.map((f, i) => ({ f, i, r: rank(f) })).sort((a, b) => a.r - b.r || a.i - b.i).map((x) => x.f);
}

function fromFile(lesson: Lesson, file: z.infer<typeof fileResult> | FileReport, output: string): Grade {
  const tests = file.assertionResults;
  const failed = tests.filter((t) => t.status === "failed");
  const passed = tests.filter((t) => t.status === "passed").length;
  const failures = order(failed.map((t) => parseFailure(lesson, [...t.ancestorTitles, t.title].join(" › "), t.failureMessages?.[0] ?? "failed")));
  if (tests.length === 0 || file.status === "failed" && failures.length === 0) {
    failures.unshift({ test: "(loading)", kind: "load", ...loadMessage(lesson, stripAnsi(file.message ?? "the test file failed to load")) });
  }
  return { ok: file.status === "passed" && failures.length === 0 && tests.length > 0, passed, total: tests.length, failures, output };
}

/** A file that does not even load: a syntax error, a missing import, a throw at the top level. */
function loadMessage(lesson: Lesson, raw: string): { message: string; said: Said } {
  const text = relativize(raw).trim();
  if (/Transform failed|PARSE_ERROR|SyntaxError|Expected|Unexpected/.test(text)) return saying("grade.no-parse", { dir: lesson.dir, error: indent(text) });
  if (/Cannot find module|Failed to load url|does not provide an export/.test(text)) return saying("grade.import-missing", { id: lesson.id, error: indent(text) });
  return saying("grade.cannot-start", { id: lesson.id, error: indent(text) });
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

  const todo = /TODO left: ([^\n]*)/.exec(clean);
  if (todo) return { ...base, kind: "todo", message: todo[1]!.trim(), where: where ?? findTodo(lesson, todo[1]!.trim()) };

  // A hang: the runner's time-out (or its worker lost while blocked).
  if (/Test timed out in \d+ ?ms|STACK_TRACE_ERROR|Hook timed out/.test(clean))
    return {
      ...base,
      kind: "hang",
      rule: "loop-did-not-return",
      ...saying("grade.hang", { test }),
    };

  // A named rule: "[rule-id] sentence", from RuleError, expect(x, "[rule-id] …"), the transcript
  // checker, or a property whose failing case broke one. The runner's own words are cut off.
  const named = namedRule(clean);
  if (named) {
    const table = /\n\s*(the smallest failing case:[\s\S]*?)(?:\n\s*at |$)/.exec(clean)?.[1];
    return { ...base, kind: "rule", rule: named.rule, message: relativize(named.sentence) + (table && !named.sentence.includes(table.trim()) ? `\n${table.trimEnd()}` : "") };
  }

  const api = /^(\d{3}) (\{[\s\S]*\})$/.exec(body);
  if (api) {
    let msg = api[2]!;
    try {
      const parsed = JSON.parse(api[2]!) as { error?: { message?: string } };
      msg = parsed.error?.message ?? msg;
    } catch {
      /* keep the raw body */
    }
    // 429, 529, 5xx, 408: the API could not answer then (rate limited, overloaded, down), and the
    // SDK gave up after its retries. The request was fine: the fix is retrying, not the request.
    const status = Number(api[1]);
    if (status === 408 || status === 429 || status >= 500) {
      const recovers = Number(lesson.id.slice(1)) >= 11;
      return { ...base, kind: "error", rule: recovers ? "recovery" : "loop-threw", ...saying(recovers ? "grade.api-busy-retry" : "grade.api-busy", { status, error: msg }) };
    }
    return { ...base, kind: "api", rule: ruleOfApiMessage(msg), ...saying("grade.api-rejected", { status: api[1]!, error: msg }) };
  }
  if (wrapped) return { ...base, kind: "transcript", rule: "loop-threw", ...saying("grade.loop-threw", { error: relativize(body) }) };
  const title = test.split(" › ").pop()!;
  if (/^AssertionError/.test(head) || isRunnerText(clean)) {
    // A check written without a rule id: the rule its test's name states, and the test's own
    // words when it gave some (expect(x, "words")), never the runner's text.
    const words = /^AssertionError: ([\s\S]+?): expected /.exec(head)?.[1];
    const said = words && !isRunnerText(words) ? `${words.trim()}. ` : "";
    return { ...base, kind: "assertion", rule: ruleFromTest(lesson, test), ...saying("grade.not-met", { said, title }) };
  }
  // The learner's code threw inside a test of one rule: that rule, and the error in its words.
  // An API refusal that surfaced as a thrown error names its pairing rule.
  const refusal = ruleOfApiMessage(head);
  if (refusal !== "api-rejected") return { ...base, kind: "error", rule: refusal, message: relativize(head) };
  const byName = ruleFromTest(lesson, test);
  return { ...base, kind: "error", rule: byName === "lesson-rule" || ruleStage(byName) !== "lesson" ? "loop-threw" : byName, message: relativize(head) };
}

/** The rule a test's name states (each lesson's test names are written as its rules). */
const RULE_WORDS: Array<[RegExp, RuleId]> = [
  [/paus/i, "pause-turn"],
  [/stop_reason (max_tokens|stop_sequence|refusal)|cut-off|cut off/i, "tools-only-on-tool-use"],
  [/unknown tool/i, "unknown-tool"],
  [/invalid input|schema|validat|missing field|wrong type|refuses a/i, "invalid-input"],
  [/token_budget|budget|cache read/i, "guard-budget"],
  [/max_turns|turn limit/i, "guard-max-turns"],
  [/repeat/i, "guard-repeat"],
  [/approv|read-only command|not read-only/i, "approval"],
  [/symlink|workspace|outside|\.\.\/|absolute path|secret|environment/i, "workspace"],
  [/abort|ctrl-c|cancel/i, "abort-leaves-transcript"],
  [/timeout|past its time|too long/i, "tool-timeout"],
  [/continu/i, "continuation"],
  [/retr|overload|compact|prompt too long|broken stream|stream_cut|stream_error/i, "recovery"],
  [/stream|delta/i, "streaming"],
  [/session|resum|\/reset|history across/i, "session"],
  [/event|usage|cost|trace|jsonl/i, "observability"],
  [/at the same time|in (the )?order|parallel|concurren|overlap|one at a time|neighbour/i, "concurrency"],
  [/throws?|exception|failure is|fails?:/i, "tool-failure-observed"],
  [/dispatch|registry|handler/i, "dispatch"],
  [/outcome/i, "typed-outcome"],
  [/sent again|sendable/i, "sendable-again"],
];
function ruleFromTest(lesson: Lesson, test: string): RuleId {
  const title = test.split(" › ").pop()!;
  for (const [re, id] of RULE_WORDS) if (re.test(title)) return lesson.id === "s06" && id === "tool-timeout" ? "guard-timeout" : id;
  for (const [re, id] of RULE_WORDS) if (re.test(test)) return lesson.id === "s06" && id === "tool-timeout" ? "guard-timeout" : id;
  return "lesson-rule";
}

/** The runner's own vocabulary, which never reaches a learner as the message. */
function isRunnerText(s: string): boolean {
  return /\bexpected\b[\s\S]*\bto\b|Object\.is|Counterexample|Property failed|toEqual|toBe\(/.test(s);
}

/** The first "[rule-id] sentence" in a failure's text, with the runner's additions cut off. */
function namedRule(text: string): { rule: RuleId; sentence: string } | undefined {
  const re = /\[([a-z][a-z0-9-]*)\] /g;
  for (let m = re.exec(text); m; m = re.exec(text)) {
    if (!isRuleId(m[1]!)) continue;
    let sentence = text.slice(m.index + m[0].length);
    sentence = sentence.split(/\n\s+at |\n\s*- Expected|\n\s*\+ Received|\nCounterexample|\nShrunk \d+ time|\n\s*Hint:/)[0]!;
    // expect(x, "[rule] sentence") adds ": expected … to …" after the sentence.
    sentence = sentence.replace(/: expected [\s\S]*$/, "").replace(/ \/\/ Object\.is equality[\s\S]*$/, "");
    return { rule: m[1]! as RuleId, sentence: sentence.trimEnd() };
  }
  return undefined;
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

/** A failure's explanation as a word of the command line: its English text, and the word to say it in the learner's language. */
function saying(id: WordId, vars: Record<string, string | number>): { message: string; said: Said } {
  return { message: word(id, vars, "en"), said: { id, vars } };
}

/** A failure's explanation in `lang` (its English text where it has no word). */
export function failureText(f: Failure, lang: Lang = courseLang()): string {
  return f.said ? word(f.said.id, f.said.vars, lang) : f.message;
}

/** What `npm run check` prints for a failed grade: the first broken rule first, in words. */
export function explain(lesson: Lesson, grade: Grade, lang = courseLang()): string[] {
  const found = grade.failures[0];
  const first = found && { ...found, message: failureText(found, lang) };
  const t = (words: Record<Lang, string>) => inEvery(words, lang);
  if (!first) return [t({ en: `${lesson.id}: every test passes.`, zh: `${lesson.id}：所有测试都通过了。`, ja: `${lesson.id}：すべてのテストに合格しました。`, ru: `${lesson.id}: все тесты проходят.` })];
  const lines: string[] = [];
  const at = first.where ? ` (${first.where})` : "";
  const tag = first.rule ? `[${first.rule}] ` : "";
  const inTest = (test: string | undefined) => t({ en: `In the test "${test}"`, zh: `在测试 "${test}" 中`, ja: `テスト "${test}" で`, ru: `В тесте "${test}"` });
  switch (first.kind) {
    case "load":
      lines.push(first.message);
      break;
    case "todo":
      lines.push(
        t({ en: `A TODO is left${at}:`, zh: `还有一个 TODO 没写${at}：`, ja: `TODO が残っています${at}：`, ru: `Остался TODO${at}:` }),
        `    ${first.message}`,
        t({
          en: "  Replace that todo(…) call with your code: the // TODO: comments above it say what to write.",
          zh: "  用你的代码替换这个 todo(…) 调用：它上面的 // TODO: 注释说明了要写什么。",
          ja: "  その todo(…) の呼び出しを自分のコードに置き換えてください。上の // TODO: コメントに何を書くかがあります。",
          ru: "  Замените этот вызов todo(…) своим кодом: комментарии // TODO: над ним говорят, что написать.",
        }),
      );
      break;
    case "types": {
      const all = grade.failures.filter((f) => f.kind === "types");
      const n = all.length;
      lines.push(
        `${tag}${t({
          en: `lessons/${lesson.dir} does not type-check (${n === 1 ? "1 error" : `${n} errors`}):`,
          zh: `lessons/${lesson.dir} 没有通过类型检查（${n} 个错误）：`,
          ja: `lessons/${lesson.dir} は型チェックを通りません（エラー ${n} 件）：`,
          ru: `lessons/${lesson.dir} не проходит проверку типов (ошибок: ${n}):`,
        })}`,
      );
      for (const f of all) lines.push(`  ${f.where}  ${f.message}`);
      break;
    }
    case "hang":
      lines.push(`${tag}${first.message}`);
      break;
    case "api":
      lines.push(`${inTest(first.test)}, ${tag}`, ...first.message.split("\n").map((l) => `  ${l}`));
      lines.push(
        t({
          en: `  messages.N is history[N] in your loop${first.where ? `; the request was sent from ${first.where}` : ""}.`,
          zh: `  messages.N 就是你的循环里的 history[N]${first.where ? `；请求是从 ${first.where} 发出的` : ""}。`,
          ja: `  messages.N はループの history[N] のことです${first.where ? `。リクエストは ${first.where} から送られました` : ""}。`,
          ru: `  messages.N — это history[N] в вашем цикле${first.where ? `; запрос отправлен из ${first.where}` : ""}.`,
        }),
      );
      break;
    case "rule":
    case "transcript":
    case "assertion":
      lines.push(`${inTest(first.test)}:`, indent(`${tag}${first.message}`, "  "));
      if (first.where) lines.push(t({ en: `  (your code was at ${first.where})`, zh: `  （你的代码在 ${first.where}）`, ja: `  （あなたのコードは ${first.where}）`, ru: `  (ваш код: ${first.where})` }));
      break;
    case "error":
      lines.push(t({ en: `In the test "${first.test}", your code threw${at}:`, zh: `在测试 "${first.test}" 中，你的代码抛出了异常${at}：`, ja: `テスト "${first.test}" で、あなたのコードが例外を投げました${at}：`, ru: `В тесте "${first.test}" ваш код бросил исключение${at}:` }), `  ${first.message}`);
      break;
  }
  if (first.rule) {
    const w = ruleWords(first.rule, lang);
    lines.push("", inEvery({ en: `The rule: ${w.what}`, zh: `规则：${w.what}`, ja: `ルール：${w.what}`, ru: `Правило: ${w.what}` }, lang), inEvery({ en: `What to do: ${w.fix}`, zh: `怎么做：${w.fix}`, ja: `すべきこと：${w.fix}`, ru: `Что делать: ${w.fix}` }, lang));
  }
  return lines;
}
