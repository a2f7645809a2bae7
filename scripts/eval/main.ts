/**
 * npm run eval -- [--agent NAME]… [--runs k] [--tasks id,id] [--jobs n] [--json] [--compare] [--yes] [--max-cost USD] [--allow-commands]
 * npm run eval -- --compare A/result.json B/result.json
 * npm run eval -- --compare-features [--runs k] [--tasks id,id] [--json]
 * npm run eval -- --list
 *
 * Runs an agent (the final agent by default) over the task suite (evals/tasks), every task k
 * times in a scratch copy, commands in the OS sandbox, graded by each task's hidden check; prints
 * a live table, then the result; keeps every run's transcript and diff, the result (JSON) and a
 * report (Markdown and HTML, with a chart) under .course/evals/<id>/. Two --agent flags run both
 * and compare them; --compare with two result files compares past runs; --compare-features runs
 * each task that needs a Part IV feature with and without it (features.ts). docs/guide/evals.md.
 */
import { createInterface } from "node:readline/promises";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join, relative, resolve } from "node:path";
import { selectModel } from "../../runtime/client.ts";
import { loadEnv } from "../../runtime/env.ts";
import { isMain } from "../../runtime/lesson.ts";
import { bold, dim, green, output, red, yellow } from "../../runtime/print.ts";
import { ROOT } from "../lib/paths.ts";
import { sandboxInfo } from "../../runtime/tools/sandbox.ts";
import { RETRIES } from "../../solutions/s11_recovery/recovery.ts";
import { strictArgs, UsageError, usageLine } from "../lib/args.ts";
import { AgentSpecError, evalLessons, resolveAgent, type EvalAgent } from "./agents.ts";
import { estimateCost } from "./estimate.ts";
import { compareLines, compareTable, failures, headline, htmlReport, jsonLine, markdownReport, measures, resultTable } from "./report.ts";
import { codeMayRun, EVALS_OUT, runEval, type EvalResult, type ModelChoice } from "./run.ts";
import { checkRunsCode } from "./grade.ts";
import type { RunRecord } from "./stats.ts";
import { loadSuite, type EvalTask } from "./suite.ts";
import { compareFeatures, featureJson, featureLines, featureTable, featureTasks, WITH } from "./features.ts";
import { reportFailures } from "../lib/failure.ts";

// What nothing else catches ends the run in words, with what to do (scripts/lib/failure.ts).
reportFailures("npm run eval");

const SPEC = {
  command: "npm run eval --",
  usage: "[--agent NAME]… [--runs k] [--tasks id,id] [--jobs n] [--json] [--yes] [--max-cost USD] [--allow-commands] | --compare A.json B.json | --compare-features | --list",
  options: {
    agent: { type: "string", multiple: true },
    runs: { type: "string" },
    tasks: { type: "string" },
    jobs: { type: "string" },
    json: { type: "boolean" },
    compare: { type: "boolean" },
    "compare-features": { type: "boolean" },
    list: { type: "boolean" },
    yes: { type: "boolean" },
    "allow-commands": { type: "boolean" },
    "max-cost": { type: "string" },
    help: { type: "boolean", short: "h" },
  },
  positionals: { max: 2 },
} as const;

const HELP = `${usageLine(SPEC)}

  --agent NAME     final (default), final:nocache, sNN (${evalLessons().join(" ")}), lessons/sNN (yours), a .ts file exporting runAgent,
                   oracle (the reference solutions) or null (does nothing). Twice: both run, then compared.
  --runs k         runs per task (default 1); pass@k and pass^k use k
  --tasks a,b      only these tasks (ids of evals/tasks)
  --jobs n         runs at the same time (default 2)
  --json           print the result as one JSON line, the only line on stdout (the rest goes to stderr;
                   \`npm run -s eval -- --json\` keeps npm's own lines off stdout too)
  --compare        with two result.json files: compare them (no run); with two --agent: the same after running
  --compare-features  the tasks that need a Part IV feature (worktrees, workflow, goal), each run by the final
                   agent through npm run agent's headless mode with its feature and without it: a table of both
  --yes            with a real model: do not ask before a run estimated above --max-cost
  --max-cost USD   the estimate above which a run with a real model asks first (default 1)
  --allow-commands with a real model: approve the agent's commands inside the OS sandbox (bubblewrap; refused
                   without it). Nobody is there to ask during a run: without this flag a real model's commands
                   are refused (read-only ones still run). The scripted model's own commands are always approved.
                   A real model's code is graded only inside the OS sandbox too (each check runs it): without
                   bubblewrap, only the tasks graded without running code can run with a real model.
  --list           list the tasks and exit`;

