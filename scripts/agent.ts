/**
 * `npm run agent`: the course's final agent. It runs the program of the LAST lesson whose
 * course.json names one (`"agent": "program.ts"`, runtime/registrations.ts finalAgent), so a new
 * lesson moves the command to its own program with one line of its own course.json, and no test
 * or script names the folder. The program exports `run(argv, deps)`, as every agent program from
 * s12 on does; its exit code is the process's.
 */
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import type { Llm } from "../runtime/client.ts";
import { runMain } from "../runtime/lesson.ts";
import { finalAgent } from "../runtime/registrations.ts";
import { ROOT } from "./lib/paths.ts";

/** What an agent program exports (s12's RunResult: the exit code, and the transcript for tests). */
export interface AgentProgram {
  run(argv: string[], deps?: { llm?: Llm; signal?: AbortSignal }): Promise<{ exitCode: number }>;
}

/** The final agent's program, imported. */
export async function loadFinalProgram(): Promise<AgentProgram> {
  const { program } = finalAgent();
  const mod = (await import(pathToFileURL(join(ROOT, program)).href)) as Partial<AgentProgram>;
  if (typeof mod.run !== "function") throw new Error(`${program} does not export run(argv, deps): npm run agent cannot start it`);
  return mod as AgentProgram;
}

runMain(import.meta.url, async () => {
  const { run } = await loadFinalProgram();
  // Ctrl-C stops a one-shot run cleanly (the REPL handles its own Ctrl-C).
  const controller = new AbortController();
  process.once("SIGINT", () => controller.abort());
  const { exitCode } = await run(process.argv.slice(2), { signal: controller.signal });
  process.exitCode = exitCode;
});
