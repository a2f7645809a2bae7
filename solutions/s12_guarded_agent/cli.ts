/**
 * The capstone's command line: flags for everything the earlier lessons made configurable, read
 * with node's own `parseArgs`. A mistake in a flag is a one-line message and exit code 2, never a
 * stack trace.
 */
import { existsSync, statSync } from "node:fs";
import { resolve } from "node:path";
import { parseArgs } from "node:util";
import { COURSE_ROOT, CourseError, courseWorkspaceProblem } from "../../runtime/env.ts";
import { sandboxInfo } from "../../runtime/tools/sandbox.ts";

export class UsageError extends CourseError {
  override name = "UsageError";
}

export const USAGE = `usage: npm run agent -- [flags] ["task"]

  "task"               do this one task and exit (0 when done, 1 when stopped); without it: a conversation
  --workspace DIR      the folder the agent may read and change (default: the current directory, never the
                       course checkout: under npm run, give one)
  --model ID           the model (default: MODEL_ID, or the scripted model offline)
  --max-turns N        stop after N model responses (default 25)
  --budget TOKENS      stop past this many tokens, cache included (default 500000)
  --timeout SECONDS    stop the run after this long (default 600)
  --yes                run bash commands that are not read-only without asking (without it: asked
                       on a terminal, refused with none)
  --verbose            log every step (think, act, observe) with usage
  --trace              print the message table at the end ([0] user …)
  --resume NAME        continue a saved conversation (.course/sessions/NAME.json)
  --help               this text

Tools: read_file, write_file, edit_file, list_files (inside the workspace), bash (read-only commands
run at once, others need approval), run_tests (the workspace's tests with node --test, optionally one
module's).

Every command and test run goes into an OS sandbox where the machine has one (bubblewrap on Linux:
apt-get install -y bubblewrap): the workspace read-write, the system folders read-only, nothing else,
no network, no secrets, nothing left running. The first line of a run says which. In every mode,
.env files, keys, credentials and .course/ are out of reach of every tool. Without a sandbox
(COURSE_SANDBOX=off, or none can start), run_tests also asks whenever the workspace differs from
what you first gave it or last approved (whatever changed it).

Offline by default: without ANTHROPIC_API_KEY (or ANTHROPIC_BASE_URL) the scripted model answers.`;

// #region flags
export interface Flags {
  workspace: string;
  model?: string;
  maxTurns?: number;
  budget?: number;
  timeoutMs?: number;
  yes: boolean;
  verbose: boolean;
  trace: boolean;
  resume?: string;
  help: boolean;
  /** The one-shot task, or undefined for the REPL. */
  task?: string;
}

function positiveInt(flag: string, value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  const n = Number(value);
  if (!Number.isInteger(n) || n <= 0) throw new UsageError(`${flag} needs a whole number above 0, not "${value}"`);
  return n;
}

/** parseArgs' error in a few words: "unknown flag --verbos", "--budget needs a value". */
function flagMistake(e: unknown): string {
  const { code, message = String(e) } = e as { code?: string; message?: string };
  const name = /'([^']+)'/.exec(message)?.[1]?.replace(/ <value>$/, "");
  if (code === "ERR_PARSE_ARGS_UNKNOWN_OPTION" && name) return `unknown flag ${name}`;
  if (code === "ERR_PARSE_ARGS_INVALID_OPTION_VALUE" && name) return /argument missing/.test(message) ? `${name} needs a value` : `${name} takes no value`;
  return message.split("\n")[0]!;
}

// npm runs a script from the course's root; INIT_CWD is then the folder the user typed the command in.
const startedIn = () => (process.env.INIT_CWD && resolve(process.cwd()) === COURSE_ROOT ? process.env.INIT_CWD : process.cwd());

export function parseFlags(argv: string[], cwd = startedIn()): Flags {
  let parsed;
  try {
    parsed = parseArgs({
      args: argv,
      allowPositionals: true,
      strict: true,
      options: {
        workspace: { type: "string", short: "w" },
        model: { type: "string", short: "m" },
        "max-turns": { type: "string" },
        budget: { type: "string" },
        timeout: { type: "string" },
        yes: { type: "boolean", short: "y", default: false },
        verbose: { type: "boolean", short: "v", default: false },
        trace: { type: "boolean", default: false },
        resume: { type: "string" },
        help: { type: "boolean", short: "h", default: false },
      },
    });
  } catch (e) {
    throw new UsageError(`npm run agent: ${flagMistake(e)}. ${USAGE.split("\n")[0]} (--help lists the flags)`);
  }
  const v = parsed.values;
  const workspace = resolve(cwd, v.workspace ?? ".");
  if (!existsSync(workspace) || !statSync(workspace).isDirectory())
    throw new UsageError(`--workspace ${v.workspace}: no such folder (${workspace})`);
  const timeout = positiveInt("--timeout", v.timeout);
  const maxTurns = positiveInt("--max-turns", v["max-turns"]);
  const budget = positiveInt("--budget", v.budget);
  const task = parsed.positionals.join(" ").trim();
  // Checked last, so a mistake in another flag is named first; --help needs no workspace.
  const course = v.help ? null : courseWorkspaceProblem(workspace, v.workspace !== undefined);
  if (course) throw new UsageError(course);
  return {
    workspace,
    ...(v.model ? { model: v.model } : {}),
    ...(maxTurns !== undefined ? { maxTurns } : {}),
    ...(budget !== undefined ? { budget } : {}),
    ...(timeout !== undefined ? { timeoutMs: timeout * 1000 } : {}),
    yes: v.yes,
    verbose: v.verbose,
    trace: v.trace,
    ...(v.resume ? { resume: v.resume } : {}),
    help: v.help,
    ...(task ? { task } : {}),
  };
}
// #endregion flags

/** The run's first lines: which boundary the commands have, and what --yes does. */
export function startLines(flags: Pick<Flags, "yes">): string[] {
  const lines = [sandboxInfo().line];
  if (flags.yes) lines.push("--yes: commands that are not read-only run without asking (each one is shown as it runs)");
  return lines;
}
