/**
 * The eval suite: evals/tasks/<id>/, one folder per task (docs/guide/evals.md says how to add one).
 *
 *   task.json        the manifest (TaskManifest below, checked with zod)
 *   instruction.md   what the agent is asked, word for word
 *   repo/            the workspace the agent starts from (copied fresh for every run)
 *   check/           the hidden check: *.test.js files run with node --test against the final
 *                    workspace (copied in after the agent stopped; the agent never sees them)
 *   solution.patch   the reference solution as a unified diff (the oracle applies it), and/or
 *   solution.sh      a bash script run in the workspace, inside the sandbox (after the patch)
 *   answer.md        the reference answer, for tasks graded by what the agent says
 *   workflow.json    for a task whose feature is "workflow": the workflow the final agent runs (s26's format)
 *
 * A task that is not well formed is reported with its folder and what to fix; the others still run.
 */
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { join, relative, resolve } from "node:path";
import { z } from "zod";
import { EVAL_TASKS_DIR } from "../../runtime/scripted/scenarios/evals.ts";
import { WorkflowSchema, type Workflow } from "../../solutions/s26_workflow/workflow.ts";

export { EVAL_TASKS_DIR };

export const TASK_KINDS = ["fix", "feature", "explain", "refactor", "plan", "subagent", "mcp", "safety"] as const;

/**
 * The Part IV feature a task needs (`npm run eval -- --compare-features` runs it with and without):
 *   worktrees  the workspace is made a git repository; the final agent runs with --worktrees
 *   workflow   the final agent runs `file` with --workflow, is killed when step `killAt` first asks the
 *              model, and is run again: with the feature the journal is read back; without it, removed
 *   goal       the final agent runs with --goal --goal-check `check`
 */
export const FEATURES = ["worktrees", "workflow", "goal"] as const;
export type FeatureName = (typeof FEATURES)[number];
const Feature = z.discriminatedUnion("name", [
  z.object({ name: z.literal("worktrees") }).strict(),
  z.object({ name: z.literal("workflow"), file: z.string().min(1), killAt: z.string().min(1) }).strict(),
  z.object({ name: z.literal("goal"), check: z.string().min(1) }).strict(),
]);
export type Feature = z.infer<typeof Feature>;

const pattern = z.string().min(1).refine((p) => !p.startsWith("/") && !p.split("/").includes(".."), "a path inside the workspace (no leading / and no ..)");

export const TaskManifest = z
  .object({
    title: z.string().min(1),
    kind: z.enum(TASK_KINDS),
    /** Does the task ask for a change to the workspace? (`--agent null` must fail every such task.) */
    changes: z.boolean(),
    limits: z.object({ turns: z.number().int().min(1).max(200), seconds: z.number().int().min(5).max(3600) }).strict(),
    /** An MCP config ({ "mcpServers": … }), relative to the task's folder, started for each run. */
    mcp: z.string().min(1).optional(),
    /** The Part IV feature the task needs (FEATURES): the final agent runs it through its headless interface. */
    feature: Feature.optional(),
    check: z
      .object({
        /** Run check/*.test.js against the final workspace: every test must pass. */
        tests: z.boolean().optional(),
        /** Also run the workspace's own tests (node --test): they must pass. */
        workspaceTests: z.boolean().optional(),
        /** Globs of files that must be byte for byte as they started ("**": the whole workspace; files added count too). */
        unchanged: z.array(pattern).optional(),
        /** Regular expressions (case-insensitive) the final answer must each match. */
        answer: z.array(z.string().min(1)).optional(),
      })
      .strict()
      .refine((c) => c.tests || c.workspaceTests || (c.unchanged?.length ?? 0) > 0 || (c.answer?.length ?? 0) > 0, "check must check something: tests, workspaceTests, unchanged or answer"),
  })
  .strict();
export type TaskManifest = z.infer<typeof TaskManifest>;

export interface EvalTask extends TaskManifest {
  id: string;
  dir: string;
  instruction: string;
  repo: string;
  /** The hidden check's test files (names inside check/). */
  checkFiles: string[];
  solution?: string;
  patch?: string;
  answerText?: string;
  mcpConfig?: string;
  /** For a workflow task: the workflow, checked, and its file's path. */
  workflow?: { workflow: Workflow; file: string };
}

export class SuiteError extends Error {
  override name = "SuiteError";
}

