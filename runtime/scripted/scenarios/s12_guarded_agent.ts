/**
 * s12_guarded_agent: the failing-login task in the sample repository (examples/login-service).
 *
 *   [0] user       "Run the login module's tests and find out why one fails."
 *   [1] assistant  text + tool_use(run_tests {module: "login"})             stop_reason: tool_use
 *                  (the task's own tool; a request without it gets bash: node --test, as s09 has)
 *   [2] user       tool_result (the test output: 1 failed)
 *   [3] assistant  text + tool_use(read_file logs/auth.log) + tool_use(read_file src/login.js)
 *   [4] user       tool_result + tool_result                                 (one message, two results)
 *   [5] assistant  text: which test fails, the line at fault, the log line that proves it
 *
 * The scripted model does not reason: it reads the real tool output with a few patterns. So the
 * answer is only as right as what the tools returned (fix the bug and it says all tests pass).
 * Follow-up questions in the same session fall back to the free-form intents.
 */
import type Anthropic from "@anthropic-ai/sdk";
import type { Reply, Scenario, TurnContext } from "../types.ts";
import { intents } from "./intents.ts";
import { call, firstLines, say, text, thinking } from "./script.ts";
import { S12_TASK, S12_TASK_ZH } from "../../tasks.ts";

export { S12_TASK, S12_TASK_ZH };

export const S12_LOG = "logs/auth.log";
export const S12_SOURCE = "src/login.js";

/** The test run: the task's run_tests when the request offers it, else `node --test` through bash. */
function runTestsCall(ctx: TurnContext) {
  if (ctx.tools.includes("run_tests")) return call("run_tests", { module: "login" });
  return call(ctx.tools.includes("bash") ? "bash" : (ctx.tools[0] ?? "bash"), { command: "node --test" });
}

function pathOf(ctx: TurnContext, r: Anthropic.ToolResultBlockParam): string {
  const input = ctx.callOf(r)?.input as { path?: unknown } | undefined;
  return typeof input?.path === "string" ? input.path : "";
}

