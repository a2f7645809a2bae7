/**
 * s10_conversation: the REPL over one history, driven programmatically (lines in, cancel() for
 * Ctrl-C), sessions saved and resumed from disk, and a cancelled turn that leaves the session
 * usable. Every transcript is checked and sent again.
 */
import { mkdtempSync, writeFileSync, existsSync } from "node:fs";
import { tmpdir } from "node:os";
import { isDeepStrictEqual } from "node:util";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { PassThrough } from "node:stream";
import type Anthropic from "@anthropic-ai/sdk";
import { z } from "zod";
import { afterAll, beforeAll, describe, it } from "vitest";
import { S10_FOLLOW_UP, S10_TASK } from "../runtime/scripted/scenarios/s10_conversation.ts";
import { call, say, steps, text } from "../runtime/scripted/scenarios/script.ts";
import type { Scenario } from "../runtime/scripted/types.ts";
import { defineTool, SafeToolRegistry } from "../solutions/s04_tool_errors/define-tool.ts";
import { RuleError, callsIn, expectAccepted, expectSendable, expectVerbatimRequests, loadLesson, quietOutput, resultFor, rule, scripted, textIn, userTexts } from "../runtime/testing.ts";
import { checkTranscript, formatViolations } from "../runtime/transcript.ts";
import { clip } from "./support.ts";

/** A quoted piece of output, cut with an ellipsis when it is longer than `n`. */

type Agent = typeof import("../solutions/s10_conversation/agent.ts");
type Repl = typeof import("../solutions/s10_conversation/repl.ts");
type Session = typeof import("../solutions/s10_conversation/session.ts");
const agent = await loadLesson<Agent>("s10_conversation");
const repl = await loadLesson<Repl>("s10_conversation", "repl.ts");
const session = await loadLesson<Session>("s10_conversation", "session.ts");

let restore: () => void;
beforeAll(() => {
  restore = quietOutput();
});
afterAll(() => restore());

const freshDir = () => mkdtempSync(join(tmpdir(), "s10-sessions-"));
const lastText = (history: Anthropic.MessageParam[]) => textIn([...history].reverse().find((m) => m.role === "assistant")?.content);
const questions = (history: Anthropic.MessageParam[]) => userTexts(history);
/** Deep equality whatever the key order (JSON values: an undefined field counts as missing). */
const same = (a: unknown, b: unknown) => isDeepStrictEqual(JSON.parse(JSON.stringify(a ?? null)), JSON.parse(JSON.stringify(b ?? null)));

/** A resumed or saved history is the one it came from, message for message; else which message differs, in words. */
function expectSameHistory(got: Anthropic.MessageParam[], want: Anthropic.MessageParam[], what: string) {
  const i = want.findIndex((m, n) => !same(m, got[n]));
  if (i < 0 && got.length === want.length) return;
  const at = i < 0 ? Math.min(got.length, want.length) : i;
  // A message changed (its thinking edited, stripped or moved) is not-verbatim; one lost or added is the session's.
  const thinking = got.length === want.length && JSON.stringify(want[at] ?? "").includes('"thinking"') && !same(want[at], got[at]);
  rule(false, thinking ? "not-verbatim" : "session", `${what} differs at messages[${at}]: it is ${clip(JSON.stringify(got[at] ?? "(missing)"), 200)}, it should be ${clip(JSON.stringify(want[at] ?? "(nothing)"), 200)}${got.length === want.length ? "" : ` (${got.length} messages, not ${want.length})`}. Save and load every message as it is, thinking blocks and signatures included.`);
}

