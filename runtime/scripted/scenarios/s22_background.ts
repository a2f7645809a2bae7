/**
 * s22_background: the tests run in the background while the model reads the code.
 *
 *   [0] user       the task: run the tests in the background, read src/login.js meanwhile
 *   [1] assistant  bash_background node --test
 *   [2] user       tool_result: Started job-1
 *   [3] assistant  read_file src/login.js + job_output job-1 (wait until it ends)
 *   [4] user       tool_result + tool_result + [background jobs] job-1 ended: exit code 1
 *   [5] assistant  the answer: which test fails, why, and what the notification said
 *
 * It reads the history: a loop that never delivers the notification gets an answer saying the
 * model was never told the job ended; one that sends it as a user message of its own breaks the turn.
 */
import type Anthropic from "@anthropic-ai/sdk";
import { lessonTask } from "../../tasks.ts";
import type { Reply, Scenario, TurnContext } from "../types.ts";
import { intents } from "./intents.ts";
import { call, say, text } from "./script.ts";

export const S22_TASK = lessonTask("s22_background");

const callsOf = (messages: Anthropic.MessageParam[], name: string) =>
  messages.flatMap((m) => (m.role === "assistant" && typeof m.content !== "string" ? m.content.filter((b): b is Anthropic.ToolUseBlockParam => b.type === "tool_use" && b.name === name) : []));

function reply(ctx: TurnContext): Reply {
  if (ctx.firstPrompt.trim() !== S22_TASK) return intents.reply(ctx);
  const started = callsOf(ctx.messages, "bash_background").at(0);
  if (!started) {
    if (!ctx.tools.includes("bash_background")) return say("This request offers no bash_background tool: I cannot run the tests in the background.");
    return { content: [text("Starting the tests in the background, so I can read the code while they run."), call("bash_background", { command: "node --test" })] };
  }
  const userBlocks = ctx.messages.flatMap((m) => (m.role === "user" && typeof m.content !== "string" ? m.content : []));
  const resultOf = (id: string) => userBlocks.find((b): b is Anthropic.ToolResultBlockParam => b.type === "tool_result" && b.tool_use_id === id);
  const startResult = resultOf(started.id);
  const id = startResult ? /job-\d+/.exec(ctx.resultText(startResult))?.[0] : undefined;
  if (!startResult || startResult.is_error || !id) return say(`The tests could not be started in the background: ${startResult ? ctx.resultText(startResult).slice(0, 200) : "no result"}.`);
  const output = callsOf(ctx.messages, "job_output").at(0);
  if (!output) return { content: [text(`${id} is running. Reading the login code meanwhile, and waiting for the tests.`), call("read_file", { path: "src/login.js" }), call("job_output", { id, wait_seconds: 20 })] };
  const result = resultOf(output.id);
  const failed = result ? /not ok \d+ - (.*)/.exec(ctx.resultText(result))?.[1] : undefined;
  const notice = userBlocks.flatMap((b) => (b.type === "text" && /\bjob-\d+\b/.test(b.text) ? [b.text] : [])).join("\n");
  const told = notice ? `I was told so beside the results: ${notice.split("\n").filter((l) => /job-\d/.test(l)).join(" ")}` : "I was never told that the job ended: no notification reached me";
  return say(`The tests ran in the background while I read src/login.js. One fails: ${failed ?? "(I could not read which)"}. ${told}. The lockout check is off by one: \`attempts > MAX_FAILED_ATTEMPTS\` should be \`>=\`.`);
}

export const s22Background: Scenario = {
  id: "s22_background",
  title: "Runs the tests in the background, reads the code meanwhile, is told when they end",
  task: S22_TASK,
  reply,
};
