/**
 * s12_guarded_agent: the capstone end to end. Seed 000's task in the sample repository
 * (examples/login-service, copied to a scratch folder): run the tests (run_tests, no approval
 * needed), read the log and the source in parallel, explain, exit 0. Also as a real process
 * (`npm run agent`'s command) with no terminal and no --yes, with its flags; run_tests refuses a
 * module that is not a name, bash still asks; and a streamed run, an aborted run and a recovered
 * run each leave a transcript that can be sent again.
 */
import { spawnSync } from "node:child_process";
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import type Anthropic from "@anthropic-ai/sdk";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { Readable } from "node:stream";
import { output } from "../runtime/print.ts";
import { SafeToolRegistry } from "../solutions/s04_tool_errors/define-tool.ts";
import { terminalApprover } from "../solutions/s07_safe_tools/approval.ts";
import { S12_TASK, S12_TASK_ZH } from "../runtime/scripted/scenarios/s12_guarded_agent.ts";
import { call, text, thinking } from "../runtime/scripted/scenarios/script.ts";
import type { Scenario } from "../runtime/scripted/types.ts";
import { ROOT, callsIn, expectSendable, gradedTree, gradedTreeDir, loadLesson, resultFor, resultsIn, rule, scripted, textIn } from "../runtime/testing.ts";

