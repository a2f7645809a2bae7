/**
 * s23_evals: grading runs, the figures of an eval, and comparing two agents. Grades lessons/ or
 * solutions/ (COURSE_TREE). A run is graded by the workspace it left and its final answer, never
 * by what it claims: pass when every criterion holds, fail (with the reason) when one does not,
 * error when the run broke (never a pass, still counted). pass@k is the unbiased estimator
 * 1 − C(n−c, k)/C(n, k), pass^k is C(c, k)/C(n, k), both checked against counting every draw of
 * k runs; the comparison names the tasks that flip.
 */
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import fc from "fast-check";
import { describe, it } from "vitest";
import { EVAL_SUITE, lessonTask } from "../runtime/tasks.ts";
import { assertProperty, loadLesson, resultsIn, rule, scripted, textIn, transcriptProblems } from "../runtime/testing.ts";
import { scratchWorkspace } from "../runtime/tools/files.ts";
import { sandboxInfo } from "../runtime/tools/sandbox.ts";
import { killProcessesWith } from "../runtime/processes.ts";
import { inSandboxModes, quietLessonFile } from "./support.ts";
import { onTestClock, realSleep } from "./test-clock.ts";

type Agent = typeof import("../solutions/s23_evals/agent.ts");
type Grade = typeof import("../solutions/s23_evals/grade.ts");
type Score = typeof import("../solutions/s23_evals/score.ts");
type Graded = import("../solutions/s23_evals/grade.ts").Graded;
type Scores = import("../solutions/s23_evals/score.ts").Scores;
const lesson = await loadLesson<Agent>("s23_evals");
const grade = await loadLesson<Grade>("s23_evals", "grade.ts");
const stats = await loadLesson<Score>("s23_evals", "score.ts");
const keep = quietLessonFile();

/** A tiny repository whose test passes only when add() adds. */
const REPO = (body: string) => ({
  "package.json": '{ "type": "module" }\n',
  "src/add.js": `export const add = (a, b) => ${body};\n`,
  "test/add.test.js": 'import test from "node:test";\nimport assert from "node:assert";\nimport { add } from "../src/add.js";\ntest("add", () => assert.equal(add(2, 3), 5));\n',
});
const CHECK = { command: "node --test", unchanged: ["test/add.test.js"] };

async function graded(files: Record<string, string>, answer: string, change?: (root: string) => void, check: import("../solutions/s23_evals/grade.ts").Check = CHECK) {
  const root = keep(await scratchWorkspace(files));
  const before = grade.fingerprint(root, check.unchanged ?? []);
  change?.(root);
  return grade.gradeRun("t", check, root, before, { answer });
}
const shown = (g: Graded) => JSON.stringify(g);

