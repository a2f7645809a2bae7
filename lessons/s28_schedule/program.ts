/**
 * The final agent, `npm run agent`: s27's program (every flag of s12–s27) with scheduled work.
 * The model gains schedule, schedule_list and schedule_cancel in every run; the run ends once what
 * it scheduled has run, and Ctrl-C stops it all. `--loop INTERVAL "prompt"` runs the prompt now
 * and again every INTERVAL, each time as a run of its own through the same loop and rules, never
 * two at once, until --max-runs N runs have started or Ctrl-C.
 *
 * Run: npx tsx solutions/s28_schedule/program.ts -- --loop 30s [--max-runs N] [s27's flags] "prompt"   (--help for all)
 */
import type Anthropic from "@anthropic-ai/sdk";
import type { Llm } from "../../runtime/client.ts";
import { runMain } from "../../runtime/lesson.ts";
import { dim, red, say } from "../../runtime/print.ts";
import { textOf } from "../../runtime/transcript.ts";
import type { RunResult } from "../../solutions/s12_guarded_agent/program.ts";
import type { RecoveredOutcome } from "../../solutions/s22_background/agent.ts";
import { run as teamProgram, TEAM_USAGE, type LaterTeam } from "../../solutions/s27_goal/program.ts";
import { MAX_TIMES, scheduledRun, type Loop, type RunOptions } from "./agent.ts";
import { Scheduler, systemTimers, type Timers } from "./scheduler.ts";

export const SCHEDULE_USAGE = `${TEAM_USAGE}

s28 adds scheduled work:
  --loop INTERVAL          run the task now, then again every INTERVAL (30s, 5m, 1h; at least 1s), each time as
                           a run of its own through the same loop, rules, hooks and sandbox. A run still going when
                           the next is due is not started twice: that time is skipped, and a line says so. Ctrl-C
                           stops every run and timer and exits
  --max-runs N             with --loop: stop after N runs (without it, the loop runs until Ctrl-C)
The model may schedule a prompt itself with schedule (once after a delay, or every N seconds, at most
${MAX_TIMES} times), see the jobs with schedule_list and stop one with schedule_cancel. A schedule call passes
the permission rules like any call (a deny rule "schedule" or plan mode refuses it); each scheduled run is
a run of its own, judged by the same rules. The run ends once what it scheduled has run; Ctrl-C stops it all.`;

/** "30s", "5m", "1h" or a number of seconds, in ms; a mistake is its message. */
export function parseInterval(text: string): number | string {
  const m = /^(\d+(?:\.\d+)?)(ms|s|m|h)?$/.exec(text.trim());
  const ms = m ? Number(m[1]) * { ms: 1, s: 1000, m: 60_000, h: 3_600_000 }[(m[2] ?? "s") as "ms" | "s" | "m" | "h"] : NaN;
  if (!Number.isFinite(ms)) return `--loop ${text}: an interval is a number with s, m or h (30s, 5m, 1h)`;
  return ms < 1000 ? `--loop ${text}: the interval is at least 1s` : ms;
}

export interface LoopFlags {
  loop?: { everyMs: number; maxRuns?: number };
  /** s27's flags and the task. */
  rest: string[];
}

/** --loop and --max-runs taken out of argv; a mistake is its message. */
export function loopFlags(argv: readonly string[]): LoopFlags | string {
  const out: LoopFlags = { rest: [] };
  let maxRuns: number | undefined;
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    const [name, inline] = arg.startsWith("--") && arg.includes("=") ? [arg.slice(0, arg.indexOf("=")), arg.slice(arg.indexOf("=") + 1)] : [arg, undefined];
    if (name !== "--loop" && name !== "--max-runs") {
      out.rest.push(arg);
      continue;
    }
    const value = inline ?? argv[++i];
    if (value === undefined || value === "" || (inline === undefined && value.startsWith("--"))) return `${name} needs a value`;
    if (name === "--loop") {
      const every = parseInterval(value);
      if (typeof every === "string") return every;
      out.loop = { everyMs: every };
    } else {
      maxRuns = Number(value);
      if (!Number.isInteger(maxRuns) || maxRuns <= 0) return `--max-runs needs a whole number above 0, not "${value}"`;
    }
  }
  if (maxRuns !== undefined && !out.loop) return "--max-runs counts the runs of --loop: give --loop INTERVAL with it";
  if (out.loop && maxRuns !== undefined) out.loop.maxRuns = maxRuns;
  return out;
}

