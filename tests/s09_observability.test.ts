/**
 * s09_observability: one typed event per step, usage and cost, the message table, a JSONL run
 * log. Grades lessons/ or solutions/ (COURSE_TREE). The runs use seed 000's task on a scratch
 * copy of the sample repository, as the lesson does.
 */
import { mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type Anthropic from "@anthropic-ai/sdk";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { S03_SAMPLE } from "../runtime/scripted/scenarios/s03_parallel_tools.ts";
import { S12_TASK } from "../runtime/scripted/scenarios/s12_guarded_agent.ts";
import { scratchCopy } from "../runtime/tools/files.ts";
import { approveAll } from "../solutions/s07_safe_tools/approval.ts";
import type { AgentEvent } from "../solutions/s09_observability/events.ts";
import { parseTranscriptText } from "../docs/.vitepress/theme/transcript.ts";
import { loadLesson, quietOutput, scripted , expectSendable } from "../runtime/testing.ts";

type AgentModule = typeof import("../solutions/s09_observability/agent.ts");
const agent = await loadLesson<AgentModule>("s09_observability");
const usage = await loadLesson<typeof import("../solutions/s09_observability/usage.ts")>("s09_observability", "usage.ts");
const trace = await loadLesson<typeof import("../solutions/s09_observability/trace.ts")>("s09_observability", "trace.ts");
const jsonl = await loadLesson<typeof import("../solutions/s09_observability/jsonl.ts")>("s09_observability", "jsonl.ts");
const logging = await loadLesson<typeof import("../solutions/s09_observability/log.ts")>("s09_observability", "log.ts");

let restore: () => void;
beforeAll(() => (restore = quietOutput()));
afterAll(() => restore());

type Opts = Parameters<AgentModule["runAgent"]>[2];

async function seed000(opts: Opts = {}) {
  const root = await scratchCopy(S03_SAMPLE);
  const llm = scripted();
  const events: AgentEvent[] = [];
  const history: Anthropic.MessageParam[] = [{ role: "user", content: S12_TASK }];
  const outcome = await agent.runAgent(llm, history, {
    root,
    approve: approveAll,
    ...opts,
    onEvent: (e) => {
      events.push(e);
      opts.onEvent?.(e);
    },
  });
  // The model's answers in this run (checking the transcript below asks it once more).
  const responses = [...llm.scripted.responses];
  await expectSendable(llm, history);
  return { responses, events, history, outcome };
}

const toolUses = (history: Anthropic.MessageParam[]) =>
  history.flatMap((m) => (m.role === "assistant" && Array.isArray(m.content) ? m.content : [])).filter((b): b is Anthropic.ToolUseBlock => b.type === "tool_use");

describe("s09 events: one per step", () => {
  it("THINK per response, ACT and OBSERVE around every call, STOP once at the end", async () => {
    const { responses, events, history, outcome } = await seed000();
    expect(outcome.status).toBe("done");
    const kinds = events.map((e) => e.type);
    expect(kinds.filter((k) => k === "think"), kinds.join(" ")).toHaveLength(responses.length);
    expect(kinds.filter((k) => k === "stop"), "exactly one stop event").toHaveLength(1);
    expect(kinds[kinds.length - 1], "the stop event comes last").toBe("stop");
    expect(kinds[0]).toBe("think");
    // Every call of the transcript was acted on and observed, in that order, with the same id.
    for (const call of toolUses(history)) {
      const act = events.findIndex((e) => e.type === "act" && e.call.id === call.id);
      const observe = events.findIndex((e) => e.type === "observe" && e.call.id === call.id);
      expect(act, `no act event for ${call.id} (${call.name})`).toBeGreaterThanOrEqual(0);
      expect(observe, `no observe event for ${call.id}`).toBeGreaterThan(act);
    }
    expect(events.filter((e) => e.type === "act")).toHaveLength(toolUses(history).length);
    // The think events carry the responses themselves.
    expect(events.flatMap((e) => (e.type === "think" ? [e.message.id] : []))).toEqual(responses.map((r) => r.id));
  });

  it("the stop event carries the outcome and the run's totals: the sum of the turns", async () => {
    const { events, outcome } = await seed000();
    const stop = events[events.length - 1]!;
    if (stop.type !== "stop") throw new Error("the last event is not a stop event");
    expect(stop.outcome).toEqual(outcome);
    const thinks = events.flatMap((e) => (e.type === "think" ? [e.usage] : []));
    expect(stop.totals.turns).toBe(thinks.length);
    expect(stop.totals.input).toBe(thinks.reduce((n, u) => n + u.input, 0));
    expect(stop.totals.output).toBe(thinks.reduce((n, u) => n + u.output, 0));
    expect(stop.totals.costUsd).toBeCloseTo(thinks.reduce((n, u) => n + (u.costUsd ?? NaN), 0), 10);
    expect(stop.totals.costUsd).toBeGreaterThan(0);
  });

  it("a run stopped by a guard or by Ctrl-C ends with a stop event too", async () => {
    const capped = await seed000({ guards: { maxTurns: 1 } });
    const last = capped.events[capped.events.length - 1];
    expect(last).toMatchObject({ type: "stop", outcome: { status: "stopped", reason: "max_turns" } });

    const controller = new AbortController();
    controller.abort();
    const aborted = await seed000({ signal: controller.signal });
    expect(aborted.events.map((e) => e.type)).toEqual(["stop"]);
    expect(aborted.events[0]).toMatchObject({ outcome: { reason: "aborted" } });
  });
});

describe("s09 usage and cost", () => {
  const u = (input: number, output: number, write: number | null, read: number | null) =>
    ({ input_tokens: input, output_tokens: output, cache_creation_input_tokens: write, cache_read_input_tokens: read }) as Anthropic.Usage;

  it("prices every kind of token, cache included", () => {
    const t = usage.turnUsage("claude-sonnet-4-5", u(1_000_000, 1_000_000, 1_000_000, 1_000_000));
    expect(t.costUsd).toBeCloseTo(3 + 15 + 3.75 + 0.3, 10);
    expect(usage.turnUsage("claude-sonnet-4-5", u(10, 20, null, null))).toMatchObject({ input: 10, output: 20, cacheWrite: 0, cacheRead: 0 });
  });

  it("an unknown model's cost is unknown, and so is any total that includes it", () => {
    const unknown = usage.turnUsage("some-other-model", u(100, 100, 0, 0));
    expect(unknown.costUsd).toBeNull();
    const totals = usage.addTurn(usage.addTurn(usage.emptyTotals(), usage.turnUsage("claude-sonnet-4-5", u(100, 100, 0, 0))), unknown);
    expect(totals).toMatchObject({ turns: 2, input: 200, output: 200, costUsd: null });
  });

  it("the logger shows per-turn usage only when turned up, and the totals at the end either way", async () => {
    const { events } = await seed000();
    const normal: string[] = [];
    const verbose: string[] = [];
    events.forEach(logging.createLogger({ write: (l) => normal.push(l) }));
    events.forEach(logging.createLogger({ verbose: true, write: (l) => verbose.push(l) }));
    const perTurn = /turn \d+ · stop_reason/;
    expect(normal.some((l) => perTurn.test(l))).toBe(false);
    expect(verbose.filter((l) => perTurn.test(l))).toHaveLength(3);
    for (const lines of [normal, verbose]) expect(lines[lines.length - 1]).toMatch(/done after 3 turns.*\$\d+\.\d{4}/);
    expect(verbose.join("\n").length).toBeGreaterThan(normal.join("\n").length);
  });
});

describe("s09 --trace: seed 000's message table", () => {
  it("prints one line per message, with blocks, ids and stop reasons", async () => {
    const { history, responses } = await seed000();
    const lines = trace.messageTable(history, responses);
    expect(lines[1], lines.join("\n")).toContain("stop_reason");
    const calls = toolUses(history);
    expect(lines).toHaveLength(6);
    expect(lines[0]).toBe(`[0] user       "${S12_TASK}"`);
    expect(lines[1]).toMatch(new RegExp(`^\\[1\\] assistant  (?:thinking \\+ )?text \\+ tool_use\\(id=${calls[0]!.id}, bash\\)\\s+stop_reason: tool_use$`));
    expect(lines[2]).toBe(`[2] user       tool_result(tool_use_id=${calls[0]!.id})`);
    expect(lines[3]).toMatch(new RegExp(`^\\[3\\] assistant  (?:thinking \\+ )?text \\+ tool_use\\(id=${calls[1]!.id}, read_file\\) \\+ tool_use\\(id=${calls[2]!.id}, read_file\\)\\s+stop_reason: tool_use$`));
    expect(lines[4]).toBe(`[4] user       tool_result(tool_use_id=${calls[1]!.id}) + tool_result(tool_use_id=${calls[2]!.id})`);
    expect(lines[5]).toMatch(/^\[5\] assistant {2}text\("The failing test is .*"\)\s+stop_reason: end_turn$/);
  });

  it("marks error results", () => {
    const lines = trace.messageTable([
      { role: "user", content: "x" },
      { role: "assistant", content: [{ type: "tool_use", id: "toolu_1", name: "bash", input: {} }] },
      { role: "user", content: [{ type: "tool_result", tool_use_id: "toolu_1", is_error: true, content: "boom" }] },
    ]);
    expect(lines[2]).toBe("[2] user       tool_result(tool_use_id=toolu_1, is_error)");
  });
});

describe("s09 the run log: JSONL under .course/runs/", () => {
  it("writes every event as a line, then the transcript; each line is { type, … }", async () => {
    const dir = mkdtempSync(join(tmpdir(), "s09-runs-"));
    const log = new jsonl.RunLog({ lesson: "s09_observability", model: "scripted-model", task: S12_TASK }, dir);
    const { events, history } = await seed000({ onEvent: log.sink });
    log.transcript(history);
    const lines = readFileSync(log.path, "utf8").trim().split("\n").map((l) => JSON.parse(l) as { type: string; messages?: unknown });
    expect(lines[0]).toMatchObject({ type: "run", lesson: "s09_observability", task: S12_TASK });
    expect(lines.slice(1, -1).map((l) => l.type)).toEqual(events.map((e) => e.type));
    expect(lines[lines.length - 1]).toEqual({ type: "transcript", messages: JSON.parse(JSON.stringify(history)) });
    expect(jsonl.readRun(log.path)).toHaveLength(events.length + 2);
    expect(log.path.startsWith(dir)).toBe(true);
    expect(jsonl.RUNS_DIR).toMatch(/[/\\]\.course[/\\]runs$/);
  });

  it("opens in the docs' transcript viewer, with each assistant turn's stop_reason", async () => {
    const dir = mkdtempSync(join(tmpdir(), "s09-runs-"));
    const log = new jsonl.RunLog({ lesson: "s09_observability", model: "scripted-model", task: S12_TASK }, dir);
    const { history } = await seed000({ onEvent: log.sink });
    log.transcript(history);
    const loaded = parseTranscriptText(readFileSync(log.path, "utf8"));
    expect(loaded.format).toBe("jsonl");
    expect(loaded.messages).toEqual(JSON.parse(JSON.stringify(history)));
    expect(loaded.turns.map((t) => [t.index, t.stop_reason])).toEqual([
      [1, "tool_use"],
      [3, "tool_use"],
      [5, "end_turn"],
    ]);
  });
});

describe("s09 the script: --trace and the run log", () => {
  it("prints seed 000's table and writes a run log that ends with the transcript", async () => {
    const { spawnSync } = await import("node:child_process");
    const { ROOT, gradedTree } = await import("../runtime/testing.ts");
    const r = spawnSync(process.execPath, ["--import", "tsx", join(ROOT, gradedTree(), "s09_observability", "agent.ts"), "--trace"], {
      cwd: ROOT,
      env: { ...process.env, COURSE_OFFLINE: "1", NO_COLOR: "1" },
      encoding: "utf8",
      timeout: 60_000,
    });
    const out = `${r.stdout}${r.stderr}`;
    expect(r.status, out).toBe(0);
    for (const line of [/^\[0\] user {7}"Run the login module's tests/m, /^\[1\] assistant {2}(?:thinking \+ )?text \+ tool_use\(id=toolu_\w+, bash\)\s+stop_reason: tool_use$/m, /^\[5\] assistant {2}text\(.*stop_reason: end_turn$/m])
      expect(out).toMatch(line);
    const path = /run log: (\S+\.jsonl)/.exec(out)?.[1];
    expect(path, out).toBeDefined();
    const lines = jsonl.readRun(path!);
    expect(lines[0]).toMatchObject({ type: "run" });
    expect(lines[lines.length - 1]).toMatchObject({ type: "transcript" });
  }, 60_000);
});
