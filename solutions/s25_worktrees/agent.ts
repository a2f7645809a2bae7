/**
 * s25_worktrees: children that write, each in a worktree of its own.
 *
 * Unlike s15, whose children could only read (two writers in one folder would race), the model
 * can now hand a task that changes files to a child working in a git worktree: a checkout of the
 * repository's last commit, on a new branch, in a folder outside the workspace (worktree.ts). The
 * child is s15's loop with that folder as its root: its file tools are confined there, its
 * commands run there (in the sandbox, which lets them write there only), and each of its calls
 * passes this run's gate and hooks (s11's `gated`). The workspace is untouched, so two children
 * run at once without clashing. When a child ends, however it ends, its work is committed on its
 * branch and the worktree removed (finally); the parent gets the diff against the base commit
 * (capped) and the branch name in the call's tool_result, and the person takes the change with
 * `git merge <branch>`. A child that changed nothing leaves no branch. A workspace that is not a
 * git repository is an is_error result, never an exception.
 *
 * Run: npm run lesson s25 -- --solution ["your task"]
 */
import type Anthropic from "@anthropic-ai/sdk";
import { z } from "zod";
import type { Llm } from "../../runtime/client.ts";
import { lesson, transcriptOf } from "../../runtime/lesson.ts";
import { dim, say } from "../../runtime/print.ts";
import { lessonTask, SAMPLE_REPOSITORY } from "../../runtime/tasks.ts";
import { ToolError } from "../../runtime/tools/files.ts";
import { defineTool, SafeToolRegistry, type CheckedTool } from "../../solutions/s04_tool_errors/define-tool.ts";
import { describeOutcome, type Outcome } from "../../solutions/s05_stop_reasons/outcome.ts";
import { refuseAll, terminalApprover } from "../../solutions/s07_safe_tools/approval.ts";
import { createLogger } from "../../solutions/s09_observability/log.ts";
import { withTools, type Extension } from "../../solutions/s11_recovery/extend.ts";
import { capstoneTools } from "../../solutions/s12_guarded_agent/agent.ts";
import { runAgent as childLoop } from "../../solutions/s15_subagents/agent.ts";
import { CHILD_GUARDS, MAX_DEPTH } from "../../solutions/s15_subagents/task-tool.ts";
import { runAgent as previousLoop, DEFAULT_MAX_TOKENS, system, type RecoveredOutcome, type RunOptions as BackgroundOptions } from "../../solutions/s22_background/agent.ts";
import { addWorktree, closeWorktree, initRepository, type Changes, type Worktree } from "./worktree.ts";

export { system, DEFAULT_MAX_TOKENS, type RecoveredOutcome, initRepository };

export const TASK = lessonTask("s25_worktrees");

/** One child's run, told to the caller when it ends. */
export interface WorktreeRun {
  description: string;
  worktree: Worktree;
  changes: Changes;
  history: Anthropic.MessageParam[];
  /** How it ended: "done", or why not. */
  ended: string;
}

export interface RunOptions extends BackgroundOptions {
  /** Each child in a worktree, when it ends (its branch, its changes, its transcript). */
  onWorktree?: (run: WorktreeRun) => void;
}

/** What the worktree tool needs from the run: the workspace, and the loop to run a child with. */
export interface WorktreeToolOptions {
  root: string;
  runChild(root: string, history: Anthropic.MessageParam[], signal: AbortSignal | undefined): Promise<Outcome<string>>;
  onWorktree?: (run: WorktreeRun) => void;
  /** Keeps a child's work until it is over, worktree closed (the run waits for every one before it returns). */
  track<T>(work: Promise<T>): Promise<T>;
}

/** What the parent reads: the branch and the diff, or that nothing changed. */
export function reportOf(wt: Worktree, changes: Changes): string {
  if (changes.files.length === 0) return "It changed no file: its worktree and its branch were removed.";
  return [
    `It changed ${changes.files.length} file(s) on branch ${wt.branch}: ${changes.files.join(", ")}.`,
    `The workspace is unchanged; to take the change: git merge ${wt.branch}`,
    "Its diff:",
    changes.diff,
  ].join("\n");
}

// #region worktree-task
/** One child, start to end: its worktree, its run there, the worktree closed however it ends, the report. */
export async function inWorktree(opts: WorktreeToolOptions, description: string, prompt: string, signal: AbortSignal): Promise<string> {
  // Not a git repository: a ToolError, so an is_error result the model can act on.
  const wt = await addWorktree(opts.root);
  const history: Anthropic.MessageParam[] = [{ role: "user", content: prompt }];
  let ended = "done";
  let changes: Changes;
  try {
    const outcome = await opts.runChild(wt.root, history, signal);
    if (outcome.status !== "done") ended = describeOutcome(outcome);
  } catch (e) {
    ended = `failed: ${e instanceof Error ? e.message : String(e)}`;
  } finally {
    // subtle: done, stopped, failed or aborted, the worktree goes; the work stays on its branch.
    changes = await closeWorktree(wt, `worktree_task: ${description}`);
  }
  opts.onWorktree?.({ description, worktree: wt, changes, history, ended });
  if (ended !== "done") throw new ToolError(`the subagent "${description}" did not finish (${ended}). ${reportOf(wt, changes)}`);
  return `${answerOf(history) || "(no text answer)"}\n\n${reportOf(wt, changes)}`;
}
// #endregion worktree-task

