/**
 * s28_schedule: the scripted model's answers to the lesson's default task, and to the prompt it
 * schedules (each scheduled run is a conversation of its own, so it is answered on its own).
 *
 * The task:
 *   [0] user       the task: watch the failed logins every second, 2 times
 *   [1] assistant  schedule { prompt: the watch prompt, every_seconds: 1, times: 2 }
 *   [2] user       tool_result: Scheduled sched-1 … (or a refusal, e.g. a deny rule)
 *   [3] assistant  what was scheduled (or why nothing was)
 *
 * Each scheduled run:
 *   [0] user       the watch prompt
 *   [1] assistant  read_file logs/auth.log
 *   [2] user       tool_result: the log
 *   [3] assistant  how many failed logins it holds (counted in the result)
 */
import { lessonTask } from "../../tasks.ts";
import type { Reply, Scenario, TurnContext } from "../types.ts";
import { intents } from "./intents.ts";
import { call, say, text } from "./script.ts";

const TASK = lessonTask("s28_schedule");
const WATCH = lessonTask("s28_schedule", "watch");

function reply(ctx: TurnContext): Reply {
  const first = ctx.firstPrompt.trim();
  if (first === WATCH) {
    if (ctx.step === 0) return { content: [text("Reading the log."), call("read_file", { path: "logs/auth.log" })] };
    const result = ctx.results[0];
    if (!result || result.is_error) return say(`I could not read logs/auth.log: ${result ? ctx.resultText(result).slice(0, 200) : "no result"}`);
    const failed = ctx.resultText(result).split("\n").filter((line) => line.includes("login failed")).length;
    return say(`logs/auth.log holds ${failed} failed login(s).`);
  }
  if (first !== TASK) return intents.reply(ctx);
  if (ctx.step === 0) return { content: [text("I will schedule the look at the log."), call("schedule", { prompt: WATCH, every_seconds: 1, times: 2 })] };
  const result = ctx.results[0];
  if (!result || result.is_error) return say(`Nothing was scheduled: ${result ? ctx.resultText(result).slice(0, 200) : "no result"}`);
  return say(`Scheduled: every second, 2 times, a run that reads logs/auth.log and counts the failed logins (${ctx.resultText(result).split(":")[0]}).`);
}

export const s28Schedule: Scenario = { id: "s28_schedule", title: "Scheduled work: schedules a look at the log every second, twice", task: TASK, reply };

/** The prompt the default task schedules: each of its runs is a conversation that starts with it. */
export const s28Watch: Scenario = { id: "s28_schedule_watch", title: "Scheduled work: a scheduled run counts the failed logins in the log", task: WATCH, reply };
