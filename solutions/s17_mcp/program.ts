/**
 * The final agent, `npm run agent`: s12's program (flags, one task or the conversation, the run
 * log, --trace) around the latest loop, s17's: s12's guarded loop with prompt caching (s13), a
 * plan (s14), subagents (s15), skills (s16) and MCP servers (s17), inside s07/s12's workspace,
 * sandbox and approval rules. Two flags more than s12: --mcp-config FILE and --skills DIR.
 *
 * Run: npm run agent -- [--mcp-config FILE] [--skills DIR] [s12's flags] ["task"]   (--help for all)
 */
import type Anthropic from "@anthropic-ai/sdk";
import type { Llm } from "../../runtime/client.ts";
import { runMain } from "../../runtime/lesson.ts";
import { notDoneOffline, scenarioList, unscriptedAnswer, unscriptedRun, unscriptedSentBack } from "../../runtime/offline.ts";
import { red, say, yellow } from "../../runtime/print.ts";
import { protectMcpConfig, protectPath } from "../../runtime/tools/planted.ts";
import type { EventSink } from "../../solutions/s09_observability/events.ts";
import { replOver } from "../../solutions/s10_conversation/agent.ts";
import { optionsFrom as capstoneOptions } from "../../solutions/s12_guarded_agent/agent.ts";
import { USAGE, UsageError, parseFlags } from "../../solutions/s12_guarded_agent/cli.ts";
import { capstoneProgram, type Capstone, type RunResult } from "../../solutions/s12_guarded_agent/program.ts";
import { loadSkills, type Skill } from "../../solutions/s16_skills/skills.ts";
import { runAgent, type RunOptions } from "./agent.ts";
import { McpConfigError, readMcpConfig, type ServerConfig } from "./mcp.ts";

export const AGENT_USAGE = `${USAGE}

The final agent (s13–s17) adds:
  --mcp-config FILE    start the MCP servers of FILE ({ "mcpServers": { … } }) for each run; their tools are
                       mcp__<server>__<tool>. A server runs inside the sandbox, with the tools' environment
                       ("sandbox": false in its config starts it outside, with a warning).
                       Example: --mcp-config examples/mcp-notes/mcp.json
  --skills DIR         the skills of DIR (<skill>/SKILL.md each): listed in the system prompt, loaded on demand
  --scenarios          the tasks the offline model has a script for (any other task, offline, ends not done)
It marks prompt-cache breakpoints, keeps a plan (todo), and hands sub-tasks to subagents (task).`;

/** --mcp-config and --skills taken out of argv (as "--flag value" or "--flag=value"); the rest is s12's. */
export function partTwoFlags(argv: readonly string[]): { mcpConfig?: string; skills?: string; rest: string[] } {
  const out: { mcpConfig?: string; skills?: string; rest: string[] } = { rest: [] };
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    const [flag, inline] = arg.startsWith("--") ? (arg.split(/=(.*)/s) as [string, string | undefined]) : [arg, undefined];
    if (flag !== "--mcp-config" && flag !== "--skills") {
      out.rest.push(arg);
      continue;
    }
    const value = inline ?? argv[++i];
    if (value === undefined || value === "" || (inline === undefined && value.startsWith("--"))) throw new UsageError(`${flag} needs a value: ${flag === "--skills" ? "a folder of skills" : "a file in the mcpServers format"}`);
    if (flag === "--mcp-config") out.mcpConfig = value;
    else out.skills = value;
  }
  return out;
}

/** The loop the program runs: s17's, or a later lesson's (which passes its own, its options and its --help). */
export interface FinalLoop {
  runAgent(llm: Llm, history: Anthropic.MessageParam[], opts: RunOptions): ReturnType<typeof runAgent>;
  lesson: string;
  options?: Partial<RunOptions>;
  usage?: string;
  /** The conversation's REPL (default: s10's, over the loop); a later lesson's may add commands (s21: /rewind). */
  createRepl?: Capstone<RunOptions>["createRepl"];
  /** A tool whose refused call leaves the task not done (s18: exit_plan_mode, a plan never approved). */
  refusalEnds?: RefusalEnds;
}

/** The tool, how a round it was refused in ends (the reason, in words) and what to do, for the last line. */
export interface RefusalEnds {
  tool: string;
  reason: string;
  detail: string;
  advice: string;
}