describe("s23 grading one run: the final workspace, not the transcript", () => {
  it("a workspace whose tests fail fails, whatever the answer claims", async () => {
    const g = await graded(REPO("a - b"), "I fixed add(). All tests pass now.");
    rule(g.outcome === "fail", "eval-final-state", () => `the workspace's test fails (add subtracts) and the answer says "All tests pass": the run was graded ${shown(g)}. Run check.command in the final workspace; what the answer claims proves nothing.`);
    rule(g.reasons.some((r) => r.includes("node --test")), "eval-final-state", () => `the fail does not say which criterion failed: ${shown(g)}. Put the command and how it ended in the reasons.`);
    rule(g.reasons.some((r) => r.includes("node --test") && /\b1\b/.test(r.replace("node --test", ""))), "eval-final-state", () => `"node --test" exited with 1, but the reasons do not say so: ${shown(g)}. Name the command and its exit code.`);
  });

  it("every criterion that failed is a reason: a protected test changed, an answer that misses a pattern, and the command that fails, all three", async () => {
    const check = { ...CHECK, answer: [/add\.js/] };
    const g = await graded(REPO("a - b"), "Done.", (root) => writeFileSync(join(root, "test/add.test.js"), 'import test from "node:test";\ntest("add", () => { throw new Error("no"); });\n'), check);
    const named = [g.reasons.some((r) => r.includes("test/add.test.js")), g.reasons.some((r) => r.includes("add")), g.reasons.some((r) => r.includes("node --test"))];
    rule(g.outcome === "fail" && g.reasons.length === 3 && named.every(Boolean), "eval-final-state", () => `the run changed the protected test, answered "Done." (the check asks for /add\\.js/) and left code whose tests fail: three criteria failed, and the run was graded ${shown(g)}. Check every criterion and give a reason for each one that fails (the command runs even when another already failed: the report shows every reason).`);
  });

  it("a workspace whose tests pass passes, even with an empty answer", async () => {
    const g = await graded(REPO("a + b"), "");
    rule(g.outcome === "pass" && g.reasons.length === 0, "eval-final-state", () => `the workspace's tests pass and no file it protects changed, but the run was graded ${shown(g)}: an answer that says nothing is not a failure when the check asks nothing of the answer.`);
  });

  it("a run that fixed the test instead of the code fails, naming the file", async () => {
    const g = await graded(REPO("a - b"), "Done.", (root) => writeFileSync(join(root, "test/add.test.js"), 'import test from "node:test";\ntest("add", () => {});\n'));
    rule(g.outcome === "fail" && g.reasons.some((r) => r.includes("test/add.test.js")), "eval-final-state", () => `the agent emptied the test (so node --test passes) and the run was graded ${shown(g)}: compare fingerprint(root, check.unchanged) with the one taken before the run, and name the changed file.`);
    const gone = await graded(REPO("a + b"), "Done.", (root) => rmSync(join(root, "test/add.test.js")));
    rule(gone.outcome === "fail" && gone.reasons.some((r) => r.includes("test/add.test.js")), "eval-final-state", () => `the agent deleted a file the check protects and the run was graded ${shown(gone)}: a file that is gone has changed.`);
    // A protected path that did not exist must stay absent: a run that creates it (a decoy test beside the real one) changed it.
    const decoy = { ...CHECK, unchanged: ["test/add.test.js", "test/zz-decoy.test.js"] };
    const made = await graded(REPO("a + b"), "Done.", (root) => writeFileSync(join(root, "test/zz-decoy.test.js"), "// made by the agent\n"), decoy);
    rule(made.outcome === "fail" && made.reasons.some((r) => r.includes("test/zz-decoy.test.js")), "eval-final-state", () => `the check protects test/zz-decoy.test.js, which did not exist before the run, and the agent created it; the run was graded ${shown(made)}: a protected file that appears has changed too (its fingerprint was null before).`);
  });

  it("a protected test swapped for a link to the same text outside, beside a right add.js, fails, naming the file (issue 31)", async () => {
    const out = keep(mkdtempSync(join(tmpdir(), "s23-outside-")));
    const g = await graded(REPO("a - b"), "Done.", (root) => {
      for (const [f, t] of Object.entries(REPO("a + b"))) {
        mkdirSync(join(out, f, ".."), { recursive: true });
        writeFileSync(join(out, f), t);
      }
      rmSync(join(root, "test/add.test.js"));
      symlinkSync(join(out, "test/add.test.js"), join(root, "test/add.test.js"));
    });
    rule(g.outcome === "fail" && g.reasons.some((r) => r.includes("test/add.test.js")), "eval-final-state", () => `the agent swapped the protected test for a link to the same text in a folder where add() adds, and the run was graded ${shown(g)}: a link is not the file (fingerprint is given: it reads through runtime/tools/inside.ts and never follows a link).`);
  });

  it("a run that broke is an error, never a pass, even when its workspace would pass", async () => {
    const root = keep(await scratchWorkspace(REPO("a + b")));
    const g = await grade.gradeRun("t", CHECK, root, grade.fingerprint(root, CHECK.unchanged), { answer: "", error: "the connection broke" });
    rule(g.outcome === "error", "eval-outcome", () => `the run threw ("the connection broke") and was graded ${shown(g)}: a run that broke has the outcome "error", kept apart from the agent's failures and never a pass.`);
    rule(g.reasons.some((r) => r.includes("the connection broke")), "eval-outcome", () => `the error's words are lost: ${shown(g)}. Keep them in the reasons.`);
  });

  it("property: with answer patterns and protected files only, a run passes exactly when every pattern matches and no protected file changed, one reason per miss", async () => {
    const words = ["SERVICE_PORT", "settings.js", "8080", "README"];
    const root = keep(await scratchWorkspace({ "a.txt": "a\n", "b.txt": "b\n" }));
    await assertProperty(
      fc.asyncProperty(fc.subarray(words), fc.subarray(words, { minLength: 1 }), fc.subarray(["a.txt", "b.txt"]), fc.subarray(["a.txt", "b.txt"]), async (said, asked, protect, touched) => {
        writeFileSync(join(root, "a.txt"), "a\n");
        writeFileSync(join(root, "b.txt"), "b\n");
        const check = { answer: asked.map((w) => new RegExp(w.replace(".", "\\."))), unchanged: protect };
        const before = grade.fingerprint(root, protect);
        for (const f of touched) writeFileSync(join(root, f), "changed\n");
        const g = await grade.gradeRun("t", check, root, before, { answer: `It is ${said.join(", ")}.` });
        const misses = asked.filter((w) => !said.includes(w)).length + protect.filter((f) => touched.includes(f)).length;
        rule(g.outcome === (misses === 0 ? "pass" : "fail"), "eval-outcome", () => `the answer names ${JSON.stringify(said)}, the check asks ${JSON.stringify(asked)}, protects ${JSON.stringify(protect)} and ${JSON.stringify(touched)} changed: graded ${shown(g)}. Pass only when every criterion holds.`);
        rule(g.reasons.length === misses, "eval-final-state", () => `${misses} criteria failed but the reasons are ${JSON.stringify(g.reasons)}: one reason per pattern the answer misses and per protected file changed.`);
        const unnamed = asked.filter((w) => !said.includes(w) && !g.reasons.some((r) => r.includes(w.split(".")[0]!)));
        rule(unnamed.length === 0, "eval-final-state", () => `the answer misses ${JSON.stringify(unnamed)} but no reason names the pattern: ${JSON.stringify(g.reasons)}. Say which pattern the answer does not match.`);
      }),
      { numRuns: 40 },
      "eval-outcome",
    );
  });
});

