/**
 * s27_goal: a goal loop. Grades lessons/ or solutions/ (COURSE_TREE). When the worker (s22's loop)
 * says it is done, a separate evaluator request judges it: its own system prompt, no tool but the
 * forced verdict, shown the goal, the answer and the check's output the runtime gathered (in the
 * sandbox), never the worker's tool calls. Not done sends the worker back, marked as the
 * evaluator's words; the rounds are capped; an unreadable verdict stops the run, named, never
 * done. The scripted model answers both the worker and the evaluator.
 */
import type Anthropic from "@anthropic-ai/sdk";
import fc from "fast-check";
import { describe, it } from "vitest";
import { call, say, text } from "../runtime/scripted/scenarios/script.ts";
import type { Reply, Scenario, TurnContext } from "../runtime/scripted/types.ts";
import { SAMPLE_REPOSITORY, lessonTask } from "../runtime/tasks.ts";
import { assertProperty, blocksIn, driveLoop, loadLesson, rule, scripted, textIn, transcriptProblems, userTexts } from "../runtime/testing.ts";
import { checkTranscript } from "../runtime/transcript.ts";
import { scratchCopy, scratchWorkspace } from "../runtime/tools/files.ts";
import { refuseAll } from "../solutions/s07_safe_tools/approval.ts";
import { differentialNet } from "./differential/net.ts";
import { quietLessonFile } from "./support.ts";

type Agent = typeof import("../solutions/s27_goal/agent.ts");
type VerdictModule = typeof import("../solutions/s27_goal/verdict.ts");
type Options = NonNullable<Parameters<Agent["runAgent"]>[2]>;
const lesson = await loadLesson<Agent>("s27_goal");
const verdicts = await loadLesson<VerdictModule>("s27_goal", "verdict.ts");
const keep = quietLessonFile();
const TASK = lessonTask("s27_goal");
const LOOP = "(runAgent in lessons/s27_goal/agent.ts)";
const READ = "(readVerdict in lessons/s27_goal/verdict.ts)";

type Request = Anthropic.MessageCreateParams;
const isEvaluator = (r: Request) => (r.tools ?? []).some((t) => "name" in t && t.name === "verdict");
const requestsOf = (llm: ReturnType<typeof scripted>) => llm.scripted.exchanges.map((e) => e.request as Request);

/** What the scripted evaluator answers in one round. */
type Judged = { done: boolean; missing?: string } | "refusal" | "wrong-shape" | "nothing-missing";
/** What the worker does in one round before it says done. */
type Work = "answer" | "tool" | "empty";

/** One model for both sides: the evaluator answers `judged` in order (the last repeated), the worker does `work` each round. */
function goalModel(judged: Judged[], work: Work[] = ["answer"]) {
  let asked = 0;
  let rounds = 0;
  const reply = (ctx: TurnContext): Reply => {
    if (ctx.tools.includes("verdict")) {
      const j = judged[Math.min(asked++, judged.length - 1)]!;
      if (j === "refusal") return { content: [text("I will not judge this.")], stop_reason: "refusal" };
      if (j === "wrong-shape") return { content: [call("verdict", { done: "yes", missing: 3 })] };
      if (j === "nothing-missing") return { content: [call("verdict", { done: false, missing: "  " })] };
      return { content: [call("verdict", { done: j.done, missing: j.missing ?? "" })] };
    }
    const w = work[Math.min(rounds, work.length - 1)]!;
    const last = ctx.messages.at(-1);
    if (w === "tool" && !blocksIn(last?.content).some((b) => b.type === "tool_result")) return { content: [text("Reading first."), call("read_file", { path: "notes.txt" })] };
    rounds++;
    return w === "empty" ? { content: [], stop_reason: "end_turn" } : say(`Done (round ${rounds}).`);
  };
  return { scenario: { id: "s27_test", title: "worker and evaluator", reply } satisfies Scenario, asked: () => asked };
}