/** A tool that waits until it is cancelled (or 10 s pass): something for Ctrl-C to interrupt. */
const waitTool = defineTool({
  name: "wait",
  description: "Waits a long time.",
  input: z.object({}),
  readOnly: true,
  timeoutMs: 10_000,
  run: (_input, ctx) =>
    new Promise<string>((resolve, reject) => {
      const timer = setTimeout(() => resolve("waited"), 10_000);
      ctx.signal.addEventListener("abort", () => {
        clearTimeout(timer);
        reject(new Error("cancelled"));
      });
    }),
});
const waiting: Scenario = {
  id: "test-wait",
  title: "calls a slow tool for a question about waiting, answers anything else",
  reply: (ctx) =>
    /wait/i.test(ctx.prompt) && ctx.step === 0
      ? { content: [text("Waiting."), call("wait", {})] }
      : steps(() => say(`You asked: ${ctx.prompt.split("\n").pop()}`))(ctx),
};

async function until(cond: () => boolean, ms = 5_000): Promise<void> {
  const end = Date.now() + ms;
  while (!cond()) {
    if (Date.now() > end) throw new RuleError("session", `the question's turn did not start within ${ms / 1000} s: the REPL should run the loop on the history for each question (runTurn).`);
    await new Promise((r) => setTimeout(r, 5));
  }
}

describe("s10 commands", () => {
  it("reads commands and questions", () => {
    for (const [line, want] of [
      ["/exit", { kind: "exit" }],
      ["  /reset ", { kind: "reset" }],
      ["/save login-bug", { kind: "save", name: "login-bug" }],
      ["/save", { kind: "save" }],
      ["/load login-bug", { kind: "load", name: "login-bug" }],
      ["what is here?", { kind: "ask", text: "what is here?" }],
      ["   ", { kind: "empty" }],
    ] as const) {
      const got = repl.parseCommand(line);
      rule(same(got, want), "session", `parseCommand(${JSON.stringify(line)}) gave ${JSON.stringify(got)}, not ${JSON.stringify(want)}.`);
    }
    rule(repl.parseCommand("/frobnicate").kind === "unknown", "session", 'parseCommand("/frobnicate") must be an unknown command, not a question for the model.');
  });
});

describe("s10 one history over many questions", () => {
  it("answers a follow-up from an earlier turn's tool result", async () => {
    const llm = scripted();
    const r = agent.createRepl(llm, { dir: freshDir() });
    rule((await r.handle(S10_TASK)) === "continue" && (await r.handle(S10_FOLLOW_UP)) === "continue", "session", "a question must answer \"continue\": only /exit ends the REPL.");
    expectAccepted(llm);
    expectVerbatimRequests(llm);
    rule(same(questions(r.history), [S10_TASK, S10_FOLLOW_UP]), "session", `after two questions the history holds the questions ${JSON.stringify(questions(r.history))}: keep ONE history and add each question to it.`);
    rule(/Earlier in this session I found \d+ entries/.test(lastText(r.history)), "session", `the follow-up was answered without the first turn's listing (${JSON.stringify(clip(lastText(r.history), 160))}): run every question on the same history, so the model sees what it saw before.`);
    await expectSendable(llm, r.history);
    rule((await r.handle("/exit")) === "exit", "session", "/exit must answer \"exit\".");
  });

  it("/reset starts a new conversation: the follow-up no longer sees the listing", async () => {
    const llm = scripted({ scenario: "s10_conversation" });
    const r = agent.createRepl(llm, { dir: freshDir() });
    await r.handle(S10_TASK);
    await r.handle("/reset");
    const left = r.history.length;
    rule(left === 0, "session", `after /reset the history still has ${left} messages: a new conversation starts from an empty history.`);
    await r.handle(S10_FOLLOW_UP);
    rule(r.history.length === 2 && /no earlier listing/.test(lastText(r.history)), "session", `after /reset the follow-up still saw the old conversation (${r.history.length} messages; ${JSON.stringify(clip(lastText(r.history), 120))}).`);
  });

  it("runs lines from any source until /exit", async () => {
    const llm = scripted();
    const r = agent.createRepl(llm, { dir: freshDir() });
    async function* lines() {
      yield S10_TASK;
      yield "/exit";
      yield "never read";
    }
    await repl.runRepl(r, lines());
    rule(same(questions(r.history), [S10_TASK]), "session", `runRepl over [question, /exit, another line] asked ${JSON.stringify(questions(r.history))}: it reads lines until /exit, and no further.`);
  });
});

