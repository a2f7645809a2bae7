/**
 * Part III's figures for `npm run bench` (drawn by part3-report.ts), offline, on the scripted model:
 *
 *   context editing  s20's loop over one long session (each turn reads the same large file through
 *                    read_file's cap), with context editing off and at each budget: input tokens
 *                    of the last request and of all of them, cache reads and writes (s13's own
 *                    breakpoints, on in every run), and the session priced by the course's price
 *                    table (s09) in units of the input price. A clearing changes messages the cache
 *                    holds, so the prefix is written again from there: the writes say what that costs.
 *   hook cost        s19's loop over sessions of one tool call a turn, with no hook, one PreToolUse
 *                    hook, and PreToolUse + PostToolUse, each with the sandbox (bubblewrap) and
 *                    without (COURSE_SANDBOX=off): the loop's time per call (from an answer read
 *                    whole to the next request sent, model time left out), the median over every
 *                    call of a row. The rows take turns, a few calls each, so the machine's load
 *                    falls on all of them alike.
 *
 * Each returns figures even when its lesson is not in the course yet (agent: null, drawn as n/a).
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type Anthropic from "@anthropic-ai/sdk";
import { SCRIPTED_MODEL_ID, scriptedLlm, type Llm } from "../../runtime/client.ts";
import { output } from "../../runtime/print.ts";
import { sandboxInfo } from "../../runtime/tools/sandbox.ts";
import { readFile, READ_MAX_CHARS } from "../../runtime/tools/files.ts";
import { adapterFor, discoverLessons, type FuzzTool, type LessonAdapter } from "../reliability/lessons.ts";
import { planScenario, withDescription, type Plan } from "../reliability/plan.ts";
import type { ContextEditingFigures, ContextRun, HookCostFigures, HookRow, HookSet } from "./part3-report.ts";

const GUARDS = { maxTurns: 10_000, tokenBudget: 1e12, maxRepeats: 1e6 };
const today = () => new Date().toISOString().slice(0, 10);
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? 0;
const round = (x: number, d = 2) => Math.round(x * 10 ** d) / 10 ** d;

/** The adapter of lesson `n` when its solution is present (null: not in the course yet). */
async function adapterOf(n: number): Promise<LessonAdapter | null> {
  const lesson = discoverLessons().find((l) => Number(l.id.slice(1)) === n);
  return lesson ? adapterFor(lesson).catch(() => null) : null;
}

/** `calls` turns of one call each to `tool`, then a final answer. */
const oneCallATurn = (calls: number, tool: string): Plan =>
  withDescription({ turns: Array.from({ length: calls }, () => ({ blocks: [{ type: "call" as const, call: { tool, input: "valid" as const } }], stop: "natural" as const })) });

/**
 * The scripted model on `plan`, its answers read whole as they come (producing them is the
 * model's time): `marks` has, per request, when it was sent and when its answer was in.
 */
function timedModel(plan: Plan) {
  const llm = scriptedLlm({ maxRequests: 10_000, scenario: planScenario(plan) }, { maxRetries: 0 });
  const marks: Array<{ sent: number; answered: number }> = [];
  const fetch = async (input: string | URL | Request, init?: RequestInit): Promise<Response> => {
    const sent = performance.now();
    const response = await llm.scripted.fetch(input, init);
    const bytes = new Uint8Array(await response.arrayBuffer());
    marks.push({ sent, answered: performance.now() });
    return new Response(bytes, { status: response.status, headers: response.headers });
  };
  const timed: Llm & { scripted: typeof llm.scripted } = { client: llm.client.withOptions({ fetch }), model: SCRIPTED_MODEL_ID, scripted: llm.scripted };
  return { llm: timed, marks };
}

/** While `f` runs, the lessons print nothing (the bench prints its own lines). */
async function quietly<T>(f: () => Promise<T>): Promise<T> {
  const restore = output.write;
  output.write = () => {};
  try {
    return await f();
  } finally {
    output.write = restore;
  }
}

const approveAll = async () => ({ approved: true as const });

// ── context editing (s20) ──

export interface ContextEditingOptions {
  /** Turns of the session, one read each (default 30: the session without editing stays under the context window). */
  turns?: number;
  /** The budgets to measure (default: a smaller one, 40 000, and s20's DEFAULT_POLICY, same keep). */
  budgets?: Array<{ budget: number; keep: number }>;
}

/** The large file every turn reads: 1 000 lines of 35 characters, cut to read_file's cap. */
const BIG_FILE = Array.from({ length: 1_000 }, (_, i) => `line ${String(i).padStart(5, "0")}: ${"x".repeat(22)}`).join("\n");

