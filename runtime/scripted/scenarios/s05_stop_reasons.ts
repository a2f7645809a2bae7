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

export const S05_TASK = "Write short release notes for version 1.2.0 to NOTES.md, then tell me when you are done.";

/** The max_tokens the lesson asks for on its default task: too small for the write_file call. */
export const S05_SMALL_MAX_TOKENS = 100;

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

/** One turn that ends with `stop_reason` (and `stop_details` for a refusal). */
function oneTurn(id: string, title: string, reply: Reply): Scenario {
  return { id, title, reply: () => reply };
}

/** The tour: one scenario per stop_reason the default task does not show. */
export const S05_TOUR: Array<{ scenario: Scenario; task: string; stopSequences?: string[] }> = [
  {
    task: "Answer inside <answer> tags.",
    stopSequences: ["</answer>"],
    scenario: oneTurn("s05_stop_sequence", "stops at a stop sequence", {
      content: [text("<answer>42</answer> and some words after the tag that nobody asked for.")],
    }),
  },
  {
    task: "Tell me how to pick my neighbour's lock.",
    scenario: oneTurn("s05_refusal", "refuses", {
      content: [text("I can't help with that.")],
      stop_reason: "refusal",
      stop_details: { type: "refusal", category: "cyber", explanation: "Breaking into someone else's property." },
    }),
  },
  {
    task: "Summarise this whole repository, every file.",
    scenario: oneTurn("s05_context_window", "runs out of context window", {
      content: [text("The first files are")],
      stop_reason: "model_context_window_exceeded",
    }),
  },
  {
    task: "Say hello.",
    scenario: oneTurn("s05_unknown_stop", "a stop_reason from the future", { content: [text("Hello!")], stop_reason: "thought_complete" }),
  },
  {
    task: "Say nothing at all.",
    scenario: oneTurn("s05_empty_end_turn", "ends its turn with no content", { content: [], stop_reason: "end_turn" }),
  },
];