/** Every way to draw k of n runs (the first c passed): how many hold a pass, how many hold only passes. */
function countDraws(n: number, c: number, k: number): { any: number; all: number; draws: number } {
  let any = 0, all = 0, draws = 0;
  for (let mask = 0; mask < 1 << n; mask++) {
    const picked = [...Array(n).keys()].filter((i) => mask & (1 << i));
    if (picked.length !== k) continue;
    draws++;
    if (picked.some((i) => i < c)) any++;
    if (picked.every((i) => i < c)) all++;
  }
  return { any, all, draws };
}
const runs = fc.integer({ min: 1, max: 10 }).chain((n) => fc.tuple(fc.constant(n), fc.integer({ min: 0, max: n }), fc.integer({ min: 1, max: n })));
const close = (x: number, y: number) => Math.abs(x - y) < 1e-9;

describe("s23 the figures: pass rate, pass@k, pass^k", () => {
  it("property: pass@k is the share of the draws of k runs that hold at least one pass (1 − C(n−c, k)/C(n, k))", () => {
    assertProperty(
      fc.property(runs, ([n, c, k]) => {
        const d = countDraws(n, c, k);
        const got = stats.passAtK(n, c, k);
        rule(close(got, d.any / d.draws), "eval-pass-at-k", () => `passAtK(n=${n}, c=${c}, k=${k}) = ${got}, but ${d.any} of the ${d.draws} ways to draw ${k} of the ${n} runs hold a pass: ${d.any / d.draws}. Use 1 − C(n−c, k)/C(n, k) (1 when n − c < k).`);
      }),
      {},
      "eval-pass-at-k",
    );
  });

  it("property: pass^k is the share of the draws of k runs that are all passes (C(c, k)/C(n, k)), never above pass@k", () => {
    assertProperty(
      fc.property(runs, ([n, c, k]) => {
        const d = countDraws(n, c, k);
        const got = stats.passHatK(n, c, k);
        rule(close(got, d.all / d.draws), "eval-pass-hat-k", () => `passHatK(n=${n}, c=${c}, k=${k}) = ${got}, but ${d.all} of the ${d.draws} ways to draw ${k} of the ${n} runs are all passes: ${d.all / d.draws}. Use C(c, k)/C(n, k).`);
        rule(got <= stats.passAtK(n, c, k) + 1e-12, "eval-pass-hat-k", () => `pass^${k} (${got}) is above pass@${k} (${stats.passAtK(n, c, k)}) for n=${n}, c=${c}: all k passing is never likelier than one passing.`);
      }),
      {},
      "eval-pass-hat-k",
    );
  });

  it("property: with one pass among n runs pass@k is k/n, for n up to 1000 (no factorial overflows)", () => {
    assertProperty(
      fc.property(fc.integer({ min: 1, max: 1000 }).chain((n) => fc.tuple(fc.constant(n), fc.integer({ min: 1, max: n }))), ([n, k]) => {
        const got = stats.passAtK(n, 1, k);
        rule(Math.abs(got - k / n) < 1e-6, "eval-pass-at-k", () => `passAtK(n=${n}, c=1, k=${k}) = ${got}; one pass among ${n} runs is in a draw of ${k} with the chance ${k}/${n} = ${k / n}. Compute C(n−c, k)/C(n, k) as a product, not with factorials.`);
      }),
      {},
      "eval-pass-at-k",
    );
  });

  it("a k the estimators cannot use is refused in words", () => {
    for (const [n, c, k] of [[3, 1, 4], [3, 1, 0], [3, 4, 1], [2.5, 1, 1]] as const) {
      let said = "";
      try {
        stats.passAtK(n, c, k);
      } catch (e) {
        said = e instanceof RangeError ? e.message : "";
      }
      rule(/n=|k=/.test(said), "eval-pass-at-k", `passAtK(n=${n}, c=${c}, k=${k}) must throw a RangeError naming the numbers (0 ≤ c ≤ n, 1 ≤ k ≤ n); it said "${said}".`);
    }
  });

  it("property: the pass rate counts every run, errors included; per task the passes, errors and estimators", () => {
    const outcome = fc.constantFrom("pass", "fail", "error") as fc.Arbitrary<Graded["outcome"]>;
    assertProperty(
      fc.property(fc.array(fc.tuple(fc.constantFrom("a", "b", "c"), outcome), { minLength: 1, maxLength: 12 }), fc.integer({ min: 1, max: 3 }), (pairs, want) => {
        const tasks = [...new Set(pairs.map(([t]) => t))];
        const k = Math.min(want, ...tasks.map((t) => pairs.filter(([x]) => x === t).length));
        const list: Graded[] = pairs.map(([task, o]) => ({ task, outcome: o, reasons: o === "pass" ? [] : ["x"] }));
        const s = stats.score("agent", list, k);
        const passes = list.filter((g) => g.outcome === "pass").length;
        rule(close(s.pass_rate, passes / list.length), "eval-outcome", () => `${passes} of ${list.length} runs passed (${list.filter((g) => g.outcome === "error").length} broke) but the pass rate is ${s.pass_rate}: divide by every run, errors included.`);
        for (const t of tasks) {
          const mine = list.filter((g) => g.task === t);
          const c = mine.filter((g) => g.outcome === "pass").length;
          const row = s.tasks.find((x) => x.task === t);
          rule(row?.passed === c && row.runs === mine.length && row.errors === mine.filter((g) => g.outcome === "error").length, "eval-outcome", () => `task ${t}: ${c} of ${mine.length} passed; score says ${JSON.stringify(row)}.`);
          rule(row && close(row.pass_at_k, countDraws(mine.length, c, k).any / countDraws(mine.length, c, k).draws), "eval-pass-at-k", () => `task ${t}: pass@${k} of ${c}/${mine.length} is ${JSON.stringify(row?.pass_at_k)}: use passAtK(runs, passed, k).`);
        }
        // The suite's figures are the tasks' averaged: pooling every run would let a task run often outweigh the rest.
        const avg = (f: (x: Scores["tasks"][number]) => number) => s.tasks.reduce((n, x) => n + f(x), 0) / s.tasks.length;
        rule(close(s.pass_at_k, avg((x) => x.pass_at_k)) && close(s.pass_hat_k, avg((x) => x.pass_hat_k)), "eval-pass-at-k", () => `the suite's pass@${k} is ${s.pass_at_k} and pass^${k} ${s.pass_hat_k}, but the tasks' average is ${avg((x) => x.pass_at_k)} and ${avg((x) => x.pass_hat_k)}: a suite's figure is the mean of its tasks' figures, each task counted once.`);
      }),
      {},
      "eval-outcome",
    );
  });

  it("an agent with no runs at all (no task matched) has a pass rate of 0, a number the report and a comparison can read", () => {
    const s = stats.score("agent", [], 1);
    rule(s.pass_rate === 0 && s.runs === 0 && s.tasks.length === 0, "eval-outcome", () => `score("agent", [], 1) gave ${JSON.stringify({ runs: s.runs, pass_rate: Number.isNaN(s.pass_rate) ? "NaN" : s.pass_rate, tasks: s.tasks.length })}: with no runs the pass rate is 0, not 0 / 0 (NaN, which JSON writes as null and every comparison reads as neither better nor worse).`);
  });
});