/** A positive whole number from a flag, or a usage error. */
function count(flag: string, value: string | undefined, fallback: number, max: number): number {
  if (value === undefined) return fallback;
  if (!/^\d+$/.test(value) || Number(value) < 1 || Number(value) > max) throw new UsageError(`${SPEC.command}: --${flag} takes a whole number from 1 to ${max} (not "${value}")`);
  return Number(value);
}

/** The live view: a progress bar and a row per task, redrawn in place on a terminal. */
class LiveTable {
  private drawn = 0;
  private readonly state = new Map<string, { running: number; passed: number; done: number; turns: number; cost: number | null; ms: number }>();
  private finished = 0;
  constructor(
    private readonly tasks: EvalTask[],
    private readonly runs: number,
    private readonly agent: string,
    private readonly tty: boolean,
    private readonly write: (s: string) => void,
  ) {
    for (const t of tasks) this.state.set(t.id, { running: 0, passed: 0, done: 0, turns: 0, cost: 0, ms: 0 });
  }
  event(e: { type: "start" | "end"; task: string; run: number; record?: RunRecord }) {
    const s = this.state.get(e.task)!;
    if (e.type === "start") s.running++;
    else if (e.record?.interrupted) s.running--;
    else {
      s.running--;
      s.done++;
      this.finished++;
      if (e.record?.pass) s.passed++;
      s.turns += e.record?.turns ?? 0;
      s.ms += e.record?.ms ?? 0;
      s.cost = s.cost === null || e.record?.cost_usd === null ? null : s.cost + (e.record?.cost_usd ?? 0);
      if (!this.tty) {
        const r = e.record!;
        this.write(`${this.progress()} ${r.pass ? "pass" : "FAIL"} ${e.task} run ${e.run} (${r.turns} turns, ${(r.ms / 1000).toFixed(1)} s, ${r.stop})\n`);
      }
    }
    if (this.tty) this.draw();
  }
  private progress(): string {
    const total = this.tasks.length * this.runs;
    const width = 24;
    const full = Math.round((this.finished / total) * width);
    return `[${"#".repeat(full)}${"-".repeat(width - full)}] ${this.finished}/${total}`;
  }
  private draw() {
    const lines = [`${bold(this.agent)} ${this.progress()}`];
    for (const t of this.tasks) {
      const s = this.state.get(t.id)!;
      const mark = s.running > 0 ? yellow("…") : s.done === 0 ? dim("·") : s.passed === s.done ? green("✓") : red("✗");
      const figures = s.done > 0 ? dim(` · ${(s.turns / s.done).toFixed(1)} turns · ${s.cost === null ? "cost unknown" : `$${s.cost.toFixed(4)}`} · ${(s.ms / 1000).toFixed(1)} s`) : "";
      lines.push(`  ${mark} ${t.id.padEnd(22)} ${s.passed}/${s.done}${s.done < this.runs ? dim(` of ${this.runs}`) : ""}${figures}`);
    }
    if (this.drawn > 0) this.write(`\x1b[${this.drawn}A`);
    this.write(lines.map((l) => `\x1b[2K${l}\n`).join(""));
    this.drawn = lines.length;
  }
}

