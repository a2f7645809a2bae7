/**
 * The agents `npm run eval` can run, by name:
 *
 *   final (default)   the course's final agent: the runAgent of the lesson npm run agent runs (the last
 *                     course.json with an "agent" field; runtime/registrations.ts finalAgent); a task that
 *                     needs a Part IV feature (task.json `feature`) runs `npm run agent` itself, headless,
 *                     with that feature's flag (program.ts)
 *   final:nocache     the same without its prompt-cache breakpoints (s13's `cache: false`)
 *   sNN               that lesson's reference loop, solutions/sNN_…/agent.ts (s07 and later: the
 *                     first whose tools are confined to a workspace)
 *   lessons/sNN       your own loop of that lesson, lessons/sNN_…/agent.ts
 *   path/to/file.ts   any module exporting runAgent(llm, history, options)
 *   oracle            the task's reference solution (solution.patch, solution.sh, answer.md): must pass every task
 *   null              changes nothing, answers nothing: must fail every task that asks for a change
 *
 * A loop is called as every lesson's is: runAgent(llm, history, { root, approve, guards, signal,
 * mcpServers, cache }); options a lesson does not know it ignores. Inside the OS sandbox (the kernel
 * is the boundary) the scripted model's commands are approved, and a real model's with --allow-commands;
 * otherwise only read-only commands run.
 */
import { existsSync, readFileSync } from "node:fs";
import { isAbsolute, join, resolve } from "node:path";
import { pathToFileURL } from "node:url";
import type Anthropic from "@anthropic-ai/sdk";
import type { Llm } from "../../runtime/client.ts";
import { LESSONS, findLesson } from "../../runtime/manifest.ts";
import { finalAgent } from "../../runtime/registrations.ts";
import { ROOT } from "../lib/paths.ts";
import { approveAll, refuseAll } from "../../solutions/s07_safe_tools/approval.ts";
import { readMcpConfig } from "../../solutions/s17_mcp/mcp.ts";
import { runSafeBash } from "../../solutions/s07_safe_tools/safe-bash.ts";
import { applyUnifiedPatch, PatchError } from "./patch.ts";
import { programAgent, type Upstream } from "./program.ts";
import type { EvalTask } from "./suite.ts";

/** How a run ended, in the loop's own words (Outcome of s05 and later). */
export interface RunEnd {
  stop: string;
  turns?: number;
  detail?: string;
}

export interface AgentRun {
  history: Anthropic.MessageParam[];
  end: RunEnd;
  answer: string;
  /** What went wrong around the loop without stopping it (an MCP server that did not start). */
  notes?: string[];
}

export interface AgentInput {
  task: EvalTask;
  ws: string;
  llm?: Llm;
  /** The same model for an agent in another process (program.ts): a metered fetch and its base URL. */
  upstream?: Upstream;
  signal: AbortSignal;
  /** The agent's commands are approved (run.ts commandsApproved): else every one is refused. */
  approveCommands: boolean;
}

export interface EvalAgent {
  /** The name the reports show. */
  name: string;
  /** Does it call a model? (oracle and null do not.) */
  model: boolean;
  run(input: AgentInput): Promise<AgentRun>;
}

type LoopOptions = Record<string, unknown>;
type Loop = (llm: Llm, history: Anthropic.MessageParam[], opts: LoopOptions) => Promise<unknown>;

export class AgentSpecError extends Error {
  override name = "AgentSpecError";
}

/**
 * The lessons whose reference loop an eval can run, from the manifest: s07 and later (their tools
 * are confined to a workspace), with an agent.ts that exports runAgent.
 */
export function evalLessons(): string[] {
  return LESSONS.filter((l) => Number(l.id.slice(1)) >= 7)
    .filter((l) => {
      const file = join(ROOT, "solutions", l.dir, "agent.ts");
      return existsSync(file) && /export (async function|function|const) runAgent\b/.test(readFileSync(file, "utf8"));
    })
    .map((l) => l.id);
}

export const AGENT_HELP = `an agent is final, final:nocache, sNN (${evalLessons().join(", ")}: the reference loops), lessons/sNN (your own), a path to a .ts file exporting runAgent, oracle or null`;

/** The text of the last assistant message: the agent's answer. */
export function answerOf(history: readonly Anthropic.MessageParam[]): string {
  const last = [...history].reverse().find((m) => m.role === "assistant");
  if (!last) return "";
  if (typeof last.content === "string") return last.content;
  return last.content
    .filter((b): b is Anthropic.TextBlockParam => b.type === "text")
    .map((b) => b.text)
    .join("\n");
}

function endOf(outcome: unknown, history: readonly Anthropic.MessageParam[]): RunEnd {
  const o = outcome as { status?: unknown; reason?: unknown; turns?: unknown; detail?: unknown } | undefined;
  const turns = typeof o?.turns === "number" ? o.turns : history.filter((m) => m.role === "assistant").length;
  if (o?.status === "done") return { stop: "done", turns };
  if (o?.status === "stopped") return { stop: String(o.reason ?? "stopped"), turns, ...(typeof o.detail === "string" ? { detail: o.detail } : {}) };
  return { stop: "returned", turns };
}

