/**
 * s25_worktrees: children that write, each in a git worktree. Grades lessons/ or solutions/ (COURSE_TREE).
 * Every run goes through the learner's runAgent against the scripted model, on a scratch copy of the
 * sample repository made a git repository. What is held: the parent's workspace is unchanged after
 * children wrote; two children at once see only their own files; each worktree_task result, paired
 * with its call, holds the branch and the diff (capped), or says nothing changed (branch removed);
 * a deny rule holds inside a child; a child that fails or is aborted leaves no worktree (git
 * worktree list); a workspace that is not a repository is an is_error result.
 */
import { existsSync, readFileSync, readdirSync } from "node:fs";
import { join, relative } from "node:path";
import type Anthropic from "@anthropic-ai/sdk";
import fc from "fast-check";
import { describe, it } from "vitest";
import { call, say } from "../runtime/scripted/scenarios/script.ts";
import type { Scenario } from "../runtime/scripted/types.ts";
import { SAMPLE_REPOSITORY, lessonTask } from "../runtime/tasks.ts";
import { assertProperty, driveLoop, loadLesson, rule, scripted, textIn, transcriptProblems } from "../runtime/testing.ts";
import { scratchCopy } from "../runtime/tools/files.ts";
import type { Approver } from "../solutions/s07_safe_tools/approval.ts";
import { refuseAll } from "../solutions/s07_safe_tools/approval.ts";
import { parseRule } from "../solutions/s18_permissions/permissions.ts";
import { DIFF_CAP, git, initRepository } from "../solutions/s25_worktrees/worktree.ts";
import { differentialNet } from "./differential/net.ts";
import { quietLessonFile } from "./support.ts";

type Agent = typeof import("../solutions/s25_worktrees/agent.ts");
type Options = NonNullable<Parameters<Agent["runAgent"]>[2]>;
const lesson = await loadLesson<Agent>("s25_worktrees");
const keep = quietLessonFile();
const TASK = lessonTask("s25_worktrees");
const LOOP = "(worktreeTaskTool and worktrees in lessons/s25_worktrees/agent.ts)";
type Llm = ReturnType<typeof scripted>;

const sample = async (repo = true) => {
  const root = keep(await scratchCopy(SAMPLE_REPOSITORY));
  if (repo) await initRepository(root);
  return root;
};
/** Every file of the workspace but .git, with its text. */
function filesOf(root: string, dir = root, out = new Map<string, string>()): Map<string, string> {
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    if (e.name === ".git") continue;
    const p = join(dir, e.name);
    if (e.isDirectory()) filesOf(root, p, out);
    else out.set(relative(root, p), readFileSync(p, "utf8"));
  }
  return out;
}
const worktreesOf = async (root: string) => (await git(root, "worktree", "list", "--porcelain")).split("\n").filter((l) => l.startsWith("worktree ")).length - 1;
const branchesOf = async (root: string) => (await git(root, "for-each-ref", "--format=%(refname:short)", "refs/heads/worktree/")).split("\n").filter(Boolean);
const blocks = (m: Anthropic.MessageParam | undefined) => (m && typeof m.content !== "string" ? m.content : []);
/** Each worktree_task call with the result that answers it (in the very next message). */
function answered(history: Anthropic.MessageParam[]) {
  return history.flatMap((m, i) =>
    blocks(m)
      .filter((b): b is Anthropic.ToolUseBlock => b.type === "tool_use" && b.name === "worktree_task")
      .map((c) => ({ call: c, result: blocks(history[i + 1]).find((b): b is Anthropic.ToolResultBlockParam => b.type === "tool_result" && b.tool_use_id === c.id) })),
  );
}
const textOf = (r: Anthropic.ToolResultBlockParam | undefined) => (r ? textIn(r.content) : "");
const clip = (s: string, n = 200) => JSON.stringify(s.length > n ? `${s.slice(0, n)}…` : s);