describe("s23 comparing two agents: the tasks that flip first", () => {
  // A row: [task, passed, runs, errors]; errors are runs that broke (never passes), counted in runs like any run.
  const scoresOf = (agent: string, rows: Array<[string, number, number, number?]>): Scores => ({
    agent,
    k: 1,
    runs: rows.reduce((a, [, , n]) => a + n, 0),
    pass_rate: rows.reduce((a, [, c]) => a + c, 0) / Math.max(1, rows.reduce((a, [, , n]) => a + n, 0)),
    pass_at_k: rows.length ? rows.reduce((a, [, c, n]) => a + c / n, 0) / rows.length : 0,
    pass_hat_k: rows.length ? rows.reduce((a, [, c, n]) => a + (c === n ? 1 : 0), 0) / rows.length : 0,
    tasks: rows.map(([task, passed, n, errors = 0]) => ({ task, runs: n, passed, errors, pass_at_k: passed / n, pass_hat_k: passed === n ? 1 : 0 })),
  });
  const rowsOf = fc.uniqueArray(fc.tuple(fc.constantFrom("t1", "t2", "t3", "t4"), fc.integer({ min: 1, max: 4 }).chain((n) => fc.integer({ min: 0, max: n }).chain((c) => fc.tuple(fc.constant(c), fc.constant(n), fc.integer({ min: 0, max: n - c }))))), { selector: ([t]) => t, maxLength: 4 }).map((xs) => xs.map(([t, [c, n, e]]) => [t, c, n, e] as [string, number, number, number]));

  it("property: every task whose pass rate (passed / runs, a run that broke counted) differs is named better or worse with both rates; a task one agent did not run is set aside; totals are b − a", () => {
    assertProperty(
      fc.property(rowsOf, rowsOf, (ra, rb) => {
        const a = scoresOf("A", ra);
        const b = scoresOf("B", rb);
        const c = stats.compare(a, b);
        const said = JSON.stringify(c);
        for (const [task, ca, na, ea] of ra) {
          const other = rb.find(([t]) => t === task);
          if (!other) {
            rule(c.unmatched.includes(task), "eval-compare", () => `${task} was run by A only; the comparison says ${said}: put it in unmatched, not among the flips.`);
            continue;
          }
          const [x, y] = [ca / na, other[1] / other[2]];
          const inBetter = c.better.find((f) => f.task === task);
          const inWorse = c.worse.find((f) => f.task === task);
          const want = y > x ? "better" : y < x ? "worse" : "neither";
          const got = inBetter ? "better" : inWorse ? "worse" : "neither";
          rule(want === got, "eval-compare", () => `${task} passes ${ca} of ${na} runs with A (${ea} of them broke) and ${other[1]} of ${other[2]} with B (${other[3]} broke): pass rates ${x} and ${y}, every run counted, a broken one too; it belongs in ${want}, the comparison puts it in ${got} (${said}).`);
          const f = inBetter ?? inWorse;
          rule(!f || (close(f.before, x) && close(f.after, y)), "eval-compare", () => `${task}'s flip is ${JSON.stringify(f)}: before is A's pass rate (${x}), after is B's (${y}).`);
        }
        for (const [task] of rb) if (!ra.some(([t]) => t === task)) rule(c.unmatched.includes(task), "eval-compare", () => `${task} was run by B only; the comparison says ${said}: put it in unmatched.`);
        const both = c.unmatched.filter((task) => ra.some(([t]) => t === task) === rb.some(([t]) => t === task));
        rule(both.length === 0, "eval-compare", () => `unmatched holds ${JSON.stringify(both)}, which A and B both ran or neither did (${said}): unmatched is only the tasks one of the two ran.`);
        rule(close(c.pass_rate, b.pass_rate - a.pass_rate) && close(c.pass_at_k, b.pass_at_k - a.pass_at_k) && close(c.pass_hat_k, b.pass_hat_k - a.pass_hat_k), "eval-compare", () => `the totals are ${JSON.stringify([c.pass_rate, c.pass_at_k, c.pass_hat_k])}, not B's minus A's (${b.pass_rate - a.pass_rate}, ${b.pass_at_k - a.pass_at_k}, ${b.pass_hat_k - a.pass_hat_k}).`);
      }),
      {},
      "eval-compare",
    );
  });
});

