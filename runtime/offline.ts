/**
 * The offline model's honesty, for the programs that run it (the lesson harness, `npm run agent`):
 * a task it has no script for is answered, in the FIRST answer, with what it can and cannot do
 * (runtime/scripted/scenarios/intents.ts); the run then ends "not done", with a non-zero exit,
 * however the loop itself judged it. And the tasks it does know, listed (`--scenarios`).
 *
 * The run is recognised by its transcript (an answer that begins with UNSCRIPTED_MARK), so it
 * works in process and through the offline server (`npm run offline-model`) alike.
 */
import type Anthropic from "@anthropic-ai/sdk";
import { CourseError } from "./env.ts";
import { SCENARIOS } from "./scripted/scenarios/index.ts";
import { UNSCRIPTED_MARK, UNSCRIPTED_SENT_BACK } from "./scripted/scenarios/intents.ts";
import { textOf } from "./transcript.ts";
import { word } from "./words.ts";

/** A run whose task the offline model had no script for: not done, whatever the loop concluded. */
export class NotDoneOffline extends CourseError {
  override name = "NotDoneOffline";
}

/** Is this answer the offline model's to a task it has no script for? */
export function unscriptedAnswer(content: Anthropic.MessageParam["content"]): boolean {
  return textOf(content).trimStart().startsWith(UNSCRIPTED_MARK);
}

/** Is this the offline model's answer to a Stop hook that sent it back to a task it has no script for? */
export function unscriptedSentBack(content: Anthropic.MessageParam["content"]): boolean {
  return textOf(content).trimStart().startsWith(UNSCRIPTED_SENT_BACK);
}

/** Did the offline model answer this conversation as a task it has no script for? */
export function unscriptedRun(history: readonly Anthropic.MessageParam[]): boolean {
  return history.some((m) => m.role === "assistant" && unscriptedAnswer(m.content));
}

/** Does the offline model have a script for this task (a scenario whose task it is, word for word)? */
export function hasScript(task: string): boolean {
  return SCENARIOS.some((s) => s.task !== undefined && s.task.trim() === task.trim());
}

/** Printed before a run, offline, when the task has no script: the limits, before anything runs (in the learner's language). */
export const noScript = (): string => word("run.no-script");

/** What a run of an unscripted task ends with (its exit is non-zero), in the learner's language (COURSE_LANG). */
export const notDoneOffline = (): string => word("run.not-done-offline");

const oneLine = (s: string, max = 110) => {
  const flat = s.replace(/\s+/g, " ").trim();
  return flat.length > max ? `${flat.slice(0, max - 1)}…` : flat;
};

/** The tasks the offline model has a script for, one per line, then what it does with any other. */
export function scenarioList(): string {
  const known = SCENARIOS.filter((s) => s.task !== undefined);
  return [
    "Offline, the scripted model answers these tasks, given word for word (a lesson run without a task uses its own):",
    ...known.map((s) => `  ${s.id.padEnd(24)} ${oneLine(s.task!)}`),
    "Any other task: it says so in its first answer, takes at most one step it recognises (list the files, read a file,",
    "run a `command`, run the tests) and quotes it, and the run ends not done. With --mcp-config examples/mcp-notes/mcp.json,",
    "any question is searched in the team's notes, the note read and quoted.",
  ].join("\n");
}
