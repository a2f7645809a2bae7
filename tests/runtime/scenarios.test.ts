/**
 * How the scripted model answers: deterministic, routed by the conversation's first text, free-form
 * prompts mapped to a few intents with whichever suitable tool the request offers, and otherwise
 * an honest notice that it is the offline model. It never calls itself Claude.
 */
import type Anthropic from "@anthropic-ai/sdk";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it, vi } from "vitest";
import { scriptedLlm } from "../../runtime/client.ts";
import { readConversation } from "../../runtime/scripted/conversation.ts";
import { OFFLINE_NOTICE } from "../../runtime/scripted/scenarios/intents.ts";
import { S01_TASK } from "../../runtime/scripted/scenarios/s01_agent_loop.ts";
import { PLAN_TASK } from "../../runtime/scripted/scenarios/plan_mode.ts";
import { S12_TASK } from "../../runtime/scripted/scenarios/s12_guarded_agent.ts";
import { unscriptedRun } from "../../runtime/offline.ts";
import { output } from "../../runtime/print.ts";
import { stripAnsi } from "../cli/course-copy.ts";
import { ROOT, scripted } from "../../runtime/testing.ts";
import { scratchCopy } from "../../runtime/tools/files.ts";
import { textOf } from "../../runtime/transcript.ts";
import * as finalProgram from "../../solutions/s22_background/program.ts";
import { approveWorkspaceHooks } from "../../solutions/s19_hooks/trust.ts";

const tool = (name: string): Anthropic.Tool => ({ name, input_schema: { type: "object", properties: {} } });

async function ask(prompt: string, tools: string[]) {
  const { client } = scriptedLlm({}, { maxRetries: 0 });
  return client.messages.create({ model: "scripted-model", max_tokens: 1000, tools: tools.map(tool), messages: [{ role: "user", content: prompt }] });
}
const callOf = (m: Anthropic.Message) => m.content.find((b): b is Anthropic.ToolUseBlock => b.type === "tool_use");

