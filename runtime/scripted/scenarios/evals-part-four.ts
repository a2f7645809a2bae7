/**
 * The scripts of the eval tasks that need a Part IV feature of the final agent (task.json
 * `feature`; `npm run eval -- --compare-features` runs each with and without it). Like every
 * eval script (evals.ts), each is the calls a careful agent makes, read from what the tools
 * returned, so the offline figure measures the loop and the feature, not a model:
 *
 *   worktrees-two-edits   two subagents, one fix each, at once. With --worktrees each child works in
 *                         its own worktree (edit_file offered), both branches come back and the
 *                         parent names them (the eval merges them, as a person would); without it the
 *                         children are s15's, read-only: their edit is not possible, nothing comes back.
 *   workflow-resume       three release steps, each a conversation of its own routed by its prompt
 *                         (the task's workflow.json); each step reads the file it changes, so a step
 *                         run twice shows (a second bump, a second section).
 *   goal-premature-done   the worker reads the code and says "done" without fixing anything; sent
 *                         back by the evaluator (its request offers only `verdict`, and it judges the
 *                         runtime's evidence, never the answer), it fixes the comparison.
 */
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import type Anthropic from "@anthropic-ai/sdk";
import { EVAL_SUITE } from "../../tasks.ts";
import type { Reply, Scenario, TurnContext } from "../types.ts";
import { blocksOf } from "../conversation.ts";
import { call, say, text } from "./script.ts";

const taskFile = (id: string, name: string) => {
  const file = join(EVAL_SUITE, id, name);
  return existsSync(file) ? readFileSync(file, "utf8") : undefined;
};
const instructionOf = (id: string) => taskFile(id, "instruction.md")?.trim();

/** Every call of the conversation with its result (undefined while unanswered). */
function callsOf(messages: Anthropic.MessageParam[]) {
  const results = new Map<string, { text: string; isError: boolean }>();
  for (const m of messages)
    for (const b of blocksOf(m.content))
      if (b.type === "tool_result") {
        const c = b.content;
        results.set(b.tool_use_id, { text: typeof c === "string" ? c : (c ?? []).map((x) => (x.type === "text" ? x.text : "")).join("\n"), isError: b.is_error === true });
      }
  return messages.flatMap((m) => (m.role === "assistant" ? blocksOf(m.content) : [])).filter((b): b is Anthropic.ToolUseBlockParam => b.type === "tool_use").map((c) => ({ name: c.name, input: c.input as Record<string, unknown>, result: results.get(c.id) }));
}

// ── worktrees-two-edits ──

export const CHILD_TITLE = 'In src/text.js, titleCase() crashes on a title with two spaces in a row (an empty word has no [0]). Fix it by skipping empty words, with one edit_file, and say what you changed.';
export const CHILD_TRUNCATE = "In src/text.js, truncate() cuts a text that is exactly `max` characters long. Fix its comparison, with one edit_file, and say what you changed.";
const FIXES: Record<string, { old_text: string; new_text: string }> = {
  [CHILD_TITLE]: { old_text: '    .split(" ")\n', new_text: '    .split(" ")\n    .filter((word) => word.length > 0)\n' },
  [CHILD_TRUNCATE]: { old_text: "if (text.length < max)", new_text: "if (text.length <= max)" },
};

/** A branch a worktree child's report names ("… on branch worktree/child-1: src/text.js."). */
const branchIn = (s: string) => /on branch ([^\s:]+)/.exec(s)?.[1];

function twoEdits(ctx: TurnContext): Reply {
  const calls = callsOf(ctx.messages);
  const children = calls.filter((c) => c.name === "worktree_task" || c.name === "task");
  if (children.length === 0) {
    const tool = ctx.tools.includes("worktree_task") ? "worktree_task" : ctx.tools.includes("task") ? "task" : undefined;
    if (!tool) return say("I have no way to hand work to a subagent here, so I cannot do the two fixes at once.");
    return {
      content: [
        text(tool === "worktree_task" ? "Two fixes to one file, at once: each child in a worktree of its own." : "Two fixes, one subagent each, at the same time."),
        call(tool, { description: "fix titleCase", prompt: CHILD_TITLE }),
        call(tool, { description: "fix truncate", prompt: CHILD_TRUNCATE }),
      ],
    };
  }
  const branches = children.flatMap((c) => (c.result && !c.result.isError ? [branchIn(c.result.text)] : [])).filter((b): b is string => b !== undefined);
  if (branches.length < children.length)
    return say(`Not every fix came back: ${children.length - branches.length} of the subagents left no branch (${children.map((c) => c.result?.text.split("\n")[0] ?? "no answer").join(" / ")}).`);
  return say(`Both fixes are on branches of their own, the workspace unchanged: ${branches.join(" (titleCase) and ")} (truncate). To take them: ${branches.map((b) => `git merge ${b}`).join(" && ")}`);
}

