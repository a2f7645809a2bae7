/**
 * s10_conversation: the REPL over one history, driven programmatically (lines in, cancel() for
 * Ctrl-C), sessions saved and resumed from disk, and a cancelled turn that leaves the session
 * usable. Every transcript is checked and sent again.
 */
import { mkdtempSync, writeFileSync, existsSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { PassThrough } from "node:stream";
import type Anthropic from "@anthropic-ai/sdk";
import { z } from "zod";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { S10_FOLLOW_UP, S10_TASK } from "../runtime/scripted/scenarios/s10_conversation.ts";
import { call, say, steps, text } from "../runtime/scripted/scenarios/script.ts";
import type { Scenario } from "../runtime/scripted/types.ts";
import { defineTool, SafeToolRegistry } from "../solutions/s04_tool_errors/define-tool.ts";
import { loadLesson, quietOutput, scripted , expectSendable , textIn , userTexts } from "../runtime/testing.ts";

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
    if (Date.now() > end) throw new Error("timed out waiting for the turn to start");
    await new Promise((r) => setTimeout(r, 5));
  }
}

describe("s10 commands", () => {
  it("reads commands and questions", () => {
    expect(repl.parseCommand("/exit")).toEqual({ kind: "exit" });
    expect(repl.parseCommand("  /reset ")).toEqual({ kind: "reset" });
    expect(repl.parseCommand("/save login-bug")).toEqual({ kind: "save", name: "login-bug" });
    expect(repl.parseCommand("/save")).toEqual({ kind: "save" });
    expect(repl.parseCommand("/load login-bug")).toEqual({ kind: "load", name: "login-bug" });
    expect(repl.parseCommand("what is here?")).toEqual({ kind: "ask", text: "what is here?" });
    expect(repl.parseCommand("   ")).toEqual({ kind: "empty" });
    expect(repl.parseCommand("/frobnicate").kind).toBe("unknown");
  });
});

describe("s10 one history over many questions", () => {
  it("answers a follow-up from an earlier turn's tool result", async () => {
    const llm = scripted();
    const r = agent.createRepl(llm, { dir: freshDir() });
    expect(await r.handle(S10_TASK)).toBe("continue");
    expect(await r.handle(S10_FOLLOW_UP)).toBe("continue");
    expect(lastText(r.history)).toMatch(/Earlier in this session I found \d+ entries/);
    expect(questions(r.history)).toEqual([S10_TASK, S10_FOLLOW_UP]);
    await expectSendable(llm, r.history);
    expect(await r.handle("/exit")).toBe("exit");
  });

  it("/reset starts a new conversation: the follow-up no longer sees the listing", async () => {
    const llm = scripted({ scenario: "s10_conversation" });
    const r = agent.createRepl(llm, { dir: freshDir() });
    await r.handle(S10_TASK);
    await r.handle("/reset");
    expect(r.history).toEqual([]);
    await r.handle(S10_FOLLOW_UP);
    expect(r.history).toHaveLength(2);
    expect(lastText(r.history)).toMatch(/no earlier listing/);
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
    expect(questions(r.history)).toEqual([S10_TASK]);
  });
});

describe("s10 sessions saved and resumed", () => {
  it("/save writes the session; /load in a new REPL resumes the same history, and it goes on", async () => {
    const dir = freshDir();
    const llm = scripted();
    const first = agent.createRepl(llm, { dir });
    await first.handle(S10_TASK);
    await first.handle("/save files");
    expect(existsSync(join(dir, "files.json"))).toBe(true);

    const second = agent.createRepl(llm, { dir });
    await second.handle("/load files");
    expect(second.history).toEqual(first.history);
    await second.handle(S10_FOLLOW_UP);
    expect(lastText(second.history)).toMatch(/Earlier in this session I found \d+ entries/);
    await expectSendable(llm, second.history);
  });

  it("/save NAME renames a session that was only autosaved, and keeps one that was saved before", async () => {
    const dir = freshDir();
    const r = agent.createRepl(scripted(), { dir });
    await r.handle(S10_TASK);
    expect(session.listSessions(dir)).toHaveLength(1);
    await r.handle("/save files");
    expect(session.listSessions(dir).map((s) => s.name)).toEqual(["files"]);
    await r.handle("/save copy");
    expect(session.listSessions(dir).map((s) => s.name)).toEqual(["copy", "files"]);
  });

  it("saves after every turn, so nothing is lost if the process dies", async () => {
    const dir = freshDir();
    const r = agent.createRepl(scripted(), { dir, name: "autosaved" });
    await r.handle(S10_TASK);
    expect(session.loadSession("autosaved", { dir }).messages).toEqual(r.history);
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
    expect(() => session.loadSession("broken", { dir })).toThrow(/toolu_x/);
    expect(() => session.loadSession("garbage", { dir })).toThrow(/not valid JSON/);
    expect(() => session.loadSession("missing", { dir })).toThrow(/no session "missing"/);
    expect(() => session.saveSession("../escape", [], { dir })).toThrow(/not a session name/);
    const r = agent.createRepl(scripted(), { dir });
    await r.handle(S10_TASK);
    const before = structuredClone(r.history);
    expect(await r.handle("/load broken")).toBe("continue");
    expect(r.history).toEqual(before);
  });
});