describe("s10 sessions saved and resumed", () => {
  it("/save writes the session; /load in a new REPL resumes the same history, and it goes on", async () => {
    const dir = freshDir();
    const llm = scripted();
    const first = agent.createRepl(llm, { dir });
    await first.handle(S10_TASK);
    await first.handle("/save files");
    rule(existsSync(join(dir, "files.json")), "session", `/save files wrote no ${join(dir, "files.json")}: save under the sessions folder as NAME.json.`);

    const second = agent.createRepl(llm, { dir });
    await second.handle("/load files");
    expectSameHistory(second.history, first.history, "the history /load files resumed");
    await second.handle(S10_FOLLOW_UP);
    expectAccepted(llm);
    rule(/Earlier in this session I found \d+ entries/.test(lastText(second.history)), "session", `after /load the follow-up was answered without the saved turn (${JSON.stringify(clip(lastText(second.history), 160))}).`);
    await expectSendable(llm, second.history);
    // Saved again and resumed once more: still the same, thinking blocks and all.
    await second.handle("/save files");
    const third = agent.createRepl(llm, { dir });
    await third.handle("/load files");
    expectSameHistory(third.history, second.history, "the history resumed a second time");
  });

  it("/save NAME renames a session that was only autosaved, and keeps one that was saved before", async () => {
    const dir = freshDir();
    const r = agent.createRepl(scripted(), { dir });
    await r.handle(S10_TASK);
    const names = () => session.listSessions(dir).map((s) => s.name);
    rule(names().length === 1, "session", `after one question the sessions folder holds ${JSON.stringify(names())}: the turn is autosaved once.`);
    await r.handle("/save files");
    rule(same(names(), ["files"]), "session", `after /save files the sessions are ${JSON.stringify(names())}: a session only autosaved under its clock name is renamed, not copied.`);
    await r.handle("/save copy");
    rule(same(names(), ["copy", "files"]), "session", `after /save copy the sessions are ${JSON.stringify(names())}: a session saved by name before is kept.`);
  });

  it("saves after every turn, so nothing is lost if the process dies", async () => {
    const dir = freshDir();
    const r = agent.createRepl(scripted(), { dir, name: "autosaved" });
    await r.handle(S10_TASK);
    expectSameHistory(session.loadSession("autosaved", { dir }).messages, r.history, "the session saved after the turn");
  });

  it("/load replaces the conversation in progress with the saved one", async () => {
    const dir = freshDir();
    const llm = scripted();
    const first = agent.createRepl(llm, { dir });
    await first.handle(S10_TASK);
    await first.handle("/save files");
    const second = agent.createRepl(llm, { dir });
    await second.handle("a question of another conversation");
    await second.handle("/load files");
    expectSameHistory(second.history, first.history, "the history after /load files in a REPL that had a conversation of its own");
  });

  it("each REPL has its own history: two conversations never share one", async () => {
    const dir = freshDir();
    const llm = scripted();
    const a = agent.createRepl(llm, { dir });
    const b = agent.createRepl(llm, { dir });
    await a.handle("the first conversation's question");
    await b.handle("the second conversation's question");
    rule(same(questions(a.history), ["the first conversation's question"]) && same(questions(b.history), ["the second conversation's question"]), "session", `two REPLs started without a history asked ${JSON.stringify(questions(a.history))} and ${JSON.stringify(questions(b.history))}: give each REPL (each session) its own history array, never one shared by default.`);
  });

  it("a resumed session keeps every text and thinking exactly, whitespace included", async () => {
    const dir = freshDir();
    const kept: Anthropic.MessageParam[] = [
      { role: "user", content: "  a question with spaces around it \n" },
      {
        role: "assistant",
        content: [
          { type: "thinking", thinking: "\n  Think it over, then answer.\n\n", signature: "sig-test-1" },
          { type: "text", text: "  An answer that ends with a new line.\n", citations: null },
        ],
      },
    ];
    const r = agent.createRepl(scripted(), { dir, history: structuredClone(kept) });
    await r.handle("/save spaces");
    const back = agent.createRepl(scripted(), { dir });
    await back.handle("/load spaces");
    expectSameHistory(back.history, kept, "the history /load spaces resumed");
  });

  it("refuses a session file the API would refuse, and keeps the current history", async () => {
    const dir = freshDir();
    const broken: Anthropic.MessageParam[] = [
      { role: "user", content: "hi" },
      { role: "assistant", content: [{ type: "tool_use", id: "toolu_x", name: "bash", input: { command: "ls" } }] },
      { role: "user", content: "no result for the call above" },
    ];
    writeFileSync(join(dir, "broken.json"), JSON.stringify({ version: 1, name: "broken", savedAt: "", model: "", messages: broken }));
    writeFileSync(join(dir, "garbage.json"), "{ not json");
    const refusal = (f: () => unknown) => {
      try {
        f();
        return undefined;
      } catch (e) {
        return String((e as Error).message ?? e);
      }
    };
    for (const [f, want, what] of [
      [() => session.loadSession("broken", { dir }), /toolu_x/, "a session whose tool_use toolu_x has no result"],
      [() => session.loadSession("garbage", { dir }), /not valid JSON/, "a session file that is not JSON"],
      [() => session.loadSession("missing", { dir }), /no session "missing"/, "a session that does not exist"],
      [() => session.saveSession("../escape", [], { dir }), /not a session name/, 'the session name "../escape"'],
    ] as const) {
      const said = refusal(f);
      rule(said !== undefined && want.test(said), "session", `${what} must be refused with a reason (${want}); ${said === undefined ? "it was accepted" : `it said: ${said}`}.`);
    }
    const r = agent.createRepl(scripted(), { dir });
    await r.handle(S10_TASK);
    const before = structuredClone(r.history);
    rule((await r.handle("/load broken")) === "continue", "session", "/load of a broken session must say why and go on, not end the REPL.");
    expectSameHistory(r.history, before, "the history after a refused /load");
  });
});

