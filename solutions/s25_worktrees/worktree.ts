/**
 * s25 · git worktrees: one isolated checkout per child, on a branch of its own.
 *
 * `git worktree add -b <branch> <path> <base>` checks the repository's last commit out again in a
 * folder outside the workspace, on a new branch: a child working there changes none of the
 * workspace's files, and two children never touch each other's. When the child ends, what it
 * changed (new files included) is committed on its branch and the worktree is removed; a child
 * that changed nothing leaves no branch either. The person takes a change with `git merge <branch>`.
 *
 * git runs as a child process with its arguments as an array (execFile, never a shell string),
 * without the repository's own hooks (core.hooksPath: a post-checkout hook would run outside the
 * sandbox) and without the agent's GIT_* variables.
 */
import { execFile } from "node:child_process";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ToolError } from "../../runtime/tools/files.ts";

/** The branches children work on: worktree/child-1, worktree/child-2, … (the first free number). */
export const BRANCH_PREFIX = "worktree/child-";
/** At most this many characters of a child's diff reach the parent; the branch holds the rest. */
export const DIFF_CAP = 8_000;

/** One child's checkout. */
export interface Worktree {
  /** The repository's top folder (the workspace, or a folder above it). */
  repo: string;
  /** The worktree's own folder (outside the workspace), and the workspace's place inside it (the child's root). */
  path: string;
  root: string;
  branch: string;
  /** The commit it started from: its diff is against this. */
  base: string;
}

/** What a child left when its worktree was closed. */
export interface Changes {
  /** The files it changed, added or deleted (paths from the repository's top). */
  files: string[];
  /** `git diff <base>` of its work, capped at DIFF_CAP characters. */
  diff: string;
}

const quiet = ["-c", "core.hooksPath=/dev/null", "-c", "user.name=course agent", "-c", "user.email=agent@localhost", "-c", "commit.gpgsign=false"];

/** Runs git in `cwd` with these arguments (no shell); its stdout, or an Error with its stderr. */
export function git(cwd: string, ...args: string[]): Promise<string> {
  const env = Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith("GIT_")));
  return new Promise((resolve, reject) => {
    execFile("git", [...quiet, ...args], { cwd, env, maxBuffer: 64 * 1024 * 1024 }, (error, stdout, stderr) => {
      if (!error) return resolve(stdout);
      const missing = (error as NodeJS.ErrnoException).code === "ENOENT";
      reject(new Error(missing ? "git is not installed (or not on PATH)" : (stderr.trim() || error.message).split("\n")[0]));
    });
  });
}

/** Serializes the git commands that change the repository's worktrees and branches (two children start at once). */
let queue: Promise<unknown> = Promise.resolve();
function serial<T>(step: () => Promise<T>): Promise<T> {
  const next = queue.then(step, step);
  queue = next.catch(() => undefined);
  return next;
}

// #region add
/** A new worktree of the repository that holds `root`, on a new branch at its last commit; a ToolError when there is none. */
export function addWorktree(root: string): Promise<Worktree> {
  return serial(async () => {
    const repo = await git(root, "rev-parse", "--show-toplevel").catch((e: Error) => {
      throw new ToolError(`not a git repository: ${root} (${e.message}). A child gets a worktree of the workspace's repository: run git init and commit first, or use the task tool`);
    });
    const top = repo.trim();
    const prefix = (await git(root, "rev-parse", "--show-prefix")).trim();
    const base = (await git(top, "rev-parse", "--verify", "HEAD^{commit}").catch(() => {
      throw new ToolError(`the repository at ${top} has no commit yet: a worktree starts from the last commit, so commit first`);
    })).trim();
    const taken = new Set((await git(top, "for-each-ref", "--format=%(refname:short)", "refs/heads/")).split("\n"));
    let n = 1;
    while (taken.has(`${BRANCH_PREFIX}${n}`)) n++;
    const branch = `${BRANCH_PREFIX}${n}`;
    const path = join(await mkdtemp(join(tmpdir(), "course-worktree-")), "checkout");
    await git(top, "worktree", "add", "--quiet", "-b", branch, path, base);
    return { repo: top, path, root: join(path, prefix), branch, base };
  });
}
// #endregion add

/** The diff, capped: its start, and where the rest is. */
export function capDiff(diff: string, wt: Pick<Worktree, "branch">, cap = DIFF_CAP): string {
  if (diff.length <= cap) return diff;
  return `${diff.slice(0, cap)}\n… (${diff.length - cap} more characters: git show ${wt.branch})`;
}

// #region close
/**
 * Ends a worktree, whatever the child did: its changes (new files too) committed on its branch,
 * then the worktree removed; with no change, its branch deleted too. The removal runs even when
 * the commit fails, so no worktree is left behind.
 */
export function closeWorktree(wt: Worktree, message: string): Promise<Changes> {
  return serial(async () => {
    try {
      await git(wt.path, "add", "--all");
      const files = (await git(wt.path, "diff", "--cached", "--name-only", wt.base)).split("\n").filter(Boolean);
      if (files.length === 0) return { files, diff: "" };
      const diff = await git(wt.path, "diff", "--cached", "--no-color", "--no-ext-diff", wt.base);
      await git(wt.path, "commit", "--quiet", "--no-verify", "-m", message);
      return { files, diff: capDiff(diff, wt) };
    } finally {
      await git(wt.repo, "worktree", "remove", "--force", wt.path).catch(() => git(wt.repo, "worktree", "prune"));
      await rm(join(wt.path, ".."), { recursive: true, force: true });
      const kept = await git(wt.repo, "rev-parse", "--verify", "--quiet", wt.branch).catch(() => "");
      if (kept.trim() === wt.base) await git(wt.repo, "branch", "--quiet", "-D", wt.branch).catch(() => undefined);
    }
  });
}
// #endregion close

/** Makes `root` a repository with one commit of what it holds (the lesson's scratch copy of the sample). */
export async function initRepository(root: string): Promise<void> {
  const inside = await git(root, "rev-parse", "--show-toplevel").catch(() => "");
  if (inside.trim()) return;
  await git(root, "init", "--quiet");
  await git(root, "add", "--all");
  await git(root, "commit", "--quiet", "-m", "the workspace as it was given");
}
