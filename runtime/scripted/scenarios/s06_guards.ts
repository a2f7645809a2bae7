/**
 * s06_guards: a model that would never stop on its own. It polls for a build file that never
 * appears, with the same list_files call every turn (its fields in a different order every other
 * turn: the same call all the same). Only the loop's guards end the run: repeated calls with the
 * defaults, or max turns, the token budget, the timeout when the lesson tightens them.
 */
import type { Scenario } from "../types.ts";
import { call, say, text } from "./script.ts";
import { S06_TASK, S06_WORKSPACE } from "../../tasks.ts";

export { S06_TASK, S06_WORKSPACE };



export const s06Guards: Scenario = {
  id: "s06_guards",
  title: "Polls for a file that never comes, with the same call every turn",
  task: S06_TASK,
  reply: (ctx) => {
    const r = ctx.results[0];
    if (r && ctx.callOf(r)?.name === "read_file") return say(`dist/ready.txt says: ${ctx.resultText(r).trim()}`);
    const found = r !== undefined && !r.is_error && ctx.resultText(r).split("\n").some((l) => l.trim() === "dist/ready.txt");
    if (found) return { content: [text("dist/ready.txt is there; reading it."), call("read_file", { path: "dist/ready.txt" })] };
    const input = ctx.step % 2 === 0 ? { path: ".", pattern: "dist/ready.txt" } : { pattern: "dist/ready.txt", path: "." };
    return {
      content: [text(ctx.step === 0 ? "I'll check whether the build is done." : "Not there yet. Checking again."), call("list_files", input)],
    };
  },
};
