/**
 * The checks that grade lesson s01, as plain functions of a lesson module, so the same checks
 * run on lessons/ or solutions/ (tests/s01_agent_loop.test.ts) and on the broken loops under
 * tests/mutants/s01/ (tests/runtime/mutants.test.ts), which must each fail them.
 */
import type Anthropic from "@anthropic-ai/sdk";
import { call, say, steps, text, thinking } from "../runtime/scripted/scenarios/script.ts";
import { S01_TASK } from "../runtime/scripted/scenarios/s01_agent_loop.ts";
import type { Scenario } from "../runtime/scripted/types.ts";
import { ruleOfApiMessage, ruleStage } from "../runtime/rules.ts";
import { RuleError, blocksIn, callsIn, driveLoop, resultFor, resultsIn, rule, scripted, textIn } from "../runtime/testing.ts";

/** What the checks use of a lesson module. */
export type S01Lesson = Pick<typeof import("../solutions/s01_agent_loop/agent.ts"), "TOOLS" | "rawCall" | "agentLoop">;

export interface Check {
  name: string;
  run(lesson: S01Lesson): Promise<void> | void;
}

/** Runs the lesson's loop on a scripted model; fails with the API's and the checker's words. */
export async function runLoop(lesson: S01Lesson, scenario?: Scenario | string, task = S01_TASK) {
  // s01's scenarios need at most 4 requests: a loop past 20 does not stop.
  const llm = scripted({ maxRequests: 20, ...(scenario ? { scenario } : {}) });
  const history: Anthropic.MessageParam[] = [{ role: "user", content: task }];
  let requests = 0; // counted before the transcript is sent again to check it
  let final: Anthropic.Message;
  try {
    final = await driveLoop(llm, history, async () => {
      const response = await lesson.agentLoop(llm, history);
      requests = llm.scripted.exchanges.length;
      return response;
    });
  } catch (e) {
    // A loop that hangs, or whose history did not grow, says so first; else a request that left
    // out part of the history is the cause of what the API refused.
    const stage = e instanceof RuleError ? ruleStage(e.rule) : undefined;
    if (stage !== "hang" && stage !== "growth") expectWholeHistory(llm, history, requests || llm.scripted.exchanges.length);
    throw e;
  }
  expectWholeHistory(llm, history, requests);
  return { llm, history, final, requests };
}

/**
 * Every request the loop sent carried the history as it was then: the first N messages of the
 * history, all of them, unchanged (the loop only appends, so each request is a prefix of it).
 */
function expectWholeHistory(llm: ReturnType<typeof scripted>, history: Anthropic.MessageParam[], count: number): void {
  // By shape: a string content and the same text as one text block are the same message to the API.
  const shape = (m: unknown) => (m && typeof m === "object" ? { role: (m as { role?: unknown }).role, content: blocksIn((m as { content?: unknown }).content) } : m);
  const same = (a: unknown, b: unknown) => JSON.stringify(shape(a)) === JSON.stringify(shape(b));
  llm.scripted.exchanges.slice(0, count).forEach((ex, n) => {
    const sent = (ex.request as { messages?: Anthropic.MessageParam[] } | undefined)?.messages;
    if (!Array.isArray(sent)) return;
    const bad = sent.findIndex((m, i) => !same(m, history[i]));
    const before = n === 0 ? 1 : llm.scripted.exchanges[n - 1]!.response ? 2 : 0;
    const previous = n === 0 ? 0 : ((llm.scripted.exchanges[n - 1]!.request as { messages?: unknown[] }).messages?.length ?? 0);
    const count = (m: unknown) => (Array.isArray((m as { content?: unknown })?.content) ? ((m as { content: unknown[] }).content.length) : 1);
    // The request started at the task but one of its messages is not what the history holds now:
    // the loop changed a message after sending it (one results array reused for every turn, say).
    const changed = bad > 0 && same(sent[0], history[0]);
    rule(
      bad < 0 && sent.length >= previous + before,
      "whole-history",
      changed
        ? `history[${bad}] changed after request ${n + 1} sent it (it had ${count(sent[bad])} block(s), it has ${count(history[bad])}): a message is never changed once it is in the history. Build each turn's results in a new array (declare it inside the loop).`
        : bad >= 0
          ? `request ${n + 1} sent ${sent.length} message(s), and its messages[${bad}] is not history[${bad}] (${history[bad]?.role ?? "nothing"}): each request sends the whole history, from the task on, unchanged.`
          : `request ${n + 1} sent ${sent.length} message(s), the one before it ${previous}: each request sends the whole history, which grew by the answer and its results in between.`,
    );
  });
}

