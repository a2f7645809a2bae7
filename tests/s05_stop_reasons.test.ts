/**
 * s05_stop_reasons: every stop_reason ends in a typed Outcome, and every run leaves a transcript
 * that can be sent again. Grades lessons/ or solutions/ (COURSE_TREE). A recording registry
 * proves that a tool call cut off by max_tokens is never run; the scripted model cuts answers
 * off at max_tokens itself, so the cut is real.
 */
import Anthropic from "@anthropic-ai/sdk";
import fc from "fast-check";
import { afterAll, beforeAll, describe, it } from "vitest";
import { z } from "zod";
import { call, say, steps, text } from "../runtime/scripted/scenarios/script.ts";
import { S05_NOTES, S05_SMALL_MAX_TOKENS, S05_TASK } from "../runtime/scripted/scenarios/s05_stop_reasons.ts";
import type { Reply, Scenario } from "../runtime/scripted/types.ts";
import { ruleOfApiMessage } from "../runtime/rules.ts";
import { RuleError, assertProperty, errorText, expectSendable, expectTranscriptRules, loadLesson, quietOutput, resultsIn, textIn, rule, scripted } from "../runtime/testing.ts";
import type { ToolContext } from "../solutions/s02_tool_dispatch/registry.ts";
import { refusedRequest, show, withTranscript } from "./support.ts";
import { SafeToolRegistry, defineTool } from "../solutions/s04_tool_errors/define-tool.ts";

type Agent = typeof import("../solutions/s05_stop_reasons/agent.ts");
const lesson = await loadLesson<Agent>("s05_stop_reasons");

let restore: () => void;
beforeAll(() => {
  restore = quietOutput();
});
afterAll(() => restore());

/** A registry whose write_file keeps files in memory, and which records every call it is asked to run. */
class Recording extends SafeToolRegistry {
  readonly dispatched: Array<{ id: string; name: string; input: unknown }> = [];
  readonly files: Map<string, string>;
  constructor() {
    const files = new Map<string, string>();
    super([
      defineTool({
        name: "write_file",
        description: "Write a file.",
        input: z.object({ path: z.string(), content: z.string() }),
        run: ({ path, content }) => {
          files.set(path, content);
          return `wrote ${content.length} characters to ${path}`;
        },
      }),
    ]);
    this.files = files;
  }
  override dispatch(c: Anthropic.ToolUseBlock, ctx?: ToolContext) {
    this.dispatched.push({ id: c.id, name: c.name, input: c.input });
    return super.dispatch(c, ctx);
  }
}

type Outcome = Awaited<ReturnType<Agent["runAgent"]>>;
const LOOP = "(runAgent in lessons/s05_stop_reasons/agent.ts)";

/** Every call the registry ran came from a response that asked for tools (stop_reason tool_use). */
function expectOnlyCompleteCallsRun(llm: ReturnType<typeof scripted>, registry: Recording): void {
  for (const d of registry.dispatched) {
    // (A retry may repeat a call's id: the call that ran must be one of a complete response.)
    const asked = llm.scripted.responses.filter((r) => r.content.some((b) => b.type === "tool_use" && b.id === d.id));
    const complete = asked.some((r) => r.stop_reason === "tool_use" && r.content.some((b) => b.type === "tool_use" && b.id === d.id && show(b.input) === show(d.input)));
    const from = asked.at(-1);
    rule(
      asked.length === 0 || complete,
      "tools-only-on-tool-use",
      `the loop ran ${d.name} (${d.id}) from a response whose stop_reason was ${show(from?.stop_reason)}, with the input ${show(d.input)}: only a "tool_use" response's calls are complete. A max_tokens answer may end in a cut-off call; ask again or answer it as not run ${LOOP}.`,
    );
  }
}

