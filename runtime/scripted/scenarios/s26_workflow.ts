/**
 * s26_workflow: the default workflow's agent steps, each a conversation of its own, routed by its
 * prompt (a task of s26's course.json), on the sample repository.
 *
 *   files   [0] user the prompt · [1] assistant list_files . · [2] user tool_result · [3] assistant the files
 *   source  [0] user the prompt · [1] assistant read_file src/login.js · [2] user tool_result · [3] assistant one sentence
 *   tests   [0] user the prompt · [1] assistant read_file test/login.test.js · [2] user tool_result · [3] assistant one sentence
 *   draft   [0] user the prompt · [1] assistant the note
 *   short   [0] user the prompt, then the draft's answer (the pipeline's input) · [1] assistant one sentence
 *
 * `short` is routed by its whole first message: its prompt followed by the draft's answer, in
 * the pipeline's format (withInput in solutions/s26_workflow/workflow.ts). A run that fed it
 * something else gets the intents' answer, and the lesson's test sees it.
 */
import { lessonTask } from "../../tasks.ts";
import type { Reply, Scenario, TurnContext } from "../types.ts";
import { call, say, text } from "./script.ts";

const task = (name: string) => lessonTask("s26_workflow", name);

export const S26_ANSWERS = {
  files: "The workspace holds README.md, AGENTS.md, package.json, src/login.js, test/login.test.js and logs/auth.log.",
  source: "src/login.js checks passwords and locks an account after too many failed attempts in a row.",
  tests: "test/login.test.js checks a right password, a wrong one, and the lockout after MAX_FAILED_ATTEMPTS failures.",
  draft: "The login service checks passwords and locks an account after repeated failures. Its tests cover the right password, a wrong one and the lockout.",
  short: "The login service locks accounts after repeated failed logins, and its tests cover that.",
};

/** One step that reads with a tool, then answers. */
function reading(id: "files" | "source" | "tests", tool: string, input: Record<string, string>): Scenario {
  const reply = (ctx: TurnContext): Reply => {
    if (ctx.step === 0) return { content: [text(`Using ${tool} first.`), call(tool, input)] };
    const r = ctx.results[0];
    return say(r && !r.is_error ? S26_ANSWERS[id] : `I could not use ${tool}, so I cannot answer.`);
  };
  return { id: `s26_workflow_${id}`, title: `s26 workflow step ${id}`, task: task(id), reply };
}

export const s26Workflow: Scenario = {
  id: "s26_workflow",
  title: "A workflow that resumes: the task names the workflow; its steps are routed by their own prompts",
  task: task("task"),
  reply: () => say("This task is run as a workflow of its own steps (npm run lesson s26), each with a prompt of its own."),
};
export const s26Files = reading("files", "list_files", { path: "." });
export const s26Source = reading("source", "read_file", { path: "src/login.js" });
export const s26Tests = reading("tests", "read_file", { path: "test/login.test.js" });
export const s26Draft: Scenario = { id: "s26_workflow_draft", title: "s26 workflow step draft", task: task("draft"), reply: () => say(S26_ANSWERS.draft) };
export const s26Short: Scenario = {
  id: "s26_workflow_short",
  title: "s26 workflow step short (given the draft)",
  task: `${task("short")}\n\n<previous_step_answer>\n${S26_ANSWERS.draft}\n</previous_step_answer>`,
  reply: () => say(S26_ANSWERS.short),
};
