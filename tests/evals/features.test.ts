/**
 * The eval tasks that need a Part IV feature, and `npm run eval -- --compare-features`
 * (docs/guide/evals.md), offline: each task passes with its feature and fails without it; the
 * workflow killed part-way resumes from its journal without redoing a finished step (and redoes
 * them without it); the lines the eval reads from `npm run agent -- … --output-format stream-json`
 * are s24's, each assistant message the API's Message, and they replay a transcript the API accepts.
 */
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type Anthropic from "@anthropic-ai/sdk";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ROOT } from "../../scripts/lib/paths.ts";
import { scriptedLlm } from "../../runtime/client.ts";
import { scripted, transcriptProblems } from "../../runtime/testing.ts";
import { removeSession } from "../../solutions/s10_conversation/session.ts";
import { compareFeatures, featureJson, featureTable, featureTasks, type FeatureComparison, type FeatureRow } from "../../scripts/eval/features.ts";
import { readLine, runProgram } from "../../scripts/eval/program.ts";
import { main } from "../../scripts/eval/main.ts";
import { loadSuite, loadTask, SuiteError } from "../../scripts/eval/suite.ts";

const { tasks } = loadSuite();
const FEATURES = { "worktrees-two-edits": "worktrees", "workflow-resume": "workflow", "goal-premature-done": "goal" };

describe("the tasks that need a Part IV feature", () => {
  it("are in the suite, one per feature, each with its feature named in task.json", () => {
    expect(Object.fromEntries(featureTasks(tasks).map((t) => [t.id, t.feature?.name]))).toEqual(FEATURES);
    const flow = tasks.find((t) => t.id === "workflow-resume")!;
    expect(flow.workflow?.workflow.steps.map((s) => ("id" in s ? s.id : "")), "workflow-resume's workflow.json: three steps, killed at the third").toEqual(["bump", "changelog", "announce"]);
  });
});