function child(ctx: TurnContext): Reply {
  const fix = FIXES[ctx.firstPrompt.trim()]!;
  const edit = callsOf(ctx.messages).find((c) => c.name === "edit_file");
  if (!edit) {
    if (!ctx.tools.includes("edit_file")) return say(`I was given no edit_file tool (only ${ctx.tools.join(", ") || "none"}), so I changed nothing.`);
    return { content: [text("Editing src/text.js."), call("edit_file", { path: "src/text.js", ...fix })] };
  }
  if (!edit.result || edit.result.isError) return say(`I could not edit src/text.js: ${edit.result?.text.split("\n")[0] ?? "no result"}.`);
  return say(`In src/text.js, \`${fix.old_text.trim()}\` is now \`${fix.new_text.trim().replace(/\n\s*/g, " ")}\`.`);
}

// ── workflow-resume ──

const VERSION_RE = /VERSION = "(\d+)\.(\d+)\.(\d+)"/;
/** The version a read of src/version.js returned. */
const versionRead = (calls: ReturnType<typeof callsOf>) => {
  const m = VERSION_RE.exec(calls.find((c) => c.name === "read_file" && c.input.path === "src/version.js")?.result?.text ?? "");
  return m ? { old: `${m[1]}.${m[2]}.${m[3]}`, next: `${m[1]}.${m[2]}.${Number(m[3]) + 1}` } : undefined;
};
const readOf = (calls: ReturnType<typeof callsOf>, path: string) => calls.find((c) => c.name === "read_file" && c.input.path === path)?.result?.text;

/** One release step: read what it needs, make its one edit (from what it read), say what it did. */
function releaseStep(files: string[], edit: (calls: ReturnType<typeof callsOf>) => { path: string; old_text: string; new_text: string } | string, done: string) {
  return (ctx: TurnContext): Reply => {
    const calls = callsOf(ctx.messages);
    if (!calls.some((c) => c.name === "read_file")) return { content: [text(`Reading ${files.join(" and ")}.`), ...files.map((path) => call("read_file", { path }))] };
    const made = calls.find((c) => c.name === "edit_file");
    if (!made) {
      const e = edit(calls);
      return typeof e === "string" ? say(e) : { content: [text(`Editing ${e.path}.`), call("edit_file", e)] };
    }
    return say(made.result && !made.result.isError ? `${done} (${String(made.input.new_text).split("\n")[0]}).` : `The edit failed: ${made.result?.text.split("\n")[0] ?? "no result"}.`);
  };
}

const bump = releaseStep(["src/version.js"], (calls) => {
  const v = versionRead(calls);
  return v ? { path: "src/version.js", old_text: `VERSION = "${v.old}"`, new_text: `VERSION = "${v.next}"` } : "src/version.js has no VERSION I can read.";
}, "VERSION raised");

const changelog = releaseStep(["src/version.js", "CHANGELOG.md"], (calls) => {
  const v = VERSION_RE.exec(readOf(calls, "src/version.js") ?? "");
  const newest = /^## .+$/m.exec(readOf(calls, "CHANGELOG.md") ?? "")?.[0];
  if (!v || !newest) return "I could not read the version or the newest section of CHANGELOG.md.";
  return { path: "CHANGELOG.md", old_text: newest, new_text: `## ${v[1]}.${v[2]}.${v[3]}\n- Fixes.\n\n${newest}` };
}, "CHANGELOG.md has its new section");

const announce = releaseStep(["src/version.js", "ANNOUNCEMENTS.md"], (calls) => {
  const v = VERSION_RE.exec(readOf(calls, "src/version.js") ?? "");
  const last = (readOf(calls, "ANNOUNCEMENTS.md") ?? "").trimEnd().split("\n").pop();
  if (!v || !last) return "I could not read the version or ANNOUNCEMENTS.md.";
  return { path: "ANNOUNCEMENTS.md", old_text: last, new_text: `${last}\nReleased ${v[1]}.${v[2]}.${v[3]}.` };
}, "Announced");

