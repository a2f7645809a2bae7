/**
 * s01_agent_loop: say what it will do, call bash to list the files, then answer from the result.
 * The first answer carries a thinking block (as some providers send one unasked), so the lesson
 * shows every block type and the loop must send it back untouched.
 */
import type { Scenario } from "../types.ts";
import { call, say, steps, text, thinking } from "./script.ts";
import { S01_TASK } from "../../tasks.ts";

export { S01_TASK };


export const s01AgentLoop: Scenario = {
  id: "s01_agent_loop",
  title: "One bash call, then an answer built from its result",
  task: S01_TASK,
  reply: steps(
    () => ({
      content: [
        thinking("The user wants the files in the current directory. One bash call with ls will do."),
        text("I will list the files in the current directory with `ls`."),
        call("bash", { command: "ls" }),
      ],
    }),
    (ctx) => {
      const result = ctx.results[0];
      if (!result) return say("I expected the result of my bash call, but the last message has no tool_result.");
      const out = ctx.resultText(result).trim();
      if (result.is_error) return say(`The command failed: ${out.split("\n")[0]}`);
      const files = out.split("\n").filter((l) => l.trim().length > 0);
      const shown = files.slice(0, 8).join(", ");
      return say(`The directory has ${files.length} entries: ${shown}${files.length > 8 ? ` and ${files.length - 8} more` : ""}.`);
    },
  ),
};
