/**
 * The lesson manifest: one entry per lesson, in order. The course command line (run, check,
 * hint, list, verify), the docs sidebar and the tests all read it, so a lesson exists in one
 * place. Hints are guiding questions; the second is stronger.
 */
export interface Lesson {
  /** Short id used on the command line: "s01". */
  id: string;
  /** Folder under lessons/ and solutions/, test file stem, docs page stem: "s01_agent_loop". */
  dir: string;
  title: string;
  /** The one idea this lesson adds, in a sentence. */
  idea: string;
  /** The lesson's runnable script inside its folder. */
  entry: string;
  hints: [string, string];
}

export const LESSONS: Lesson[] = [
  {
    id: "s01",
    dir: "s01_agent_loop",
    title: "The agent loop",
    idea: "One raw call with a bash tool, then a while loop: append the reply, run the tools, answer them, repeat until stop_reason is not tool_use.",
    entry: "agent.ts",
    hints: [
      "What does the API need to see next time: only your tool results, or also the assistant turn that asked for them? " +
        "Which field of the response tells you whether the model is waiting for a tool? " +
        "How does the model know which result belongs to which call?",
      "Push { role: \"assistant\", content: response.content } first, unchanged. Return when stop_reason !== \"tool_use\". " +
        "Otherwise build one tool_result per tool_use block ({ type: \"tool_result\", tool_use_id: block.id, content: output }) " +
        "and push them all in ONE { role: \"user\", content: results } message.",
    ],
  },
];

/** Finds a lesson by "s01", "1", "01" or "s01_agent_loop". */
export function findLesson(key: string): Lesson | undefined {
  const k = key.trim().toLowerCase();
  const n = /^s?0*(\d+)$/.exec(k)?.[1];
  return LESSONS.find((l) => l.dir === k || l.id === k || (n !== undefined && Number(l.id.slice(1)) === Number(n)));
}
