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
import { yellow, say } from "../../runtime/print.ts";
import { terminalApprover } from "../../solutions/s07_safe_tools/approval.ts";
import { userConfigDir } from "../../solutions/s18_permissions/permissions.ts";
import { runAgent, type RunOptions } from "./agent.ts";
import { EVENTS, loadHooks } from "./hooks.ts";
import { hookReview } from "./trust.ts";

export const HOOKS_USAGE = `${PERMISSIONS_USAGE}

s19 adds hooks: your team's commands, in the same settings files, run at the loop's steps (${EVENTS.join(", ")}):
  { "hooks": { "PreToolUse": [{ "matcher": "bash", "command": "./check.sh", "timeout": 30 }],
               "Stop": [{ "command": "node --test >/dev/null 2>&1 || { echo 'the tests still fail' >&2; exit 2; }" }] } }
  A hook runs in the sandbox with the event as JSON on stdin. Exit 2 blocks (the reason on stderr):
  a PreToolUse hook denies the call, a Stop hook sends the model back (at most 3 times). Exit 0 may
  print { "decision": "allow"|"deny", "reason", "updatedInput", "additionalContext" }. A hook that
  crashes, hangs or prints anything else is reported and ignored; no hook gets past a deny rule.
  The workspace's hooks run once you approve them: each one new or changed since you last did is
  shown and asked about (--yes approves; with no terminal it does not run). The approvals are kept
  in ${userConfigDir()}/trusted-hooks.json; your own settings' hooks are never asked about.`;

/** `loop` given the hooks the person approved for its workspace (asked once per program run). */
export function withReviewedHooks<O extends RunOptions, R>(loop: (llm: Llm, history: Parameters<typeof runAgent>[1], opts: O) => Promise<R>) {
  const review = hookReview((line) => say(yellow(line)));
  return async (llm: Llm, history: Parameters<typeof runAgent>[1], opts: O = {} as O): Promise<R> =>
    loop(llm, history, { ...opts, hooks: opts.hooks ?? (await review(opts, { userDir: userConfigDir(), approve: terminalApprover() })) });
}

/** The whole program: flags in, exit code and transcript out (tests pass their own model). */
export const run = (argv: string[], deps: { llm?: Llm; signal?: AbortSignal } = {}): Promise<RunResult> =>
  permissionsProgram(argv, deps, { runAgent: withReviewedHooks(runAgent), lesson: "s19_hooks", usage: HOOKS_USAGE, check: (workspace) => void loadHooks(workspace) });

runMain(import.meta.url, async () => {
  // Ctrl-C stops a one-shot run cleanly (the REPL handles its own Ctrl-C).
  const controller = new AbortController();
  process.once("SIGINT", () => controller.abort());
  const { exitCode } = await run(process.argv.slice(2), { signal: controller.signal });
  process.exitCode = exitCode;
});