describe("s10 Ctrl-C cancels the turn, not the session", () => {
  it("cancelled while the model is answering: the question is taken back, the next one works", async () => {
    const llm = scripted({ scenario: waiting, latencyMs: 3_000 });
    const r = agent.createRepl(llm, { dir: freshDir() });
    const turn = r.handle("first question");
    await until(() => llm.scripted.exchanges.length === 1);
    rule(r.cancel(), "abort-leaves-transcript", "cancel() during a turn must answer true: there is a turn to cancel.");
    await turn;
    rule(!r.busy && !r.cancel(), "abort-leaves-transcript", "after a cancelled turn the REPL is still busy: the turn is over once it is cancelled.");
    llm.scripted.options.latencyMs = 0;
    await r.handle("second question");
    await expectSendable(llm, r.history);
    rule(same(questions(r.history), ["second question"]), "abort-leaves-transcript", `a turn cancelled before any answer left its question behind (the questions are ${JSON.stringify(questions(r.history))}): take it back, as if it was never asked.`);
    rule(lastText(r.history).includes("You asked: second question"), "session", `the question after a cancelled turn was not answered: ${JSON.stringify(clip(lastText(r.history), 120))}`);
  });

  it("cancelled while a tool runs: the call is answered, the next question does not fail", async () => {
    const llm = scripted({ scenario: waiting });
    const r = agent.createRepl(llm, { dir: freshDir(), agent: { registry: new SafeToolRegistry([waitTool]) } });
    const turn = r.handle("please wait");
    await until(() => r.history.some((m) => m.role === "assistant"));
    await new Promise((res) => setTimeout(res, 20));
    rule(r.cancel(), "abort-leaves-transcript", "cancel() while a tool runs must answer true: there is a turn to cancel.");
    await turn;
    await expectSendable(llm, r.history);
    await r.handle("are you still there?");
    expectAccepted(llm);
    await expectSendable(llm, r.history);
    rule(lastText(r.history).includes("You asked: are you still there?"), "session", `the question after a cancelled turn was not answered: ${JSON.stringify(clip(lastText(r.history), 120))}`);
  });

  it("settleTurn answers a tool_use left behind, and takes back a question never answered", () => {
    const dangling: Anthropic.MessageParam[] = [
      { role: "user", content: "q" },
      { role: "assistant", content: [{ type: "tool_use", id: "toolu_1", name: "bash", input: {} }] },
    ];
    repl.settleTurn(dangling, 0);
    // Either answered (is_error, not run) or taken back whole: both leave a history the API takes.
    const open = dangling.flatMap((m) => callsIn(m)).filter((c) => resultFor(dangling, c.id)?.is_error !== true);
    // An empty history (the whole turn taken back) is a conversation not yet begun.
    const problems = dangling.length === 0 ? [] : checkTranscript(dangling);
    rule(open.length === 0 && problems.length === 0, open.length > 0 ? "unanswered-tool-use" : (problems[0]?.rule as never) ?? "sendable-again", () =>
      `settleTurn left a cancelled turn that ends on a tool_use ${open.length > 0 ? `with ${open.map((c) => c.id).join(", ")} unanswered` : `broken: ${formatViolations(problems)}`}: answer each call (is_error: true, not run) or take the turn back.`);
    // Parallel calls left behind: every one of them is answered (or the turn taken back).
    const parallel: Anthropic.MessageParam[] = [
      { role: "user", content: "q" },
      { role: "assistant", content: [{ type: "tool_use", id: "toolu_a", name: "bash", input: {} }, { type: "tool_use", id: "toolu_b", name: "read_file", input: {} }] },
    ];
    repl.settleTurn(parallel, 0);
    const left = parallel.flatMap((m) => callsIn(m)).filter((c) => resultFor(parallel, c.id)?.is_error !== true);
    const broken = parallel.length === 0 ? [] : checkTranscript(parallel);
    rule(left.length === 0 && broken.length === 0, left.length > 0 ? "unanswered-tool-use" : (broken[0]?.rule as never) ?? "sendable-again", () =>
      `settleTurn left a cancelled turn with two calls ${left.length > 0 ? `with ${left.map((c) => c.id).join(", ")} unanswered` : `broken: ${formatViolations(broken)}`}: answer every tool_use of the turn (is_error: true, not run), not only the first, or take the turn back.`);
    const unanswered: Anthropic.MessageParam[] = [{ role: "user", content: "q" }];
    repl.settleTurn(unanswered, 0);
    rule(unanswered.length === 0, "abort-leaves-transcript", `settleTurn left a question nothing answered (${JSON.stringify(unanswered)}): take it back.`);
  });

  it("settleTurn drops an empty answer (end_turn with content []), keeps a real one, and the next question still goes", () => {
    // A turn that ran a tool, then got back an end_turn with no content.
    const empty: Anthropic.MessageParam[] = [
      { role: "user", content: "q" },
      { role: "assistant", content: [{ type: "tool_use", id: "toolu_1", name: "bash", input: {} }] },
      { role: "user", content: [{ type: "tool_result", tool_use_id: "toolu_1", content: "ok" }] },
      { role: "assistant", content: [] },
    ];
    repl.settleTurn(empty, 0);
    repl.addQuestion(empty, "next question");
    const problems = checkTranscript(empty);
    rule(problems.length === 0, (problems[0]?.rule as never) ?? "empty-message", () => `a turn that ended on an empty assistant message (content []) left, after settleTurn and the next question, a history the API refuses: ${formatViolations(problems)}. Never keep an assistant message with empty content: take it off the history.`);
    // Answered turns are kept as they are, whatever the shape of the answer.
    for (const [content, shape] of [
      ["The answer, in the API's short form.", "a string"],
      [[{ type: "text", text: "The answer, as a block." }], "a text block"],
    ] as const) {
      const answered: Anthropic.MessageParam[] = [
        { role: "user", content: "q" },
        { role: "assistant", content: structuredClone(content) as Anthropic.MessageParam["content"] },
      ];
      const before = structuredClone(answered);
      repl.settleTurn(answered, 0);
      rule(same(answered, before), "session", () => `settleTurn changed a turn answered with ${shape}: the history is ${clip(JSON.stringify(answered), 200)}, it was ${clip(JSON.stringify(before), 200)}. Keep an answered turn as it is; only an assistant message with empty content ([]) is taken off.`);
    }
  });

  it("addQuestion keeps the text of a user message left at the end of the history", () => {
    // A conversation passed in (or resumed) that ends on a question never answered, as a string.
    const history: Anthropic.MessageParam[] = [{ role: "user", content: "the question left unanswered" }];
    repl.addQuestion(history, "the next question");
    const said = questions(history);
    rule(said.includes("the question left unanswered") && said.includes("the next question"), "session", `addQuestion on a history that ends with the user message "the question left unanswered" (a string) left the user texts ${JSON.stringify(said)}: add the new question to that message and keep its text (a string content is one text block).`);
    const problems = checkTranscript(history);
    rule(problems.length === 0, (problems[0]?.rule as never) ?? "roles-alternate", () => `addQuestion on a history that ends with a user message left a history the API refuses: ${formatViolations(problems)}.`);
  });
});