/** A max_tokens answer is asked again once: never three requests in a row with the same messages after max_tokens. */
function expectOneRetry(llm: ReturnType<typeof scripted>): void {
  const ex = llm.scripted.exchanges;
  const sent = (k: number) => show((ex[k]!.request as { messages?: unknown }).messages);
  const cut = (k: number) => ex[k]!.response?.stop_reason === "max_tokens";
  // The request after a cut-off answer is its retry: the same history, the cut answer not stored.
  for (let n = 1; n < ex.length; n++)
    rule(
      !cut(n - 1) || sent(n) === sent(n - 1),
      "max-tokens-retry",
      `response ${n} was cut off by max_tokens, and the retry (request ${n + 1}) sent ${(ex[n]!.request as { messages?: unknown[] }).messages?.length ?? 0} message(s) instead of the same ${(ex[n - 1]!.request as { messages?: unknown[] }).messages?.length ?? 0}: a cut-off answer is not stored; ask again with the same history and a larger max_tokens ${LOOP}.`,
    );
  for (let n = 2; n < ex.length; n++) {
    rule(
      !(cut(n - 2) && cut(n - 1) && sent(n) === sent(n - 1) && sent(n - 1) === sent(n - 2)),
      "max-tokens-retry",
      `requests ${n - 1}, ${n} and ${n + 1} sent the same history after max_tokens answers: ask again once, with a larger limit; if that is cut off too, stop with the max_tokens outcome ${LOOP}.`,
    );
  }
}

/** After a pause_turn, the next request ends with that turn, as it came: no user message after it. */
function expectPauseContinued(llm: ReturnType<typeof scripted>): void {
  const ex = llm.scripted.exchanges;
  ex.forEach((e, n) => {
    if (e.response?.stop_reason !== "pause_turn" || n + 1 >= ex.length) return;
    const last = (ex[n + 1]!.request as { messages?: Anthropic.MessageParam[] }).messages?.at(-1);
    const blocks = last && typeof last.content !== "string" ? last.content : [];
    const tail = show(blocks.slice(blocks.length - e.response.content.length));
    rule(
      last?.role === "assistant" && tail === show(e.response.content),
      "pause-turn",
      `response ${n + 1} paused (pause_turn), and the next request ends with ${last ? `a ${last.role} message` : "nothing"} ${show(last?.content)}: send the paused turn back as the last message, unchanged, with no user message after it ${LOOP}.`,
    );
  });
}

/** The outcome says how the model's last answer ended: done only after end_turn. */
function expectOutcomeOfLast(llm: ReturnType<typeof scripted>, outcome: Outcome): void {
  const last = llm.scripted.responses.at(-1);
  if (!last || !outcome || (outcome.status !== "done" && outcome.status !== "stopped")) return;
  rule(
    last.stop_reason !== "pause_turn",
    "pause-turn",
    `the model's last answer had stop_reason "pause_turn" and the run ended ${outcome.status}: a paused turn is not over. Store it, and call again with the history as it is (no user message), so the model continues ${LOOP}.`,
  );
  rule(
    (outcome.status === "done") === (last.stop_reason === "end_turn"),
    "typed-outcome",
    `the model's last answer had stop_reason ${show(last.stop_reason)} and the run ended ${outcome.status}${outcome.status === "stopped" ? ` (${outcome.reason})` : ""}: only end_turn is done; every other stop is { status: "stopped", reason } (stoppedBy) ${LOOP}.`,
  );
}

async function run(scenario: Scenario | undefined, task: string, opts: { maxTokens?: number; stopSequences?: string[] } = {}) {
  const llm = scripted(scenario ? { scenario } : {});
  const registry = new Recording();
  const history: Anthropic.MessageParam[] = [{ role: "user", content: task }];
  let outcome: Outcome;
  try {
    outcome = await lesson.runAgent(llm, history, { registry, ...opts });
  } catch (e) {
    // The cause first: a cut-off call that ran, a retry or a pause gone wrong, then what the API
    // refused, then the throw itself.
    expectOnlyCompleteCallsRun(llm, registry);
    expectOneRetry(llm);
    expectPauseContinued(llm);
    if (e instanceof Anthropic.APIError) {
      expectTranscriptRules(history, { responses: llm.scripted.responses });
      // The request the API refused, read by the checker (a field it does not take, say).
      const refused = refusedRequest(llm, e);
      if (refused && refused.rule !== "api-rejected") throw refused;
      if (refused) throw new RuleError("api-rejected", `${refused.message.replace(/^\[[a-z0-9-]+\] /, "")} ${LOOP}.`);
      const id = ruleOfApiMessage(errorText(e));
      throw new RuleError(id === "api-rejected" ? "loop-threw" : id, `the API refused request ${llm.scripted.exchanges.length} of the loop: ${errorText(e)}`);
    }
    throw new RuleError("typed-outcome", `runAgent threw instead of returning an Outcome: ${errorText(e)}. Every stop_reason ends the run with an Outcome (done, or stopped and why), none with an exception ${LOOP}.`);
  }
  expectOnlyCompleteCallsRun(llm, registry);
  expectOneRetry(llm);
  expectPauseContinued(llm);
  expectOutcomeOfLast(llm, outcome);
  const received = llm.scripted.exchanges.filter((e) => e.response).length;
  rule(
    !outcome || typeof outcome !== "object" || outcome.turns === received,
    "typed-outcome",
    `the run received ${received} response(s) and its outcome says turns: ${show(outcome?.turns)}: count every response the model sent, a cut-off one that was asked again and a paused one included ${LOOP}.`,
  );
  const requests = llm.scripted.exchanges.map((e) => e.request as Anthropic.MessageCreateParams);
  // (After a pause_turn the continued message is two responses end to end: the checker knows.)
  await expectSendable(llm, history);
  rule(outcome && (outcome.status === "done" || outcome.status === "stopped"), "typed-outcome", `runAgent returned ${show(outcome)}: return an Outcome, { status: "done", … } or { status: "stopped", reason, … } ${LOOP}.`);
  return { llm, history, outcome, registry, requests };
}

