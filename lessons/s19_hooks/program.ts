/**
 * The final agent, `npm run agent`: s18's program around s19's loop. The settings files that
 * hold the rules may now hold hooks too; they are checked before anything runs.
 *
 * Run: npx tsx lessons/s19_hooks/program.ts -- [s18's flags] ["task"]   (--help for all)
 */
import type { Llm } from "../../runtime/client.ts";
import { runMain } from "../../runtime/lesson.ts";
import type { RunResult } from "../../solutions/s12_guarded_agent/program.ts";
import { PERMISSIONS_USAGE, run as permissionsProgram } from "../../solutions/s18_permissions/program.ts";
import { runAgent } from "./agent.ts";
import { EVENTS, loadHooks } from "./hooks.ts";

export const HOOKS_USAGE = `${PERMISSIONS_USAGE}

s19 adds hooks: your team's commands, in the same settings files, run at the loop's steps (${EVENTS.join(", ")}):
  { "hooks": { "PreToolUse": [{ "matcher": "bash", "command": "./check.sh", "timeout": 30 }],
               "Stop": [{ "command": "node --test >/dev/null 2>&1 || { echo 'the tests still fail' >&2; exit 2; }" }] } }
  A hook runs in the sandbox with the event as JSON on stdin. Exit 2 blocks (the reason on stderr):
  a PreToolUse hook denies the call, a Stop hook sends the model back (at most 3 times). Exit 0 may
  print { "decision": "allow"|"deny", "reason", "updatedInput", "additionalContext" }. A hook that
  crashes, hangs or prints anything else is reported and ignored; no hook gets past a deny rule.`;

/** The whole program: flags in, exit code and transcript out (tests pass their own model). */
export const run = (argv: string[], deps: { llm?: Llm; signal?: AbortSignal } = {}): Promise<RunResult> =>
  permissionsProgram(argv, deps, { runAgent, lesson: "s19_hooks", usage: HOOKS_USAGE, check: (workspace) => void loadHooks(workspace) });

runMain(import.meta.url, async () => {
  // Ctrl-C stops a one-shot run cleanly (the REPL handles its own Ctrl-C).
  const controller = new AbortController();
  process.once("SIGINT", () => controller.abort());
  const { exitCode } = await run(process.argv.slice(2), { signal: controller.signal });
  process.exitCode = exitCode;
});
