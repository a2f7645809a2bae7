/**
 * npm run bench [-- --json] [--skip-cycle] [--update-docs] [--only learner_cycle|npm_test|eval|context_editing|hook_cost]
 *
 * What the course's agent costs, measured side by side in one run against the scripted model
 * with set latencies, so the figures are ratios that hold on a noisy machine:
 *
 *   parallel tools   one turn, k = 5 read-only calls of 200 ms: the final agent vs s02's
 *                    sequential loop vs one call alone
 *   streaming        time to the first text on screen / time of the whole message (s08+)
 *   loop overhead    the final agent's own ms per turn (model time subtracted), 10 vs 100 turns
 *   learner's cycle  `npm run check s01` in a fresh process (check_s; check_types_changed_s
 *                    without the type check's cache, as after an edit), the type check alone
 *                    (typecheck_s cold, typecheck_warm_s on the previous program, typecheck_cached_s
 *                    from .course/), watch's re-check (watch_recheck_s): medians of 3; `npm test`
 *                    alone and two side by side (test_s, test_beside_s). `--only learner_cycle`
 *                    measures the check's figures alone (not npm test) and prints them;
 *                    `--only npm_test` runs npm test once: its wall time and CPU time (test_cpu_s,
 *                    every process of it), and the CPU time over the cores, the least wall time
 *                    it can take on this machine however busy it is.
 *   context growth   input tokens per turn over a 20-turn session that reads a 30 000-character
 *                    file each turn: without and with read_file's output cap, and with
 *                    cache_control on the last message (the share of input read from cache)
 *   cost             the final agent's dollar cost on that session with its own cache breakpoints
 *                    over the same session with them turned off (`cache: false`, s13+); list
 *                    prices: cache writes 1.25×, cache reads 0.1×, output 5× of input
 *
 *   eval             the final agent over the task suite offline (pass rate, turns, tokens, cost),
 *                    with and without its cache breakpoints (cost), s14 and s13 (turns with and
 *                    without the plan): scripts/eval/figures.ts. `--only eval` measures it alone.
 *
 *   context editing  s20's loop over a 30-turn session, each turn reading a large file: context
 *                    editing off and at two budgets (input tokens, cache reads and writes, cost)
 *   hook cost        s19's loop: ms per tool call with no hook, PreToolUse, PreToolUse+PostToolUse,
 *                    the sandbox on and off (medians over 30 calls per row): scripts/bench/part3.ts.
 *                    `--only context_editing` / `--only hook_cost` measures one alone.
 *
 * With --json the last line is one JSON object (see docs/guide/benchmarks.md). A figure whose
 * lesson is not in the course yet prints "n/a (lesson not present)" and is null in the JSON.
 */