describe("s23 grading one run: an error without words, a check killed by a signal", () => {
  it("a run that threw an error with no message (new Error()) is an error all the same, never a pass", async () => {
    const root = keep(await scratchWorkspace(REPO("a + b")));
    const g = await grade.gradeRun("t", CHECK, root, grade.fingerprint(root, CHECK.unchanged), { answer: "", error: "" });
    rule(g.outcome === "error", "eval-outcome", () => `the run threw an Error with no message (end.error is "", an empty string) and its workspace would pass; it was graded ${shown(g)}: a run broke when end.error is set at all (end.error !== undefined), whatever its words. An empty string is falsy: never test it with if (end.error).`);
    rule(g.reasons.length > 0, "eval-outcome", () => `the run broke, but the grade gives no reason: ${shown(g)}. Say that the run did not finish, even when the error has no words.`);
  });

  it("a check command killed by a signal (no exit code without a sandbox, 128 + the signal in one) fails, naming the command", async () => {
    await inSandboxModes(async (sandbox) => {
      const check = { command: "kill -9 $$" };
      const g = await graded(REPO("a + b"), "", undefined, check);
      rule(g.outcome === "fail" && g.reasons.some((r) => r.includes("kill -9")), "eval-final-state", () => `sandbox ${sandbox}: the check "kill -9 $$" was killed by SIGKILL: it did not exit 0 (its exit code is null without a sandbox, 137 in one), so the run fails with a reason naming it; it was graded ${shown(g)}. Pass only on exitCode === 0: null is not 0, and (exitCode ?? 0) or Number(exitCode) make it one.`);
    });
  });
});

