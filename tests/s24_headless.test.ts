/**
 * s24_headless: the agent driven by a script. Grades lessons/ or solutions/ (COURSE_TREE).
 * The lines are read as a script reads them: each parsed from JSON, each assistant line's message
 * checked against the Messages API's response schema (runtime/scripted/schema.ts) and typed as the
 * SDK's Anthropic.Message, the task and the lines' messages replayed as a transcript the API
 * accepts; the result line holds the run's answer, turns, usage, session and stop; the program
 * prints nothing else on stdout in json modes, exits 0/1/2, and --resume goes on with the session.
 */
import { spawnSync } from "node:child_process";
import { join } from "node:path";
import type Anthropic from "@anthropic-ai/sdk";
import { describe, it, vi } from "vitest";
import { Message } from "../runtime/scripted/schema.ts";
import { SAMPLE_REPOSITORY, lessonTask } from "../runtime/tasks.ts";
import { ROOT, driveLoop, loadLesson, rule, scripted, transcriptProblems } from "../runtime/testing.ts";
import { scratchCopy } from "../runtime/tools/files.ts";
import { listSessions, removeSession } from "../solutions/s10_conversation/session.ts";
import { approveAll } from "../solutions/s07_safe_tools/approval.ts";
import { differentialNet } from "./differential/net.ts";
import { checkFinalAgent, quietLessonFile } from "./support.ts";

type Agent = typeof import("../solutions/s24_headless/agent.ts");
type Program = typeof import("../solutions/s24_headless/program.ts");
type Line = import("../solutions/s24_headless/headless.ts").HeadlessLine;
const lesson = await loadLesson<Agent>("s24_headless");
const program = await loadLesson<Program>("s24_headless", "program.ts");
const headless = await loadLesson<typeof import("../solutions/s24_headless/headless.ts")>("s24_headless", "headless.ts");
const keep = quietLessonFile();
const TASK = lessonTask("s24_headless");
const WHERE = "(lineOf in lessons/s24_headless/headless.ts)";

/** One headless run of the lesson's loop; the lines as a script would read them (JSON text, parsed again). */
async function headlessRun(opts: { maxTurns?: number; workspaceHooks?: boolean } = {}) {
  const root = keep(await scratchCopy(SAMPLE_REPOSITORY));
  const llm = scripted();
  const history: Anthropic.MessageParam[] = [{ role: "user", content: TASK }];
  const printed: string[] = [];
  // The loop's own responses (driveLoop sends the transcript once more after it, to check it).
  let responses: Anthropic.Message[] = [];
  const outcome = await driveLoop(llm, history, async () => {
    const o = await lesson.runAgent(llm, history, { root, approve: approveAll, userConfigDir: root, ...(opts.workspaceHooks ? {} : { hooks: [] }), onHookProblem: () => {}, ...(opts.maxTurns ? { guards: { maxTurns: opts.maxTurns } } : {}), headless: { emit: (l) => printed.push(JSON.stringify(l)), session: "s-1" } });
    responses = [...llm.scripted.responses] as Anthropic.Message[];
    return o;
  });
  const lines = printed.map((p) => JSON.parse(p) as Line);
  return { llm, history, outcome, lines, responses };
}

