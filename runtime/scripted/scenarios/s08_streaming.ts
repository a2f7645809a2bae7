/**
 * s08_streaming: an answer long enough to watch it arrive, two read-only calls in one turn (so
 * both can start while the message is still streaming), then a streamed summary.
 */
import type { Scenario } from "../types.ts";
import { call, say, steps, text } from "./script.ts";
import { S08_TASK, S08_WORKSPACE } from "../../tasks.ts";

export { S08_TASK, S08_WORKSPACE };



export const s08Streaming: Scenario = {
  id: "s08_streaming",
  title: "Streamed text, two read-only calls noticed mid-stream, a streamed answer",
  task: S08_TASK,
  reply: steps(
    () => ({
      content: [
        text(
          "I'll read the two files that usually say what a project is: the README, which a person wrote for people, " +
            "and package.json, which says how the project is run. Both only read, so they can start at once.",
        ),
        call("read_file", { path: "README.md" }),
        call("read_file", { path: "package.json" }),
      ],
    }),
    (ctx) => {
      const [readme, pkg] = ctx.results.map((r) => ctx.resultText(r));
      const title = /^#\s*(.+)$/m.exec(readme ?? "")?.[1] ?? "(no title)";
      const start = /"start":\s*"([^"]+)"/.exec(pkg ?? "")?.[1] ?? "(no start script)";
      return say(
        `This is ${title}. The README says what it does in one line, and package.json runs it with \`${start}\`. ` +
          "Every word of this answer reached you as it was written, a few words at a time, and the two files were " +
          "read while the first message was still arriving.",
      );
    },
  ),
};
