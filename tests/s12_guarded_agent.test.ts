/**
 * s12_guarded_agent: the capstone end to end. Seed 000's task in the sample repository
 * (examples/login-service, copied to a scratch folder): run the tests, read the log and the
 * source in parallel, explain, exit 0. Also as a real process (`npm run agent`'s command), with
 * its flags; and a streamed run, an aborted run and a recovered run each leave a transcript that
 * can be sent again.
 */
import { spawnSync } from "node:child_process";
import { cpSync, mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type Anthropic from "@anthropic-ai/sdk";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { output } from "../runtime/print.ts";
import { textOf } from "../runtime/scripted/conversation.ts";
import { S12_TASK, S12_TASK_ZH } from "../runtime/scripted/scenarios/s12_guarded_agent.ts";
import { ROOT, gradedTree, loadLesson, scripted, transcriptProblems } from "../runtime/testing.ts";

type Agent = typeof import("../solutions/s12_guarded_agent/agent.ts");
type Cli = typeof import("../solutions/s12_guarded_agent/cli.ts");
const agent = await loadLesson<Agent>("s12_guarded_agent");
const cli = await loadLesson<Cli>("s12_guarded_agent", "cli.ts");

const SAMPLE = join(ROOT, "examples", "login-service");

/** A scratch copy of the sample repository (its bug included). */
function sample(): string {
  const dir = mkdtempSync(join(tmpdir(), "login-service-"));
  cpSync(SAMPLE, dir, { recursive: true });
  return dir;
}

/** The line of src/login.js that holds the bug, found by reading the file (not hard-coded). */
function buggyLine(dir: string): number {
  return readFileSync(join(dir, "src/login.js"), "utf8").split("\n").findIndex((l) => /attempts\s*>\s*MAX_FAILED_ATTEMPTS/.test(l)) + 1;
}

let printed: string[] = [];
const original = output.write;
beforeEach(() => {
  printed = [];
  output.write = (line: string) => void printed.push(line);
});
afterEach(() => {
  output.write = original;
});

const toolsOf = (m: Anthropic.MessageParam) =>
  typeof m.content === "string" ? [] : m.content.flatMap((b) => (b.type === "tool_use" ? [b.name] : []));
const answer = (history: Anthropic.MessageParam[]) => textOf(history[history.length - 1]!.content);

describe("s12 flags", () => {
  it("reads every flag and the task", () => {
    const dir = sample();
    const f = cli.parseFlags(["--workspace", dir, "--model", "m1", "--max-turns", "7", "--budget", "9000", "--timeout", "30", "--yes", "--verbose", "--trace", "do", "it"]);
    expect(f).toMatchObject({ workspace: dir, model: "m1", maxTurns: 7, budget: 9000, timeoutMs: 30_000, yes: true, verbose: true, trace: true, task: "do it" });
    expect(cli.parseFlags([]).task).toBeUndefined();
  });

  it("refuses a bad flag with a message that says what is wrong", () => {
    expect(() => cli.parseFlags(["--max-turns", "many"])).toThrow(/--max-turns needs a whole number/);
    expect(() => cli.parseFlags(["--workspace", "/definitely/not/here"])).toThrow(/no such folder/);
    expect(() => cli.parseFlags(["--frobnicate"])).toThrow(/frobnicate/);
  });
});

describe("s12 seed 000's task in the sample repository", () => {
  it("runs the tests, reads the log and the source in ONE turn, explains the bug, and exits 0", async () => {
    const dir = sample();
    const llm = scripted();
    const result = await agent.run(["--workspace", dir, "--yes", "--trace", S12_TASK], { llm });
    expect(result.exitCode).toBe(0);
    const h = result.history;
    // The message table of seed 000.
    expect(h.map((m) => m.role)).toEqual(["user", "assistant", "user", "assistant", "user", "assistant"]);
    expect(h.map(toolsOf)).toEqual([[], ["bash"], [], ["read_file", "read_file"], [], []]);
    const results = h[4]!.content as Anthropic.ToolResultBlockParam[];
    expect(results.map((r) => r.type)).toEqual(["tool_result", "tool_result"]);
    expect(results.every((r) => !r.is_error)).toBe(true);
    // The test output was real: node --test ran in the workspace and one test failed.
    expect(textOf((h[2]!.content as Anthropic.ToolResultBlockParam[])[0]!.content)).toMatch(/# fail 1/);
    expect(answer(h)).toContain(`src/login.js line ${buggyLine(dir)}`);
    expect(answer(h)).toContain("attempts=3 locked=false");
    expect(await transcriptProblems(llm, h)).toBeNull();
    // --trace prints the table.
    const out = printed.join("\n");
    expect(out).toMatch(/\[0\] user/);
    expect(out).toMatch(/\[3\] assistant/);
  });

  it("takes the task in seed 000's own words too", async () => {
    const dir = sample();
    const result = await agent.run(["--workspace", dir, "--yes", S12_TASK_ZH], { llm: scripted() });
    expect(result.exitCode).toBe(0);
    expect(answer(result.history)).toContain(`src/login.js line ${buggyLine(dir)}`);
  });

  it("answers from what the tools return: with the bug fixed, it says the tests pass", async () => {
    const dir = sample();
    const file = join(dir, "src/login.js");
    const { writeFileSync } = await import("node:fs");
    writeFileSync(file, readFileSync(file, "utf8").replace(/attempts\s*>\s*MAX_FAILED_ATTEMPTS/, "attempts >= MAX_FAILED_ATTEMPTS"));
    const result = await agent.run(["--workspace", dir, "--yes", S12_TASK], { llm: scripted() });
    expect(result.exitCode).toBe(0);
    expect(answer(result.history)).toMatch(/All 3 tests .* pass/);
  });

  it("finds the sample repository from a folder above it (the course's root, say)", async () => {
    const root = mkdtempSync(join(tmpdir(), "course-root-"));
    cpSync(SAMPLE, join(root, "examples", "login-service"), { recursive: true });
    const result = await agent.run(["--workspace", root, "--yes", S12_TASK], { llm: scripted() });
    expect(result.exitCode).toBe(0);
    expect(answer(result.history)).toContain(`examples/login-service/src/login.js line ${buggyLine(join(root, "examples", "login-service"))}`);
  });

  it("--resume continues a saved conversation with the task, and saves it back", async () => {
    const { saveSession, loadSession, sessionPath } = await import("../solutions/s10_conversation/session.ts");
    const name = `s12-test-${process.pid}`;
    const earlier: Anthropic.MessageParam[] = [
      { role: "user", content: "hello" },
      { role: "assistant", content: [{ type: "text", text: "Hello. What shall I look at?" }] },
    ];
    saveSession(name, earlier);
    try {
      const result = await agent.run(["--workspace", sample(), "--yes", "--resume", name, S12_TASK], { llm: scripted({ scenario: "s12_guarded_agent" }) });
      expect(result.exitCode).toBe(0);
      expect(result.history.slice(0, 2)).toEqual(earlier);
      expect(loadSession(name).messages).toEqual(result.history);
      expect(answer(result.history)).toContain("src/login.js line");
    } finally {
      (await import("node:fs")).rmSync(sessionPath(name), { force: true });
    }
  });

  it("as a real process, offline, with no key: `npm run agent` solves it and exits 0", () => {
    const dir = sample();
    const entry = join(ROOT, gradedTree(), "s12_guarded_agent", "agent.ts");
    const env: NodeJS.ProcessEnv = { ...process.env, COURSE_OFFLINE: "1", NO_COLOR: "1" };
    delete env.ANTHROPIC_API_KEY;
    delete env.ANTHROPIC_AUTH_TOKEN;
    delete env.ANTHROPIC_BASE_URL;
    const r = spawnSync(process.execPath, ["--import", "tsx", entry, "--workspace", dir, "--yes", S12_TASK], {
      cwd: ROOT,
      env,
      encoding: "utf8",
      timeout: 60_000,
    });
    expect(r.stderr).not.toMatch(/Error:|at .*\.ts:\d+/);
    expect(r.status).toBe(0);
    expect(r.stdout).toContain("scripted (offline)");
    expect(r.stdout).toContain(`src/login.js line ${buggyLine(dir)}`);
  });
});

describe("s12 every kind of run leaves a transcript that can be sent again", () => {
  const options = (dir: string, extra: string[] = []) => agent.optionsFrom(cli.parseFlags(["--workspace", dir, "--yes", ...extra]));

  it("a streamed run (the default): every request streams", async () => {
    const dir = sample();
    const llm = scripted();
    const history: Anthropic.MessageParam[] = [{ role: "user", content: S12_TASK }];
    const outcome = await agent.runAgent(llm, history, options(dir));
    expect(outcome.status).toBe("done");
    expect(llm.scripted.exchanges.every((e) => (e.request as { stream?: boolean }).stream === true)).toBe(true);
    expect(await transcriptProblems(llm, history)).toBeNull();
  });

  it("an aborted run: stopped, nothing left unanswered", async () => {
    const dir = sample();
    const llm = scripted({ streamDelayMs: 5 });
    const controller = new AbortController();
    const history: Anthropic.MessageParam[] = [{ role: "user", content: S12_TASK }];
    const run = agent.runAgent(llm, history, { ...options(dir), signal: controller.signal });
    const started = Date.now();
    while (!history.some((m) => m.role === "assistant") && Date.now() - started < 10_000) await new Promise((r) => setTimeout(r, 5));
    controller.abort();
    const outcome = await run;
    expect(outcome.status).toBe("stopped");
    expect(await transcriptProblems(llm, history)).toBeNull();
  });

  it("a recovered run: a cut stream, an overloaded server and a broken event, same answer as a clean run", async () => {
    const clean = scripted();
    const cleanHistory: Anthropic.MessageParam[] = [{ role: "user", content: S12_TASK }];
    await agent.runAgent(clean, cleanHistory, options(sample()));

    const llm = scripted({ faults: [{ kind: "stream_cut", afterEvents: 5 }, null, { kind: "overloaded" }, { kind: "stream_error", afterEvents: 4 }] }, { maxRetries: 2 });
    const history: Anthropic.MessageParam[] = [{ role: "user", content: S12_TASK }];
    const outcome = await agent.runAgent(llm, history, options(sample()));
    expect(outcome.status).toBe("done");
    expect(llm.scripted.exchanges.filter((e) => e.fault).length).toBe(3);
    expect(history.map((m) => m.role)).toEqual(cleanHistory.map((m) => m.role));
    expect(history.map(toolsOf)).toEqual(cleanHistory.map(toolsOf));
    expect(await transcriptProblems(llm, history)).toBeNull();
  });

  it("--max-turns 1 stops with exit code 1 and a sendable transcript", async () => {
    const llm = scripted();
    const result = await agent.run(["--workspace", sample(), "--yes", "--max-turns", "1", S12_TASK], { llm });
    expect(result.exitCode).toBe(1);
    expect(await transcriptProblems(llm, result.history)).toBeNull();
  });

  it("--budget and --timeout reach the guards; --verbose shows every turn", async () => {
    const budget = await agent.run(["--workspace", sample(), "--yes", "--budget", "10", S12_TASK], { llm: scripted() });
    expect(budget.exitCode).toBe(1);
    expect(printed.join("\n")).toMatch(/token_budget/);
    const slow = scripted({ latencyMs: 5_000 });
    const timeout = await agent.run(["--workspace", sample(), "--yes", "--timeout", "1", S12_TASK], { llm: slow });
    expect(timeout.exitCode).toBe(1);
    expect(printed.join("\n")).toMatch(/timeout/);
    expect(await transcriptProblems(slow, timeout.history)).toBeNull();
    printed = [];
    await agent.run(["--workspace", sample(), "--yes", "--verbose", S12_TASK], { llm: scripted() });
    expect(printed.join("\n")).toMatch(/turn 1 · stop_reason tool_use/);
  });

  it("a bad flag exits 2 with a message, not a stack trace", async () => {
    const result = await agent.run(["--budget", "lots"], { llm: scripted() });
    expect(result.exitCode).toBe(2);
    expect(printed.join("\n")).toMatch(/--budget needs a whole number/);
    const missing = await agent.run(["--resume", "no-such-session-here", "hi"], { llm: scripted() });
    expect(missing.exitCode).toBe(2);
    expect(printed.join("\n")).toMatch(/no session "no-such-session-here"/);
  });
});