/** The outcome must be `want`: "done", or a stop with that reason. */
function expectOutcome(outcome: Outcome, want: string, why: string): void {
  const got = outcome.status === "stopped" ? `stopped (${outcome.reason})` : outcome.status;
  rule(got === want, "typed-outcome", `${why}: the run must end ${want}, and it ended ${got} ${LOOP}.`);
}

const oneTurn = (id: string, reply: Reply): Scenario => ({ id, title: id, reply: () => reply });
const BIG = "x".repeat(8_000);

describe("s05 max_tokens: a cut-off answer is never run", () => {
  it("asks again with a larger limit, and runs only the complete call", async () => {
    const { outcome, registry, requests } = await run(undefined, S05_TASK, { maxTokens: S05_SMALL_MAX_TOKENS });
    rule(requests[0]?.max_tokens === S05_SMALL_MAX_TOKENS, "max-tokens-retry", `the first request asked for max_tokens ${show(requests[0]?.max_tokens)}; the run was given maxTokens ${S05_SMALL_MAX_TOKENS}: send that.`);
    rule((requests[1]?.max_tokens ?? 0) > S05_SMALL_MAX_TOKENS, "max-tokens-retry", `after a max_tokens answer the next request asked for max_tokens ${show(requests[1]?.max_tokens)}: ask again with a larger limit (4 times as many) ${LOOP}.`);
    rule(registry.dispatched.length === 1 && registry.files.get("NOTES.md") === S05_NOTES, "max-tokens-retry", `the run wrote [${registry.dispatched.map((d) => show(d.input)).join(", ")}]: after the retry, the complete write_file of NOTES.md runs once.`);
    expectOutcome(outcome, "done", "the retry's answer was complete and the model finished");
  });

  it("does not store the cut-off answer it asks again for", async () => {
    const { requests } = await run(undefined, S05_TASK, { maxTokens: S05_SMALL_MAX_TOKENS });
    rule(
      show(requests[1]?.messages) === show(requests[0]?.messages),
      "max-tokens-retry",
      `the retry sent ${requests[1]?.messages.length ?? 0} message(s), the cut-off request ${requests[0]?.messages.length ?? 0}: a cut-off answer is not stored, so the retry sends the same history ${LOOP}.`,
    );
  });

  it("reports max_tokens when the retry is cut off too, with the cut call answered, not run", async () => {
    const scenario = oneTurn("test-too-big", { content: [text("Writing."), call("write_file", { path: "big.txt", content: BIG })] });
    const { outcome, history, requests } = await run(scenario, "write a big file", { maxTokens: 50 });
    rule(requests.length === 2, "max-tokens-retry", `two answers in a row were cut off by max_tokens and the loop made ${requests.length} request(s): ask again once, then stop ${LOOP}.`);
    expectOutcome(outcome, "stopped (max_tokens)", "the retry was cut off too");
    // Stored (and its call answered, not run) as the lesson does it, or left out: both can be sent again.
    const roles = history.map((m) => m.role).join(", ");
    const answered = resultsIn(history[2])[0];
    rule(
      roles === "user" || (roles === "user, assistant, user" && answered?.is_error === true),
      "unanswered-tool-use",
      `the history is [${roles}]${answered ? `, its last result ${show(answered)}` : ""}: store the cut answer and answer its call with is_error: true, not run (answerNotRun).`,
    );
  });
});