import { spawn, spawnSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { cpus, loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { strictArgsOrExit, usageLine } from "../lib/args.ts";
import Anthropic from "@anthropic-ai/sdk";
import { SCRIPTED_MODEL_ID, type Llm } from "../../runtime/client.ts";
import { output } from "../../runtime/print.ts";
import { ScriptedModel, type ScriptedModelOptions } from "../../runtime/scripted/model.ts";
import { ROOT } from "../../runtime/testing.ts";
import { estimateTokens } from "../../runtime/tokens.ts";
import { readFile, READ_MAX_CHARS } from "../../runtime/tools/files.ts";
import { presentAdapters, type FuzzTool, type LessonAdapter } from "../reliability/lessons.ts";
import { planScenario, withDescription, type Plan } from "../reliability/plan.ts";
import { replaceBlock } from "../reliability/report.ts";
import { benchBlock, renderBench, type BenchFigures } from "./report.ts";
import { evalBlock, evalSummary, measureEvalFigures, type EvalFigures } from "../eval/figures.ts";
import { measureContextEditing, measureHookCost } from "./part3.ts";
import {
  contextEditingBlock,
  contextEditingSummary,
  hookCostBlock,
  hookCostSummary,
  renderContextEditing,
  renderHookCost,
  type ContextEditingFigures,
  type HookCostFigures,
} from "./part3-report.ts";
import { SITE_LANGS, langDir } from "../../docs/.vitepress/theme/langs.ts";
import { reportFailures, timeScaled } from "../lib/failure.ts";

// What nothing else catches ends the run in words, with what to do (scripts/lib/failure.ts).
reportFailures("npm run bench");

const ONLY = ["learner_cycle", "npm_test", "eval", "context_editing", "hook_cost"] as const;
const SPEC = {
  command: "npm run bench --",
  usage: `[--json] [--skip-cycle] [--update-docs] [--only ${ONLY.join("|")}] [--help]`,
  options: {
    json: { type: "boolean", default: false },
    "skip-cycle": { type: "boolean", default: false },
    "update-docs": { type: "boolean", default: false },
    only: { type: "string" },
    help: { type: "boolean", short: "h" },
  },
} as const;
const USAGE = usageLine(SPEC);
const { values } = strictArgsOrExit(SPEC);
if (values.help) {
  console.log(`${USAGE}

  --json         one JSON line of the figures on stdout (progress on stderr)
  --skip-cycle   leave out the learner's cycle (the slowest section)
  --only NAME    one section: ${ONLY.join(", ")}
  --update-docs  write the figures into the benchmarks page of every language`);
  process.exit(0);
}
const progress = (s: string) => {
  if (!values.json) process.stderr.write(`  ${s}\n`);
};
if (values.only !== undefined && !(ONLY as readonly string[]).includes(values.only)) {
  console.error(`--only takes one section: ${ONLY.join(", ")} (not "${values.only}")\n${USAGE}`);
  process.exit(2);
}

interface CheckFigures {
  check_s: number | null;
  check_types_changed_s: number | null;
  typecheck_s: number | null;
  typecheck_warm_s: number | null;
  typecheck_cached_s: number | null;
  typecheck_native_s: number | null;
  watch_recheck_s: number | null;
}

/**
 * The check's own figures (targets: docs/guide/benchmarks.md), medians of 3:
 *   check_s                `npm run check s01` in a fresh process, with the disk caches a learner
 *                          has after their first check (type-check verdicts, transformed modules)
 *   check_types_changed_s  the same without the type check's cache (what a check costs after an edit)
 *   typecheck_s            lessons/s01 type-checked in a fresh process: TypeScript loaded, the program built
 *   typecheck_warm_s       again in that process after a save (a comment added to the lesson's file),
 *                          on the previous program: what watch's warm type checker pays on a save
 *   typecheck_cached_s     answered from .course/typecheck.json (nothing changed)
 *   typecheck_native_s     the same files through the native compiler first (tsgo, its own process),
 *                          nothing remembered: what check and watch pay after an edit
 *   watch_recheck_s        a check of s01 through watch's warm runner and warm type checker, both
 *                          already up, right after a save (a comment added to the lesson's file)
 */
async function checkFigures(): Promise<CheckFigures> {
  const { typeErrors, typeErrorsFast } = await import("../lib/typecheck.ts");
  const { gradeLesson } = await import("../lib/grade.ts");
  const { WarmRunner } = await import("../lib/warm-runner.ts");
  const { findLesson } = await import("../../runtime/manifest.ts");
  const s01 = findLesson("s01")!;
  const dir = join(ROOT, "lessons", s01.dir);
  const mid = (xs: number[]) => Math.round([...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]! * 100) / 100;
  const since = (t: number) => (performance.now() - t) / 1000;
  const check = (env: NodeJS.ProcessEnv = {}) => {
    const t = performance.now();
    // A check that does not end within its limit (or npm missing) ends the bench in words (reportFailures).
    const r = spawnSync("npm", ["run", "-s", "check", "s01"], { cwd: ROOT, stdio: "ignore", env: { ...process.env, CI: "1", ...env }, timeout: timeScaled(600_000) });
    if (r.error) throw r.error;
    return since(t);
  };
  const three = async (f: () => number | Promise<number>) => mid([await f(), await f(), await f()]);
  progress("learner's cycle: npm run check s01 (fresh processes)");
  check(); // the caches as a learner has them after a first check
  const check_s = await three(() => check());
  const check_types_changed_s = await three(() => check({ COURSE_TYPECHECK_CACHE: "0" }));
  progress("learner's cycle: type check of lessons/s01 (cold, on the previous program, from the cache)");
  const cacheSetting = process.env.COURSE_TYPECHECK_CACHE;
  process.env.COURSE_TYPECHECK_CACHE = "0";
  let t = performance.now();
  typeErrors(dir);
  const typecheck_s = mid([since(t)]);
  // As after a save: the lesson's file is changed (a comment added) before each re-check.
  const entry = join(dir, s01.entry);
  const original = readFileSync(entry, "utf8");
  let saves = 0;
  const save = () => writeFileSync(entry, `${original}\n// save ${++saves}\n`);
  const typecheck_warm_s = await three(() => (save(), (t = performance.now()), typeErrors(dir), since(t)));
  writeFileSync(entry, original);
  delete process.env.COURSE_TYPECHECK_CACHE;
  typeErrors(dir); // remembered
  const typecheck_cached_s = await three(() => ((t = performance.now()), typeErrors(dir), since(t)));
  process.env.COURSE_TYPECHECK_CACHE = "0";
  const typecheck_native_s = await three(async () => ((t = performance.now()), await typeErrorsFast(dir), since(t)));
  progress("learner's cycle: watch's re-check of s01 after a save (warm test runner and type checker)");
  // as after a save: the type check runs (COURSE_TYPECHECK_CACHE is still "0")
  const warm = new WarmRunner();
  warm.start(dir);
  let watch_recheck_s: number | null = null;
  try {
    await gradeLesson(s01, "lessons", { warm, timeoutMs: 120_000 });
    watch_recheck_s = await three(async () => (save(), (t = performance.now()), await gradeLesson(s01, "lessons", { warm, timeoutMs: 120_000 }), since(t)));
  } finally {
    writeFileSync(entry, original);
    warm.close();
    if (cacheSetting === undefined) delete process.env.COURSE_TYPECHECK_CACHE;
    else process.env.COURSE_TYPECHECK_CACHE = cacheSetting;
  }
  return { check_s, check_types_changed_s, typecheck_s, typecheck_warm_s, typecheck_cached_s, typecheck_native_s, watch_recheck_s };
}

const round = (x: number, d = 2) => Math.round(x * 10 ** d) / 10 ** d;

/** CPU seconds of this process's finished children (Linux: /proc/self/stat's cutime + cstime), or null elsewhere. */
function childCpuS(): number | null {
  try {
    const fields = readFileSync("/proc/self/stat", "utf8").split(") ")[1]!.split(" ");
    // After "pid (comm) ": state is field 3, so cutime (16) and cstime (17) are at 13 and 14; ticks of 1/100 s.
    return (Number(fields[13]) + Number(fields[14])) / 100;
  } catch {
    return null;
  }
}

// `--only npm_test`: npm test once, its wall time and its CPU time (every process of it): the CPU
// time over the cores is the least wall time it can take on this machine, whatever the load.
if (values.only === "npm_test") {
  const cpuBefore = childCpuS();
  const t = performance.now();
  const ok = await new Promise<boolean>((resolve) => {
    const child = spawn("npm", ["test", "--silent"], { cwd: ROOT, stdio: "ignore", env: { ...process.env, CI: "1" } });
    child.on("close", (code) => resolve(code === 0));
    child.on("error", () => resolve(false));
  });
  const test_s = round((performance.now() - t) / 1000, 1);
  const cpuAfter = childCpuS();
  const test_cpu_s = cpuBefore === null || cpuAfter === null ? null : round(cpuAfter - cpuBefore, 1);
  const cores = cpus().length;
  const figures = { test_s, test_ok: ok, test_cpu_s, test_cpu_over_cores_s: test_cpu_s === null ? null : round(test_cpu_s / cores, 1), cores, load_1m: round(loadavg()[0] ?? 0, 2) };
  if (values.json) console.log(JSON.stringify({ npm_test: figures }));
  else for (const [k, v] of Object.entries(figures)) console.log(`${k}: ${v}`);
  process.exit(ok ? 0 : 1);
}

if (values.only === "learner_cycle") {
  const figures = await checkFigures();
  if (values.json) console.log(JSON.stringify({ learner_cycle: figures }));
  else for (const [k, v] of Object.entries(figures)) console.log(`${k}: ${v} s`);
  process.exit(0);
}

/** The eval's block on each benchmarks page, drawn in its language. */
function writeEvalBlocks(figures: EvalFigures) {
  for (const [rel, lang] of SITE_LANGS.map((l) => [`docs/${langDir(l)}guide/benchmarks.md`, l] as const)) {
    const page = join(ROOT, rel);
    if (!existsSync(page)) continue;
    const text = readFileSync(page, "utf8");
    const next = replaceBlock(text, evalBlock(figures, lang), "eval");
    if (next !== text) writeFileSync(page, next);
  }
}

if (values.only === "eval") {
  const figures = await measureEvalFigures(progress);
  if (values["update-docs"]) writeEvalBlocks(figures);
  if (values.json) console.log(JSON.stringify({ eval: evalSummary(figures) }));
  else for (const line of evalBlock(figures, "en").split("\n").filter((l) => !l.startsWith("<"))) console.log(line);
  process.exit(0);
}

/** Part III's blocks on each benchmarks page, drawn in its language. */
function writePart3Blocks(ce: ContextEditingFigures | null, hc: HookCostFigures | null) {
  for (const [rel, lang] of SITE_LANGS.map((l) => [`docs/${langDir(l)}guide/benchmarks.md`, l] as const)) {
    const page = join(ROOT, rel);
    if (!existsSync(page)) continue;
    const text = readFileSync(page, "utf8");
    let next = text;
    if (ce) next = replaceBlock(next, contextEditingBlock(ce, lang), "context_editing");
    if (hc) next = replaceBlock(next, hookCostBlock(hc, lang), "hook_cost");
    if (next !== text) writeFileSync(page, next);
  }
}

if (values.only === "context_editing" || values.only === "hook_cost") {
  const ce = values.only === "context_editing" ? await measureContextEditing(progress) : null;
  const hc = values.only === "hook_cost" ? await measureHookCost(progress) : null;
  if (values["update-docs"]) writePart3Blocks(ce, hc);
  if (values.json) console.log(JSON.stringify(ce ? { context_editing: contextEditingSummary(ce) } : { hook_cost: hookCostSummary(hc!) }));
  else for (const line of ce ? renderContextEditing(ce, "en") : renderHookCost(hc!, "en")) console.log(line);
  process.exit(0);
}

const K = 5;
const TOOL_MS = 200;

/** A scripted model and a client on it; `busyMs()` is the time spent inside the model (to subtract). */
function bench(options: ScriptedModelOptions, transform?: (body: Record<string, unknown>) => void, eager = false) {
  const model = new ScriptedModel({ maxRequests: 1_000, ...options });
  let busy = 0;
  const handle = model.handle.bind(model);
  model.handle = async (req: Request) => {
    const t = performance.now();
    try {
      return await handle(req);
    } finally {
      busy += performance.now() - t;
    }
  };
  const fetchThrough = async (input: string | URL | Request, init?: RequestInit): Promise<Response> => {
    if (transform && typeof init?.body === "string") {
      const body = JSON.parse(init.body) as Record<string, unknown>;
      transform(body);
      init = { ...init, body: JSON.stringify(body) };
    }
    const response = await model.fetch(input, init);
    if (!eager || !response.body) return response;
    // Read a streamed answer whole here, on the model's clock: producing the events is the
    // model's time, not the loop's (the SDK still parses every event from memory).
    const t = performance.now();
    const bytes = new Uint8Array(await response.arrayBuffer());
    busy += performance.now() - t;
    return new Response(bytes, { status: response.status, headers: response.headers });
  };
  const client = new Anthropic({ apiKey: "scripted-offline", baseURL: "http://scripted-model.localhost", fetch: fetchThrough, maxRetries: 0 });
  const llm: Llm & { scripted: ScriptedModel } = { client, model: SCRIPTED_MODEL_ID, scripted: model };
  return { llm, model, busyMs: () => busy };
}

const sleep = (ms: number, signal?: AbortSignal) =>
  new Promise<void>((resolve) => {
    const t = setTimeout(resolve, ms);
    signal?.addEventListener("abort", () => (clearTimeout(t), resolve()), { once: true });
  });

function tool(run: FuzzTool["run"]): FuzzTool {
  return { name: "fz_ok", description: "A benchmark tool. Input: {\"n\": number}.", readOnly: true, run };
}

const plan = (turns: number, callsPerTurn: number): Plan =>
  withDescription({
    turns: Array.from({ length: turns }, () => ({
      blocks: Array.from({ length: callsPerTurn }, () => ({ type: "call" as const, call: { tool: "fz_ok", input: "valid" as const } })),
      stop: "natural" as const,
    })),
  });

/** Runs a lesson's loop on a plan; returns wall ms and the model's own ms. */
async function timeRun(a: LessonAdapter, p: Plan, tools: FuzzTool[], options: ScriptedModelOptions = {}, extra: Record<string, unknown> = {}, eager = false) {
  const { llm, busyMs } = bench({ scenario: planScenario(p), ...options }, undefined, eager);
  const history: Anthropic.MessageParam[] = [{ role: "user", content: "Benchmark task." }];
  const t = performance.now();
  await a.run(llm, history, tools, { toolTimeoutMs: 60_000, guards: { maxTurns: 10_000, tokenBudget: 1e12, maxRepeats: 1e6 }, extra });
  return { ms: performance.now() - t, modelMs: busyMs(), history, llm };
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

const restore = output.write;
output.write = () => {};
const { adapters } = await presentAdapters();
const byN = (n: number) => adapters.find((a) => a.n === n);
const final = adapters[adapters.length - 1]!;
const parallelAgent = [...adapters].reverse().find((a) => a.n >= 3);

// ── parallel tools ──
let parallel: { parallel_over_one_tool: number; sequential_over_parallel: number | null } | null = null;
let parallelRaw: BenchFigures["parallel"] = null;
if (parallelAgent) {
  progress(`parallel tools: ${parallelAgent.lesson.id} vs s02`);
  const slow = [tool(async (_i, signal) => (await sleep(TOOL_MS, signal), "read"))];
  const runs = async (a: LessonAdapter, k: number) => {
    await timeRun(a, plan(1, k), slow); // warm up (module loading, JIT)
    const xs: number[] = [];
    for (let i = 0; i < 3; i++) xs.push((await timeRun(a, plan(1, k), slow)).ms);
    return median(xs);
  };
  const many = await runs(parallelAgent, K);
  const one = await runs(parallelAgent, 1);
  const s02 = byN(2);
  const seq = s02 ? await runs(s02, K) : null;
  parallel = { parallel_over_one_tool: round(many / one), sequential_over_parallel: seq === null ? null : round(seq / many) };
  parallelRaw = { agent: parallelAgent.lesson.id, k: K, tool_ms: TOOL_MS, many_ms: Math.round(many), one_ms: Math.round(one), seq_ms: seq === null ? null : Math.round(seq) };
}

// ── streaming ──
let streaming: { first_text_fraction: number } | null = null;
const streamAgent = [...adapters].reverse().find((a) => a.claims.streaming);
let streamRaw: BenchFigures["streaming"] = null;
if (streamAgent) {
  progress(`streaming: ${streamAgent.lesson.id}`);
  // One answer of 60 text chunks, 10 ms apart: the whole message takes about 0.6 s.
  const text = Array.from({ length: 60 }, (_, i) => `Word${i} and then some more text`).join(" ");
  const p: Plan = withDescription({ turns: [{ blocks: [{ type: "text", text }], stop: "natural" }] });
  let first = 0;
  const mark = () => {
    if (first === 0) first = performance.now();
  };
  const quietStdout = process.stdout.write.bind(process.stdout);
  process.stdout.write = ((chunk: string | Uint8Array, ...rest: unknown[]) => {
    if (String(chunk).includes("Word0")) mark();
    return values.json ? true : (quietStdout as (c: string | Uint8Array, ...r: unknown[]) => boolean)(chunk, ...rest);
  }) as typeof process.stdout.write;
  output.write = (line: string) => {
    if (line.includes("Word0")) mark();
  };
  const start = performance.now();
  try {
    await timeRun(streamAgent, p, [tool(async () => "ok")], { streamDelayMs: 10 }, { onText: mark, handlers: { onText: mark }, stream: { onText: mark } });
  } finally {
    process.stdout.write = quietStdout as typeof process.stdout.write;
    output.write = () => {};
  }
  const total = performance.now() - start;
  if (first > 0) {
    streaming = { first_text_fraction: round((first - start) / total, 3) };
    streamRaw = { agent: streamAgent.lesson.id, first_ms: Math.round(first - start), total_ms: Math.round(total) };
  } else streamRaw = { agent: streamAgent.lesson.id, no_text: true };
}

// ── loop overhead ──
progress(`loop overhead: ${final.lesson.id}`);
const noop = [tool(async () => "ok")];
const perTurn = async (turns: number) => {
  const xs: number[] = [];
  for (let i = 0; i < 5; i++) {
    const r = await timeRun(final, plan(turns, 1), noop, {}, {}, true);
    xs.push((r.ms - r.modelMs) / (turns + 1));
  }
  // The fastest of five: what the loop costs when the shared machine does not interrupt it.
  return Math.min(...xs);
};
await perTurn(10); // warm up
await perTurn(100);
const ms10 = await perTurn(10);
const ms100 = await perTurn(100);
const overhead = { ms_per_turn: round(ms10), ms_per_turn_100: round(ms100), growth_100_over_10: round(ms100 / ms10) };

// ── context growth ──
progress(`context growth: ${final.lesson.id}, 20 turns`);
const dir = mkdtempSync(join(tmpdir(), "course-bench-"));
writeFileSync(join(dir, "big.log"), Array.from({ length: 1_000 }, (_, i) => `line ${String(i).padStart(5, "0")}: ${"x".repeat(22)}`).join("\n"));
const reader = (max: number) => [tool(async () => readFile(dir, "big.log", max))];
const session = async (max: number, cache: boolean, extra: Record<string, unknown> = {}) => {
  let marked = false;
  const markLast = (body: Record<string, unknown>) => {
    const messages = body.messages as Anthropic.MessageParam[] | undefined;
    if (JSON.stringify(body).includes('"cache_control"')) return; // the agent marks it itself
    const last = messages?.[messages.length - 1];
    if (!last) return;
    if (typeof last.content === "string") last.content = [{ type: "text", text: last.content }];
    const block = last.content[last.content.length - 1] as { cache_control?: { type: "ephemeral" } } | undefined;
    if (!block) return;
    block.cache_control = { type: "ephemeral" };
    marked = true;
  };
  const { llm } = bench({ scenario: planScenario(plan(20, 1)) }, cache ? markLast : undefined);
  const history: Anthropic.MessageParam[] = [{ role: "user", content: "Benchmark task: read the log, twenty times." }];
  let stopped = "";
  try {
    // read_file takes longer than a fuzz tool's 40 ms limit on a busy machine: a read that timed out would be another session.
    // Context editing (s20 on) is off here: these figures are the read cap's and the cache's; what editing changes is measured on its own (part3.ts).
    const r = await final.run(llm, history, reader(max), { toolTimeoutMs: 60_000, guards: { maxTurns: 10_000, tokenBudget: 1e12, maxRepeats: 1e6 }, extra: { contextEditing: false, ...extra } });
    if (r.kind === "outcome" && r.status !== "done") stopped = `stopped: ${r.reason}`;
  } catch (e) {
    stopped = `failed: ${(e as Error).message.slice(0, 80)}`;
  }
  const usage = llm.scripted.responses.map((m) => m.usage);
  const input = usage.map((u) => u.input_tokens + (u.cache_creation_input_tokens ?? 0) + (u.cache_read_input_tokens ?? 0));
  const read = usage.reduce((n, u) => n + (u.cache_read_input_tokens ?? 0), 0);
  const total = input.reduce((a, b) => a + b, 0);
  // In units of the input price: what a turn costs at list prices.
  const cost = usage.reduce((n, u) => n + u.input_tokens + 1.25 * (u.cache_creation_input_tokens ?? 0) + 0.1 * (u.cache_read_input_tokens ?? 0) + 5 * u.output_tokens, 0);
  return { turns: input.length, total, last: input[input.length - 1] ?? 0, cacheShare: total > 0 ? read / total : 0, stopped, marked, cost };
};
const fileChars = readFileSync(join(dir, "big.log"), "utf8").length;
const uncapped = await session(Number.MAX_SAFE_INTEGER, false);
const capped = await session(READ_MAX_CHARS, false);
const cached = await session(READ_MAX_CHARS, true);
// The final agent's own breakpoints (s13+), against the same agent with them turned off.
// Seen in what it sends, not in its source: the bench found cache_control in every request already.
const marksItself = !cached.marked && cached.turns > 0;
const own = marksItself ? cached : null; // the agent marked its own breakpoints there (the bench added none)
const unmarked = marksItself ? await session(READ_MAX_CHARS, false, { cache: false }) : null;
const costFigure = own && unmarked && unmarked.cost > 0 ? { cached_over_uncached: round(own.cost / unmarked.cost, 3), cached_units: Math.round(own.cost), uncached_units: Math.round(unmarked.cost) } : null;
rmSync(dir, { recursive: true, force: true });
const context = {
  turns: capped.turns,
  tokens_total_uncapped: uncapped.total,
  tokens_total_capped: capped.total,
  tokens_last_turn_uncapped: uncapped.last,
  tokens_last_turn_capped: capped.last,
  cache_read_share: round(cached.cacheShare, 3),
};

// ── skills: the system prompt with 1 and with 50 skills (s16+) ──
let skillsFigure: { prompt_tokens_1: number; prompt_tokens_50: number; growth_per_skill: number } | null = null;
const skillsModule = join(ROOT, "solutions", "s16_skills", "skills.ts");
if (existsSync(skillsModule)) {
  progress(`skills: ${final.lesson.id}, 1 vs 50 skills`);
  const { loadSkills } = (await import(skillsModule)) as typeof import("../../solutions/s16_skills/skills.ts");
  const promptTokens = async (n: number) => {
    const dir = mkdtempSync(join(tmpdir(), "course-bench-skills-"));
    for (let i = 0; i < n; i++) {
      mkdirSync(join(dir, `skill-${i}`));
      // Each body is about 1 500 tokens of instructions, as real skills are.
      writeFileSync(join(dir, `skill-${i}`, "SKILL.md"), `---\nname: skill-${i}\ndescription: Does task number ${i} the way this team likes it.\n---\n\n${"Step by step instructions. ".repeat(230)}\n`);
    }
    const { llm } = bench({ scenario: planScenario(withDescription({ turns: [{ blocks: [{ type: "text", text: "ok" }], stop: "natural" }] })) });
    await final.run(llm, [{ role: "user", content: "Benchmark task." }], [tool(async () => "ok")], { extra: { skills: loadSkills(dir).skills } });
    rmSync(dir, { recursive: true, force: true });
    const system = (llm.scripted.exchanges[0]?.request as { system?: string | Array<{ text: string }> } | undefined)?.system;
    const text = typeof system === "string" ? system : (system ?? []).map((b) => b.text).join("\n");
    // Seen in what it sends: an agent that takes skills lists them in its system prompt.
    return text.includes(`skill-${n - 1}`) ? estimateTokens(text) : null;
  };
  const one = await promptTokens(1);
  const fifty = one === null ? null : await promptTokens(50);
  if (one !== null && fifty !== null) skillsFigure = { prompt_tokens_1: one, prompt_tokens_50: fifty, growth_per_skill: round((fifty - one) / 49, 1) };
}

// ── learner's cycle ──
const noFigures: CheckFigures = { check_s: null, check_types_changed_s: null, typecheck_s: null, typecheck_warm_s: null, typecheck_cached_s: null, typecheck_native_s: null, watch_recheck_s: null };
const cycle: CheckFigures = values["skip-cycle"] ? noFigures : await checkFigures();

// ── learner's cycle: npm test ──
// Wall time of `npm test` (the learner's suite) alone, then of two run side by side (a second
// learner, or CI, on the same machine): both must pass; the ratio says what sharing costs.
let testCycle: { test_s: number | null; test_ok: boolean | null; test_beside_s: number | null; test_beside_ok: boolean | null; load_1m: number } = {
  test_s: null,
  test_ok: null,
  test_beside_s: null,
  test_beside_ok: null,
  load_1m: round(loadavg()[0] ?? 0, 2),
};
if (!values["skip-cycle"]) {
  const npmTest = () =>
    new Promise<boolean>((resolve) => {
      const child = spawn("npm", ["test", "--silent"], { cwd: ROOT, stdio: "ignore", env: { ...process.env, CI: "1" } });
      child.on("close", (code) => resolve(code === 0));
      child.on("error", () => resolve(false));
    });
  progress("learner's cycle: npm test (the learner's suite)");
  let t = performance.now();
  const test_ok = await npmTest();
  const test_s = round((performance.now() - t) / 1000, 1);
  progress("learner's cycle: two npm test side by side");
  t = performance.now();
  const both = await Promise.all([npmTest(), npmTest()]);
  const test_beside_s = round((performance.now() - t) / 1000, 1);
  testCycle = { ...testCycle, test_s, test_ok, test_beside_s, test_beside_ok: both.every(Boolean) };
}
output.write = restore;

// ── the eval: the final agent over the task suite, offline (scripts/eval/figures.ts) ──
const evalFigures = await measureEvalFigures(progress);

// ── Part III: what context editing saves (s20), what a hook costs per call (s19): scripts/bench/part3.ts ──
const contextEditing = await measureContextEditing(progress);
const hookCost = await measureHookCost(progress);

const summary = {
  parallel_tools: parallel,
  streaming,
  loop_overhead: overhead,
  learner_cycle: { ...cycle, ...testCycle },
  context,
  cost: costFigure,
  skills: skillsFigure,
  eval: evalSummary(evalFigures),
  context_editing: contextEditingSummary(contextEditing),
  hook_cost: hookCostSummary(hookCost),
};

// ── report ── (report.ts draws it, in each page's language, from these figures)
const figures: BenchFigures = {
  date: new Date().toISOString().slice(0, 10),
  lessons: adapters.map((a) => a.lesson.id),
  final: final.lesson.id,
  cores: cpus().length,
  load: round(loadavg()[0] ?? 0, 2),
  parallel: parallelRaw,
  streaming: streamRaw,
  context: {
    file_chars: fileChars,
    read_cap: READ_MAX_CHARS,
    uncapped: { turns: uncapped.turns, total: uncapped.total, last: uncapped.last },
    capped: { turns: capped.turns, total: capped.total, last: capped.last },
    cached: { turns: cached.turns, total: cached.total, last: cached.last },
    bench_marked: cached.marked,
    stopped: [uncapped, capped, cached, own, unmarked].flatMap((r) => (r?.stopped ? [r.stopped] : [])),
  },
  summary,
};
if (!values.json) for (const line of [...renderBench(figures, "en"), ...renderHookCost(hookCost, "en"), ...renderContextEditing(contextEditing, "en")]) console.log(line);
if (values["update-docs"]) {
  for (const [rel, lang] of SITE_LANGS.map((l) => [`docs/${langDir(l)}guide/benchmarks.md`, l] as const)) {
    const page = join(ROOT, rel);
    if (!existsSync(page)) continue;
    const text = readFileSync(page, "utf8");
    const next = replaceBlock(text, benchBlock(figures, lang), "bench");
    if (next !== text) writeFileSync(page, next);
  }
  writeEvalBlocks(evalFigures);
  writePart3Blocks(contextEditing, hookCost);
}
if (values.json) console.log(JSON.stringify(summary));
