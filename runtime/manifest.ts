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
  {
    id: "s02",
    dir: "s02_tool_dispatch",
    title: "Tool dispatch",
    idea: "Several tools behind one registry that yields the API's tool definitions and sends each tool_use to its handler by name; an unknown tool gets an is_error result, never a crash.",
    entry: "agent.ts",
    hints: [
      "Where does the list of tools the API sees come from, and where do the handlers live: could one object own both? " +
        "What should happen when the model names a tool the registry has never heard of: who needs to know, and how? " +
        "Which field ties a result to the call it answers?",
      "In dispatch: const tool = this.tools.get(call.name); if (!tool) return { type: \"tool_result\", tool_use_id: call.id, is_error: true, content: `Unknown tool ...` }. " +
        "Otherwise return { type: \"tool_result\", tool_use_id: call.id, content: await tool.run(inputOf(call), ctx) }, catching ToolError as is_error. " +
        "In the loop: for each tool_use block, results.push(await registry.dispatch(block, ctx)).",
    ],
  },
  {
    id: "s03",
    dir: "s03_parallel_tools",
    title: "Parallel tools",
    idea: "All the tool calls of one turn answered in ONE user message, in the order asked; read-only calls next to each other run at the same time, the others alone and in order.",
    entry: "agent.ts",
    hints: [
      "Two calls that only read cannot disturb each other; can a write and a read? Can two writes? " +
        "If you start several promises at once, who decides the order of the answers: the fastest call, or the model? " +
        "Which array method keeps the order of its input whatever order the promises settle in?",
      "batches: for each call, push it onto the last batch when both it and that batch are read-only, else start a new batch [call]. " +
        "runTools: for (const batch of batches(registry, calls)) results.push(...(await Promise.all(batch.map((c) => registry.dispatch(c, ctx))))).",
    ],
  },
];

/** Finds a lesson by "s01", "1", "01" or "s01_agent_loop". */
export function findLesson(key: string): Lesson | undefined {
  const k = key.trim().toLowerCase();
  const n = /^s?0*(\d+)$/.exec(k)?.[1];
  return LESSONS.find((l) => l.dir === k || l.id === k || (n !== undefined && Number(l.id.slice(1)) === Number(n)));
}
