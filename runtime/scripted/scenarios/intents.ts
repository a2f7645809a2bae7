/**
 * Free-form prompts: a few recognised intents (list files, read a file, run a command, run the
 * tests) answered with whichever suitable tool the request offers; anything else gets an honest
 * answer that this is the offline model and how to use a real one. Either way the task had no
 * script, and the FIRST answer says so (UNSCRIPTED): the model takes the one step it recognises
 * and quotes it, it does not do the task. Both answers begin with UNSCRIPTED_MARK, by which the
 * run that gets one says "not done" (runtime/offline.ts), in process or through the offline
 * server. With a notes MCP server connected, any other question is a question about the notes
 * (notes.ts): searched, read, answered.
 */
import type { Reply, Scenario, TurnContext } from "../types.ts";
import { notesReply } from "./notes.ts";
import { call, firstLines, say, text } from "./script.ts";

/** How the offline model's answer to a task it has no script for begins (and only such an answer). */
export const UNSCRIPTED_MARK = "I am the scripted model (offline)";

export const OFFLINE_NOTICE =
  `${UNSCRIPTED_MARK}, not a real language model. I can answer this course's own ` +
  "lesson tasks (`npm run agent -- --scenarios` lists them) and a few requests: list the files, read a file (\"read README.md\"), run a command " +
  "(\"run `ls -la`\"), run the tests, and (with the example MCP notes server) questions about the team's notes. For anything else, put ANTHROPIC_API_KEY (or ANTHROPIC_BASE_URL " +
  "for a compatible endpoint) in .env and run again.";

/** How its answer begins when a Stop hook sent it back to a task it has no script for (the run's no_script already said). */
export const UNSCRIPTED_SENT_BACK = `${UNSCRIPTED_MARK}: a Stop hook sent me back`;

/** The first words of the first answer to a task the offline model has no script for. */
export const UNSCRIPTED =
  `${UNSCRIPTED_MARK}, and this task is not one I have a script for. I can take the one step I recognise in it ` +
  "and quote what comes back, but I cannot reason about it, change anything or finish the task: this run will not be done. " +
  "For a real answer, put ANTHROPIC_API_KEY (or ANTHROPIC_BASE_URL) in .env and run again.";

const isHookNote = (m: TurnContext["messages"][number]) => m.role === "user" && (typeof m.content === "string" ? m.content : m.content.map((b) => (b.type === "text" ? b.text : "")).join("")).trimStart().startsWith("[");
const textOfAnswer = (m: TurnContext["messages"][number]) => (typeof m.content === "string" ? m.content : m.content.map((b) => (b.type === "text" ? b.text : "")).join("\n"));
const isQuestion = (m: TurnContext["messages"][number]) =>
  m.role === "user" && !isHookNote(m) && (typeof m.content === "string" || m.content.some((b) => b.type === "text"));

/** Was the question the Stop hook answers (the last one asked) answered as unscripted? */
function unscriptedQuestion(ctx: TurnContext): boolean {
  const asked = ctx.messages.findLastIndex(isQuestion);
  return ctx.messages.slice(asked + 1).some((m) => m.role === "assistant" && textOfAnswer(m).trimStart().startsWith(UNSCRIPTED_MARK));
}

type Intent = { name: string; input: Record<string, unknown>; say: string };

function pick(ctx: TurnContext, ...names: string[]): string | undefined {
  return names.find((n) => ctx.tools.includes(n));
}

function intentOf(ctx: TurnContext): Intent | null {
  const p = ctx.prompt;
  const bash = pick(ctx, "bash", "run_command", "shell");
  const backticked = /`([^`]+)`/.exec(p)?.[1];
  if (backticked && bash) return { name: bash, input: { command: backticked }, say: `I'll run \`${backticked}\`.` };

  if (/\b(tests?|spec)\b|测试|тест/i.test(p)) {
    const runTests = pick(ctx, "run_tests");
    if (runTests) {
      const module = /\b(?:the\s+)?([\w-]+)\s+module\b|模块\s*([\w-]+)|([\w-]+)\s*模块/i.exec(p);
      const name = module?.[1] ?? module?.[2] ?? module?.[3];
      return { name: runTests, input: name ? { module: name } : {}, say: "I'll run the tests." };
    }
    if (bash) return { name: bash, input: { command: "npm test" }, say: "I'll run the tests with `npm test`." };
  }

  const path = /(?:read|show|open|cat|print|读|看)\s+(?:the\s+file\s+|file\s+)?([\w./-]+\.[\w]+|[\w./-]*\/[\w./-]+)/i.exec(p)?.[1];
  if (path) {
    const read = pick(ctx, "read_file");
    if (read) return { name: read, input: { path }, say: `I'll read ${path}.` };
    if (bash) return { name: bash, input: { command: `cat ${path}` }, say: `I'll print ${path}.` };
  }

  if (/\b(list|ls|files|directory|folder)\b|文件|目录|файл/i.test(p)) {
    const list = pick(ctx, "list_files", "glob");
    if (list === "glob") return { name: list, input: { pattern: "*" }, say: "I'll list the files." };
    if (list) return { name: list, input: { path: "." }, say: "I'll list the files." };
    if (bash) return { name: bash, input: { command: "ls -la" }, say: "I'll list the files with `ls -la`." };
  }
  return null;
}

export const intents: Scenario = {
  id: "intents",
  title: "Free-form prompts: a few recognised intents, else an honest offline notice",
  reply(ctx): Reply {
    // A Stop hook sent the model back (s19): the offline model cannot act on its reason, and says
    // so; its answer to the question before stands (done or not, as that answer was).
    if (ctx.prompt.trimStart().startsWith("[Stop hook]")) {
      const why = ctx.prompt.trim().replace(/^\[Stop hook\]\s*/, "").slice(0, 200);
      // An unscripted question stays unscripted (its round ends not done, runtime/offline.ts).
      if (unscriptedQuestion(ctx)) return say(`${UNSCRIPTED_SENT_BACK} (${why}), and I cannot act on that; this task is not done.`);
      return say(`A Stop hook sent me back (${why}). Offline, the scripted model cannot act on that: my answer above stands.`);
    }
    const intent = intentOf(ctx);
    // A question about the team's notes, with an MCP notes server connected (s17, the final
    // agent): any wording that is not one of the intents above is searched in the notes.
    const notes = notesReply(ctx, { anyQuestion: intent === null });
    if (notes) return notes;
    if (ctx.step === 0 || ctx.results.length === 0) {
      if (!intent) return say(OFFLINE_NOTICE);
      return { content: [text(`${UNSCRIPTED}\n\n${intent.say}`), call(intent.name, intent.input)] };
    }
    const parts = ctx.results.map((r) => {
      const out = ctx.resultText(r);
      const what = ctx.callOf(r)?.name ?? "the tool";
      return r.is_error
        ? `${what} reported an error:\n${firstLines(out, 8)}`
        : `Here is what ${what} returned:\n${firstLines(out, 12) || "(no output)"}`;
    });
    return say(`(The scripted model, offline: it quotes tool output but does not reason about it; the task is not done.)\n\n${parts.join("\n\n")}`);
  },
};