describe("s24 headless: the loop's events as lines in the API's shapes", () => {
  it("each response is an assistant line holding the Message as sent, each answering user message a user line; the lines replay the transcript", async () => {
    const { llm, history, lines, responses } = await headlessRun();
    const assistant = lines.filter((l): l is Extract<Line, { type: "assistant" }> => l.type === "assistant");
    rule(assistant.length === responses.length, "headless-lines", `${responses.length} response(s), ${assistant.length} assistant line(s): give each think event one line { type: "assistant", message } ${WHERE}.`);
    assistant.forEach((l, i) => {
      // The SDK's type for the line, and the API's schema for what it holds.
      const message: Anthropic.Message = l.message;
      // The SDK's stream helper adds parsed_output (for structured outputs) to the Message it returns; the rest is the wire's.
      const { parsed_output: _parsed, ...wire } = message as Anthropic.Message & { parsed_output?: unknown };
      const shape = Message.safeParse(wire);
      rule(shape.success, "headless-lines", () => `assistant line ${i}'s message is not a Message as the API sends it (${shape.error?.issues[0]?.path.join(".")}: ${shape.error?.issues[0]?.message}): put event.message itself in the line ${WHERE}.`);
      rule(message.id === responses[i]?.id && JSON.stringify(message.content) === JSON.stringify(responses[i]?.content), "headless-lines", `assistant line ${i} is not the response the API sent (${JSON.stringify(message).slice(0, 120)}): put event.message itself, unchanged ${WHERE}.`);
      rule(l.session_id === "s-1", "headless-lines", `assistant line ${i} names session ${JSON.stringify(l.session_id)}, not the run's "s-1" ${WHERE}.`);
    });
    const replay = [history[0]!, ...lines.flatMap((l) => (l.type === "assistant" ? [{ role: "assistant" as const, content: l.message.content }] : l.type === "user" ? [l.message] : []))];
    rule(JSON.stringify(replay) === JSON.stringify(history), "headless-lines", `the task and the lines' messages (${replay.length}) do not replay the transcript the loop kept (${history.length} messages): one assistant line per response, one user line per answering message, in order ${WHERE}.`);
    const problems = await transcriptProblems(llm, replay);
    rule(problems === null, "headless-lines", () => `the replayed transcript would be refused: ${problems}`);
    rule(lines.every((l) => l.type !== "system"), "headless-lines", `the loop printed a system line: act and observe events give no line, the program prints the init line ${WHERE}.`);
  });

  it("the last line is the result: the answer, turns, usage, cost, session, not an error, end_turn", async () => {
    const { lines, responses, outcome } = await headlessRun();
    const last = lines.at(-1);
    rule(last?.type === "result" && lines.filter((l) => l.type === "result").length === 1, "headless-result", `the last line is ${JSON.stringify(last?.type)}: the stop event gives exactly one line, { type: "result", … }, and it comes last ${WHERE}.`);
    if (last?.type !== "result") return;
    const answer = outcome.status === "done" ? outcome.message.content.flatMap((b) => (b.type === "text" ? [b.text] : [])).join("\n") : "";
    const out = responses.reduce((n, r) => n + r.usage.output_tokens, 0);
    const input = responses.reduce((n, r) => n + r.usage.input_tokens, 0);
    rule(last.result === answer && answer !== "", "headless-result", `result is ${JSON.stringify(last.result.slice(0, 80))}, not the final answer's text ${JSON.stringify(answer.slice(0, 80))} ${WHERE}.`);
    rule(last.num_turns === responses.length, "headless-result", `num_turns is ${last.num_turns} for ${responses.length} responses: use totals.turns ${WHERE}.`);
    rule(last.usage?.output_tokens === out && last.usage.input_tokens === input, "headless-result", `usage is ${JSON.stringify(last.usage)}; the responses used input ${input}, output ${out}: input_tokens from totals.input, output_tokens from totals.output ${WHERE}.`);
    rule(typeof last.usage.cache_read_input_tokens === "number" && typeof last.usage.cache_creation_input_tokens === "number" && last.total_cost_usd > 0, "headless-result", `the result lacks the cache counts or the cost (${JSON.stringify({ usage: last.usage, cost: last.total_cost_usd })}) ${WHERE}.`);
    rule(last.is_error === false && last.subtype === "success" && last.stop_reason === "end_turn" && last.session_id === "s-1", "headless-result", `a run that ended done reads ${JSON.stringify({ is_error: last.is_error, subtype: last.subtype, stop_reason: last.stop_reason, session_id: last.session_id })}: is_error false, subtype "success", the response's stop_reason, the run's session ${WHERE}.`);
  });

  it("the result is the final answer's whole text: every text block of it, one per line, nothing else", () => {
    const message = {
      id: "msg_1", type: "message", role: "assistant", model: "scripted-model", stop_reason: "end_turn", stop_sequence: null, container: null,
      usage: { input_tokens: 10, output_tokens: 5, cache_creation_input_tokens: 0, cache_read_input_tokens: 0 },
      content: [{ type: "thinking", thinking: "Which first?", signature: "sig" }, { type: "text", text: "The bug is in add()." }, { type: "text", text: "I fixed it." }],
    } as unknown as Anthropic.Message;
    const totals = { turns: 1, input: 10, output: 5, cacheWrite: 0, cacheRead: 0, costUsd: 0.001 };
    const line = headless.lineOf({ type: "stop", turn: 1, outcome: { status: "done", message }, totals, ms: 5 } as unknown as Parameters<typeof headless.lineOf>[0], "s-1");
    const result = line?.type === "result" ? line.result : undefined;
    rule(result === "The bug is in add().\nI fixed it.", "headless-result", `a final answer of a thinking block and two text blocks gave the result ${JSON.stringify(result)}: the result is every text block of the answer, one per line, and no thinking (textOf(outcome.message)) ${WHERE}.`);
  });

  it("a run a guard stopped: is_error true and the guard's reason as the stop reason", async () => {
    const { lines } = await headlessRun({ maxTurns: 1 });
    const last = lines.at(-1);
    rule(last?.type === "result" && last.is_error === true && last.subtype === "error" && last.stop_reason === "max_turns", "headless-result", `a run stopped at its turn limit ends with ${JSON.stringify(last)}: is_error true, subtype "error", stop_reason the guard's ("max_turns") ${WHERE}.`);
  });

  it("a Stop hook sends the model back: its note is a user line, the lines still replay, one result counts every round", async () => {
    // The sample repository's Stop hook runs its tests, which fail: the model is sent back once.
    const { history, lines, responses } = await headlessRun({ workspaceHooks: true });
    const replay = [history[0]!, ...lines.flatMap((l) => (l.type === "assistant" ? [{ role: "assistant" as const, content: l.message.content }] : l.type === "user" ? [l.message] : []))];
    const noted = history.some((m) => m.role === "user" && JSON.stringify(m.content).includes("[Stop hook]"));
    rule(noted, "headless-lines", () => `the sample repository's Stop hook (its tests fail) did not send the model back, so the run had one round where two were expected: the headless run must go through the final agent's loop with the workspace's hooks (examples/login-service/.agent/settings.json) still running; leave the loop and the hooks as lessons/s24_headless gives them.`);
    rule(JSON.stringify(replay) === JSON.stringify(history), "headless-lines", `with a Stop hook round the lines (${replay.length} messages) do not replay the transcript (${history.length}): keep lineOf's mapping, the Stop hook's note comes as a user line of its own ${WHERE}.`);
    const results = lines.filter((l) => l.type === "result");
    const last = results[0];
    rule(results.length === 1 && lines.at(-1) === last && last?.type === "result" && last.num_turns === responses.length, "headless-result", `a run of two rounds gave ${results.length} result line(s) (${JSON.stringify(results.map((r) => r.type === "result" && r.num_turns))} turns; ${responses.length} responses): one result, last, over every round ${WHERE}.`);
  });
});