describe("s23 grading one run: a check that never ends", () => {
  it("a check command still running at CHECK_TIMEOUT_MS (on the test's clock) fails, naming the command and saying it did not finish", async () => {
    const root = keep(await scratchWorkspace(REPO("a + b")));
    const started = join(root, ".check-started");
    // The marker is named by its full path, so it appears wherever the command runs; the sleep carries a token, so
    // the test stops it whatever the grading did.
    const token = `s23-check-${process.pid}-${Date.now()}`;
    const check = { command: `touch '${started}'; exec -a ${token} sleep 600` };
    // The check's time limit is a setTimeout (runSafeBash): the test's clock moves once the command has started.
    const got = await onTestClock(() => grade.gradeRun("t", check, root, {}, { answer: "" }), {
      limit: grade.CHECK_TIMEOUT_MS + 5_000,
      grace: 20_000,
      pace: async () => (existsSync(started) ? 1_000 : (await realSleep(10), 0)),
    }).finally(() => killProcessesWith(token));
    rule(!("late" in got), "eval-final-state", () => `the check "sleep 600" was still being waited for ${Math.round(got.at / 1000)} s into the test's clock, past CHECK_TIMEOUT_MS (${grade.CHECK_TIMEOUT_MS / 1000} s): run it with runSafeBash(check.command, { cwd: root, timeoutMs: CHECK_TIMEOUT_MS }), so a check that never ends is stopped.`);
    const g = (got as { value: Graded }).value;
    rule(
      g.outcome === "fail" && g.reasons.some((r) => r.includes("sleep 600") && /did not finish|timed? ?out|time limit|too long|took more than|still running|never (?:ended|finished)/i.test(r)),
      "eval-final-state",
      () => `the check "sleep 600" was stopped at its time limit, and the run was graded ${shown(g)}: it fails, with a reason that names the command and says it did not finish (run.timedOut), not an exit code it never had.`,
    );
  }, 60_000);
});

