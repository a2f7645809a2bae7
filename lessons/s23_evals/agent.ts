/**
 * s23_evals: does the agent do the job?
 *
 * Unlike s18, which changed what the loop may do, this lesson leaves the loop alone and measures
 * it. An eval runs an agent on a few tasks of the suite (evals/tasks), each run in a fresh
 * scratch copy of the task's repository, k times; grades every run by the workspace it left and
 * its final answer (grade.ts: pass, fail or error; never by what the transcript says); turns the
 * grades into a pass rate, pass@k and pass^k (score.ts); and compares two agents task by task.
 * Here the two are s18's agent and the same agent held to three turns: the comparison names the
 * task the limit breaks.
 *
 * Run: npx tsx solutions/s23_evals/agent.ts   (one graded run of the default task, then the eval)
 *      --yes: with a real model, approve its commands inside the OS sandbox (else they are refused)
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import type Anthropic from "@anthropic-ai/sdk";
import { SCRIPTED_MODEL_ID, type Llm } from "../../runtime/client.ts";
import { CourseError } from "../../runtime/env.ts";
import { lesson, TodoError, transcriptOf } from "../../runtime/lesson.ts";
import { bold, dim, green, red, say } from "../../runtime/print.ts";
import { EVAL_SUITE, lessonTask } from "../../runtime/tasks.ts";
import { scratchCopy } from "../../runtime/tools/files.ts";
import { sandboxInfo } from "../../runtime/tools/sandbox.ts";
import { approveAll, demoApprover, type Approver } from "../../solutions/s07_safe_tools/approval.ts";
import { runAgent } from "../../solutions/s18_permissions/agent.ts";
import { fingerprint, gradeRun, type Check, type Graded, type RunEnd } from "./grade.ts";
import { compare, score, type Comparison, type Scores } from "./score.ts";

export const TASK = lessonTask("s23_evals");

/** One task of the lesson's eval: the suite's instruction and repository, the lesson's check. */
export interface EvalTask {
  id: string;
  instruction: string;
  repo: string;
  check: Check;
  /** The most turns a run may take. */
  turns: number;
}

const fromSuite = (id: string, check: Check, turns: number): EvalTask => ({
  id,
  instruction: readFileSync(join(EVAL_SUITE, id, "instruction.md"), "utf8").trim(),
  repo: join(EVAL_SUITE, id, "repo"),
  check,
  turns,
});

/** Two tasks of the suite: one graded by the tests the agent leaves passing, one by what it answers. */
export const SUITE: EvalTask[] = [
  fromSuite("fix-range", { command: "node --test", unchanged: ["test/range.test.js"] }, 12),
  fromSuite("explain-port", { answer: [/SERVICE_PORT/, /settings\.js/, /8080/], unchanged: ["src/settings.js", "src/server.js", "README.md"] }, 10),
];

/** An agent under test: runs one task in `root`, growing `history`. */
export interface Agent {
  name: string;
  run(llm: Llm, history: Anthropic.MessageParam[], root: string, maxTurns: number): Promise<unknown>;
}

/**
 * Who approves an eval's commands. Nobody is there to ask during a run, so it is decided before:
 * the scripted model's commands are its own script's (demoApprover); a real model's are approved
 * only when the user said so (`--yes`) and the OS sandbox holds them (the kernel is the boundary);
 * any other command is refused (read-only ones still run).
 */
export const evalApprover = (llm: { model: string }, yes = false): Approver =>
  yes && sandboxInfo().kind === "bubblewrap" ? approveAll : demoApprover(llm);

/**
 * Why this lesson cannot run here, or null. The grader runs the code the run left (`node --test`):
 * the scripted model's is its own script's, but a real model's runs only inside the OS sandbox,
 * since outside one it would run as you, with your files and keys. So a real model with no sandbox
 * is refused before anything runs, with what to do instead.
 */
export function gradingRefusal(llm: { model: string }, sandbox = sandboxInfo()): string | null {
  if (llm.model === SCRIPTED_MODEL_ID || sandbox.kind === "bubblewrap") return null;
  return `s23 grades a run by running the code it left (node --test), and a real model's code runs only inside the OS sandbox; there is none here (${sandbox.line}). Install bubblewrap (apt-get install bubblewrap), or run the lesson offline (COURSE_OFFLINE=1).`;
}

/** s18's agent as an eval runs it: edits allowed, commands approved as evalApprover says, unless `approve` says otherwise. */
export const finalAgent = (name = "s18", turns?: number, approve?: Approver): Agent => ({
  name,
  run: (llm, history, root, maxTurns) =>
    runAgent(llm, history, {
      root,
      permissionMode: "acceptEdits",
      approve: approve ?? evalApprover(llm),
      userConfigDir: root,
      guards: { maxTurns: turns ?? maxTurns },
      onEvent: () => {},
    }),
});

/** The text of the last assistant message: the run's final answer. */
export function answerOf(history: readonly Anthropic.MessageParam[]): string {
  const last = history.findLast((m) => m.role === "assistant");
  if (!last) return "";
  return typeof last.content === "string" ? last.content : last.content.map((b) => (b.type === "text" ? b.text : "")).join("\n");
}

