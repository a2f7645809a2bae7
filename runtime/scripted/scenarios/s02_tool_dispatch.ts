/**
 * s02_tool_dispatch: fix a typo in a small scratch workspace with several tools, one per turn:
 * list_files, read_file, edit_file, then a call to a tool that does not exist (run_tests), whose
 * error result the model reads and works around with bash. The lesson's registry must send each
 * call to the right tool and answer the unknown one with an error instead of crashing.
 */
import type { Scenario, TurnContext } from "../types.ts";
import { call, firstLines, say, steps, text } from "./script.ts";
import { S02_TASK, S02_WORKSPACE } from "../../tasks.ts";

export { S02_TASK, S02_WORKSPACE };



/** The last result's text, or why there is none. */
function last(ctx: TurnContext): { out: string; failed: boolean } {
  const r = ctx.results[0];
  if (!r) return { out: "(no tool_result in the last message)", failed: true };
  return { out: ctx.resultText(r).trim(), failed: r.is_error === true };
}

export const s02ToolDispatch: Scenario = {
  id: "s02_tool_dispatch",
  title: "Several tools, one per turn, and one call to a tool that does not exist",
  task: S02_TASK,
  reply: steps(
    () => ({ content: [text("Let me see what is in the workspace."), call("list_files", { path: "." })] }),
    (ctx) => {
      const { out } = last(ctx);
      if (!out.includes("src/greet.mjs")) return say(`I expected src/greet.mjs in the listing, but list_files returned:\n${firstLines(out)}`);
      return { content: [text("src/greet.mjs is there; I'll read it."), call("read_file", { path: "src/greet.mjs" })] };
    },
    (ctx) => {
      const { out, failed } = last(ctx);
      if (failed || !out.includes("Helo,")) return say(`I could not find "Helo," in src/greet.mjs:\n${firstLines(out)}`);
      return {
        content: [
          text('Line 3 has the typo. I\'ll replace "Helo," with "Hello,".'),
          call("edit_file", { path: "src/greet.mjs", old_text: "Helo,", new_text: "Hello," }),
        ],
      };
    },
    (ctx) => {
      const { out, failed } = last(ctx);
      if (failed) return say(`The edit failed: ${out}`);
      return { content: [text("Fixed. Now the tests."), call("run_tests", { module: "greet" })] };
    },
    (ctx) => {
      const { out, failed } = last(ctx);
      const why = failed ? `run_tests is not one of my tools (${firstLines(out, 1)})` : "run_tests answered";
      return { content: [text(`${why}; bash can run the test file instead.`), call("bash", { command: "node test/greet.test.mjs" })] };
    },
    (ctx) => {
      const { out, failed } = last(ctx);
      if (failed || !out.includes("passed")) return say(`I changed "Helo," to "Hello," in src/greet.mjs, but the test did not pass:\n${firstLines(out)}`);
      return say(`I changed "Helo," to "Hello," on line 3 of src/greet.mjs with edit_file. The test passes: ${firstLines(out, 1)}`);
    },
  ),
};