export function worktreeTaskTool(opts: WorktreeToolOptions): CheckedTool {
  return defineTool({
    name: "worktree_task",
    description:
      "Hand a self-contained task that changes files to a subagent working in its own git worktree (a fresh checkout of the last commit, on a new branch). " +
      "It may read, write and run commands there; your workspace is not changed. You get its answer, its diff and its branch. Several run at the same time.",
    input: z.object({
      description: z.string().min(1).max(80).describe("A few words: what the subagent does"),
      prompt: z.string().min(1).describe("The whole task for the subagent: it starts with an empty history"),
    }),
    // It changes no file of this workspace (each of the child's calls passes the gate itself): two run at once.
    readOnly: true,
    timeoutMs: 10 * 60_000,
    // An aborted call is answered at once (s04), while its worktree is still closing: the run waits for it (runAgent).
    run: ({ description, prompt }, ctx) => opts.track(inWorktree(opts, description, prompt, ctx.signal)),
  });
}

/** The text of the child's last answer. */
function answerOf(history: Anthropic.MessageParam[]): string {
  const last = history.at(-1);
  if (last?.role !== "assistant") return "";
  return typeof last.content === "string" ? last.content : last.content.flatMap((b) => (b.type === "text" ? [b.text] : [])).join("\n").trim();
}

// #region loop
/** NEW: a worktree_task tool: s15's loop as a child, rooted in a worktree, its calls through this run's gate. */
export const worktrees =
  (llm: Llm, opts: RunOptions, track: WorktreeToolOptions["track"]): Extension =>
  ({ guard, root, gated }) => ({
    tools: (tools) =>
      withTools(
        tools,
        worktreeTaskTool({
          root,
          track,
          ...(opts.onWorktree ? { onWorktree: opts.onWorktree } : {}),
          runChild: (childRoot, history, signal) =>
            childLoop(llm, history, {
              root: childRoot,
              // Its own tools, made for its root: every path is confined to the worktree.
              registry: new SafeToolRegistry(capstoneTools(childRoot, opts.approve ?? terminalApprover())),
              guards: { ...CHILD_GUARDS, tokenBudget: Math.max(0, guard.limits.tokenBudget - guard.used) },
              depth: MAX_DEPTH,
              onTokens: (n) => (guard.used += n),
              extensions: [() => ({ dispatch: gated })],
              ...(signal ? { signal } : {}),
            }),
        }),
      ),
  });

/** s22's loop, with children in worktrees. `history` grows in place; returns how the run ended. */
export async function runAgent(llm: Llm, history: Anthropic.MessageParam[], opts: RunOptions = {}): Promise<RecoveredOutcome> {
  const open = new Set<Promise<unknown>>();
  const track = <T>(work: Promise<T>) => {
    open.add(work);
    return work.finally(() => open.delete(work));
  };
  try {
    return await previousLoop(llm, history, { ...opts, extensions: [worktrees(llm, opts, track), ...(opts.extensions ?? [])] });
  } finally {
    // An aborted run stopped waiting for its calls at once: its children's worktrees may still be closing.
    await Promise.allSettled(open);
  }
}
// #endregion loop

/** The default task on a scratch copy of the sample repository, made a git repository first. */
export const demo = (llm: Llm, task = TASK) =>
  transcriptOf(task, SAMPLE_REPOSITORY, async (history, root) => {
    await initRepository(root);
    return runAgent(llm, history, { root, approve: refuseAll, userConfigDir: root, permissionMode: "acceptEdits", hooks: [], onHookProblem: () => {} });
  });

lesson(import.meta.url, {
  task: TASK,
  workspace: SAMPLE_REPOSITORY,
  before: () => say(dim("worktree_task: each child works on a branch of its own, in a git worktree outside the workspace")),
  run: async ({ llm, history, root, signal, flag }) => {
    await initRepository(root);
    return runAgent(llm, history, {
      root,
      signal,
      permissionMode: "acceptEdits",
      onEvent: createLogger({ verbose: flag("verbose") }),
      onWorktree: (w) => say(dim(`  ↳ worktree "${w.description}" (${w.ended}): ${w.changes.files.length ? `${w.changes.files.join(", ")} on ${w.worktree.branch}` : "no change, removed"}`)),
    });
  },
  printAnswer: false,
});
