/**
 * s11_recovery: a task whose answer is longer than the lesson's small max_tokens, so the loop
 * must ask the model to continue; the lesson's demo adds faults (429, 529, a stream cut mid-way,
 * prompt too long) around it. When asked to continue, the model says the rest of the same
 * answer, exactly where the cut-off text stopped.
 *
 *   [0] user       task
 *   [1] assistant  text + tool_use(read_file README.md) + tool_use(read_file package.json)
 *   [2] user       tool_result + tool_result
 *   [3] assistant  the start of a long answer                 stop_reason: max_tokens
 *   [4] user       "Continue exactly where you stopped."
 *   [5] assistant  the rest                                    stop_reason: end_turn
 */
import type Anthropic from "@anthropic-ai/sdk";
import { textOf } from "../conversation.ts";
import type { Reply, Scenario, TurnContext } from "../types.ts";
import { intents } from "./intents.ts";
import { call, say, text, thinking } from "./script.ts";
import { CONTINUE_PROMPT, S11_TASK } from "../../tasks.ts";

export { CONTINUE_PROMPT, S11_TASK };


function fileCalls(ctx: TurnContext) {
  if (ctx.tools.includes("read_file")) return [call("read_file", { path: "README.md" }), call("read_file", { path: "package.json" })];
  return [call("bash", { command: "cat README.md package.json" })];
}

/** The whole answer, a pure function of the files' contents (so a continuation can find its place). */
function fullAnswer(readme: string, pkg: string): string {
  const title = /^#\s+(.+)$/m.exec(readme)?.[1]?.trim() ?? "this project";
  const name = /"name"\s*:\s*"([^"]+)"/.exec(pkg)?.[1] ?? "(no name)";
  const scripts = [...(/"scripts"\s*:\s*\{([^}]*)\}/.exec(pkg)?.[1] ?? "").matchAll(/"([^"]+)"\s*:/g)].map((m) => m[1]!);
  const headings = [...readme.matchAll(/^##\s+(.+)$/gm)].map((m) => m[1]!.trim());
  const sentences = [
    `The project is "${title}", published as the package ${name}.`,
    headings.length > 0 ? `Its README is organised in ${headings.length} sections: ${headings.join("; ")}.` : "Its README has no sections.",
    scripts.length > 0 ? `It offers ${scripts.length} commands through npm: ${scripts.join(", ")}.` : "It defines no npm scripts.",
    ...headings.map((h, i) => `Section ${i + 1}, "${h}", is one of the places a newcomer would read to understand how the project is used and checked.`),
    `In short: ${title} is described by its README and driven by its npm scripts, and the files read here are all this answer is based on.`,
  ];
  return sentences.join(" ");
}

function filesFrom(messages: Anthropic.MessageParam[]): { readme: string; pkg: string } {
  let readme = "";
  let pkg = "";
  for (const m of messages) {
    if (m.role !== "user" || typeof m.content === "string") continue;
    for (const b of m.content) {
      if (b.type !== "tool_result" || b.is_error) continue;
      const t = textOf(b.content);
      if (t.includes('"scripts"') && t.includes('"name"')) pkg = t;
      if (/^#\s+/m.test(t)) readme = t;
    }
  }
  return { readme, pkg };
}

/** The assistant text said since the answer began (after the last tool results). */
function saidSoFar(messages: Anthropic.MessageParam[]): string {
  let start = 0;
  messages.forEach((m, i) => {
    if (m.role === "user" && typeof m.content !== "string" && m.content.some((b) => b.type === "tool_result")) start = i + 1;
  });
  return messages
    .slice(start)
    .filter((m) => m.role === "assistant")
    .map((m) => textOf(m.content))
    .join("");
}

/**
 * Asked to go on with the answer, in any words: CONTINUE_PROMPT, or any user text right after an
 * assistant turn whose text is the beginning of the whole answer (as a real model would read it).
 */
function asksToContinue(ctx: TurnContext): boolean {
  if (ctx.prompt.trim() === CONTINUE_PROMPT) return true;
  const last = ctx.messages[ctx.messages.length - 1];
  const before = ctx.messages[ctx.messages.length - 2];
  if (last?.role !== "user" || before?.role !== "assistant" || ctx.results.length > 0 || ctx.prompt.trim() === S11_TASK) return false;
  const { readme, pkg } = filesFrom(ctx.messages);
  if (!readme && !pkg) return false;
  const full = fullAnswer(readme, pkg);
  const said = saidSoFar(ctx.messages);
  return said.length > 0 && said.length < full.length && full.startsWith(said);
}

function reply(ctx: TurnContext): Reply {
  const prompt = ctx.prompt.trim();
  if (asksToContinue(ctx)) {
    const { readme, pkg } = filesFrom(ctx.messages);
    const full = fullAnswer(readme, pkg);
    const said = saidSoFar(ctx.messages);
    const rest = full.startsWith(said) ? full.slice(said.length) : full;
    return say(rest.trim().length > 0 ? rest : "(That was the whole answer.)");
  }
  if (prompt !== S11_TASK) return intents.reply(ctx);
  if (ctx.step === 0) return { content: [thinking("Both files are needed; they can be read at once."), text("I'll read both files at once."), ...fileCalls(ctx)] };
  const { readme, pkg } = filesFrom(ctx.messages);
  if (!readme && !pkg) return say("I could not read README.md or package.json.");
  return say(fullAnswer(readme, pkg));
}

export const s11Recovery: Scenario = {
  id: "s11_recovery",
  title: "A long answer (continued after max_tokens), read from two files",
  task: S11_TASK,
  reply,
};
