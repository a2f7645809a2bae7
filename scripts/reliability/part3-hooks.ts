/**
 * Part III, 1: hooks that misbehave (s19). Each hook behaviour runs at each hook event, through
 * s19's real loop (runAgent, its hooks read from the workspace's .agent/settings.json and run by
 * its sandboxed runner), in every sandbox mode. A cell passes when:
 *
 *   goes on     the run ends as s19 says: a broken hook changes nothing (the call runs, the run
 *               ends done, no Stop note); a hook that blocks (exit 2) denies the call (an is_error
 *               result with its reason, cut to HOOK_MAX_OUTPUT) or sends the model back at most
 *               maxStopRounds times; the loop never throws
 *   transcript  every tool_use answered, the history sendable again (the scripted model checks it)
 *   reported    a broken hook is told to the user, in one line naming the event and what went
 *               wrong, no stack trace; a Stop hook still objecting after the last round is told too
 *   no process  nothing the hook started is alive after the run (found by a token in its command line)
 */
import type Anthropic from "@anthropic-ai/sdk";
import type { Llm } from "../../runtime/client.ts";
import { call, say, text } from "../../runtime/scripted/scenarios/script.ts";
import type { Scenario } from "../../runtime/scripted/types.ts";
import { scripted, transcriptProblems } from "../../runtime/testing.ts";
import { capturing, errorLine, inMode, newToken, p3Modes, GRACE_MS, pool, scratch, solution, type P3Mode } from "./part3-common.ts";
import { aliveAfter } from "../../runtime/processes.ts";

type Agent = typeof import("../../solutions/s19_hooks/agent.ts");
type HooksModule = typeof import("../../solutions/s19_hooks/hooks.ts");
type Options = NonNullable<Parameters<Agent["runAgent"]>[2]>;

export const HOOK_EVENTS = ["PreToolUse", "PostToolUse", "UserPromptSubmit", "Stop"] as const;
export type HookEventName = (typeof HOOK_EVENTS)[number];

/** How a hook misbehaves: its command (with a token to find what it started), and what s19 does with it. */
export interface HookBehaviour {
  id: string;
  what: string;
  command: (token: string) => string;
  /** Seconds (the hook's own "timeout"). */
  timeout?: number;
  /** "broken": reported, ignored. "blocks": exit 2, a valid answer. "silent": exit 0, nothing to say. */
  kind: "broken" | "blocks" | "silent";
}

export const HOOK_BEHAVIOURS: HookBehaviour[] = [
  { id: "exit-1", what: "exits 1, a message on stderr", kind: "broken", command: () => "echo 'the hook fell over' >&2; exit 1" },
  { id: "signal", what: "crashes: killed by a signal (SIGKILL)", kind: "broken", command: () => "kill -KILL $$" },
  { id: "segv", what: "crashes: SIGSEGV", kind: "broken", command: () => "kill -SEGV $$" },
  { id: "hang", what: "hangs past its timeout (1 s), a child in the background too", kind: "broken", timeout: 1, command: (t) => `(exec -a ${t}-child sleep 60) & exec -a ${t} sleep 60` },
  { id: "garbage", what: "prints garbage (control bytes, not JSON)", kind: "broken", command: () => "printf 'garbage \\001\\033[2J\\377 {{{'" },
  { id: "huge", what: "prints 3 MB that is not JSON", kind: "broken", command: () => "head -c 3000000 /dev/zero | tr '\\0' x" },
  { id: "invalid-json", what: "prints JSON cut short", kind: "broken", command: () => `echo '{"decision": "allow", "reason": '` },
  { id: "wrong-json", what: "prints JSON that is not an answer ({\"decision\":\"maybe\"}, an array)", kind: "broken", command: () => `echo '{"decision":"maybe","extra":[1,2]}'` },
  { id: "block-huge", what: "exits 2 with 1 MB on stderr (a block, its reason cut)", kind: "blocks", command: () => "head -c 1000000 /dev/zero | tr '\\0' r >&2; exit 2" },
  { id: "leaves-process", what: "exits 0 at once, leaving a process in the background and one detached (setsid)", kind: "silent", command: (t) => `(exec -a ${t}-bg sleep 60) & (setsid bash -c 'exec -a ${t}-setsid sleep 60' >/dev/null 2>&1 &); exit 0` },
];