describe("s05 pause_turn: the turn goes back and continues", () => {
  it("sends the paused turn back unchanged and joins the continuation to it", async () => {
    const scenario: Scenario = {
      id: "test-pause",
      title: "pauses, then finishes",
      reply: steps(
        () => ({ content: [text("Searching the docs…")], stop_reason: "pause_turn" }),
        () => say("Found it: use the flag."),
      ),
    };
    const { outcome, history, requests, llm } = await run(scenario, "find the flag");
    const [paused, finished] = llm.scripted.responses;
    expectOutcome(outcome, "done", "the model paused, then finished");
    rule(requests.length === 2, "pause-turn", `after a pause_turn the loop made ${requests.length} request(s): send the history again once, and the model finishes.`);
    const last = requests[1]?.messages.at(-1);
    rule(
      show(last) === show({ role: "assistant", content: paused!.content }),
      "pause-turn",
      `the request after the pause ends with ${show(last)}: it must end with the paused assistant turn, unchanged (no user message after it) ${LOOP}.`,
    );
    rule(
      history.length === 2 && show(history[1]) === show({ role: "assistant", content: [...paused!.content, ...finished!.content] }),
      "pause-turn",
      `the history is ${history.length} message(s) [${history.map((m) => m.role).join(", ")}]: the continuation joins the paused turn, one assistant message with both parts' blocks (appendResponse in lessons/s05_stop_reasons/outcome.ts).`,
    );
  });
});

describe("s05 every other stop_reason is an Outcome, not a success", () => {
  it("end_turn is done, and an empty end_turn is not stored as an empty message", async () => {
    const empty = await run(oneTurn("test-empty", { content: [], stop_reason: "end_turn" }), "say nothing");
    expectOutcome(empty.outcome, "done", "an empty end_turn is the end of the run");
    rule(empty.history.length === 1, "empty-message", `an empty answer was stored: the history has ${empty.history.length} messages. Store nothing for content [] (appendResponse).`);

    const after: Scenario = {
      id: "test-empty-after-tools",
      title: "a call, then an empty end_turn",
      reply: steps(() => ({ content: [call("write_file", { path: "a.txt", content: "a" })] }), () => ({ content: [], stop_reason: "end_turn" })),
    };
    const r = await run(after, "write then stop");
    expectOutcome(r.outcome, "done", "a call, then an empty end_turn");
    const roles = r.history.map((m) => m.role).join(", ");
    rule(roles === "user, assistant, user", "empty-message", `the history is [${roles}]: the empty end_turn after the results is not stored.`);
  });

  it("stop_sequence stops and names the sequence", async () => {
    const scenario = oneTurn("test-stop-seq", { content: [text("<answer>42</answer> and more")] });
    const { outcome, requests } = await run(scenario, "answer in tags", { stopSequences: ["</answer>"] });
    rule(show(requests[0]?.stop_sequences) === '["</answer>"]', "typed-outcome", `the request sent stop_sequences ${show(requests[0]?.stop_sequences)}: pass the run's stopSequences.`);
    expectOutcome(outcome, "stopped (stop_sequence)", "the model wrote a stop sequence");
    rule(outcome.status === "stopped" && outcome.detail.includes("</answer>"), "typed-outcome", `the outcome's detail is ${show(outcome.status === "stopped" ? outcome.detail : "")}: name the sequence (stoppedBy).`);
  });

  it("refusal stops and says why (stop_details)", async () => {
    const scenario = oneTurn("test-refusal", {
      content: [text("I can't help with that.")],
      stop_reason: "refusal",
      stop_details: { type: "refusal", category: "cyber", explanation: "Breaking into a system." },
    });
    const { outcome } = await run(scenario, "break in");
    expectOutcome(outcome, "stopped (refusal)", "the model refused");
    rule(outcome.status === "stopped" && outcome.detail.includes("Breaking into a system."), "typed-outcome", "the refusal's outcome must say why: the explanation of stop_details (stoppedBy).");
  });

  it("model_context_window_exceeded stops", async () => {
    const { outcome } = await run(oneTurn("test-window", { content: [text("The first")], stop_reason: "model_context_window_exceeded" }), "read all");
    expectOutcome(outcome, "stopped (model_context_window_exceeded)", "the context window was full");
  });

  it("an unknown stop_reason is reported, not taken for success", async () => {
    const { outcome } = await run(oneTurn("test-unknown", { content: [text("Hm.")], stop_reason: "thought_complete" }), "hi");
    expectOutcome(outcome, "stopped (unknown_stop_reason)", 'the stop_reason was "thought_complete", one the loop does not know');
    rule(outcome.status === "stopped" && outcome.detail.includes("thought_complete"), "typed-outcome", "the outcome of an unknown stop_reason must name it (stoppedBy).");
  });

  it("a call in a response that stops the run is answered, never run", async () => {
    const scenario = oneTurn("test-stop-with-call", {
      content: [text("Writing."), call("write_file", { path: "x.txt", content: "x" })],
      stop_reason: "thought_complete",
    });
    const { outcome, registry, history } = await run(scenario, "write x");
    rule(registry.dispatched.length === 0, "tools-only-on-tool-use", `a call of a "thought_complete" response was run: only tool_use responses run their calls.`);
    expectOutcome(outcome, "stopped (unknown_stop_reason)", 'the stop_reason was "thought_complete"');
    rule(
      history.length === 1 || (history.at(-1)?.role === "user" && resultsIn(history.at(-1)).length === 1),
      "unanswered-tool-use",
      `the history ends with [${history.map((m) => m.role).join(", ")}]: the stopped turn's call is answered, is_error and not run (answerNotRun).`,
    );
    // Kept, the answer says why the call was not run: a person or a model reading the transcript later sees the stop.
    const said = history.length > 1 ? resultsIn(history.at(-1)).map((r) => textIn(r.content)).join(" ") : "";
    if (history.length > 1)
      rule(/thought_complete|stop_reason|stopped/i.test(said), "unanswered-tool-use", `the stopped turn's call was answered ${show(said)}: say why it was not run (the stop_reason, "thought_complete").`);
  });
});

