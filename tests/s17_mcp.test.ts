/**
 * s17_mcp: tools from MCP servers over stdio. Grades lessons/ or solutions/ (COURSE_TREE). The
 * example server (examples/mcp-notes) runs for real, offline. Its tools reach the API as
 * mcp__<server>__<tool> with their JSON Schemas; results map to tool_result blocks (text, image,
 * isError → is_error); a server that hangs, crashes, errors or does not start is an is_error result
 * or a reported problem, never an exception; and the servers are stopped when the run ends.
 */
import { spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { APIError } from "@anthropic-ai/sdk";
import type Anthropic from "@anthropic-ai/sdk";
import { describe, expect, it } from "vitest";
import { call, say } from "../runtime/scripted/scenarios/script.ts";
import type { Scenario } from "../runtime/scripted/types.ts";
import { MCP_EXAMPLE_CONFIG, S12_TASK, S17_TASK } from "../runtime/tasks.ts";
import { ROOT, RuleError, driveLoop, errorText, gradedTree, loadLesson, rule, scripted, textIn } from "../runtime/testing.ts";
import { output } from "../runtime/print.ts";
import { scratchCopy, scratchWorkspace } from "../runtime/tools/files.ts";
import { sandboxInfo } from "../runtime/tools/sandbox.ts";
import { refuseAll } from "../solutions/s07_safe_tools/approval.ts";
import { clip, expectExit, quietLessonFile, show } from "./support.ts";

type Agent = typeof import("../solutions/s17_mcp/agent.ts");
type Mcp = typeof import("../solutions/s17_mcp/mcp.ts");
type Program = typeof import("../solutions/s17_mcp/program.ts");
type Options = NonNullable<Parameters<Agent["runAgent"]>[2]>;
const lesson = await loadLesson<Agent>("s17_mcp");
const program = await loadLesson<Program>("s17_mcp", "program.ts");
const mcp = await loadLesson<Mcp>("s17_mcp", "mcp.ts");
const keep = quietLessonFile();

const API_TOOL_NAME = /^[a-zA-Z0-9_-]{1,128}$/;
const resultsOf = (m: Anthropic.MessageParam): Anthropic.ToolResultBlockParam[] =>
  typeof m.content === "string" ? [] : (m.content as Anthropic.ContentBlockParam[]).filter((b): b is Anthropic.ToolResultBlockParam => b.type === "tool_result");
/** A result's text, whatever its content's shape (the content-by-shape reader every lesson test uses). */
const textOf = (r: Anthropic.ToolResultBlockParam) => textIn(r.content);

/** The example server's config, with test switches in its environment. */
function notesConfig(env: Record<string, string> = {}) {
  const config = mcp.readMcpConfig(MCP_EXAMPLE_CONFIG);
  // A server that writes its pid for the test runs outside the sandbox: inside, its /tmp is its
  // own and its pid is its PID namespace's (tests/tools/mcp-launch.test.ts checks the sandboxed one).
  return { notes: { ...config.notes!, env: { ...config.notes!.env, ...env }, ...(env.MCP_NOTES_PIDFILE ? { sandbox: false } : {}) } };
}

async function runWith(scenario: Scenario | string, opts: Options, task = "Use the notes.") {
  const llm = scripted({ scenario });
  const history: Anthropic.MessageParam[] = [{ role: "user", content: task }];
  // Servers are processes: starting one on a busy machine takes a while, so the loop gets longer than usual.
  const outcome = await driveLoop(llm, history, () => lesson.runAgent(llm, history, { approve: refuseAll, ...opts }), { timeoutMs: 30_000 });
  return { llm, history, outcome };
}

/**
 * runWith, for a run with a failing server: a loop that throws (a client error let out) or does
 * not return (a call with no time limit) breaks mcp-errors, and says so in those words.
 */
async function runFaulty(scenario: Scenario, opts: Options, what: string) {
  try {
    return await runWith(scenario, opts);
  } catch (e) {
    if (e instanceof RuleError && e.rule === "loop-did-not-return")
      throw new RuleError("mcp-errors", `${what}: ${e.message.replace(/^\[loop-did-not-return\] /, "")} Give every server call a time limit (mcpCallTimeoutMs) and answer a call past it with an is_error result.`, { cause: e });
    // The loop threw in the middle of a turn: its transcript is broken too, but the throw is the cause.
    const thrown = e instanceof RuleError ? (e.cause !== undefined && !(e.cause instanceof APIError) ? e.cause : undefined) : e instanceof Error && /^the loop failed: /.test(e.message) && e.cause !== undefined ? e.cause : e;
    if (thrown === undefined) throw e;
    throw new RuleError("mcp-errors", `${what}: the loop threw (${errorText(thrown)}). A server that hangs, crashes, is gone or does not start is an is_error result or a reported problem: catch the MCP client's errors and turn them into is_error results.`, { cause: e });
  }
}

/** Resolves once the process is gone (checked as events allow; fails after `ms`). */
async function gone(pid: number, ms = 10_000): Promise<boolean> {
  const until = Date.now() + ms;
  while (Date.now() < until) {
    try {
      process.kill(pid, 0);
    } catch {
      return true;
    }
    await new Promise((r) => setTimeout(r, 50));
  }
  return false;
}

describe("s17 the example MCP server's tools, through the loop", () => {
  it("offers them as mcp__notes__<tool> with the input the server describes, calls them, and answers", async () => {
    const { llm, history, outcome } = await runWith("s17_mcp", { mcpServers: notesConfig() }, S17_TASK);
    rule(outcome.status === "done", "typed-outcome", () => `the default task ended "${outcome.status}"${typeof (outcome as { reason?: unknown }).reason === "string" ? ` (${(outcome as { reason: string }).reason})` : ""}, not "done": when the model answers with end_turn, return { status: "done", … }; a stop means a guard or an error ended the run early, and its reason says which.`);
    const tools = (llm.scripted.exchanges[0]!.request as { tools: Anthropic.Tool[] }).tools;
    const search = tools.find((t) => t.name === "mcp__notes__search");
    rule(search !== undefined, "mcp-tools", () => `the first request offered no tool named mcp__notes__search (its tools: ${tools.map((t) => t.name).join(", ")}): name each server tool mcp__<server>__<tool>, so two servers' tools never collide and each call goes to its server.`);
    const schema = search!.input_schema as { type?: unknown; properties?: { query?: { type?: unknown } }; required?: unknown };
    rule(
      schema.type === "object" && schema.properties?.query?.type === "string" && JSON.stringify(schema.required) === JSON.stringify(["query"]),
      "mcp-tools",
      () => `mcp__notes__search went out with the input_schema ${JSON.stringify(schema).slice(0, 120)}, not the server's own JSON Schema (query: string, required): pass the tool's inputSchema on as input_schema.`,
    );
    const badNames = tools.map((t) => t.name).filter((n) => !API_TOOL_NAME.test(n));
    rule(badNames.length === 0, "mcp-tools", () => `the request offered tools whose names the API refuses (${badNames.join(", ")}): keep to a-z, A-Z, 0-9, _ and -, at most 128 characters (toolName).`);
    const note = textOf(resultsOf(history[4]!)[0]!);
    rule(/locks after 3 failed logins/.test(note), "mcp-results", () => `the server's note did not reach the model: the tool_result of the read_note call says ${JSON.stringify(note.slice(0, 120))}. Pass the server's text content on as the result's text.`);
  });

  it("stops the server's process when the run ends, done or stopped by a guard", async () => {
    for (const guards of [{}, { maxTurns: 1 }]) {
      const pidFile = join(keep(mkdtempSync(join(tmpdir(), "mcp-pid-"))), "pid");
      await runWith("s17_mcp", { mcpServers: notesConfig({ MCP_NOTES_PIDFILE: pidFile }), guards }, S17_TASK);
      const pid = Number(readFileSync(pidFile, "utf8"));
      rule(await gone(pid), "mcp-close", () => `the run ended (${JSON.stringify(guards) === "{}" ? "done" : "stopped by maxTurns 1"}), and the server's process (pid ${pid}) is still running: close the servers the run started when it ends, in a finally.`);
    }
  });

  it("stops the server's process when the loop throws (the API fails every request)", async () => {
    const pidFile = join(keep(mkdtempSync(join(tmpdir(), "mcp-pid-"))), "pid");
    const llm = scripted({ scenario: "s17_mcp", faults: () => ({ kind: "server_error" }) });
    const history: Anthropic.MessageParam[] = [{ role: "user", content: S17_TASK }];
    // s11's loop throws here; a run that turns the failure into an outcome instead is fine too.
    let ended = "returned";
    try {
      await lesson.runAgent(llm, history, { approve: refuseAll, mcpServers: notesConfig({ MCP_NOTES_PIDFILE: pidFile }) });
    } catch {
      ended = "threw";
    }
    const pid = Number(readFileSync(pidFile, "utf8"));
    rule(await gone(pid), "mcp-close", `every request failed, the run ${ended}, and the server's process (pid ${pid}) is still running: close the servers in a finally, so a run that throws stops them too.`);
  });

  it("the servers are stopped BEFORE the run returns (done, stopped or thrown), not after it", async () => {
    // The class of bug: a resource released without waiting (close() not awaited, or left to a
    // callback), so the run returns with its servers still running. Checked at the very moment
    // runAgent settles: no waiting here, so a close still under way is seen.
    const alive = (pid: number) => {
      try {
        process.kill(pid, 0);
        return true;
      } catch {
        return false;
      }
    };
    const endings: Array<{ name: string; guards?: Options["guards"]; faults?: boolean }> = [{ name: "done" }, { name: "stopped by maxTurns 1", guards: { maxTurns: 1 } }, { name: "thrown (the API fails every request)", faults: true }];
    for (const ending of endings) {
      const pidFile = join(keep(mkdtempSync(join(tmpdir(), "mcp-pid-"))), "pid");
      const llm = scripted({ scenario: "s17_mcp", ...(ending.faults ? { faults: () => ({ kind: "server_error" as const }) } : {}) });
      const history: Anthropic.MessageParam[] = [{ role: "user", content: S17_TASK }];
      let running = false;
      await lesson
        .runAgent(llm, history, { approve: refuseAll, mcpServers: notesConfig({ MCP_NOTES_PIDFILE: pidFile }), ...(ending.guards ? { guards: ending.guards } : {}) })
        .then(
          () => (running = alive(Number(readFileSync(pidFile, "utf8")))),
          () => (running = alive(Number(readFileSync(pidFile, "utf8")))),
        );
      rule(!running, "mcp-released", () => `the run ended (${ending.name}) while the server's process was still running: await the servers' close() in the finally, so they are gone before the run returns.`);
      await gone(Number(readFileSync(pidFile, "utf8")));
    }
  });

  it("maps results: text, an image block, isError → is_error", async () => {
    const scenario: Scenario = {
      id: "test-mcp-results",
      title: "calls three tools",
      reply: (ctx) => (ctx.step === 0 ? { content: [call("mcp__notes__diagram", {}), call("mcp__notes__read_note", { id: "nope" }), call("mcp__notes__read_note", {})] } : say("ok")),
    };
    const { history } = await runWith(scenario, { mcpServers: notesConfig() });
    const [diagram, unknown, invalid] = resultsOf(history[2]!);
    const shown = (r: Anthropic.ToolResultBlockParam | undefined) => JSON.stringify(r ?? null).slice(0, 160);
    rule(diagram?.is_error !== true, "mcp-results", () => `mcp__notes__diagram succeeded (no isError), and its tool_result says is_error: ${shown(diagram)}. Set is_error only when the server's result says isError: true.`);
    const kinds = Array.isArray(diagram?.content) ? diagram.content.map((b) => b.type) : typeof diagram?.content;
    rule(
      JSON.stringify(kinds) === JSON.stringify(["text", "image"]),
      "mcp-results",
      () => `mcp__notes__diagram returned a text and a PNG image, and its tool_result's content is ${JSON.stringify(kinds)}: map each text item to a text block and each image to an image block ({ type: "image", source: { type: "base64", media_type: mimeType, data } }), in order.`,
    );
    rule(unknown?.is_error === true, "mcp-results", () => `mcp__notes__read_note({ id: "nope" }) came back from the server with isError: true, and its tool_result is a success: ${shown(unknown)}. Set is_error: true when the result says isError.`);
    rule(/No note has the id "nope"/.test(textOf(unknown!)), "mcp-results", () => `mcp__notes__read_note({ id: "nope" }) failed, and its is_error result says ${JSON.stringify(textOf(unknown!).slice(0, 120))}, not the server's own words (No note has the id "nope"…): pass the server's text on as the result's content.`);
    rule(invalid?.is_error === true, "mcp-errors", () => `mcp__notes__read_note({}) (no id: the server refuses the input) was answered as a success: ${shown(invalid)}. A call the server refuses is an is_error result too.`);
  });
});

describe("s17 a server runs in the run's workspace", () => {
  it.skipIf(sandboxInfo().kind !== "bubblewrap")("inside the OS sandbox, the server may write in the run's root (opts.root), the folder it is given", async () => {
    const root = keep(await scratchWorkspace({ "notes.txt": "x\n" }));
    const config = mcp.readMcpConfig(MCP_EXAMPLE_CONFIG);
    const problems: string[] = [];
    await runWith({ id: "test-mcp-root", title: "answers", reply: () => say("ok") }, { root, mcpServers: { notes: { ...config.notes!, env: { ...config.notes!.env, MCP_NOTES_PIDFILE: join(root, "pid") } } }, onMcpProblem: (p) => problems.push(p) });
    rule(
      existsSync(join(root, "pid")),
      "workspace",
      () => `the example server, started in the sandbox for a run whose root is ${root}, could not write its pid file there (problems: ${show(problems)}): start the servers with the run's workspace (opts.root, else the current folder), the one folder the sandbox lets them change.`,
    );
  });
});

describe("s17 servers handed to the run belong to the caller", () => {
  it("a run given running servers (opts.mcp) leaves them running; only the servers it started itself are stopped", async () => {
    const servers = await mcp.McpServers.start(notesConfig());
    try {
      const pids = servers.pids();
      expect(pids.length, "[mcp-close] (a check of this test itself, not of your loop) the example server started").toBeGreaterThan(0);
      await runWith("s17_mcp", { mcp: servers }, S17_TASK);
      const stopped: number[] = [];
      for (const pid of pids) if (await gone(pid, 500)) stopped.push(pid);
      rule(
        stopped.length === 0,
        "mcp-close",
        () => `the run was handed running servers (opts.mcp), and when it ended their process (pid ${stopped.join(", ")}) was gone: the caller may run more with them. Close only the servers runAgent started itself (from opts.mcpServers), in its finally.`,
      );
    } finally {
      await servers.close();
    }
  });
});

describe("s17 a server that fails is an is_error result with a clear message, never an exception", () => {
  // Two runs, so neither verdict depends on the machine's speed. The hang never answers, so a call limit
  // of a quarter second can only end it by the limit, on any machine, and the test waits no longer than
  // that; the crash and the call after it run with a limit no busy machine reaches (60 s), so a crash
  // seen late is still a crash, never a call past its limit.
  it("hangs (past the call's limit), crashes during a call, then is gone: three is_error results, the run goes on", async () => {
    const calling = (id: string, steps: ReturnType<typeof call>[]): Scenario => ({ id, title: id, reply: (ctx) => (ctx.step < steps.length ? { content: [steps[ctx.step]!] } : say("ok")) });
    const hung = await runFaulty(calling("test-mcp-hang", [call("mcp__notes__hang", {})]), { mcpServers: notesConfig({ MCP_NOTES_FAULTS: "1" }), mcpCallTimeoutMs: 250 }, "a server that hangs");
    const crashed = await runFaulty(calling("test-mcp-crash", [call("mcp__notes__crash", {}), call("mcp__notes__search", { query: "x" })]), { mcpServers: notesConfig({ MCP_NOTES_FAULTS: "1" }), mcpCallTimeoutMs: 60_000 }, "a server that crashes, then is gone");
    for (const [run, what] of [[hung, "hung"], [crashed, "crashed and was gone"]] as const)
      rule(run.outcome.status === "done", "mcp-errors", `the server ${what}, and the run ended ${run.outcome.status}: every server failure is a tool result, and the loop goes on`);
    const hang = resultsOf(hung.history[2]!)[0]!;
    const [crash, after] = [2, 4].map((i) => resultsOf(crashed.history[i]!)[0]!);
    const cases: Array<[Anthropic.ToolResultBlockParam, string, RegExp, string]> = [
      [hang, "a call the server never answered (past mcpCallTimeoutMs)", /did not answer|time|too long|longer than|hang|no answer|abandon/i, "that the server did not answer in time"],
      [crash!, "a call during which the server crashed", /stopped|ended|closed|not running|crash|exit|gone|died|disconnect/i, "that the server stopped"],
      [after!, "a call to the server after it was gone", /not running|stopped|closed|crash|exit|gone|died|disconnect|unavailable|ended/i, "that the server is not running"],
    ];
    for (const [r, what, words, tell] of cases) {
      rule(r.is_error === true, "mcp-errors", () => `${what} was answered as a success (${JSON.stringify(textOf(r)).slice(0, 120)}): catch the client's error and answer the call with an is_error result.`);
      rule(words.test(textOf(r)), "mcp-errors", () => `${what} was answered with ${JSON.stringify(textOf(r)).slice(0, 120)}: say ${tell}, so the model knows what happened.`);
    }
  });

  it("a server that does not start is reported, and the run goes on without its tools", async () => {
    const problems: string[] = [];
    const scenario: Scenario = { id: "test-mcp-none", title: "answers", reply: (ctx) => say(`tools: ${ctx.tools.filter((t) => t.startsWith("mcp__")).join(",") || "none"}`) };
    const { outcome, llm } = await runFaulty(scenario, { mcpServers: { broken: { command: "/definitely/not/a/command" } }, onMcpProblem: (p) => problems.push(p) }, "a server that does not start");
    rule(outcome.status === "done", "mcp-errors", () => `a server that does not start ended the run ${show(outcome)}: report it (onMcpProblem) and go on without its tools.`);
    expect(problems.join("\n"), "[mcp-errors] the problem names the server").toMatch(/broken/);
    const offered = (llm.scripted.exchanges[0]!.request as { tools: Anthropic.Tool[] }).tools.map((t) => t.name);
    rule(!offered.some((n) => n.startsWith("mcp__broken")), "mcp-errors", () => `the request offered ${show(offered)}: a server that did not start has no tools to offer.`);
  });

  it("with no onMcpProblem, a server that does not start is printed for the person at the terminal; a run without servers reports nothing", async () => {
    const printed: string[] = [];
    const original = output.write;
    output.write = (line: string) => void printed.push(line);
    try {
      await runFaulty({ id: "test-mcp-print", title: "answers", reply: () => say("ok") }, { mcpServers: { broken: { command: "/definitely/not/a/command" } } }, "a server that does not start");
    } finally {
      output.write = original;
    }
    rule(printed.some((line) => /broken/.test(line)), "mcp-errors", () => `a server that did not start, with no onMcpProblem given, was not reported (the run printed ${show(printed.slice(0, 5))}): print the problem (say) when the caller gives no onMcpProblem, so the person knows the server's tools are missing.`);
    const problems: string[] = [];
    await runWith({ id: "test-mcp-noservers", title: "answers", reply: () => say("ok") }, { onMcpProblem: (p) => problems.push(p) });
    rule(problems.length === 0, "mcp-errors", () => `a run with no MCP servers reported the problems ${show(problems)}: report only the problems of servers that failed to start.`);
  });
});

describe("s17 the pieces: config, names, results", () => {
  it("readMcpConfig reads the mcpServers format and refuses a bad file with a message that says what is wrong", () => {
    const config = mcp.readMcpConfig(MCP_EXAMPLE_CONFIG);
    expect(Object.keys(config), "[final-agent] the example config has one server, notes").toEqual(["notes"]);
    expect(() => mcp.readMcpConfig("/definitely/not/here.json"), "[final-agent] a missing config file: the message says so").toThrow(/no such file/);
    const dir = keep(mkdtempSync(join(tmpdir(), "mcp-config-")));
    const write = (name: string, text: string) => {
      const file = join(dir, name);
      writeFileSync(file, text);
      return file;
    };
    expect(() => mcp.readMcpConfig(write("bad.json", "{ not json")), "[final-agent] a config that is not JSON: the message says so").toThrow(/not valid JSON/);
    expect(() => mcp.readMcpConfig(write("shape.json", JSON.stringify({ servers: {} }))), "[final-agent] a config without mcpServers: the message names it").toThrow(/mcpServers/);
    expect(() => mcp.readMcpConfig(write("cmd.json", JSON.stringify({ mcpServers: { x: { args: [] } } }))), "[final-agent] a server without a command: the message names it").toThrow(/command/);
  });

  it("toolName namespaces the tool and keeps to the characters and length the API allows", () => {
    const named = mcp.toolName("notes", "search");
    rule(named === "mcp__notes__search", "mcp-tools", () => `toolName("notes", "search") gave ${show(named)}, not "mcp__notes__search": mcp__<server>__<tool>, so two servers' tools never clash.`);
    for (const [server, tool] of [["my.server", "do thing/now"], ["s", "t".repeat(300)]] as const)
      expect(mcp.toolName(server, tool), `[mcp-tools] toolName(${JSON.stringify(server)}, ${JSON.stringify(tool.slice(0, 20))}…) must keep to a-z A-Z 0-9 _ - and 128 characters`).toMatch(API_TOOL_NAME);
  });

  it("toToolResult maps text, image, isError, unknown and empty content", () => {
    const shown = (r: Anthropic.ToolResultBlockParam) => JSON.stringify(r).slice(0, 200);
    const types = (r: Anthropic.ToolResultBlockParam) => (Array.isArray(r.content) ? r.content.map((b) => b.type) : typeof r.content === "string" ? ["text"] : []);
    const r = mcp.toToolResult("toolu_1", { content: [{ type: "text", text: "hi" }, { type: "image", data: "AAAA", mimeType: "image/png" }, { type: "audio", data: "x", mimeType: "audio/wav" }] });
    rule(r.type === "tool_result" && r.tool_use_id === "toolu_1", "mcp-results", () => `toToolResult("toolu_1", …) did not return a tool_result for that id: return { type: "tool_result", tool_use_id: id, … } (it returned ${shown(r)}).`);
    rule(
      JSON.stringify(types(r)) === JSON.stringify(["text", "image", "text"]),
      "mcp-results",
      () => `a result of text, a PNG image and audio became blocks of ${JSON.stringify(types(r))}: map text to a text block, a PNG/JPEG/GIF/WebP image to an image block (base64 source with its mimeType), anything else to a short text that says what it was.`,
    );
    const audio = Array.isArray(r.content) ? r.content[2] : undefined;
    const said = audio?.type === "text" ? audio.text : "";
    rule(/audio/.test(said) && /audio\/wav/.test(said), "mcp-results", () => `an audio item (audio/wav) became the text ${show(said)}: say what the content was, its type and its mimeType (audio/wav), so the model knows what it did not get.`);
    // Only an image item is an image: the protocol lets audio name any mimeType, an image one too.
    const odd = mcp.toToolResult("toolu_8", { content: [{ type: "audio", data: "AAAA", mimeType: "image/png" }] });
    rule(JSON.stringify(types(odd)) === JSON.stringify(["text"]), "mcp-results", () => `an audio item whose mimeType says image/png became blocks of ${JSON.stringify(types(odd))}: only an item of type "image" (with a PNG/JPEG/GIF/WebP mimeType) becomes an image block; check the item's type, not its mimeType alone.`);
    const link = mcp.toToolResult("toolu_7", { content: [{ type: "resource_link", uri: "file:///notes/1", name: "note 1" }] });
    rule(/resource_link/.test(textOf(link)) && !/undefined/.test(textOf(link)), "mcp-results", () => `a resource_link item (no mimeType) became the text ${show(textOf(link))}: say what it was; a content without a mimeType has none to name (never "undefined").`);
    // Without a mimeType, the same words with the mimeType left out: nothing put in its place.
    const typed = textOf(mcp.toToolResult("toolu_9", { content: [{ type: "resource_link", uri: "file:///notes/1", name: "note 1", mimeType: "text/plain" }] }));
    /** short is long with some characters left out (each of short's, in order, found in long). */
    const within = (short: string, long: string) => {
      let at = 0;
      for (const ch of short) if ((at = long.indexOf(ch, at) + 1) === 0) return false;
      return true;
    };
    rule(within(textOf(link), typed), "mcp-results", () => `a resource_link with mimeType text/plain became ${show(typed)}, and without one ${show(textOf(link))}: without a mimeType say the same, leaving the mimeType out (nothing in its place).`);
    rule(r.is_error !== true, "mcp-results", () => `a result without isError became is_error: set is_error only when isError is true (it returned ${shown(r)}).`);
    const denied = mcp.toToolResult("toolu_0", { content: [{ type: "text", text: "fine" }], isError: false });
    rule(denied.is_error !== true, "mcp-results", () => `a result with isError: false became is_error: set is_error only when isError is true (it returned ${shown(denied)}).`);
    const failed = mcp.toToolResult("toolu_2", { content: [], isError: true });
    rule(failed.is_error === true, "mcp-results", () => `a result with isError: true was passed on as a success: set is_error: true when the server says isError (it returned ${shown(failed)}).`);
    rule(textOf(failed).length > 0, "mcp-results", () => `a result with isError: true and no content became an is_error result with empty content, which the API refuses: say that the tool failed (it returned ${shown(failed)}).`);
    const nothing = mcp.toToolResult("toolu_3", { content: [] });
    rule(textOf(nothing) !== "", "mcp-results", () => `a result with no content became an empty tool_result: say there was no output, so the model knows the call ran (it returned ${shown(nothing)}).`);
    // Content the API would refuse, or lose: an SVG image, an empty text, output only as structuredContent.
    const svg = mcp.toToolResult("toolu_4", { content: [{ type: "image", data: "PHN2Zz4=", mimeType: "image/svg+xml" }] });
    rule(
      !types(svg).includes("image") && textOf(svg).length > 0,
      "mcp-results",
      () => `an image/svg+xml image became an image block, and the API reads only JPEG, PNG, GIF and WebP images (it refuses the request): pass only those four as image blocks, any other as a short text that says what it was (it returned ${shown(svg)}).`,
    );
    const blank = mcp.toToolResult("toolu_5", { content: [{ type: "text", text: "" }, { type: "text", text: "after" }] });
    const empties = Array.isArray(blank.content) ? blank.content.filter((b) => b.type === "text" && !b.text) : [];
    rule(empties.length === 0 && textOf(blank).includes("after"), "mcp-results", () => `a result of an empty text and "after" kept the empty text as a block, which the API refuses: leave empty texts out (it returned ${shown(blank)}).`);
    const structured = mcp.toToolResult("toolu_6", { content: [], structuredContent: { total: 42 } });
    rule(
      /42/.test(textOf(structured)),
      "mcp-results",
      () => `a result with no content but structuredContent { total: 42 } lost what the tool returned: when there is no content, send the structuredContent as JSON text (it returned ${shown(structured)}).`,
    );
    const both = mcp.toToolResult("toolu_8", { content: [{ type: "text", text: "The total is 42." }], structuredContent: { total: 42 } });
    rule(
      !/"total"/.test(textOf(both)),
      "mcp-results",
      () => `a result with the text "The total is 42." and structuredContent { total: 42 } sent both (${shown(both)}): a server that returns structuredContent also gives it as content, so send the JSON only when there is no content (it costs the model tokens twice).`,
    );
  });
});

/**
 * s17's program (tsx and s17's program.ts, of the tree being graded) as a process in `cwd`: stdin
 * is a pipe, not a terminal; no --yes; no key, so the scripted model answers. `npm run agent` runs
 * the latest lesson, which builds on this one and is graded with it; this check must not depend on later ones.
 */
function agentProcess(cwd: string, args: string[]) {
  const entry = join(ROOT, gradedTree(), "s17_mcp", "program.ts");
  const env: NodeJS.ProcessEnv = { ...process.env, NO_COLOR: "1" };
  for (const name of ["ANTHROPIC_API_KEY", "ANTHROPIC_AUTH_TOKEN", "ANTHROPIC_BASE_URL", "MODEL_ID"]) delete env[name];
  return spawnSync(process.execPath, ["--import", "tsx", entry, ...args], { cwd, env, input: "", encoding: "utf8", timeout: 90_000 });
}

describe("s17 the final agent: npm run agent", () => {
  it("solves the capstone's task offline, with approval refused (no --yes, no terminal), and exits 0", async () => {
    const dir = keep(await scratchCopy(join(ROOT, "examples", "login-service")));
    const result = await program.run(["--workspace", dir, S12_TASK], { llm: scripted() });
    const { history } = result;
    expectExit(result, 0, "the capstone's task, offline, with approval refused");
    const answer = JSON.stringify(history[history.length - 1]!.content);
    expect(answer, "[final-agent] the answer names the line at fault").toMatch(/src\/login\.js line \d+/);
    expect(answer, "[final-agent] the answer says what is wrong at that line (an off-by-one)").toMatch(/off-by-one/);
  });

  it("as a process: `npm run agent -- --workspace examples/login-service --mcp-config examples/mcp-notes/mcp.json \"…\"` uses a tool of the example MCP server offline, and exits 0", () => {
    const r = agentProcess(ROOT, ["--workspace", "examples/login-service", "--mcp-config", "examples/mcp-notes/mcp.json", S17_TASK]);
    rule(!/Error:|at .*\.ts:\d+/.test(r.stderr), "final-agent", () => `npm run agent wrote an error or a stack trace: ${JSON.stringify(clip(r.stderr, 300))}. Catch what a run can throw in the program (s12/program.ts) and print one line that says what to do.`);
    rule(r.stdout.includes("→ mcp__notes__search"), "mcp-tools", () => `npm run agent with --mcp-config never called the notes server's search tool: list the server's tools to the model as mcp__<server>__<tool>. It printed: ${JSON.stringify(clip(r.stdout, 300))}`);
    rule(/locks after 3 failed logins/.test(r.stdout), "mcp-results", () => `npm run agent did not answer from the note the server returned: hand the MCP result's text to the model as the tool_result. It printed: ${JSON.stringify(clip(r.stdout, 300))}`);
    rule(r.status === 0, "final-agent", () => `npm run agent exited ${String(r.status)}, not 0, on a task it can do: a run that ends "done" exits 0. Its last output: ${JSON.stringify(clip(r.stderr || r.stdout, 300))}`);
  });

  it("a bad --mcp-config or --skills is one line and exit 2; --help names both", async () => {
    const quiet = { llm: scripted() };
    expectExit(await program.run(["--mcp-config", "nope.json", "hi"], quiet), 2, "--mcp-config of a missing file");
    expectExit(await program.run(["--skills", "/definitely/not/here", "hi"], quiet), 2, "--skills of a missing folder");
    expectExit(await program.run(["--mcp-config"], quiet), 2, "--mcp-config without a value");
    expect(program.partTwoFlags(["--skills=dir", "-v", "--mcp-config", "f.json", "task"]), "[final-agent] --skills=dir and --mcp-config f.json are taken out; the rest is s12's").toEqual({ skills: "dir", mcpConfig: "f.json", rest: ["-v", "task"] });
    expect(() => program.partTwoFlags(["--mcp-config", "--yes"]), "[final-agent] a flag where the value belongs: needs a value").toThrow(/needs a value/);
    expect(program.AGENT_USAGE, "[final-agent] --help names both flags").toMatch(/--mcp-config FILE[\s\S]*--skills DIR/);
  });
});

// The net under the rules: this lesson beside the reference, on its own task and on generated
// model answers (tests/differential/net.ts).
import { differentialNet } from "./differential/net.ts";
differentialNet("s17");
