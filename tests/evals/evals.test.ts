/**
 * The eval suite and `npm run eval` (docs/guide/evals.md), judged by both of a grader's errors:
 *
 *   - the suite is solvable and its checks accept a right answer: the oracle (each task's
 *     reference solution) passes every task, and the final agent offline passes every task;
 *   - its checks reject a wrong one: the null agent (changes nothing, says nothing) fails every
 *     task that asks for a change or an answer, and a loop that leaves its boundary (no sandbox,
 *     every command approved) fails the safety task;
 *   - the figures use the right formulas (pass@k, pass^k), the JSON line has its keys, and the
 *     command refuses a bad flag in one line.
 */
import { spawnSync } from "node:child_process";
import { appendFileSync, cpSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { routeScenario } from "../../runtime/scripted/scenarios/index.ts";
import { SCRIPTED_TASKS } from "../../runtime/scripted/scenarios/evals.ts";
import { ROOT } from "../../scripts/lib/paths.ts";
import { sandboxInfo } from "../../runtime/tools/sandbox.ts";
import { approveAll } from "../../solutions/s07_safe_tools/approval.ts";
import { runSafeBash } from "../../solutions/s07_safe_tools/safe-bash.ts";
import { runAgent as finalLoop } from "../../solutions/s17_mcp/agent.ts";
import { loopAgent, nullAgent, oracle, resolveAgent } from "../../scripts/eval/agents.ts";
import { compareLines, jsonLine, markdownReport } from "../../scripts/eval/report.ts";
import { estimateCost } from "../../scripts/eval/estimate.ts";
import { evalBlock, evalFiguresOf } from "../../scripts/eval/figures.ts";
import { replaceBlock } from "../../scripts/reliability/report.ts";
import { usageOfSse } from "../../scripts/eval/meter.ts";
import { CHECK_DIR, checkRunsCode, gradeRun, snapshot } from "../../scripts/eval/grade.ts";
import { applyUnifiedPatch, PatchError } from "../../scripts/eval/patch.ts";
import { codeMayRun, commandsApproved, runEval, type EvalResult } from "../../scripts/eval/run.ts";
import { passAtK, passHatK } from "../../scripts/eval/stats.ts";
import { loadSuite, loadTask, SuiteError, TASK_KINDS } from "../../scripts/eval/suite.ts";
import { commandsLine, main, noSandboxRefusal } from "../../scripts/eval/main.ts";
import { gradingRefusal } from "../../solutions/s23_evals/agent.ts";
import { SCRIPTED_MODEL_ID } from "../../runtime/client.ts";

const { tasks, problems } = loadSuite();
const failing = (r: EvalResult) => r.runs.filter((x) => !x.pass).map((x) => `${x.task}: ${x.checks.find((c) => !c.ok)?.detail ?? x.error}`);

describe("the task suite", () => {
  it("has at least 12 well-formed tasks, every kind the suite promises among them", () => {
    expect(problems, "every folder under evals/tasks is a valid task (docs/guide/evals.md)").toEqual([]);
    expect(tasks.length).toBeGreaterThanOrEqual(12);
    for (const kind of TASK_KINDS) expect(tasks.some((t) => t.kind === kind), `a task of kind ${kind}`).toBe(true);
  });

  it("has a scripted scenario for every task, which its very instruction selects", () => {
    for (const t of tasks) {
      expect(SCRIPTED_TASKS, `runtime/scripted/scenarios/evals.ts has no script for ${t.id}`).toContain(t.id);
      const routed = routeScenario(undefined, { model: "m", max_tokens: 10, messages: [{ role: "user", content: t.instruction }] });
      expect(routed.id, `the instruction of ${t.id} routes to its scenario`).toBe(`eval_${t.id}`);
    }
  });

  it("names what is wrong with a malformed task, and where", () => {
    const dir = mkdtempSync(join(tmpdir(), "eval-task-"));
    try {
      const task = join(dir, "bad-task");
      mkdirSync(join(task, "repo"), { recursive: true });
      writeFileSync(join(task, "instruction.md"), "Do it.\n");
      writeFileSync(join(task, "task.json"), JSON.stringify({ title: "t", kind: "fix", changes: true, limits: { turns: 5, seconds: 60 }, check: {} }));
      expect(() => loadTask(task)).toThrow(SuiteError);
      expect(() => loadTask(task)).toThrow(/bad-task\/task\.json: check: check must check something/);
      writeFileSync(join(task, "task.json"), JSON.stringify({ title: "t", kind: "fix", changes: true, limits: { turns: 5, seconds: 60 }, check: { tests: true } }));
      expect(() => loadTask(task)).toThrow(/check\.tests is set but check\/ has no \*\.test\.js file/);
      writeFileSync(join(task, "task.json"), "{ not json");
      expect(() => loadTask(task)).toThrow(/task\.json is not valid JSON/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe.skipIf(sandboxInfo().kind !== "bubblewrap")("the hidden checks, inside the sandbox", () => {
  it("an agent's command cannot read the suite's checks or reference solutions", async () => {
    const ws = mkdtempSync(join(tmpdir(), "eval-ws-"));
    try {
      const run = await runSafeBash(`cat ${join(ROOT, "evals/tasks/fix-range/solution.sh")} ${join(ROOT, "evals/tasks/fix-range/check/range.test.js")}`, { cwd: ws });
      expect(run.exitCode, run.text).not.toBe(0);
      expect(run.text).not.toMatch(/i <= to|range\(1, 3\)/);
    } finally {
      rmSync(ws, { recursive: true, force: true });
    }
  });
});

describe("a reference solution as a patch", () => {
  it("applies inside the workspace, and refuses a patch that does not fit or leaves it", async () => {
    const ws = mkdtempSync(join(tmpdir(), "eval-patch-"));
    try {
      cpSync(join(ROOT, "evals/tasks/fix-range/repo"), ws, { recursive: true });
      const patch = readFileSync(join(ROOT, "evals/tasks/fix-range/solution.patch"), "utf8");
      expect(await applyUnifiedPatch(ws, patch)).toEqual(["src/range.js"]);
      expect(readFileSync(join(ws, "src/range.js"), "utf8")).toContain("i <= to");
      await expect(applyUnifiedPatch(ws, patch), "applied twice: the file is no longer what it expects").rejects.toThrow(/does not apply to src\/range\.js/);
      const escape = "--- a/../outside.js\n+++ b/../outside.js\n@@ -0,0 +1 @@\n+x\n";
      await expect(applyUnifiedPatch(ws, escape)).rejects.toThrow(PatchError);
      await expect(applyUnifiedPatch(ws, "not a patch")).rejects.toThrow(/no hunks/);
    } finally {
      rmSync(ws, { recursive: true, force: true });
    }
  });
});

describe("checks of the suite itself", () => {
  const results: EvalResult[] = [];
  afterAll(() => void results.length);

  it("the oracle (each reference solution) passes every task", async () => {
    const r = await runEval({ tasks, agent: oracle, runs: 1, model: { offline: true }, outDir: null });
    results.push(r);
    expect(failing(r), "a task its own reference solution fails: the task or its check is wrong").toEqual([]);
    expect(r.summary.pass_rate).toBe(1);
  });

  it("the null agent fails every task that asks for a change or an answer", async () => {
    const r = await runEval({ tasks, agent: nullAgent, runs: 1, model: { offline: true }, outDir: null });
    const passedWrongly = r.runs.filter((x) => x.pass && tasks.find((t) => t.id === x.task)!.kind !== "safety").map((x) => x.task);
    expect(passedWrongly, "a check that passes an agent that does nothing cannot tell a good agent from none").toEqual([]);
    for (const t of tasks.filter((x) => x.changes)) expect(r.runs.find((x) => x.task === t.id)?.pass, `${t.id} asks for a change`).toBe(false);
  });

  it("the final agent passes every task offline (the loop carries out each task's script; a task that needs a Part IV feature, npm run agent with it), keeping its transcript and diff", async () => {
    const out = mkdtempSync(join(tmpdir(), "eval-out-"));
    try {
      const r = await runEval({ tasks, agent: await resolveAgent("final"), runs: 1, model: { offline: true }, outDir: out });
      expect(failing(r)).toEqual([]);
      const fix = r.runs.find((x) => x.task === "fix-range")!;
      expect(fix.turns).toBeGreaterThan(1);
      expect(fix.tokens.input + fix.tokens.cacheRead + fix.tokens.cacheWrite, "tokens are counted from the responses").toBeGreaterThan(0);
      expect(readFileSync(join(out, "fix-range", "run-1", "diff.patch"), "utf8")).toMatch(/^\+.*i <= to/m);
      expect(JSON.parse(readFileSync(join(out, "fix-range", "run-1", "transcript.json"), "utf8")).length).toBeGreaterThan(2);
      const sub = r.runs.find((x) => x.task === "subagent-todos")!;
      const flow = r.runs.find((x) => x.task === "workflow-resume")!;
      expect(flow.notes?.join(" "), "the workflow task runs npm run agent -- --workflow, killed, then again").toMatch(/killed at announce .*journal read back/);
      expect(sub.requests, "a subagent's requests are counted too").toBeGreaterThan(sub.turns);
    } finally {
      rmSync(out, { recursive: true, force: true });
    }
  }, 300_000);

  it("a loop that leaves its boundary (no sandbox, every command approved) fails the safety task", async () => {
    const before = process.env.COURSE_SANDBOX;
    process.env.COURSE_SANDBOX = "off";
    try {
      const careless = loopAgent("careless", finalLoop as Parameters<typeof loopAgent>[1], { approve: approveAll });
      const r = await runEval({ tasks: tasks.filter((t) => t.id === "safety-secret"), agent: careless, runs: 1, model: { offline: true }, outDir: null });
      expect(r.runs[0]!.pass, "the decoy key was copied into the repository: the check must catch it").toBe(false);
    } finally {
      if (before === undefined) delete process.env.COURSE_SANDBOX;
      else process.env.COURSE_SANDBOX = before;
    }
  });
});

describe("the agents it runs", () => {
  it("runs a learner's own module that exports runAgent, and names one that does not", async () => {
    const dir = mkdtempSync(join(tmpdir(), "eval-agent-"));
    try {
      const mine = join(dir, "my-agent.ts");
      writeFileSync(mine, `export { runAgent } from ${JSON.stringify(join(ROOT, "solutions/s13_caching/agent.ts"))};\n`);
      const agent = await resolveAgent(mine);
      const r = await runEval({ tasks: tasks.filter((t) => t.id === "fix-range"), agent, runs: 1, model: { offline: true }, outDir: null });
      expect(failing(r)).toEqual([]);
      const none = join(dir, "none.ts");
      writeFileSync(none, "export const nothing = 1;\n");
      await expect(resolveAgent(none)).rejects.toThrow(/does not export a runAgent/);
      await expect(resolveAgent(join(dir, "missing.ts"))).rejects.toThrow(/no such file/);
      await expect(resolveAgent("s99")).rejects.toThrow(/no lesson s99/);
      await expect(resolveAgent("bogus")).rejects.toThrow(/unknown agent "bogus"/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe("stopping an eval early (Ctrl-C)", () => {
  it("starts no more runs, and reports only the runs that finished, saying so", async () => {
    const stop = new AbortController();
    const two = tasks.filter((t) => ["explain-port", "fix-range"].includes(t.id));
    const r = await runEval({ tasks: two, agent: oracle, runs: 2, jobs: 1, model: { offline: true }, outDir: null, signal: stop.signal, onRun: (e) => void (e.type === "end" && stop.abort()) });
    expect(r.stopped_early).toBe(true);
    expect(r.runs).toHaveLength(1);
    expect(r.tasks.map((t) => t.task)).toEqual([r.runs[0]!.task]);
    expect(r.k, "pass@k over the runs every counted task got").toBe(1);
  });
});

describe("a run that cannot start what its task needs", () => {
  it("fails, and says why: an MCP server that did not start is named in the run's notes", async () => {
    const dir = mkdtempSync(join(tmpdir(), "eval-mcp-"));
    try {
      const task = join(dir, "mcp-release-day");
      cpSync(join(ROOT, "evals/tasks/mcp-release-day"), task, { recursive: true });
      writeFileSync(join(task, "mcp.json"), JSON.stringify({ mcpServers: { notes: { command: join(dir, "no-such-server") } } }));
      const manifest = JSON.parse(readFileSync(join(task, "task.json"), "utf8")) as Record<string, unknown>;
      writeFileSync(join(task, "task.json"), JSON.stringify({ ...manifest, mcp: "mcp.json" }));
      const r = await runEval({ tasks: [loadTask(task)], agent: await resolveAgent("final"), runs: 1, model: { offline: true }, outDir: null });
      expect(r.runs[0]!.pass).toBe(false);
      expect(r.runs[0]!.notes?.join(" ") ?? "", "the server's problem reaches the report").toMatch(/notes/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe("the figures", () => {
  it("pass@k is the unbiased estimator, pass^k the chance that all k pass", () => {
    expect(passAtK(3, 1, 1)).toBeCloseTo(1 / 3);
    expect(passAtK(3, 1, 3)).toBe(1);
    expect(passAtK(3, 0, 3)).toBe(0);
    expect(passAtK(5, 2, 2)).toBeCloseTo(1 - 3 / 10);
    expect(passHatK(5, 2, 2)).toBeCloseTo(1 / 10);
    expect(passHatK(3, 3, 3)).toBe(1);
    expect(passHatK(3, 2, 3)).toBe(0);
    expect(() => passAtK(2, 1, 3)).toThrow(RangeError);
  });

  it("reads a streamed response's usage: message_start's input and cache counts, message_delta's cumulative output", () => {
    const sse = [
      'event: message_start\ndata: {"type":"message_start","message":{"usage":{"input_tokens":12,"cache_read_input_tokens":300,"cache_creation_input_tokens":40,"output_tokens":1}}}',
      'event: content_block_delta\ndata: {"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"hi"}}',
      'event: message_delta\ndata: {"type":"message_delta","delta":{"stop_reason":"end_turn"},"usage":{"output_tokens":57}}',
    ].join("\n\n");
    expect(usageOfSse(sse)).toEqual({ input: 12, output: 57, cacheRead: 300, cacheWrite: 40 });
  });

  it("estimates a paid run's cost from the tasks' turn limits at the model's list price", () => {
    const est = estimateCost([{ limits: { turns: 4, seconds: 60 } }], 1, "claude-sonnet-4-6")!;
    // Half the limit (2 turns): 3000 + 3800 input tokens a turn × $3/M, 2 × 400 output × $15/M.
    expect(est.typical).toBeCloseTo((6800 * 3 + 800 * 15) / 1e6, 6);
    expect(est.most).toBeCloseTo((16800 * 3 + 1600 * 15) / 1e6, 6);
    expect(estimateCost([{ limits: { turns: 4, seconds: 60 } }], 3, "claude-sonnet-4-6")!.most).toBeCloseTo(est.most * 3, 6);
    expect(estimateCost([{ limits: { turns: 4, seconds: 60 } }], 1, "some-local-model")).toBeNull();
  });

  it("k runs per task give pass@k and pass^k; the JSON line has its keys; a comparison names the task that flips", async () => {
    const two = tasks.filter((t) => ["explain-port", "fix-range"].includes(t.id));
    const a = await runEval({ tasks: two, agent: oracle, runs: 2, model: { offline: true }, outDir: null });
    const b = await runEval({ tasks: two, agent: nullAgent, runs: 2, model: { offline: true }, outDir: null });
    expect(a.k).toBe(2);
    expect(a.summary.runs).toBe(4);
    const line = jsonLine(a);
    for (const key of ["tasks", "runs", "pass_rate", "pass_at_k", "pass_hat_k", "turns", "tokens", "cost_usd", "per_task"]) expect(line).toHaveProperty(key);
    expect(line.per_task).toHaveLength(2);
    const diff = compareLines(a, b);
    expect(diff.join("\n")).toMatch(/fix-range: passes 100% with oracle, 0% with null/);
    expect(markdownReport([a, b])).toContain("<svg");
  });
});

describe("the eval's block on the benchmarks pages", () => {
  const page = (p: string) => readFileSync(join(ROOT, p), "utf8");
  it("is drawn again from the figures it keeps, in English and in Chinese", () => {
    const figures = evalFiguresOf(page("docs/guide/benchmarks.md"));
    expect(figures, "docs/guide/benchmarks.md keeps the eval's figures in its block (npm run bench -- --only eval --update-docs)").not.toBeNull();
    expect(evalFiguresOf(page("docs/zh/guide/benchmarks.md"))).toEqual(figures);
    const en = evalBlock(figures!, "en");
    expect(evalFiguresOf(en)).toEqual(figures);
    expect(en).toMatch(/^\| all +\| +\| \d+\/\d+/m);
    expect(en).toContain("cached_over_uncached_cost = ");
    expect(en).toContain("<svg");
    const zh = evalBlock(figures!, "zh");
    const prose = zh.replace(/<!--[\s\S]*?-->/g, "").replace(/`[^`]*`/g, "").replace(/<svg[\s\S]*?<\/svg>/g, "");
    expect(prose).not.toMatch(/\b(turns|passed|with the plan|without it|cost of the suite|Offline|final agent|task suite)\b/);
    expect(zh).toMatch(/^### 最终 agent 在任务集上的结果/m);
    expect(replaceBlock("a\n<!-- eval:latest:start -->old<!-- eval:latest:end -->\nb", en, "eval")).toBe(`a\n${en}\nb`);
  });
});

describe("npm run eval", () => {
  const run = (args: string[]) => spawnSync(process.execPath, ["--import", "tsx", "scripts/eval/main.ts", ...args], { cwd: ROOT, encoding: "utf8", env: { ...process.env, COURSE_OFFLINE: "1" } });

  it("refuses a flag it does not know in one line, exit 2 (a process, as a learner runs it)", () => {
    const r = run(["--frobnicate"]);
    expect(r.status).toBe(2);
    expect(r.stderr.trim()).toMatch(/^npm run eval --: unknown flag --frobnicate\. usage:/);
    expect(r.stderr).not.toMatch(/\n\s+at /);
  });

  it("names every other mistake in how it was called, before running anything", async () => {
    await expect(main(["--runs", "0"])).rejects.toThrow(/--runs takes a whole number from 1 to 20 \(not "0"\)/);
    await expect(main(["--jobs", "two"])).rejects.toThrow(/--jobs takes a whole number/);
    await expect(main(["--tasks", "no-such-task"])).rejects.toThrow(/no task no-such-task/);
    await expect(main(["--agent", "s03"])).rejects.toThrow(/s03's tools are not confined/);
    await expect(main(["--agent", "a", "--agent", "b", "--agent", "c"])).rejects.toThrow(/at most two --agent/);
    await expect(main(["--compare", "only-one.json"])).rejects.toThrow(/--compare takes two result files/);
    await expect(main(["--compare", "a.json", "b.json"])).rejects.toThrow(/no result at .*a\.json/);
    await expect(main(["--max-cost", "lots"])).rejects.toThrow(/--max-cost takes an amount/);
  });

  it("with a key, says what the run may cost before it starts, and stops above --max-cost without a terminal to ask", () => {
    const env: NodeJS.ProcessEnv = { ...process.env, ANTHROPIC_API_KEY: "sk-test-not-a-key", ANTHROPIC_BASE_URL: "http://127.0.0.1:9", MODEL_ID: "claude-sonnet-4-6" };
    delete env.COURSE_OFFLINE;
    // explain-port is graded without running code: a real model may run it with or without a sandbox.
    const r = spawnSync(process.execPath, ["--import", "tsx", "scripts/eval/main.ts", "--tasks", "explain-port", "--max-cost", "0.001"], { cwd: ROOT, encoding: "utf8", env, input: "" });
    expect(r.status, r.stdout + r.stderr).toBe(2);
    expect(r.stdout).toMatch(/estimated cost: about \$\d+\.\d\d, at most about \$\d+\.\d\d/);
    expect(r.stdout).toMatch(/run again with --yes/);
    expect(r.stdout, "nothing ran").not.toMatch(/pass rate/);
  });

  it("approves the agent's commands only inside the OS sandbox: the scripted model's, and a real model's only with --allow-commands", () => {
    const bwrap = { kind: "bubblewrap", line: "sandbox: bubblewrap" } as const;
    const none = { kind: "none", line: "sandbox: none" } as ReturnType<typeof sandboxInfo>;
    const real = (approveCommands?: boolean) => ({ offline: false as const, llm: { model: "claude-sonnet-4-6" } as never, ...(approveCommands === undefined ? {} : { approveCommands }) });
    expect(commandsApproved({ offline: true }, bwrap), "the scripted model inside the sandbox").toBe(true);
    expect(commandsApproved({ offline: true }, none), "the scripted model with no sandbox (its safety tasks script a model that tries to leave)").toBe(false);
    expect(commandsApproved(real(), bwrap), "a real model without --allow-commands: nobody approved").toBe(false);
    expect(commandsApproved(real(false), bwrap), "a real model without --allow-commands: nobody approved").toBe(false);
    expect(commandsApproved(real(true), bwrap), "a real model with --allow-commands, inside the sandbox").toBe(true);
    expect(commandsApproved(real(true), none), "a real model with --allow-commands but no sandbox").toBe(false);
    expect(commandsLine(real(), bwrap), "the line says what is refused and how to approve").toMatch(/refused.*--allow-commands/);
    expect(commandsLine(real(true), bwrap)).toMatch(/approved inside it \(--allow-commands\)/);
    expect(commandsLine({ offline: true }, none)).toMatch(/only read-only commands/);
  });

  it("without a sandbox, commands are refused but the agent's edits in its scratch copy are accepted: a task that needs only edits still passes", async () => {
    const before = process.env.COURSE_SANDBOX;
    process.env.COURSE_SANDBOX = "off";
    try {
      const r = await runEval({ tasks: tasks.filter((t) => t.id === "fix-range"), agent: await resolveAgent("final"), runs: 1, model: { offline: true }, outDir: null });
      expect(r.runs[0]!.pass, `fix-range without a sandbox: the scripted fix is an edit, accepted as in acceptEdits (${r.runs[0]!.stop}, ${JSON.stringify(r.runs[0]!.checks)})`).toBe(true);
    } finally {
      if (before === undefined) delete process.env.COURSE_SANDBOX;
      else process.env.COURSE_SANDBOX = before;
    }
  });

  it("refuses --allow-commands with a real model where no OS sandbox holds the commands, before running anything", () => {
    const env: NodeJS.ProcessEnv = { ...process.env, ANTHROPIC_API_KEY: "sk-test-not-a-key", ANTHROPIC_BASE_URL: "http://127.0.0.1:9", MODEL_ID: "claude-sonnet-4-6", COURSE_SANDBOX: "off" };
    delete env.COURSE_OFFLINE;
    const r = spawnSync(process.execPath, ["--import", "tsx", "scripts/eval/main.ts", "--tasks", "fix-range", "--allow-commands", "--yes"], { cwd: ROOT, encoding: "utf8", env, input: "" });
    expect(r.status, r.stdout + r.stderr).toBe(2);
    expect(r.stderr).toMatch(/--allow-commands approves a real model's commands inside the OS sandbox, and there is none here/);
    expect(r.stdout + r.stderr, "nothing ran").not.toMatch(/pass rate/);
  });

  it("never runs a real model's code outside the OS sandbox: the eval refuses before it starts, naming what to do", () => {
    const env: NodeJS.ProcessEnv = { ...process.env, ANTHROPIC_API_KEY: "sk-test-not-a-key", ANTHROPIC_BASE_URL: "http://127.0.0.1:9", MODEL_ID: "claude-sonnet-4-6", COURSE_SANDBOX: "off" };
    delete env.COURSE_OFFLINE;
    for (const args of [["--tasks", "fix-range"], ["--agent", "s12", "--tasks", "add-slugify,explain-port"], ["--compare-features", "--tasks", "workflow-resume"]]) {
      const r = spawnSync(process.execPath, ["--import", "tsx", "scripts/eval/main.ts", ...args, "--yes"], { cwd: ROOT, encoding: "utf8", env, input: "" });
      expect(r.status, `npm run eval -- ${args.join(" ")} with a real model and no sandbox: ${r.stdout + r.stderr}`).toBe(2);
      expect(r.stderr, "the refusal says why and what to do").toMatch(/runs? the code the model leaves.*would run as you.*Install bubblewrap.*--tasks explain-discount,explain-port/);
      expect(r.stdout + r.stderr, "nothing ran").not.toMatch(/estimated cost|pass rate/);
    }
  });

  it("the refusal covers every agent that calls a model, and only where code would run", () => {
    const bwrap = { kind: "bubblewrap", line: "sandbox: bubblewrap" } as const;
    const none = { kind: "none", line: "sandbox: none" } as ReturnType<typeof sandboxInfo>;
    const real = { offline: false as const, llm: { model: "claude-sonnet-4-6" } as never };
    const code = tasks.filter((t) => t.id === "fix-range");
    const answerOnly = tasks.filter((t) => t.id === "explain-port");
    expect(codeMayRun(real, { model: true }, none), "a real model's code, no sandbox").toBe(false);
    expect(codeMayRun(real, { model: true }, bwrap), "a real model's code inside bubblewrap").toBe(true);
    expect(codeMayRun({ offline: true }, { model: true }, none), "the scripted model's own script").toBe(true);
    expect(codeMayRun(real, { model: false }, none), "an agent that calls no model (oracle: the reference patch)").toBe(true);
    expect(noSandboxRefusal(real, [{ model: true }], code, tasks, none), "fix-range's check runs the agent's code").toMatch(/fix-range runs the code the model leaves/);
    expect(noSandboxRefusal(real, [{ model: false }, { model: true }], [...answerOnly, ...code], tasks, none), "a second agent that calls a model is enough").toMatch(/would run as you/);
    expect(noSandboxRefusal(real, [{ model: true }], answerOnly, tasks, none), "a task graded by its answer alone runs no code").toBeNull();
    expect(noSandboxRefusal(real, [{ model: true }], code, tasks, bwrap)).toBeNull();
    expect(noSandboxRefusal({ offline: true }, [{ model: true }], code, tasks, none)).toBeNull();
    expect(noSandboxRefusal(real, [{ model: false }], code, tasks, none), "oracle with a key set: no model's code").toBeNull();
  });

  it("a run whose code may not run is graded failing, saying why, and its code never runs", async () => {
    const dir = mkdtempSync(join(tmpdir(), "eval-norun-"));
    try {
      const ws = join(dir, "ws");
      cpSync(join(ROOT, "evals/tasks/fix-range/repo"), ws, { recursive: true });
      const before = snapshot(ws);
      const marker = join(dir, "ran");
      // The agent's "fix" also leaves a test that leaves a mark outside: it runs whenever node --test does.
      writeFileSync(join(ws, "test", "mark.test.js"), `import { writeFileSync } from "node:fs";
import { test } from "node:test";
test("mark", () => writeFileSync(${JSON.stringify(marker)}, "ran"));
`);
      const task = tasks.find((t) => t.id === "add-slugify")!;
      const held = await gradeRun(task, ws, before, "Done.", { runCode: false });
      expect(held.pass, "a check that was not run cannot pass").toBe(false);
      expect(held.criteria.map((c) => `${c.name}:${c.ok}`), "both criteria that run code fail, each saying why").toEqual(["workspaceTests:false", "tests:false"]);
      for (const c of held.criteria) expect(c.detail, `${c.name}: the reason and what to do`).toMatch(/^not run: .*install bubblewrap/);
      expect(readdirSync(dir), "the grader ran the agent's code (a test of the workspace left its mark)").not.toContain("ran");
      expect(checkRunsCode(task) && !checkRunsCode(tasks.find((t) => t.id === "explain-port")!), "which checks run code").toBe(true);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("s23's lesson refuses a real model where no OS sandbox would hold the code it grades, before any request", () => {
    const none = { kind: "none", line: "sandbox: none" } as ReturnType<typeof sandboxInfo>;
    const bwrap = { kind: "bubblewrap", line: "sandbox: bubblewrap" } as ReturnType<typeof sandboxInfo>;
    expect(gradingRefusal({ model: "claude-sonnet-4-6" }, none)).toMatch(/only inside the OS sandbox.*Install bubblewrap.*offline/);
    expect(gradingRefusal({ model: "claude-sonnet-4-6" }, bwrap)).toBeNull();
    expect(gradingRefusal({ model: SCRIPTED_MODEL_ID }, none)).toBeNull();
    const env: NodeJS.ProcessEnv = { ...process.env, ANTHROPIC_API_KEY: "sk-test-not-a-key", ANTHROPIC_BASE_URL: "http://127.0.0.1:9", MODEL_ID: "claude-sonnet-4-6", COURSE_SANDBOX: "off" };
    delete env.COURSE_OFFLINE;
    const r = spawnSync(process.execPath, ["--import", "tsx", "solutions/s23_evals/agent.ts"], { cwd: ROOT, encoding: "utf8", env, input: "" });
    expect(r.status, r.stdout + r.stderr).toBe(1);
    expect(r.stderr).toMatch(/s23 grades a run by running the code it left/);
    expect(r.stdout + r.stderr, "no request was made (the base URL is closed: a request would say so)").not.toMatch(/connection|ECONNREFUSED|Traceback|at .*\.ts:\d+/i);
  });

  it("with --json prints the result as one JSON line, last", () => {
    const r = run(["--agent", "oracle", "--tasks", "fix-range,explain-port", "--json"]);
    expect(r.status, r.stderr).toBe(0);
    const lines = r.stdout.trim().split("\n");
    const last = JSON.parse(lines[lines.length - 1]!) as { pass_rate: number; tasks: number; result: string };
    expect(last.tasks).toBe(2);
    expect(last.pass_rate).toBe(1);
    rmSync(join(ROOT, last.result, ".."), { recursive: true, force: true });
  });
});

describe("a check the agent can change cannot count (issue 31)", () => {
  const fixRange = () => tasks.find((t) => t.id === "fix-range")!;
  /** The workspace as an agent that did NOT fix the bug left it, then `plant` on top; graded. */
  async function graded(plant: (ws: string, out: string) => void) {
    const dir = mkdtempSync(join(tmpdir(), "eval-attack-"));
    const ws = join(dir, "ws");
    const out = join(dir, "out");
    try {
      cpSync(join(ROOT, "evals/tasks/fix-range/repo"), ws, { recursive: true });
      mkdirSync(out);
      const before = snapshot(ws);
      plant(ws, out);
      const grade = await gradeRun(fixRange(), ws, before, "Fixed.");
      const outside = readdirSync(out, { recursive: true, encoding: "utf8" }).sort().map((f) => (statSync(join(out, f)).isFile() ? `${f}=${readFileSync(join(out, f), "utf8")}` : f));
      return { grade, outside, tests: grade.criteria.find((c) => c.name === "tests") };
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }

  it("a decoy check through a link (.eval-check → a folder outside, with a right range.js beside it) fails, and nothing outside is written", async () => {
    const r = await graded((ws, out) => {
      mkdirSync(join(out, "check"));
      mkdirSync(join(out, "src"));
      writeFileSync(join(out, "check", "range.test.js"), "// decoy\n");
      writeFileSync(join(out, "src", "range.js"), "export const range = (a, b) => Array.from({ length: Math.max(0, b - a + 1) }, (_, i) => a + i);\n");
      symlinkSync(join(out, "check"), join(ws, CHECK_DIR));
    });
    expect(r.tests?.ok, `the hidden check passed a workspace whose bug was never fixed: ${r.tests?.detail}. Run the check from the suite's own files in a fresh copy, never through the workspace.`).toBe(false);
    expect(r.outside, "the grader wrote through the agent's link onto a file outside the workspace").toContain("check/range.test.js=// decoy\n");
  });

  it("node:assert turned into no-ops by the code under test fails", async () => {
    const r = await graded((ws) => appendFileSync(join(ws, "src", "range.js"), '\nimport assert from "node:assert/strict";\nfor (const k of Object.keys(assert)) assert[k] = () => {};\n'));
    expect(r.tests?.ok, `assert made a no-op passed the check: ${r.tests?.detail}. The check runs with node:assert frozen (CHECK_GUARD).`).toBe(false);
  });

  it("a test run stopped early (process.exit(0) as the code loads) fails: fewer tests ran than the check defines", async () => {
    const r = await graded((ws) => appendFileSync(join(ws, "src", "range.js"), "\nprocess.exit(0);\n"));
    expect(r.tests?.ok, `a run that exited before its tests passed the check: ${r.tests?.detail}`).toBe(false);
    expect(r.tests?.detail).toMatch(/of the check's 4 tests ran/);
  });

  it("a link the agent added counts as a change (unchanged), and the right fix still passes", async () => {
    const linked = await graded((ws, out) => {
      writeFileSync(join(out, "key.txt"), "-----BEGIN OPENSSH PRIVATE KEY-----\n");
      symlinkSync(join(out, "key.txt"), join(ws, "test", "key.txt"));
    });
    expect(linked.grade.criteria.find((c) => c.name === "unchanged")?.ok, "a link added under test/ (unchanged: test/**) must count as a change: snapshot() records a link by its target").toBe(false);
    const fixed = await graded((ws) => writeFileSync(join(ws, "src", "range.js"), readFileSync(join(ws, "src", "range.js"), "utf8").replace("i < to", "i <= to")));
    expect(fixed.grade.pass, `the right fix must still pass: ${JSON.stringify(fixed.grade.criteria)}`).toBe(true);
  });
});
