/**
 * s15_subagents: two independent look-ups handed to subagents at once, on the sample repository.
 *
 *   parent  [0] user       the task
 *           [1] assistant  text + task(read the source) + task(read the log)      one turn, two children
 *           [2] user       tool_result (the source child's answer) + tool_result (the log child's)
 *           [3] assistant  the explanation, from the two answers
 *   child   [0] user       its prompt (S15_CHILD_SOURCE or S15_CHILD_LOG)           a fresh history
 *           [1] assistant  read_file …
 *           [2] user       tool_result
 *           [3] assistant  the quoted line
 *
 * Each child is routed by its prompt (a task of its own). The answers come from the real files.
 */
import { S15_CHILD_LOG, S15_CHILD_SOURCE, S15_TASK } from "../../tasks.ts";
import type { Reply, Scenario, TurnContext } from "../types.ts";
import { intents } from "./intents.ts";
import { call, say, text } from "./script.ts";

export { S15_TASK };

function parent(ctx: TurnContext): Reply {
  if (ctx.step === 0) {
    if (!ctx.tools.includes("task")) return say("I have no task tool to hand the look-ups to, and I will not guess.");
    return {
      content: [
        text("Two independent look-ups: I'll hand them to two subagents at once."),
        call("task", { description: "read the source", prompt: S15_CHILD_SOURCE, tools: ["read_file"] }),
        call("task", { description: "read the log", prompt: S15_CHILD_LOG, tools: ["read_file"] }),
      ],
    };
  }
  const [source, log] = ctx.results;
  if (!source || !log) return say("I expected the answers of both subagents.");
  if (source.is_error || log.is_error)
    return say(`A subagent did not finish: ${[source, log].filter((r) => r.is_error).map((r) => ctx.resultText(r)).join(" / ")}`);
  return say(
    [
      "The lockout test fails because the account is locked one failed attempt too late.",
      `The source: ${ctx.resultText(source)}`,
      `The log agrees: ${ctx.resultText(log)}`,
      "Fix: lock when attempts >= MAX_FAILED_ATTEMPTS.",
    ].join("\n"),
  );
}

/** A child: read one file, quote the line that matches. */
function child(path: string, line: RegExp, what: string) {
  return (ctx: TurnContext): Reply => {
    if (ctx.step === 0) {
      if (!ctx.tools.includes("read_file")) return say(`I was given no read_file tool, so I cannot read ${path}.`);
      return { content: [text(`Reading ${path}.`), call("read_file", { path })] };
    }
    const r = ctx.results[0];
    if (!r || r.is_error) return say(`I could not read ${path}${r ? `: ${ctx.resultText(r).split("\n")[0]}` : ""}.`);
    const lines = ctx.resultText(r).split("\n");
    const at = lines.findIndex((l) => line.test(l));
    return say(at < 0 ? `${path} has no line that ${what}.` : `${path} line ${at + 1}: \`${lines[at]!.trim()}\``);
  };
}

export const s15Subagents: Scenario = {
  id: "s15_subagents",
  title: "Two subagents at once (the source, the log), then the explanation",
  task: S15_TASK,
  reply: (ctx) => (ctx.firstPrompt.trim() === S15_TASK ? parent(ctx) : intents.reply(ctx)),
};

export const s15ChildSource: Scenario = {
  id: "s15_child_source",
  title: "A subagent that quotes the lockout check of src/login.js",
  task: S15_CHILD_SOURCE,
  reply: child("src/login.js", /attempts\s*>=?\s*MAX_FAILED_ATTEMPTS/, "decides the lock"),
};

export const s15ChildLog: Scenario = {
  id: "s15_child_log",
  title: "A subagent that quotes the telling line of logs/auth.log",
  task: S15_CHILD_LOG,
  reply: child("logs/auth.log", /attempts=3 locked=false/, "shows an account left unlocked"),
};