describe("a feature task that is not well formed, and a comparison asked wrongly", () => {
  it("names the field and what to fix: a kill at the first step, a workflow file that is not there", () => {
    const dir = mkdtempSync(join(tmpdir(), "eval-feature-"));
    try {
      const task = join(dir, "workflow-resume");
      cpSync(join(ROOT, "evals/tasks/workflow-resume"), task, { recursive: true });
      const manifest = JSON.parse(readFileSync(join(task, "task.json"), "utf8")) as Record<string, unknown>;
      const write = (feature: unknown) => writeFileSync(join(task, "task.json"), JSON.stringify({ ...manifest, feature }));
      write({ name: "workflow", file: "workflow.json", killAt: "bump" });
      expect(() => loadTask(task)).toThrow(/feature\.killAt must name a step after the first .*not "bump"/);
      write({ name: "workflow", file: "none.json", killAt: "announce" });
      expect(() => loadTask(task)).toThrow(SuiteError);
      expect(() => loadTask(task)).toThrow(/feature\.file names none\.json, which is not a file of the task's folder/);
      write({ name: "teleport" });
      expect(() => loadTask(task)).toThrow(/task\.json: feature\.name/);
      write({ name: "workflow", file: "workflow.json", killAt: "announce" });
      expect(loadTask(task).workflow?.workflow.name).toBe("release");
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("--compare-features refuses another agent, and a task list with no feature task, before running anything", async () => {
    await expect(main(["--compare-features", "--agent", "s13"])).rejects.toThrow(/--compare-features runs the final agent with and without each feature: no --agent/);
    await expect(main(["--compare-features", "--tasks", "fix-range"])).rejects.toThrow(/no task that needs a feature among fix-range/);
  });
});

describe("npm run eval -- --compare-features, offline", () => {
  let c: FeatureComparison;
  const row = (task: string): FeatureRow => {
    const r = c.rows.find((x) => x.task === task);
    expect(r, `no row for ${task} in the comparison`).toBeDefined();
    return r!;
  };
  beforeAll(async () => {
    c = await compareFeatures({ tasks, runs: 1, model: { offline: true }, outDir: null });
  }, 600_000);

  it("runs only the feature tasks, each with and without its feature; every run read its result line (no bad output, no error)", () => {
    expect(c.rows.map((r) => r.task).sort()).toEqual(Object.keys(FEATURES).sort());
    for (const r of c.results.flatMap((x) => x.runs)) expect(r.stop, `${r.task}: ${r.error ?? ""}`).toBe("done");
  });

  it("each task passes with its feature and fails without it", () => {
    for (const task of Object.keys(FEATURES)) {
      const r = row(task);
      expect(r.with.passed, `${task} with its feature: ${JSON.stringify(c.results[0].runs.find((x) => x.task === task)?.checks)}`).toBe(1);
      expect(r.without.passed, `${task} without its feature passed: the task does not need it`).toBe(0);
    }
  });

  it("worktrees: both children's branches came back and were merged; without, s15's read-only children left none", () => {
    expect(row("worktrees-two-edits").with.did.join(" ")).toMatch(/2 branch\(es\) came back, 2 merged: worktree\/child-1, worktree\/child-2/);
    expect(row("worktrees-two-edits").without.did.join(" ")).toMatch(/no branch came back/);
  });

  it("a killed workflow resumes: the kill left two steps done and no end line; the rerun ran only the third; without the journal every step ran again", () => {
    const on = row("workflow-resume").with.did.join(" ");
    expect(on, "the process was killed (SIGKILL) when step announce first asked the model: the journal has no end line").toMatch(/killed at announce \(journal: bump, changelog done, no end line\)/);
    expect(on, "bump and changelog read back, not run again; announce started twice (the killed start counts)").toMatch(/journal read back\): 4 step run\(s\): bump, changelog, announce ×2$/);
    expect(row("workflow-resume").without.did.join(" ")).toMatch(/journal removed\): 6 step run\(s\): bump ×2, changelog ×2, announce ×2$/);
    expect(row("workflow-resume").with.turns, "the killed run's turns count too").toBeGreaterThan(row("workflow-resume").without.turns / 2);
  });

  it("goal: the evaluator judged twice (sent back once, then done); without it nothing judged the first \"done\"", () => {
    expect(row("goal-premature-done").with.did).toEqual(["evaluator: 2 request(s)"]);
    expect(row("goal-premature-done").without.did).toEqual(["no evaluator"]);
    expect(row("goal-premature-done").with.turns).toBeGreaterThan(row("goal-premature-done").without.turns);
  });

  it("prints a table of both sides, and a JSON with the rows and one line per task", () => {
    const table = featureTable(c.rows).join("\n");
    expect(table).toMatch(/\| task +\| feature +\| with: passed · turns · cost +\| without: passed · turns · cost/);
    expect(table).toMatch(/\| goal-premature-done +\| goal +\| 1\/1 · \d+ turns · \$\d\.\d{4} +\| 0\/1 ·/);
    const json = JSON.parse(JSON.stringify(featureJson(c))) as { features: FeatureRow[]; differences: string[] };
    expect(json.features).toHaveLength(3);
    expect(json.differences).toContain("workflow-resume (workflow): passes 100% with, 0% without: the feature makes it pass");
  });
});

describe("the lines the eval reads (s24's headless output)", () => {
  const dirs: string[] = [];
  afterAll(() => dirs.forEach((d) => rmSync(d, { recursive: true, force: true })));

  it("a run's stream-json: the init line, each assistant message a Message as the API sends it, the result last; they replay a transcript the API accepts", async () => {
    const task = tasks.find((t) => t.id === "goal-premature-done")!;
    const ws = mkdtempSync(join(tmpdir(), "eval-lines-"));
    dirs.push(ws);
    cpSync(task.repo, ws, { recursive: true });
    const s = scriptedLlm();
    const run = await runProgram(["--workspace", ws, "--permission-mode", "acceptEdits", "-p", task.instruction, "--output-format", "stream-json"], { fetch: s.scripted.fetch, baseURL: s.client.baseURL, offline: true });
    const result = run.lines.at(-1);
    if (result?.type === "result") removeSession(result.session_id);
    expect(run.problems, run.stderr.slice(-500)).toEqual([]);
    expect(run.lines[0]?.type).toBe("system");
    expect(result?.type).toBe("result");
    const assistant = run.lines.filter((l) => l.type === "assistant");
    expect(assistant.length, "one assistant line per response").toBe(s.scripted.responses.length);
    const replay: Anthropic.MessageParam[] = [{ role: "user", content: task.instruction }, ...run.lines.flatMap((l) => (l.type === "assistant" ? [{ role: "assistant" as const, content: l.message.content }] : l.type === "user" ? [l.message] : []))];
    expect(await transcriptProblems(scripted(), replay)).toBeNull();
  }, 120_000);

  it("a line that is not s24's is named, with what is wrong", () => {
    const message = { id: "msg_1", type: "message", role: "assistant", model: "m", content: [{ type: "text", text: "hi" }], stop_reason: "end_turn", stop_sequence: null, usage: { input_tokens: 1, output_tokens: 1, cache_creation_input_tokens: 0, cache_read_input_tokens: 0, cache_creation: { ephemeral_5m_input_tokens: 0, ephemeral_1h_input_tokens: 0 }, service_tier: "standard" } };
    const good = readLine(JSON.stringify({ type: "assistant", message, session_id: "s" }));
    expect(typeof good === "string" ? good : good.type).toBe("assistant");
    expect(readLine(JSON.stringify({ type: "assistant", message: { ...message, content: [{ type: "text" }] }, session_id: "s" }))).toMatch(/not a Message as the API sends it \(content\.0/);
    expect(readLine(JSON.stringify({ type: "assistant", message: { ...message, usage: { input_tokens: 1 } }, session_id: "s" }))).toMatch(/not a Message as the API sends it \(usage\./);
    // A field the API added since (a key the schema does not know) is not a broken line.
    const newer = readLine(JSON.stringify({ type: "assistant", message: { ...message, container: null }, session_id: "s" }));
    expect(typeof newer === "string" ? newer : newer.type).toBe("assistant");
    expect(readLine(JSON.stringify({ type: "result", subtype: "success", is_error: false, result: "", num_turns: 1 }))).toMatch(/a result line that is not s24's \(usage/);
    expect(readLine("{ torn")).toMatch(/^not JSON/);
    expect(readLine(JSON.stringify({ type: "progress" }))).toMatch(/unknown type "progress"/);
  });
});