describe("s05 property: whatever the model answers, the run ends in an Outcome and a sendable transcript", () => {
  const kinds = ["end_turn", "tool_use", "pause_turn", "max_tokens_twice", "stop_sequence", "refusal", "model_context_window_exceeded", "mystery", "empty"] as const;
  type Kind = (typeof kinds)[number];
  const reply = (kind: Kind, n: number): Reply => {
    switch (kind) {
      case "tool_use":
        return { content: [text(`step ${n}`), call("write_file", { path: `f${n}.txt`, content: "ok" })] };
      case "max_tokens_twice":
        return { content: [text("big"), call("write_file", { path: "big.txt", content: BIG })] };
      case "empty":
        return { content: [], stop_reason: "end_turn" };
      case "mystery":
        return { content: [text("?")], stop_reason: "mystery" };
      case "stop_sequence":
        return { content: [text("done STOP and more")] };
      default:
        return { content: [text(`${kind} ${n}`)], stop_reason: kind };
    }
  };

  it("holds for random sequences of stop reasons", async () => {
    await assertProperty(
      fc.asyncProperty(fc.array(fc.constantFrom(...kinds), { minLength: 1, maxLength: 6 }), async (script) => {
        const scenario: Scenario = { id: "test-random", title: "random", reply: (ctx) => (ctx.requestIndex < script.length ? reply(script[ctx.requestIndex]!, ctx.requestIndex) : say("final")) };
        const llm = scripted({ scenario, maxRequests: 40 });
        const history: Anthropic.MessageParam[] = [{ role: "user", content: "go" }];
        const registry = new Recording();
        await withTranscript(history, async () => {
          const outcome = await lesson.runAgent(llm, history, { registry, maxTokens: 200, stopSequences: ["STOP"] });
          expectOnlyCompleteCallsRun(llm, registry);
          expectOneRetry(llm);
          expectPauseContinued(llm);
          expectOutcomeOfLast(llm, outcome);
          await expectSendable(llm, history);
        });
      }),
      { numRuns: 40 },
      "typed-outcome",
    );
  });
});

// The net under the rules: this lesson beside the reference, on its own task and on generated
// model answers (tests/differential/net.ts).
import { differentialNet } from "./differential/net.ts";
differentialNet("s05");
