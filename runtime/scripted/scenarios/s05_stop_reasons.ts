/**
 * s05_stop_reasons: a turn that does not fit max_tokens, then a paused turn, then the answer.
 *
 * Turn 1 writes release notes with write_file. The lesson asks for a small max_tokens, so the
 * scripted model cuts the answer off in the middle of the tool call (stop_reason "max_tokens",
 * the call's input arrives as {}): the loop must not run it, and retries with a larger limit.
 * Turn 2 pauses ("pause_turn"): the loop sends the content back and the model goes on (turn 3).
 *
 * The one-turn scenarios below end with every other stop_reason, for the lesson's tour.
 */
import type { Reply, Scenario } from "../types.ts";
import { call, say, steps, text } from "./script.ts";
import { S05_SMALL_MAX_TOKENS, S05_TASK, S05_TOUR_TASKS } from "../../tasks.ts";

export { S05_SMALL_MAX_TOKENS, S05_TASK };



const ITEMS = [
  "The loop now returns a typed outcome instead of the last message.",
  "A response cut off by max_tokens is retried once with a larger limit.",
  "A tool call cut off by max_tokens is never run.",
  "A paused turn is sent back unchanged and continued.",
  "A refusal stops the run and says why.",
  "A full context window stops the run instead of failing later.",
  "A stop_reason the loop does not know is reported, not taken for success.",
  "An empty final answer is no longer stored as an empty message.",
];

export const S05_NOTES = `# Release notes: 1.2.0\n\n${ITEMS.map((i) => `- ${i}`).join("\n")}\n`;

export const s05StopReasons: Scenario = {
  id: "s05_stop_reasons",
  title: "A tool call cut off by max_tokens, a paused turn, then the answer",
  task: S05_TASK,
  reply: steps(
    () => ({ content: [text("I'll write the notes to NOTES.md."), call("write_file", { path: "NOTES.md", content: S05_NOTES })] }),
    (ctx): Reply => {
      const r = ctx.results[0];
      if (!r || r.is_error) return say(`Writing NOTES.md failed: ${r ? ctx.resultText(r).split("\n")[0] : "no result"}`);
      return { content: [text("NOTES.md is written. Let me look it over once more…")], stop_reason: "pause_turn" };
    },
    () => say(`Done: NOTES.md has the release notes for 1.2.0 (${ITEMS.length} items).`),
  ),
};

/** One turn that ends with `stop_reason` (and `stop_details` for a refusal), for the tour task `title` names. */
function oneTurn(id: string, title: string, reply: Reply): Scenario {
  const tour = S05_TOUR_TASKS.find((t) => t.title === title);
  if (!tour) throw new Error(`s05 tour: no task titled "${title}" in runtime/tasks.ts`);
  return { id, title, task: tour.task, reply: () => reply };
}

const tourTask = (title: string) => {
  const { task, stopSequences } = S05_TOUR_TASKS.find((t) => t.title === title)!;
  return stopSequences ? { task, stopSequences } : { task };
};

/** The tour: one scenario per stop_reason the default task does not show (routed by its task). */
export const S05_TOUR: Array<{ scenario: Scenario; task: string; stopSequences?: string[] }> = [
  {
    ...tourTask("stops at a stop sequence"),
    scenario: oneTurn("s05_stop_sequence", "stops at a stop sequence", {
      content: [text("<answer>42</answer> and some words after the tag that nobody asked for.")],
    }),
  },
  {
    ...tourTask("refuses"),
    scenario: oneTurn("s05_refusal", "refuses", {
      content: [text("I can't help with that.")],
      stop_reason: "refusal",
      stop_details: { type: "refusal", category: "cyber", explanation: "Breaking into someone else's property." },
    }),
  },
  {
    ...tourTask("runs out of context window"),
    scenario: oneTurn("s05_context_window", "runs out of context window", {
      content: [text("The first files are")],
      stop_reason: "model_context_window_exceeded",
    }),
  },
  {
    ...tourTask("a stop_reason from the future"),
    scenario: oneTurn("s05_unknown_stop", "a stop_reason from the future", { content: [text("Hello!")], stop_reason: "thought_complete" }),
  },
  {
    ...tourTask("ends its turn with no content"),
    scenario: oneTurn("s05_empty_end_turn", "ends its turn with no content", { content: [], stop_reason: "end_turn" }),
  },
];
