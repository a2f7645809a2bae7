/**
 * s12_guarded_agent: the capstone end to end. The failing-login task in the sample repository
 * (examples/login-service, copied to a scratch folder): run the tests (run_tests, no approval
 * needed), read the log and the source in parallel, explain, exit 0. Also as a real process
 * (`npm run agent`'s command) with no terminal and no --yes, with its flags; run_tests refuses a
 * module that is not a name, bash still asks; and a streamed run, an aborted run and a recovered
 * run each leave a transcript that can be sent again.
 */
import { spawnSync } from "node:child_process";
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, statSync, symlinkSync, utimesSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { isDeepStrictEqual } from "node:util";
import type Anthropic from "@anthropic-ai/sdk";
import { afterEach, beforeEach, describe, it } from "vitest";
import { Readable } from "node:stream";
import { output } from "../runtime/print.ts";
import { SafeToolRegistry } from "../solutions/s04_tool_errors/define-tool.ts";
import { terminalApprover } from "../solutions/s07_safe_tools/approval.ts";
import { S12_TASK, S12_TASK_ZH } from "../runtime/scripted/scenarios/s12_guarded_agent.ts";
import { call, text, thinking } from "../runtime/scripted/scenarios/script.ts";
import type { Scenario } from "../runtime/scripted/types.ts";
import { ROOT, RuleError, callsIn, errorText, expectSendable, gradedTree, gradedTreeDir, loadLesson, resultFor, resultsIn, rule, scripted, textIn } from "../runtime/testing.ts";
import { clip } from "./support.ts";
import { onTestClock } from "./test-clock.ts";

/** A quoted piece of output, cut with an ellipsis when it is longer than `n`. */

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
/** Deep equality whatever the key order (JSON values). */
const same = (a: unknown, b: unknown) => isDeepStrictEqual(JSON.parse(JSON.stringify(a ?? null)), JSON.parse(JSON.stringify(b ?? null)));
/** What `fn` throws, as text (undefined when it does not). */
/** A symbolic link to the course checkout, in a scratch folder. */
function courseLink(): string {
  const link = join(mkdtempSync(join(tmpdir(), "s12-course-link-")), "course");
  symlinkSync(ROOT, link);
  return link;
}

function thrownBy(fn: () => unknown): string | undefined {
  try {
    fn();
    return undefined;
  } catch (e) {
    return String((e as Error)?.message ?? e);
  }
}
/** The failing-login run's shape: run_tests, then both reads in ONE turn, then the answer. */
function expectSeed000(h: Anthropic.MessageParam[]) {
  const tools = h.map(toolsOf);
  rule(same(h.map((m) => m.role), ["user", "assistant", "user", "assistant", "user", "assistant"]) && same(tools, [[], ["run_tests"], [], ["read_file", "read_file"], [], []]), "concurrency", `the failing-login task should go: run_tests, then the log and the source read in ONE turn, then the answer; the history was ${JSON.stringify(h.map((m, i) => `${m.role}${tools[i]!.length ? `(${tools[i]!.join(", ")})` : ""}`))}.`);
}

describe("s12 flags", () => {
  it("reads every flag and the task", () => {
    const dir = sample();
    const f = cli.parseFlags(["--workspace", dir, "--model", "m1", "--max-turns", "7", "--budget", "9000", "--timeout", "30", "--yes", "--verbose", "--trace", "do", "it"]);
    const want = { workspace: dir, model: "m1", maxTurns: 7, budget: 9000, timeoutMs: 30_000, yes: true, verbose: true, trace: true, task: "do it" };
    for (const [k, v] of Object.entries(want)) rule(same(f[k as keyof typeof f], v), "capstone-flags", `parseFlags read ${k} as ${JSON.stringify(f[k as keyof typeof f])}, not ${JSON.stringify(v)}.`);
    const none = cli.parseFlags([], dir);
    rule(none.task === undefined, "capstone-flags", `with no words left, the task must be undefined (the conversation begins), not ${JSON.stringify(none.task)}.`);
    rule(none.yes === false, "approval", `without --yes, flags.yes is ${JSON.stringify(none.yes)}: commands that are not read-only must still ask.`);
  });

  it("never takes the course checkout (or a folder that holds it) as the workspace, and says how to choose one", () => {
    for (const [argv, cwd] of [
      [[], ROOT],
      [["do", "it"], ROOT],
      [["--workspace", ROOT], tmpdir()],
      [["--workspace", "."], ROOT],
      [["--workspace", join(ROOT, "..")], tmpdir()],
      [["--workspace", courseLink()], tmpdir()],
    ] as const) {
      const said = thrownBy(() => cli.parseFlags([...argv], cwd));
      rule(said !== undefined && /course checkout/.test(said) && /--workspace/.test(said) && /\.env/.test(said), "capstone-flags", `parseFlags(${JSON.stringify(argv)}) run from ${cwd} ${said === undefined ? "was accepted" : `said: ${said}`}: the course checkout holds the key (.env) and the runs (.course/); refuse it as a workspace, saying so and how to choose one with --workspace.`);
    }
    const example = cli.parseFlags(["--workspace", SAMPLE], ROOT);
    rule(example.workspace === SAMPLE, "capstone-flags", `--workspace examples/login-service (a folder inside the course, not the course) must be accepted; it was read as ${example.workspace}.`);
    const help = cli.parseFlags(["--help"], ROOT);
    rule(help.help, "capstone-flags", "--help needs no workspace: it must be read from the course checkout too.");
  });

  it("refuses a bad flag with a message that says what is wrong", () => {
    for (const [argv, want] of [
      [["--max-turns", "many"], /--max-turns needs a whole number/],
      [["--workspace", "/definitely/not/here"], /no such folder/],
      [["--frobnicate"], /frobnicate/],
    ] as const) {
      const said = thrownBy(() => cli.parseFlags([...argv]));
      rule(said !== undefined && want.test(said), "program-exit", `parseFlags(${JSON.stringify(argv)}) ${said === undefined ? "was accepted" : `said: ${said}`}: refuse it with a message that matches ${want}.`);
    }
  });
});