/** Step 1: read the test output; name the failing test and read the log and the source together. */
function afterTests(ctx: TurnContext): Reply {
  const result = ctx.results[0];
  if (!result) return say("I expected the test output, but the last message has no tool_result.");
  const out = ctx.resultText(result);
  if (result.is_error && !/# (tests|fail)/.test(out))
    return say(`I could not run the tests:\n${firstLines(out, 6)}`);
  const failed = Number(/# fail (\d+)/.exec(out)?.[1] ?? NaN);
  const total = Number(/# tests (\d+)/.exec(out)?.[1] ?? NaN);
  if (Number.isNaN(failed)) return say(`The test run did not report a summary. Its output:\n${firstLines(out, 10)}`);
  if (failed === 0) return say(`All ${total} tests of the login module pass: nothing to investigate.`);
  const name = /not ok \d+ - (.+)/.exec(out)?.[1]?.trim() ?? "one test";
  const read = ctx.tools.includes("read_file") ? "read_file" : undefined;
  if (!read) return say(`${failed} of ${total} tests fail, the first being "${name}". I have no read_file tool to look further.`);
  const dir = packageDir(ctx, out);
  return {
    content: [
      thinking(`${failed} failing; the log and the source together should show why.`),
      text(`${failed} of ${total} tests fail: "${name}". I'll read the log and the source at the same time.`),
      call(read, { path: dir + S12_LOG }),
      call(read, { path: dir + S12_SOURCE }),
    ],
  };
}

/**
 * Where the tested package is, relative to the workspace: "" when the tests ran in it, else the
 * folder of the failing test's file (node --test prints its absolute location) minus the workspace
 * root the system prompt names. So the task works from the course's root folder too.
 */
function packageDir(ctx: TurnContext, out: string): string {
  const location = /location: '(.+)\/test\/[^/']+:\d+:\d+'/.exec(out)?.[1];
  const system = typeof ctx.request.system === "string" ? ctx.request.system : (ctx.request.system ?? []).map((b) => b.text).join("\n");
  const root = /working in (\S+?);/.exec(system)?.[1];
  if (!location || !root || !location.startsWith(`${root}/`)) return "";
  return `${location.slice(root.length + 1)}/`;
}

/** Step 2: explain, from the two files. */
function explain(ctx: TurnContext): Reply {
  const find = (suffix: string) => ctx.results.find((r) => pathOf(ctx, r).endsWith(suffix));
  const source = find(S12_SOURCE);
  const log = find(S12_LOG);
  const sourcePath = source ? pathOf(ctx, source) : S12_SOURCE;
  if (!source || source.is_error) return say(`I could not read ${sourcePath}${source ? `: ${firstLines(ctx.resultText(source), 2)}` : ""}.`);
  const lines = ctx.resultText(source).split("\n");
  const max = /MAX_FAILED_ATTEMPTS\s*=\s*(\d+)/.exec(ctx.resultText(source))?.[1] ?? "3";
  const at = lines.findIndex((l) => /attempts\s*>\s*MAX_FAILED_ATTEMPTS/.test(l));
  const logLines = log && !log.is_error ? ctx.resultText(log).split("\n") : [];
  const evidence = logLines.find((l) => l.includes(`attempts=${max} locked=false`));
  const after = evidence ? logLines[logLines.indexOf(evidence) + 1] : undefined;
  if (at < 0)
    return say(
      `The lockout test fails, but ${sourcePath} has no \`attempts > MAX_FAILED_ATTEMPTS\` check any more, so the cause is elsewhere. ` +
        `Read the assertion in the test output first.`,
    );
  const parts = [
    `The failing test is the lockout test: after ${max} wrong passwords the account should be locked, but the right password is still accepted.`,
    `Cause: ${sourcePath} line ${at + 1}, \`${lines[at]!.trim()}\`, locks the account only when the attempts EXCEED the limit, that is on failure ${Number(max) + 1}, one too late (an off-by-one).`,
  ];
  if (evidence)
    parts.push(
      `The log shows it in production too: \`${evidence.trim()}\`${after ? `, followed by \`${after.trim()}\`` : ""}.`,
    );
  parts.push("Fix: use `attempts >= MAX_FAILED_ATTEMPTS`. I have not changed any file.");
  return say(parts.join("\n"));
}

/**
 * The sample repository's Stop hook (it runs the tests) sends the model back once while they
 * fail: the task was to find out why, not to change the code, so the answer says so and stands.
 */
function afterStopHook(ctx: TurnContext): Reply {
  const zh = ctx.firstPrompt.trim() === S12_TASK_ZH;
  if (zh) return say("Stop 钩子让我回来：测试仍然失败。确实如此，原因就是上面说的差一错误。任务是找出原因，不是改代码，所以我没有改 src/login.js；修复方法是改成 `attempts >= MAX_FAILED_ATTEMPTS`。");
  return say(
    "The Stop hook sent me back: the tests still fail. They do, for the off-by-one above. The task was to find out why, not to change the code, " +
      "so I have left src/login.js as it is; the fix is `attempts >= MAX_FAILED_ATTEMPTS`.",
  );
}

function reply(ctx: TurnContext): Reply {
  const task = ctx.prompt.trim();
  const first = ctx.firstPrompt.trim();
  if (task.startsWith("[Stop hook]") && (first === S12_TASK || first === S12_TASK_ZH)) return afterStopHook(ctx);
  if (task !== S12_TASK && task !== S12_TASK_ZH) return intents.reply(ctx);
  if (ctx.step === 0) return { content: [thinking("Start from the failing tests."), text("First I'll run the login module's tests."), runTestsCall(ctx)] };
  if (ctx.step === 1) return afterTests(ctx);
  if (ctx.step === 2) return explain(ctx);
  return say("I have already explained the failure above.");
}

export const s12GuardedAgent: Scenario = {
  id: "s12_guarded_agent",
  title: "The failing-login task: run the login tests, read the log and the source in parallel, explain the failure",
  task: S12_TASK,
  reply,
};

/** The same scenario for the task's original Chinese wording. */
export const s12GuardedAgentZh: Scenario = { ...s12GuardedAgent, id: "s12_guarded_agent_zh", task: S12_TASK_ZH };