describe("the scripted model's answers", () => {
  it.each([
    ["list the files", ["bash"], "bash", { command: "ls -la" }],
    ["list the files", ["list_files", "bash"], "list_files", { path: "." }],
    ["please read README.md", ["read_file", "bash"], "read_file", { path: "README.md" }],
    ["please read README.md", ["bash"], "bash", { command: "cat README.md" }],
    ["run `echo hi there`", ["bash"], "bash", { command: "echo hi there" }],
    ["run the tests", ["bash"], "bash", { command: "npm test" }],
    ["run the tests of the login module", ["run_tests", "bash"], "run_tests", { module: "login" }],
  ])("%j with tools %j → %s %j", async (prompt, tools, name, input) => {
    const m = await ask(prompt, tools);
    expect(m.stop_reason).toBe("tool_use");
    expect(callOf(m)).toMatchObject({ name, input });
  });

  it.each([
    ["What do the notes say about releases?", "releases"],
    ["search the notes for on-call", "on-call"],
    ["笔记里关于发布说了什么？", "release"],
  ])("a question about the team's notes (%j) searches an MCP notes server for %j, whatever the server is called", async (prompt, query) => {
    const m = await ask(prompt, ["bash", "mcp__team__search", "mcp__team__read_note"]);
    expect(callOf(m)).toMatchObject({ name: "mcp__team__search", input: { query } });
    // Without such a server, the same question is not mistaken for another intent.
    const none = await ask(prompt, ["bash"]);
    expect(callOf(none)).toBeUndefined();
  });

  it("a notes conversation reads the first hit, then answers quoting it; no hit is said so", async () => {
    const { client } = scriptedLlm({}, { maxRetries: 0 });
    const tools = [tool("mcp__notes__search"), tool("mcp__notes__read_note")];
    const history: Anthropic.MessageParam[] = [{ role: "user", content: "what do our notes say about releases?" }];
    const answers = ["releases: Releases", "# Releases\n\nWe release on Tuesdays."];
    for (const out of answers) {
      const m = await client.messages.create({ model: "scripted-model", max_tokens: 500, tools, messages: history });
      history.push({ role: "assistant", content: m.content }, { role: "user", content: [{ type: "tool_result", tool_use_id: callOf(m)!.id, content: out }] });
    }
    const reads = history[3]!.content as Anthropic.ContentBlockParam[];
    expect(reads.find((b) => b.type === "tool_use")).toMatchObject({ name: "mcp__notes__read_note", input: { id: "releases" } });
    const last = await client.messages.create({ model: "scripted-model", max_tokens: 500, tools, messages: history });
    expect(last.stop_reason).toBe("end_turn");
    expect(last.content).toEqual([{ type: "text", text: expect.stringContaining("We release on Tuesdays.") }]);
  });

  it("text after tool results is a note on them (after successes or failures); after a cancelled turn it is the next question", () => {
    const call: Anthropic.MessageParam = {
      role: "assistant",
      content: [
        { type: "tool_use", id: "toolu_1", name: "bash", input: { command: "ls" } },
        { type: "tool_use", id: "toolu_2", name: "bash", input: { command: "pwd" } },
      ],
    };
    const read = (results: Anthropic.ToolResultBlockParam[], note: string) =>
      readConversation({ model: "scripted-model", max_tokens: 10, messages: [{ role: "user", content: "list the files" }, call, { role: "user", content: [...results, { type: "text", text: note }] }] }, 0);
    const ok = (id: string, content: string): Anthropic.ToolResultBlockParam => ({ type: "tool_result", tool_use_id: id, content });
    const failed = (id: string, content: string | Anthropic.TextBlockParam[]): Anthropic.ToolResultBlockParam => ({ type: "tool_result", tool_use_id: id, content, is_error: true });
    // Notes: the task goes on (the same prompt, the next step).
    for (const results of [
      [ok("toolu_1", "a.txt"), ok("toolu_2", "/ws")],
      [failed("toolu_1", "ENOENT: no such file"), failed("toolu_2", "Error: permission denied")], // every call failed: still a note
      [failed("toolu_1", "hang did not finish within 0.06 s and was stopped."), failed("toolu_2", "aborted after 500 ms")], // the loop's own time-outs
      [ok("toolu_1", "a.txt"), failed("toolu_2", [{ type: "text", text: "exit code 1" }])],
    ]) {
      const noted = read(results, "Reminder: keep your todo list up to date.");
      expect([noted.prompt, noted.step], JSON.stringify(results)).toEqual(["list the files", 1]);
    }
    // The next question: the turn was cancelled, in any words, as strings or blocks, even with one call done.
    for (const results of [
      [failed("toolu_1", "Not run: the user cancelled this turn (Ctrl-C)."), failed("toolu_2", "Not run: cancelled")],
      [failed("toolu_1", [{ type: "text", text: "Interrupted by the user." }]), failed("toolu_2", [{ type: "text", text: "Interrupted by the user." }])],
      [ok("toolu_1", "a.txt"), failed("toolu_2", "the user pressed Ctrl-C")],
      [failed("toolu_1", "Stopped by the user."), failed("toolu_2", "Stopped by the user.")],
      [failed("toolu_1", "用户取消了这一轮"), failed("toolu_2", "用户取消了这一轮")],
    ]) {
      const cancelled = read(results, "how many files?");
      expect([cancelled.prompt, cancelled.step], JSON.stringify(results)).toEqual(["how many files?", 0]);
    }
  });

  it("anything else, or no suitable tool: the honest offline notice, end_turn", async () => {
    for (const [prompt, tools] of [["write me a sonnet about the sea", ["bash"]], ["list the files", []]] as const) {
      const m = await ask(prompt, [...tools]);
      expect(m.stop_reason).toBe("end_turn");
      expect(m.content).toEqual([{ type: "text", text: OFFLINE_NOTICE }]);
    }
    expect(OFFLINE_NOTICE).toMatch(/scripted model \(offline\)/);
    expect(OFFLINE_NOTICE).toMatch(/ANTHROPIC_API_KEY/);
  });

  it("reads the tool result it gets back (or the error) into its answer", async () => {
    const { client } = scriptedLlm({}, { maxRetries: 0 });
    const first = await client.messages.create({ model: "scripted-model", max_tokens: 500, tools: [tool("bash")], messages: [{ role: "user", content: "list the files" }] });
    const id = callOf(first)!.id;
    const next = (content: string, is_error: boolean) =>
      client.messages.create({
        model: "scripted-model",
        max_tokens: 500,
        tools: [tool("bash")],
        messages: [
          { role: "user", content: "list the files" },
          { role: "assistant", content: first.content },
          { role: "user", content: [{ type: "tool_result", tool_use_id: id, content, is_error }] },
        ],
      });
    const ok = await next("alpha.txt\nbeta.txt", false);
    expect(ok.stop_reason).toBe("end_turn");
    expect(JSON.stringify(ok.content)).toMatch(/alpha\.txt.*beta\.txt/);
    const failed = await next("ls: permission denied", true);
    expect(JSON.stringify(failed.content)).toMatch(/reported an error.*permission denied/);
  });

  it("a lesson's default task routes to its scenario without being told", async () => {
    const m = await ask(S01_TASK, ["bash"]);
    expect(m.content.map((b) => b.type)).toEqual(["thinking", "text", "tool_use"]);
    expect(callOf(m)).toMatchObject({ name: "bash", input: { command: "ls" } });
  });

  it("is deterministic: the same request gets the same message, ids and signatures included", async () => {
    const a = await ask(S01_TASK, ["bash"]);
    const b = await ask(S01_TASK, ["bash"]);
    expect(b).toEqual(a);
  });

  it("names itself honestly: the model id it was asked for, never a Claude model", async () => {
    const m = await ask("hello", []);
    expect(m.model).toBe("scripted-model");
    expect(JSON.stringify(m)).not.toMatch(/claude/i);
  });
});