// #region eval
/** Runs `agent` k times on every task, each run in a fresh copy of its repository, and grades each. */
export async function runEval(llm: Llm, agent: Agent, suite: readonly EvalTask[], k: number, onRun?: (g: Graded) => void): Promise<Graded[]> {
  const graded: Graded[] = [];
  for (const task of suite) {
    for (let i = 0; i < k; i++) {
      const root = await scratchCopy(task.repo);
      const before = fingerprint(root, task.check.unchanged ?? []);
      const history: Anthropic.MessageParam[] = [{ role: "user", content: task.instruction }];
      let end: RunEnd;
      try {
        await agent.run(llm, history, root, task.turns);
        end = { answer: answerOf(history) };
      } catch (e) {
        if (e instanceof TodoError) throw e;
        end = { answer: "", error: e instanceof Error ? e.message : String(e) };
      }
      const g = await gradeRun(task.id, task.check, root, before, end);
      graded.push(g);
      onRun?.(g);
    }
  }
  return graded;
}
// #endregion eval

const pct = (x: number) => `${Math.round(x * 100)}%`;
const signed = (x: number) => `${x >= 0 ? "+" : "−"}${Math.round(Math.abs(x) * 100)} points`;

/** One agent's figures, a line per task and one for all. */
export function scoreLines(s: Scores): string[] {
  return [
    bold(`${s.agent}: pass rate ${pct(s.pass_rate)} over ${s.runs} runs; pass@${s.k} ${pct(s.pass_at_k)}; pass^${s.k} ${pct(s.pass_hat_k)}`),
    ...s.tasks.map((t) => `  ${t.task.padEnd(14)} ${t.passed}/${t.runs} passed${t.errors ? `, ${t.errors} broke` : ""}   pass@${s.k} ${pct(t.pass_at_k)}   pass^${s.k} ${pct(t.pass_hat_k)}`),
  ];
}

/** The comparison in words: the tasks that flip first, then the totals. */
export function comparisonLines(a: Scores, b: Scores, c: Comparison): string[] {
  return [
    bold(`${a.agent} → ${b.agent}`),
    ...c.worse.map((f) => red(`  worse  ${f.task}: ${pct(f.before)} → ${pct(f.after)}`)),
    ...c.better.map((f) => green(`  better ${f.task}: ${pct(f.before)} → ${pct(f.after)}`)),
    ...c.unmatched.map((t) => dim(`  ${t}: run by one agent only, not compared`)),
    `  pass rate ${signed(c.pass_rate)}, pass@${a.k} ${signed(c.pass_at_k)}, pass^${a.k} ${signed(c.pass_hat_k)}`,
  ];
}

/** The default task (fix-range's repository, s18's agent), as the docs record it; `approve` for a machine with no sandbox (a test's own). */
export const demo = (llm: Llm, task = TASK, approve?: Approver) =>
  transcriptOf(task, SUITE[0]!.repo, (history, root) => finalAgent("s18", undefined, approve).run(llm, history, root, SUITE[0]!.turns));

/** How many runs per task the lesson's eval makes. */
export const RUNS = 2;

lesson(import.meta.url, {
  task: TASK,
  workspace: SUITE[0]!.repo,
  heading: "One run, graded by what it left",
  before: ({ llm, flag }) => {
    if (llm.model === SCRIPTED_MODEL_ID) return;
    const refusal = gradingRefusal(llm);
    if (refusal) throw new CourseError(refusal);
    // Past the refusal, the OS sandbox is here: --yes approves the model's commands inside it.
    say(dim(flag("yes") ? "the model's commands are approved inside the OS sandbox (--yes)" : "the model's commands are refused, read-only ones aside (nobody is there to approve them: --yes approves them inside the OS sandbox)"));
  },
  run: async ({ llm, history, root, flag }) => {
    const before = fingerprint(root, SUITE[0]!.check.unchanged ?? []);
    await finalAgent("s18", undefined, evalApprover(llm, flag("yes"))).run(llm, history, root, SUITE[0]!.turns);
    return gradeRun(SUITE[0]!.id, SUITE[0]!.check, root, before, { answer: answerOf(history) });
  },
  describe: (g) => `${g.outcome}${g.reasons.length ? ` (${g.reasons.join("; ")})` : ""}`,
  after: async (_g, { llm, isDefault, flag }) => {
    if (!isDefault) return;
    say("");
    say(bold(`The eval: ${SUITE.length} tasks × ${RUNS} runs, two agents`));
    const approve = evalApprover(llm, flag("yes"));
    const agents = [finalAgent("s18", undefined, approve), finalAgent("s18, 3 turns", 3, approve)];
    const scores: Scores[] = [];
    for (const agent of agents) {
      const graded = await runEval(llm, agent, SUITE, RUNS, (g) => say(dim(`  ${agent.name} ${g.task}: ${g.outcome}${g.reasons.length ? ` (${g.reasons[0]})` : ""}`)));
      scores.push(score(agent.name, graded, RUNS));
    }
    for (const s of scores) for (const line of scoreLines(s)) say(line);
    for (const line of comparisonLines(scores[0]!, scores[1]!, compare(scores[0]!, scores[1]!))) say(line);
  },
});
