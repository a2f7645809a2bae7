/**
 * The final agent, `npm run agent`: s22's program, with a headless mode for scripts.
 *
 *   npm run agent -- -p "task" [--output-format text|json|stream-json] [--resume SESSION] [s22's flags]
 *
 * In json and stream-json nothing but the lines goes to stdout: everything the program says for a
 * person goes to stderr. Each run is saved as a session (s10's, under .course/sessions, outside
 * the workspace) named in its result line; --resume goes on with it.
 *
 * Run: npx tsx solutions/s24_headless/program.ts -- -p "task" --output-format json --workspace DIR
 */
import { randomUUID } from "node:crypto";
import type { Llm } from "../../runtime/client.ts";
import { runMain } from "../../runtime/lesson.ts";
import { unscriptedRun } from "../../runtime/offline.ts";
import { output, red, say } from "../../runtime/print.ts";
import type { RunResult } from "../../solutions/s12_guarded_agent/program.ts";
import { saveSession } from "../../solutions/s10_conversation/session.ts";
import { checkpointsProgram } from "../../solutions/s21_checkpoints/program.ts";
import { BACKGROUND_USAGE } from "../../solutions/s22_background/program.ts";
import { runAgent } from "./agent.ts";
import { OUTPUT_FORMATS, type HeadlessLine, type OutputFormat } from "./headless.ts";

export const HEADLESS_USAGE = `${BACKGROUND_USAGE}

s24 adds headless mode, for scripts and CI:
  -p, --print "task"        do the task without a conversation (a task given as -p, never asked)
  --output-format FORMAT    text (default): what a person reads; json: only the result, one JSON
                            object; stream-json: one JSON object per line per event, in the API's
                            shapes ({"type":"assistant","message":<Message>}, {"type":"user","message":
                            <MessageParam>}), then the result
  --resume SESSION          go on with a saved session (every -p run saves one: its result names it)
The result: {"type":"result","subtype","is_error","result","num_turns","usage","total_cost_usd",
"session_id","stop_reason","duration_ms"}. In json and stream-json nothing else goes to stdout (what
the program says for a person goes to stderr). Exit codes: 0 the task is done; 1 the run stopped
before it was (a guard, a refusal, an error: is_error true); 2 a mistake in the flags.`;

export interface HeadlessFlags {
  print?: string;
  format: OutputFormat;
  resume?: string;
  /** s22's flags. */
  rest: string[];
}

/** -p/--print and --output-format taken out of argv; a mistake is a UsageError-like message (null). */
export function headlessFlags(argv: readonly string[]): HeadlessFlags | string {
  const rest: string[] = [];
  let print: string | undefined;
  let format: string | undefined;
  let resume: string | undefined;
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    const [name, inline] = arg.startsWith("--") && arg.includes("=") ? [arg.slice(0, arg.indexOf("=")), arg.slice(arg.indexOf("=") + 1)] : [arg, undefined];
    if (name !== "-p" && name !== "--print" && name !== "--output-format" && name !== "--resume") {
      rest.push(arg);
      continue;
    }
    const value = inline ?? argv[++i];
    if (value === undefined || (value.startsWith("-") && name !== "-p" && name !== "--print")) return `${name} needs a value`;
    if (name === "--output-format") format = value;
    else if (name === "--resume") resume = value;
    else print = value;
  }
  if (format !== undefined && !OUTPUT_FORMATS.includes(format as OutputFormat)) return `--output-format ${format}: use one of ${OUTPUT_FORMATS.join(", ")}`;
  if (format !== undefined && format !== "text" && print === undefined) return `--output-format ${format} needs a task: -p "task"`;
  return { ...(print !== undefined ? { print } : {}), format: (format ?? "text") as OutputFormat, ...(resume ? { resume } : {}), rest };
}

/** What a later lesson's program passes to run this one with its own loop and --help (s27: worktrees, workflows, goals). */
export interface LaterHeadless {
  runAgent: typeof runAgent;
  lesson: string;
  usage: string;
  /** false: a text run neither saves a session nor says one (s27's --workflow: the task is the program's own, its journal resumes it). */
  session?: boolean;
}

/** The whole program: flags in, exit code and transcript out; `write` takes stdout's lines (tests pass their own). */
export async function run(
  argv: string[],
  deps: { llm?: Llm; signal?: AbortSignal; write?: (line: string) => void } = {},
  later: LaterHeadless = { runAgent, lesson: "s24_headless", usage: HEADLESS_USAGE },
): Promise<RunResult> {
  const flags = headlessFlags(argv);
  if (typeof flags === "string") {
    process.stderr.write(`${red(`npm run agent: ${flags}`)}\n`);
    return { exitCode: 2, history: [] };
  }
  const { print, format, resume, rest } = flags;
  const session = resume ?? `headless-${randomUUID()}`;
  const program = (extra: Partial<Parameters<typeof runAgent>[2]>, start?: (llm: Llm) => void) =>
    checkpointsProgram([...rest, ...(resume ? ["--resume", resume] : []), ...(print !== undefined ? [print] : [])], deps, {
      runAgent: (llm, history, opts) => (start?.(llm), later.runAgent(llm, history, { ...opts, ...extra })),
      lesson: later.lesson,
      usage: later.usage,
    });
  if (format === "text") {
    const result = await program({});
    if (print !== undefined && result.history.length > 0 && later.session !== false) say(`session: ${session} ${saveAs(session, result)}`);
    return result;
  }
  // json, stream-json: stdout holds the lines and nothing else; what is said for a person goes to stderr.
  const saved = { write: output.write, stdout: process.stdout.write };
  // The real stdout, taken before it is sent to stderr below: the lines, and only they, go there.
  const stdout = deps.write ?? ((line: string) => void saved.stdout.call(process.stdout, `${line}\n`));
  output.write = (line) => void process.stderr.write(`${line}\n`);
  process.stdout.write = process.stderr.write.bind(process.stderr) as typeof process.stdout.write;
  let last: HeadlessLine | undefined;
  try {
    const emit = (line: HeadlessLine) => {
      if (line.type === "result") last = line;
      else if (format === "stream-json") stdout(JSON.stringify(line));
    };
    // The init line, before the first request: the model is the one the program asks.
    let started = false;
    const init = (llm: Llm) => {
      if (format === "stream-json" && !started) emit({ type: "system", subtype: "init", session_id: session, model: llm.model, cwd: process.cwd() });
      started = true;
    };
    const result = await program({ headless: { emit, session } }, init);
    if (result.history.length > 0) saveAs(session, result);
    // Not done though the loop ended (offline, a task the scripted model has no script for: s17; a
    // plan never approved: s18): the line a script reads says so too, as the exit code does, and why.
    if (last?.type === "result" && result.exitCode !== 0 && !last.is_error)
      last = { ...last, subtype: "error", is_error: true, stop_reason: result.stopped ?? (unscriptedRun(result.history) ? "no_script" : last.stop_reason) };
    if (last) stdout(JSON.stringify(last));
    return result;
  } finally {
    output.write = saved.write;
    process.stdout.write = saved.stdout;
  }
}

/** Saves the run's conversation under the session's name (s10's sessions, outside the workspace). */
function saveAs(session: string, result: RunResult): string {
  return `(saved: ${saveSession(session, result.history)})`;
}

runMain(import.meta.url, async () => {
  const controller = new AbortController();
  process.once("SIGINT", () => controller.abort());
  const { exitCode } = await run(process.argv.slice(2), { signal: controller.signal });
  process.exitCode = exitCode;
});