describe("s10 Ctrl-C cancels the turn, not the session", () => {
  it("cancelled while the model is answering: the question is taken back, the next one works", async () => {
    const llm = scripted({ scenario: waiting, latencyMs: 3_000 });
    const r = agent.createRepl(llm, { dir: freshDir() });
    const turn = r.handle("first question");
    await until(() => llm.scripted.exchanges.length === 1);
    expect(r.cancel()).toBe(true);
    await turn;
    expect(r.busy).toBe(false);
    expect(r.cancel()).toBe(false);
    llm.scripted.options.latencyMs = 0;
    await r.handle("second question");
    expect(lastText(r.history)).toContain("You asked: second question");
    expect(questions(r.history)).toEqual(["second question"]); // the cancelled one was taken back
    await expectSendable(llm, r.history);
  });

  it("cancelled while a tool runs: the call is answered, the next question does not fail", async () => {
    const llm = scripted({ scenario: waiting });
    const r = agent.createRepl(llm, { dir: freshDir(), agent: { registry: new SafeToolRegistry([waitTool]) } });
    const turn = r.handle("please wait");
    await until(() => r.history.some((m) => m.role === "assistant"));
    await new Promise((res) => setTimeout(res, 20));
    expect(r.cancel()).toBe(true);
    await turn;
    await expectSendable(llm, r.history);
    await r.handle("are you still there?");
    expect(llm.scripted.exchanges.every((e) => e.error === undefined)).toBe(true);
    expect(lastText(r.history)).toContain("You asked: are you still there?");
    await expectSendable(llm, r.history);
  });

  it("settleTurn answers a tool_use left behind, and takes back a question never answered", () => {
    const dangling: Anthropic.MessageParam[] = [
      { role: "user", content: "q" },
      { role: "assistant", content: [{ type: "tool_use", id: "toolu_1", name: "bash", input: {} }] },
    ];
    repl.settleTurn(dangling, 0);
    expect(dangling[2]).toMatchObject({ role: "user", content: [{ type: "tool_result", tool_use_id: "toolu_1", is_error: true }] });
    const unanswered: Anthropic.MessageParam[] = [{ role: "user", content: "q" }];
    repl.settleTurn(unanswered, 0);
    expect(unanswered).toEqual([]);
  });
});

describe("s10 one terminal for questions and approvals", () => {
  it("an approval asked during a turn takes the next line; the line after it is a question again", async () => {
    const input = new PassThrough();
    const rl = createInterface({ input });
    const lines: string[] = [];
    rl.on("line", (l) => lines.push(l));
    const approve = repl.askOn(rl);
    const first = approve({ command: "npm test", reason: "runs code" });
    input.write("y\n");
    expect(await first).toEqual({ approved: true });
    const second = approve({ command: "rm -r build", reason: "writes" });
    input.write("no\n");
    expect(await second).toMatchObject({ approved: false });
    input.write("next question\n");
    await new Promise((r) => setTimeout(r, 10));
    expect(lines).toEqual(["next question"]);
    expect(await repl.askOn(rl, true)({ command: "x", reason: "y" })).toEqual({ approved: true });
    rl.close();
  });
});
