/**
 * Part III, 3: background jobs that never end (s22). Each job kind is started with bash_background
 * through s22's real loop, and the run ends in each way a run can end: the model says done, a
 * guard stops it (maxTurns), the API fails after the SDK's retries (the loop throws), the user
 * aborts. After the run, no process of the job may be alive: every one carries a token in its
 * command line (`exec -a`), looked for in the host's /proc (every PID namespace is there).
 *
 * Claimed: every kind with the sandbox (the job's whole PID namespace dies with it); without, every
 * kind but one: a process that detaches AND clears its environment cannot be found (s07 and s22
 * say so: the run's marker is in the environment), so that row is "not claimed" without a sandbox.
 */
import type Anthropic from "@anthropic-ai/sdk";
import { call, say, text } from "../../runtime/scripted/scenarios/script.ts";
import type { Fault, Scenario } from "../../runtime/scripted/types.ts";
import { scripted, transcriptProblems } from "../../runtime/testing.ts";
import { capturing, errorLine, outcomeLine, inMode, newToken, p3Modes, GRACE_MS, pool, scratch, solution, type P3Mode } from "./part3-common.ts";
import { aliveAfter } from "../../runtime/processes.ts";

type Agent = typeof import("../../solutions/s22_background/agent.ts");
type Jobs = typeof import("../../solutions/s22_background/jobs.ts");
type Table = InstanceType<Jobs["JobTable"]>;

export interface JobKind {
  id: string;
  what: string;
  /** The command; every process it leaves carries `token` in its command line. */
  command: (token: string) => string;
  /** Only the sandbox can stop it: not claimed without one. */
  sandboxOnly?: boolean;
}

export const JOB_KINDS: JobKind[] = [
  { id: "ignores-term", what: "ignores SIGTERM (trap '' TERM), sleeps", command: (t) => `trap '' TERM; echo started; exec -a ${t} sleep 300` },
  { id: "forks", what: "forks three children and waits for them", command: (t) => `for i in 1 2 3; do (trap '' TERM; exec -a ${t}-$i sleep 300) & done; echo started; wait` },
  { id: "prints-forever", what: "prints forever (yes)", command: (t) => `echo started; exec -a ${t} yes 'a line that never ends'` },
  { id: "setsid", what: "detaches with setsid, its output elsewhere, and ends", command: (t) => `(setsid bash -c 'trap "" TERM; exec -a ${t} sleep 300' >/dev/null 2>&1 </dev/null &); echo started` },
  { id: "setsid-env-i", what: "detaches (setsid) with an empty environment, and ends", sandboxOnly: true, command: (t) => `(env -i setsid bash -c 'exec -a ${t} sleep 300' >/dev/null 2>&1 </dev/null &); echo started` },
];

export const RUN_ENDS = ["done", "guard stop", "api error", "abort"] as const;
export type RunEnd = (typeof RUN_ENDS)[number];

export type JobCell = "stopped" | "SURVIVED" | "survives (not claimed)" | "FAILED" | "n/a";

export interface JobCellResult {
  kind: string;
  end: RunEnd;
  mode: P3Mode;
  claimed: boolean;
  cell: JobCell;
  detail: string;
}

/** The job table a run uses (a probe passes one with a protection removed). */
export type TableFactory = (root: string) => Table;

/**
 * Step 0 starts the job; then job_output (waiting a little) until the end comes: done after two
 * reads; the guard (maxTurns 3) and the abort come while it reads; the API error comes at request 2.
 */
function scenario(command: string, atFirstRead?: () => void): Scenario {
  return {
    id: "part3-jobs",
    title: "start a job, read it, then done",
    reply: (ctx) => {
      if (ctx.step === 0) return { content: [text("Starting it."), call("bash_background", { command })] };
      if (ctx.step === 1) atFirstRead?.();
      if (ctx.step < 3) return { content: [text("Reading."), call("job_output", { id: "job-1", wait_seconds: 1 })] };
      return say("done");
    },
  };
}

