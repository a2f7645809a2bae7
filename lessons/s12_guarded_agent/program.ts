/**
 * s12 · the capstone as a program: flags in (cli.ts), exit code and transcript out. A task on the
 * command line is done once (exit 0 when done, 1 when stopped); without one, s10's conversation
 * begins. Everything that happens is logged for a person (s09's logger), written to .course/runs/
 * (s09's JSONL) and, with --trace, shown as the message table (s09's trace.ts). The loop, its options and
 * its REPL are handed in by agent.ts, so this file holds no loop of its own.
 */
import type Anthropic from "@anthropic-ai/sdk";
import { selectModel, type Llm } from "../../runtime/client.ts";
import { loadEnv } from "../../runtime/env.ts";
import { dim, heading, red, say, yellow } from "../../runtime/print.ts";
import { journalLines, takeJournal } from "../../runtime/tools/planted.ts";
import { stopOnSignals } from "../../runtime/tools/live.ts";
import type { Outcome } from "../../solutions/s05_stop_reasons/outcome.ts";
import { fanOut, type EventSink } from "../../solutions/s09_observability/events.ts";
import { RunLog } from "../../solutions/s09_observability/jsonl.ts";
import { createLogger } from "../../solutions/s09_observability/log.ts";
import { messageTable } from "../../solutions/s09_observability/trace.ts";
import type { Repl } from "../../solutions/s10_conversation/repl.ts";
import { addQuestion } from "../../solutions/s10_conversation/repl.ts";
import { SessionError, loadSession, saveSession, type Session } from "../../solutions/s10_conversation/session.ts";
import { converse } from "../../solutions/s10_conversation/terminal.ts";
import type { Approver } from "../../solutions/s07_safe_tools/approval.ts";
import { RETRIES } from "../../solutions/s11_recovery/recovery.ts";
import { USAGE, UsageError, parseFlags, startLines, type Flags } from "./cli.ts";
import { closeTranscript, keepOnFailure } from "./failed-run.ts";

export interface RunResult {
  /** 0: done (or the conversation ended); 1: the run stopped before the task was done; 2: a mistake in the flags. */
  exitCode: number;
  history: Anthropic.MessageParam[];
  /** Why a run that ended before its task was done stopped, when a later program finds it after the loop (s17: "no_script", "plan_not_approved"). */
  stopped?: string;
}

/** What the program is handed: the loop, the options it takes from the flags, and its REPL. */
export interface Capstone<O> {
  runAgent(llm: Llm, history: Anthropic.MessageParam[], opts: O): Promise<Outcome<string>>;
  optionsFrom(flags: Flags, onEvent?: EventSink): O;
  createRepl(llm: Llm, opts: { name?: string; history?: Anthropic.MessageParam[]; agent?: Omit<O, "signal"> }): Repl;
  /** The lesson whose program this is, as its run logs name it (default s12_guarded_agent). */
  lesson?: string;
}

/** The model: --model wins over MODEL_ID; offline without a key. The SDK retries as s11 set it. */
function chooseModel(flags: Flags) {
  loadEnv();
  return selectModel({ ...RETRIES, env: flags.model ? { ...process.env, MODEL_ID: flags.model } : process.env });
}

// #region program
/** The whole program for a loop: `run(argv)` (tests pass their own model and signal). */
export function capstoneProgram<O extends { approve?: Approver; signal?: AbortSignal }>(agent: Capstone<O>) {
  return async function run(argv: string[], deps: { llm?: Llm; signal?: AbortSignal } = {}): Promise<RunResult> {
    let flags: Flags;
    try {
      flags = parseFlags(argv);
    } catch (e) {
      if (!(e instanceof UsageError)) throw e;
      say(red(e.message));
      return { exitCode: 2, history: [] };
    }
    if (flags.help) {
      say(USAGE);
      return { exitCode: 0, history: [] };
    }
    // The configuration (key, base URL, COURSE_SANDBOX) is read once, from the course's .env,
    // before the first line: the line says what the run really has.
    takeJournal(); // this run's summary starts empty
    const llm = deps.llm ?? chooseModel(flags);
    for (const line of startLines(flags)) say(dim(line));
    if ("banner" in llm) say(String(llm.banner));
    say(dim(`workspace: ${flags.workspace}`));
    let resumed: Session | undefined;
    try {
      resumed = flags.resume ? loadSession(flags.resume) : undefined;
    } catch (e) {
      if (!(e instanceof SessionError)) throw e;
      say(red(e.message));
      return { exitCode: 2, history: [] };
    }

    // Everything that happens is logged for a person, written to .course/runs/ and kept for --trace.
    const log = new RunLog({ lesson: agent.lesson ?? "s12_guarded_agent", model: llm.model, task: flags.task ?? "(conversation)" });
    const responses: Anthropic.Message[] = [];
    const onEvent = fanOut(createLogger({ verbose: flags.verbose }), log.sink, (e) => void (e.type === "think" && responses.push(e.message)));
    const history: Anthropic.MessageParam[] = resumed?.messages ?? [];
    let exitCode = 0;

    // The terminal closed (SIGHUP), the system stops it (SIGTERM), Ctrl-C or kill -INT (SIGINT):
    // every tool process and MCP server is killed, the transcript saved, and the program exits.
    const aborted = new AbortController();
    if (deps.signal?.aborted) aborted.abort(deps.signal.reason);
    else deps.signal?.addEventListener("abort", () => aborted.abort(deps.signal?.reason), { once: true });
    let repl: Repl | undefined;
    const removeHandlers = stopOnSignals({
      abort: (signal) => aborted.abort(new Error(signal)),
      save: (signal) => {
        const now = repl?.history ?? history;
        closeTranscript(now, `not finished: the agent was stopped by ${signal}`);
        log.transcript(now);
        if (repl && now.length > 0) repl.save();
        else if (resumed) saveSession(resumed.name, now, { model: llm.model });
        return log.path;
      },
      say: (line) => say(dim(line)),
    });

    try {
      if (flags.task) {
        // One task: one run of the loop, then the exit code says how it went.
        addQuestion(history, flags.task);
        // A run that throws (the API down after the retries, a broken stream…) still saves its transcript.
        const outcome = await keepOnFailure(history, () => agent.runAgent(llm, history, { ...agent.optionsFrom(flags, onEvent), signal: aborted.signal }));
        exitCode = outcome.status === "done" ? 0 : 1;
        if (resumed) saveSession(resumed.name, history, { model: llm.model });
      } else {
        // No task: the conversation of s10, its approval questions asked on the same terminal.
        const options = agent.optionsFrom(flags, onEvent);
        repl = await converse((approve) => (repl = agent.createRepl(llm, { ...(resumed ? { name: resumed.name } : {}), history, agent: { ...options, approve } })), {
          yes: flags.yes,
          resumeWith: "npm run agent -- --resume",
        });
        history.splice(0, history.length, ...repl.history);
      }
    } finally {
      removeHandlers();
    }
    log.transcript(history);
    if (flags.trace) {
      heading("The message table");
      for (const line of messageTable(history, responses)) say(line);
    }
    // Writes that would make code run later, outside the sandbox, and what became of each.
    for (const line of journalLines(takeJournal())) say(yellow(line));
    say(dim(`run log: ${log.path}`));
    return { exitCode, history };
  };
}
// #endregion program
