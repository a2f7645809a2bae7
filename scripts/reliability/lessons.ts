/**
 * Which lessons exist, what each one CLAIMS, and how to call its loop.
 *
 * The lessons come from the manifest (runtime/manifest.ts); a lesson is used when its reference
 * solution is on disk. Each lesson number has a small adapter: how to give the loop its tools and
 * call it (s01 `agentLoop(llm, history)` with bash only; s02–s04 `agentLoop(llm, history,
 * registry)`; s05+ `runAgent(llm, history, opts)` → Outcome). The claims say what a lesson
 * promises, so every property is checked only where the lesson says it holds:
 *
 *   s01  answers every tool_use (even an unknown name: it runs bash for every call), returns on
 *        any stop_reason but tool_use. It does NOT claim: tool throws, hangs, a cut-off tool_use
 *        (max_tokens with a call), empty content (it stores an empty assistant turn).
 *   s02+ unknown tools answered with is_error.
 *   s04+ throws, schema-breaking input and hangs (timeout) become is_error results.
 *   s05+ every stop_reason: returns an Outcome, never runs a cut-off call, no empty turn stored.
 *   s06+ guards (repeated calls, turns, budget) stop with a sendable transcript.
 */
import { existsSync, readFileSync, readdirSync } from "node:fs";
import { dirname, join } from "node:path";
import { pathToFileURL } from "node:url";
import type Anthropic from "@anthropic-ai/sdk";
import type { Llm } from "../../runtime/client.ts";
import { LESSONS, type Lesson } from "../../runtime/manifest.ts";
import { ROOT } from "../../runtime/testing.ts";
import { binaryOutput, HUGE_BASH_COMMAND, HUGE_OUTPUT_CHARS, HUGE_RESULTS_WITHIN_WINDOW, TOOL_NAMES, type PlanSpace, type ToolKind } from "./plan.ts";

export interface Claims {
  unknownToolIsError: boolean;
  toolThrows: boolean;
  badInputIsError: boolean;
  toolHangs: boolean;
  /** Every stop_reason handled: typed outcome, a cut-off tool_use never run, empty content not stored. */
  stopReasons: boolean;
  outcome: boolean;
  /** Takes an AbortSignal (user abort). */
  signal: boolean;
  streaming: boolean;
  /** Replaces old turns with a summary when the context is full (s11+): the task survives, quoted. */
  compacts: boolean;
}

/** What a run of a loop returned. */
export type LoopResult =
  | { kind: "message"; message: Anthropic.Message }
  | { kind: "outcome"; status: string; reason?: string; detail?: string };

export interface RunOptions {
  signal?: AbortSignal;
  /** Overall wall-clock guard, for lessons with guards (s06+). */
  timeoutMs?: number;
  /** Other guard settings (s06+), e.g. { maxTurns: 1000 } for long benchmark sessions. */
  guards?: Record<string, number>;
  /** Each tool's time limit in lessons that enforce one (s04+); default FUZZ_TOOL_TIMEOUT_MS. */
  toolTimeoutMs?: number;
  /** More options passed to runAgent as they are (streaming callbacks, …). */
  extra?: Record<string, unknown>;
}

/** A generated tool: neutral, turned into each lesson's own tool type by its adapter. */
export interface FuzzTool {
  name: string;
  description: string;
  readOnly: boolean;
  /** Resolves or rejects; `hang` only settles when the signal aborts. */
  run(input: Record<string, unknown>, signal?: AbortSignal): Promise<string>;
}

export interface LessonAdapter {
  lesson: Lesson;
  n: number;
  claims: Claims;
  space: PlanSpace;
  /** Runs the loop once; throws whatever the loop throws. */
  run(llm: Llm, history: Anthropic.MessageParam[], tools: FuzzTool[], opts?: RunOptions): Promise<LoopResult>;
}

export const S01_COMMANDS = [
  "echo hello",
  "true",
  "false",
  "echo oops >&2; exit 3",
  HUGE_BASH_COMMAND,
  // Bytes that are not UTF-8, the same each run (the differential net plays a plan to two loops).
  "head -c 300 /dev/zero | tr '\\0' '\\377'",
];

export function claimsFor(n: number): Claims {
  return {
    unknownToolIsError: n >= 2,
    toolThrows: n >= 4,
    badInputIsError: n >= 4,
    toolHangs: n >= 4,
    stopReasons: n >= 5,
    outcome: n >= 5,
    signal: n >= 6,
    streaming: n >= 8,
    compacts: n >= 11,
  };
}

