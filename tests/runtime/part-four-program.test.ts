/**
 * The final agent's Part IV flags (solutions/s27_goal/program.ts, `npm run agent`), driven through
 * run(argv, deps) offline as a script would drive it: --help names every feature from s12 to s27;
 * --worktrees, --workflow and --goal each reach the end their lesson's scenario is written for, and
 * refuse a mistake in one line with exit 2; offline, a task or step with no script ends not done, once.
 */
import { execFileSync } from "node:child_process";
import { mkdtemp, readdir, readFile, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { notDoneOffline } from "../../runtime/offline.ts";
import { output } from "../../runtime/print.ts";
import { lessonTask, SAMPLE_REPOSITORY } from "../../runtime/tasks.ts";
import { ROOT, rule, scripted } from "../../runtime/testing.ts";
import { scratchCopy } from "../../runtime/tools/files.ts";
import { listSessions, removeSession } from "../../solutions/s10_conversation/session.ts";
import { HEADLESS_USAGE } from "../../solutions/s24_headless/program.ts";
import type { HeadlessLine, ResultLine } from "../../solutions/s24_headless/headless.ts";
import { initRepository } from "../../solutions/s25_worktrees/worktree.ts";
import { DEFAULT_WORKFLOW } from "../../solutions/s26_workflow/agent.ts";
import { run, TEAM_USAGE } from "../../solutions/s27_goal/program.ts";
import { run as scheduleProgram, SCHEDULE_USAGE } from "../../solutions/s28_schedule/program.ts";
import { checkFinalAgent } from "../support.ts";

const before = new Set(listSessions().map((f) => f.name));
// Every -p run saves a session (in this file's own folder, COURSE_SESSIONS_DIR: tests/sessions.each.ts); each test removes those it made.
afterEach(() => {
  for (const f of listSessions()) if (!before.has(f.name)) removeSession(f.name);
});

/** One run of the program: its exit, stdout's lines (the result, in json), and everything said for a person. */
async function agent(argv: string[], opts: { journals?: string; llm?: ReturnType<typeof scripted> } = {}) {
  const stdout: string[] = [];
  const said: string[] = [];
  const write = { out: output.write, err: process.stderr.write };
  output.write = (line) => void said.push(line);
  process.stderr.write = ((chunk: string | Uint8Array) => (said.push(String(chunk)), true)) as typeof process.stderr.write;
  const llm = opts.llm ?? scripted({ maxRequests: 200 });
  try {
    const r = await run(argv, { llm, write: (l) => stdout.push(l), ...(opts.journals ? { journals: opts.journals } : {}) });
    const result = stdout.map((l) => JSON.parse(l) as HeadlessLine).find((l): l is ResultLine & { evaluator?: { requests: number } } => l.type === "result");
    return { ...r, stdout, said: said.join("\n"), result, llm };
  } finally {
    output.write = write.out;
    process.stderr.write = write.err;
  }
}

const workspace = () => scratchCopy(SAMPLE_REPOSITORY);
const journals = () => mkdtemp(join(tmpdir(), "journals-"));
const times = (text: string, part: string) => text.split(part).length - 1;
/** The requests the scripted model received, and those that offered a tool of this name. */
const requests = (llm: ReturnType<typeof scripted>) => llm.scripted.exchanges.map((x) => x.request as { tools?: Array<{ name?: string }> });
const offering = (llm: ReturnType<typeof scripted>, tool: string) => requests(llm).filter((q) => (q.tools ?? []).some((t) => t.name === tool));

describe("the final agent's --help and its mistakes", () => {
  it("--help names every feature, s12's flags to s27's, in one text; npm run agent runs this program or a later one", async () => {
    checkFinalAgent(27, "s27");
    const { exitCode, said } = await agent(["--help"]);
    rule(exitCode === 0 && said.includes(TEAM_USAGE), "final-agent", `npm run agent -- --help exited ${exitCode} and did not print TEAM_USAGE`);
    rule(TEAM_USAGE.startsWith(HEADLESS_USAGE), "final-agent", "TEAM_USAGE does not keep s24's help (and every earlier flag's) first");
    for (const flag of ["--workspace", "--mcp-config", "--permission-mode", "--context-budget", "/rewind", "bash_background", "--output-format", "--worktrees", "--workflow FILE", "--goal ", "--goal-check CMD", "--max-goal-rounds N"])
      rule(said.includes(flag), "final-agent", `npm run agent -- --help does not name ${flag}`);
  });

  it("the last program takes a later lesson's help and loop (run's third argument), so the next lesson edits no earlier file", async () => {
    const said: string[] = [];
    const write = { out: output.write, err: process.stderr.write };
    output.write = (line) => void said.push(line);
    process.stderr.write = ((chunk: string | Uint8Array) => (said.push(String(chunk)), true)) as typeof process.stderr.write;
    let wrapped = 0;
    const later = {
      lesson: "s29_next",
      usage: `${SCHEDULE_USAGE}\n\ns29 adds --next`,
      around: (loop: Parameters<NonNullable<Parameters<typeof scheduleProgram>[2]>["around"]>[0]) => ((llm, history, opts) => (wrapped++, loop(llm, history, opts))) as typeof loop,
    };
    try {
      const help = await scheduleProgram(["--help"], { llm: scripted() }, later);
      rule(help.exitCode === 0 && said.join("\n").includes("s29 adds --next"), "final-agent", `s28's run(["--help"], deps, later) printed ${JSON.stringify(said.join("\n").slice(-200))}: it should print the later lesson's usage`);
      const ws = await workspace();
      const task = await scheduleProgram(["--workspace", ws, "-p", "a task with no script", "--output-format", "json"], { llm: scripted(), write: () => {} }, later);
      rule(wrapped === 1 && task.history.length > 0, "final-agent", `s28's run with a later lesson's around: its loop ran ${wrapped} time(s) for one task; it should wrap s28's loop once, and the task should run through it`);
    } finally {
      output.write = write.out;
      process.stderr.write = write.err;
    }
  });

  it("a mistake in a Part IV flag is one line on stderr, nothing on stdout, exit 2", async () => {
    const ws = await workspace();
    const dir = await journals();
    const flow = join(dir, "flow.json");
    await writeFile(flow, JSON.stringify({ name: "x", steps: [{ kind: "agent", id: "a", prompt: "p" }] }));
    const bad = join(dir, "bad.json");
    await writeFile(bad, JSON.stringify({ name: "x", steps: [{ kind: "agentt", id: "a" }] }));
    const cases: Array<[string[], RegExp]> = [
      [["--max-goal-rounds", "0", "x"], /--max-goal-rounds needs a whole number/],
      [["--workflow"], /--workflow needs a value/],
      [["--workspace", ws, "--workflow", join(dir, "none.json")], /no such file/],
      [["--workspace", ws, "--workflow", bad], /bad\.json: steps\.0/],
      [["--workspace", ws, "--workflow", flow, "--goal"], /use one of them/],
      [["--workspace", ws, "--workflow", flow, "a task too"], /give no task/],
      [["--workspace", ws, "--worktrees", "x"], /not a git repository with a commit/],
    ];
    for (const [argv, message] of cases) {
      const r = await agent(argv);
      const lines = r.said.split("\n").filter((l) => l.trim() !== "");
      rule(r.exitCode === 2 && r.stdout.length === 0 && lines.length === 1 && message.test(lines[0]!), "final-agent", `npm run agent -- ${argv.join(" ")}: exit ${r.exitCode}, said ${JSON.stringify(lines)}: expected one line matching ${message}, exit 2`);
    }
  });
});

describe("the final agent's Part IV flags, offline", () => {
  it("--worktrees: s25's two children each edit src/login.js on a branch of their own; the workspace is unchanged", async () => {
    const ws = await workspace();
    await initRepository(ws);
    const source = await readFile(join(ws, "src/login.js"), "utf8");
    const r = await agent(["--workspace", ws, "--permission-mode", "acceptEdits", "--worktrees", "-p", lessonTask("s25_worktrees"), "--output-format", "json"]);
    const branches = execFileSync("git", ["branch", "--format=%(refname:short)"], { cwd: ws, encoding: "utf8" }).split("\n").filter(Boolean);
    rule(r.exitCode === 0 && r.result?.is_error === false, "final-agent", `--worktrees on s25's task: exit ${r.exitCode}, result ${JSON.stringify(r.result).slice(0, 200)}`);
    rule(branches.includes("worktree/child-1") && branches.includes("worktree/child-2"), "final-agent", `--worktrees: the branches are ${branches.join(", ")}: each child's change is committed on a branch of its own`);
    expect(await readFile(join(ws, "src/login.js"), "utf8"), "the workspace is unchanged").toBe(source);
    // The parent names the branches as git spells them: a command copied from its answer works.
    const answer = (r.result?.result ?? "").split("\n");
    rule(answer[0]?.startsWith("Take worktree/child-1: ") && answer[1]?.startsWith("worktree/child-2 lowers") && answer.at(-1)?.endsWith("git merge worktree/child-1"), "final-agent", `--worktrees: the parent's answer names the branches wrongly: ${JSON.stringify(answer)}`);
    const without = await agent(["--workspace", ws, "-p", lessonTask("s25_worktrees"), "--output-format", "json"]);
    rule(offering(without.llm, "worktree_task").length === 0 && requests(without.llm).length > 0, "final-agent", "without --worktrees the model was offered worktree_task: the feature is on request");
  });

  it("--workflow: s26's example runs every step, a killed run resumes from its journal, a finished one starts over; the result is a json line", async () => {
    const file = join(ROOT, "examples/workflows/review.json");
    const { caps: _caps, ...example } = JSON.parse(await readFile(file, "utf8")) as Record<string, unknown>;
    expect(example, "examples/workflows/review.json is s26's default workflow (its prompts are the scenario's)").toEqual(JSON.parse(JSON.stringify(DEFAULT_WORKFLOW)));
    const ws = await workspace();
    const dir = await journals();
    const argv = ["--workspace", ws, "--workflow", file, "--output-format", "json"];
    const first = await agent(argv, { journals: dir });
    rule(first.exitCode === 0 && first.result?.subtype === "success" && /ran files, source, tests, draft, short/.test(first.result.result), "final-agent", `--workflow: exit ${first.exitCode}, result ${JSON.stringify(first.result).slice(0, 300)}`);
    const [journal] = (await readdir(dir)).filter((f) => f.endsWith(".jsonl"));
    // A kill after the first step: the journal holds its lines up to that step's step_done, then a torn line.
    const lines = (await readFile(join(dir, journal!), "utf8")).split("\n");
    await writeFile(join(dir, journal!), `${lines.slice(0, lines.findIndex((l) => l.includes('"step_done"')) + 1).join("\n")}\n{"type":"step_sta`);
    const resumed = await agent(argv, { journals: dir });
    rule(resumed.exitCode === 0 && /ran source, tests, draft, short · read back files/.test(resumed.result?.result ?? ""), "final-agent", `--workflow after a kill: ${resumed.result?.result.split("\n")[0]}: the finished step is read back, the others run`);
    const again = await agent(argv, { journals: dir });
    rule(/ran files, source, tests, draft, short · read back nothing/.test(again.result?.result ?? ""), "final-agent", `--workflow after a run that ended done: ${again.result?.result.split("\n")[0]}: it starts over`);
    expect((await readdir(dir)).some((f) => f.endsWith(".done.jsonl")), "the finished journal is kept").toBe(true);
  });

  it("--workflow in text mode: the workflow's own lines, no session line and no session saved (its journal is what resumes it)", async () => {
    const sessions = listSessions().length;
    const r = await agent(["--workspace", await workspace(), "--workflow", join(ROOT, "examples/workflows/review.json")], { journals: await journals() });
    rule(r.exitCode === 0 && /workflow "review": done · ran files, source, tests, draft, short/.test(r.said), "final-agent", `--workflow in text mode: exit ${r.exitCode}, said ${r.said.slice(-400)}`);
    rule(!/^session: /m.test(r.said) && listSessions().length === sessions, "final-agent", `--workflow in text mode said or saved a session for the program's own task: ${r.said.split("\n").find((l) => l.startsWith("session: "))}`);
  });

  it("--workflow offline with a step it has no script for: stopped at that step, not done, said once", async () => {
    const dir = await journals();
    const flow = join(dir, "poems.json");
    await writeFile(flow, JSON.stringify({ name: "poems", steps: [{ kind: "agent", id: "a", prompt: "Write a poem about the login service." }, { kind: "agent", id: "b", prompt: "Another poem." }] }));
    const r = await agent(["--workspace", await workspace(), "--workflow", flow, "--output-format", "json"], { journals: dir });
    rule(r.exitCode === 1 && r.result?.is_error === true && requests(r.llm).length === 1, "final-agent", `an unscripted workflow offline: exit ${r.exitCode}, ${requests(r.llm).length} request(s), result ${JSON.stringify(r.result).slice(0, 200)}: not done, at its first step`);
    rule(times(r.said, notDoneOffline()) === 1, "final-agent", `the offline notice was said ${times(r.said, notDoneOffline())} times: once`);
  });

  it("--goal: the evaluator sends s27's worker back until the check passes, its cost in the result; no evidence never counts as done", async () => {
    const ws = await workspace();
    const goal = ["--workspace", ws, "--permission-mode", "acceptEdits", "--goal", "-p", lessonTask("s27_goal"), "--output-format", "json"];
    const met = await agent([...goal, "--goal-check", "node --test"]);
    rule(met.exitCode === 0 && met.result?.is_error === false && met.result.evaluator?.requests === 2, "final-agent", `--goal with --goal-check: exit ${met.exitCode}, result ${JSON.stringify(met.result).slice(0, 300)}: sent back once, then done, the evaluator's two requests reported`);
    expect(await readFile(join(ws, "src/login.js"), "utf8")).toContain("attempts >= MAX_FAILED_ATTEMPTS");
    const unproven = await agent(["--workspace", await workspace(), "--permission-mode", "acceptEdits", "--max-goal-rounds", "2", "-p", lessonTask("s27_goal"), "--output-format", "json"]);
    rule(unproven.exitCode === 1 && unproven.result?.is_error === true && unproven.result.stop_reason === "goal_not_met" && unproven.result.evaluator?.requests === 2, "final-agent", `--max-goal-rounds 2 without a check: exit ${unproven.exitCode}, result ${JSON.stringify(unproven.result).slice(0, 300)}: not done after 2 rounds`);
  });

  it("--goal offline with a task it has no script for: no evaluator asked, not done, said once", async () => {
    const r = await agent(["--workspace", await workspace(), "--goal", "Write a poem about the login service."]);
    const judged = offering(r.llm, "verdict");
    rule(r.exitCode === 1 && judged.length === 0 && times(r.said, notDoneOffline()) === 1, "final-agent", `an unscripted --goal run offline: exit ${r.exitCode}, ${judged.length} evaluator request(s), the notice said ${times(r.said, notDoneOffline())} times`);
    const json = await agent(["--workspace", await workspace(), "--goal", "-p", "Write a poem about the login service.", "--output-format", "json"]);
    rule(json.exitCode === 1 && json.result?.is_error === true && json.result.stop_reason === "no_script", "final-agent", `an unscripted run offline, as json: exit ${json.exitCode}, result ${JSON.stringify(json.result).slice(0, 200)}: its result line says not done (is_error, no_script), as its exit does`);
  });

  it("-p in plan mode with the plan never approved (no terminal, no --yes): the json result says why it stopped (is_error, plan_not_approved), not end_turn", async () => {
    const ws = await workspace();
    const r = await agent(["--workspace", ws, "--permission-mode", "plan", "-p", "Fix the login lockout so the tests pass.", "--output-format", "json"]);
    const calls = r.history.flatMap((m) => (m.role === "assistant" && typeof m.content !== "string" ? m.content.flatMap((b) => (b.type === "tool_use" ? [b.name] : [])) : []));
    expect(calls, "the scripted plan-mode run asks for approval").toContain("exit_plan_mode");
    rule(
      r.exitCode === 1 && r.stdout.length === 1 && r.result?.subtype === "error" && r.result.is_error && r.result.stop_reason === "plan_not_approved",
      "final-agent",
      `plan mode, the plan refused, as json: exit ${r.exitCode}, stdout ${JSON.stringify(r.stdout).slice(0, 300)}: one result line that says not done and why (subtype "error", is_error true, stop_reason "plan_not_approved")`,
    );
    expect(await readFile(join(ws, "src/login.js"), "utf8"), "nothing was changed").toContain("attempts > MAX_FAILED_ATTEMPTS");
  });
});