export async function measureContextEditing(progress: (s: string) => void = () => {}, opts: ContextEditingOptions = {}): Promise<ContextEditingFigures> {
  const turns = opts.turns ?? 30;
  const base = { date: today(), turns, file_chars: BIG_FILE.length, read_cap: READ_MAX_CHARS, stopped: [] as string[] };
  const a = await adapterOf(20);
  if (!a) return { ...base, agent: null, prices: { model: "", cache_write: 0, cache_read: 0, output: 0 }, runs: [] };
  const context = (await import("../../solutions/s20_memory/context.ts")) as typeof import("../../solutions/s20_memory/context.ts");
  const { priceFor } = (await import("../../solutions/s09_observability/usage.ts")) as typeof import("../../solutions/s09_observability/usage.ts");
  const priced = priceFor(SCRIPTED_MODEL_ID)!;
  const p = priced.price;
  const units = { cache_write: round(p.cacheWrite / p.input, 3), cache_read: round(p.cacheRead / p.input, 3), output: round(p.output / p.input, 3) };
  const budgets = opts.budgets ?? [{ ...context.DEFAULT_POLICY, budget: 40_000 }, context.DEFAULT_POLICY];
  const dir = mkdtempSync(join(tmpdir(), "course-bench-context-"));
  writeFileSync(join(dir, "big.log"), BIG_FILE);
  const reader: FuzzTool = { name: "fz_ok", description: "A benchmark tool: reads the log. Input: {\"n\": number}.", readOnly: true, run: async () => readFile(dir, "big.log", READ_MAX_CHARS) };
  const stopped: string[] = [];
  const session = async (policy: { budget: number; keep: number } | null): Promise<ContextRun> => {
    progress(`context editing: ${a.lesson.id}, ${turns} turns, ${policy ? `budget ${policy.budget}` : "off"}`);
    const which = policy ? `(budget ${policy.budget})` : "(off)";
    const { llm } = timedModel(oneCallATurn(turns, reader.name));
    const editor = new context.ContextEditor(policy ?? context.DEFAULT_POLICY);
    const history: Anthropic.MessageParam[] = [{ role: "user", content: "Benchmark task: read the log, once a turn." }];
    const extra = { root: dir, userConfigDir: join(dir, ".no-user-config"), approve: approveAll, hooks: [], onHookProblem: () => {}, instructions: [], memory: false, ...(policy ? { contextEditing: policy, contextEditor: editor } : { contextEditing: false }) };
    try {
      const r = await quietly(() => a.run(llm, history, [reader], { guards: GUARDS, toolTimeoutMs: 60_000, extra }));
      if (r.kind === "outcome" && r.status !== "done") stopped.push(`${which} stopped: ${r.reason ?? r.status}`);
    } catch (e) {
      stopped.push(`${which} failed: ${(e as Error).message.slice(0, 120)}`);
    }
    // Every turn read the file in full (a result that failed would make the session another one).
    const failed = history.flatMap((m) => (m.role === "user" && typeof m.content !== "string" ? m.content.filter((b) => b.type === "tool_result" && b.is_error) : []));
    if (failed.length > 0) stopped.push(`${which} had ${failed.length} failed read(s)`);
    const usage = llm.scripted.responses.map((m) => m.usage);
    const inputOf = (u: Anthropic.Usage) => u.input_tokens + (u.cache_creation_input_tokens ?? 0) + (u.cache_read_input_tokens ?? 0);
    const sum = (f: (u: Anthropic.Usage) => number) => usage.reduce((n, u) => n + f(u), 0);
    const fresh = sum((u) => u.input_tokens);
    const cache_read = sum((u) => u.cache_read_input_tokens ?? 0);
    const cache_write = sum((u) => u.cache_creation_input_tokens ?? 0);
    const out = sum((u) => u.output_tokens);
    return {
      policy,
      requests: usage.length,
      last: usage.length ? inputOf(usage[usage.length - 1]!) : 0,
      total: sum(inputOf),
      cache_read,
      cache_write,
      output: out,
      cost: round(fresh + units.cache_write * cache_write + units.cache_read * cache_read + units.output * out, 1),
      cleared: policy ? editor.stats.results : 0,
      rewrites: policy ? editor.stats.rewrites : 0,
    };
  };
  try {
    const runs = [await session(null)];
    for (const b of budgets) runs.push(await session(b));
    return { ...base, agent: a.lesson.id, prices: { model: priced.as, ...units }, runs, stopped };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

// ── hook cost (s19) ──

export interface HookCostOptions {
  /** Calls per row, split over `rounds` sessions (default 30 over 3). */
  calls?: number;
  rounds?: number;
}

/** Each hook's command: it reads its event and says nothing (the smallest hook that does its job). */
export const HOOK_COMMAND = "cat >/dev/null";

/** A tool-name matcher that counts the calls it is asked about: each one a hook of that event ran for. */
class CountingMatcher extends RegExp {
  asked = 0;
  override test(s: string): boolean {
    this.asked++;
    return super.test(s);
  }
}

export async function measureHookCost(progress: (s: string) => void = () => {}, opts: HookCostOptions = {}): Promise<HookCostFigures> {
  const rounds = opts.rounds ?? 3;
  const perSession = Math.max(1, Math.round((opts.calls ?? 30) / rounds));
  const calls = perSession * rounds;
  const a = await adapterOf(19);
  const env = { ...process.env };
  delete env.COURSE_SANDBOX;
  const probe = sandboxInfo(env);
  const noSandboxWhy = probe.kind === "bubblewrap" ? null : (probe.why ?? "no sandbox");
  const base = { date: today(), calls, hook: HOOK_COMMAND, no_sandbox_why: noSandboxWhy };
  if (!a) return { ...base, agent: null, rows: [], problems: [] };
  const sandboxes: Array<HookRow["sandbox"]> = noSandboxWhy === null ? ["bubblewrap", "none"] : ["none"];
  const cells = sandboxes.flatMap((sandbox) => (["none", "pre", "pre_post"] as const).map((hooks) => ({ sandbox, hooks, ms: [] as number[] })));
  const problems = new Set<string>();
  const dir = mkdtempSync(join(tmpdir(), "course-bench-hooks-"));
  const tool: FuzzTool = { name: "fz_ok", description: "A benchmark tool. Input: {\"n\": number}.", readOnly: true, run: async () => "ok" };
  const setting = process.env.COURSE_SANDBOX;
  /** One session of `n` calls: the loop's ms per call (each an answer read whole to the next request). */
  const session = async (hooks: HookSet, sandbox: HookRow["sandbox"], n: number): Promise<number[]> => {
    if (sandbox === "none") process.env.COURSE_SANDBOX = "off";
    else delete process.env.COURSE_SANDBOX;
    const events = hooks === "none" ? [] : hooks === "pre" ? (["PreToolUse"] as const) : (["PreToolUse", "PostToolUse"] as const);
    const list = events.map((event) => ({ event, command: HOOK_COMMAND, matcher: new CountingMatcher(`^${tool.name}$`), timeoutMs: 30_000, source: "the bench" }));
    const { llm, marks } = timedModel(oneCallATurn(n, tool.name));
    const history: Anthropic.MessageParam[] = [{ role: "user", content: "Benchmark task." }];
    const extra = { root: dir, userConfigDir: join(dir, ".no-user-config"), approve: approveAll, hooks: list, onHookProblem: (p: { problem: string }) => problems.add(`${p.problem} (${sandbox})`) };
    const r = await quietly(() => a.run(llm, history, [tool], { guards: GUARDS, toolTimeoutMs: 60_000, extra }));
    if (r.kind === "outcome" && r.status !== "done") problems.add(`the session stopped: ${r.reason ?? r.status}`);
    // Every hook ran once per call, or the row would not measure what it says.
    for (const h of list) if (h.matcher.asked !== n) problems.add(`${h.event} ran for ${h.matcher.asked} of ${n} calls (${sandbox})`);
    // Request i answered one call; request i + 1 was sent once it and its hooks were done.
    return marks.slice(0, n).map((m, i) => (marks[i + 1] ? marks[i + 1]!.sent - m.answered : NaN)).filter((x) => Number.isFinite(x));
  };
  try {
    progress(`hook cost: ${a.lesson.id}, warming up`);
    for (const c of cells) await session(c.hooks, c.sandbox, 2);
    for (let r = 0; r < rounds; r++) {
      progress(`hook cost: ${a.lesson.id}, round ${r + 1} of ${rounds} (${cells.length} rows, ${perSession} calls each)`);
      for (const c of cells) c.ms.push(...(await session(c.hooks, c.sandbox, perSession)));
    }
  } finally {
    if (setting === undefined) delete process.env.COURSE_SANDBOX;
    else process.env.COURSE_SANDBOX = setting;
    rmSync(dir, { recursive: true, force: true });
  }
  return { ...base, agent: a.lesson.id, rows: cells.map((c) => ({ hooks: c.hooks, sandbox: c.sandbox, ms: round(median(c.ms)), samples: c.ms.length })), problems: [...problems] };
}