export function spaceFor(n: number, claims: Claims): PlanSpace {
  const kinds: ToolKind[] = ["ok", "write", "huge", "binary", "empty"];
  if (claims.toolThrows) kinds.push("throw");
  if (claims.toolHangs) kinds.push("hang");
  return {
    toolKinds: kinds,
    ...(n === 1 ? { bashCommands: S01_COMMANDS } : {}),
    unknownTools: true,
    badInputs: true,
    oddStopsWithCalls: claims.stopReasons,
    oddStops: true,
    emptyContent: claims.stopReasons,
    maxTurns: 4,
    maxCalls: 4,
    // A lesson that does not compact (before s11) does not claim a full context: its plans stay
    // within the window. One that compacts is fuzzed past it, and must compact and go on.
    ...(claims.compacts ? {} : { maxHugeResults: HUGE_RESULTS_WITHIN_WINDOW }),
  };
}

/** A per-call timeout the fuzzer gives tools in lessons that enforce one (s04+), so hangs end fast. */
export const FUZZ_TOOL_TIMEOUT_MS = 40;

/** A call that ran: its number, whether its tool is read-only, and whether it has ended yet. */
export interface Ran {
  n: number;
  readOnly: boolean;
  /** False while the tool still runs. */
  ended: boolean;
  /** What the tool returned, or the message it threw (once it has ended). */
  output?: string;
}

/** The generated tools, recording which calls (by their `n`) actually ran, and when they ended. */
export function fuzzTools(kinds: ToolKind[], ran: Ran[]): FuzzTool[] {
  const make = (kind: ToolKind, run: FuzzTool["run"]): FuzzTool => ({
    name: TOOL_NAMES[kind],
    description: `A generated tool (${kind}). Input: {"n": number}.`,
    readOnly: kind !== "write",
    run: (input, signal) => {
      if (typeof input.n !== "number") return run(input, signal);
      const entry: Ran = { n: input.n, readOnly: kind !== "write", ended: false };
      ran.push(entry);
      const result = run(input, signal);
      result.then(
        (output) => Object.assign(entry, { ended: true, output }),
        (e: unknown) => Object.assign(entry, { ended: true, output: e instanceof Error ? e.message : String(e) }),
      );
      return result;
    },
  });
  const all: Record<ToolKind, FuzzTool> = {
    ok: make("ok", async (i) => `ok ${String(i.n)}`),
    write: make("write", async (i) => `wrote ${String(i.n)}`),
    throw: make("throw", async (i) => {
      throw new Error(`generated failure in call ${String(i.n)}`);
    }),
    hang: make(
      "hang",
      (_i, signal) =>
        new Promise<string>((_, reject) => {
          signal?.addEventListener("abort", () => reject(new Error("aborted")), { once: true });
        }),
    ),
    huge: make("huge", async () => "x".repeat(HUGE_OUTPUT_CHARS)),
    binary: make("binary", async () => binaryOutput()),
    empty: make("empty", async () => ""),
  };
  return kinds.map((k) => all[k]);
}

// ── Adapters ────────────────────────────────────────────────────────────────────────────────

type Mod = Record<string, unknown>;
type Fn = (...args: unknown[]) => unknown;

/** Loads a lesson's module: `loader(dir, file)`, or null when the file is not there. */
export type ModuleLoader = (dir: string, file: string) => Promise<Mod | null>;

/** The reference solution's module (the default loader). */
export async function importSolution(dir: string, file: string): Promise<Mod | null> {
  const path = join(ROOT, "solutions", dir, file);
  if (!existsSync(path)) return null;
  return (await import(pathToFileURL(path).href)) as Mod;
}

/**
 * The lessons to test: the manifest's, plus any folder under solutions/ whose manifest entry is
 * not written yet (lessons land one by one; they are picked up as soon as their solution exists).
 */
export function discoverLessons(): Lesson[] {
  const listed = [...LESSONS];
  const dirs = existsSync(join(ROOT, "solutions")) ? readdirSync(join(ROOT, "solutions")) : [];
  for (const dir of dirs) {
    const id = /^(s\d\d)_/.exec(dir)?.[1];
    if (!id || listed.some((l) => l.id === id)) continue;
    listed.push({ id, dir, title: dir, idea: "", entry: "agent.ts", hints: ["", ""] });
  }
  return listed.sort((a, b) => a.id.localeCompare(b.id));
}

