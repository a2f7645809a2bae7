/**
 * s24_headless: the agent driven by a script.
 *
 * Unlike s22, whose every run talked to a person (lines for the eye, questions on a terminal), a
 * run can now be read by a program: `npm run agent -- -p "task" --output-format stream-json`
 * prints one JSON object per line per event, in the Messages API's own shapes (each response the
 * Message the API sent, each answering user message the MessageParam the loop sent back), then a
 * result object (answer, turns, usage, cost, session id, is_error, stop reason); `json` prints
 * only that result. Nothing else reaches stdout; the exit code says done (0), not done (1) or a
 * mistake in the flags (2), and `--resume <session>` goes on with a saved conversation. No loop is
 * rewritten: the lines come from s09's events (onEvent) and one hook of s11's extend.ts, `answer`.
 *
 * Run: npm run lesson s24   (the default task, its lines printed as stream-json)
 */
import type Anthropic from "@anthropic-ai/sdk";
import type { Llm } from "../../runtime/client.ts";
import { lesson, transcriptOf } from "../../runtime/lesson.ts";
import { say } from "../../runtime/print.ts";
import { lessonTask, SAMPLE_REPOSITORY } from "../../runtime/tasks.ts";
import { demoApprover } from "../../solutions/s07_safe_tools/approval.ts";
import { fanOut } from "../../solutions/s09_observability/events.ts";
import { runAgent as previousLoop, type RunOptions as JobOptions } from "../../solutions/s22_background/agent.ts";
import { headlessLines, type HeadlessLine } from "./headless.ts";

export const TASK = lessonTask("s24_headless");

export interface RunOptions extends JobOptions {
  /** Where each line goes, and the session the lines name (the program prints them; tests keep them). */
  headless?: { emit: (line: HeadlessLine) => void; session: string };
}

// #region loop
/** s22's loop; with `headless`, every event a script needs becomes a line. `history` grows in place. */
export async function runAgent(llm: Llm, history: Anthropic.MessageParam[], opts: RunOptions = {}) {
  const h = opts.headless;
  if (!h) return previousLoop(llm, history, opts);
  // NEW: responses and the end of the run from s09's events; each answering user message from the last `answer` hook.
  const lines = headlessLines(history, h.emit, h.session);
  try {
    return await previousLoop(llm, history, { ...opts, onEvent: fanOut(opts.onEvent, lines.onEvent), extensions: [...(opts.extensions ?? []), lines.answered()] });
  } finally {
    lines.finish(); // the result line, once, after every round
  }
}
// #endregion loop

/** The default task on a scratch copy of the sample repository, as lines (the docs record this run). */
export const demo = (llm: Llm, task = TASK) =>
  transcriptOf(task, SAMPLE_REPOSITORY, (history, root) =>
    runAgent(llm, history, { root, approve: demoApprover(llm), userConfigDir: root, hooks: [], onHookProblem: () => {}, headless: { emit: () => {}, session: "demo" } }),
  );

lesson(import.meta.url, {
  task: TASK,
  workspace: SAMPLE_REPOSITORY,
  run: ({ llm, history, root, signal }) => runAgent(llm, history, { root, signal, headless: { emit: (line) => say(JSON.stringify(line)), session: "lesson" } }),
  printAnswer: false,
});
