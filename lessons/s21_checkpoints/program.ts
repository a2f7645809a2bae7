/**
 * The agent with checkpoints: s18's program (s17's flags, --permission-mode, the settings files)
 * around s21's loop, with s19's hooks checked as s19's program does. Every user turn is a
 * checkpoint; each run prints what a rewind of it would put back.
 *
 * Run: npx tsx lessons/s21_checkpoints/program.ts -- [s19's flags] ["task"]   (--help for all)
 */
import type { Llm } from "../../runtime/client.ts";
import { runMain } from "../../runtime/lesson.ts";
import type { RunResult } from "../../solutions/s12_guarded_agent/program.ts";
import { run as permissionsProgram } from "../../solutions/s18_permissions/program.ts";
import { loadHooks } from "../../solutions/s19_hooks/hooks.ts";
import { HOOKS_USAGE } from "../../solutions/s19_hooks/program.ts";
import { runAgent } from "./agent.ts";

export const CHECKPOINTS_USAGE = `${HOOKS_USAGE}

s21 adds checkpoints: every question you ask is one. Before write_file or edit_file changes a file,
its previous state is kept (in memory, for this session); rewind(runId, n, "code" | "conversation" | "both")
puts back the files changed since checkpoint n, cuts the conversation back to just before question n,
or both. What a bash command changed is not recorded: a turn that ran one says so, and a rewind
lists the files that still differ from the checkpoint.`;

/** The whole program: flags in, exit code and transcript out (tests pass their own model). */
export const run = (argv: string[], deps: { llm?: Llm; signal?: AbortSignal } = {}): Promise<RunResult> =>
  permissionsProgram(argv, deps, { runAgent, lesson: "s21_checkpoints", usage: CHECKPOINTS_USAGE, check: (workspace) => void loadHooks(workspace) });

runMain(import.meta.url, async () => {
  // Ctrl-C stops a one-shot run cleanly (the REPL handles its own Ctrl-C).
  const controller = new AbortController();
  process.once("SIGINT", () => controller.abort());
  const { exitCode } = await run(process.argv.slice(2), { signal: controller.signal });
  process.exitCode = exitCode;
});
