/**
 * The offline model is honest up front (runtime/offline.ts, scenarios/intents.ts, notes.ts): a
 * task it has no script for is told so in the FIRST answer, the run's outcome is "not done" and
 * its exit says so (the lesson harness, the final agent); the tasks it knows are listed; with the
 * example notes server connected, a question in any wording is searched, then the note read.
 */
import { rmSync } from "node:fs";
import type Anthropic from "@anthropic-ai/sdk";
import { describe, expect, it, vi } from "vitest";
import { scriptedLlm } from "../../runtime/client.ts";
import { runLesson } from "../../runtime/lesson.ts";
import { NotDoneOffline, hasScript, noScript, scenarioList, unscriptedRun } from "../../runtime/offline.ts";
import { output } from "../../runtime/print.ts";
import { OFFLINE_NOTICE, UNSCRIPTED } from "../../runtime/scripted/scenarios/intents.ts";
import { SCENARIOS } from "../../runtime/scripted/scenarios/index.ts";
import { S01_TASK, SAMPLE_REPOSITORY } from "../../runtime/tasks.ts";
import { stripEscapes } from "../../runtime/terminal-text.ts";
import { scratchCopy } from "../../runtime/tools/files.ts";
import { translatedWords, word } from "../../runtime/words.ts";
import { agentLoop } from "../../solutions/s01_agent_loop/agent.ts";
import { run as agentProgram } from "../../solutions/s17_mcp/program.ts";

const offline = { env: { COURSE_OFFLINE: "1" } };

async function capture(task: string): Promise<{ out: string; error: unknown }> {
  const lines: string[] = [];
  const original = output.write;
  output.write = (line) => void lines.push(line);
  let error: unknown;
  try {
    await runLesson({ task: S01_TASK, model: offline, run: ({ llm, history }) => agentLoop(llm, history), describe: (m) => `stop_reason ${m.stop_reason}` }, [task]);
  } catch (e) {
    error = e;
  } finally {
    output.write = original;
  }
  return { out: lines.join("\n"), error };
}

describe("a task the offline model has no script for", () => {
  it("its first answer says so before anything runs; the outcome is not done and the run fails (exit non-zero)", async () => {
    const { out, error } = await capture("run `echo offline-honesty` and fix whatever it shows");
    const first = out.indexOf(noScript());
    expect(first, "the limits are printed before the run").toBeGreaterThan(-1);
    expect(first, "before the step it takes").toBeLessThan(out.indexOf("offline-honesty"));
    expect(out).toMatch(/Outcome:.*not done \(the offline model has no script for this task\)/);
    expect(out).not.toMatch(/Outcome: stop_reason/);
    expect(error, "the run ends in an error: runMain exits non-zero").toBeInstanceOf(NotDoneOffline);
    expect((error as Error).message).toMatch(/^Not done: .*ANTHROPIC_API_KEY/);
  });

  it("a plain question gets the notice at once, and is not done either", async () => {
    const { out, error } = await capture("write me a poem about the sea");
    expect(out).toContain(OFFLINE_NOTICE);
    expect(error).toBeInstanceOf(NotDoneOffline);
  });

  it("the first answer of the model itself says so too, before the step it takes", async () => {
    const { client } = scriptedLlm({}, { maxRetries: 0 });
    const tools: Anthropic.Tool[] = [{ name: "run_tests", input_schema: { type: "object", properties: {} } }];
    for (const task of ["fix the failing login test", "run the tests and make them pass"]) {
      expect(hasScript(task), task).toBe(false);
      const m = await client.messages.create({ model: "scripted-model", max_tokens: 500, tools, messages: [{ role: "user", content: task }] });
      const first = m.content[0];
      expect(first?.type === "text" && first.text.startsWith(UNSCRIPTED), task).toBe(true);
      expect(m.content.map((b) => b.type), task).toEqual(["text", "tool_use"]);
    }
  });

  it("the lesson's own task is scripted: done, no notice", async () => {
    expect(hasScript(S01_TASK)).toBe(true);
    const { out, error } = await capture(S01_TASK);
    expect(error).toBeUndefined();
    expect(out).not.toContain("I am the scripted model");
    expect(out).not.toContain(noScript());
    expect(out).toMatch(/Outcome: stop_reason end_turn/);
  });

  it("unscriptedRun reads it from the transcript alone (so it works through the offline server too)", () => {
    const answer = (text: string): Anthropic.MessageParam => ({ role: "assistant", content: [{ type: "text", text }] });
    expect(unscriptedRun([{ role: "user", content: "q" }, answer(OFFLINE_NOTICE)])).toBe(true);
    expect(unscriptedRun([{ role: "user", content: "q" }, answer(`${UNSCRIPTED}\n\nI'll run the tests.`)])).toBe(true);
    expect(unscriptedRun([{ role: "user", content: "q" }, answer("The model says: I am the scripted model (offline)")])).toBe(false);
  });

  it("the tasks it knows are listed (`npm run agent -- --scenarios`), every scripted task in them", async () => {
    const list = scenarioList();
    for (const s of SCENARIOS.filter((x) => x.task !== undefined)) expect(list).toContain(s.id);
    const lines: string[] = [];
    const original = output.write;
    output.write = (line) => void lines.push(line);
    try {
      const { exitCode } = await agentProgram(["--scenarios"], { llm: scriptedLlm() });
      expect(exitCode).toBe(0);
      const help = await agentProgram(["--help"], { llm: scriptedLlm() });
      expect(help.exitCode).toBe(0);
    } finally {
      output.write = original;
    }
    expect(lines.join("\n")).toContain("s01_agent_loop");
    expect(lines.join("\n")).toContain("--scenarios");
  });

  it.for(["zh", "ja", "ru"] as const)("npm run agent with COURSE_LANG=%s: the run's \"Not done\" is said in that language (runtime/i18n/cli.<lang>.json), once", async (lang) => {
    const table = translatedWords(lang);
    const own = table["run.not-done-offline"];
    expect(own, `runtime/i18n/cli.${lang}.json has no "run.not-done-offline"`).toBeDefined();
    const dir = await scratchCopy(SAMPLE_REPOSITORY);
    const lines: string[] = [];
    const original = output.write;
    output.write = (line) => void lines.push(stripEscapes(line));
    vi.stubEnv("COURSE_LANG", lang);
    try {
      const { exitCode } = await agentProgram(["--workspace", dir, "What is the weather like?"], { llm: scriptedLlm() });
      expect(exitCode).toBe(1);
    } finally {
      vi.unstubAllEnvs();
      output.write = original;
      rmSync(dir, { recursive: true, force: true });
    }
    const said = lines.join("\n");
    expect(said.split(own!).length - 1, said).toBe(1);
    expect(said, "the English words as well as, or instead of, the language's").not.toContain(word("run.not-done-offline", {}, "en"));
  });
});

