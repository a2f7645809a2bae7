/**
 * s24_headless: the scripted model's answer to the lesson's default task (WRITE: the run, message by
 * message, as the other scenarios' comments show it).
 *
 *   [0] user       the task
 *   [1] assistant  list_files .
 *   [2] user       tool_result
 *   [3] assistant  the answer
 */
import { lessonTask } from "../../tasks.ts";
import type { Reply, Scenario, TurnContext } from "../types.ts";
import { intents } from "./intents.ts";
import { call, say, text } from "./script.ts";

const TASK = lessonTask("s24_headless");

function reply(ctx: TurnContext): Reply {
  if (ctx.firstPrompt.trim() !== TASK) return intents.reply(ctx);
  if (ctx.step === 0) return { content: [text("Listing the workspace first."), call("list_files", { path: "." })] };
  return say("I read the file list (list_files .): this is a small Node.js login service with its tests.");
}

export const s24Headless: Scenario = { id: "s24_headless", title: "Headless mode: lists the files, then answers", task: TASK, reply };
