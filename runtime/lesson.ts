/**
 * Running a lesson file: `todo()` for the exercises; `runMain()`, which runs `main()` when the
 * file is executed (not when a test imports it) and turns every error a learner can cause into a
 * short explanation instead of a stack trace; and the lesson harness, `lesson()`: the banner,
 * the task from the arguments, the workspace, Ctrl-C, the final answer and whether the
 * transcript can be sent again. A lesson file hands it its loop in a few lines; none restates it.
 */
import { realpathSync } from "node:fs";
import { rm } from "node:fs/promises";
import { basename, dirname } from "node:path";
import { fileURLToPath } from "node:url";
import Anthropic from "@anthropic-ai/sdk";
import { CourseError } from "./env.ts";
import { TranscriptError } from "./transcript.ts";
import { selectModel, type SelectOptions, type Selection } from "./client.ts";
import { terminalSafe } from "./terminal-text.ts";
import { requestLimit, withRequestNet } from "./net.ts";
import { registrationOf } from "./registrations.ts";
import { NotDoneOffline, hasScript, noScript, notDoneOffline, unscriptedRun } from "./offline.ts";
import { bold, dim, heading, printFinal, red, say, sendableLine, yellow } from "./print.ts";
import { keepScratch, scratchCopy, scratchWorkspace } from "./tools/files.ts";
import { sandboxInfo } from "./tools/sandbox.ts";
import { word } from "./words.ts";

/** Thrown by `todo()`: the exercise still has work left at this point. */
export class TodoError extends Error {
  override name = "TodoError";
  constructor(readonly task: string) {
    super(`TODO left: ${task}`);
  }
}

/** Marks where a learner writes code. Replace the call with your code. */
export function todo(task: string): never {
  throw new TodoError(task);
}

/** Is this module the script being run (`tsx path/to/agent.ts`)? */
export function isMain(metaUrl: string): boolean {
  const entry = process.argv[1];
  if (!entry) return false;
  try {
    return realpathSync(entry) === realpathSync(fileURLToPath(metaUrl));
  } catch {
    return false;
  }
}

/** A plain-words explanation of an error, or null when it is not one a learner can fix. */
export function explainError(e: unknown): string | null {
  if (e instanceof TodoError) return word("run.todo", { task: e.task });
  if (e instanceof CourseError) return e.message;
  if (e instanceof TranscriptError) return e.message;
  if (e instanceof Anthropic.APIUserAbortError) return word("run.aborted");
  if (e instanceof Anthropic.APIConnectionTimeoutError)
    return word("run.timeout");
  if (e instanceof Anthropic.APIConnectionError)
    return word("run.no-connection", { error: e.message });
  if (e instanceof Anthropic.AuthenticationError)
    return word("run.401");
  if (e instanceof Anthropic.PermissionDeniedError) return word("run.403", { error: apiMessage(e) });
  if (e instanceof Anthropic.NotFoundError)
    return word("run.404", { error: apiMessage(e) });
  if (e instanceof Anthropic.RateLimitError) return word("run.429");
  if (e instanceof Anthropic.BadRequestError)
    return word("run.400", { error: apiMessage(e) });
  if (e instanceof Anthropic.InternalServerError) return word("run.5xx", { status: e.status, error: apiMessage(e) });
  if (e instanceof Anthropic.APIError)
    return e.status === undefined
      ? word("run.stream-broke", { type: apiType(e) ?? "error", error: apiMessage(e) })
      : word("run.api-error", { status: e.status, error: apiMessage(e) });
  if (e instanceof Anthropic.AnthropicError && /terminated|other side closed|socket/i.test(e.message))
    return word("run.connection-broke", { error: e.message });
  return null;
}

function apiType(e: InstanceType<typeof Anthropic.APIError>): string | undefined {
  return (e.error as { error?: { type?: string } } | undefined)?.error?.type;
}

function apiMessage(e: InstanceType<typeof Anthropic.APIError>): string {
  const body = e.error as { error?: { message?: string } } | undefined;
  return body?.error?.message ?? e.message;
}

/** Run `main` if this file is the script being executed; explain errors, set the exit code. */
export function runMain(metaUrl: string, main: () => Promise<void>): void {
  if (!isMain(metaUrl)) return;
  main().catch((e: unknown) => {
    const known = explainError(e);
    if (known) {
      // An API's error message is text from outside: no escape sequence of it reaches the terminal.
      console.error(terminalSafe((e instanceof TodoError || e instanceof NotDoneOffline ? yellow : red)(known)));
    } else {
      console.error(terminalSafe(red(word("run.unexpected", { error: e instanceof Error ? e.message : String(e) }))));
      if (process.env.DEBUG) console.error(e);
      else console.error(word("run.debug"));
    }
    process.exitCode = e instanceof TodoError || e instanceof LessonUsageError ? 2 : 1;
  });
}