export const twoCalls: Scenario = {
  id: "test-two-calls",
  title: "two bash calls in one turn, then an answer",
  reply: steps(
    () => ({ content: [text("Two commands at once."), call("bash", { command: "echo first" }), call("bash", { command: "echo second" })] }),
    (ctx) => say(`Got ${ctx.results.length} results.`),
  ),
};

export const thinkingTwice: Scenario = {
  id: "test-thinking",
  title: "thinking before each tool call",
  reply: steps(
    () => ({ content: [thinking("First I look at the date."), call("bash", { command: "echo one" })] }),
    () => ({ content: [thinking("Now once more."), text("Once more."), call("bash", { command: "echo two" })] }),
    () => say("Done."),
  ),
};

export const PART_ONE: Check[] = [
  {
    name: "returns the model's message with a bash tool_use and stop_reason tool_use",
    async run(lesson) {
      const llm = scripted();
      const message = await lesson.rawCall(llm, S01_TASK);
      const sent = llm.scripted.exchanges.length;
      rule(sent === 1, "raw-call", `rawCall made ${sent} requests: part one makes exactly one call and runs nothing.`);
      rule(message && Array.isArray(message.content), "raw-call", "rawCall must return the response of messages.create (the Message object), not its text or nothing.");
      const types = message.content.map((b) => b.type).join(", ");
      rule(
        message.stop_reason === "tool_use" && types === "thinking, text, tool_use",
        "raw-call",
        `rawCall returned a message with stop_reason ${JSON.stringify(message.stop_reason)} and blocks [${types}]; the model's answer has [thinking, text, tool_use] and stop_reason "tool_use". Send the tools with the request and return the response unchanged.`,
      );
    },
  },
  {
    name: "offers a valid bash tool definition",
    run(lesson) {
      const names = lesson.TOOLS.map((t) => t.name);
      rule(names.length === 1 && names[0] === "bash", "tool-definition", `TOOLS names [${names.join(", ")}]: lesson 1 offers one tool, named "bash".`);
      const required = lesson.TOOLS[0]!.input_schema.required;
      rule(
        Array.isArray(required) && required.length === 1 && required[0] === "command",
        "tool-definition",
        `bash's input_schema.required is ${JSON.stringify(required)}: it must be ["command"], so the model always sends a command.`,
      );
    },
  },
];

/** A scripted turn that ends with `stop_reason`, with a tool_use in it (which must not run). */
function stopsWith(stop: string): Scenario {
  return {
    id: `test-stop-${stop}`,
    title: `one response with stop_reason ${stop}`,
    reply: steps(() => ({
      content: [text(`Stopping (${stop}).`), call("bash", { command: "echo ran-anyway" })],
      stop_reason: stop,
      ...(stop === "stop_sequence" ? { stop_sequence: "###" } : {}),
      ...(stop === "refusal" ? { stop_details: { type: "refusal" as const, category: null, explanation: null } } : {}),
    })),
  };
}

/** Runs the loop outside driveLoop (a stop with a cut-off call is left as the lesson says). */
async function runRaw(lesson: S01Lesson, scenario: Scenario) {
  const llm = scripted({ maxRequests: 6, scenario });
  const history: Anthropic.MessageParam[] = [{ role: "user", content: "stop" }];
  let thrown: unknown;
  try {
    await lesson.agentLoop(llm, history);
  } catch (e) {
    thrown = e;
  }
  return { llm, history, thrown };
}

