/**
 * s10_conversation: a REPL over one history (the outer loop around the agent loop).
 *
 * Unlike s09, where a run answered one task and the program ended, the loop now runs once per
 * question of a conversation, always on the SAME history: a follow-up is answered from what the
 * model saw before. The session is saved after every turn (.course/sessions/) and can be
 * resumed. Ctrl-C cancels the turn in flight, not the session, and `settleTurn` (repl.ts) leaves
 * the history sendable whatever the cancelled turn left behind. The loop itself is s09's
 * (imported, unchanged); `replOver` hands any loop to the REPL, so s11 and s12 reuse it.
 *
 * Run: npm run lesson s10 -- [--resume NAME] ["first question"]
 *      then type questions, /help, /save NAME, /reset, /exit; Ctrl-C cancels an answer.
 */
import { parseArgs } from "node:util";
import type Anthropic from "@anthropic-ai/sdk";
import { selectModel, type Llm } from "../../runtime/client.ts";
import { runMain, sandboxLine, scratchFor, todo } from "../../runtime/lesson.ts";
import { printTurnEnd, say } from "../../runtime/print.ts";
import { scratchWorkspace } from "../../runtime/tools/files.ts";
import { S10_FOLLOW_UP, S10_TASK, SAMPLE_REPOSITORY } from "../../runtime/tasks.ts";
import type { EventSink } from "../../solutions/s09_observability/events.ts";
import { createLogger } from "../../solutions/s09_observability/log.ts";
import { runAgent, type RunOptions } from "../../solutions/s09_observability/agent.ts";
import { Repl } from "./repl.ts";
import { conversation } from "./terminal.ts";

export { runAgent, system, DEFAULT_MAX_TOKENS, type RunOptions } from "../../solutions/s09_observability/agent.ts";

// #region repl
/** Options of a conversation: where sessions live, which one, and the loop's own options `O`. */
export interface ConversationOptions<O> {
  dir?: string;
  name?: string;
  history?: Anthropic.MessageParam[];
  /** Passed to every run of the loop (the REPL adds the signal of the turn). */
  agent?: Omit<O, "signal">;
}

/** A loop the REPL can run: s09's runAgent, or a later lesson's. */
export type Loop<O> = (llm: Llm, history: Anthropic.MessageParam[], opts: O) => Promise<unknown>;

/** The REPL over one history for a given loop: each question runs the whole loop, cancellable with Ctrl-C. */
export function replOver<O extends { signal?: AbortSignal; onEvent?: EventSink }>(loop: Loop<O>) {
  return (llm: Llm, opts: ConversationOptions<O> = {}): Repl =>
    new Repl({
      ...(opts.dir ? { dir: opts.dir } : {}),
      ...(opts.name ? { name: opts.name } : {}),
      ...(opts.history ? { history: opts.history } : {}),
      model: llm.model,
      // TODO: run the loop on the REPL's history, with a logger as onEvent (createLogger()), the
      //       agent options, and this turn's signal, so that Ctrl-C (repl.cancel()) aborts the run in flight.
      runTurn: (history, signal) => todo(`s10 createRepl: run the loop on the shared history (${history.length} messages, ${signal.aborted ? "aborted" : "live"})`),
      onTurnEnd: printTurnEnd,
    });
}

/** The REPL over s09's loop. */
export const createRepl = replOver<RunOptions>(runAgent);
// #endregion repl

/** The default conversation, on a scratch copy of the sample repository: a question, a follow-up that needs the first answer, saved. */
export async function demo(llm: Llm): Promise<Anthropic.MessageParam[]> {
  const root = await scratchFor(SAMPLE_REPOSITORY);
  const repl = createRepl(llm, { dir: await scratchWorkspace({}, "s10-sessions-"), name: "demo", agent: { root } });
  for (const line of [S10_TASK, S10_FOLLOW_UP, "/save"]) await repl.handle(line);
  return repl.history;
}

runMain(import.meta.url, async () => {
  const { values, positionals } = parseArgs({ allowPositionals: true, options: { resume: { type: "string" } } });
  const llm = selectModel();
  say(llm.banner);
  say(sandboxLine());
  await conversation((opts) => createRepl(llm, opts), llm, { ...values, first: positionals.join(" ").trim() });
});