describe("questions about the team's notes, in free wording, with the notes server's tools", () => {
  const tools: Anthropic.Tool[] = ["mcp__notes__search", "mcp__notes__read_note"].map((name) => ({ name, input_schema: { type: "object", properties: {} } }));
  /** Plays the conversation: search, then read, with the given tool results; returns each answer. */
  async function converse(question: string, searchResult: string, note: string) {
    const { client } = scriptedLlm({}, { maxRetries: 0 });
    const messages: Anthropic.MessageParam[] = [{ role: "user", content: question }];
    const answers: Anthropic.Message[] = [];
    for (const result of [searchResult, note, undefined]) {
      const m = await client.messages.create({ model: "scripted-model", max_tokens: 500, tools, messages });
      answers.push(m);
      messages.push({ role: "assistant", content: m.content });
      const call = m.content.find((b): b is Anthropic.ToolUseBlock => b.type === "tool_use");
      if (!call || result === undefined) break;
      messages.push({ role: "user", content: [{ type: "tool_result", tool_use_id: call.id, content: result }] });
    }
    return answers;
  }
  const callOf = (m: Anthropic.Message | undefined) => m?.content.find((b): b is Anthropic.ToolUseBlock => b.type === "tool_use");

  it.for([
    ["Who is on call this week?", /call/],
    ["When do we release?", /release/],
    ["谁在值班？", /on-call/],
  ] as const)("%s: searched, the first hit read, the note quoted", async ([question, query]) => {
    const answers = await converse(question, "oncall: On-call", "# On-call\n\nThe on-call engineer answers pages within 15 minutes.");
    expect(callOf(answers[0])?.name).toBe("mcp__notes__search");
    expect(String((callOf(answers[0])?.input as { query?: string }).query)).toMatch(query);
    expect(callOf(answers[1])).toMatchObject({ name: "mcp__notes__read_note", input: { id: "oncall" } });
    expect(JSON.stringify(answers[2]?.content)).toContain("answers pages within 15 minutes");
    expect(JSON.stringify(answers.map((a) => a.content)), "never refused while the notes are reachable").not.toContain("I am the scripted model");
  });

  it("a search with no hit is said plainly, not refused", async () => {
    const answers = await converse("Who owns the billing service?", 'No note mentions "owns billing service".', "");
    expect(JSON.stringify(answers[1]?.content)).toMatch(/The notes say nothing about/);
  });

  it("without the notes server, the same question gets the notice, which says notes questions need that server", async () => {
    const { client } = scriptedLlm({}, { maxRetries: 0 });
    const m = await client.messages.create({ model: "scripted-model", max_tokens: 500, messages: [{ role: "user", content: "Who is on call this week?" }] });
    expect(m.content).toEqual([{ type: "text", text: OFFLINE_NOTICE }]);
    expect(OFFLINE_NOTICE).toMatch(/with the example MCP notes server\) questions about the team's notes/);
  });
});