export const PART_TWO: Check[] = [
  {
    name: "runs the tool, answers it by id, and stops at end_turn",
    async run(lesson) {
      const { history, final, requests } = await runLoop(lesson);
      rule(final && final.stop_reason === "end_turn", "stop-when-done", `agentLoop returned ${final ? `a message with stop_reason ${JSON.stringify(final.stop_reason)}` : "nothing"}: return the model's last response (stop_reason "end_turn").`);
      const roles = history.map((m) => m.role).join(", ");
      rule(roles === "user, assistant, user, assistant", "roles-alternate", `the history is [${roles}]; one tool call makes it [user, assistant, user, assistant].`);
      const call = callsIn(history[1])[0];
      rule(call, "assistant-turn-missing", "history[1] has no tool_use block: push the response's content as it came.");
      const result = resultFor(history, call.id);
      rule(result, "result-by-id", `no tool_result answers ${call.id}: use block.id as tool_use_id.`);
      // The result is the command's real output (the repository's files), not a placeholder.
      rule(/package\.json/.test(textIn(result.content)), "result-is-output", `the tool_result for ${call.id} does not carry the command's output (it lists the repository's files, package.json among them): put what runBash returned in content.`);
      rule(requests === 2, "stop-when-done", `the loop made ${requests} requests; this task needs 2 (the call, then the answer).`);
    },
  },
  {
    name: "answers two calls of one turn in ONE user message, each output under ITS id",
    async run(lesson) {
      const { history } = await runLoop(lesson, twoCalls, "two at once");
      const roles = history.map((m) => m.role).join(", ");
      rule(roles === "user, assistant, user, assistant", "results-split", `the history is [${roles}]: both results of one turn go in ONE user message, so it is [user, assistant, user, assistant].`);
      const [first, second] = callsIn(history[1]);
      // Any order of results is valid for the API; each output must sit under the call that asked.
      for (const [c, want] of [[first, "first"], [second, "second"]] as const) {
        const got = c ? textIn(resultFor(history, c.id)?.content).trim() : "";
        rule(got === want, "result-by-id", `the result for ${c?.id ?? "the call"} (echo ${want}) is ${JSON.stringify(got.slice(0, 40))}: each tool_result carries the output of the call with its id.`);
      }
    },
  },
  {
    name: "sends thinking blocks back unchanged, turn after turn",
    async run(lesson) {
      const { history, llm } = await runLoop(lesson, thinkingTwice, "think twice");
      rule(history.length === 6, "roles-alternate", `the history has ${history.length} messages; two calls and an answer make 6.`);
      const refused = llm.scripted.exchanges.find((e) => e.error !== undefined);
      if (refused) {
        const id = ruleOfApiMessage(refused.error!.message);
        rule(false, id === "api-rejected" ? "not-verbatim" : id, `the API refused request ${llm.scripted.exchanges.indexOf(refused) + 1} of the loop: ${refused.error!.message}`);
      }
    },
  },
  {
    name: "stops as soon as stop_reason is not tool_use (one request per turn, no extra call)",
    async run(lesson) {
      const { requests } = await runLoop(lesson, { id: "test-no-tools", title: "just text", reply: () => say("Nothing to run.") }, "hello");
      rule(requests === 1, "stop-when-done", `after an end_turn answer the loop made ${requests} requests: it stops after the first.`);
    },
  },
  ...["max_tokens", "stop_sequence", "refusal", "pause_turn"].map(
    (stop): Check => ({
      name: `stops at stop_reason ${stop} without running the tool_use in it`,
      async run(lesson) {
        const { llm, history, thrown } = await runRaw(lesson, stopsWith(stop));
        const requests = llm.scripted.exchanges.length;
        const ran = history.some((m) => resultsIn(m).length > 0);
        rule(!ran, "tools-only-on-tool-use", `the response's stop_reason was "${stop}" and the loop ran its tool_use anyway: only "tool_use" asks for tools (a ${stop} response may hold a cut-off or unfinished call). Return instead.`);
        rule(requests === 1, "stop-when-done", `after a "${stop}" response the loop made ${requests} requests: any stop_reason but "tool_use" ends the loop in this lesson.`);
        rule(!thrown, "loop-threw", () => `the loop threw on a "${stop}" response: ${(thrown as Error)?.message ?? String(thrown)}`);
        rule(history.length === 2 && history[1]!.role === "assistant", "assistant-turn-missing", `after one "${stop}" response the history should be [user, assistant]; it is [${history.map((m) => m.role).join(", ")}].`);
      },
    }),
  ),
  {
    name: "keeps going when a command fails: the failure is the observation",
    async run(lesson) {
      const failing: Scenario = {
        id: "test-failing-command",
        title: "a command that fails",
        reply: steps(() => ({ content: [call("bash", { command: "ls /definitely/not/here" })] }), () => say("It failed.")),
      };
      const { history } = await runLoop(lesson, failing, "fail");
      const result = resultsIn(history[2])[0];
      rule(result, "unanswered-tool-use", "the failing command got no tool_result in history[2].");
      rule(/No such file|exit code/.test(textIn(result.content)), "tool-failure-observed", "the failing command's tool_result does not say it failed (\"No such file\" / the exit code): send runBash's output as it is.");
    },
  },
];