export function lessonDir(n: number): string | undefined {
  return discoverLessons().find((l) => Number(l.id.slice(1)) === n)?.dir;
}

/** A JSON schema for {"n": number}, strict, for lessons whose tools carry a plain input_schema. */
const N_SCHEMA = {
  type: "object" as const,
  properties: { n: { type: "number", description: "which call this is" } },
  required: ["n"],
  additionalProperties: false,
};

/**
 * Builds the registry a lesson's loop takes, from the lesson's own modules: s04+ defineTool (zod
 * input, timeout) when present, else s02's plain ToolSpec; the registry class of the latest lesson
 * that exports one.
 */
async function registryFor(n: number, tools: FuzzTool[], timeoutMs = FUZZ_TOOL_TIMEOUT_MS, load: ModuleLoader = importSolution): Promise<unknown> {
  const s02 = lessonDir(2);
  const reg = s02 ? await load(s02, "registry.ts") : null;
  if (!reg || typeof reg.ToolRegistry !== "function") throw new Error("solutions/s02_tool_dispatch/registry.ts has no ToolRegistry");
  let Registry = reg.ToolRegistry as new (tools: unknown[]) => unknown;
  let specs: unknown[] = tools.map((t) => ({
    name: t.name,
    description: t.description,
    input_schema: N_SCHEMA,
    readOnly: t.readOnly,
    run: (input: Record<string, unknown>, ctx?: { signal?: AbortSignal }) => t.run(input, ctx?.signal),
  }));
  const s04 = n >= 4 ? lessonDir(4) : undefined;
  const def = s04 ? await load(s04, "define-tool.ts") : null;
  if (def && typeof def.defineTool === "function") {
    const { z } = await import("zod");
    const defineTool = def.defineTool as Fn;
    specs = tools.map((t) =>
      defineTool({
        name: t.name,
        description: t.description,
        input: z.object({ n: z.number() }).strict(),
        readOnly: t.readOnly,
        timeoutMs,
        run: (input: Record<string, unknown>, ctx?: { signal?: AbortSignal }) => t.run(input, ctx?.signal),
      }),
    );
    for (const name of ["SafeToolRegistry", "SafeRegistry", "ToolRegistry"])
      if (typeof def[name] === "function") {
        Registry = def[name] as typeof Registry;
        break;
      }
  }
  return new Registry(specs);
}

/**
 * The source of a lesson's loop: the entry file, and, followed from there, every module under
 * solutions/ it imports or re-exports `runAgent` / `agentLoop` from (`import { runAgent as
 * recoveringLoop } from "../s11_recovery/agent.ts"` counts).
 */
export function loopSource(file: string, seen = new Set<string>()): string {
  if (seen.has(file) || !existsSync(file)) return "";
  seen.add(file);
  const source = readFileSync(file, "utf8");
  let all = source;
  for (const m of source.matchAll(/\b(?:import|export)\s*\{([^}]*)\}\s*from\s*["'](\.{1,2}\/[^"']+)["']/g)) {
    const names = m[1]!.split(",").map((n) => n.trim().split(/\s+/)[0]);
    // The loop may come through a program's own runner (s28 → s27's program.ts → team.ts's teamRun → s22's loop).
    if (names.some((n) => n === "runAgent" || n === "agentLoop" || /^[a-z]\w*(Run|Loop)$/.test(n ?? ""))) all += "\n" + loopSource(join(dirname(file), m[2]!), seen);
  }
  return all;
}

/** For a lesson whose loop ends by asking an evaluator for a verdict (its verdict.ts), an Llm that answers "done". */
async function approvingEvaluator(dir: string, load: ModuleLoader): Promise<Llm | null> {
  const verdict = await load(dir, "verdict.ts").catch(() => null);
  const tool = (verdict?.VERDICT_TOOL as { name?: unknown } | undefined)?.name;
  if (typeof tool !== "string") return null;
  const message: Anthropic.Message = {
    id: "msg_evaluator",
    type: "message",
    role: "assistant",
    model: "scripted-evaluator",
    content: [{ type: "tool_use", id: "toolu_verdict", name: tool, input: { done: true, missing: "" } }],
    stop_reason: "tool_use",
    stop_sequence: null,
    usage: { input_tokens: 1, output_tokens: 1, cache_creation_input_tokens: 0, cache_read_input_tokens: 0, server_tool_use: null, service_tier: null },
  } as Anthropic.Message;
  return { model: "scripted-evaluator", client: { messages: { create: async () => message } } as unknown as Anthropic };
}