type Agent = typeof import("../solutions/s12_guarded_agent/agent.ts");
type Cli = typeof import("../solutions/s12_guarded_agent/cli.ts");
type RunTests = typeof import("../solutions/s12_guarded_agent/run-tests.ts");
const agent = await loadLesson<Agent>("s12_guarded_agent");
const cli = await loadLesson<Cli>("s12_guarded_agent", "cli.ts");
const runTests = await loadLesson<RunTests>("s12_guarded_agent", "run-tests.ts");

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
const answer = (history: Anthropic.MessageParam[]) => textIn(history[history.length - 1]!.content);

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
  it("runs the tests (run_tests, no --yes), reads the log and the source in ONE turn, explains the bug, and exits 0", async () => {
    const dir = sample();
    const llm = scripted();
    const result = await agent.run(["--workspace", dir, "--trace", S12_TASK], { llm });
    expect(result.exitCode).toBe(0);
    const h = result.history;
    // The message table of seed 000.
    expect(h.map((m) => m.role)).toEqual(["user", "assistant", "user", "assistant", "user", "assistant"]);
    expect(h.map(toolsOf)).toEqual([[], ["run_tests"], [], ["read_file", "read_file"], [], []]);
    const results = h[4]!.content as Anthropic.ToolResultBlockParam[];
    expect(results.map((r) => r.type)).toEqual(["tool_result", "tool_result"]);
    expect(results.every((r) => !r.is_error)).toBe(true);
    // The test output was real: node --test ran in the workspace and one test failed.
    expect(textIn(resultsIn(h[2])[0]?.content)).toMatch(/# fail 1/);
    expect(answer(h)).toContain(`src/login.js line ${buggyLine(dir)}`);
    expect(answer(h)).toContain("attempts=3 locked=false");
    await expectSendable(llm, h);
    // --trace prints the table.
    const out = printed.join("\n");
    expect(out).toMatch(/\[0\] user/);
    expect(out).toMatch(/\[3\] assistant/);
  });

  it("demo(), the docs' recorded run, refuses every bash command that is not read-only and still solves it", async () => {
    const llm = scripted();
    const h = await agent.demo(llm);
    expect(h.map(toolsOf)).toEqual([[], ["run_tests"], [], ["read_file", "read_file"], [], []]);
    expect(answer(h)).toMatch(/src\/login\.js line \d+.*off-by-one/);
    await expectSendable(llm, h);
  });

  it("takes the task in seed 000's own words too", async () => {
    const dir = sample();
    const result = await agent.run(["--workspace", dir, S12_TASK_ZH], { llm: scripted() });
    expect(result.exitCode).toBe(0);
    expect(answer(result.history)).toContain(`src/login.js line ${buggyLine(dir)}`);
  });

  it("answers from what the tools return: with the bug fixed, it says the tests pass", async () => {
    const dir = sample();
    const file = join(dir, "src/login.js");
    writeFileSync(file, readFileSync(file, "utf8").replace(/attempts\s*>\s*MAX_FAILED_ATTEMPTS/, "attempts >= MAX_FAILED_ATTEMPTS"));
    const result = await agent.run(["--workspace", dir, S12_TASK], { llm: scripted() });
    expect(result.exitCode).toBe(0);
    expect(answer(result.history)).toMatch(/All 3 tests .* pass/);
  });

  it("finds the sample repository from a folder above it (the course's root, say)", async () => {
    const root = mkdtempSync(join(tmpdir(), "course-root-"));
    cpSync(SAMPLE, join(root, "examples", "login-service"), { recursive: true });
    const result = await agent.run(["--workspace", root, S12_TASK], { llm: scripted() });
    expect(result.exitCode).toBe(0);
    expect(answer(result.history)).toContain(`examples/login-service/src/login.js line ${buggyLine(join(root, "examples", "login-service"))}`);
  });

  it("--resume continues a saved conversation with the task, and saves it back", async () => {
    // The sessions module the graded agent itself uses (a temporary copy of solutions/ under verify).
    const copy = gradedTreeDir();
    const sessions = copy ? pathToFileURL(join(copy, "s10_conversation/session.ts")).href : "../solutions/s10_conversation/session.ts";
    const { saveSession, loadSession, sessionPath } = (await import(sessions)) as typeof import("../solutions/s10_conversation/session.ts");
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

  it("as a real process with no terminal, no --yes and no key: `npm run agent`'s command solves it and exits 0", () => {
    // From the sample repository itself, and from a copy of the course's root (the sample below it).
    const repo = sample();
    const courseRoot = mkdtempSync(join(tmpdir(), "course-root-"));
    cpSync(SAMPLE, join(courseRoot, "examples", "login-service"), { recursive: true });
    for (const [cwd, source] of [[repo, "src/login.js"], [courseRoot, "examples/login-service/src/login.js"]] as const) {
      const r = agentProcess(cwd, [S12_TASK]);
      expect(r.stderr).not.toMatch(/Error:|at .*\.ts:\d+/);
      expect(r.stdout).toContain("scripted (offline)");
      expect(r.stdout).toContain("→ run_tests");
      expect(r.stdout).not.toMatch(/not run: this command is not read-only/);
      // The off-by-one, named at its line (found by reading the file, not hard-coded).
      expect(r.stdout).toContain(`${source} line ${buggyLine(join(cwd, source, "../.."))}`);
      expect(r.stdout).toMatch(/off-by-one/);
      expect(r.status).toBe(0);
    }
  });

  it("as a real process with no terminal and no --yes, bash that would write is refused, not run", () => {
    const dir = sample();
    const r = agentProcess(dir, ["run `touch made-by-bash.txt`"]);
    expect(r.stdout).toMatch(/not run: this command is not read-only .*no terminal to ask/);
    expect(existsSync(join(dir, "made-by-bash.txt"))).toBe(false);
    expect(r.status).toBe(0);
  });
});

/**
 * s12's program (tsx and s12's agent.ts, of the tree being graded) as a process in
 * `cwd`: stdin is a pipe, not a terminal; no --yes; no key, so the scripted model answers.
 */
function agentProcess(cwd: string, args: string[]) {
  // s12's own program: `npm run agent` runs the latest lesson (s17), which builds on it and is
  // graded with s17 (tests/s17_mcp.test.ts); this lesson's check must not depend on later ones.
  const entry = join(ROOT, gradedTree(), "s12_guarded_agent", "agent.ts");
  const env: NodeJS.ProcessEnv = { ...process.env, NO_COLOR: "1" };
  for (const name of ["ANTHROPIC_API_KEY", "ANTHROPIC_AUTH_TOKEN", "ANTHROPIC_BASE_URL", "MODEL_ID"]) delete env[name];
  return spawnSync(join(ROOT, "node_modules", ".bin", "tsx"), [entry, ...args], { cwd, env, input: "", encoding: "utf8", timeout: 60_000 });
}

describe("s12 run_tests: a fixed command, a checked name, no approval", () => {
  let ids = 0;
  const call = (input: unknown, name = "run_tests"): Anthropic.ToolUseBlock => ({ type: "tool_use", id: `toolu_s12_${++ids}`, name, input, caller: { type: "direct" } });
  /** The agent's default tools in `dir`, with an approver that records what it was asked. */
  function tools(dir: string, answer: "yes" | "no" = "no") {
    const asked: string[] = [];
    const approve = async ({ command }: { command: string }) => {
      asked.push(command);
      return answer === "yes" ? { approved: true as const } : { approved: false as const, why: "the user said no" };
    };
    return { asked, registry: new SafeToolRegistry(agent.capstoneTools(dir, approve)) };
  }
  const resultText = (r: Anthropic.ToolResultBlockParam) => textIn(r.content);

  it("is one of the agent's tools, and --help says so", async () => {
    const { registry } = tools(sample());
    expect(registry.definitions().map((t) => t.name)).toEqual(expect.arrayContaining(["run_tests", "bash", "read_file"]));
    await agent.run(["--help"], { llm: scripted() });
    expect(printed.join("\n")).toMatch(/run_tests/);
  });

  it("runs the workspace's tests without asking; `module` keeps only the test files whose path contains it", async () => {
    const dir = sample();
    writeFileSync(join(dir, "test", "cart.test.js"), 'import { test } from "node:test";\ntest("cart adds", () => {});\n');
    const { asked, registry } = tools(dir);
    const all = await registry.dispatch(call({}), { root: dir });
    expect(all.is_error).toBeFalsy();
    expect(resultText(all)).toMatch(/# tests 4/);
    const login = await registry.dispatch(call({ module: "login" }), { root: dir });
    expect(resultText(login)).toMatch(/# tests 3/);
    expect(resultText(login)).toMatch(/# fail 1/);
    const cart = await registry.dispatch(call({ module: "cart" }), { root: dir });
    expect(resultText(cart)).toMatch(/# tests 1\n/);
    expect(resultText(cart)).toMatch(/# pass 1\n/);
    const none = await registry.dispatch(call({ module: "payments" }), { root: dir });
    expect(none.is_error).toBe(true);
    expect(resultText(none)).toMatch(/no test file's path contains "payments"/);
    expect(asked).toEqual([]);
  });

  it.each(["; rm -rf /", "../x", "login; touch pwned", "$(touch pwned)", "`touch pwned`", "-e", "..", "", "a".repeat(65), "login pwned"])(
    "refuses the module %j with an error result, and runs nothing",
    async (module) => {
      const dir = sample();
      const { asked, registry } = tools(dir);
      const r = await registry.dispatch(call({ module }), { root: dir });
      expect(r.is_error).toBe(true);
      expect(resultText(r)).toMatch(/Invalid input for run_tests; it was not run[\s\S]*module/);
      expect(existsSync(join(dir, "pwned"))).toBe(false);
      expect(asked).toEqual([]);
    },
  );

  it("refuses anything but `module`, and a module that is not a string", async () => {
    const dir = sample();
    const { registry } = tools(dir);
    for (const input of [{ command: "touch pwned" }, { module: ["login"] }, { module: "login", args: "--eval=1" }]) {
      const r = await registry.dispatch(call(input), { root: dir });
      expect(r.is_error).toBe(true);
    }
    expect(existsSync(join(dir, "pwned"))).toBe(false);
  });

  it("hands a test file's name to node as it is: quotes, $(…) and spaces in it run nothing", async () => {
    const dir = sample();
    const odd = "it's $(touch pwned) `touch pwned` ; touch pwned.test.js";
    writeFileSync(join(dir, "test", odd), 'import { test } from "node:test";\ntest("odd name runs", () => {});\n');
    const r = await tools(dir).registry.dispatch(call({ module: "it" }), { root: dir });
    expect(resultText(r)).toMatch(/ok 1 - odd name runs/);
    expect(resultText(r)).toMatch(/# tests 1\n/);
    expect(existsSync(join(dir, "pwned"))).toBe(false);
    expect(existsSync(join(dir, "test", "pwned"))).toBe(false);
  });

  it("runs inside s07's safe runner: no keys in the tests' environment, and a hanging test is stopped at the timeout", async () => {
    const dir = sample();
    mkdirSync(join(dir, "extra"));
    writeFileSync(join(dir, "extra", "env.test.js"), 'import { test } from "node:test";\ntest("env", () => { console.log("KEY=" + process.env.ANTHROPIC_API_KEY + " TOKEN=" + process.env.GITHUB_TOKEN); });\n');
    writeFileSync(join(dir, "extra", "hang.test.js"), 'import { test } from "node:test";\ntest("hangs", () => new Promise(() => setInterval(() => {}, 1000)));\n');
    const saved = { key: process.env.ANTHROPIC_API_KEY, token: process.env.GITHUB_TOKEN };
    process.env.ANTHROPIC_API_KEY = "sk-canary-s12";
    process.env.GITHUB_TOKEN = "ghp-canary-s12";
    try {
      const tool = runTests.runTestsTool(dir, { timeoutMs: 1_500 });
      const registry = new SafeToolRegistry([tool]);
      const env = await registry.dispatch(call({ module: "env" }), { root: dir });
      expect(resultText(env)).toMatch(/KEY=undefined TOKEN=undefined/);
      expect(resultText(env)).not.toMatch(/canary/);
      const hang = await registry.dispatch(call({ module: "hang" }), { root: dir });
      expect(hang.is_error).toBe(true);
      expect(resultText(hang)).toMatch(/timed out after 1.5 s/);
    } finally {
      for (const [name, value] of [["ANTHROPIC_API_KEY", saved.key], ["GITHUB_TOKEN", saved.token]] as const)
        if (value === undefined) delete process.env[name];
        else process.env[name] = value;
    }
  });

  it("bash still asks before a command that is not read-only: refused, it does not run", async () => {
    const dir = sample();
    const { asked, registry } = tools(dir, "no");
    const r = await registry.dispatch(call({ command: "touch made-by-bash.txt" }, "bash"), { root: dir });
    expect(asked).toEqual(["touch made-by-bash.txt"]);
    expect(r.is_error).toBe(true);
    expect(resultText(r)).toMatch(/not run: this command is not read-only .*the user said no/);
    expect(existsSync(join(dir, "made-by-bash.txt"))).toBe(false);
    // With no terminal to ask and no --yes, it is refused without asking anyone.
    const noTerminal = new SafeToolRegistry(agent.capstoneTools(dir, terminalApprover({ input: Object.assign(Readable.from([]), { isTTY: false }) })));
    const refused = await noTerminal.dispatch(call({ command: "node --test" }, "bash"), { root: dir });
    expect(refused.is_error).toBe(true);
    expect(resultText(refused)).toMatch(/no terminal to ask for approval \(run with --yes/);
    // Approved, it runs.
    const yes = tools(dir, "yes");
    const ran = await yes.registry.dispatch(call({ command: "touch made-by-bash.txt" }, "bash"), { root: dir });
    expect(ran.is_error).toBeFalsy();
    expect(existsSync(join(dir, "made-by-bash.txt"))).toBe(true);
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
    await expectSendable(llm, history);
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
    await expectSendable(llm, history);
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
    await expectSendable(llm, history);
  });

  it("a repeated call: stops with repeated_call, the repeated call answered (not run), sendable", async () => {
    const scenario: Scenario = {
      id: "test-s12-repeat",
      title: "the same read, turn after turn",
      reply: () => ({ content: [thinking("Once more, to be sure."), text("Reading it again."), call("read_file", { path: "src/login.js" })] }),
    };
    const llm = scripted({ scenario });
    const history: Anthropic.MessageParam[] = [{ role: "user", content: "read it again and again" }];
    const outcome = await agent.runAgent(llm, history, { ...options(sample()), guards: { maxTurns: 30 } });
    rule(outcome.status === "stopped" && outcome.reason === "repeated_call", "guard-repeat", `the same read_file call came turn after turn and the run ended with ${JSON.stringify(outcome.status === "stopped" ? outcome.reason : outcome.status)}: it stops with "repeated_call".`);
    const lastCall = callsIn([...history].reverse().find((m) => m.role === "assistant"))[0];
    rule(lastCall && resultFor(history, lastCall.id)?.is_error === true, "repeat-answered", "the run stopped on a repeated call and left that call without an is_error tool_result: answer it (not run) before you return.");
    await expectSendable(llm, history);
  });

  for (const [label, guards, extra] of [
    ["max_turns", { maxTurns: 1 }, {}],
    ["token_budget", { tokenBudget: 10 }, {}],
    ["timeout", { timeoutMs: 300 }, { latencyMs: 2_000 }],
  ] as const)
    it(`the ${label} guard: stopped, and the transcript can be sent again`, async () => {
      const llm = scripted({ ...extra });
      const history: Anthropic.MessageParam[] = [{ role: "user", content: S12_TASK }];
      const outcome = await agent.runAgent(llm, history, { ...options(sample()), guards });
      rule(outcome.status === "stopped" && outcome.reason === label, `guard-${label === "max_turns" ? "max-turns" : label === "token_budget" ? "budget" : "timeout"}`, `with guards ${JSON.stringify(guards)} the run ended with ${JSON.stringify(outcome.status === "stopped" ? outcome.reason : outcome.status)}, not "${label}".`);
      await expectSendable(llm, history);
    });

  it("an API error it cannot recover from: the run fails, and the history it leaves can be sent again", async () => {
    let failing = true; // every request fails after the first, until the run is over
    const llm = scripted({ faults: (i) => (i > 0 && failing ? { kind: "server_error" } : null) });
    const history: Anthropic.MessageParam[] = [{ role: "user", content: S12_TASK }];
    await agent.runAgent(llm, history, options(sample())).catch(() => undefined);
    failing = false;
    await expectSendable(llm, history);
  });

  it("--max-turns 1 stops with exit code 1 and a sendable transcript", async () => {
    const llm = scripted();
    const result = await agent.run(["--workspace", sample(), "--yes", "--max-turns", "1", S12_TASK], { llm });
    expect(result.exitCode).toBe(1);
    await expectSendable(llm, result.history);
  });

  it("--budget and --timeout reach the guards; --verbose shows every turn", async () => {
    const budget = await agent.run(["--workspace", sample(), "--yes", "--budget", "10", S12_TASK], { llm: scripted() });
    expect(budget.exitCode).toBe(1);
    expect(printed.join("\n")).toMatch(/token_budget/);
    const slow = scripted({ latencyMs: 5_000 });
    const timeout = await agent.run(["--workspace", sample(), "--yes", "--timeout", "1", S12_TASK], { llm: slow });
    expect(timeout.exitCode).toBe(1);
    expect(printed.join("\n")).toMatch(/timeout/);
    await expectSendable(slow, timeout.history);
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