export type CellVerdict = "ok" | "FAILED" | "n/a";

export interface HookCellResult {
  behaviour: string;
  event: HookEventName;
  mode: P3Mode;
  verdict: CellVerdict;
  /** The checks that failed, each in words. */
  failed: string[];
  detail: string;
}

/** What a cell's run left: for the checks (and for a probe to tamper with). */
export interface HookRun {
  history: Anthropic.MessageParam[];
  llm: Llm & { scripted?: ReturnType<typeof scripted>["scripted"] };
  outcome?: { status: string; reason?: string };
  error?: unknown;
  problems: string[];
  lines: string[];
}

/** How a cell runs s19's loop: the reference's runAgent (a probe passes one with a protection removed). */
export type HookLoop = (llm: Llm, history: Anthropic.MessageParam[], opts: Options) => Promise<{ status: string; reason?: string }>;

const MAX_STOP_ROUNDS = 2;
const PROMPT = "Read notes.txt, then say done.";

/** The model reads notes.txt, then says done (again after each Stop note). */
const reader: Scenario = {
  id: "part3-hooks",
  title: "read a file, then done",
  reply: (ctx) => (ctx.step === 0 ? { content: [text("Reading."), call("read_file", { path: "notes.txt" })] } : say("done")),
};

export async function runHookCell(behaviour: HookBehaviour, event: HookEventName, mode: P3Mode, loop?: HookLoop): Promise<HookCellResult> {
  const agent = await solution<Agent>("s19_hooks");
  const hooksModule = await solution<HooksModule>("s19_hooks", "hooks.ts");
  const base = { behaviour: behaviour.id, event, mode };
  if (!agent || !hooksModule) return { ...base, verdict: "n/a", failed: [], detail: "s19 is not present" };
  const token = newToken(`${behaviour.id}-${event}`);
  const entry = { command: behaviour.command(token), ...(behaviour.timeout ? { timeout: behaviour.timeout } : {}) };
  const s = scratch({ "notes.txt": "the notes\n" }, { project: { hooks: { [event]: [entry] } } });
  try {
    return await inMode(mode, async () => {
      const llm = scripted({ scenario: reader, maxRequests: 40 });
      const history: Anthropic.MessageParam[] = [{ role: "user", content: PROMPT }];
      const problems: string[] = [];
      const run = loop ?? (agent.runAgent as HookLoop);
      const opts: Options = {
        root: s.ws,
        userConfigDir: s.user,
        approve: async () => ({ approved: true }),
        maxStopRounds: MAX_STOP_ROUNDS,
        onHookProblem: (p) => problems.push(hooksModule.describeProblem(p)),
      };
      const { value, error, lines } = await capturing(() => run(llm, history, opts));
      const alive = await aliveAfter(token, GRACE_MS, { anywhere: true });
      const r: HookRun = { history, llm, ...(value ? { outcome: value } : {}), ...(error !== undefined ? { error } : {}), problems, lines };
      const failed = await checkHookRun(r, behaviour, event, hooksModule.HOOK_MAX_OUTPUT);
      if (alive > 0) failed.push(`no process: ${alive} process(es) the hook started alive after the run`);
      const shown = error !== undefined ? `threw ${errorLine(error)}` : `${value!.status}${value!.reason ? ` (${value!.reason})` : ""}`;
      return { ...base, verdict: failed.length ? "FAILED" : "ok", failed, detail: `${shown}; ${problems.length} reported${problems[0] ? `: ${problems[0].slice(0, 140)}` : ""}` };
    });
  } finally {
    s.remove();
  }
}

const resultsOf = (history: Anthropic.MessageParam[]) => history.flatMap((m) => (m.role === "user" && typeof m.content !== "string" ? m.content.filter((b): b is Anthropic.ToolResultBlockParam => b.type === "tool_result") : []));
const textOf = (c: Anthropic.ToolResultBlockParam["content"]) => (typeof c === "string" ? c : (c ?? []).map((b) => (b.type === "text" ? b.text : "")).join("\n"));
const stopNotes = (history: Anthropic.MessageParam[]) => history.filter((m) => m.role === "user" && typeof m.content === "string" && m.content.startsWith("[Stop hook]"));

