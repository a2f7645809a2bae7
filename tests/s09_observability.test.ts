/**
 * s09_observability: one typed event per step, usage and cost, the message table, a JSONL run
 * log. Grades lessons/ or solutions/ (COURSE_TREE). The runs use the failing-login task on a scratch
 * copy of the sample repository, as the lesson does.
 */
import { mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { isDeepStrictEqual } from "node:util";
import { join } from "node:path";
import type Anthropic from "@anthropic-ai/sdk";
import { afterAll, beforeAll, describe, it } from "vitest";
import { z } from "zod";
import { S03_SAMPLE } from "../runtime/scripted/scenarios/s03_parallel_tools.ts";
import { call, say, text } from "../runtime/scripted/scenarios/script.ts";
import type { Reply, Scenario, TurnContext } from "../runtime/scripted/types.ts";
import { defineTool, SafeToolRegistry } from "../solutions/s04_tool_errors/define-tool.ts";
import { S12_TASK } from "../runtime/scripted/scenarios/s12_guarded_agent.ts";
import { scratchCopy } from "../runtime/tools/files.ts";
import { approveAll } from "../solutions/s07_safe_tools/approval.ts";
import type { AgentEvent, EventOf } from "../solutions/s09_observability/events.ts";
import { parseTranscriptText } from "../docs/.vitepress/theme/transcript.ts";
import { callsIn, expectSendable, loadLesson, quietOutput, rule, scripted } from "../runtime/testing.ts";
import { clip } from "./support.ts";

/** A quoted piece of output, cut with an ellipsis when it is longer than `n`. */

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

async function seed000(opts: Opts = {}, task: Anthropic.MessageParam["content"] = S12_TASK) {
  const root = await scratchCopy(S03_SAMPLE);
  const llm = scripted();
  const events: AgentEvent[] = [];
  const history: Anthropic.MessageParam[] = [{ role: "user", content: task }];
  const started = Date.now();
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
  return { responses, events, history, outcome, elapsed: Date.now() - started };
}

/** The stop event's totals against the responses' own usage: every kind of token, summed over every turn. */
function expectTotals(totals: EventOf<"stop">["totals"], responses: readonly Anthropic.Message[]) {
  const sum = (f: (u: Anthropic.Usage) => number | null | undefined) => responses.reduce((n, r) => n + (f(r.usage) ?? 0), 0);
  const want = {
    turns: responses.length,
    input: sum((u) => u.input_tokens),
    output: sum((u) => u.output_tokens),
    cacheWrite: sum((u) => u.cache_creation_input_tokens),
    cacheRead: sum((u) => u.cache_read_input_tokens),
  };
  for (const [k, v] of Object.entries(want))
    rule(totals[k as keyof typeof want] === v, "observability", `the run's totals say ${k} = ${totals[k as keyof typeof want]}, but the ${responses.length} responses' usage adds up to ${v}: the totals are the sum of every turn's usage (input_tokens, output_tokens, cache_creation_input_tokens, cache_read_input_tokens).`);
  const price = usage.priceFor("scripted-model")!.price;
  const cost = (want.input * price.input + want.output * price.output + want.cacheWrite * price.cacheWrite + want.cacheRead * price.cacheRead) / 1_000_000;
  rule(totals.costUsd !== null && Math.abs(totals.costUsd - cost) < 1e-9, "observability", `the run's cost is ${totals.costUsd}, but its tokens priced as ${usage.priceFor("scripted-model")!.as} cost ${cost}: price all four kinds of token, each at its own price, and add the turns.`);
}

const toolUses = (history: Anthropic.MessageParam[]) =>
  history.flatMap((m) => (m.role === "assistant" && Array.isArray(m.content) ? m.content : [])).filter((b): b is Anthropic.ToolUseBlock => b.type === "tool_use");

describe("s09 events: one per step", () => {
  it("THINK per response, ACT and OBSERVE around every call, STOP once at the end", async () => {
    const { responses, events, history, outcome } = await seed000();
    rule(outcome.status === "done", "typed-outcome", `the failing-login task ended ${JSON.stringify(outcome)}, not done.`);
    const kinds = events.map((e) => e.type);
    const seen = `the events were: ${kinds.join(" ")}`;
    rule(kinds.filter((k) => k === "think").length === responses.length, "observability", `the model answered ${responses.length} times but there were ${kinds.filter((k) => k === "think").length} think events (${seen}): emit THINK once per response.`);
    rule(kinds.filter((k) => k === "stop").length === 1 && kinds[kinds.length - 1] === "stop", "observability", `the run must end with exactly one stop event, the last one (${seen}).`);
    rule(kinds[0] === "think", "observability", `the first event must be THINK, the first response (${seen}).`);
    // Every call of the transcript was acted on and observed, in that order, with the same id.
    for (const call of toolUses(history)) {
      const act = events.findIndex((e) => e.type === "act" && e.call.id === call.id);
      const observe = events.findIndex((e) => e.type === "observe" && e.call.id === call.id);
      rule(act >= 0, "observability", `no act event for ${call.id} (${call.name}) (${seen}): emit ACT before every call runs.`);
      rule(observe > act, "observability", `the observe event for ${call.id} (${call.name}) ${observe < 0 ? "is missing" : "came before its act event"} (${seen}): ACT when the call starts, OBSERVE when its result is back.`);
    }
    rule(events.filter((e) => e.type === "act").length === toolUses(history).length, "observability", `${events.filter((e) => e.type === "act").length} act events for ${toolUses(history).length} calls: one ACT per call.`);
    // The think events carry the responses themselves.
    const ids = events.flatMap((e) => (e.type === "think" ? [e.message.id] : []));
    rule(JSON.stringify(ids) === JSON.stringify(responses.map((r) => r.id)), "observability", `the think events carry messages ${ids.join(", ")}, not the responses ${responses.map((r) => r.id).join(", ")}, in order.`);
  });

  it("each event's ms is a duration within the run: THINK since its request, STOP since the run began", async () => {
    const { events, elapsed } = await seed000();
    for (const e of events) {
      if (e.type !== "think" && e.type !== "stop") continue;
      rule(e.ms >= 0 && e.ms <= elapsed, "observability", `a ${e.type} event says ms = ${e.ms}, but the whole run took ${elapsed} ms: ms is how long it took (Date.now() - when it began${e.type === "think" ? ", the request" : ", the run"}), never more than the run.`);
    }
    const stop = events.findLast((e) => e.type === "stop");
    const longest = Math.max(...events.flatMap((e) => (e.type === "think" ? [e.ms] : [])));
    rule(stop !== undefined && stop.type === "stop" && stop.ms >= longest, "observability", `the stop event says the run took ${stop && stop.type === "stop" ? stop.ms : "?"} ms, less than one of its requests (${longest} ms): the stop's ms counts from the run's start.`);
  });

  it("the stop event carries the outcome and the run's totals: the sum of the turns", async () => {
    const { events, outcome, responses } = await seed000();
    const stop = events[events.length - 1]!;
    rule(stop?.type === "stop", "observability", `the last event is ${stop?.type ?? "missing"}, not stop: every way out of the loop emits STOP.`);
    rule(stop.type === "stop" && stop.turn === responses.length, "observability", `the stop event says turn ${stop.type === "stop" ? stop.turn : "?"}, and the run had ${responses.length} responses: the stop's turn is the run's last (this.turn(), the responses counted so far).`);
    rule(isDeepStrictEqual(JSON.parse(JSON.stringify(stop.outcome)), JSON.parse(JSON.stringify(outcome))), "observability", `the stop event says ${JSON.stringify(stop.outcome)} but runAgent returned ${JSON.stringify(outcome)}: it carries the outcome itself.`);
    expectTotals(stop.totals, responses);
  });

  it("the totals count cache reads and writes too (a prompt with a cache breakpoint)", async () => {
    // A cache breakpoint on the task: the first request writes the cache, the next ones read it.
    const { events, responses } = await seed000({}, [{ type: "text", text: S12_TASK, cache_control: { type: "ephemeral" } }]);
    rule(responses.some((r) => (r.usage.cache_read_input_tokens ?? 0) > 0), "observability", "the run reported no cache reads: the scripted model did not see the task's cache breakpoint (send the history as it is).");
    const stop = events[events.length - 1]!;
    rule(stop?.type === "stop", "observability", `the last event is ${stop?.type ?? "missing"}, not stop: every way out of the loop emits STOP.`);
    expectTotals(stop.totals, responses);
  });

  it("a run stopped by a guard or by Ctrl-C ends with a stop event too", async () => {
    const capped = await seed000({ guards: { maxTurns: 1 } });
    const last = capped.events[capped.events.length - 1];
    rule(last?.type === "stop" && last.outcome.status === "stopped" && last.outcome.reason === "max_turns", "observability", `a run stopped by max_turns ended with ${last ? JSON.stringify({ type: last.type, ...(last.type === "stop" ? { outcome: last.outcome } : {}) }) : "no event"}: a guard stop emits STOP too, with its outcome.`);

    const controller = new AbortController();
    controller.abort();
    const aborted = await seed000({ signal: controller.signal });
    const kinds = aborted.events.map((e) => e.type);
    rule(kinds.length === 1 && kinds[0] === "stop" && aborted.events[0]!.type === "stop" && aborted.events[0]!.outcome.status === "stopped" && aborted.events[0]!.outcome.reason === "aborted", "observability", `a run aborted before it began emitted [${kinds.join(", ")}]: exactly one stop event, outcome aborted.`);
  });
});

/** Every ACT is closed by an OBSERVE of the same call, after it; no OBSERVE without its ACT. */
function expectSpansClosed(events: readonly AgentEvent[], what: string) {
  const seen = `the events were: ${events.map((e) => (e.type === "act" || e.type === "observe" ? `${e.type}(${e.call.name})` : e.type)).join(" ")}`;
  events.forEach((e, i) => {
    if (e.type !== "act") return;
    const closed = events.findIndex((o, j) => j > i && o.type === "observe" && o.call.id === e.call.id);
    rule(closed > i, "observability", `${what}: the call ${e.call.name} (${e.call.id}) has its ACT event but no OBSERVE after it (${seen}). Emit OBSERVE for every call that was acted on, whatever its result: an error, a call stopped by an abort or by the turn's ending.`);
  });
  const acts = events.filter((e) => e.type === "act").length;
  const observes = events.filter((e) => e.type === "observe").length;
  rule(acts === observes, "observability", `${what}: ${acts} ACT events but ${observes} OBSERVE events (${seen}): one OBSERVE per ACT.`);
}

/** A run of the s09 loop on a scenario of the test's own, with its own tools; its events and responses. */
async function runScenario(reply: (ctx: TurnContext) => Reply, opts: Opts = {}) {
  const root = await scratchCopy(S03_SAMPLE);
  const llm = scripted({ scenario: { id: "t-s09", title: "a test's own turns", reply } satisfies Scenario, streamDelayMs: 2 });
  const events: AgentEvent[] = [];
  const history: Anthropic.MessageParam[] = [{ role: "user", content: "go" }];
  const outcome = await agent.runAgent(llm, history, { root, approve: approveAll, ...opts, onEvent: (e) => events.push(e) });
  const responses = [...llm.scripted.responses];
  await expectSendable(llm, history);
  return { events, responses, outcome, history };
}

/** A read-only tool that runs until its signal aborts: something to stop. */
const waitTool = defineTool({
  name: "wait",
  description: "Waits until it is stopped (test spy).",
  input: z.object({}),
  readOnly: true,
  timeoutMs: 5_000,
  run: (_input, { signal }) => new Promise<string>((resolve) => signal.addEventListener("abort", () => resolve("stopped"), { once: true })),
});

describe("s09 however a turn goes, every response is a THINK and every ACT is closed", () => {
  it("failed calls are observed too: an unknown tool and a tool error", async () => {
    const { events } = await runScenario((ctx) => (ctx.step === 0 ? { content: [call("read_file", { path: "no-such-file.txt" }), call("no_such_tool", {})] } : say("Done.")));
    expectSpansClosed(events, "a turn with a failing read_file and an unknown tool");
  });

  it("a response cut off by max_tokens and asked again is a THINK, and counted in the totals", async () => {
    let cut = false;
    const { events, responses } = await runScenario((ctx) => {
      if (ctx.step === 0 && !cut) {
        cut = true;
        return { content: [text("Reading it."), call("read_file", { path: "README.md" })], stop_reason: "max_tokens" };
      }
      return ctx.step === 0 ? { content: [text("Reading it."), call("read_file", { path: "README.md" })] } : say("Done.");
    });
    const thinks = events.filter((e) => e.type === "think").length;
    rule(thinks === responses.length, "observability", `the model answered ${responses.length} times (one answer cut off by max_tokens and asked again) but there were ${thinks} think events: every response is a THINK, the one asked again too (its tokens were spent).`);
    const stop = events[events.length - 1];
    rule(stop?.type === "stop", "observability", `the last event is ${stop?.type ?? "missing"}, not stop: every way out of the loop emits STOP.`);
    expectTotals(stop.totals, responses);
  });

  it("an early call stopped because the turn did not end with tool_use is observed", async () => {
    const long = "Words after the call, still streaming for a while. ".repeat(3);
    const { events } = await runScenario(() => ({ content: [call("wait", {}), text(long)], stop_reason: "refusal", stop_details: { type: "refusal", category: null, explanation: "test refusal" } }), {
      registry: new SafeToolRegistry([waitTool]),
    });
    expectSpansClosed(events, "a turn that ended with refusal while its early call ran");
  });

  it("a call stopped by Ctrl-C is observed, and the run ends with STOP", async () => {
    const controller = new AbortController();
    // Ctrl-C once the call runs (the tool has started), not after a guessed delay: on a busy
    // machine the tool's own timeout (5 s) could come first, and the run would not be aborted.
    const started = defineTool({
      name: "wait",
      description: waitTool.description,
      input: z.object({}),
      readOnly: true,
      timeoutMs: 5_000,
      run: (_input, { signal }) => {
        setImmediate(() => controller.abort());
        return new Promise<string>((resolve) => signal.addEventListener("abort", () => resolve("stopped"), { once: true }));
      },
    });
    const { events } = await runScenario((ctx) => (ctx.step === 0 ? { content: [call("wait", {})] } : say("Done.")), {
      registry: new SafeToolRegistry([started]),
      signal: controller.signal,
      onEvent: () => {},
    });
    expectSpansClosed(events, "a run aborted while its call ran");
    rule(events[events.length - 1]?.type === "stop", "observability", `a run aborted while a call ran did not end with a stop event (${events.map((e) => e.type).join(" ")}).`);
  });
});

describe("s09 usage and cost", () => {
  const u = (input: number, output: number, write: number | null, read: number | null) =>
    ({ input_tokens: input, output_tokens: output, cache_creation_input_tokens: write, cache_read_input_tokens: read }) as Anthropic.Usage;

  it("prices every kind of token, cache included", () => {
    const t = usage.turnUsage("claude-sonnet-4-5", u(1_000_000, 1_000_000, 1_000_000, 1_000_000));
    rule(t.costUsd !== null && Math.abs(t.costUsd - (3 + 15 + 3.75 + 0.3)) < 1e-9, "observability", `a million tokens of each kind on claude-sonnet-4-5 cost $${t.costUsd}, not $22.05 (3 input + 15 output + 3.75 cache write + 0.30 cache read): price every kind at its own price.`);
    const n = usage.turnUsage("claude-sonnet-4-5", u(10, 20, null, null));
    rule(n.input === 10 && n.output === 20 && n.cacheWrite === 0 && n.cacheRead === 0, "observability", `turnUsage with null cache fields gave ${JSON.stringify(n)}: a missing cache count is 0.`);
  });

  it("an unknown model's cost is unknown, and so is any total that includes it", () => {
    const unknown = usage.turnUsage("some-other-model", u(100, 100, 0, 0));
    rule(unknown.costUsd === null, "observability", `an unknown model's cost came out as ${unknown.costUsd}: it is unknown (null), not a guess.`);
    const totals = usage.addTurn(usage.addTurn(usage.emptyTotals(), usage.turnUsage("claude-sonnet-4-5", u(100, 100, 0, 0))), unknown);
    rule(totals.turns === 2 && totals.input === 200 && totals.output === 200 && totals.costUsd === null, "observability", `two turns, one of an unknown model, add up to ${JSON.stringify(totals)}: the tokens are summed, and the cost is unknown (null) once any turn's is.`);
  });

  it("the logger shows per-turn usage only when turned up, and the totals at the end either way", async () => {
    const { events } = await seed000();
    const normal: string[] = [];
    const verbose: string[] = [];
    events.forEach(logging.createLogger({ write: (l) => normal.push(l) }));
    events.forEach(logging.createLogger({ verbose: true, write: (l) => verbose.push(l) }));
    const perTurn = /turn \d+ · stop_reason/;
    rule(!normal.some((l) => perTurn.test(l)), "observability", "the logger printed per-turn usage without verbose: show it only when turned up (--verbose).");
    rule(verbose.filter((l) => perTurn.test(l)).length === 3, "observability", `with verbose, the logger printed ${verbose.filter((l) => perTurn.test(l)).length} per-turn lines ("turn N · stop_reason …") for 3 turns.`);
    for (const lines of [normal, verbose])
      rule(/done after 3 turns.*\$\d+\.\d{4}/.test(lines[lines.length - 1] ?? ""), "observability", `the logger's last line should give the run's end and cost ("done after 3 turns … $0.0123"), not ${JSON.stringify(lines[lines.length - 1])}.`);
    rule(verbose.join("\n").length > normal.join("\n").length, "observability", "verbose logging says no more than the normal logging.");
  });
});

describe("s09 --trace: the message table", () => {
  it("prints one line per message, with blocks, ids and stop reasons", async () => {
    const { history, responses } = await seed000();
    const lines = trace.messageTable(history, responses);
    const calls = toolUses(history);
    const table = lines.join("\n");
    rule(lines.length === 6, "observability", `the message table has ${lines.length} lines for 6 messages:\n${table}`);
    const want: Array<[number, string | RegExp]> = [
      [0, `[0] user       "${S12_TASK}"`],
      [1, new RegExp(`^\\[1\\] assistant  (?:thinking \\+ )?text \\+ tool_use\\(id=${calls[0]!.id}, bash\\)\\s+stop_reason: tool_use$`)],
      [2, `[2] user       tool_result(tool_use_id=${calls[0]!.id})`],
      [3, new RegExp(`^\\[3\\] assistant  (?:thinking \\+ )?text \\+ tool_use\\(id=${calls[1]!.id}, read_file\\) \\+ tool_use\\(id=${calls[2]!.id}, read_file\\)\\s+stop_reason: tool_use$`)],
      [4, `[4] user       tool_result(tool_use_id=${calls[1]!.id}) + tool_result(tool_use_id=${calls[2]!.id})`],
      [5, /^\[5\] assistant {2}text\("The failing test is .*"\)\s+stop_reason: end_turn$/],
    ];
    for (const [i, w] of want)
      rule(typeof w === "string" ? lines[i] === w : w.test(lines[i] ?? ""), "observability", `line ${i} of the message table is ${JSON.stringify(lines[i])}; it should be ${typeof w === "string" ? JSON.stringify(w) : `like ${w}`} (the message table: index, role, blocks with ids, the stop_reason of each response).`);
  });

  it("gives each assistant row the stop_reason of its own response, when a cut-off answer was asked again", async () => {
    // The first answer is cut off inside its call (max_tokens) and not kept: the history's first
    // assistant row is the SECOND response, so rows and responses are not in step.
    let cut = false;
    const { history, responses } = await runScenario((ctx) => {
      if (ctx.step === 0 && !cut) {
        cut = true;
        return { content: [text("Reading it."), call("read_file", { path: "README.md" })], stop_reason: "max_tokens" };
      }
      return ctx.step === 0 ? { content: [text("Reading it."), call("read_file", { path: "README.md" })] } : say("Done.");
    });
    const lines = trace.messageTable(history, responses);
    const table = lines.join("\n");
    history.forEach((m, i) => {
      if (m.role !== "assistant") return;
      const stop = /stop_reason: (\w+)$/.exec(lines[i] ?? "")?.[1];
      const want = callsIn(m).length > 0 ? "tool_use" : "end_turn";
      rule(stop === want, "observability", `row ${i} of the message table (an assistant turn that ${want === "tool_use" ? "asks for a tool" : "answers"}) says stop_reason: ${stop ?? "(none)"}, not ${want}: the responses were [${responses.map((r) => r.stop_reason).join(", ")}] (the first one cut off and asked again, not kept), so find each row's own response by its content, not by its place:\n${table}`);
    });
  });

  it("marks error results", () => {
    const lines = trace.messageTable([
      { role: "user", content: "x" },
      { role: "assistant", content: [{ type: "tool_use", id: "toolu_1", name: "bash", input: {} }] },
      { role: "user", content: [{ type: "tool_result", tool_use_id: "toolu_1", is_error: true, content: "boom" }] },
    ]);
    rule(lines[2] === "[2] user       tool_result(tool_use_id=toolu_1, is_error)", "observability", `an error result should read "tool_result(tool_use_id=toolu_1, is_error)" in the table, not ${JSON.stringify(lines[2])}.`);
  });
});

describe("s09 the run log: JSONL under .course/runs/", () => {
  it("writes every event as a line, then the transcript; each line is { type, … }", async () => {
    const dir = mkdtempSync(join(tmpdir(), "s09-runs-"));
    const log = new jsonl.RunLog({ lesson: "s09_observability", model: "scripted-model", task: S12_TASK }, dir);
    const { events, history } = await seed000({ onEvent: log.sink });
    log.transcript(history);
    const lines = readFileSync(log.path, "utf8").trim().split("\n").map((l) => JSON.parse(l) as { type: string; lesson?: string; task?: string; messages?: unknown });
    rule(lines[0]?.type === "run" && lines[0].lesson === "s09_observability" && lines[0].task === S12_TASK, "observability", `the run log's first line should say which run it is ({ type: "run", lesson, model, task }), not ${clip(JSON.stringify(lines[0]), 160)}.`);
    const logged = lines.slice(1, -1).map((l) => l.type);
    rule(JSON.stringify(logged) === JSON.stringify(events.map((e) => e.type)), "observability", `the run log holds the events [${logged.join(" ")}], the run emitted [${events.map((e) => e.type).join(" ")}]: write every event as one line, in order, the stop event too.`);
    rule(isDeepStrictEqual(lines[lines.length - 1], { type: "transcript", messages: JSON.parse(JSON.stringify(history)) }), "observability", "the run log's last line should be the whole transcript ({ type: \"transcript\", messages }), exactly as the history stands.");
    rule(jsonl.readRun(log.path).length === events.length + 2, "observability", "readRun did not read back every line of the run log.");
    // (npm test sets COURSE_RUNS_DIR to a folder of its own, so that it writes nothing under .course/.)
    const runsDir = process.env.COURSE_RUNS_DIR?.trim();
    rule(log.path.startsWith(dir) && (runsDir ? jsonl.RUNS_DIR === runsDir : /[/\\]\.course[/\\]runs$/.test(jsonl.RUNS_DIR)), "observability", `run logs go under .course/runs (or COURSE_RUNS_DIR, or the folder given): ${log.path}, RUNS_DIR ${jsonl.RUNS_DIR}.`);
  });

  it("opens in the docs' transcript viewer, with each assistant turn's stop_reason", async () => {
    const dir = mkdtempSync(join(tmpdir(), "s09-runs-"));
    const log = new jsonl.RunLog({ lesson: "s09_observability", model: "scripted-model", task: S12_TASK }, dir);
    const { history } = await seed000({ onEvent: log.sink });
    log.transcript(history);
    const loaded = parseTranscriptText(readFileSync(log.path, "utf8"));
    rule(loaded.format === "jsonl" && isDeepStrictEqual(loaded.messages, JSON.parse(JSON.stringify(history))), "observability", "the docs' transcript viewer could not read the run log's transcript back as it stands: end the file with { type: \"transcript\", messages }.");
    const turns = loaded.turns.map((t) => [t.index, t.stop_reason]);
    rule(JSON.stringify(turns) === JSON.stringify([[1, "tool_use"], [3, "tool_use"], [5, "end_turn"]]), "observability", `the viewer found the turns ${JSON.stringify(turns)} in the run log: write each response (the think event's message) so its stop_reason can be shown.`);
  });
});

describe("s09 the script: --trace and the run log", () => {
  it("prints the message table and writes a run log that ends with the transcript", async () => {
    const { spawnSync } = await import("node:child_process");
    const { ROOT, gradedTree } = await import("../runtime/testing.ts");
    const r = spawnSync(process.execPath, ["--import", "tsx", join(ROOT, gradedTree(), "s09_observability", "agent.ts"), "--trace"], {
      cwd: ROOT,
      env: { ...process.env, COURSE_OFFLINE: "1", NO_COLOR: "1" },
      encoding: "utf8",
      timeout: 60_000,
    });
    const out = `${r.stdout}${r.stderr}`;
    const tail = out.slice(-1500);
    rule(r.status === 0, "loop-threw", `the lesson's script exited with ${r.status}:\n${tail}`);
    for (const line of [/^\[0\] user {7}"Run the login module's tests/m, /^\[1\] assistant {2}(?:thinking \+ )?text \+ tool_use\(id=toolu_\w+, bash\)\s+stop_reason: tool_use$/m, /^\[5\] assistant {2}text\(.*stop_reason: end_turn$/m])
      rule(line.test(out), "observability", `with --trace the script should print the message table (a line like ${line}):\n${tail}`);
    const path = /run log: (\S+\.jsonl)/.exec(out)?.[1];
    rule(path !== undefined, "observability", `the script should end with "run log: <file>.jsonl":\n${tail}`);
    const lines = jsonl.readRun(path);
    rule(lines[0]?.type === "run" && lines[lines.length - 1]?.type === "transcript", "observability", `the script's run log ${path} should start with the run line and end with the transcript.`);
  }, 60_000);
});

// The net under the rules: this lesson beside the reference, on its own task and on generated
// model answers (tests/differential/net.ts).
import { differentialNet } from "./differential/net.ts";
differentialNet("s09");
