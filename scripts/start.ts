/**
 * npm start: lesson 1's reference loop, run at once (offline when no key is set), then where the
 * learner's own exercise is and how to check it. Words after `--` are passed on as the task;
 * it takes no flags (an unknown one is an error, exit 2).
 *
 *   npm start [-- "your task"]
 */
import { spawnSync } from "node:child_process";
import { join } from "node:path";
import { bold, dim } from "../runtime/print.ts";
import { strictArgsOrExit } from "./lib/args.ts";
import { ROOT } from "./lib/paths.ts";

const { positionals } = strictArgsOrExit({ command: "npm start", usage: '[-- "your task"]', options: {}, positionals: { max: Infinity } });
const r = spawnSync(process.execPath, ["--import", "tsx", join(ROOT, "solutions/s01_agent_loop/agent.ts"), ...positionals], {
  stdio: "inherit",
});
if (r.status === 0) {
  console.log("");
  console.log(bold("That was the finished loop of lesson 1. Now write it yourself:"));
  console.log(`  open ${bold("lessons/s01_agent_loop/agent.ts")} ${dim("(the // TODO: comments say what to write)")}`);
  console.log(`  run  ${bold("npm run check s01")} ${dim("to grade it, or")} ${bold("npm run watch")} ${dim("to grade on every save")}`);
  console.log(`  read ${bold("docs/lessons/s01_agent_loop.md")} ${dim("(or `npm run docs:dev` for the course site)")}`);
}
process.exitCode = r.status ?? 1;