/** The steps of the task's workflow.json, each routed by its prompt. */
function workflowSteps(): Scenario[] {
  const raw = taskFile("workflow-resume", "workflow.json");
  if (!raw) return [];
  const steps = (JSON.parse(raw) as { steps: Array<{ id: string; prompt: string }> }).steps;
  const replies: Record<string, Scenario["reply"]> = { bump, changelog, announce };
  return steps.flatMap((s) => (replies[s.id] ? [{ id: `eval_workflow-resume_${s.id}`, title: `Eval task workflow-resume, step ${s.id}`, task: s.prompt, reply: replies[s.id]! }] : []));
}

// ── goal-premature-done ──

/** The evaluator: done only when the runtime's evidence (its title says how the check exited) is exit 0. */
function judge(ctx: TurnContext): Reply {
  const docs = ctx.messages.flatMap((m) => blocksOf(m.content)).filter((b): b is Anthropic.DocumentBlockParam => b.type === "document");
  const evidence = docs.find((d) => /^evidence/i.test(d.title ?? ""));
  const code = /exited with code (\d+)/.exec(evidence?.title ?? "")?.[1];
  if (code === "0") return { content: [call("verdict", { done: true, missing: "" })] };
  const data = evidence?.source.type === "text" ? evidence.source.data : "";
  const failing = /^not ok \d+ - (.*)$/m.exec(data)?.[1];
  return { content: [call("verdict", { done: false, missing: code === undefined ? "no check ran: the answer alone is a claim" : `the tests still fail (exit ${code})${failing ? `: "${failing}"` : ""}` })] };
}

const CART_FIX = { path: "src/cart.js", old_text: "if (subtotal > DISCOUNT_FROM)", new_text: "if (subtotal >= DISCOUNT_FROM)" };

function premature(ctx: TurnContext): Reply {
  if (ctx.tools.length === 1 && ctx.tools[0] === "verdict") return judge(ctx);
  const calls = callsOf(ctx.messages);
  const sentBack = ctx.messages.some((m) => m.role === "user" && blocksOf(m.content).some((b) => b.type === "text" && b.text.startsWith("[evaluator]")));
  if (!sentBack) {
    if (!calls.some((c) => c.name === "read_file")) return { content: [text("Reading the cart."), call("read_file", { path: "src/cart.js" })] };
    // subtle: the claim is made without running the tests; only a check of the final state catches it.
    return say("cartTotal() in src/cart.js already subtracts DISCOUNT_PERCENT once the subtotal passes DISCOUNT_FROM, so the discount is there. Done.");
  }
  const edit = calls.find((c) => c.name === "edit_file");
  if (!edit) return { content: [text("Sent back: the tests fail. A cart of exactly DISCOUNT_FROM must get the discount: `>` should be `>=`."), call("edit_file", CART_FIX)] };
  return say(edit.result && !edit.result.isError ? "Fixed src/cart.js: a cart of DISCOUNT_FROM cents or more now gets the discount (`>=`)." : `I could not fix src/cart.js: ${edit.result?.text.split("\n")[0] ?? "no result"}.`);
}

// ── the scenarios ──

const scenario = (id: string, title: string, reply: Scenario["reply"], task = instructionOf(id)): Scenario[] => (task ? [{ id: `eval_${id}`, title, task, reply }] : []);

/** The scenarios of the Part IV tasks whose folders are present. */
export const PART_FOUR_SCENARIOS: Scenario[] = [
  ...scenario("worktrees-two-edits", "Eval task worktrees-two-edits: two fixes to one file, one subagent each, then merged", twoEdits),
  { id: "eval_worktrees-two-edits_title", title: "A child of worktrees-two-edits: fix titleCase", task: CHILD_TITLE, reply: child },
  { id: "eval_worktrees-two-edits_truncate", title: "A child of worktrees-two-edits: fix truncate", task: CHILD_TRUNCATE, reply: child },
  ...scenario("workflow-resume", "Eval task workflow-resume: given as one task, it is the workflow's to run", () =>
    say("This task is the release workflow of its folder (workflow.json): three steps, each run once. It is run with npm run agent -- --workflow, not as one task; I changed nothing.")),
  ...workflowSteps(),
  ...scenario("goal-premature-done", "Eval task goal-premature-done: says done before fixing; the evaluator sends it back", premature),
];

/** The task ids scripted here. */
export const PART_FOUR_TASKS = ["worktrees-two-edits", "workflow-resume", "goal-premature-done"];