// #region loop-program
/** --loop: the task as a job every `everyMs` on a scheduler of its own, until maxRuns runs or Ctrl-C; the last run is the program's. */
export async function loopRun(loop: Loop, llm: Llm, history: Anthropic.MessageParam[], opts: RunOptions, every: { everyMs: number; maxRuns?: number }, timers: Timers): Promise<RecoveredOutcome> {
  const prompt = textOf(history.at(-1)?.content ?? "");
  const scheduler = new Scheduler(timers, (line) => say(dim(`loop: ${line}`)));
  let last: { outcome: RecoveredOutcome; history: Anthropic.MessageParam[] } | undefined;
  const job = scheduler.add({ prompt, afterMs: 0, everyMs: every.everyMs, ...(every.maxRuns ? { times: every.maxRuns } : {}) }, async (text, signal) => {
    // Each run a run of its own: a fresh history, the same loop and options (and the schedule tools), its own signal.
    const mine: Anthropic.MessageParam[] = [{ role: "user", content: text }];
    const outcome = await scheduledRun(loop, llm, mine, { ...opts, signal: opts.signal ? AbortSignal.any([opts.signal, signal]) : signal });
    last = { outcome, history: mine };
    return { done: outcome.status === "done", summary: outcome.status === "done" ? textOf(outcome.message.content) : outcome.detail, history: mine };
  });
  try {
    await scheduler.settled(opts.signal);
  } finally {
    const aborted = await scheduler.stop();
    say(dim(`loop: ${job.runs.length} run(s), ${job.skipped} skipped${aborted ? `, ${aborted} stopped` : ""}; every timer cleared`));
  }
  const ended = last as typeof last;
  if (!ended) return { status: "stopped", reason: "aborted", detail: "the loop was stopped before its first run ended", turns: 0 };
  history.splice(0, history.length, ...ended.history);
  return ended.outcome;
}
// #endregion loop-program

/**
 * The whole program: flags in, exit code and transcript out (tests pass their own model, stdout, journal folder and timers).
 * A later lesson's program runs this one as s28 runs s27's: its own help and its loop around this one's (`later`),
 * so it edits no file of this lesson.
 */
export async function run(
  argv: string[],
  deps: { llm?: Llm; signal?: AbortSignal; write?: (line: string) => void; journals?: string; timers?: Timers } = {},
  later?: LaterTeam,
): Promise<RunResult> {
  const flags = loopFlags(argv);
  if (typeof flags === "string") {
    process.stderr.write(`${red(`npm run agent: ${flags}`)}\n`);
    return { exitCode: 2, history: [] };
  }
  const { timers = systemTimers, ...rest } = deps;
  return teamProgram(flags.rest, rest, {
    lesson: later?.lesson ?? "s28_schedule",
    usage: later?.usage ?? SCHEDULE_USAGE,
    around: (loop) => {
      const scheduling: typeof loop = (llm, history, opts = {}) =>
        flags.loop ? loopRun(loop, llm, history, opts, flags.loop, timers) : scheduledRun(loop, llm, history, { ...opts, timers });
      return later ? later.around(scheduling) : scheduling;
    },
  });
}

runMain(import.meta.url, async () => {
  const controller = new AbortController();
  process.once("SIGINT", () => controller.abort());
  const { exitCode } = await run(process.argv.slice(2), { signal: controller.signal });
  process.exitCode = exitCode;
});
