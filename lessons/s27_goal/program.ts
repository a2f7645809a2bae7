/**
 * The final agent, `npm run agent`: s24's program (every flag of s12–s24, headless mode included)
 * around team.ts's loop, which adds Part IV's features, each on request: --worktrees (s25),
 * --workflow FILE (s26), --goal (s27). Without them it runs exactly as s24's program does.
 *
 * Run: npx tsx solutions/s27_goal/program.ts -- [--worktrees] [--workflow FILE] [--goal …] [s24's flags] ["task"]   (--help for all)
 */
import { readFileSync } from "node:fs";
import { dirname, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { z } from "zod";
import type { Llm } from "../../runtime/client.ts";
import { runMain } from "../../runtime/lesson.ts";
import { red } from "../../runtime/print.ts";
import { parseFlags } from "../../solutions/s12_guarded_agent/cli.ts";
import type { RunResult } from "../../solutions/s12_guarded_agent/program.ts";
import { partTwoFlags } from "../../solutions/s17_mcp/program.ts";
import { permissionFlag } from "../../solutions/s18_permissions/program.ts";
import { budgetFlag } from "../../solutions/s20_memory/program.ts";
import { HEADLESS_USAGE, headlessFlags, run as headlessProgram, type LaterHeadless } from "../../solutions/s24_headless/program.ts";
import { git } from "../../solutions/s25_worktrees/worktree.ts";
import { WorkflowSchema, type Workflow } from "../../solutions/s26_workflow/workflow.ts";
import { MAX_ROUNDS } from "./agent.ts";
import { journalFor, teamRun, workflowRun, type Features } from "./team.ts";

/** Where workflow journals are kept: .course/workflows at the top of the course (git-ignored, out of every tool's reach). */
export const WORKFLOWS_DIR = resolve(dirname(fileURLToPath(import.meta.url)), "../../.course/workflows");

export const TEAM_USAGE = `${HEADLESS_USAGE}

s25–s27 add, each when you ask for it:
  --worktrees              the model may hand a task that changes files to a subagent in a git worktree of
                           its own (worktree_task): a checkout of the last commit on a new branch, outside the
                           workspace; its answer, diff and branch come back, the workspace is unchanged (take a
                           change with git merge <branch>). The workspace must be a git repository with a commit.
  --workflow FILE          run the steps of FILE instead of a task: {"name", "steps": [agent, parallel and
                           pipeline steps], "caps": {"maxTokens", "maxCostUsd", "maxRuns"}} (s26's format; example:
                           examples/workflows/review.json). Each agent step is one run of this agent with every
                           flag above. Each step's start and answer go to a journal in .course/workflows/ (outside
                           the workspace, out of the model's reach): after a crash, Ctrl-C or a cap, run the same
                           command again and the finished steps are read back, not run again (the same file on the
                           same workspace is the same journal; a workflow that ended done starts over)
  --goal                   the task is a goal: each time the model says it is done, a separate evaluator (one
                           request, no tools) judges it; not done sends the model back with what is missing
  --goal-check CMD         the evidence the evaluator judges by: CMD, run in the workspace (in the sandbox) after
                           each "done", e.g. --goal-check "node --test" (without it the evaluator has only the
                           answer, a claim); implies --goal
  --max-goal-rounds N      at most N rounds (default ${MAX_ROUNDS}); implies --goal. The run's last line says how many
                           rounds it took and what the evaluator cost (json: the result's "evaluator")
Offline, a task or step the scripted model has no script for ends not done, once (no evaluator is asked).`;

const CapsSchema = z.strictObject({ maxTokens: z.number().int().positive().optional(), maxCostUsd: z.number().positive().optional(), maxRuns: z.number().int().positive().optional() });

export interface TeamFlags {
  worktrees: boolean;
  goal?: { check?: string; maxRounds?: number };
  workflow?: string;
  /** s24's flags and the task. */
  rest: string[];
}

/** --worktrees, --workflow, --goal, --goal-check and --max-goal-rounds taken out of argv; a mistake is its message. */
export function teamFlags(argv: readonly string[]): TeamFlags | string {
  const out: TeamFlags = { worktrees: false, rest: [] };
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    const [name, inline] = arg.startsWith("--") && arg.includes("=") ? [arg.slice(0, arg.indexOf("=")), arg.slice(arg.indexOf("=") + 1)] : [arg, undefined];
    if (name === "--worktrees" || name === "--goal") {
      if (inline !== undefined) return `${name} takes no value`;
      if (name === "--worktrees") out.worktrees = true;
      else out.goal ??= {};
      continue;
    }
    if (name !== "--workflow" && name !== "--goal-check" && name !== "--max-goal-rounds") {
      out.rest.push(arg);
      continue;
    }
    const value = inline ?? argv[++i];
    if (value === undefined || value === "" || (inline === undefined && value.startsWith("--"))) return `${name} needs a value`;
    if (name === "--workflow") out.workflow = value;
    else if (name === "--goal-check") out.goal = { ...out.goal, check: value };
    else {
      const n = Number(value);
      if (!Number.isInteger(n) || n <= 0) return `--max-goal-rounds needs a whole number above 0, not "${value}"`;
      out.goal = { ...out.goal, maxRounds: n };
    }
  }
  if (out.workflow !== undefined && out.goal) return "--workflow and --goal: a workflow's steps are judged by the workflow, not by the goal loop; use one of them";
  return out;
}