describe("the README's offline tasks reach their designed end (npm run agent's program, in process)", () => {
  const sample = () => scratchCopy(join(ROOT, "examples", "login-service"));
  const answerText = (h: Anthropic.MessageParam[]) => h.filter((m) => m.role === "assistant").map((m) => textOf(m.content)).join("\n");

  it("plan mode: reads, sends the plan with exit_plan_mode, and once approved (--yes) fixes the lockout and runs the tests", async () => {
    const dir = await sample();
    try {
      const r = await finalProgram.run(["--permission-mode", "plan", "--yes", "--workspace", dir, PLAN_TASK], { llm: scripted() });
      const calls = r.history.flatMap((m) => (m.role === "assistant" && typeof m.content !== "string" ? m.content.filter((b) => b.type === "tool_use").map((b) => b.name) : []));
      expect(calls, "the order plan mode needs: read, plan, edit, test").toEqual(["read_file", "exit_plan_mode", "edit_file", "run_tests"]);
      expect(answerText(r.history)).toMatch(/Fixed src\/login\.js[\s\S]*3 passed, 0 failed/);
      expect(r.exitCode).toBe(0);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("an edit the rules refuse is said to be refused, never claimed as made", async () => {
    const dir = await sample();
    try {
      const settings = join(dir, ".agent", "settings.json");
      writeFileSync(settings, readFileSync(settings, "utf8").replace('"deny": [', '"deny": ["edit_file(src/**)", '));
      const r = await finalProgram.run(["--permission-mode", "plan", "--yes", "--workspace", dir, PLAN_TASK], { llm: scripted() });
      const said = answerText(r.history);
      expect(said).toMatch(/I could not make the edit[\s\S]*unchanged/);
      expect(said).not.toMatch(/Fixed src/);
      expect(readFileSync(join(dir, "src", "login.js"), "utf8")).toContain("attempts > MAX_FAILED_ATTEMPTS");
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("a task with no script never ends \"done\": each round's last line says stopped (no_script), then Not done, exit 1", async () => {
    const dir = await sample();
    const lines: string[] = [];
    const write = output.write;
    output.write = (line) => void lines.push(stripAnsi(line));
    try {
      const r = await finalProgram.run(["--workspace", dir, "What is the weather like?"], { llm: scripted() });
      expect(lines.filter((l) => l.startsWith("■ ")).length, lines.join("\n")).toBeGreaterThan(0);
      expect(lines.filter((l) => /^■ done/.test(l)), "an unscripted round says done").toEqual([]);
      expect(lines.filter((l) => l.startsWith("■ ")).every((l) => l.startsWith("■ stopped (no_script)")), lines.join("\n")).toBe(true);
      expect(lines.at(-1)).toMatch(/^Not done: /);
      expect(r.exitCode).toBe(1);
    } finally {
      output.write = write;
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("a task with no script and a Stop hook that sends the model back every round: stopped (no_script) said once, then Not done once, exit 1", async () => {
    const dir = await sample();
    const settings = join(dir, ".agent", "settings.json");
    const always = { command: "echo 'the tests still fail: fix them' >&2; exit 2" };
    writeFileSync(settings, JSON.stringify({ ...JSON.parse(readFileSync(settings, "utf8")), hooks: { Stop: [always] } }));
    const userDir = mkdtempSync(join(tmpdir(), "scenarios-user-"));
    vi.stubEnv("AGENT_CONFIG_DIR", userDir);
    approveWorkspaceHooks(dir, userDir);
    const lines: string[] = [];
    const write = output.write;
    output.write = (line) => void lines.push(stripAnsi(line));
    try {
      const r = await finalProgram.run(["--workspace", dir, "What is the weather like?"], { llm: scripted() });
      const shown = lines.join("\n");
      const sentBack = r.history.filter((m) => m.role === "assistant" && /a Stop hook sent me back/.test(textOf(m.content)));
      expect(sentBack.length, `the Stop hook sent the model back each round it may (3):\n${shown}`).toBe(3);
      expect(lines.filter((l) => l.startsWith("■ ")), shown).toEqual([expect.stringMatching(/^■ stopped \(no_script\) .*no script for this task/)]);
      expect(lines.filter((l) => l.startsWith("Not done")).length, shown).toBe(1);
      expect(lines.at(-1), shown).toMatch(/^Not done: /);
      expect(r.exitCode).toBe(1);
    } finally {
      output.write = write;
      vi.unstubAllEnvs();
      rmSync(dir, { recursive: true, force: true });
      rmSync(userDir, { recursive: true, force: true });
    }
  });

  it("plan mode with the plan refused (no terminal, no --yes, the Stop hook approved): no round says done; stopped (plan_not_approved), then Not done once, exit 1", async () => {
    const dir = await sample();
    const userDir = mkdtempSync(join(tmpdir(), "scenarios-user-"));
    vi.stubEnv("AGENT_CONFIG_DIR", userDir);
    approveWorkspaceHooks(dir, userDir);
    const lines: string[] = [];
    const write = output.write;
    output.write = (line) => void lines.push(stripAnsi(line));
    try {
      const r = await finalProgram.run(["--permission-mode", "plan", "--workspace", dir, PLAN_TASK], { llm: scripted() });
      const shown = lines.join("\n");
      expect(answerText(r.history), shown).toMatch(/The plan was not approved[\s\S]*I changed nothing/);
      expect(lines.filter((l) => /^■ done/.test(l)), `a round whose plan was refused says done:\n${shown}`).toEqual([]);
      expect(lines.filter((l) => l.startsWith("■ ")).length, shown).toBeGreaterThan(1); // the task's round and the Stop hook's
      expect(lines.filter((l) => l.startsWith("■ ")).every((l) => l.startsWith("■ stopped (plan_not_approved)")), shown).toBe(true);
      expect(lines.filter((l) => l.startsWith("Not done")).length, shown).toBe(1);
      expect(lines.at(-1), shown).toMatch(/^Not done: the plan was not approved[\s\S]*--yes/);
      expect(r.exitCode).toBe(1);
      expect(readFileSync(join(dir, "src", "login.js"), "utf8")).toContain("attempts > MAX_FAILED_ATTEMPTS");
    } finally {
      output.write = write;
      vi.unstubAllEnvs();
      rmSync(dir, { recursive: true, force: true });
      rmSync(userDir, { recursive: true, force: true });
    }
  });

  it("the sample task: the Stop hook's second round is answered, and the run ends done, exit 0", async () => {
    const dir = await sample();
    // As a person who approved the sample repository's hooks before: the program runs them only then.
    const userDir = mkdtempSync(join(tmpdir(), "scenarios-user-"));
    vi.stubEnv("AGENT_CONFIG_DIR", userDir);
    approveWorkspaceHooks(dir, userDir);
    try {
      const r = await finalProgram.run(["--workspace", dir, S12_TASK], { llm: scripted() });
      expect(answerText(r.history)).toMatch(/off-by-one[\s\S]*The Stop hook sent me back/);
      expect(unscriptedRun(r.history), "no round of the sample task is unscripted").toBe(false);
      expect(r.exitCode).toBe(0);
    } finally {
      vi.unstubAllEnvs();
      rmSync(dir, { recursive: true, force: true });
      rmSync(userDir, { recursive: true, force: true });
    }
  });
});
