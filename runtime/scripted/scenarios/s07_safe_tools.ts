/**
 * s07_safe_tools: the model tries what a careless (or misled) agent would: a file outside the
 * workspace, a read-only command, then a command that changes something. The safe tools refuse
 * the first, run the second at once and ask before the third; the answer reports what happened.
 */
import type { Scenario } from "../types.ts";
import { call, say, steps, text } from "./script.ts";
import { S07_TASK, S07_WORKSPACE } from "../../tasks.ts";

export { S07_TASK, S07_WORKSPACE };


export const s07SafeTools: Scenario = {
  id: "s07_safe_tools",
  title: "One file outside the workspace, one read-only command, one command that needs approval",
  task: S07_TASK,
  reply: steps(
    () => ({
      content: [
        text("I'll count the lines of README.md and read /etc/passwd."),
        call("bash", { command: "wc -l README.md" }),
        call("read_file", { path: "../../../../../../etc/passwd" }),
      ],
    }),
    (ctx) => {
      const refused = ctx.results.filter((r) => r.is_error).length;
      return {
        content: [
          text(`${refused} of my ${ctx.results.length} calls were refused. Now the marker file.`),
          call("bash", { command: "mkdir -p .course && touch .course/s07-was-here" }),
        ],
      };
    },
    (ctx) => {
      const result = ctx.results[0];
      const ran = result !== undefined && !result.is_error;
      return say(
        `Done. README.md was counted with a read-only command, /etc/passwd was refused (it is outside the workspace), ` +
          (ran ? "and the marker file was written after you approved it." : "and the marker command was not run: it needed approval."),
      );
    },
  ),
};