async function runGoal(judged: Judged[], opts: Partial<Options> = {}, work?: Work[]) {
  const root = keep(await scratchWorkspace({ "notes.txt": "secret-tool-output-7f3a\n" }));
  const model = goalModel(judged, work);
  const llm = scripted({ scenario: model.scenario, maxRequests: 60 });
  const history: Anthropic.MessageParam[] = [{ role: "user", content: "Reach the goal." }];
  const outcome = await driveLoop(llm, history, () => lesson.runAgent(llm, history, { root, userConfigDir: root, approve: refuseAll, hooks: [], ...opts }), { timeoutMs: 60_000 });
  return { outcome, history, llm, asked: model.asked() };
}

describe("s27 Goal loop", () => {
  it("the default task: a \"done\" with failing tests is sent back; after the fix the evaluator finds the goal met (offline)", async () => {
    const root = keep(await scratchCopy(SAMPLE_REPOSITORY));
    const llm = scripted({ maxRequests: 60 });
    const history: Anthropic.MessageParam[] = [{ role: "user", content: TASK }];
    const outcome = await driveLoop(llm, history, () => lesson.runAgent(llm, history, { root, check: lesson.CHECK, approve: refuseAll, userConfigDir: root, permissionMode: "acceptEdits", hooks: [] }), { timeoutMs: 90_000 });
    const judged = requestsOf(llm).filter(isEvaluator);
    rule(judged.length > 0, "goal-evaluator", `the worker said it was done, and no evaluator request was sent: after a done outcome, call evaluate(…) ${LOOP}.`);
    const first = textIn(judged[0]!.messages.flatMap((m) => blocksIn(m.content).map((b) => (b.type === "document" ? { type: "text", text: `${String(b.title)}\n${JSON.stringify(b.source)}` } : b))));
    rule(/not ok \d+/.test(first), "goal-evaluator", `the first evaluator request does not hold the failing output of \`${lesson.CHECK}\`: gather the evidence with gatherEvidence(opts.check, root, …) and pass it to evaluate ${LOOP}.`);
    const notes = userTexts(history.slice(1)).filter((t) => t.includes("the tests still fail"));
    const unmarked = notes.filter((t) => !t.startsWith("[evaluator]"));
    const told = unmarked.length > 0 ? "it reached the worker unmarked, as if the user had said it" : notes.length === 0 ? "the worker was never told" : `the worker was told ${notes.length} times`;
    rule(notes.length === 1 && unmarked.length === 0, "goal-send-back", `the evaluator said "not done: the tests still fail", and ${told}: sendBack(history, evaluatorNote(verdict.missing)) once, then run the worker again ${LOOP}.`);
    rule(outcome.status === "done" && outcome.rounds === 2 && judged.length === 2, "goal-send-back", `after the fix the evaluator said done; the run should end done after 2 rounds and 2 evaluator requests, it ended ${outcome.status} after ${outcome.rounds} round(s) and ${judged.length} request(s) ${LOOP}.`);
    rule(outcome.evaluator.requests === 2 && outcome.evaluator.outputTokens > 0, "goal-evaluator", `the outcome reports the evaluator's cost as ${JSON.stringify(outcome.evaluator)}: count(cost, usage) after each evaluate ${LOOP}.`);
    const problems = await transcriptProblems(llm, history);
    rule(problems === null, "goal-send-back", () => `the transcript cannot be sent again: ${problems}`);
  });

  it("the evaluator's request: its own system prompt, only the forced verdict tool, one user message with no tool_use or tool_result and none of the worker's tool output", async () => {
    const { llm } = await runGoal([{ done: true }], { check: "cat notes.txt; echo checked-by-runtime" }, ["tool"]);
    const all = requestsOf(llm);
    const judged = all.filter(isEvaluator);
    rule(judged.length === 1, "goal-evaluator", `the worker said done once; ${judged.length} evaluator requests were sent: ask the evaluator once per "done" ${LOOP}.`);
    const r = judged[0]!;
    const worker = all.find((q) => !isEvaluator(q))!;
    const names = (r.tools ?? []).map((t) => ("name" in t ? t.name : t.type));
    const choice = r.tool_choice as { type?: string; name?: string } | undefined;
    rule(names.length === 1 && choice?.type === "tool" && choice.name === "verdict", "goal-evaluator", `the evaluator's request offers [${names.join(", ")}] with tool_choice ${JSON.stringify(r.tool_choice)}: it gets the verdict tool only, forced; build it with evaluatorRequest (verdict.ts).`);
    rule(textIn(r.system) !== textIn(worker.system) && textIn(r.system).length > 0, "goal-evaluator", "the evaluator's request carries the worker's system prompt: it has its own (EVALUATOR_SYSTEM).");
    const blocks = r.messages.flatMap((m) => blocksIn(m.content));
    const leaked = blocks.some((b) => b.type === "tool_use" || b.type === "tool_result") || JSON.stringify(r.messages).includes("Reading first.");
    rule(r.messages.length === 1 && !leaked, "goal-evaluator", `the evaluator's request holds ${r.messages.length} message(s)${leaked ? " with the worker's calls or results" : ""}: pass it the goal, the answer's text and the evidence, never the history ${LOOP}.`);
    const shown = JSON.stringify(r.messages);
    rule(shown.includes("checked-by-runtime"), "goal-evaluator", `the evaluator was not shown the check's output: the evidence is gatherEvidence(opts.check, root, …), passed to evaluate ${LOOP}.`);
  });

  it("the cap: a worker the evaluator never finds done answers at most maxRounds times; the run ends stopped (goal_not_met) with the last verdict", async () => {
    for (const maxRounds of [1, 3]) {
      const { outcome, history, asked } = await runGoal([{ done: false, missing: "step one" }, { done: false, missing: "the last thing" }], { maxRounds });
      const notes = userTexts(history).filter((t) => t.startsWith("[evaluator]"));
      rule(asked === maxRounds && notes.length === maxRounds - 1, "goal-cap", `with maxRounds ${maxRounds} the evaluator was asked ${asked} time(s) and the worker sent back ${notes.length} time(s): stop when round >= maxRounds ${LOOP}.`);
      const last = maxRounds === 1 ? "step one" : "the last thing";
      rule(outcome.status === "stopped" && outcome.reason === "goal_not_met" && outcome.verdict?.missing === last && outcome.rounds === maxRounds, "goal-cap", `the cap ended the run as ${JSON.stringify({ status: outcome.status, reason: outcome.status === "stopped" ? outcome.reason : undefined, verdict: outcome.verdict, rounds: outcome.rounds })}: return stopped("goal_not_met", …, verdict) with the last verdict ${LOOP}.`);
      rule(outcome.status === "stopped" && outcome.detail.includes(last), "goal-cap", `the cap ended the run with the detail ${JSON.stringify(outcome.status === "stopped" ? outcome.detail : undefined)}: the person reads that sentence, so name what the last verdict says is still missing ("${last}") in stopped("goal_not_met", …) ${LOOP}.`);
    }
  });

  it("with no maxRounds given, the agent's own cap holds: MAX_ROUNDS rounds at most, never an endless loop", async () => {
    const { outcome, asked } = await runGoal([{ done: false, missing: "never enough" }]);
    rule(asked === lesson.MAX_ROUNDS && outcome.status === "stopped" && outcome.reason === "goal_not_met", "goal-cap", `the evaluator always says not done and no maxRounds was passed: it was asked ${asked} time(s) and the run ended ${outcome.status}${outcome.status === "stopped" ? `/${outcome.reason}` : ""}; the cap defaults to MAX_ROUNDS (${lesson.MAX_ROUNDS}): opts.maxRounds ?? MAX_ROUNDS ${LOOP}.`);
  });

  it("the person is told when the worker is sent back: what the evaluator says is missing, and the round the worker goes into", async () => {
    const { output } = await import("../runtime/print.ts");
    const printed: string[] = [];
    const original = output.write;
    output.write = (line: string) => void printed.push(line);
    try {
      await runGoal([{ done: false, missing: "a README line on locking" }, { done: true }], { maxRounds: 3 });
    } finally {
      output.write = original;
    }
    const told = printed.filter((l) => l.includes("a README line on locking"));
    rule(told.length === 1 && /\bround 2\b/.test(told[0]!), "goal-progress", `the evaluator sent the worker back after round 1 ("a README line on locking" missing); the terminal showed ${JSON.stringify(told.length > 0 ? told : printed.slice(0, 6))}: before sendBack, say one line with verdict.missing and the round the worker goes into (round + 1, here round 2) ${LOOP}.`);
  });

  it("an unreadable verdict (a refusal, the wrong shape, not done with nothing missing) stops the run, named, never done, never sent back", async () => {
    for (const bad of ["refusal", "wrong-shape", "nothing-missing"] as const) {
      const { outcome, history, asked } = await runGoal([bad, { done: true }], { maxRounds: 3 });
      const sentBack = userTexts(history).some((t) => t.startsWith("[evaluator]"));
      rule(outcome.status === "stopped" && outcome.reason === "verdict_unreadable" && outcome.detail.length > 0 && asked === 1 && !sentBack, "goal-unreadable", `the evaluator answered ${bad}, and the run ${outcome.status === "done" ? "counted it as met" : sentBack ? "sent the worker back" : `ended ${outcome.reason} (${asked} evaluator request(s))`}: readVerdict returns { unreadable } for it ${READ}, and the loop returns stopped("verdict_unreadable", …) ${LOOP}.`);
    }
    const message = (content: Anthropic.ContentBlock[]): Anthropic.Message => ({ id: "msg_x", type: "message", role: "assistant", model: "m", content, stop_reason: "tool_use", stop_sequence: null, usage: { input_tokens: 1, output_tokens: 1 } } as Anthropic.Message);
    const v = (id: string, input: unknown): Anthropic.ContentBlock => ({ type: "tool_use", id, name: "verdict", input } as Anthropic.ContentBlock);
    const two = verdicts.readVerdict(message([v("a", { done: true, missing: "" }), v("b", { done: false, missing: "x" })]));
    const one = verdicts.readVerdict(message([v("a", { done: false, missing: "the docs" })]));
    rule("unreadable" in two && "verdict" in one && one.verdict.missing === "the docs", "goal-unreadable", `readVerdict read two verdict calls as ${JSON.stringify(two)} and one as ${JSON.stringify(one)}: exactly one call is a verdict ${READ}.`);
    const cut = verdicts.readVerdict({ ...message([v("a", { done: true, missing: "" })]), stop_reason: "max_tokens" });
    rule("unreadable" in cut, "goal-unreadable", `readVerdict read an answer cut off by max_tokens as ${JSON.stringify(cut)}: only an answer that ended with stop_reason "tool_use" holds a whole verdict ${READ}.`);
    // What the person reads (the run's detail) is the reason: each names what was wrong with the answer.
    const why = (r: ReturnType<typeof verdicts.readVerdict>) => ("unreadable" in r ? r.unreadable : "");
    rule(why(cut).includes("max_tokens"), "goal-unreadable", `readVerdict gave an answer cut off by max_tokens the reason ${JSON.stringify(why(cut))}: name the stop_reason it ended with ${READ}.`);
    rule(why(two).includes("2"), "goal-unreadable", `readVerdict gave an answer with two verdict calls the reason ${JSON.stringify(why(two))}: name how many verdict calls it holds ${READ}.`);
    const shape = verdicts.readVerdict(message([v("a", { done: "yes", missing: "x" })]));
    rule(why(shape).includes("done"), "goal-unreadable", `readVerdict gave a verdict with done: "yes" the reason ${JSON.stringify(why(shape))}: name what does not fit the schema (z.prettifyError names the field, done) ${READ}.`);
    const empty = verdicts.readVerdict(message([v("a", { done: false, missing: " " })]));
    rule(/missing/i.test(why(empty)), "goal-unreadable", `readVerdict gave a not-done verdict that names nothing missing the reason ${JSON.stringify(why(empty))}: say that nothing is named as missing ${READ}.`);
    // Only calls of the verdict tool are verdicts: a call of another tool beside it is not counted as one.
    const stray = verdicts.readVerdict(message([{ type: "tool_use", id: "n", name: "read_file", input: { path: "x" } } as Anthropic.ContentBlock, v("a", { done: false, missing: "the docs" })]));
    rule("verdict" in stray && stray.verdict.missing === "the docs", "goal-unreadable", `readVerdict read one verdict call beside a call of read_file as ${JSON.stringify(stray)}: count only the tool_use blocks named VERDICT_TOOL.name ${READ}.`);
  });

  it("property: over any sequence of verdicts and worker turns, the run ends as the verdicts say, within the cap, every pair whole and roles alternating", async () => {
    const judgedArb = fc.oneof(fc.constant<Judged>("refusal"), fc.constant<Judged>("wrong-shape"), fc.record({ done: fc.boolean(), missing: fc.constantFrom("the tests", "a README line") }));
    await assertProperty(
      fc.asyncProperty(fc.array(judgedArb, { minLength: 1, maxLength: 5 }), fc.tuple(fc.constantFrom<Work>("answer", "tool"), fc.array(fc.constantFrom<Work>("answer", "tool", "empty"), { maxLength: 3 })).map(([first, rest]) => [first, ...rest]), fc.integer({ min: 1, max: 4 }), async (judged, work, maxRounds) => {
        const { outcome, history, asked } = await runGoal(judged, { maxRounds }, work);
        // (An empty answer is not stored, so the note after it joins the last user message; the first round's is never empty: the history must grow.)
        // The expected end: the first verdict that is done or unreadable, else the cap.
        const at = (i: number) => judged[Math.min(i, judged.length - 1)]!;
        let rounds = 1;
        while (rounds < maxRounds && typeof at(rounds - 1) === "object" && !(at(rounds - 1) as { done: boolean }).done) rounds++;
        const j = at(rounds - 1);
        const want = typeof j !== "object" ? "verdict_unreadable" : j.done ? "done" : "goal_not_met";
        const got = outcome.status === "done" ? "done" : outcome.reason;
        rule(got === want && outcome.rounds === rounds && asked === rounds, want === "verdict_unreadable" ? "goal-unreadable" : want === "done" ? "goal-send-back" : "goal-cap", `verdicts ${JSON.stringify(judged.slice(0, rounds))} with maxRounds ${maxRounds} should end ${want} after ${rounds} round(s); the run ended ${got} after ${outcome.rounds} round(s) and ${asked} evaluator request(s) ${LOOP}.`);
        const problems = checkTranscript(history);
        const alternating = history.every((m, i) => i === 0 || m.role !== history[i - 1]!.role);
        rule(problems.length === 0 && alternating, "goal-send-back", `after ${rounds} round(s) the transcript breaks the pairing rules${alternating ? "" : " (two messages of the same role in a row)"}: ${problems.map((p) => p.message).join("; ")}; send the worker back with sendBack(history, …), which joins the note to a last user message ${LOOP}.`);
      }),
      // The case that needs sendBack's join: an empty answer after a note, then another note.
      { numRuns: 25, seed: 27, examples: [[[{ done: false, missing: "the tests" }], ["answer", "empty"], 3]] },
      "goal-send-back",
    );
  });
});

differentialNet("s27");
