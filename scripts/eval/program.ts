/**
 * The final agent as a script drives it (s24's headless interface): `npm run agent` in a child
 * process, `--output-format stream-json`, every stdout line read back and checked against the
 * Messages API's shapes (runtime/scripted/schema.ts, typed as the SDK's), for the tasks that need
 * a Part IV feature (task.json `feature`). The agent talks to the eval's own model through a small
 * proxy on 127.0.0.1, so the eval counts its tokens as for any run, and can kill the process at a
 * point it chooses: the workflow task is killed when a step first asks the model, then run again.
 *
 *   with the feature      --worktrees / --workflow FILE (the rerun reads the journal) / --goal --goal-check CMD
 *   without it            the same command without the flag (the workflow's rerun: its journal removed first)
 */
import { spawn } from "node:child_process";
import { existsSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { dirname, join } from "node:path";
import { randomUUID } from "node:crypto";
import type Anthropic from "@anthropic-ai/sdk";
import { z } from "zod";
import { OFFLINE_API_KEY, SCRIPTED_MODEL_ID } from "../../runtime/client.ts";
import { Message } from "../../runtime/scripted/schema.ts";
import { sweepOrphanScratch } from "../../runtime/tools/files.ts";
import { removeSession } from "../../solutions/s10_conversation/session.ts";
import type { HeadlessLine, ResultLine } from "../../solutions/s24_headless/headless.ts";
import { BRANCH_PREFIX, git, initRepository } from "../../solutions/s25_worktrees/worktree.ts";
import { parseJournal } from "../../solutions/s26_workflow/journal.ts";
import { ROOT, STATE_DIR } from "../lib/paths.ts";
import type { AgentRun, EvalAgent, RunEnd } from "./agents.ts";
import type { EvalTask } from "./suite.ts";

/** Where the agent's requests go: the eval's metered fetch, and the base URL it serves. */
export interface Upstream {
  fetch: typeof fetch;
  baseURL: string;
  offline: boolean;
}

/** The final agent's workflow journals (s26/s27: .course/workflows, one file per workflow and workspace). */
export const JOURNALS_DIR = join(STATE_DIR, "workflows");

// ── the lines, as a script reads them ──

const Count = z.number().int().nonnegative();
const Session = z.string().min(1);
const UserMessage = z.object({ role: z.literal("user"), content: z.union([z.string(), z.array(z.looseObject({ type: z.string() }))]) });
export const ResultLineSchema = z.object({
  type: z.literal("result"),
  subtype: z.enum(["success", "error"]),
  is_error: z.boolean(),
  result: z.string(),
  num_turns: Count,
  usage: z.object({ input_tokens: Count, output_tokens: Count, cache_creation_input_tokens: Count, cache_read_input_tokens: Count }),
  total_cost_usd: z.number().nonnegative(),
  session_id: Session,
  stop_reason: z.string().nullable(),
  duration_ms: z.number().nonnegative(),
  /** s27's --goal: what the evaluator cost. */
  evaluator: z.object({ requests: Count, input_tokens: Count, output_tokens: Count }).optional(),
});
type ParsedResult = z.infer<typeof ResultLineSchema>;
// The schema reads what s24 writes: a parsed result is the SDK-typed line the program emitted.
const _sameShape: ResultLine = {} as ParsedResult;
void _sameShape;

/** One stdout line → the line, checked (an assistant line's message against the API's Message schema), or what is wrong. */
export function readLine(raw: string): HeadlessLine | string {
  let json: unknown;
  try {
    json = JSON.parse(raw);
  } catch {
    return `not JSON: ${raw.slice(0, 80)}`;
  }
  const type = (json as { type?: unknown }).type;
  if (type === "result") {
    const r = ResultLineSchema.safeParse(json);
    return r.success ? (r.data as ResultLine) : `a result line that is not s24's (${r.error.issues[0]?.path.join(".")}: ${r.error.issues[0]?.message})`;
  }
  if (type === "system") {
    const r = z.object({ type: z.literal("system"), subtype: z.literal("init"), session_id: Session, model: z.string(), cwd: z.string() }).safeParse(json);
    return r.success ? r.data : `a system line that is not the init line (${r.error.issues[0]?.message})`;
  }
  if (type === "assistant") {
    const line = z.object({ type: z.literal("assistant"), message: z.record(z.string(), z.unknown()), session_id: Session }).safeParse(json);
    if (!line.success) return `an assistant line without its message (${line.error.issues[0]?.message})`;
    // The SDK's stream helper adds parsed_output to the Message it returns; the rest is the wire's.
    const { parsed_output: _parsed, ...wire } = line.data.message;
    const m = Message.safeParse(wire);
    // A key the schema does not know is a field the API added since, not a broken line; anything else is.
    const broken = m.error?.issues.find((i) => i.code !== "unrecognized_keys");
    if (broken) return `an assistant line whose message is not a Message as the API sends it (${broken.path.join(".")}: ${broken.message})`;
    return { type: "assistant", message: wire as unknown as Anthropic.Message, session_id: line.data.session_id };
  }
  if (type === "user") {
    const r = z.object({ type: z.literal("user"), message: UserMessage, session_id: Session }).safeParse(json);
    return r.success ? { type: "user", message: r.data.message as Anthropic.MessageParam, session_id: r.data.session_id } : `a user line that is not a user message (${r.error.issues[0]?.message})`;
  }
  return `a line of unknown type ${JSON.stringify(type)}`;
}

// ── one process of the final agent ──

export interface ProcessRun {
  exitCode: number | null;
  /** Killed by the eval (the kill point was reached). */
  killed: boolean;
  lines: HeadlessLine[];
  /** Messages requests answered (a killed process's turns: it left no result line to count them). */
  answered: number;
  /** Lines that did not read as s24's, with their number. */
  problems: string[];
  stderr: string;
}

/**
 * Runs `npm run agent -- ARGV` (scripts/agent.ts: whichever lesson's program is the final agent)
 * with its model behind a proxy to `upstream`; `killWhen` sees each request body first, and true
 * kills the process (SIGKILL) before that request is answered.
 */
export async function runProgram(argv: string[], upstream: Upstream, opts: { signal?: AbortSignal; killWhen?: (body: unknown) => boolean } = {}): Promise<ProcessRun> {
  let child: ReturnType<typeof spawn> | undefined;
  let killed = false;
  let answered = 0;
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      const body = Buffer.concat(chunks);
      let parsed: unknown;
      try {
        parsed = body.length ? JSON.parse(body.toString("utf8")) : undefined;
      } catch {
        parsed = undefined;
      }
      if (!killed && opts.killWhen?.(parsed)) {
        killed = true;
        child?.kill("SIGKILL");
        return void res.destroy();
      }
      const headers = new Headers();
      for (const [k, v] of Object.entries(req.headers)) if (typeof v === "string" && !["host", "connection", "content-length", "accept-encoding"].includes(k)) headers.set(k, v);
      upstream
        .fetch(`${upstream.baseURL.replace(/\/+$/, "")}${req.url ?? "/"}`, { method: req.method ?? "POST", headers, ...(body.length ? { body: new Uint8Array(body) } : {}) })
        .then(async (response) => {
          const out: Record<string, string> = {};
          response.headers.forEach((v, k) => void (["content-encoding", "content-length", "transfer-encoding", "connection"].includes(k) ? 0 : (out[k] = v)));
          if (response.ok && /\/v1\/messages(\?|$)/.test(req.url ?? "")) answered++;
          res.writeHead(response.status, out);
          const reader = response.body?.getReader();
          for (let r = await reader?.read(); r && !r.done; r = await reader!.read()) res.write(r.value);
          res.end();
        })
        .catch(() => res.destroy());
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const env: NodeJS.ProcessEnv = { ...process.env, ANTHROPIC_BASE_URL: url };
  delete env.COURSE_OFFLINE;
  if (upstream.offline) {
    Object.assign(env, { ANTHROPIC_API_KEY: OFFLINE_API_KEY, MODEL_ID: SCRIPTED_MODEL_ID });
    delete env.ANTHROPIC_AUTH_TOKEN;
  }
  const stop = () => child?.kill("SIGKILL");
  opts.signal?.addEventListener("abort", stop, { once: true });
  try {
    let stdout = "";
    let stderr = "";
    const exitCode = await new Promise<number | null>((resolve, reject) => {
      child = spawn(process.execPath, ["--import", "tsx", join(ROOT, "scripts/agent.ts"), ...argv], { cwd: ROOT, env, stdio: ["ignore", "pipe", "pipe"] });
      child.stdout!.on("data", (c: Buffer) => (stdout += c.toString("utf8")));
      child.stderr!.on("data", (c: Buffer) => (stderr += c.toString("utf8")));
      child.on("error", reject);
      child.on("close", (code) => resolve(code));
    });
    // A killed process could not remove its scratch folders (its exit handler never ran): the runtime's sweep does.
    if (killed || exitCode === null) sweepOrphanScratch();
    const lines: HeadlessLine[] = [];
    const problems: string[] = [];
    stdout
      .split("\n")
      .filter((l) => l.trim() !== "")
      .forEach((raw, i) => {
        const line = readLine(raw);
        if (typeof line === "string") problems.push(`stdout line ${i + 1}: ${line}`);
        else lines.push(line);
      });
    return { exitCode, killed, answered, lines, problems, stderr };
  } finally {
    opts.signal?.removeEventListener("abort", stop);
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }
}

// ── the final agent over a feature task, with or without its feature ──

/** The first user text of a request body (the step or task it belongs to). */
function firstPrompt(body: unknown): string {
  const first = (body as { messages?: Array<{ content?: unknown }> } | undefined)?.messages?.[0]?.content;
  if (typeof first === "string") return first.trim();
  return Array.isArray(first) ? String((first as Array<{ type?: string; text?: string }>).find((b) => b.type === "text")?.text ?? "").trim() : "";
}

/** The journals of one workflow name (its run's own unique name). */
const journalsOf = (name: string) => (existsSync(JOURNALS_DIR) ? readdirSync(JOURNALS_DIR).filter((f) => f.startsWith(`${name}-`) && f.endsWith(".jsonl")).map((f) => join(JOURNALS_DIR, f)) : []);

/** The step runs a journal records (step_started events), by step. */
function stepRuns(files: string[]): Map<string, number> {
  const runs = new Map<string, number>();
  for (const f of files)
    for (const e of parseJournal(readFileSync(f, "utf8"), f).events) if (e.type === "step_started") runs.set(e.step, (runs.get(e.step) ?? 0) + 1);
  return runs;
}

/** What a killed run left in its journal: the steps done, and no end line (a kill, not a clean stop). */
function afterKill(files: string[]): string {
  const events = files.flatMap((f) => parseJournal(readFileSync(f, "utf8"), f).events);
  const done = events.flatMap((e) => (e.type === "step_done" ? [e.step] : []));
  const ended = events.some((e) => e.type === "run_finished");
  return `journal: ${done.join(", ") || "no step"} done, ${ended ? "an end line" : "no end line"}`;
}

const describeRuns = (runs: Map<string, number>) => {
  const total = [...runs.values()].reduce((a, b) => a + b, 0);
  return `${total} step run(s): ${[...runs].map(([s, n]) => (n > 1 ? `${s} ×${n}` : s)).join(", ")}`;
};

/** The transcript a run's lines replay: the task, then each assistant and user line's message (a workflow: its summary). */
function transcriptOf(task: string, run: ProcessRun): Anthropic.MessageParam[] {
  const history: Anthropic.MessageParam[] = [{ role: "user", content: task }];
  for (const l of run.lines) {
    if (l.type === "assistant") history.push({ role: "assistant", content: l.message.content });
    else if (l.type === "user") history.push(l.message);
  }
  const result = run.lines.find((l) => l.type === "result");
  if (result && history.at(-1)?.role !== "assistant" && result.result) history.push({ role: "assistant", content: [{ type: "text", text: result.result }] });
  return history;
}

/**
 * What a person does with a --worktrees run (s25): the workspace is left unchanged, each child's
 * work is a branch; they take it with git merge. The eval does the same before the check (git
 * without the repository's hooks), so the check sees every change that came back, and only those.
 */
async function takeBranches(ws: string, notes: string[]): Promise<string> {
  const branches = (await git(ws, "for-each-ref", "--format=%(refname:short)", `refs/heads/${BRANCH_PREFIX}*`)).split("\n").filter(Boolean);
  const merged: string[] = [];
  for (const b of branches)
    await git(ws, "merge", "--no-edit", "--quiet", b).then(
      () => void merged.push(b),
      (e: Error) => void notes.push(`git merge ${b} failed: ${e.message}`),
    );
  return branches.length === 0 ? "no branch came back" : `${branches.length} branch(es) came back, ${merged.length} merged: ${branches.join(", ")}`;
}

/** The flags of a task's feature, on or off; the workflow file is the caller's copy (its name unique to the run). */
function featureFlags(task: EvalTask, on: boolean, workflowCopy: string | undefined): string[] {
  const f = task.feature;
  if (f?.name === "worktrees") return on ? ["--worktrees"] : [];
  if (f?.name === "goal") return on ? ["--goal", "--goal-check", f.check] : [];
  if (f?.name === "workflow") return ["--workflow", workflowCopy!];
  return [];
}

/**
 * The final agent driven through its headless interface, with each task's feature on (`on`) or
 * off. Tasks without a feature run as `-p TASK`. Never throws for what the agent does: a process
 * that fails, or a line that is not s24's, is a failing run that says so.
 */
export function programAgent(name: string, on: boolean): EvalAgent {
  return {
    name,
    model: true,
    async run({ task, ws, signal, upstream, approveCommands }): Promise<AgentRun> {
      if (!upstream) throw new Error("the final agent's program needs the eval's model (upstream)");
      const f = task.feature;
      if (f?.name === "worktrees") await initRepository(ws);
      // A copy of the workflow under a name of this run's own: its journal is found (and removed) by that name.
      const flowName = `eval-${task.id}-${randomUUID().slice(0, 8)}`;
      let copy: string | undefined;
      if (f?.name === "workflow" && task.workflow) {
        copy = join(dirname(ws), "workflow.json");
        writeFileSync(copy, JSON.stringify({ ...(JSON.parse(readFileSync(task.workflow.file, "utf8")) as object), name: flowName }));
      }
      const argv = [
        "--workspace", ws,
        "--max-turns", String(task.limits.turns),
        "--timeout", String(task.limits.seconds),
        "--permission-mode", "acceptEdits",
        // As every eval run: the commands are approved as the eval decided up front (run.ts commandsApproved), never asked.
        ...(approveCommands ? ["--yes"] : []),
        ...featureFlags(task, on, copy),
        ...(f?.name === "workflow" ? [] : ["-p", task.instruction]),
        "--output-format", "stream-json",
      ];
      const runs: ProcessRun[] = [];
      const notes: string[] = [];
      let detail = "";
      try {
        if (f?.name === "workflow" && task.workflow) {
          const steps = task.workflow.workflow.steps.flatMap((s) => ("steps" in s ? s.steps : [s]));
          const killPrompt = steps.find((s) => s.id === f.killAt)?.prompt.trim();
          runs.push(await runProgram(argv, upstream, { ...(signal ? { signal } : {}), killWhen: (body) => firstPrompt(body) === killPrompt }));
          const first = stepRuns(journalsOf(flowName));
          if (!runs[0]!.killed) notes.push(`the run was not killed: step ${f.killAt} never asked the model`);
          const left = afterKill(journalsOf(flowName));
          // Without the feature the rerun has nothing to read back: a runner without a journal starts over.
          if (!on) for (const j of journalsOf(flowName)) rmSync(j);
          runs.push(await runProgram(argv, upstream, signal ? { signal } : {}));
          const total = stepRuns(journalsOf(flowName));
          if (!on) for (const [s, n] of first) total.set(s, (total.get(s) ?? 0) + n);
          detail = `killed at ${f.killAt} (${left}), run again ${on ? "(journal read back)" : "(journal removed)"}: ${describeRuns(total)}`;
        } else {
          runs.push(await runProgram(argv, upstream, signal ? { signal } : {}));
        }
      } finally {
        for (const j of journalsOf(flowName)) rmSync(j, { force: true });
      }
      const last = runs.at(-1)!;
      const results = runs.flatMap((r) => r.lines.filter((l): l is ResultLine & { evaluator?: { requests: number } } => l.type === "result"));
      for (const r of results) removeSession(r.session_id);
      const result = results.at(-1);
      if (f?.name === "goal") detail = result?.evaluator ? `evaluator: ${result.evaluator.requests} request(s)` : "no evaluator";
      if (f?.name === "worktrees") detail = await takeBranches(ws, notes);
      const problems = runs.flatMap((r) => r.problems);
      const stop: string = problems.length > 0 ? "bad_output" : result ? (result.is_error ? (result.stop_reason ?? "error") : "done") : last.killed ? "killed" : "error";
      // Each attempt's turns: its result's count, or, killed before it had one, the requests it got answered.
      const turns = runs.reduce((n, r) => n + (r.lines.find((l): l is ResultLine => l.type === "result")?.num_turns ?? r.answered), 0);
      const end: RunEnd = { stop, turns };
      if (problems.length > 0) end.detail = `the headless output does not read as s24's: ${problems[0]}`;
      else if (!result) end.detail = `no result line (exit ${last.exitCode}): ${last.stderr.trim().split("\n").slice(-3).join(" / ").slice(0, 400)}`;
      if (detail) notes.push(`${f?.name} ${on ? "on" : "off"}: ${detail}`);
      return { history: runs.flatMap((r) => transcriptOf(f?.name === "workflow" ? `npm run agent -- --workflow ${task.feature && "file" in task.feature ? task.feature.file : ""}` : task.instruction, r)), end, answer: result?.result ?? "", notes };
    },
  };
}
