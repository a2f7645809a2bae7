/**
 * The agent with checkpoints: s20's program (s18's flags and settings files, s19's hooks, s20's
 * --context-budget) around s21's loop. Every user turn is a
 * checkpoint; each run prints what a rewind of it would put back.
 *
 * Run: npx tsx lessons/s21_checkpoints/program.ts -- [s20's flags] ["task"]   (--help for all)
 */
import type Anthropic from "@anthropic-ai/sdk";
import type { Llm } from "../../runtime/client.ts";
import { runMain } from "../../runtime/lesson.ts";
import { printTurnEnd, say, yellow } from "../../runtime/print.ts";
import { Repl } from "../../solutions/s10_conversation/repl.ts";
import { createLogger } from "../../solutions/s09_observability/log.ts";
import type { RunResult } from "../../solutions/s12_guarded_agent/program.ts";
import { run as permissionsProgram } from "../../solutions/s18_permissions/program.ts";
import { loadHooks } from "../../solutions/s19_hooks/hooks.ts";
import { withReviewedHooks } from "../../solutions/s19_hooks/program.ts";
import { MEMORY_USAGE, contextEditingFlag } from "../../solutions/s20_memory/program.ts";
import { describeRewind, rewind, RewindError, runAgent, runIdOf, timelineOf, type RewindWhat, type RunOptions } from "./agent.ts";

export const REWIND_HELP = "/rewind [n [code|conversation|both]]  list the checkpoints, or go back to checkpoint n (default: both)";

export const CHECKPOINTS_USAGE = `${MEMORY_USAGE}

s21 adds checkpoints: every question you ask is one. Before write_file or edit_file changes a file,
its previous state is kept (in memory, for this session). In the conversation:
  ${REWIND_HELP}
(the API: rewind(runId, n, "code" | "conversation" | "both")). It puts back the files changed since
checkpoint n, cuts the conversation back to just before question n, or both. What a bash command
changed is not recorded: a turn that ran one says so, and a rewind lists the files that still
differ from the checkpoint.`;

/** What /rewind does; a rewind of the conversation is saved with the session. */
export function rewindCommand(history: Anthropic.MessageParam[], args: string): { text: string; conversation: boolean } {
  const id = runIdOf(history);
  const checkpoints = timelineOf(id)?.checkpoints ?? [];
  const [n, what = "both", extra] = args.split(/\s+/).filter(Boolean);
  if (!n) return { text: checkpoints.length ? checkpoints.map((k) => `  ${k.n}  ${JSON.stringify(k.prompt.slice(0, 70))}  (${k.files.size} file(s) kept)`).join("\n") : "(no checkpoint yet: ask something first)", conversation: false };
  if (extra !== undefined || !["code", "conversation", "both"].includes(what)) return { text: yellow(`usage: ${REWIND_HELP}`), conversation: false };
  try {
    const done = rewind(id, Number(n), what as RewindWhat);
    return { text: describeRewind(done), conversation: done.conversation };
  } catch (e) {
    if (e instanceof RewindError) return { text: yellow(e.message), conversation: false };
    throw e;
  }
}

/** s10's REPL with one command more, /rewind. */
export class RewindRepl extends Repl {
  override async handle(line: string): Promise<"continue" | "exit"> {
    const command = /^\/rewind(?:\s+(.*))?$/i.exec(line.trim());
    if (!command) {
      const next = await super.handle(line);
      if (/^\/(help|\?)$/i.test(line.trim())) say(REWIND_HELP);
      return next;
    }
    const { text, conversation } = rewindCommand(this.history, command[1] ?? "");
    say(text);
    if (conversation && this.history.length > 0) this.save();
    return "continue";
  }
}

/** The REPL over s21's loop, or a later lesson's built on it (s10's replOver, with /rewind). */
export const createRepl = (
  llm: Llm,
  opts: { dir?: string; name?: string; history?: Anthropic.MessageParam[]; agent?: Omit<RunOptions, "signal"> } = {},
  loop: typeof runAgent = runAgent,
): RewindRepl =>
  new RewindRepl({
    ...(opts.dir ? { dir: opts.dir } : {}),
    ...(opts.name ? { name: opts.name } : {}),
    ...(opts.history ? { history: opts.history } : {}),
    model: llm.model,
    runTurn: (history, signal) => loop(llm, history, { onEvent: createLogger(), ...opts.agent, signal }),
    onTurnEnd: printTurnEnd,
  });

/** s20's program around a loop built on s21's (s22 passes its own): --context-budget, /rewind in the conversation. */
export async function checkpointsProgram(argv: string[], deps: { llm?: Llm; signal?: AbortSignal }, later: { runAgent: typeof runAgent; lesson: string; usage: string }): Promise<RunResult> {
  const flag = contextEditingFlag(argv); // s20's --context-budget
  if (!flag) return { exitCode: 2, history: [] };
  const { editing } = flag;
  // s19's review: the workspace's hooks run once the person approved them (in a conversation, asked once).
  const loop = withReviewedHooks(later.runAgent);
  return permissionsProgram(flag.rest, deps, {
    runAgent: (llm, history, opts) => loop(llm, history, { ...opts, ...editing }),
    lesson: later.lesson,
    usage: later.usage,
    check: (workspace) => void loadHooks(workspace),
    createRepl: (llm, opts) => createRepl(llm, { ...opts, agent: { ...opts.agent, ...editing } }, loop),
  });
}

/** The whole program: flags in, exit code and transcript out (tests pass their own model). */
export const run = (argv: string[], deps: { llm?: Llm; signal?: AbortSignal } = {}): Promise<RunResult> =>
  checkpointsProgram(argv, deps, { runAgent, lesson: "s21_checkpoints", usage: CHECKPOINTS_USAGE });

runMain(import.meta.url, async () => {
  // Ctrl-C stops a one-shot run cleanly (the REPL handles its own Ctrl-C).
  const controller = new AbortController();
  process.once("SIGINT", () => controller.abort());
  const { exitCode } = await run(process.argv.slice(2), { signal: controller.signal });
  process.exitCode = exitCode;
});