/** What the earlier programs will read in argv (their own parsers, in their order): the task, the workspace; undefined when they will refuse it. */
function probe(argv: readonly string[]): { task: boolean; resume: boolean; workspace: string } | undefined {
  try {
    const h = headlessFlags(argv);
    if (typeof h === "string") return undefined;
    const flags = parseFlags(partTwoFlags(permissionFlag(budgetFlag(h.rest).rest).rest).rest);
    return { task: h.print !== undefined || flags.task !== undefined, resume: h.resume !== undefined, workspace: flags.workspace };
  } catch {
    return undefined; // the program itself says what is wrong
  }
}

/** The workflow FILE, read and checked: the workflow and its caps, or what is wrong with it. */
export function readWorkflow(file: string): { workflow: Workflow; caps?: z.infer<typeof CapsSchema>; text: string } | string {
  const path = resolve(process.env.INIT_CWD ?? process.cwd(), file);
  let text: string;
  let json: { caps?: unknown };
  try {
    text = readFileSync(path, "utf8");
    json = JSON.parse(text) as { caps?: unknown };
  } catch (e) {
    return `--workflow ${file}: ${(e as NodeJS.ErrnoException).code === "ENOENT" ? "no such file" : `not JSON (${(e as Error).message.split("\n")[0]})`}`;
  }
  const { caps, ...rest } = typeof json === "object" && json !== null ? json : {};
  const workflow = WorkflowSchema.safeParse(rest);
  const checked = CapsSchema.optional().safeParse(caps);
  const issue = workflow.error?.issues[0] ?? checked.error?.issues[0];
  if (issue || !workflow.success || !checked.success)
    return `--workflow ${file}: ${[...(checked.success ? [] : ["caps"]), ...(issue?.path ?? [])].join(".") || "(the file)"}: ${issue?.message}. See s26's format in --help`;
  return { workflow: workflow.data, ...(checked.data ? { caps: checked.data } : {}), text };
}

/** The final agent's loop as `npm run agent` runs it without Part IV's flags (the eval's `final` agent: course.json "loop"). */
export const runAgent = (llm: Llm, history: Parameters<typeof teamRun>[1], opts: Parameters<typeof teamRun>[2] = {}) => teamRun(llm, history, opts, {});

/** What a later lesson's program passes to run this one with its help and its loop around this one's (s28: scheduling). */
export interface LaterTeam {
  lesson: string;
  usage: string;
  around: (loop: LaterHeadless["runAgent"]) => LaterHeadless["runAgent"];
}

/** The whole program: flags in, exit code and transcript out (tests pass their own model, stdout and journal folder). */
export async function run(
  argv: string[],
  deps: { llm?: Llm; signal?: AbortSignal; write?: (line: string) => void; journals?: string } = {},
  later?: LaterTeam,
): Promise<RunResult> {
  const refuse = (why: string): RunResult => (process.stderr.write(`${red(`npm run agent: ${why}`)}\n`), { exitCode: 2, history: [] });
  const flags = teamFlags(argv);
  if (typeof flags === "string") return refuse(flags);
  const help = flags.rest.includes("--help") || flags.rest.includes("-h");
  const given = help ? undefined : probe(flags.rest);
  const features: Features = { worktrees: flags.worktrees, ...(flags.goal ? { goal: flags.goal } : {}) };
  let rest = flags.rest;
  let text = "";
  if (flags.workflow !== undefined && !help) {
    const read = readWorkflow(flags.workflow);
    if (typeof read === "string") return refuse(read);
    if (given?.task || given?.resume) return refuse(`--workflow runs the steps of ${flags.workflow}: give no task (-p or "task") and no --resume with it`);
    // The run's one task names the workflow; the journal is chosen once the workspace is known (in the loop).
    rest = [...rest, "-p", `Run the workflow "${read.workflow.name}" (${flags.workflow}).`];
    features.workflow = { workflow: read.workflow, ...(read.caps ? { caps: read.caps } : {}), journal: "" };
    text = read.text;
  }
  if (flags.worktrees && given) {
    const repo = await git(given.workspace, "rev-parse", "--verify", "HEAD^{commit}").then(() => null, (e: Error) => e.message);
    if (repo !== null)
      return refuse(`--worktrees: the workspace ${given.workspace} is not a git repository with a commit (${repo}). Each child works in a worktree of its repository: run git init and commit there first, or leave --worktrees out`);
  }
  const loop: LaterHeadless["runAgent"] = (llm, history, opts = {}) => {
    const w = features.workflow;
    if (!w) return teamRun(llm, history, opts, features);
    const journal = journalFor(deps.journals ?? WORKFLOWS_DIR, resolve(opts.root ?? process.cwd()), w.workflow.name, text);
    return workflowRun(llm, history, opts, { ...features, workflow: { ...w, journal } });
  };
  return headlessProgram(rest, deps, {
    lesson: later?.lesson ?? "s27_goal",
    usage: later?.usage ?? TEAM_USAGE,
    // A workflow's task is the program's own: a person sees the workflow's lines, not a session to resume.
    ...(features.workflow ? { session: false } : {}),
    runAgent: later ? later.around(loop) : loop,
  });
}

runMain(import.meta.url, async () => {
  const controller = new AbortController();
  process.once("SIGINT", () => controller.abort());
  const { exitCode } = await run(process.argv.slice(2), { signal: controller.signal });
  process.exitCode = exitCode;
});
