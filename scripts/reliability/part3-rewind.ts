/**
 * Part III, 4: a rewind after every kind of stop (s21). Two user turns through s21's real loop:
 * the first writes a.txt and edits notes.txt and ends done; the second writes b.txt and edits a.txt,
 * then stops in one of the ways a run can stop (the model's end_turn, max_turns, the token budget,
 * a repeated call, the user's abort, an API error after the SDK's retries, a tool that throws, the
 * loop itself throwing). The history is settled as the REPL does (s10's settleTurn), then rewound
 * to each checkpoint (1, 2) and each part (code, conversation, both). A cell passes when:
 *
 *   files      a rewound code: every file of the workspace is as it was when that checkpoint's turn
 *              began (bytes, and files made since are gone); not rewound: as the run left them
 *   history    a rewound conversation: the history is what it was just before that checkpoint's
 *              prompt; not rewound: as the run left it
 *   sendable   the next question added as the REPL adds it (s10's addQuestion), the history keeps
 *              every pairing rule and the scripted model accepts it as the next request
 */
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import type Anthropic from "@anthropic-ai/sdk";
import { call, say, text } from "../../runtime/scripted/scenarios/script.ts";
import type { Fault, Scenario } from "../../runtime/scripted/types.ts";
import { scripted, transcriptProblems } from "../../runtime/testing.ts";
import { capturing, errorLine, outcomeLine, scratch, solution } from "./part3-common.ts";

type Agent = typeof import("../../solutions/s21_checkpoints/agent.ts");
type Repl = typeof import("../../solutions/s10_conversation/repl.ts");
type Extend = typeof import("../../solutions/s11_recovery/extend.ts");

export const STOPS = ["end_turn", "max_turns", "token_budget", "repeated_call", "abort", "api_error", "tool_throws", "loop_throws"] as const;
export type StopKind = (typeof STOPS)[number];
export const REWINDS = ["code", "conversation", "both"] as const;
export type RewindPart = (typeof REWINDS)[number];

export type RewindCell = "ok" | "FAILED" | "n/a";

export interface RewindResult {
  stop: StopKind;
  checkpoint: number;
  what: RewindPart;
  cell: RewindCell;
  detail: string;
}

/** The rewind under test (a probe passes one with a protection removed). */
export type RewindFn = Agent["rewind"];

const FIRST = "Turn one: write a.txt and update notes.txt.";
const SECOND = "Turn two: write b.txt and change a.txt.";

/** Every file under the workspace, with its text (folders left out: a rewind restores files). */
function files(root: string): Record<string, string> {
  const out: Record<string, string> = {};
  const walk = (rel: string) => {
    for (const e of readdirSync(join(root, rel), { withFileTypes: true })) {
      const path = rel ? `${rel}/${e.name}` : e.name;
      if (e.isDirectory()) walk(path);
      else out[path] = readFileSync(join(root, path), "utf8");
    }
  };
  walk("");
  return out;
}

function scenario(stop: StopKind, hooks: { second(): void; atStep1(): void }): Scenario {
  return {
    id: "part3-rewind",
    title: "two turns of file changes, the second one stopped",
    reply: (ctx) => {
      if (ctx.prompt.startsWith("Turn one")) {
        if (ctx.step === 0) return { content: [text("Writing."), call("write_file", { path: "a.txt", content: "one\n" })] };
        if (ctx.step === 1) return { content: [text("Editing."), call("edit_file", { path: "notes.txt", old_text: "v0", new_text: "v1" })] };
        return say("Turn one done.");
      }
      if (ctx.step === 0) {
        hooks.second();
        return { content: [text("Writing more."), call("write_file", { path: "b.txt", content: "two\n" }), call("edit_file", { path: "a.txt", old_text: "one", new_text: "ONE" })] };
      }
      if (ctx.step === 1) hooks.atStep1();
      if (stop === "end_turn" || ctx.step > 3) return say("Turn two done.");
      if (stop === "tool_throws") return ctx.step === 1 ? { content: [text("Trying."), call("part3_throws", {})] } : say("Turn two done.");
      return { content: [text("Looking."), call("read_file", { path: "notes.txt" })] };
    },
  };
}