describe("s23 comparing two agents with k > 1: flips by the pass rate, not by pass@k", () => {
  /** Figures as score() gives them for k, each estimator counted from the draws (not the learner's passAtK). */
  const scoresAt = (agent: string, k: number, rows: Array<[string, number, number]>): Scores => {
    const tasks = rows.map(([task, passed, n]) => {
      const d = countDraws(n, passed, k);
      return { task, runs: n, passed, errors: 0, pass_at_k: d.any / d.draws, pass_hat_k: d.all / d.draws };
    });
    const runs = rows.reduce((a, [, , n]) => a + n, 0);
    const mean = (xs: number[]) => (xs.length ? xs.reduce((a, b) => a + b, 0) / xs.length : 0);
    return { agent, k, runs, pass_rate: rows.reduce((a, [, c]) => a + c, 0) / Math.max(1, runs), pass_at_k: mean(tasks.map((t) => t.pass_at_k)), pass_hat_k: mean(tasks.map((t) => t.pass_hat_k)), tasks };
  };

  it("with k = 2 a task that goes from 2 of 3 runs to 3 of 3 (pass@2 is 1 both times) is better, with its pass rates", () => {
    const a = scoresAt("A", 2, [["steady", 2, 3], ["rare", 0, 3], ["same", 1, 3]]);
    const b = scoresAt("B", 2, [["steady", 3, 3], ["rare", 1, 3], ["same", 1, 3]]);
    const c = stats.compare(a, b);
    const named = (f: { task: string; before: number; after: number }) => `${f.task} ${f.before.toFixed(3)}→${f.after.toFixed(3)}`;
    const said = JSON.stringify({ better: c.better.map(named), worse: c.worse.map(named) });
    rule(c.better.length === 2 && c.worse.length === 0 && c.better.some((f) => f.task === "steady") && c.better.some((f) => f.task === "rare"), "eval-compare", () => `with k = 2, "steady" passes 2 of 3 runs with A and 3 of 3 with B (pass@2 is 1 for both), "rare" 0 of 3, then 1 of 3 (pass^2 is 0 for both): both are better; the comparison says ${said}. A task flips by its pass rate, passed / runs, not by pass@k or pass^k (equal to the rate only when k = 1).`);
    const steady = c.better.find((f) => f.task === "steady");
    rule(!steady || (close(steady.before, 2 / 3) && close(steady.after, 1)), "eval-compare", () => `"steady"'s flip is ${JSON.stringify(steady)}: before and after are the pass rates (2/3 and 1), not pass@2.`);
    rule(close(c.pass_at_k, b.pass_at_k - a.pass_at_k) && close(c.pass_hat_k, b.pass_hat_k - a.pass_hat_k) && close(c.pass_rate, b.pass_rate - a.pass_rate), "eval-compare", () => `the totals are ${JSON.stringify([c.pass_rate, c.pass_at_k, c.pass_hat_k])}, not B's minus A's (${b.pass_rate - a.pass_rate}, ${b.pass_at_k - a.pass_at_k}, ${b.pass_hat_k - a.pass_hat_k}).`);
  });

  it("property: for k from 2 to 4, every task whose pass rate differs flips, with both rates", () => {
    const rows = (k: number) =>
      fc.uniqueArray(fc.tuple(fc.constantFrom("t1", "t2", "t3"), fc.integer({ min: k, max: 6 }).chain((n) => fc.tuple(fc.integer({ min: 0, max: n }), fc.constant(n)))), { selector: ([t]) => t, minLength: 1, maxLength: 3 }).map((xs) => xs.map(([t, [c, n]]) => [t, c, n] as [string, number, number]));
    assertProperty(
      fc.property(fc.integer({ min: 2, max: 4 }).chain((k) => fc.tuple(fc.constant(k), rows(k), rows(k))), ([k, ra, rb]) => {
        const c = stats.compare(scoresAt("A", k, ra), scoresAt("B", k, rb));
        for (const [task, ca, na] of ra) {
          const other = rb.find(([t]) => t === task);
          if (!other) continue;
          const [x, y] = [ca / na, other[1] / other[2]];
          const f = c.better.find((t) => t.task === task) ?? c.worse.find((t) => t.task === task);
          const want = y > x ? "better" : y < x ? "worse" : "neither";
          const got = c.better.some((t) => t.task === task) ? "better" : c.worse.some((t) => t.task === task) ? "worse" : "neither";
          rule(want === got && (!f || (close(f.before, x) && close(f.after, y))), "eval-compare", () => `k = ${k}: ${task} passes ${ca}/${na} with A and ${other[1]}/${other[2]} with B: it belongs in ${want} with the rates ${x} and ${y}; the comparison puts it in ${got} (${JSON.stringify(f)}). Compare passed / runs, whatever k is.`);
        }
      }),
      {},
      "eval-compare",
    );
  });
});

