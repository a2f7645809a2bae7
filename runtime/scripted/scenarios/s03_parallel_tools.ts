/**
 * s03_parallel_tools: the failing-login conversation on the sample repository examples/login-service.
 * Turn 1 runs the tests (one fails); turn 2 asks for THREE read-only calls at once (the log, the
 * source, the test), which the lesson runs together and answers in ONE message; turn 3 asks for
 * an edit and a test run in one turn, which must run one at a time, in order (the test run must
 * see the edit); turn 4 explains. The lesson runs it on a scratch copy of the sample.
 */
import type { Scenario, TurnContext } from "../types.ts";
import { call, firstLines, say, steps, text } from "./script.ts";
import { S03_TASK, SAMPLE_REPOSITORY } from "../../tasks.ts";

export { S03_TASK };


/** The sample repository the lesson copies for its default task. */
export const S03_SAMPLE = SAMPLE_REPOSITORY;

export const S03_TEST_COMMAND = "node --test --test-reporter=tap 2>&1 | grep -E '^(not )?ok|^# (pass|fail)'";
const BUGGY = "if (attempts > MAX_FAILED_ATTEMPTS)";
const FIXED = "if (attempts >= MAX_FAILED_ATTEMPTS)";

/** The text of the result that answers the call to `path` (matched by id, not by position). */
function resultFor(ctx: TurnContext, path: string): { out: string; failed: boolean } | null {
  const r = ctx.results.find((x) => (ctx.callOf(x)?.input as { path?: unknown } | undefined)?.path === path);
  return r ? { out: ctx.resultText(r), failed: r.is_error === true } : null;
}

export const s03ParallelTools: Scenario = {
  id: "s03_parallel_tools",
  title: "The failing-login task: run the tests, read the log, the source and the test in parallel, then fix and re-run in order",
  task: S03_TASK,
  reply: steps(
    () => ({ content: [text("First I run the login module's tests."), call("bash", { command: S03_TEST_COMMAND })] }),
    (ctx) => {
      const out = ctx.results[0] ? ctx.resultText(ctx.results[0]) : "";
      if (!/not ok/.test(out)) return say(`The tests do not fail here:\n${firstLines(out)}`);
      return {
        content: [
          text("The lockout test fails. I'll read the log, the source and the test at the same time."),
          call("read_file", { path: "logs/auth.log" }),
          call("read_file", { path: "src/login.js" }),
          call("read_file", { path: "test/login.test.js" }),
        ],
      };
    },
    (ctx) => {
      const log = resultFor(ctx, "logs/auth.log");
      const source = resultFor(ctx, "src/login.js");
      const test = resultFor(ctx, "test/login.test.js");
      if (!log || !source || !test)
        return say(`I asked for three files in one turn but got ${ctx.results.length} result(s) for them: every call needs its own result, matched by id.`);
      if (source.failed || !source.out.includes(BUGGY)) return say(`src/login.js does not look as I expected:\n${firstLines(source.out)}`);
      return {
        content: [
          text(
            "Found it. The log shows alice failing 3 times with locked=false and then logging in; carol is locked only at " +
              "attempts=4. The source locks when attempts > MAX_FAILED_ATTEMPTS, one failure too late: it must be >=. " +
              "I'll fix it and re-run the tests (in this order).",
          ),
          call("edit_file", { path: "src/login.js", old_text: BUGGY, new_text: FIXED }),
          call("bash", { command: S03_TEST_COMMAND }),
        ],
      };
    },
    (ctx) => {
      const [edit, run] = ctx.results;
      const out = run ? ctx.resultText(run) : "";
      if (!edit || edit.is_error) return say(`The edit failed: ${edit ? ctx.resultText(edit) : "no result"}`);
      if (/not ok|# fail [1-9]/.test(out))
        return say(`I changed > to >= in src/login.js, but the tests still fail. Did the test run start before the edit finished?\n${firstLines(out)}`);
      return say(
        "The lockout test failed because src/login.js locked an account only after MORE than MAX_FAILED_ATTEMPTS (3) " +
          "failures: `attempts > MAX_FAILED_ATTEMPTS`. The log shows it (carol was locked at attempts=4, alice logged in " +
          `after 3 failures). I changed it to \`>=\`; the tests now pass:\n${firstLines(out)}`,
      );
    },
  ),
};