async function run(llm: Llm, root: string, task: string, opts: Options = {}) {
  const history: Anthropic.MessageParam[] = [{ role: "user", content: task }];
  const outcome = await driveLoop(llm, history, () =>
    lesson.runAgent(llm, history, { root, approve: refuseAll, userConfigDir: root, permissionMode: "acceptEdits", hooks: [], onHookProblem: () => {}, ...opts }),
  );
  const problems = await transcriptProblems(llm, history);
  rule(problems === null, "worktree-report", () => `after the run, the transcript cannot be sent again: ${problems}`);
  return { outcome, history };
}
async function noneLeft(root: string, where: string) {
  const left = await worktreesOf(root);
  rule(left === 0, "worktree-cleanup", `${where}, git worktree list still shows ${left} worktree(s) besides the workspace: close the worktree in a finally block, however the child ends ${LOOP}.`);
}

/** A parent that hands each prompt to worktree_task in one turn; each child does `steps` in turn, then answers with its last result. */
function parentOf(prompts: string[], steps: Record<string, Array<Record<string, unknown> & { tool: string }>>): Scenario {
  return {
    id: "s25_test",
    title: "worktree_task children, scripted by the test",
    reply: (ctx) => {
      const mine = steps[ctx.firstPrompt.trim()];
      if (!mine) {
        if (ctx.step === 0) return { content: prompts.map((p, i) => call("worktree_task", { description: `child ${i + 1}`, prompt: p })), stop_reason: "tool_use" };
        return say("Both children reported.");
      }
      const said = ctx.results.map((r) => `${r.is_error ? "ERROR " : ""}${ctx.resultText(r)}`).join(" | ");
      const next = mine[ctx.step];
      if (!next) return say(`Done. Last result: ${said}`);
      const { tool, ...input } = next;
      return { content: [call(tool, input)], stop_reason: "tool_use" };
    },
  };
}