/** The flags a lesson script takes (each lesson reads the ones it uses); any other is a mistake. */
export const LESSON_FLAGS = ["yes", "verbose", "trace", "keep"] as const;
/** Flags that take a value, as `--name=value`. */
export const LESSON_VALUE_FLAGS = ["max-requests"] as const;

/** How a lesson script is run (the flags every lesson takes). */
export const LESSON_USAGE = `npm run lesson sNN -- [${[...LESSON_FLAGS.map((f) => `--${f}`), "--max-requests=N"].join("] [")}] [task…]`;

/** What `--help` (or `-h`) prints for a lesson script: how to run it and what each flag does; nothing runs. */
export const LESSON_HELP = [
  `usage: ${LESSON_USAGE}`,
  "       npx tsx lessons/sNN_<name>/agent.ts [the same flags] [task…]",
  "",
  "  task…             what to ask (default: the lesson's own task, in a scratch copy of its workspace)",
  "  --yes             approve what the lesson would ask you about (the lessons that ask; their pages say what)",
  "  --verbose         say more of the run (the lessons that read it)",
  "  --trace           show every request and response (the lessons that read it)",
  "  --keep            keep the default task's scratch workspace, and print where",
  "  --max-requests=N  the most requests one run may make before the net stops it (0: no limit)",
].join("\n");

/** A flag no lesson script takes: one line naming it and the usage, exit 2. */
export class LessonUsageError extends CourseError {
  override name = "LessonUsageError";
}

/** Refuses a `--flag` that is not one of LESSON_FLAGS (a typo such as --verbos must not pass unseen). */
export function checkLessonFlags(argv: string[]): void {
  const known = (a: string) =>
    (LESSON_FLAGS as readonly string[]).includes(a.slice(2)) || LESSON_VALUE_FLAGS.some((f) => a.startsWith(`--${f}=`));
  const unknown = argv.find((a) => a.startsWith("--") && !known(a));
  if (unknown) throw new LessonUsageError(`unknown flag ${unknown}. usage: ${LESSON_USAGE}`);
}

/** The task from the command line, or the lesson's default task. */
export function taskFromArgs(defaultTask: string, argv = process.argv.slice(2)): string {
  const words = argv.filter((a) => !a.startsWith("--"));
  return words.join(" ").trim() || defaultTask;
}

// ── The lesson harness ──

/** Where a lesson's default task runs: files written to a scratch folder, or a folder (a sample repository) copied. */
export type Workspace = Record<string, string> | string;

/** A fresh scratch folder for a task: the files written, or a copy of the folder. */
export function scratchFor(workspace: Workspace): Promise<string> {
  return typeof workspace === "string" ? scratchCopy(workspace) : scratchWorkspace(workspace);
}

/** What a lesson's run is handed. */
export interface LessonContext {
  llm: Selection;
  /** The conversation so far: the task, as the first user message. The loop grows it. */
  history: Anthropic.MessageParam[];
  task: string;
  /** The task is the lesson's default one (and runs in its scratch workspace). */
  isDefault: boolean;
  /** The folder the tools act in: the scratch workspace, or the current directory for a task of your own. */
  root: string;
  /** Aborted by Ctrl-C (reading it arms the handler; a second Ctrl-C quits at once). */
  readonly signal: AbortSignal;
  /** Whether `--name` is on the command line. */
  flag(name: string): boolean;
}

export interface LessonSpec<R> {
  /** The lesson's default task (runtime/tasks.ts) and where it runs. */
  task: string;
  workspace?: Workspace;
  /** How the model is chosen (the offline model's pace, the SDK's retries). */
  model?: SelectOptions;
  /** Before the run: notes under the workspace line, an earlier part of the lesson. */
  before?(ctx: LessonContext): void | Promise<void>;
  /** The heading of the run, when the lesson has several parts. */
  heading?: string;
  /** One run of the loop; returns its final Message, or an Outcome ({ status, message }). */
  run(ctx: LessonContext): Promise<R>;
  /** How the run ended, in words (s05's describeOutcome); printed after the answer. */
  describe?(result: R): string;
  /** Print the answer's text at the end (default: yes; a streamed answer was already shown). */
  printAnswer?: boolean;
  /** Requests one run may make before the harness's net stops it (runtime/net.ts; default 50). */
  requestLimit?: number;
  /** Answers saying "done" one run may go on after before the net stops it (default: course.json's doneAnswers, else 5). */
  doneAnswers?: number;
  /** After the run: a tour of the lesson's other cases, a table, a log. */
  after?(result: R, ctx: LessonContext): void | Promise<void>;
}

/** The final message of a run's result: the Message itself, or the message of an Outcome that is done. */
function answerOf(result: unknown): Anthropic.Message | undefined {
  if (typeof result !== "object" || result === null) return undefined;
  if ("status" in result) return result.status === "done" && "message" in result ? (result.message as Anthropic.Message) : undefined;
  return "content" in result ? (result as Anthropic.Message) : undefined;
}