function readResult(name: string): EvalResult {
  const file = resolve(process.env.INIT_CWD ?? process.cwd(), name);
  if (!existsSync(file)) throw new UsageError(`${SPEC.command}: no result at ${file} (results are under .course/evals/<id>/result.json)`);
  try {
    const r = JSON.parse(readFileSync(file, "utf8")) as EvalResult;
    if (!r.summary || !Array.isArray(r.tasks)) throw new Error("not an eval result");
    return r;
  } catch (e) {
    throw new UsageError(`${SPEC.command}: ${file} is not an eval result (${(e as Error).message})`);
  }
}

async function confirm(question: string): Promise<boolean> {
  const rl = createInterface({ input: process.stdin, output: process.stderr });
  try {
    return /^y(es)?$/i.test((await rl.question(question)).trim());
  } finally {
    rl.close();
  }
}

/** What the eval approves, in words (the line under the model's). */
export function commandsLine(model: ModelChoice, sandbox = sandboxInfo()): string {
  if (sandbox.kind !== "bubblewrap") return "only read-only commands are approved (no OS sandbox holds the others)";
  if (model.offline) return "every command of the scripted model is approved inside it";
  return model.approveCommands
    ? "the model's commands are approved inside it (--allow-commands)"
    : "the model's commands are refused, read-only ones aside (nobody is there to approve them: --allow-commands approves them inside the OS sandbox)";
}

/**
 * Why an eval cannot run here, or null: a real model's code, with no OS sandbox to run it in. Each
 * task's check runs the code the agent left (codeMayRun), and outside a sandbox it would run as you.
 * The tasks graded without running code (by the answer, by files unchanged) are named as a way on.
 */
export function noSandboxRefusal(model: ModelChoice, agents: readonly Pick<EvalAgent, "model">[], tasks: readonly EvalTask[], all: readonly EvalTask[], sandbox = sandboxInfo()): string | null {
  const running = tasks.filter((t) => checkRunsCode(t) && agents.some((a) => !codeMayRun(model, a, sandbox)));
  if (running.length === 0) return null;
  const safe = all.filter((t) => !checkRunsCode(t)).map((t) => t.id);
  return `the check of ${running.length === 1 ? `${running[0]!.id} runs` : `${running.length} of the tasks runs`} the code the model leaves, and with no OS sandbox here (${sandbox.line}) it would run as you, with your files and keys. Install bubblewrap (apt-get install bubblewrap), run offline (the scripted model), or choose tasks graded without running code${safe.length ? ` (--tasks ${safe.join(",")})` : ""}`;
}