/** One task folder, read and checked; throws a SuiteError that names the folder and what to fix. */
export function loadTask(dir: string): EvalTask {
  const id = dir.split("/").pop()!;
  const where = `evals/tasks/${id}`;
  const need = (name: string) => {
    const p = join(dir, name);
    if (!existsSync(p)) throw new SuiteError(`${where}: ${name} is missing (see docs/guide/evals.md)`);
    return p;
  };
  let raw: unknown;
  try {
    raw = JSON.parse(readFileSync(need("task.json"), "utf8"));
  } catch (e) {
    if (e instanceof SuiteError) throw e;
    throw new SuiteError(`${where}/task.json is not valid JSON: ${(e as Error).message}`);
  }
  const parsed = TaskManifest.safeParse(raw);
  if (!parsed.success) {
    const first = parsed.error.issues[0]!;
    throw new SuiteError(`${where}/task.json: ${first.path.join(".") || "(top)"}: ${first.message}`);
  }
  const m = parsed.data;
  const instruction = readFileSync(need("instruction.md"), "utf8").trim();
  if (!instruction) throw new SuiteError(`${where}/instruction.md is empty`);
  const repo = need("repo");
  if (!statSync(repo).isDirectory()) throw new SuiteError(`${where}/repo must be a folder (the starting workspace)`);
  const checkDir = join(dir, "check");
  const checkFiles = existsSync(checkDir) ? readdirSync(checkDir).filter((f) => /\.test\.[cm]?js$/.test(f)).sort() : [];
  if (m.check.tests && checkFiles.length === 0) throw new SuiteError(`${where}: check.tests is set but check/ has no *.test.js file`);
  if (!m.check.tests && checkFiles.length > 0) throw new SuiteError(`${where}: check/ has tests but check.tests is not set in task.json`);
  const solutionFile = join(dir, "solution.sh");
  const patchFile = join(dir, "solution.patch");
  const patch = existsSync(patchFile) ? readFileSync(patchFile, "utf8") : undefined;
  const answerFile = join(dir, "answer.md");
  const solution = existsSync(solutionFile) ? readFileSync(solutionFile, "utf8") : undefined;
  const answerText = existsSync(answerFile) ? readFileSync(answerFile, "utf8").trim() : undefined;
  if (solution === undefined && patch === undefined && answerText === undefined)
    throw new SuiteError(`${where}: a reference solution is missing (solution.patch, solution.sh, answer.md, or several)`);
  if (m.check.answer && answerText === undefined) throw new SuiteError(`${where}: check.answer grades the answer, so answer.md (the reference answer) is needed`);
  for (const re of m.check.answer ?? [])
    try {
      new RegExp(re, "i");
    } catch {
      throw new SuiteError(`${where}/task.json: check.answer has an invalid regular expression: ${re}`);
    }
  let mcpConfig: string | undefined;
  if (m.mcp) {
    mcpConfig = resolve(dir, m.mcp);
    if (!existsSync(mcpConfig)) throw new SuiteError(`${where}/task.json: mcp names ${m.mcp}, which does not exist (relative to the task's folder)`);
  }
  let workflow: EvalTask["workflow"];
  if (m.feature?.name === "workflow") {
    const file = resolve(dir, m.feature.file);
    if (!file.startsWith(`${dir}/`) || !existsSync(file)) throw new SuiteError(`${where}/task.json: feature.file names ${m.feature.file}, which is not a file of the task's folder`);
    let parsedFlow;
    try {
      parsedFlow = WorkflowSchema.safeParse(JSON.parse(readFileSync(file, "utf8")));
    } catch (e) {
      throw new SuiteError(`${where}/${m.feature.file} is not valid JSON: ${(e as Error).message}`);
    }
    if (!parsedFlow.success) throw new SuiteError(`${where}/${m.feature.file}: ${parsedFlow.error.issues[0]?.path.join(".") || "(top)"}: ${parsedFlow.error.issues[0]?.message} (s26's workflow format)`);
    const steps = parsedFlow.data.steps.flatMap((st) => ("steps" in st ? st.steps : [st]));
    const killAt = m.feature.killAt;
    if (steps.findIndex((st) => st.id === killAt) < 1) throw new SuiteError(`${where}/task.json: feature.killAt must name a step after the first (the run is killed when that step first asks the model), not "${killAt}"`);
    workflow = { workflow: parsedFlow.data, file };
  }
  return {
    ...m,
    id,
    dir,
    instruction,
    repo,
    checkFiles,
    ...(solution !== undefined ? { solution } : {}),
    ...(patch !== undefined ? { patch } : {}),
    ...(answerText !== undefined ? { answerText } : {}),
    ...(mcpConfig ? { mcpConfig } : {}),
    ...(workflow ? { workflow } : {}),
  };
}

/** Every task of the suite (sorted by id), and the folders that are not valid tasks. */
export function loadSuite(root = EVAL_TASKS_DIR): { tasks: EvalTask[]; problems: string[] } {
  if (!existsSync(root)) return { tasks: [], problems: [`no task suite at ${relative(process.cwd(), root) || root}`] };
  const tasks: EvalTask[] = [];
  const problems: string[] = [];
  for (const name of readdirSync(root).sort()) {
    const dir = join(root, name);
    if (!statSync(dir).isDirectory() || name.startsWith(".")) continue;
    if (!/^[a-z0-9][a-z0-9-]*$/.test(name)) {
      problems.push(`evals/tasks/${name}: a task id is lower-case letters, digits and -`);
      continue;
    }
    try {
      tasks.push(loadTask(dir));
    } catch (e) {
      if (!(e instanceof SuiteError)) throw e;
      problems.push(e.message);
    }
  }
  return { tasks, problems };
}
