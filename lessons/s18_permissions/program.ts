/**
 * The final agent, `npm run agent`: s17's program around s18's loop, with one flag more,
 * --permission-mode, and the rules of the user's and the workspace's settings files.
 *
 * Run: npx tsx lessons/s18_permissions/program.ts -- [--permission-mode MODE] [s17's flags] ["task"]   (--help for all)
 */
import type { Llm } from "../../runtime/client.ts";
import { runMain } from "../../runtime/lesson.ts";
import { red, say } from "../../runtime/print.ts";
import { sandboxInfo } from "../../runtime/tools/sandbox.ts";
import { UsageError, parseFlags } from "../../solutions/s12_guarded_agent/cli.ts";
import type { RunResult } from "../../solutions/s12_guarded_agent/program.ts";
import { AGENT_USAGE, run as finalProgram, type FinalLoop, type RefusalEnds } from "../../solutions/s17_mcp/program.ts";
import { PermissionModeError, policyFor, runAgent, type RunOptions } from "./agent.ts";
import { EXIT_PLAN, MODES, SettingsError, userConfigDir, type Mode } from "./permissions.ts";

export const PERMISSIONS_USAGE = `${AGENT_USAGE}

s18 adds permissions: every tool call meets the rules of your settings (${userConfigDir()}/settings.json,
or $AGENT_CONFIG_DIR/settings.json) and of the workspace's .agent/settings.json, then the mode:
  { "permissions": { "allow": ["bash(node --test*)"], "ask": [], "deny": ["bash(rm *)", "write_file(test/**)"] } }
  deny beats ask beats allow, whichever file a rule is in: a project cannot widen what you deny.
  --permission-mode MODE  what happens to a call no rule decides:
                       default            ask for anything that is not read-only (--yes answers yes)
                       acceptEdits        also let write_file and edit_file change the workspace
                       plan               read-only tools only, until you approve the model's plan
                       bypassPermissions  never ask (deny rules still hold); only inside the OS sandbox
A call that is not allowed is not run: the model gets an error result naming the rule.`;

/** --permission-mode taken out of argv ("--permission-mode plan" or "--permission-mode=plan"). */
export function permissionFlag(argv: readonly string[]): { mode?: Mode; rest: string[] } {
  const rest: string[] = [];
  let mode: string | undefined;
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    if (arg !== "--permission-mode" && !arg.startsWith("--permission-mode=")) {
      rest.push(arg);
      continue;
    }
    mode = arg.includes("=") ? arg.slice(arg.indexOf("=") + 1) : argv[++i];
    if (!mode || mode.startsWith("--")) throw new UsageError(`--permission-mode needs a value: one of ${MODES.join(", ")}`);
    if (!MODES.includes(mode as Mode)) throw new UsageError(`--permission-mode ${mode}: not a mode; use one of ${MODES.join(", ")}`);
  }
  return { ...(mode ? { mode: mode as Mode } : {}), rest };
}

/** What a later lesson's program passes to run s18's with its own loop (s19: the hooks). */
export interface LaterProgram {
  runAgent: (llm: Llm, history: Parameters<typeof runAgent>[1], opts: RunOptions) => ReturnType<typeof runAgent>;
  lesson: string;
  usage: string;
  /** Checks the workspace's settings before anything runs: throws a SettingsError for a mistake. */
  check?: (workspace: string) => void;
  /** Its REPL, when it adds commands (s21: /rewind). */
  createRepl?: FinalLoop["createRepl"];
}

/** The whole program: flags in, exit code and transcript out (tests pass their own model). */
export async function run(argv: string[], deps: { llm?: Llm; signal?: AbortSignal } = {}, later?: LaterProgram): Promise<RunResult> {
  let mode: Mode | undefined;
  let rest: string[];
  try {
    ({ mode, rest } = permissionFlag(argv));
    // The settings files and the mode are checked before anything runs: a mistake is one line, exit 2.
    if (!rest.includes("--help") && !rest.includes("-h")) {
      let workspace: string | undefined;
      try {
        workspace = parseFlags(rest).workspace;
      } catch (e) {
        if (!(e instanceof UsageError)) throw e; // s17's program reports it
      }
      if (workspace) policyFor({ ...(mode ? { permissionMode: mode } : {}), sandboxed: sandboxInfo().kind !== "none" }, workspace);
      if (workspace) later?.check?.(workspace);
    }
  } catch (e) {
    if (!(e instanceof UsageError || e instanceof SettingsError || e instanceof PermissionModeError)) throw e;
    say(red(e.message));
    return { exitCode: 2, history: [] };
  }
  const options: Partial<RunOptions> = mode ? { permissionMode: mode } : {};
  const loop = later?.runAgent ?? runAgent;
  return finalProgram(rest, deps, { runAgent: (llm, history, opts) => loop(llm, history, opts), lesson: later?.lesson ?? "s18_permissions", options, usage: later?.usage ?? PERMISSIONS_USAGE, ...(later?.createRepl ? { createRepl: later.createRepl } : {}), refusalEnds: PLAN_REFUSED });
}

/** Plan mode with the plan never approved: the task is not done, and the run says so (exit 1). */
const PLAN_REFUSED: RefusalEnds = {
  tool: EXIT_PLAN,
  reason: "plan_not_approved",
  detail: "the plan was not approved, so nothing was changed",
  advice: "Approve it when asked (in a terminal), or run with --yes",
};

runMain(import.meta.url, async () => {
  // Ctrl-C stops a one-shot run cleanly (the REPL handles its own Ctrl-C).
  const controller = new AbortController();
  process.once("SIGINT", () => controller.abort());
  const { exitCode } = await run(process.argv.slice(2), { signal: controller.signal });
  process.exitCode = exitCode;
});