/** The checks of one cell, each failed one in words (empty: the cell passes). */
export async function checkHookRun(r: HookRun, behaviour: HookBehaviour, event: HookEventName, maxOutput: number): Promise<string[]> {
  const failed: string[] = [];
  // goes on: the loop returned, as the lesson says for this hook.
  if (r.error !== undefined) failed.push(`goes on: the loop threw (${errorLine(r.error)})`);
  else if (r.outcome?.status !== "done") failed.push(`goes on: the run ended ${r.outcome?.status} (${r.outcome?.reason ?? ""}), not done`);
  const results = resultsOf(r.history);
  const blocked = behaviour.kind === "blocks" && event === "PreToolUse";
  if (blocked) {
    if (results.length === 0 || results.some((x) => x.is_error !== true || !/blocked/.test(textOf(x.content)))) failed.push("goes on: a PreToolUse hook that exits 2 must deny the call (an is_error result with its reason)");
    if (results.some((x) => textOf(x.content).length > maxOutput + 200)) failed.push(`goes on: the hook's reason reached the model whole (${Math.max(...results.map((x) => textOf(x.content).length))} characters), not cut to ${maxOutput}`);
  } else if (results.length === 0 || results.some((x) => x.is_error === true)) failed.push(`goes on: the call should run as if the hook had said nothing; its results were ${JSON.stringify(results.map((x) => textOf(x.content).slice(0, 80)))}`);
  const notes = stopNotes(r.history).length;
  const expectedNotes = behaviour.kind === "blocks" && event === "Stop" ? MAX_STOP_ROUNDS : 0;
  if (notes !== expectedNotes) failed.push(`goes on: ${notes} Stop note(s) in the history, expected ${expectedNotes}`);
  // transcript: every tool_use answered, sendable again.
  const problems = await transcriptProblems(r.llm as Parameters<typeof transcriptProblems>[0], r.history);
  if (problems) failed.push(`transcript: ${problems.split("\n")[0]}`);
  // reported: a broken hook, once per time it ran, in one line naming the event, no stack trace.
  if (behaviour.kind === "broken") {
    const mine = r.problems.filter((p) => p.includes(event));
    if (mine.length === 0) failed.push(`reported: the broken ${event} hook was not reported to the user`);
    const bad = r.problems.find((p) => p.includes("\n") || /\n\s+at |at .*\.ts:\d+/.test(p));
    if (bad) failed.push(`reported: the report is not one plain line: ${JSON.stringify(bad.slice(0, 160))}`);
  } else if (r.problems.length > 0) failed.push(`reported: a hook that answered properly was reported as broken: ${r.problems[0]!.slice(0, 120)}`);
  if (behaviour.kind === "blocks" && event === "Stop" && !r.lines.some((l) => /Stop hooks still object/.test(l))) failed.push("reported: the user was not told that the Stop hooks still objected when the run ended");
  return failed;
}

export interface HookFigures {
  events: HookEventName[];
  modes: P3Mode[];
  rows: Array<{ id: string; what: string; kind: HookBehaviour["kind"]; cells: CellVerdict[] }>;
  failed: Array<{ behaviour: string; event: string; mode: string; detail: string }>;
  cells: number;
  passed: number;
}

/** Every behaviour × event × mode (modes one after the other: the sandbox switch is the process's). */
export async function runHookPart(modes: P3Mode[] = p3Modes(), behaviours = HOOK_BEHAVIOURS, events: readonly HookEventName[] = HOOK_EVENTS): Promise<{ results: HookCellResult[]; figures: HookFigures }> {
  const results: HookCellResult[] = [];
  for (const mode of modes) results.push(...(await pool(behaviours.flatMap((b) => events.map((e) => () => runHookCell(b, e, mode))), 2)));
  const columns = modes.flatMap((m) => events.map((e) => ({ m, e })));
  const figures: HookFigures = {
    events: [...events],
    modes,
    rows: behaviours.map((b) => ({ id: b.id, what: b.what, kind: b.kind, cells: columns.map(({ m, e }) => results.find((r) => r.behaviour === b.id && r.event === e && r.mode === m)?.verdict ?? "n/a") })),
    failed: results.filter((r) => r.verdict === "FAILED").map((r) => ({ behaviour: r.behaviour, event: r.event, mode: r.mode, detail: r.failed.join("; ") })),
    cells: results.filter((r) => r.verdict !== "n/a").length,
    passed: results.filter((r) => r.verdict === "ok").length,
  };
  return { results, figures };
}
