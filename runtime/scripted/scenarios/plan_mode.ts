/**
 * Plan mode on the sample repository (`npm run agent -- --permission-mode plan`, s18): read,
 * propose a plan, wait for it to be approved, then carry it out.
 *
 *   [0] user       "Fix the login lockout so the tests pass."
 *   [1] assistant  read_file src/login.js                      (read-only: plan mode lets it through)
 *   [3] assistant  exit_plan_mode {plan}                       (the user is asked)
 *   [5] assistant  edit_file src/login.js  (> → >=)            (once the plan is approved)
 *   [7] assistant  run_tests
 *   [9] assistant  the answer: what changed, the tests' summary
 *
 * It reads every result: a refused plan ends the run with nothing changed, and an edit the gate
 * refused is said to be refused, never claimed. Without exit_plan_mode (another mode) it goes
 * straight to the edit.
 */
import type Anthropic from "@anthropic-ai/sdk";
import type { Reply, Scenario, TurnContext } from "../types.ts";
import { intents } from "./intents.ts";
import { S19_FIX } from "./s19_hooks.ts";
import { call, firstLines, say, text } from "./script.ts";

export const PLAN_TASK = "Fix the login lockout so the tests pass.";
export const PLAN = [
  "1. In src/login.js, lock the account when the failed attempts reach MAX_FAILED_ATTEMPTS: `attempts >= MAX_FAILED_ATTEMPTS` instead of `>` (an off-by-one).",
  "2. Run the login module's tests to check the lockout test passes and the others still do.",
].join("\n");

type Call = Anthropic.ToolUseBlockParam;

function reply(ctx: TurnContext): Reply {
  if (ctx.firstPrompt.trim() !== PLAN_TASK) return intents.reply(ctx);
  const calls = ctx.messages.flatMap((m) => (m.role === "assistant" && typeof m.content !== "string" ? m.content.filter((b): b is Call => b.type === "tool_use") : []));
  const results = ctx.messages.flatMap((m) => (m.role === "user" && typeof m.content !== "string" ? m.content : [])).filter((b): b is Anthropic.ToolResultBlockParam => b.type === "tool_result");
  const made = (name: string) => calls.filter((c) => c.name === name).at(-1);
  const resultOf = (c: Call | undefined) => (c ? results.find((r) => r.tool_use_id === c.id) : undefined);
  const why = (r: Anthropic.ToolResultBlockParam) => firstLines(ctx.resultText(r), 2).replace(/^Error: /, "").replace(/^Not run: /, "");

  const read = made("read_file");
  const plan = made("exit_plan_mode");
  const edit = made("edit_file");
  const tests = made("run_tests");
  if (ctx.prompt.trimStart().startsWith("[Stop hook]")) {
    const editResult = resultOf(edit);
    if (!editResult || editResult.is_error) return say("A Stop hook sent me back: the tests still fail. They will until the fix is made, and it was not: src/login.js is unchanged.");
    return say("A Stop hook sent me back; the fix is made and I have nothing to add.");
  }
  if (!read) return { content: [text("Plan mode: reading the code first."), call("read_file", { path: S19_FIX.path })] };
  const source = resultOf(read);
  if (!source || source.is_error) return say(`I could not read ${S19_FIX.path}${source ? `: ${why(source)}` : ""}.`);
  if (!ctx.resultText(source).includes(S19_FIX.old_text)) return say(`${S19_FIX.path} no longer has \`${S19_FIX.old_text}\`: the lockout looks fixed already, nothing to change.`);
  if (ctx.tools.includes("exit_plan_mode") && !plan) return { content: [text("The lockout is off by one. My plan:"), call("exit_plan_mode", { plan: PLAN })] };
  const approved = resultOf(plan);
  if (plan && approved?.is_error) return say(`The plan was not approved (${why(approved)}): I changed nothing.`);
  if (!edit) return { content: [text(plan ? "The plan is approved: fixing the check." : "Fixing the check."), call("edit_file", S19_FIX)] };
  const edited = resultOf(edit);
  if (!edited || edited.is_error) return say(`I could not make the edit (${edited ? why(edited) : "no result"}): ${S19_FIX.path} is unchanged, and the lockout test still fails.`);
  if (!tests && ctx.tools.includes("run_tests")) return { content: [text("Edited. Running the tests."), call("run_tests", { module: "login" })] };
  const ran = resultOf(tests);
  const out = ran ? ctx.resultText(ran) : "";
  const summary = !ran ? "I had no run_tests tool to check it" : /# tests \d+/.test(out) ? `the tests: ${/# pass (\d+)/.exec(out)?.[1] ?? "?"} passed, ${/# fail (\d+)/.exec(out)?.[1] ?? "?"} failed` : `the tests did not run (${why(ran)})`;
  return say(`Fixed ${S19_FIX.path}: an account now locks after MAX_FAILED_ATTEMPTS failures, not one more; ${summary}.`);
}

export const planMode: Scenario = {
  id: "plan_mode",
  title: "Plan mode on the sample repository: reads, proposes a plan with exit_plan_mode, then (approved) fixes the lockout and runs the tests",
  task: PLAN_TASK,
  reply,
};