/** The command: its exit code; a UsageError or AgentSpecError (one line, exit 2) for a mistake in how it was called. */
export async function main(argv: string[]): Promise<number> {
  const { values, positionals } = strictArgs(SPEC, argv);
  const print = (line = "") => void (values.json ? process.stderr.write(`${line}\n`) : console.log(line));
  if (values.help) {
    console.log(HELP);
    return 0;
  }
  if (values.compare && positionals.length > 0) {
    if (positionals.length !== 2 || values.agent) throw new UsageError(`${SPEC.command}: --compare takes two result files (or two --agent flags and no file)`);
    const [a, b] = positionals.map((f) => readResult(f)) as [EvalResult, EvalResult];
    for (const line of compareTable(a, b)) print(line);
    for (const line of compareLines(a, b)) print(`- ${line}`);
    if (values.json) console.log(JSON.stringify({ compare: [jsonLine(a), jsonLine(b)], differences: compareLines(a, b) }));
    return 0;
  }
  if (positionals.length > 0) throw new UsageError(`${SPEC.command}: unexpected argument "${positionals[0]}" (result files go with --compare)`);
  const { tasks: all, problems } = loadSuite();
  for (const p of problems) print(yellow(`task skipped: ${p}`));
  if (values.list) {
    for (const t of all) print(`${t.id.padEnd(22)} ${t.kind.padEnd(9)} ${(t.changes ? "change" : "no change").padEnd(10)} ${t.title}${t.feature ? ` (needs --${t.feature.name})` : ""}`);
    return 0;
  }
  let tasks = all;
  if (values.tasks) {
    const wanted = values.tasks.split(",").map((s) => s.trim()).filter(Boolean);
    const unknown = wanted.filter((w) => !all.some((t) => t.id === w));
    if (unknown.length) throw new UsageError(`${SPEC.command}: no task ${unknown.join(", ")} (npm run eval -- --list shows them)`);
    tasks = all.filter((t) => wanted.includes(t.id));
  }
  if (values["compare-features"]) {
    if (values.agent || values.compare) throw new UsageError(`${SPEC.command}: --compare-features runs the final agent with and without each feature: no --agent or --compare with it`);
    tasks = featureTasks(tasks);
    if (tasks.length === 0) throw new UsageError(`${SPEC.command}: no task that needs a feature${values.tasks ? ` among ${values.tasks}` : ""} (task.json "feature"; npm run eval -- --list shows them)`);
  }
  if (tasks.length === 0) throw new UsageError(`${SPEC.command}: no task to run (evals/tasks is empty or every task has a problem)`);
  const runs = count("runs", values.runs, 1, 20);
  const jobs = count("jobs", values.jobs, 2, 16);
  const names = values.agent ?? ["final"];
  if (names.length > 2) throw new UsageError(`${SPEC.command}: at most two --agent flags (to compare them)`);
  if (values.compare && names.length !== 2) throw new UsageError(`${SPEC.command}: --compare takes two --agent flags, or two result files`);
  let maxCost = 1;
  if (values["max-cost"] !== undefined) {
    maxCost = Number(values["max-cost"]);
    if (!Number.isFinite(maxCost) || maxCost < 0) throw new UsageError(`${SPEC.command}: --max-cost takes an amount in US dollars (not "${values["max-cost"]}")`);
  }
  const agents: EvalAgent[] = [];
  if (!values["compare-features"]) for (const n of names) agents.push(await resolveAgent(n));

  loadEnv();
  const selection = selectModel({ ...RETRIES });
  const sandbox = sandboxInfo();
  const allow = values["allow-commands"] === true;
  if (allow && !selection.offline && sandbox.kind !== "bubblewrap")
    throw new UsageError(`${SPEC.command}: --allow-commands approves a real model's commands inside the OS sandbox, and there is none here (${sandbox.line}). Install bubblewrap (apt-get install bubblewrap), or run without it: then the model's commands are refused`);
  const model: ModelChoice = selection.offline ? { offline: true } : { offline: false, llm: selection, approveCommands: allow };
  const refusal = noSandboxRefusal(model, values["compare-features"] ? [{ model: true }] : agents, tasks, all, sandbox);
  if (refusal) throw new UsageError(`${SPEC.command}: ${refusal}`);
  print(dim(selection.offline ? "model: scripted (offline), a fresh one per run" : selection.banner));
  print(dim(`${sandbox.line}; ${commandsLine(model, sandbox)}`));
  if (!model.offline && (values["compare-features"] || agents.some((a) => a.model))) {
    const est = estimateCost(tasks, runs * (values["compare-features"] ? 2 : agents.filter((a) => a.model).length), selection.model);
    if (!est) print(yellow(`no list price known for ${selection.model}: the cost cannot be estimated`));
    else {
      print(`estimated cost: about $${est.typical.toFixed(2)}, at most about $${est.most.toFixed(2)} if every run used its whole turn limit (list prices, no cache)`);
      if (est.most > maxCost && !values.yes) {
        if (!process.stdin.isTTY) {
          print(red(`that may cost more than $${maxCost} (--max-cost): run again with --yes to go ahead, or with fewer --tasks or --runs`));
          return 2;
        }
        if (!(await confirm(`That may cost more than $${maxCost}. Go ahead? [y/N] `))) {
          print("Nothing was run.");
          return 0;
        }
      }
    }
  }

  // Ctrl-C: the runs in flight are stopped (their scratch copies removed), no new one starts, and
  // the runs that finished are reported. A second Ctrl-C ends the process at once.
  const stop = new AbortController();
  process.once("SIGINT", () => {
    print(yellow("\nStopping: the runs in flight end now; the result holds the runs that finished. Ctrl-C again to quit at once."));
    stop.abort();
  });
  if (values["compare-features"]) {
    print(dim(`each task with its feature, then without it: npm run agent -- … --output-format stream-json, ${tasks.length} task(s) × ${runs} run(s) × 2`));
    const side = (agent: string | undefined) => (agent === WITH ? "with   " : "without");
    const c = await compareFeatures({ tasks, runs, jobs, model, signal: stop.signal, onRun: (e) => {
      if (e.type === "end" && e.record && !e.record.interrupted) print(dim(`${e.record.pass ? "pass" : "FAIL"} ${e.task} ${side(e.agent ?? "")} (${e.record.turns} turns, ${(e.record.ms / 1000).toFixed(1)} s, ${e.record.stop})`));
    } });
    print("");
    for (const l of featureTable(c.rows)) print(l);
    for (const l of featureLines(c.rows)) print(`- ${l}`);
    print(dim(`offline, the scripted model follows each task's script: these figures measure the loop and its features, not a model`));
    print(dim(`runs, transcripts and diffs: ${c.results.map((r) => relative(process.cwd(), join(EVALS_OUT, r.id)) || ".").join(", ")}`));
    if (values.json) console.log(JSON.stringify(featureJson(c)));
    return 0;
  }
  const results: EvalResult[] = [];
  for (const agent of agents) {
    if (stop.signal.aborted) break;
    const tty = !values.json && process.stdout.isTTY === true;
    // The loops print what they do (s07's tool lines, s09's logger): not here, the table is the view.
    const stdoutWrite = process.stdout.write.bind(process.stdout);
    const stderrWrite = process.stderr.write.bind(process.stderr);
    const live = new LiveTable(tasks, runs, agent.name, tty, (s) => void (values.json ? stderrWrite : stdoutWrite)(s));
    const write = output.write;
    output.write = () => {};
    process.stdout.write = (() => true) as typeof process.stdout.write;
    let result: EvalResult;
    try {
      result = await runEval({ tasks, agent, runs, jobs, model, signal: stop.signal, onRun: (e) => live.event(e) });
    } finally {
      output.write = write;
      process.stdout.write = stdoutWrite;
    }
    results.push(result);
    const dir = join(EVALS_OUT, result.id);
    writeFileSync(join(dir, "report.md"), markdownReport([result]));
    writeFileSync(join(dir, "report.html"), htmlReport([result]));
    print("");
    for (const l of headline(result)) print(bold(l));
    print(dim(measures(result)));
    print("");
    for (const l of resultTable(result)) print(l);
    for (const f of failures(result)) print(red(`✗ ${f}`));
    print(dim(`runs, transcripts and diffs: ${relative(process.cwd(), dir) || "."}/ (result.json, report.md, report.html)`));
  }
  if (results.length === 2) {
    const [a, b] = results as [EvalResult, EvalResult];
    print("");
    print(bold(`${a.agent} vs ${b.agent}`));
    for (const line of compareTable(a, b)) print(line);
    for (const line of compareLines(a, b)) print(`- ${line}`);
    const dir = join(EVALS_OUT, b.id);
    writeFileSync(join(dir, "compare.md"), markdownReport([a, b]));
    writeFileSync(join(dir, "compare.html"), htmlReport([a, b]));
  }
  if (values.json) {
    const lines = results.map((r) => jsonLine(r, relative(ROOT, join(EVALS_OUT, r.id, "result.json"))));
    console.log(JSON.stringify(lines.length === 1 ? lines[0] : { compare: lines, differences: compareLines(results[0]!, results[1]!) }));
  }
  return 0;
}

if (isMain(import.meta.url))
  main(process.argv.slice(2)).then(
    (code) => {
      process.exitCode = code;
    },
    (e: unknown) => {
      if (e instanceof UsageError || e instanceof AgentSpecError) {
        console.error(e.message);
        process.exitCode = 2;
        return;
      }
      console.error(red(`eval failed: ${e instanceof Error ? e.message : String(e)}`));
      if (process.env.DEBUG) console.error(e);
      process.exitCode = 1;
    },
  );