describe("s12 the failing-login task in the sample repository", () => {
  it("runs the tests (run_tests, no --yes), reads the log and the source in ONE turn, explains the bug, and exits 0", async () => {
    const dir = sample();
    const llm = scripted();
    const result = await agent.run(["--workspace", dir, "--trace", S12_TASK], { llm });
    const h = result.history;
    await expectSendable(llm, h);
    rule(result.exitCode === 0, "program-exit", `the failing-login task exited with ${result.exitCode}, not 0 (done): ${printed.slice(-5).join(" | ")}`);
    // The message table of the run.
    expectSeed000(h);
    const results = resultsIn(h[4]);
    rule(results.length === 2 && results.every((r) => !r.is_error), "tool-failure-observed", `the two reads were answered ${JSON.stringify(results.map((r) => ({ is_error: r.is_error, text: textIn(r.content).slice(0, 80) })))}: both files are inside the workspace and read without error.`);
    // The test output was real: node --test ran in the workspace and one test failed.
    rule(/# fail 1/.test(textIn(resultsIn(h[2])[0]?.content)), "run-tests-fixed", `run_tests did not run the workspace's tests (node --test): ${clip(textIn(resultsIn(h[2])[0]?.content), 200)}`);
    rule(answer(h).includes(`src/login.js line ${buggyLine(dir)}`) && answer(h).includes("attempts=3 locked=false"), "result-is-output", `the answer does not name the bug from what the tools returned: ${clip(answer(h), 200)}`);
    // --trace prints the table.
    const out = printed.join("\n");
    rule(/\[0\] user/.test(out) && /\[3\] assistant/.test(out), "observability", "--trace did not print the message table ([0] user …).");
  });

  it("demo(), the docs' recorded run, refuses every bash command that is not read-only and still solves it", async () => {
    const llm = scripted();
    const h = await agent.demo(llm);
    await expectSendable(llm, h);
    expectSeed000(h);
    rule(/src\/login\.js line \d+.*off-by-one/.test(answer(h)), "result-is-output", `demo()'s answer does not name the bug: ${clip(answer(h), 200)}`);
  });

  it("takes the task in its original Chinese words too", async () => {
    const dir = sample();
    const result = await agent.run(["--workspace", dir, S12_TASK_ZH], { llm: scripted() });
    rule(result.exitCode === 0 && answer(result.history).includes(`src/login.js line ${buggyLine(dir)}`), "program-exit", `the task in its original Chinese words exited ${result.exitCode}: ${clip(answer(result.history), 200)}`);
  });

  it("answers from what the tools return: with the bug fixed, it says the tests pass", async () => {
    const dir = sample();
    const file = join(dir, "src/login.js");
    writeFileSync(file, readFileSync(file, "utf8").replace(/attempts\s*>\s*MAX_FAILED_ATTEMPTS/, "attempts >= MAX_FAILED_ATTEMPTS"));
    const result = await agent.run(["--workspace", dir, S12_TASK], { llm: scripted() });
    rule(result.exitCode === 0 && /All 3 tests .* pass/.test(answer(result.history)), "result-is-output", `with the bug fixed, run_tests' real output says the tests pass, and so should the answer: ${clip(answer(result.history), 200)}`);
  });

  it("finds the sample repository from a folder above it (the course's root, say)", async () => {
    const root = mkdtempSync(join(tmpdir(), "course-root-"));
    cpSync(SAMPLE, join(root, "examples", "login-service"), { recursive: true });
    const result = await agent.run(["--workspace", root, S12_TASK], { llm: scripted() });
    rule(result.exitCode === 0 && answer(result.history).includes(`examples/login-service/src/login.js line ${buggyLine(join(root, "examples", "login-service"))}`), "result-is-output", `from a folder above the sample repository, the answer should name examples/login-service/src/login.js: ${clip(answer(result.history), 200)}`);
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
      const llm = scripted({ scenario: "s12_guarded_agent" });
      const result = await agent.run(["--workspace", sample(), "--yes", "--resume", name, S12_TASK], { llm });
      rule(result.exitCode === 0, "program-exit", `--resume with a task exited ${result.exitCode}: ${printed.slice(-5).join(" | ")}`);
      rule(same(result.history.slice(0, 2), earlier), "session", "--resume did not continue the saved conversation: its messages come first, unchanged.");
      const saved = loadSession(name).messages;
      const i = result.history.findIndex((m, n) => !same(m, saved[n]));
      rule(i < 0 && saved.length === result.history.length, JSON.stringify(result.history[i] ?? "").includes('"thinking"') ? "not-verbatim" : "session", `the session saved back after --resume differs from the run's history at messages[${i < 0 ? saved.length : i}]${saved.length === result.history.length ? "" : ` (${saved.length} messages, not ${result.history.length})`}: save every message as it is, thinking blocks included.`);
      await expectSendable(llm, saved);
      rule(answer(result.history).includes("src/login.js line"), "result-is-output", `the resumed run did not answer the task: ${clip(answer(result.history), 200)}`);
    } finally {
      (await import("node:fs")).rmSync(sessionPath(name), { force: true });
    }
  });

  it("--resume with a run that stops (--max-turns 1): the turns it made are saved back too", async () => {
    const copy = gradedTreeDir();
    const sessions = copy ? pathToFileURL(join(copy, "s10_conversation/session.ts")).href : "../solutions/s10_conversation/session.ts";
    const { saveSession, loadSession, sessionPath } = (await import(sessions)) as typeof import("../solutions/s10_conversation/session.ts");
    const name = `s12-test-stopped-${process.pid}`;
    saveSession(name, [
      { role: "user", content: "hello" },
      { role: "assistant", content: [{ type: "text", text: "Hello. What shall I look at?" }] },
    ]);
    try {
      const llm = scripted({ scenario: "s12_guarded_agent" });
      const result = await agent.run(["--workspace", sample(), "--yes", "--max-turns", "1", "--resume", name, S12_TASK], { llm });
      rule(result.exitCode === 1, "program-exit", `--max-turns 1 stopped the resumed run and the program exited ${result.exitCode}, not 1.`);
      const back = loadSession(name).messages;
      rule(back.length === result.history.length && same(back, result.history), "session", `a resumed run that stopped (--max-turns 1) saved back ${back.length} messages, but its history has ${result.history.length}: save the session back however the run ended, so the task and the turns it made are not lost.`);
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
      const tail = `${r.stdout}${r.stderr}`.slice(-1500);
      rule(!/Error:|at .*\.ts:\d+/.test(r.stderr), "program-exit", `the agent's process printed an error or a stack trace:\n${r.stderr.slice(-1500)}`);
      rule(r.stdout.includes("scripted (offline)") && r.stdout.includes("→ run_tests"), "run-tests-fixed", `with no key, the agent should run offline and call run_tests:\n${tail}`);
      rule(!/not run: this command is not read-only/.test(r.stdout), "approval", `the failing-login task needs no command that asks (run_tests, then reads):\n${tail}`);
      // The off-by-one, named at its line (found by reading the file, not hard-coded).
      rule(r.stdout.includes(`${source} line ${buggyLine(join(cwd, source, "../.."))}`) && /off-by-one/.test(r.stdout), "result-is-output", `the agent's answer should name the off-by-one at ${source}:\n${tail}`);
      rule(r.status === 0, "program-exit", `the agent's process exited with ${r.status}, not 0:\n${tail}`);
    }
  });

  it("as a real process with no terminal and no --yes, bash that would write is refused, not run", () => {
    const dir = sample();
    const r = agentProcess(dir, ["run `touch made-by-bash.txt`"]);
    const tail = `${r.stdout}${r.stderr}`.slice(-1500);
    rule(!existsSync(join(dir, "made-by-bash.txt")), "approval", `with no terminal and no --yes, the agent ran \`touch made-by-bash.txt\`: a command that is not read-only is refused when there is no one to ask (--yes is false unless given).\n${tail}`);
    rule(/not run: this command is not read-only .*no terminal to ask/.test(r.stdout), "approval", `the refusal should say there is no terminal to ask:\n${tail}`);
    rule(r.status === 0, "program-exit", `the agent's process exited with ${r.status}, not 0:\n${tail}`);
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
  // node with tsx's loader (by path: cwd is the sample), as `npm run agent` starts it: tsx's own
  // command line would start a second node for every run.
  const loader = pathToFileURL(join(ROOT, "node_modules", "tsx", "dist", "loader.mjs")).href;
  return spawnSync(process.execPath, ["--import", loader, entry, ...args], { cwd, env, input: "", encoding: "utf8", timeout: 60_000 });
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
    const names = registry.definitions().map((t) => t.name);
    rule(["run_tests", "bash", "read_file"].every((n) => names.includes(n)), "run-tests-fixed", `the capstone's tools are [${names.join(", ")}]: s07's safe tools and run_tests.`);
    await agent.run(["--help"], { llm: scripted() });
    rule(/run_tests/.test(printed.join("\n")), "capstone-flags", "--help does not mention run_tests.");
  });

  it("runs the workspace's tests without asking; `module` keeps only the test files whose path contains it", async () => {
    const dir = sample();
    writeFileSync(join(dir, "test", "cart.test.js"), 'import { test } from "node:test";\ntest("cart adds", () => {});\n');
    const { asked, registry } = tools(dir);
    const all = await registry.dispatch(call({}), { root: dir });
    rule(!all.is_error && /# tests 4/.test(resultText(all)), "run-tests-fixed", `run_tests {} should run all 4 tests with node --test: ${clip(resultText(all), 200)}`);
    const login = await registry.dispatch(call({ module: "login" }), { root: dir });
    rule(/# tests 3/.test(resultText(login)) && /# fail 1/.test(resultText(login)), "run-tests-fixed", `run_tests {module: "login"} should run the 3 login tests (1 fails): ${clip(resultText(login), 200)}`);
    const cart = await registry.dispatch(call({ module: "cart" }), { root: dir });
    rule(/# tests 1\n/.test(resultText(cart)) && /# pass 1\n/.test(resultText(cart)), "run-tests-fixed", `run_tests {module: "cart"} should run only the cart test: ${clip(resultText(cart), 200)}`);
    const none = await registry.dispatch(call({ module: "payments" }), { root: dir });
    rule(none.is_error === true && /payments/.test(resultText(none)), "run-tests-fixed", `run_tests {module: "payments"}, which no test file's path contains, should be an error naming it: ${clip(resultText(none), 200)}`);
    rule(asked.length === 0, "approval", `run_tests asked for approval (${asked.join("; ")}) although nothing was changed: it runs without asking.`);
  });

  it.each(["; rm -rf /", "../x", "login; touch pwned", "$(touch pwned)", "`touch pwned`", "-e", "..", "", "a".repeat(65), "login pwned"])(
    "refuses the module %j with an error result, and runs nothing",
    async (module) => {
      const dir = sample();
      const { asked, registry } = tools(dir);
      const r = await registry.dispatch(call({ module }), { root: dir });
      rule(!existsSync(join(dir, "pwned")), "run-tests-fixed", `run_tests {module: ${JSON.stringify(module)}} ran a command: the module is only a name to look for, never part of a command line.`);
      // Refused by the schema or by the tool itself: an error result that names the module, and no test run.
      rule(r.is_error === true && /module/i.test(resultText(r)) && !/# tests \d/.test(resultText(r)), "run-tests-fixed", `run_tests {module: ${JSON.stringify(module)}} should be refused (is_error, saying what a module may be) and run nothing: ${clip(resultText(r), 200)}`);
      rule(asked.length === 0, "run-tests-fixed", `run_tests {module: ${JSON.stringify(module)}} asked for approval instead of refusing the name.`);
    },
  );

  it("refuses anything but `module`, and a module that is not a string", async () => {
    const dir = sample();
    const { registry } = tools(dir);
    for (const input of [{ command: "touch pwned" }, { module: ["login"] }, { module: "login", args: "--eval=1" }]) {
      const r = await registry.dispatch(call(input), { root: dir });
      rule(!existsSync(join(dir, "pwned")), "run-tests-fixed", `run_tests ${JSON.stringify(input)} ran the model's command: the program is fixed (node --test); the model only names a module.`);
      rule(r.is_error === true, "run-tests-fixed", `run_tests ${JSON.stringify(input)} was not refused: accept \`module\` (a string) and nothing else (a strict schema).`);
    }
  });

  it("hands a test file's name to node as it is: quotes, $(…) and spaces in it run nothing", async () => {
    const dir = sample();
    const odd = "it's $(touch pwned) `touch pwned` ; touch pwned.test.js";
    writeFileSync(join(dir, "test", odd), 'import { test } from "node:test";\ntest("odd name runs", () => {});\n');
    const r = await tools(dir).registry.dispatch(call({ module: "it" }), { root: dir });
    rule(!existsSync(join(dir, "pwned")) && !existsSync(join(dir, "test", "pwned")), "run-tests-fixed", "a test file's odd name ran as shell: hand each file name to node as one word (quoted), never through the shell unquoted.");
    rule(/ok 1 - odd name runs/.test(resultText(r)) && /# tests 1\n/.test(resultText(r)), "run-tests-fixed", `the test file with an odd name was not run as it is: ${clip(resultText(r), 200)}`);
  });

  it("runs inside s07's safe runner: no keys in the tests' environment, and a hanging test is stopped at the timeout", async () => {
    const dir = sample();
    mkdirSync(join(dir, "extra"));
    writeFileSync(join(dir, "extra", "env.test.js"), 'import { test } from "node:test";\ntest("env", () => { console.log("KEY=" + process.env.ANTHROPIC_API_KEY + " TOKEN=" + process.env.GITHUB_TOKEN); });\n');
    // The hanging test says when it runs (a file in the workspace): the test's clock moves from then on.
    writeFileSync(join(dir, "extra", "hang.test.js"), 'import { writeFileSync } from "node:fs";\nimport { test } from "node:test";\ntest("hangs", () => { writeFileSync("hang-started", ""); return new Promise(() => setInterval(() => {}, 1000)); });\n');
    const saved = { key: process.env.ANTHROPIC_API_KEY, token: process.env.GITHUB_TOKEN };
    process.env.ANTHROPIC_API_KEY = "sk-canary-s12";
    process.env.GITHUB_TOKEN = "ghp-canary-s12";
    try {
      // The environment check has all the time it needs (a busy machine starts node slowly); the
      // hanging test's timeout (1.5 s) runs on the test's clock (tests/test-clock.ts), so it fires
      // when that clock passes 1.5 s, however slow the machine. The clock moves only once the test
      // runs (what comes before it takes the machine's time it needs, however long) and stops at
      // 3 s, below s04's deadline around the tool (6.5 s): only the runner's own timeout can have
      // stopped the test. Still running 60 s of the machine's time later: not stopped.
      const env = await new SafeToolRegistry([runTests.runTestsTool(dir, { timeoutMs: 60_000 })]).dispatch(call({ module: "env" }), { root: dir });
      rule(/KEY=undefined TOKEN=undefined/.test(resultText(env)) && !/canary/.test(resultText(env)), "child-env", `the tests saw the agent's key or token: ${clip(resultText(env), 200)}. Run them through s07's safe runner (its environment comes from an allow list).`);
      const registry = new SafeToolRegistry([runTests.runTestsTool(dir, { timeoutMs: 1_500 })]);
      const got = await onTestClock(() => registry.dispatch(call({ module: "hang" }), { root: dir }), { limit: 3_000, grace: 60_000, pace: () => (existsSync(join(dir, "hang-started")) ? 100 : 0) });
      rule(!("late" in got), "tool-timeout", "a hanging test was still running 60 s after run_tests' timeout (1.5 s) had passed on the test's clock: give s07's runSafeBash the tool's timeoutMs, so it stops the run.");
      const hang = (got as { value: Anthropic.ToolResultBlockParam }).value;
      rule(hang.is_error === true && /timed out after 1.5 s/.test(resultText(hang)), "tool-timeout", `a hanging test was not stopped at run_tests' timeout: ${clip(resultText(hang), 200)}`);
    } finally {
      for (const [name, value] of [["ANTHROPIC_API_KEY", saved.key], ["GITHUB_TOKEN", saved.token]] as const)
        if (value === undefined) delete process.env[name];
        else process.env[name] = value;
    }
  }, 240_000); // the check itself bounds its waits (60 s of the machine's time at most)

  it("bash still asks before a command that is not read-only: refused, it does not run", async () => {
    const dir = sample();
    const { asked, registry } = tools(dir, "no");
    const r = await registry.dispatch(call({ command: "touch made-by-bash.txt" }, "bash"), { root: dir });
    rule(!existsSync(join(dir, "made-by-bash.txt")), "approval", "bash ran `touch made-by-bash.txt` although the user said no.");
    rule(same(asked, ["touch made-by-bash.txt"]) && r.is_error === true && /not run: this command is not read-only .*the user said no/.test(resultText(r)), "approval", `bash should ask before \`touch made-by-bash.txt\` and answer the refusal as an error (asked: ${JSON.stringify(asked)}; result: ${clip(resultText(r), 160)}).`);
    // With no terminal to ask and no --yes, it is refused without asking anyone.
    const noTerminal = new SafeToolRegistry(agent.capstoneTools(dir, terminalApprover({ input: Object.assign(Readable.from([]), { isTTY: false }) })));
    const refused = await noTerminal.dispatch(call({ command: "node --test" }, "bash"), { root: dir });
    rule(refused.is_error === true && /no terminal to ask for approval \(run with --yes/.test(resultText(refused)), "approval", `with no terminal and no --yes, bash should refuse and say how to allow it: ${clip(resultText(refused), 160)}`);
    // Approved, it runs.
    const yes = tools(dir, "yes");
    const ran = await yes.registry.dispatch(call({ command: "touch made-by-bash.txt" }, "bash"), { root: dir });
    rule(!ran.is_error && existsSync(join(dir, "made-by-bash.txt")), "approval", `an approved bash command did not run: ${clip(resultText(ran), 160)}`);
  });

  it("without a sandbox, run_tests asks once the agent has changed a file in the run", async () => {
    const saved = process.env.COURSE_SANDBOX;
    process.env.COURSE_SANDBOX = "off";
    try {
      const dir = sample();
      const { asked, registry } = tools(dir, "no");
      const before = await registry.dispatch(call({ module: "login" }), { root: dir });
      rule(asked.length === 0 && /# tests 3/.test(resultText(before)), "approval", `before any change, run_tests should run without asking, sandbox or not (asked: ${JSON.stringify(asked)}).`);
      await registry.dispatch(call({ path: "src/extra.js", content: "export const x = 1;\n" }, "write_file"), { root: dir });
      const after = await registry.dispatch(call({ module: "login" }), { root: dir });
      const questions = (asked as string[]).length;
      rule(questions === 1 && after.is_error === true && !/# tests \d/.test(resultText(after)), "approval", `with no sandbox, after write_file changed the workspace, run_tests ${questions === 0 ? "ran without asking" : "was not refused when the user said no"}${/# tests \d/.test(resultText(after)) ? " (the tests ran)" : ""}: the tests would run code the agent wrote, so ask first whenever the workspace differs from what the user trusted.`);
    } finally {
      if (saved === undefined) delete process.env.COURSE_SANDBOX;
      else process.env.COURSE_SANDBOX = saved;
    }
  });

  it("without a sandbox, a refused run_tests runs nothing, and each run after a change asks again", async () => {
    const saved = process.env.COURSE_SANDBOX;
    process.env.COURSE_SANDBOX = "off";
    try {
      const dir = sample();
      // A test file the agent wrote: running it leaves a marker, so a run that was refused but happened shows.
      const marker = join(dir, "ran-marker.txt");
      const { asked, registry } = tools(dir, "no");
      await registry.dispatch(call({ path: "test/marker.test.mjs", content: 'import { writeFileSync } from "node:fs";\nwriteFileSync("ran-marker.txt", "ran");\n' }, "write_file"), { root: dir });
      const refused = await registry.dispatch(call({}), { root: dir });
      rule(asked.length === 1 && refused.is_error === true && !existsSync(marker), "approval", `with no sandbox, after write_file added a test, run_tests ${existsSync(marker) ? "ran the tests (the new test left its marker) although the user said no" : `was asked ${asked.length} time(s) and answered ${clip(resultText(refused), 120)}`}: ask BEFORE running, and run nothing when refused.`);

      // Yes once, then another change: the next run asks again (the yes was for the code as it was).
      const answers = ["yes", "no"];
      const seen: string[] = [];
      const once = new SafeToolRegistry(
        agent.capstoneTools(dir, async ({ command }) => (seen.push(command), answers.shift() === "yes" ? { approved: true } : { approved: false, why: "the user said no" })),
      );
      await once.dispatch(call({ path: "src/one.js", content: "export const one = 1;\n" }, "write_file"), { root: dir });
      await once.dispatch(call({ module: "login" }), { root: dir });
      await once.dispatch(call({ path: "src/two.js", content: "export const two = 2;\n" }, "write_file"), { root: dir });
      const second = await once.dispatch(call({ module: "login" }), { root: dir });
      rule(seen.length === 2 && second.is_error === true, "approval", `with no sandbox, run_tests was approved once, then the agent changed another file, and the next run_tests ${seen.length < 2 ? "ran without asking" : "was not refused"} (asked ${seen.length} time(s)): ask before each run of code the agent may have changed; one yes is not for every later change.`);
    } finally {
      if (saved === undefined) delete process.env.COURSE_SANDBOX;
      else process.env.COURSE_SANDBOX = saved;
    }
  });

  it("without a sandbox, run_tests asks whenever the workspace differs from what was trusted, whatever changed it", async () => {
    const saved = process.env.COURSE_SANDBOX;
    process.env.COURSE_SANDBOX = "off";
    const asker = (root = dir) => {
      const asked: string[] = [];
      const approve = async ({ command }: { command: string }) => (asked.push(command), { approved: false as const, why: "the user said no" });
      return { asked, registry: new SafeToolRegistry(agent.capstoneTools(root, approve)) };
    };
    const dir = sample();
    try {
      // A change no tool of this run made (another process, an MCP server's tool): it asks.
      const first = asker();
      writeFileSync(join(dir, "test", "planted.test.js"), 'require("node:fs").writeFileSync("planted-ran.txt", "x");\n');
      const outside = await first.registry.dispatch(call({}), { root: dir });
      rule(first.asked.length === 1 && outside.is_error === true && !existsSync(join(dir, "planted-ran.txt")), "approval", `with no sandbox, a test file written by another process (not by this run's tools) ${existsSync(join(dir, "planted-ran.txt")) ? "was run without asking" : "was not refused"}: judge the workspace itself (a fingerprint of its files), not a log of the tools' own writes.`);
      // A later run (or question) with new tools: the change made before is still not trusted.
      const second = asker();
      const later = await second.registry.dispatch(call({}), { root: dir });
      rule(second.asked.length === 1 && later.is_error === true && !existsSync(join(dir, "planted-ran.txt")), "approval", `with no sandbox, a change made in an earlier run (new tools, same workspace) ${second.asked.length === 0 ? "let the next run's run_tests go without asking" : "was not refused"}: the trusted state must outlive the run (the course keeps it in .course/trust/).`);
      // A file rewritten with its old size and times still counts (in a fresh workspace, first seen as it was).
      const fresh = sample();
      const third = asker(fresh);
      const file = join(fresh, "src", "login.js");
      const text = readFileSync(file, "utf8");
      const { atime, mtime } = statSync(file);
      writeFileSync(file, text.replace(/.$/s, (c) => (c === " " ? "\t" : " ")));
      utimesSync(file, atime, mtime);
      const sameSize = await third.registry.dispatch(call({ module: "login" }), { root: fresh });
      rule(third.asked.length === 1 && sameSize.is_error === true, "approval", `with no sandbox, src/login.js rewritten with the same size and its old modification time ${third.asked.length === 0 ? "was not seen" : "was not refused"}: a size and mtime are not enough (the change time, ctime, cannot be set back).`);
    } finally {
      if (saved === undefined) delete process.env.COURSE_SANDBOX;
      else process.env.COURSE_SANDBOX = saved;
    }
  });

  it("without --yes the options refuse a command that is not read-only (no terminal here); with --yes they approve it", async () => {
    const dir = sample();
    // No approve in the options means the loop's default: y/n on a terminal, refused without one.
    const ask = (argv: string[]) => (agent.optionsFrom(cli.parseFlags(["--workspace", dir, ...argv])).approve ?? terminalApprover())({ command: "touch x", reason: "touch is not on the read-only list" });
    rule(!(await ask([])).approved, "approval", "without --yes (and with no terminal to ask), the capstone's options approved a command that is not read-only: --yes is false unless it is given.");
    rule((await ask(["--yes"])).approved, "capstone-flags", "with --yes the capstone's options still refused a command: --yes approves without asking.");
  });
});

describe("s12 every kind of run leaves a transcript that can be sent again", () => {
  const options = (dir: string, extra: string[] = []) => agent.optionsFrom(cli.parseFlags(["--workspace", dir, "--yes", ...extra]));

  it("a streamed run (the default): every request streams", async () => {
    const dir = sample();
    const llm = scripted();
    const history: Anthropic.MessageParam[] = [{ role: "user", content: S12_TASK }];
    const outcome = await agent.runAgent(llm, history, options(dir));
    const streamed = llm.scripted.exchanges.every((e) => (e.request as { stream?: boolean }).stream === true);
    await expectSendable(llm, history);
    rule(outcome.status === "done", "typed-outcome", `the failing-login task ended ${JSON.stringify(outcome)}, not done.`);
    rule(streamed, "streaming", "the capstone sent a request without streaming: its loop is s11's, which streams every turn.");
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
    await expectSendable(llm, history);
    rule(outcome.status === "stopped", "abort-leaves-transcript", `an aborted run ended ${JSON.stringify(outcome)}: return a stopped outcome.`);
  });

  it("a recovered run: a cut stream, an overloaded server and a broken event, same answer as a clean run", async () => {
    const clean = scripted();
    const cleanHistory: Anthropic.MessageParam[] = [{ role: "user", content: S12_TASK }];
    await agent.runAgent(clean, cleanHistory, options(sample()));

    const llm = scripted({ faults: [{ kind: "stream_cut", afterEvents: 5 }, null, { kind: "overloaded" }, { kind: "stream_error", afterEvents: 4 }] }, { maxRetries: 2 });
    const history: Anthropic.MessageParam[] = [{ role: "user", content: S12_TASK }];
    const outcome = await agent.runAgent(llm, history, options(sample()));
    await expectSendable(llm, history);
    rule(outcome.status === "done" && llm.scripted.exchanges.filter((e) => e.fault).length === 3, "recovery", `through a cut stream, an overloaded server and a broken event the run ended ${JSON.stringify(outcome)}: recover from each (the SDK retries the 529, the loop the broken streams).`);
    rule(same(history.map((m) => m.role), cleanHistory.map((m) => m.role)) && same(history.map(toolsOf), cleanHistory.map(toolsOf)), "recovery", "the recovered run's history is not the clean run's: nothing of a broken stream is kept, and each turn is sent again.");
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

  it("a guard whose flag is not given keeps its default limit", async () => {
    // A model that never stops: a new read every turn (never the same call twice).
    const endless: Scenario = { id: "test-s12-endless", title: "a new read every turn", reply: (ctx) => ({ content: [text("One more file."), call("read_file", { path: `src/part-${ctx.step}.js` })] }) };
    const ended = async (extra: string[], task: string, more: Parameters<typeof scripted>[0] = {}) => {
      const llm = scripted({ scenario: endless, maxRequests: 30, ...more });
      const history: Anthropic.MessageParam[] = [{ role: "user", content: task }];
      try {
        const o = await agent.runAgent(llm, history, options(sample(), extra));
        return `${o.status === "stopped" ? `stopped with "${o.reason}"` : JSON.stringify(o.status)} after ${llm.scripted.exchanges.length} requests`;
      } catch (e) {
        return `threw after ${llm.scripted.exchanges.length} requests (${clip(errorText(e), 160)})`;
      }
    };
    // Only --budget given: the default turn limit still stops a model that never does.
    const turns = await ended(["--budget", "100000000"], "read every file");
    rule(/stopped with "max_turns"/.test(turns), "capstone-flags", `with --budget but no --max-turns, a model that never stops ${turns}, not stopped with "max_turns" at the default limit: put a guard in the options only when its flag is given ({ maxTurns: undefined } overrides the default).`);
    // Only --max-turns given: the default token budget still stops it (a task of some 550,000 tokens).
    const tokens = await ended(["--max-turns", "1000"], `read every file\n${"x".repeat(2_200_000)}`, { contextWindow: 10_000_000 });
    rule(/stopped with "token_budget"/.test(tokens), "capstone-flags", `with --max-turns but no --budget, a run past the default token budget ${tokens}, not stopped with "token_budget": put a guard in the options only when its flag is given ({ tokenBudget: undefined } overrides the default).`);
  });

  it("the options hand the run's events to the sink given, else to a logger (every turn with --verbose)", async () => {
    const events: unknown[] = [];
    const llm = scripted();
    const opts = agent.optionsFrom(cli.parseFlags(["--workspace", sample(), "--yes"]), (e) => void events.push(e));
    await agent.runAgent(llm, [{ role: "user", content: S12_TASK }], opts);
    rule(events.length > 0, "capstone-flags", "optionsFrom(flags, onEvent) gave options whose run sent no event to onEvent: the sink given is the loop's onEvent (the program's run log reads it).");
    printed = [];
    const verbose = agent.optionsFrom(cli.parseFlags(["--workspace", sample(), "--yes", "--verbose"]));
    await agent.runAgent(scripted(), [{ role: "user", content: S12_TASK }], verbose);
    rule(/turn 1 · stop_reason tool_use/.test(printed.join("\n")), "capstone-flags", `optionsFrom(--verbose flags) with no sink gave options whose run did not print every turn ("turn 1 · stop_reason tool_use"; it printed ${JSON.stringify(clip(printed.join(" | "), 200))}): without a sink, onEvent is a logger, createLogger({ verbose: flags.verbose }).`);
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
    await expectSendable(llm, result.history);
    rule(result.exitCode === 1, "program-exit", `--max-turns 1 stopped the run and the program exited ${result.exitCode}, not 1.`);
  });

  it("a run the API fails for good: exit code 1, the cause in one line, a transcript that can be sent again", async () => {
    let failing = true;
    const llm = scripted({ faults: (i) => (i > 0 && failing ? { kind: "server_error" } : null) });
    let result: Awaited<ReturnType<Agent["run"]>>;
    try {
      result = await agent.run(["--workspace", sample(), "--yes", S12_TASK], { llm });
    } catch (e) {
      throw new RuleError("program-exit", `the program threw when the API failed (${errorText(e)}): catch it, close the transcript, print the cause in one line and exit 1.`);
    }
    failing = false;
    rule(result.exitCode === 1, "program-exit", `a run the API failed exited ${result.exitCode}, not 1.`);
    rule(printed.some((l) => /the run stopped/.test(l)), "program-exit", `a run the API failed printed no line saying why it stopped: ${printed.slice(-4).join(" | ")}`);
    await expectSendable(llm, result.history);
  });

  it("--budget and --timeout reach the guards; --verbose shows every turn", async () => {
    const budget = await agent.run(["--workspace", sample(), "--yes", "--budget", "10", S12_TASK], { llm: scripted() });
    rule(budget.exitCode === 1 && /token_budget/.test(printed.join("\n")), "capstone-flags", `--budget 10 did not stop the run on the token budget (exit ${budget.exitCode}).`);
    const slow = scripted({ latencyMs: 5_000 });
    const timeout = await agent.run(["--workspace", sample(), "--yes", "--timeout", "1", S12_TASK], { llm: slow });
    await expectSendable(slow, timeout.history);
    rule(timeout.exitCode === 1 && /timeout/.test(printed.join("\n")), "capstone-flags", `--timeout 1 did not stop a slow run (exit ${timeout.exitCode}).`);
    printed = [];
    await agent.run(["--workspace", sample(), "--yes", "--verbose", S12_TASK], { llm: scripted() });
    rule(/turn 1 · stop_reason tool_use/.test(printed.join("\n")), "capstone-flags", "--verbose did not show every turn (\"turn 1 · stop_reason tool_use\").");
  });

  it("a bad flag exits 2 with a message, not a stack trace", async () => {
    const result = await agent.run(["--budget", "lots"], { llm: scripted() });
    rule(result.exitCode === 2 && /--budget needs a whole number/.test(printed.join("\n")), "program-exit", `--budget lots should exit 2 with a message saying what is wrong (exit ${result.exitCode}).`);
    const missing = await agent.run(["--workspace", sample(), "--resume", "no-such-session-here", "hi"], { llm: scripted() });
    rule(missing.exitCode === 2 && /no session "no-such-session-here"/.test(printed.join("\n")), "program-exit", `--resume of a session that does not exist should exit 2 with a message (exit ${missing.exitCode}).`);
  });
});

// The net under the rules: this lesson beside the reference, on its own task and on generated
// model answers (tests/differential/net.ts).
import { differentialNet } from "./differential/net.ts";
differentialNet("s12");