describe("s24 the program: -p, --output-format, --resume, exit codes", () => {
  it("json prints exactly one line, the result, exit 0; --resume goes on with the saved session", async () => {
    const dir = keep(await scratchCopy(SAMPLE_REPOSITORY));
    const out: string[] = [];
    const first = await program.run(["--workspace", dir, "-p", TASK, "--output-format", "json"], { llm: scripted(), write: (l) => out.push(l) });
    rule(first.exitCode === 0 && out.length === 1, "headless-result", `json: exit ${first.exitCode} and ${out.length} line(s) on stdout: print only the result line, exit 0 when done.`);
    const result = JSON.parse(out[0]!) as Line;
    rule(result.type === "result" && result.session_id.length > 0, "headless-result", `json printed ${out[0]!.slice(0, 120)}: the result line, naming its session.`);
    if (result.type !== "result") return;
    // The session is saved where the graded tree keeps it (a copy of the course when verify grades one): --resume finds it.
    const again: string[] = [];
    const second = await program.run(["--workspace", dir, "--resume", result.session_id, "-p", "Thanks: now list the files again.", "--output-format", "stream-json"], { llm: scripted(), write: (l) => again.push(l) });
    rule(second.history.length > first.history.length, "headless-result", () => `--resume ${result.session_id} sent a history of ${second.history.length} message(s), the first run's had ${first.history.length}: load the saved session's messages and append the new prompt to them.`);
    const parsed = again.map((l) => JSON.parse(l) as Line);
    rule(parsed[0]?.type === "system", "headless-lines", () => `stream-json's first line was of type ${JSON.stringify(parsed[0]?.type)}: print the init line (type "system", subtype "init") before any message.`);
    rule(parsed.at(-1)?.type === "result", "headless-result", () => `stream-json's last line was of type ${JSON.stringify(parsed.at(-1)?.type)}: end with the result line (type "result"), after every message.`);
    for (const f of listSessions()) if (f.name === result.session_id) removeSession(f.name); // leaves the sessions folder (this file's own: tests/sessions.each.ts) as it found it
  });

  it("offline, a task the scripted model has no script for: exit 1, and the result line says not done too (is_error, no_script)", async () => {
    const dir = keep(await scratchCopy(SAMPLE_REPOSITORY));
    const before = new Set(listSessions().map((f) => f.name));
    const out: string[] = [];
    const stderr = vi.spyOn(process.stderr, "write").mockImplementation(() => true);
    const r = await program.run(["--workspace", dir, "-p", "What is the weather in Paris?", "--output-format", "json"], { llm: scripted(), write: (l) => out.push(l) }).finally(() => stderr.mockRestore());
    for (const f of listSessions()) if (!before.has(f.name)) removeSession(f.name);
    const result = JSON.parse(out.at(-1) ?? "null") as Line | null;
    rule(r.exitCode === 1, "headless-result", `an unscripted task offline exited ${r.exitCode}: it is not done, exit 1.`);
    rule(
      out.length === 1 && result?.type === "result" && result.is_error && result.subtype === "error" && result.stop_reason === "no_script",
      "headless-result",
      `an unscripted task offline (exit ${r.exitCode}) printed ${JSON.stringify(out).slice(0, 300)}: a script reads the result line, so it must agree with the exit code: is_error true, subtype "error", stop_reason "no_script" (program.ts run).`,
    );
  });

  it("usage mistakes exit 2; --help names headless mode; npm run agent runs this program or a later one", async () => {
    checkFinalAgent(24, "s24");
    rule(/--output-format[\s\S]*stream-json[\s\S]*--resume[\s\S]*Exit codes/.test(program.HEADLESS_USAGE), "final-agent", "--help (HEADLESS_USAGE) does not explain -p, --output-format, --resume and the exit codes.");
    for (const argv of [["--output-format", "yaml", "-p", "x"], ["--output-format", "json"], ["-p"]]) {
      const said: string[] = [];
      const out: string[] = [];
      const stderr = vi.spyOn(process.stderr, "write").mockImplementation((chunk) => (said.push(String(chunk)), true));
      const r = await program.run(argv, { llm: scripted(), write: (l) => out.push(l) }).finally(() => stderr.mockRestore());
      rule(r.exitCode === 2, "final-agent", `npm run agent -- ${argv.join(" ")} exited ${r.exitCode}: a mistake in the flags is exit 2.`);
      const lines = said.join("").split("\n").filter((l) => l.trim() !== "");
      rule(lines.length === 1 && out.length === 0, "final-agent", `npm run agent -- ${argv.join(" ")} said ${JSON.stringify(lines)} on stderr and ${out.length} line(s) on stdout: a mistake in the flags is one line on stderr, nothing on stdout, no run.`);
    }
  });

  it("as a process: npm run agent -- -p … --output-format stream-json prints only JSON lines on stdout; a stopped run exits 1", async () => {
    const before = new Set(listSessions().map((f) => f.name));
    const agent = (args: string[]) => spawnSync(process.execPath, ["--import", "tsx", join(ROOT, "scripts/agent.ts"), ...args], { cwd: ROOT, env: { ...process.env, NO_COLOR: "1", COURSE_OFFLINE: "1", ANTHROPIC_API_KEY: "", ANTHROPIC_BASE_URL: "" }, input: "", encoding: "utf8", timeout: 120_000 });
    const dir = keep(await scratchCopy(SAMPLE_REPOSITORY));
    const r = agent(["--workspace", dir, "-p", TASK, "--output-format", "stream-json"]);
    const bad = r.stdout.split("\n").filter((l) => l.trim() !== "").filter((l) => {
      try {
        JSON.parse(l);
        return false;
      } catch {
        return true;
      }
    });
    const kinds = r.stdout.split("\n").filter((l) => l.trim() !== "").map((l) => (JSON.parse(l) as Line).type);
    rule(bad.length === 0 && kinds[0] === "system" && kinds.at(-1) === "result" && kinds.includes("assistant") && kinds.includes("user"), "final-agent", `stream-json printed these lines on stdout: ${JSON.stringify(kinds)}: the init line, the assistant and user lines, then the result, on stdout itself (not on stderr; stderr: ${r.stderr.slice(-300)}).`);
    rule(r.status === 0 && bad.length === 0, "final-agent", `exit ${r.status}; stdout lines that are not JSON: ${JSON.stringify(bad.slice(0, 3))} (stderr: ${r.stderr.slice(-300)}): in json modes everything for a person goes to stderr.`);
    const stopped = agent(["--workspace", dir, "--max-turns", "1", "-p", TASK, "--output-format", "json"]);
    // The sessions these runs saved are removed: the test leaves its sessions folder as it found it.
    for (const f of listSessions()) if (!before.has(f.name)) removeSession(f.name);
    rule(stopped.status === 1, "final-agent", `a run stopped by --max-turns 1 exited ${stopped.status}: not done is exit 1. stdout: ${stopped.stdout.slice(0, 200)}`);
    const printed = stopped.stdout.split("\n").filter((l) => l.trim() !== "");
    const result = (() => {
      try {
        return JSON.parse(printed[0] ?? "") as Line;
      } catch {
        return undefined;
      }
    })();
    rule(printed.length === 1 && result?.type === "result" && result.is_error && result.stop_reason === "max_turns", "final-agent", `json of a run stopped by --max-turns 1 printed ${JSON.stringify(printed.slice(0, 3)).slice(0, 300)}: exactly one line, the result, is_error true, stop_reason "max_turns".`);
  }, 300_000);
});

differentialNet("s24");