export async function runJobCell(kind: JobKind, end: RunEnd, mode: P3Mode, makeTable?: TableFactory): Promise<JobCellResult> {
  const agent = await solution<Agent>("s22_background");
  const jobs = await solution<Jobs>("s22_background", "jobs.ts");
  const claimed = !(kind.sandboxOnly && mode === "none");
  const base = { kind: kind.id, end, mode, claimed };
  if (!agent || !jobs) return { ...base, cell: "n/a", detail: "s22 is not present" };
  const token = newToken(`${kind.id}-${end}`);
  const s = scratch({ "notes.txt": "the notes\n" });
  try {
    return await inMode(mode, async () => {
      const table = makeTable ? makeTable(s.ws) : new jobs.JobTable(s.ws);
      const fault = (i: number): Fault | null => (end === "api error" && i >= 2 ? { kind: "server_error" } : null);
      const controller = new AbortController();
      // The abort comes once the job has started, as the model answers the start (Ctrl-C mid-request).
      const abortSoon = end === "abort" ? () => controller.abort() : undefined;
      const llm = scripted({ scenario: scenario(kind.command(token), abortSoon), maxRequests: 20, faults: fault }, { maxRetries: 2 });
      const history: Anthropic.MessageParam[] = [{ role: "user", content: "Start the job, watch it, then say done." }];
      const { value, error } = await capturing(() =>
        agent.runAgent(llm, history, {
          root: s.ws,
          userConfigDir: s.user,
          hooks: [],
          approve: async () => ({ approved: true }),
          jobs: table,
          signal: controller.signal,
          ...(end === "guard stop" ? { guards: { maxTurns: 3 } } : {}),
        }),
      );
      const alive = await aliveAfter(token, GRACE_MS, { anywhere: true });
      const problems: string[] = [];
      // The run ended the way this cell means.
      const how = error !== undefined ? `threw ${errorLine(error)}` : outcomeLine(value!);
      const expected = { done: /^done/, "guard stop": /max_turns/, "api error": /^threw|stopped/, abort: /aborted|^threw/ }[end];
      if (!expected.test(how)) problems.push(`the run should end by ${end}; it ${how}`);
      if (!/started/.test(JSON.stringify(history)) && end !== "api error") problems.push("the job never started");
      if (error === undefined) {
        const t = await transcriptProblems(llm, history);
        if (t) problems.push(`transcript: ${t.split("\n")[0]}`);
      }
      const cell: JobCell = alive > 0 ? (claimed ? "SURVIVED" : "survives (not claimed)") : problems.length ? "FAILED" : "stopped";
      return { ...base, cell, detail: `${how}; ${alive} process(es) alive after the run${problems.length ? `; ${problems.join("; ")}` : ""}` };
    });
  } finally {
    s.remove();
  }
}

export interface JobFigures {
  modes: P3Mode[];
  ends: RunEnd[];
  rows: Array<{ id: string; what: string; cells: JobCell[] }>;
  failed: Array<{ kind: string; end: string; mode: string; detail: string }>;
  tried: number;
  survived: number;
}

export async function runJobPart(modes: P3Mode[] = p3Modes(), kinds = JOB_KINDS, ends: readonly RunEnd[] = RUN_ENDS): Promise<{ results: JobCellResult[]; figures: JobFigures }> {
  const results: JobCellResult[] = [];
  for (const mode of modes) results.push(...(await pool(kinds.flatMap((k) => ends.map((e) => () => runJobCell(k, e, mode))), 2)));
  const columns = modes.flatMap((m) => ends.map((e) => ({ m, e })));
  const claimed = results.filter((r) => r.claimed && r.cell !== "n/a");
  return {
    results,
    figures: {
      modes,
      ends: [...ends],
      rows: kinds.map((k) => ({ id: k.id, what: k.what, cells: columns.map(({ m, e }) => results.find((r) => r.kind === k.id && r.end === e && r.mode === m)?.cell ?? "n/a") })),
      failed: results.filter((r) => r.cell === "SURVIVED" || r.cell === "FAILED").map((r) => ({ kind: r.kind, end: r.end, mode: r.mode, detail: r.detail })),
      tried: claimed.length,
      survived: claimed.filter((r) => r.cell === "SURVIVED" || r.cell === "FAILED").length,
    },
  };
}
