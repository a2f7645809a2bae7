/**
 * The final agent with s20's memory: s19's program (s18's flags, the settings' rules and hooks)
 * around s20's loop, with one flag more, --context-budget. The instruction files, the memory
 * tool and context editing are on by default.
 *
 * Run: npx tsx lessons/s20_memory/program.ts [--context-budget N] [s19's flags] ["task"]   (--help for all)
 */
import type { Llm } from "../../runtime/client.ts";
import { runMain } from "../../runtime/lesson.ts";
import { red, say } from "../../runtime/print.ts";
import { UsageError } from "../../solutions/s12_guarded_agent/cli.ts";
import type { RunResult } from "../../solutions/s12_guarded_agent/program.ts";
import { userConfigDir } from "../../solutions/s18_permissions/permissions.ts";
import { run as permissionsProgram } from "../../solutions/s18_permissions/program.ts";
import { loadHooks } from "../../solutions/s19_hooks/hooks.ts";
import { HOOKS_USAGE, withReviewedHooks } from "../../solutions/s19_hooks/program.ts";
import { runAgent } from "./agent.ts";
import { DEFAULT_POLICY, type ClearPolicy } from "./context.ts";
import { INSTRUCTION_FILES, MAX_FILE_CHARS, MAX_TOTAL_CHARS } from "./instructions.ts";
import { MEMORY_DIR } from "./memory.ts";

export const MEMORY_USAGE = `${HOOKS_USAGE}

s20 adds the project's memory:
  Instruction files (${INSTRUCTION_FILES.join(", ")}) from ${userConfigDir()}/ and from every folder between the
  repository root and the workspace go into the system prompt, the nearest last (it wins), each cut at
  ${MAX_FILE_CHARS} characters and all at ${MAX_TOTAL_CHARS}, with a note when cut.
  The memory tool keeps notes across runs in the workspace's ${MEMORY_DIR}/ (view, create, str_replace, delete).
  --context-budget N   past N characters of tool results, older results leave the request (the newest
                       ${DEFAULT_POLICY.keep} stay; the history keeps them all); default ${DEFAULT_POLICY.budget}, 0 = never`;

/** --context-budget taken out of argv: the policy (false: never clear), and the rest. */
export function budgetFlag(argv: readonly string[]): { policy?: ClearPolicy | false; rest: string[] } {
  const rest: string[] = [];
  let value: string | undefined;
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    if (arg !== "--context-budget" && !arg.startsWith("--context-budget=")) rest.push(arg);
    else value = arg.includes("=") ? arg.slice(arg.indexOf("=") + 1) : (argv[++i] ?? "");
  }
  if (value === undefined) return { rest };
  if (!/^\d+$/.test(value)) throw new UsageError(`--context-budget ${value || "(nothing)"}: give a number of characters, e.g. --context-budget 40000 (0: never clear)`);
  return { policy: Number(value) === 0 ? false : { ...DEFAULT_POLICY, budget: Number(value) }, rest };
}

/** --context-budget as the loop options it sets and the rest of argv; a bad value is said in one line: null (exit 2). */
export function contextEditingFlag(argv: readonly string[]): { editing: { contextEditing?: ClearPolicy | false }; rest: string[] } | null {
  try {
    const flag = budgetFlag(argv);
    return { editing: flag.policy === undefined ? {} : { contextEditing: flag.policy }, rest: flag.rest };
  } catch (e) {
    if (!(e instanceof UsageError)) throw e;
    say(red(e.message));
    return null;
  }
}

/** The whole program: flags in, exit code and transcript out (tests pass their own model). */
export async function run(argv: string[], deps: { llm?: Llm; signal?: AbortSignal } = {}): Promise<RunResult> {
  const flag = contextEditingFlag(argv);
  if (!flag) return { exitCode: 2, history: [] };
  const { editing } = flag;
  return permissionsProgram(flag.rest, deps, {
    // s19's review: the workspace's hooks run once the person approved them.
    runAgent: withReviewedHooks((llm, history, opts) => runAgent(llm, history, { ...opts, ...editing })),
    lesson: "s20_memory",
    usage: MEMORY_USAGE,
    check: (workspace) => void loadHooks(workspace),
  });
}

runMain(import.meta.url, async () => {
  // Ctrl-C stops a one-shot run cleanly (the REPL handles its own Ctrl-C).
  const controller = new AbortController();
  process.once("SIGINT", () => controller.abort());
  const { exitCode } = await run(process.argv.slice(2), { signal: controller.signal });
  process.exitCode = exitCode;
});