describe("s25 Worktrees", () => {
  it("the default task: two children change src/login.js at once, each on its own branch, and the workspace stays as it was", async () => {
    const root = await sample();
    const before = filesOf(root);
    const { history } = await run(scripted(), root, TASK);
    const after = filesOf(root);
    const changed = [...before.keys()].filter((f) => after.get(f) !== before.get(f));
    rule(changed.length === 0, "worktree-isolation", `the children's edits reached the workspace (${changed.join(", ")} changed): run each child with its worktree (wt.root) as its root, and its tools made for that root ${LOOP}.`);
    const pairs = answered(history);
    rule(pairs.length === 2, "worktree-report", `the default task makes two worktree_task calls, and ${pairs.length} were found answered`);
    const expected = ["+    if (attempts >= MAX_FAILED_ATTEMPTS) locked.add(name);", "+export const MAX_FAILED_ATTEMPTS = 2;"];
    for (const [i, { result }] of pairs.entries()) {
      const t = textOf(result);
      rule(result !== undefined && result.is_error !== true, "worktree-report", () => `worktree_task call ${i + 1} has no successful tool_result in the next message (${clip(t)})`);
      const branch = /worktree\/child-\d+/.exec(t)?.[0];
      rule(branch !== undefined, "worktree-report", () => `worktree_task call ${i + 1}'s result does not name the child's branch (worktree/child-N): the parent cannot take the change. It says ${clip(t)} ${LOOP}`);
      rule(t.includes(expected[i]!) && !t.includes(expected[1 - i]!), "worktree-report", () => `worktree_task call ${i + 1}'s result should hold its own diff against the base commit (the line ${JSON.stringify(expected[i])}), and only its own; it says ${clip(t, 600)} ${LOOP}`);
      const onBranch = await git(root, "show", `${branch}:src/login.js`);
      rule(onBranch.includes(expected[i]!.slice(1)) && !onBranch.includes(expected[1 - i]!.slice(1)), "worktree-isolation", `branch ${branch} should hold child ${i + 1}'s edit and not the other child's: each child works in its own worktree`);
    }
    await noneLeft(root, "after the default task");
  });

  it("two children at the same time: each sees only the files it wrote, neither reaches the workspace, and each file's change asks the run's approver", async () => {
    const root = await sample();
    const before = filesOf(root);
    let asked = 0;
    let release = () => {};
    const both = new Promise<void>((r) => (release = r));
    // The barrier: a child's write waits here until the other child's write has asked too.
    const approve: Approver = async () => {
      if (++asked === 2) release();
      const bound = new Promise<boolean>((r) => setTimeout(() => r(false), 60_000).unref());
      const met = await Promise.race([both.then(() => true), bound]);
      return met ? { approved: true } : { approved: false, why: "the other child never ran at the same time" };
    };
    const steps = (name: string) => [
      { tool: "write_file", path: `notes/${name}.txt`, content: `${name}\n` },
      { tool: "list_files", path: "notes" },
    ];
    const llm = scripted({ scenario: parentOf(["Write a.", "Write b."], { "Write a.": steps("a"), "Write b.": steps("b") }) });
    const { history } = await run(llm, root, "Two writers.", { permissionMode: "default", approve });
    rule(asked === 2, "worktree-gate", `each child's write_file should pass this run's gate, which asks the approver in default mode: it was asked ${asked} time(s) for 2 writes. Pass the gate to the child (extensions: [() => ({ dispatch: gated })]) ${LOOP}.`);
    const [a, b] = answered(history).map((p) => textOf(p.result));
    rule(a?.includes("a.txt") && b?.includes("b.txt"), "worktree-isolation", () => `each child wrote a file and listed notes/: the results should show it (a: ${clip(a ?? "")}, b: ${clip(b ?? "")}); a child whose write waited for the other never ran at the same time ${LOOP}`);
    rule(!a!.includes("b.txt") && !b!.includes("a.txt"), "worktree-isolation", () => `a child saw the other's file (a: ${clip(a!)}, b: ${clip(b!)}): give each child a worktree of its own ${LOOP}`);
    rule(!existsSync(join(root, "notes")) && filesOf(root).size === before.size, "worktree-isolation", `the children's files reached the workspace (notes/): their tools must be made for their worktree's root ${LOOP}`);
    await noneLeft(root, "after two children");
  });

  it("a deny rule holds inside a child, and a child that changed nothing leaves no branch", async () => {
    const root = await sample();
    const llm = scripted({ scenario: parentOf(["Add a test."], { "Add a test.": [{ tool: "write_file", path: "test/extra.test.js", content: "// more\n" }] }) });
    const { history } = await run(llm, root, "One child.");
    const t = textOf(answered(history)[0]?.result);
    rule(/Not run/.test(t) && /write_file\(test\/\*\*\)/.test(t), "worktree-gate", () => `the sample's settings deny write_file(test/**), and a child's write to test/extra.test.js was not refused by that rule (its report: ${clip(t, 400)}): a child's calls pass the run's gate (dispatch: gated) ${LOOP}`);
    rule(/changed no file/i.test(t) && !/worktree\/child-/.test(t), "worktree-report", () => `the child changed nothing, and its result should say so without a branch to take; it says ${clip(t, 400)}`);
    const left = await branchesOf(root);
    rule(left.length === 0, "worktree-report", `a child that changed nothing left branch(es) ${left.join(", ")}: closeWorktree deletes its branch`);
    await noneLeft(root, "after a child that changed nothing");
  });

  it("worktree_task is judged by the gate like any tool: a deny rule for it refuses it, and no worktree is made", async () => {
    const root = await sample();
    const llm = scripted({ scenario: parentOf(["Anything."], { "Anything.": [] }) });
    const { history } = await run(llm, root, "Denied.", { rules: [parseRule("worktree_task", "deny", "test settings")] });
    const r = answered(history)[0]?.result;
    rule(r?.is_error === true && /Not run/.test(textOf(r)), "worktree-gate", () => `a deny rule for worktree_task should refuse the call (an is_error "Not run: …"); got ${clip(textOf(r))}: add the tool through the run's tools, so the gate wraps it ${LOOP}`);
    rule((await branchesOf(root)).length === 0, "worktree-gate", "a refused worktree_task still made a branch: nothing runs before the gate's verdict");
  });

  it("a child that fails is an is_error result, its work kept on its branch, its worktree removed", async () => {
    const root = await sample();
    const child = "Write, then fail.";
    // The child's second request gets a 500 (no retry): its loop throws.
    const faults = (_i: number, body: unknown) => {
      const messages = (body as { messages: Anthropic.MessageParam[] }).messages;
      return JSON.stringify(messages[0]).includes(child) && messages.length > 1 ? ({ kind: "server_error" } as const) : null;
    };
    const llm = scripted({ scenario: parentOf([child], { [child]: [{ tool: "write_file", path: "NOTES.md", content: "half done\n" }, { tool: "list_files" }] }), faults });
    const { outcome, history } = await run(llm, root, "One failing child.");
    await noneLeft(root, "after a child that failed");
    rule(outcome.status === "done", "worktree-cleanup", `a child's failure ended the parent's run (${outcome.status}): catch it in worktree_task ${LOOP}`);
    const r = answered(history)[0]?.result;
    rule(r?.is_error === true && /did not finish|fail/i.test(textOf(r)), "worktree-report", () => `a child whose requests failed should be an is_error result saying so; got ${clip(textOf(r))}`);
    rule(/500|server/i.test(textOf(r)), "worktree-report", () => `the child's request failed with a 500 (a server error): the result should say what went wrong (the error's message), so the parent can decide what to do; got ${clip(textOf(r), 300)} ${LOOP}`);
    rule(/worktree\/child-1/.test(textOf(r)) && (await branchesOf(root)).includes("worktree/child-1"), "worktree-cleanup", () => `the failed child had written NOTES.md: its work should be kept on its branch and named in the result (${clip(textOf(r), 300)})`);
  });

  it("a child stopped by its own guard (max turns) is an is_error result saying it did not finish and why, never its answer as done", async () => {
    const root = await sample();
    const child = "List forever.";
    const llm = scripted({ scenario: parentOf([child], { [child]: Array.from({ length: 20 }, () => ({ tool: "list_files" })) }), maxRequests: 60 });
    const { outcome, history } = await run(llm, root, "One child that never ends.");
    await noneLeft(root, "after a child stopped by its guard");
    const r = answered(history)[0]?.result;
    rule(outcome.status === "done", "worktree-report", `a child's guard stop ended the parent's run (${outcome.status}): it is the child's result, not the parent's end ${LOOP}`);
    rule(r?.is_error === true && /did not finish/i.test(textOf(r)) && /turn/i.test(textOf(r)), "worktree-report", () => `a child that ran out of turns (CHILD_GUARDS.maxTurns) did not finish its task: its result should be an is_error saying it did not finish and how it ended (describeOutcome); got is_error ${r?.is_error}, ${clip(textOf(r), 300)} ${LOOP}`);
  });

  it("a child's tokens count against the parent's budget, as the child spends them", async () => {
    const child = "Write one note.";
    const scenario = () => parentOf([child], { [child]: [{ tool: "write_file", path: "NOTES.md", content: "a note\n" }] });
    // The parent's first request alone: what the parent spends before its child starts.
    const probe = scripted({ scenario: scenario() });
    await run(probe, await sample(), "One child.");
    const first = probe.scripted!.exchanges[0]!.response!.usage;
    const parentFirst = first.input_tokens + first.output_tokens + (first.cache_read_input_tokens ?? 0) + (first.cache_creation_input_tokens ?? 0);
    const budget = parentFirst + 1;
    const llm = scripted({ scenario: scenario() });
    const { outcome } = await run(llm, await sample(), "One child.", { guards: { tokenBudget: budget } });
    const stop = outcome.status === "stopped" ? (outcome as { reason?: string }).reason : undefined;
    rule(outcome.status === "stopped" && /token/i.test(String(stop)), "worktree-report", () => `the parent's budget was ${budget} tokens and its first request spent ${parentFirst}: with its child's tokens added it is spent, so the parent should stop (token_budget) instead of asking again; it ended ${outcome.status}${stop ? ` (${stop})` : ""}. Add what the child spends to the parent's guard (onTokens: (n) => (guard.used += n)) ${LOOP}`);
  });

  it("a run aborted while a child works leaves no worktree and a transcript that can be sent again", async () => {
    const root = await sample();
    const controller = new AbortController();
    const approve: Approver = async () => {
      controller.abort();
      return { approved: false, why: "aborted" };
    };
    const llm = scripted({ scenario: parentOf(["Write."], { "Write.": [{ tool: "write_file", path: "NOTES.md", content: "x\n" }] }) });
    const { outcome } = await run(llm, root, "Abort me.", { permissionMode: "default", approve, signal: controller.signal });
    rule(outcome.status !== "done", "worktree-cleanup", `the run was aborted while its child waited for approval, and it ended ${outcome.status}`);
    await noneLeft(root, "after an abort during a child");
    rule((await branchesOf(root)).length === 0, "worktree-cleanup", "an aborted child that wrote nothing left a branch: close its worktree in the finally block");
    // The child's requests (its history starts with its own prompt): the first asked for the write; aborted, it asks no more.
    const asked = llm.scripted!.exchanges.filter((e) => textIn((e.request as { messages?: Anthropic.MessageParam[] }).messages?.[0]?.content ?? "").trim() === "Write.").length;
    rule(asked === 1, "worktree-cleanup", () => `the run was aborted while its child waited for approval, and the child then asked the model ${asked - 1} more time(s): pass the call's signal to opts.runChild(wt.root, history, signal), so an abort stops the child too ${LOOP}`);
  });

  it("a workspace that is not a git repository: an is_error result naming it, and the run goes on", async () => {
    const root = await sample(false);
    const llm = scripted({ scenario: parentOf(["Anything."], { "Anything.": [] }) });
    const { outcome, history } = await run(llm, root, "No repository.");
    const r = answered(history)[0]?.result;
    rule(r?.is_error === true && textOf(r).includes(`not a git repository: ${root}`), "worktree-not-repo", () => `worktree_task in a folder that is no repository should be an is_error result "not a git repository: ${root} …"; got ${clip(textOf(r))}`);
    rule(outcome.status === "done" && !existsSync(join(root, ".git")), "worktree-not-repo", `the run should go on (it ended ${outcome.status}) and never make the workspace a repository itself`);
  });

  it("property: whatever a child writes, the result names exactly those files, the branch holds them, the diff is capped, nothing is left behind", async () => {
    const root = await sample();
    const file = fc.record({ path: fc.constantFrom("gen/a.txt", "gen/b.md", "gen/deep/c.js", "README.md"), content: fc.oneof(fc.string({ maxLength: 40 }), fc.constant("x".repeat(DIFF_CAP + 500))) });
    await assertProperty(
      fc.asyncProperty(fc.uniqueArray(file, { selector: (f) => f.path, maxLength: 3 }), async (files) => {
        const before = filesOf(root);
        const prompt = `Write ${files.length} file(s).`;
        const llm = scripted({ scenario: parentOf([prompt], { [prompt]: files.map((f) => ({ tool: "write_file", ...f })) }) });
        const { history } = await run(llm, root, "Generated.");
        const t = textOf(answered(history)[0]?.result);
        const real = files.filter((f) => before.get(f.path) !== f.content);
        const branch = /worktree\/child-\d+/.exec(t)?.[0];
        if (real.length === 0) return /changed no file/i.test(t) && branch === undefined && (await branchesOf(root)).length === 0;
        for (const f of real) if (!t.includes(f.path) || (await git(root, "show", `${branch}:${f.path}`)) !== f.content) return false;
        if (t.length > DIFF_CAP + 3_000) return false;
        const same = [...filesOf(root)].every(([p, c]) => before.get(p) === c);
        if (branch) await git(root, "branch", "-D", branch);
        return same && (await worktreesOf(root)) === 0;
      }),
      { numRuns: 6, seed: 25 },
      "worktree-report",
      "the child's result does not name exactly the files it changed with the branch that holds them, or its diff is over the cap, or it left a worktree, a branch or a changed file in the workspace: report each changed file, its branch and a capped diff, and remove the worktree (closeWorktree)",
    );
  });
});

differentialNet("s25");