export function loopAgent(name: string, runAgent: Loop, extra: LoopOptions = {}): EvalAgent {
  return {
    name,
    model: true,
    async run({ task, ws, llm, signal, approveCommands }) {
      const history: Anthropic.MessageParam[] = [{ role: "user", content: task.instruction }];
      const notes: string[] = [];
      const opts: LoopOptions = {
        root: ws,
        // As the final agent runs headless here (program.ts): edits in the scratch copy accepted, commands as decided above.
        permissionMode: "acceptEdits",
        // Decided before the run (run.ts commandsApproved): nobody is there to ask during it.
        approve: approveCommands ? approveAll : refuseAll,
        signal,
        guards: { maxTurns: task.limits.turns, timeoutMs: task.limits.seconds * 1000 },
        onEvent: () => {},
        ...(task.mcpConfig ? { mcpServers: readMcpConfig(task.mcpConfig), onMcpProblem: (p: string) => void notes.push(p) } : {}),
        ...extra,
      };
      const outcome = await runAgent(llm!, history, opts);
      return { history, end: endOf(outcome, history), answer: answerOf(history), ...(notes.length ? { notes } : {}) };
    },
  };
}

/** The oracle: the reference patch applied, the reference script run in the workspace inside the sandbox, the reference answer. */
export const oracle: EvalAgent = {
  name: "oracle",
  model: false,
  async run({ task, ws, signal }) {
    let end: RunEnd = { stop: "done", turns: 0 };
    if (task.patch) {
      try {
        await applyUnifiedPatch(ws, task.patch);
      } catch (e) {
        if (!(e instanceof PatchError)) throw e;
        end = { stop: "solution_failed", turns: 0, detail: `solution.patch: ${e.message}` };
      }
    }
    if (task.solution?.trim() && end.stop === "done") {
      const run = await runSafeBash(task.solution, { cwd: ws, timeoutMs: task.limits.seconds * 1000, signal });
      if (run.exitCode !== 0) end = { stop: "solution_failed", turns: 0, detail: run.text.slice(0, 500) };
    }
    const answer = task.answerText ?? "";
    const history: Anthropic.MessageParam[] = [{ role: "user", content: task.instruction }];
    if (answer) history.push({ role: "assistant", content: [{ type: "text", text: answer }] });
    return { history, end, answer };
  },
};

/** The null agent: does nothing, says nothing. */
export const nullAgent: EvalAgent = {
  name: "null",
  model: false,
  run: async ({ task }) => ({ history: [{ role: "user", content: task.instruction }], end: { stop: "done", turns: 0 }, answer: "" }),
};

async function importLoop(file: string, label: string): Promise<Loop> {
  if (!existsSync(file)) throw new AgentSpecError(`${label}: no such file (${file}). ${AGENT_HELP}`);
  const mod = (await import(pathToFileURL(file).href)) as { runAgent?: unknown };
  if (typeof mod.runAgent !== "function") throw new AgentSpecError(`${label} does not export a runAgent(llm, history, options) function`);
  return mod.runAgent as Loop;
}

/** The agent a name stands for; throws AgentSpecError (one line, what to type) for anything else. */
export async function resolveAgent(spec: string): Promise<EvalAgent> {
  const s = spec.trim();
  if (s === "oracle") return oracle;
  if (s === "null") return nullAgent;
  if (s === "final" || s === "final:nocache") {
    const loop = await importLoop(join(ROOT, finalAgent().loop), "the final agent");
    if (s === "final:nocache") return loopAgent(s, loop, { cache: false });
    // A task that needs a Part IV feature is the program's: its loop alone has none of them on.
    const inProcess = loopAgent(s, loop);
    const program = programAgent(s, true);
    return { ...inProcess, run: (input) => (input.task.feature ? program.run(input) : inProcess.run(input)) };
  }
  const lessonSpec = /^(?:(lessons|solutions)\/)?(s\d{1,2})(?:_[a-z0-9_]+)?\/?(?::(nocache))?$/.exec(s);
  if (lessonSpec) {
    const lesson = findLesson(lessonSpec[2]!);
    if (!lesson) throw new AgentSpecError(`no lesson ${lessonSpec[2]}. ${AGENT_HELP}`);
    if (Number(lesson.id.slice(1)) < 7)
      throw new AgentSpecError(`${lesson.id}'s tools are not confined to a workspace yet (s07 adds that), so it cannot run an eval safely: use s07 or later`);
    const folder = lessonSpec[1] ?? "solutions";
    const loop = await importLoop(join(ROOT, folder, lesson.dir, "agent.ts"), `${folder}/${lesson.dir}/agent.ts`);
    return loopAgent(s, loop, lessonSpec[3] ? { cache: false } : {});
  }
  if (/\.[cm]?[jt]s$/.test(s)) {
    // npm runs scripts from the course's root; a path is the learner's, from where they typed it.
    const file = isAbsolute(s) ? s : resolve(process.env.INIT_CWD ?? process.cwd(), s);
    return loopAgent(s, await importLoop(file, s));
  }
  throw new AgentSpecError(`unknown agent "${s}": ${AGENT_HELP}`);
}
