/**
 * s27_goal: Goal loop.
 *
 * Unlike s22, … (WRITE: what this lesson adds, in one paragraph). This file is the stub
 * `npm run new-lesson` wrote: its idea (a note in the system prompt) stands in for the lesson's
 * own, through the same extension point, so every piece already fits. Replace it.
 *
 * Run: npm run lesson s27
 */
import type Anthropic from "@anthropic-ai/sdk";
import type { Llm } from "../../runtime/client.ts";
import { lesson, todo, transcriptOf } from "../../runtime/lesson.ts";
import { lessonTask, SAMPLE_REPOSITORY } from "../../runtime/tasks.ts";
import { approveAll } from "../../solutions/s07_safe_tools/approval.ts";
import { createLogger } from "../../solutions/s09_observability/log.ts";
import type { Extension } from "../../solutions/s11_recovery/extend.ts";
import { runAgent as previousLoop } from "../../solutions/s22_background/agent.ts";

export const TASK = lessonTask("s27_goal");

/** The options of s22's loop: this lesson adds none yet. */
export type RunOptions = NonNullable<Parameters<typeof previousLoop>[2]>;

/** What the stub idea adds to the system prompt. */
export const NOTE = "(s27) Say which files you read before you answer.";

// #region loop
/** NEW: the lesson's idea, as an extension of s22's loop (s11's extend.ts lists the hooks). */
export const idea = (): Extension => () => ({
    system: (text) => {
      // TODO: return the base's system prompt with NOTE after it, on a line of its own after a blank line.
      return todo(`add NOTE to the system prompt (text: ${text.length} characters)`);
    },
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
