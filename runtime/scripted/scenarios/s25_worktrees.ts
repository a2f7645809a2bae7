/**
 * s25_worktrees: two fixes tried at once, each by a child in its own worktree, on the sample repository.
 *
 *   parent  [0] user       the task
 *           [1] assistant  text + worktree_task(fix the comparison) + worktree_task(lower the limit)   one turn, two children
 *           [2] user       tool_result (answer, branch, diff) + tool_result (answer, branch, diff)
 *           [3] assistant  which branch to take, and why, from the two diffs
 *   child   [0] user       its prompt (the task "child-compare" or "child-constant")          a fresh history, in its worktree
 *           [1] assistant  edit_file src/login.js
 *           [2] user       tool_result
 *           [3] assistant  what it changed
 *
 * A message after the answer (a Stop hook's "the tests still fail") gets the same advice again:
 * the fixes are on branches, not in the workspace, until someone merges one.
 */
import { lessonTask } from "../../tasks.ts";
import type { Reply, Scenario, TurnContext } from "../types.ts";
import { intents } from "./intents.ts";
import { call, say, text } from "./script.ts";

const TASK = lessonTask("s25_worktrees");
const CHILD_COMPARE = lessonTask("s25_worktrees", "child-compare");
const CHILD_CONSTANT = lessonTask("s25_worktrees", "child-constant");

/** The branch a child's report names ("… on branch worktree/child-1: src/login.js."): a git branch name holds no colon. */
const branchIn = (s: string) => /on branch ([^\s:]+)/.exec(s)?.[1];

function parent(ctx: TurnContext): Reply {
  if (ctx.prompt.trim() !== TASK) return say("Neither fix is in this workspace yet: each is on its own branch. Take the comparison fix with git merge, then run the tests.");
  if (ctx.step === 0) {
    if (!ctx.tools.includes("worktree_task")) return say("I have no worktree_task tool, so I cannot try the two fixes apart.");
    return {
      content: [
        text("Two fixes that edit the same line: each goes to a child in its own worktree, at the same time."),
        call("worktree_task", { description: "fix the comparison", prompt: CHILD_COMPARE }),
        call("worktree_task", { description: "lower the limit", prompt: CHILD_CONSTANT }),
      ],
    };
  }
  const [compare, constant] = ctx.results;
  if (!compare || !constant) return say("I expected the reports of both children.");
  const failed = [compare, constant].filter((r) => r.is_error);
  if (failed.length > 0) return say(`A child did not finish: ${failed.map((r) => ctx.resultText(r).split("\n")[0]).join(" / ")}`);
  const take = branchIn(ctx.resultText(compare));
  const other = branchIn(ctx.resultText(constant));
  if (!take) return say(`The comparison child changed nothing: ${ctx.resultText(compare).split("\n")[0]}`);
  return say(
    [
      `Take ${take}: its diff changes \`attempts > MAX_FAILED_ATTEMPTS\` to \`>=\`, so the account locks on the third failed attempt, as the test and the README say.`,
      `${other ?? "The other branch"} lowers the limit to 2 instead: it locks one attempt too early and changes the policy the limit names.`,
      `Your workspace is unchanged. To take it: git merge ${take}`,
    ].join("\n"),
  );
}

/** A child: one edit of src/login.js in its worktree, then what it did. */
function child(old_text: string, new_text: string) {
  return (ctx: TurnContext): Reply => {
    if (ctx.step === 0) {
      if (!ctx.tools.includes("edit_file")) return say("I was given no edit_file tool, so I changed nothing.");
      return { content: [text("Editing src/login.js."), call("edit_file", { path: "src/login.js", old_text, new_text })] };
    }
    const r = ctx.results[0];
    if (!r || r.is_error) return say(`I could not edit src/login.js${r ? `: ${ctx.resultText(r).split("\n")[0]}` : ""}.`);
    return say(`In src/login.js, \`${old_text}\` is now \`${new_text}\`.`);
  };
}

export const s25Worktrees: Scenario = {
  id: "s25_worktrees",
  title: "Two fixes at once, each in its own worktree, then which branch to take",
  task: TASK,
  reply: (ctx) => (ctx.firstPrompt.trim() === TASK ? parent(ctx) : intents.reply(ctx)),
};

export const s25ChildCompare: Scenario = {
  id: "s25_child_compare",
  title: "A child in a worktree that fixes the lockout comparison",
  task: CHILD_COMPARE,
  reply: child("attempts > MAX_FAILED_ATTEMPTS", "attempts >= MAX_FAILED_ATTEMPTS"),
};

export const s25ChildConstant: Scenario = {
  id: "s25_child_constant",
  title: "A child in a worktree that lowers MAX_FAILED_ATTEMPTS",
  task: CHILD_CONSTANT,
  reply: child("MAX_FAILED_ATTEMPTS = 3", "MAX_FAILED_ATTEMPTS = 2"),
};