/** Which OS sandbox the run's tool processes get, in one line (the approval rules are the lesson's own). */
export function sandboxLine(): string {
  const info = sandboxInfo();
  return info.kind === "none" ? `sandbox: none, tools run as your user (${info.why})` : info.line;
}

/** Runs a lesson as a script: banner, task, workspace, the run, its answer and its transcript's state. */
export async function runLesson<R>(spec: LessonSpec<R>, argv = process.argv.slice(2)): Promise<void> {
  // --help is never a mistake (scripts/lib/args.ts says the same for the course's commands).
  if (argv.includes("--help") || argv.includes("-h")) return void say(LESSON_HELP);
  checkLessonFlags(argv);
  const limit = requestLimit(argv, spec.requestLimit);
  const selected = selectModel(spec.model);
  // The net under a loop that never stops (runtime/net.ts): every request of this run is counted.
  const llm: Selection = { ...selected, client: withRequestNet(selected.client, limit, spec.doneAnswers) };
  say(llm.banner);
  const task = taskFromArgs(spec.task, argv);
  const isDefault = task === spec.task;
  const keep = argv.includes("--keep");
  // The default task works in a scratch workspace; a task of your own works in the current directory.
  const scratch = isDefault && spec.workspace !== undefined ? await scratchFor(spec.workspace) : undefined;
  const root = scratch ?? process.cwd();
  say(scratch ? `${word("run.workspace", { path: root })} ${dim(word(keep ? "run.scratch-kept" : "run.scratch"))}` : word("run.workspace", { path: root }));
  // Every tool process starts through spawnTool: the run says which boundary it has.
  say(sandboxLine());
  try {
    await runIn(spec, llm, task, isDefault, root, argv);
  } finally {
    if (scratch && !keep) await rm(scratch, { recursive: true, force: true }).catch(() => undefined);
    else if (scratch) {
      keepScratch(scratch);
      say(dim(word("run.kept", { path: scratch })));
    }
  }
}

async function runIn<R>(spec: LessonSpec<R>, llm: Selection, task: string, isDefault: boolean, root: string, argv: string[]): Promise<void> {
  const controller = new AbortController();
  let armed = false;
  const ctx: LessonContext = {
    llm,
    history: [{ role: "user", content: task }],
    task,
    isDefault,
    root,
    get signal() {
      // Ctrl-C aborts the run (the request and any tool in flight) instead of killing the process.
      if (!armed) process.once("SIGINT", () => controller.abort());
      armed = true;
      return controller.signal;
    },
    flag: (name) => argv.includes(`--${name}`),
  };
  // Offline, a task with no script is told so before anything runs (runtime/offline.ts).
  if (llm.offline && !hasScript(task)) say(yellow(noScript()));
  await spec.before?.(ctx);
  if (spec.heading) heading(spec.heading);
  const result = await spec.run(ctx);
  const answer = answerOf(result);
  if (answer && spec.printAnswer !== false) printFinal(answer);
  say("");
  // Offline, a task with no script is not done, whatever the loop concluded (runtime/offline.ts).
  const unscripted = llm.offline && unscriptedRun(ctx.history);
  if (unscripted) say(`${bold(word("run.outcome"))} ${word("run.unscripted")}${spec.describe ? dim(word("run.loop-reported", { what: spec.describe(result) })) : ""}`);
  else if (spec.describe) say(`${bold(word("run.outcome"))} ${spec.describe(result)}`);
  say(sendableLine(ctx.history));
  await spec.after?.(result, ctx);
  if (unscripted) throw new NotDoneOffline(notDoneOffline());
}

/** A lesson file's last lines: run the lesson when the file is executed, not when it is imported. */
export function lesson<R>(metaUrl: string, spec: LessonSpec<R>): void {
  // A registered lesson may raise the net's count of "done" answers in its course.json.
  const doneAnswers = spec.doneAnswers ?? registrationOf(basename(dirname(fileURLToPath(metaUrl))))?.doneAnswers;
  runMain(metaUrl, () => runLesson(doneAnswers === undefined ? spec : { ...spec, doneAnswers }));
}

/** One run of a task in a fresh scratch workspace (removed after); returns its transcript (a lesson's `demo`, recorded for the docs). */
export async function transcriptOf(
  task: string,
  workspace: Workspace | undefined,
  run: (history: Anthropic.MessageParam[], root: string) => Promise<unknown>,
): Promise<Anthropic.MessageParam[]> {
  const scratch = workspace === undefined ? undefined : await scratchFor(workspace);
  const history: Anthropic.MessageParam[] = [{ role: "user", content: task }];
  try {
    await run(history, scratch ?? process.cwd());
  } finally {
    if (scratch) await rm(scratch, { recursive: true, force: true }).catch(() => undefined);
  }
  return history;
}