describe("s10 one terminal for questions and approvals", () => {
  it("an approval asked during a turn takes the next line; the line after it is a question again", async () => {
    // A terminal (a person types the answers); the next test is the same with a pipe.
    const input = Object.assign(new PassThrough(), { isTTY: true });
    const rl = createInterface({ input, output: new PassThrough(), terminal: true });
    const lines: string[] = [];
    rl.on("line", (l) => lines.push(l));
    const approve = repl.askOn(rl);
    const first = approve({ command: "npm test", reason: "runs code" });
    input.write("y\n");
    rule((await first).approved, "approval", 'answering "y" to an approval asked on the REPL\'s terminal did not approve.');
    const second = approve({ command: "rm -r build", reason: "writes" });
    input.write("no\n");
    rule(!(await second).approved, "approval", 'answering "no" to an approval asked on the REPL\'s terminal approved the command.');
    input.write("next question\n");
    await new Promise((r) => setTimeout(r, 10));
    rule(same(lines, ["next question"]), "session", `the lines the REPL read as questions were ${JSON.stringify(lines)}: an approval's answer is not a question, the line after it is.`);
    rule((await repl.askOn(rl, true)({ command: "x", reason: "y" })).approved, "approval", "askOn(rl, true) (--yes) must approve without asking.");
    rl.close();
  });

  it("from a pipe nothing is approved: the line that follows stays a question", async () => {
    const input = new PassThrough();
    const rl = createInterface({ input, terminal: false });
    const lines: string[] = [];
    rl.on("line", (l) => lines.push(l));
    const asked = repl.askOn(rl)({ command: "touch pwned", reason: "touch is not on the read-only list" });
    input.write("y\n");
    const d = await asked;
    await new Promise((r) => setTimeout(r, 10));
    rule(!d.approved, "approval", `askOn on a readline that is not a terminal approved "touch pwned" after the piped line "y" (${JSON.stringify(d)}): only a person at a terminal approves; from a pipe, refuse (and say --yes allows such commands).`);
    rule(same(lines, ["y"]), "session", `the piped lines the REPL read as questions were ${JSON.stringify(lines)}: a refused approval takes no line, the "y" is a question.`);
    rl.close();
  });
});

// The net under the rules: this lesson beside the reference, on its own task and on generated
// model answers (tests/differential/net.ts).
import { differentialNet } from "./differential/net.ts";
differentialNet("s10");
