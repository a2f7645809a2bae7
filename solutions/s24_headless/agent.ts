/**
 * s24_headless: Headless mode.
 *
 * Unlike s22, … (WRITE: what this lesson adds, in one paragraph). This file is the stub
 * `npm run new-lesson` wrote: its idea (a note in the system prompt) stands in for the lesson's
 * own, through the same extension point, so every piece already fits. Replace it.
 *
 * Run: npm run lesson s24
 */
import type Anthropic from "@anthropic-ai/sdk";
import type { Llm } from "../../runtime/client.ts";
import { lesson, transcriptOf } from "../../runtime/lesson.ts";
import { lessonTask, SAMPLE_REPOSITORY } from "../../runtime/tasks.ts";
import { approveAll } from "../../solutions/s07_safe_tools/approval.ts";
import { createLogger } from "../../solutions/s09_observability/log.ts";
import type { Extension } from "../../solutions/s11_recovery/extend.ts";
import { runAgent as previousLoop } from "../../solutions/s22_background/agent.ts";

export const TASK = lessonTask("s24_headless");

/** The options of s22's loop: this lesson adds none yet. */
export type RunOptions = NonNullable<Parameters<typeof previousLoop>[2]>;

/** What the stub idea adds to the system prompt. */
export const NOTE = "(s24) Say which files you read before you answer.";

// #region loop
/** NEW: the lesson's idea, as an extension of s22's loop (s11's extend.ts lists the hooks). */
export const idea = (): Extension => () => ({
    system: (text) => `${text}\n\n${NOTE}`,
});

/** s22's loop with the idea. `history` grows in place; returns how the run ended. */
export function runAgent(llm: Llm, history: Anthropic.MessageParam[], opts: RunOptions = {}) {
  return previousLoop(llm, history, { ...opts, extensions: [idea(), ...(opts.extensions ?? [])] });
}
// #endregion loop

/** The default task on a scratch copy of the sample repository (the docs record this run). */
export const demo = (llm: Llm, task = TASK) => transcriptOf(task, SAMPLE_REPOSITORY, (history, root) => runAgent(llm, history, { root, approve: approveAll, userConfigDir: root, hooks: [] }));

lesson(import.meta.url, {
  task: TASK,
  workspace: SAMPLE_REPOSITORY,
  run: ({ llm, history, root, signal, flag }) => runAgent(llm, history, { root, signal, onEvent: createLogger({ verbose: flag("verbose") }) }),
  printAnswer: false,
});