describe("s23 who approves an eval's commands", () => {
  it("the scripted model's script is approved; a real model's commands only with --yes inside the OS sandbox; never approveAll by default", async () => {
    const request = { command: "node --test", reason: "run the tests" };
    const verdict = async (model: string, yes?: boolean) => (await lesson.evalApprover({ model }, yes)(request)).approved;
    const bwrap = sandboxInfo().kind === "bubblewrap";
    await inSandboxModes(async (sandbox) => {
      const held = sandbox === "on" && bwrap;
      rule(await verdict(scripted().model), "eval-approval", `the scripted model's own commands are approved (sandbox ${sandbox}): give demoApprover(llm) when --yes is absent.`);
      rule(!(await verdict("claude-sonnet-4-5")), "eval-approval", `a real model's command was approved with no --yes (sandbox ${sandbox}): nobody approved it; without --yes use demoApprover(llm), which refuses any model but the scripted one.`);
      rule(!(await verdict("claude-sonnet-4-5", false)), "eval-approval", `a real model's command was approved with yes = false (sandbox ${sandbox}): only the user's --yes approves it.`);
      rule((await verdict("claude-sonnet-4-5", true)) === held, "eval-approval", held ? "with --yes inside bubblewrap a real model's commands are approved (the kernel holds them): approveAll when yes and the sandbox is bubblewrap." : `with --yes but no OS sandbox (${sandbox === "off" ? "COURSE_SANDBOX=off" : "bwrap is not installed"}) a real model's command was approved: --yes approves commands inside the sandbox only.`);
    });
  });
});

describe("s23 the eval, end to end, on the suite's tasks", () => {
  it("the default task is the suite's fix-range, and its recorded run keeps every pairing rule", async () => {
    rule(lesson.SUITE[0]?.id === "fix-range" && lesson.SUITE.every((t) => readFileSync(join(EVAL_SUITE, t.id, "instruction.md"), "utf8").trim() === t.instruction), "eval-final-state", "the lesson's suite must send each task's own instruction.md, word for word.");
    const llm = scripted();
    // The scripted model's commands are its own script's: approved with or without the OS sandbox.
    const history = await lesson.demo(llm, lessonTask("s23_evals"));
    const problems = await transcriptProblems(llm, history);
    rule(problems === null, "eval-final-state", () => `the recorded run broke a message rule: ${problems}`);
    const tests = history.flatMap((m) => (m.role === "user" ? resultsIn(m) : [])).map((r) => textIn(r.content)).filter((t) => /# tests \d+/.test(t));
    rule(tests.length >= 2 && /# fail 0/.test(tests.at(-1)!), "eval-final-state", () => `the recorded run should run the tests before and after the fix; it ran them ${tests.length} time(s).`);
  });

  it("s18's agent passes both tasks; held to three turns it fails the one that needs more, and the comparison says which", async () => {
    const llm = scripted();
    const full = stats.score("s18", await lesson.runEval(llm, lesson.finalAgent(), lesson.SUITE, 1), 1);
    const short = stats.score("s18, 3 turns", await lesson.runEval(llm, lesson.finalAgent("short", 3), lesson.SUITE, 1), 1);
    rule(full.pass_rate === 1, "eval-final-state", () => `s18's agent, scripted, should pass fix-range and explain-port; the eval says ${JSON.stringify(full.tasks)}.`);
    const c = stats.compare(full, short);
    rule(c.worse.map((f) => f.task).join() === "explain-port" && c.better.length === 0, "eval-compare", () => `held to three turns the agent still fixes the range but cannot answer explain-port in time; the comparison says ${JSON.stringify(c)}.`);
  });
});

// The net under the rules: this lesson beside the reference, on its own task (its eval of the
// final agent on the first suite task). It has no loop of its own for generated model answers:
// the agent it grades is s18's, which s18's net covers (tests/differential/net.ts).
import { differentialNet } from "./differential/net.ts";
differentialNet("s23", { generated: false });