/**
 * The adapter of one lesson. `load` gives its modules: the reference solutions by default; the
 * differential net (tests/differential/net.ts) passes one that reads the graded lesson's own
 * files and the reference for earlier lessons, as a learner's files import them.
 */
export async function adapterFor(lesson: Lesson, load: ModuleLoader = importSolution): Promise<LessonAdapter | null> {
  const n = Number(lesson.id.slice(1));
  const mod = await load(lesson.dir, lesson.entry);
  if (!mod) return null;
  // What the loop does is read from its source where the lesson number cannot tell: a lesson
  // may be built on an earlier loop than the one before it, and may import its loop whole (s10
  // runs s09's, s12 runs s11's): the source read is the entry's plus that of the loop it imports.
  const source = loopSource(join(ROOT, "solutions", lesson.dir, lesson.entry));
  const claims = {
    ...claimsFor(n),
    streaming: /messages\.stream\(|streamTurn\(/.test(source),
    signal: n >= 6 && /\bsignal\b/.test(source),
    compacts: /\bcompact(InPlace)?\(/.test(source),
  };
  const space = spaceFor(n, claims);
  if (n === 1) {
    const agentLoop = mod.agentLoop as (llm: Llm, h: Anthropic.MessageParam[]) => Promise<Anthropic.Message>;
    return {
      lesson,
      n,
      claims,
      space,
      run: async (llm, history) => ({ kind: "message", message: await agentLoop(llm, history) }),
    };
  }
  if (typeof mod.runAgent === "function") {
    const runAgent = mod.runAgent as (llm: Llm, h: Anthropic.MessageParam[], opts: Record<string, unknown>) => Promise<unknown>;
    // A goal loop (s27) asks an evaluator after the worker's loop: the harness judges the worker's
    // loop, so its evaluator is one that always finds the goal met (a fault is the worker's to meet).
    const judged = await approvingEvaluator(lesson.dir, load);
    return {
      lesson,
      n,
      claims: { ...claims, outcome: true },
      space,
      run: async (llm, history, tools, opts = {}) => {
        const registry = await registryFor(n, tools, opts.toolTimeoutMs, load);
        const guards = { ...(opts.timeoutMs ? { timeoutMs: opts.timeoutMs } : {}), ...opts.guards };
        const out = (await runAgent(llm, history, {
          ...(judged ? { evaluator: judged } : {}),
          ...opts.extra,
          registry,
          ...(opts.signal ? { signal: opts.signal } : {}),
          ...(Object.keys(guards).length > 0 ? { guards } : {}),
        })) as { status?: unknown; reason?: unknown; detail?: unknown };
        return {
          kind: "outcome",
          status: String(out?.status),
          ...(typeof out?.reason === "string" ? { reason: out.reason } : {}),
          ...(typeof out?.detail === "string" ? { detail: out.detail } : {}),
        };
      },
    };
  }
  if (typeof mod.agentLoop === "function") {
    const agentLoop = mod.agentLoop as (llm: Llm, h: Anthropic.MessageParam[], registry: unknown) => Promise<Anthropic.Message>;
    return {
      lesson,
      n,
      claims,
      space,
      run: async (llm, history, tools, opts = {}) => ({
        kind: "message",
        message: await agentLoop(llm, history, await registryFor(n, tools, opts.toolTimeoutMs, load)),
      }),
    };
  }
  return null;
}

/** Every lesson of the manifest whose solution is present and has a known loop shape. */
export async function presentAdapters(): Promise<{ adapters: LessonAdapter[]; missing: Array<{ lesson: Lesson; why: string }> }> {
  const adapters: LessonAdapter[] = [];
  const missing: Array<{ lesson: Lesson; why: string }> = [];
  for (const l of discoverLessons()) {
    try {
      const a = await adapterFor(l);
      if (a) adapters.push(a);
      else missing.push({ lesson: l, why: "not present (or no agentLoop/runAgent export)" });
    } catch (e) {
      missing.push({ lesson: l, why: `cannot be loaded: ${(e as Error).message.split("\n")[0]}` });
    }
  }
  return { adapters, missing };
}