/** The whole program: flags in, exit code and transcript out (tests pass their own model). */
export async function run(argv: string[], deps: { llm?: Llm; signal?: AbortSignal } = {}, loop: FinalLoop = { runAgent, lesson: "s17_mcp" }): Promise<RunResult> {
  if (argv.includes("--help") || argv.includes("-h")) {
    say(loop.usage ?? AGENT_USAGE);
    return { exitCode: 0, history: [] };
  }
  if (argv.includes("--scenarios")) {
    say(scenarioList());
    return { exitCode: 0, history: [] };
  }
  let mcpServers: Record<string, ServerConfig> | undefined;
  let skills: Skill[] = [];
  let rest: string[];
  try {
    const flags = partTwoFlags(argv);
    rest = flags.rest;
    if (flags.mcpConfig) {
      mcpServers = readMcpConfig(flags.mcpConfig);
      // What the next run will start is never the model's to write (runtime/tools/planted.ts).
      protectMcpConfig(flags.mcpConfig, mcpServers);
    }
    if (flags.skills) {
      protectPath(flags.skills, "skill folder (the next run reads its skills into the prompt)");
      const loaded = loadSkills(flags.skills);
      if (loaded.skills.length === 0 && loaded.problems.length > 0 && /no such folder/.test(loaded.problems[0]!)) throw new UsageError(`--skills ${loaded.problems[0]}`);
      for (const p of loaded.problems) say(yellow(`skill skipped: ${p}`));
      skills = loaded.skills;
    }
  } catch (e) {
    if (!(e instanceof UsageError || e instanceof McpConfigError)) throw e;
    say(red(e.message));
    return { exitCode: 2, history: [] as Anthropic.MessageParam[] };
  }
  const extra: Partial<RunOptions> = { ...(skills.length > 0 ? { skills } : {}), ...(mcpServers ? { mcpServers } : {}), ...loop.options };
  const program = capstoneProgram<RunOptions>({
    runAgent: (llm, history, opts) => loop.runAgent(llm, history, opts),
    optionsFrom: (flags, onEvent) => ({ ...capstoneOptions(flags, onEvent && notDoneWhenUnscripted(notDoneWhenRefused(onEvent, loop.refusalEnds))), ...extra }),
    createRepl: loop.createRepl ?? replOver<RunOptions>((llm, history, opts) => loop.runAgent(llm, history, opts)),
    lesson: loop.lesson,
  });
  const result = await program(rest, deps);
  // Offline, one task the scripted model has no script for is not done, however the loop ended it.
  if (result.exitCode === 0 && result.history.length > 0 && taskGiven(rest) && unscriptedRun(result.history)) {
    say(yellow(notDoneOffline()));
    return { ...result, exitCode: 1, stopped: "no_script" };
  }
  const ends = loop.refusalEnds;
  if (result.exitCode === 0 && ends && taskGiven(rest) && lastRefused(result.history, ends.tool)) {
    say(yellow(`Not done: ${ends.detail}. ${ends.advice}.`));
    return { ...result, exitCode: 1, stopped: ends.reason };
  }
  return result;
}

/**
 * A round that ends while the last call of `ends.tool` was refused (and none since was let
 * through) ends "stopped (reason)", not "done": each round of the task, the Stop hook's included.
 */
function notDoneWhenRefused(sink: EventSink, ends: RefusalEnds | undefined): EventSink {
  if (!ends) return sink;
  let refused = false;
  return (e) => {
    if (e.type === "observe" && e.call.name === ends.tool) refused = e.result.is_error === true;
    if (e.type !== "stop" || !refused || e.outcome.status !== "done") return sink(e);
    const o = e.outcome;
    sink({ ...e, outcome: { status: "stopped", reason: ends.reason, detail: ends.detail, turns: o.turns, message: o.message } });
  };
}

/** Whether the last call of `tool` in the transcript was answered with an error (refused). */
function lastRefused(history: readonly Anthropic.MessageParam[], tool: string): boolean {
  const ids = new Set(history.flatMap((m) => (m.role === "assistant" && typeof m.content !== "string" ? m.content.filter((b) => b.type === "tool_use" && b.name === tool).map((b) => (b as Anthropic.ToolUseBlock).id) : [])));
  const results = history.flatMap((m) => (m.role === "user" && typeof m.content !== "string" ? m.content.filter((b): b is Anthropic.ToolResultBlockParam => b.type === "tool_result" && ids.has(b.tool_use_id)) : []));
  return results.at(-1)?.is_error === true;
}

/**
 * Offline, a round the scripted model answered as a task it has no script for ends "stopped
 * (no_script)", not "done", in the line that says how it ended and in the run log (each turn of a
 * conversation, and each round a Stop hook asks for, is judged on its own answers). It is said once
 * per task: a round a Stop hook asked for after it, which the model can only answer with "I cannot
 * act on that", adds no second "stopped (no_script)" line.
 */
function notDoneWhenUnscripted(sink: EventSink): EventSink {
  let unscripted = false;
  let sentBack = false;
  let said = false;
  return (e) => {
    if (e.type === "think" && unscriptedAnswer(e.message.content)) {
      unscripted = true;
      sentBack = unscriptedSentBack(e.message.content);
    }
    if (e.type !== "stop" || !unscripted) return sink(e);
    unscripted = false;
    if (sentBack && said) return;
    said = true;
    const o = e.outcome;
    sink(o.status !== "done" ? e : { ...e, outcome: { status: "stopped", reason: "no_script", detail: "the scripted model (offline) has no script for this task", turns: o.turns, message: o.message } });
  };
}

/** Whether argv names one task (not the conversation). */
function taskGiven(argv: string[]): boolean {
  try {
    return parseFlags(argv).task !== undefined;
  } catch {
    return false;
  }
}

runMain(import.meta.url, async () => {
  // Ctrl-C stops a one-shot run cleanly (the REPL handles its own Ctrl-C).
  const controller = new AbortController();
  process.once("SIGINT", () => controller.abort());
  const { exitCode } = await run(process.argv.slice(2), { signal: controller.signal });
  process.exitCode = exitCode;
});