/** One stop × checkpoint × part: two turns, settle, rewind, check. */
export async function runRewindCell(stop: StopKind, checkpoint: number, what: RewindPart, rewindFn?: RewindFn): Promise<RewindResult> {
  const agent = await solution<Agent>("s21_checkpoints");
  const repl = await solution<Repl>("s10_conversation", "repl.ts");
  const extend = await solution<Extend>("s11_recovery", "extend.ts");
  const base = { stop, checkpoint, what };
  if (!agent || !repl || !extend) return { ...base, cell: "n/a", detail: "s21 is not present" };
  const s = scratch({ "notes.txt": "v0\n", "keep.txt": "keep\n" });
  try {
    const controller = new AbortController();
    let failing = false;
    let answers = 0;
    // Set once the second turn is asked: its second answer is where the loop throws (loop_throws).
    let second = false;
    let secondCount = 0;
    const llmAnsweredSecond = () => second && ++secondCount === 2;
    const llm = scripted(
      {
        scenario: scenario(stop, { second: () => void (failing = stop === "api_error"), atStep1: () => void (stop === "abort" && controller.abort()) }),
        maxRequests: 40,
        faults: (): Fault | null => (failing && answers > 0 ? { kind: "server_error" } : null),
      },
      { maxRetries: 2 },
    );
    const opts = {
      root: s.ws,
      userConfigDir: s.user,
      hooks: [],
      approve: async () => ({ approved: true as const }),
      permissionMode: "acceptEdits" as const,
      onUntracked: () => {},
      extensions: [
        () => ({
          tools: (tools: Parameters<Extend["withTools"]>[0]) =>
            extend.withTools(tools, { name: "part3_throws", description: "a tool that throws", input_schema: { type: "object" as const }, run: () => { throw new TypeError("the tool fell over"); } }),
          counted: () => {
            if (failing) answers++;
            if (stop === "loop_throws" && llmAnsweredSecond()) throw new Error("the loop fell over mid-run");
          },
        }),
      ],
    };
    const history: Anthropic.MessageParam[] = [{ role: "user", content: FIRST }];
    const atCheckpoint: Array<{ files: Record<string, string>; history: string }> = [{ files: files(s.ws), history: "[]" }];
    const one = await capturing(() => agent.runAgent(llm, history, opts));
    if (one.error !== undefined) return { ...base, cell: "FAILED", detail: `turn one threw ${errorLine(one.error)}` };
    atCheckpoint.push({ files: files(s.ws), history: JSON.stringify(history) });
    const turnStart = history.length;
    repl.addQuestion(history, SECOND);
    second = true;
    const guards = { max_turns: { maxTurns: 2 }, token_budget: { tokenBudget: 40 }, repeated_call: { maxRepeats: 1 } } as Record<string, object>;
    const two = await capturing(() => agent.runAgent(llm, history, { ...opts, signal: controller.signal, ...(guards[stop] ? { guards: guards[stop] } : {}) }));
    const how = two.error !== undefined ? `threw ${errorLine(two.error)}` : outcomeLine(two.value!);
    failing = false; // the API is back for the next question
    repl.settleTurn(history, turnStart);
    const after = { files: files(s.ws), history: JSON.stringify(history) };
    const problems: string[] = [];
    const expected = { end_turn: /^done/, max_turns: /max_turns/, token_budget: /token_budget/, repeated_call: /repeated_call/, abort: /aborted/, api_error: /^threw|stopped/, tool_throws: /^done/, loop_throws: /^threw/ }[stop];
    if (!expected.test(how)) problems.push(`the second turn should stop by ${stop}; it ${how}`);
    try {
      (rewindFn ?? agent.rewind)(agent.runIdOf(history), checkpoint, what);
    } catch (e) {
      problems.push(`the rewind threw ${errorLine(e)}`);
    }
    const want = atCheckpoint[checkpoint - 1]!;
    const code = what !== "conversation";
    const conversation = what !== "code";
    const now = files(s.ws);
    const diff = (a: Record<string, string>, b: Record<string, string>) => [...new Set([...Object.keys(a), ...Object.keys(b)])].filter((k) => a[k] !== b[k]).sort();
    const fileDiff = diff(now, code ? want.files : after.files);
    if (fileDiff.length) problems.push(`files: ${fileDiff.join(", ")} differ from ${code ? `checkpoint ${checkpoint}` : "what the run left"}`);
    if (JSON.stringify(history) !== (conversation ? want.history : after.history)) problems.push(`history: not ${conversation ? `what it was before checkpoint ${checkpoint}'s prompt` : "what the run left"} (${history.length} messages)`);
    repl.addQuestion(history, "A new question, after the rewind.");
    const sendable = await transcriptProblems(llm, history);
    if (sendable) problems.push(`sendable: ${sendable.split("\n")[0]}`);
    return { ...base, cell: problems.length ? "FAILED" : "ok", detail: `${how}${problems.length ? `; ${problems.join("; ")}` : ""}` };
  } finally {
    s.remove();
  }
}

export interface RewindFigures {
  columns: string[];
  rows: Array<{ stop: StopKind; cells: RewindCell[] }>;
  failed: Array<{ stop: string; column: string; detail: string }>;
  cells: number;
  passed: number;
}

export async function runRewindPart(stops: readonly StopKind[] = STOPS): Promise<{ results: RewindResult[]; figures: RewindFigures }> {
  const results: RewindResult[] = [];
  for (const stop of stops) for (const n of [1, 2]) for (const what of REWINDS) results.push(await runRewindCell(stop, n, what));
  const columns = [1, 2].flatMap((n) => REWINDS.map((w) => `${n} ${w}`));
  return {
    results,
    figures: {
      columns,
      rows: stops.map((stop) => ({ stop, cells: columns.map((c) => results.find((r) => r.stop === stop && `${r.checkpoint} ${r.what}` === c)?.cell ?? "n/a") })),
      failed: results.filter((r) => r.cell === "FAILED").map((r) => ({ stop: r.stop, column: `${r.checkpoint} ${r.what}`, detail: r.detail })),
      cells: results.filter((r) => r.cell !== "n/a").length,
      passed: results.filter((r) => r.cell === "ok").length,
    },
  };
}
