/**
 * s14_planning: a plan the loop owns. Grades lessons/ or solutions/ (COURSE_TREE). The model
 * rewrites the whole list with the `todo` tool; the loop keeps at most one item in progress and
 * refuses a bad list with an is_error result (the old plan stays). When the plan has not been
 * touched for N turns, the loop adds a reminder as a text block AFTER that turn's tool results,
 * never before them, never as a message of its own, and not again every turn. Every transcript
 * must be one the API takes again.
 */
import type Anthropic from "@anthropic-ai/sdk";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { call, say, text } from "../runtime/scripted/scenarios/script.ts";
import { S14_STEPS } from "../runtime/scripted/scenarios/s14_planning.ts";
import type { Scenario } from "../runtime/scripted/types.ts";
import { S14_TASK } from "../runtime/tasks.ts";
import { ROOT, assertProperty, driveLoop, loadLesson, resultsIn, rule, scripted, textIn } from "../runtime/testing.ts";
import { scratchCopy } from "../runtime/tools/files.ts";
import { SafeToolRegistry, defineTool } from "../solutions/s04_tool_errors/define-tool.ts";
import { refuseAll } from "../solutions/s07_safe_tools/approval.ts";
import { quietLessonFile, show } from "./support.ts";

type Agent = typeof import("../solutions/s14_planning/agent.ts");
type PlanModule = typeof import("../solutions/s14_planning/plan.ts");
const lesson = await loadLesson<Agent>("s14_planning");
const { Plan, MAX_ITEMS, staleReminder } = await loadLesson<PlanModule>("s14_planning", "plan.ts");

const keep = quietLessonFile();
type Item = { content: string; status: "pending" | "in_progress" | "completed" };
type Options = NonNullable<Parameters<Agent["runAgent"]>[2]>;

/** The loop's reminder: a text that starts "<reminder>" (as the lesson asks), or one that says it reminds of the plan. */
const isReminder = (b: Anthropic.ContentBlockParam) => b.type === "text" && (/<reminder>/i.test(b.text) || (/remind/i.test(b.text) && /plan|to-?do/i.test(b.text)));
const blocksOf = (m: Anthropic.MessageParam): Anthropic.ContentBlockParam[] => (typeof m.content === "string" ? [{ type: "text", text: m.content }] : m.content);
/** Indexes of the user messages that carry a reminder. */
const reminders = (h: Anthropic.MessageParam[]) => h.flatMap((m, i) => (m.role === "user" && i > 0 && blocksOf(m).some(isReminder) ? [i] : []));

/** Where every reminder sits: in a user message that answers tool calls, after ALL its tool_result blocks. */
function expectRemindersAfterResults(history: Anthropic.MessageParam[]) {
  for (const i of reminders(history)) {
    const blocks = blocksOf(history[i]!);
    const firstText = blocks.findIndex((b) => b.type === "text");
    const lastResult = blocks.map((b) => b.type).lastIndexOf("tool_result");
    expect(lastResult, `[plan-reminder] messages[${i}]: the reminder must ride in the user message of the turn's tool results, not in a message of its own`).toBeGreaterThanOrEqual(0);
    expect(firstText, `[results-first] messages[${i}]: the reminder text comes AFTER every tool_result block (the API refuses text before them)`).toBeGreaterThan(lastResult);
  }
}

/** Every todo call whose list keeps the rules (at most one item in progress, no duplicates) was taken: no is_error. */
function expectGoodListsTaken(history: Anthropic.MessageParam[]) {
  history.forEach((m, i) => {
    if (m.role !== "assistant" || typeof m.content === "string") return;
    for (const c of m.content) {
      if (c.type !== "tool_use" || c.name !== "todo") continue;
      const items = ((c.input as { items?: Item[] }).items ?? []) as Item[];
      const good = items.filter((x) => x.status === "in_progress").length <= 1 && new Set(items.map((x) => x.content)).size === items.length;
      const result = resultsIn(history[i + 1]).find((r) => r.tool_use_id === c.id);
      rule(
        !good || !result?.is_error,
        "plan-one-in-progress",
        () => `messages[${i}] writes a good plan (${items.length} items, ${items.filter((x) => x.status === "in_progress").length} in progress), and the loop answered it with is_error: ${JSON.stringify(textIn(result?.content)).slice(0, 160)}. Refuse a list only when MORE than one item is in progress.`,
      );
      const shown = textIn(result?.content);
      const missing = items.map((x) => x.content.trim()).filter((x) => !shown.includes(x));
      rule(
        !good || missing.length === 0,
        "plan-owned",
        () => `the todo call of messages[${i}] was answered with ${JSON.stringify(shown.slice(0, 120))}, which does not show ${missing.map((x) => JSON.stringify(x)).join(", ")}: answer with the plan as the loop now holds it (plan.render()).`,
      );
    }
  });
}

/** Runs the loop (transcript checked by driveLoop); the plan is passed in so the test can read it. */
async function run(scenario: Scenario | string, opts: Options = {}, task = "Do the task.") {
  const llm = scripted({ scenario });
  const plan = new Plan();
  const history: Anthropic.MessageParam[] = [{ role: "user", content: task }];
  const outcome = await driveLoop(llm, history, () => lesson.runAgent(llm, history, { plan, approve: refuseAll, ...opts }));
  return { outcome, history, plan };
}

/** A model that writes a plan once, then reads a different chunk every turn for `turns` turns. */
function busyModel(turns: number, first: Item[] = [{ content: "Read the chunks", status: "in_progress" }, { content: "Sum up", status: "pending" }]): { scenario: Scenario; registry: SafeToolRegistry } {
  const registry = new SafeToolRegistry([
    defineTool({ name: "read_chunk", description: "Reads chunk n.", input: z.object({ n: z.number() }), readOnly: true, run: ({ n }) => `chunk ${n}` }),
  ]);
  const scenario: Scenario = {
    id: "test-busy",
    title: "plans once, then works without touching the plan",
    reply: (ctx) => {
      const step = ctx.messages.filter((m) => m.role === "assistant").length;
      if (step === 0) return { content: [text("Plan."), call("todo", { items: first })] };
      if (step <= turns) return { content: [call("read_chunk", { n: step })] };
      return say("Done.");
    },
  };
  return { scenario, registry };
}

describe("s14 each run its own plan", () => {
  it("a run given no plan starts with an empty one: nothing of an earlier run's plan is recalled", async () => {
    const { scenario, registry } = busyModel(1);
    const first = scripted({ scenario });
    const before: Anthropic.MessageParam[] = [{ role: "user", content: "Do the task." }];
    await driveLoop(first, before, () => lesson.runAgent(first, before, { registry, approve: refuseAll }));
    // A second run, given no plan either, by a model that never writes one: there is nothing to remind it of.
    const noPlan: Scenario = { id: "test-no-plan", title: "never plans", reply: (ctx) => (ctx.step < 5 ? { content: [call("read_chunk", { n: ctx.step })] } : say("Done.")) };
    const second = scripted({ scenario: noPlan });
    const history: Anthropic.MessageParam[] = [{ role: "user", content: "Do another task." }];
    await driveLoop(second, history, () => lesson.runAgent(second, history, { registry, approve: refuseAll, remindAfter: 2 }));
    const at = reminders(history);
    rule(
      at.length === 0,
      "plan-owned",
      () => `a second run, given no plan, reminded its model of a plan it never wrote (in ${at.map((i) => `messages[${i}]`).join(", ")}): that is the first run's plan. Make a new Plan in runAgent when opts.plan is not given (opts.plan ?? new Plan()), never one shared by every run.`,
    );
  });
});

describe("s14 the default task: a plan, kept up to date, on the sample repository", () => {
  it("plans, is reminded once after three untouched turns (after the results), updates the plan, and finishes it", async () => {
    const llm = scripted({ scenario: "s14_planning" });
    const plan = new Plan();
    const root = keep(await scratchCopy(`${ROOT}/examples/login-service`));
    const history: Anthropic.MessageParam[] = [{ role: "user", content: S14_TASK }];
    const outcome = await driveLoop(llm, history, () => lesson.runAgent(llm, history, { root, plan, approve: refuseAll }));
    rule(outcome.status === "done", "typed-outcome", () => `the default task ended "${outcome.status}"${typeof (outcome as { reason?: unknown }).reason === "string" ? ` (${(outcome as { reason: string }).reason})` : ""}, not "done": when the model answers with end_turn, return { status: "done", … }; a stop means a guard or an error ended the run early, and its reason says which.`);
    expectGoodListsTaken(history);
    expect(plan.items.map((i) => i.content), "[plan-owned] the loop's plan (opts.plan) does not hold the steps of the model's last list: Plan.update stores each good list").toEqual(S14_STEPS);
    rule(plan.items.every((i) => i.status === "completed"), "plan-owned", () => `the model's last list has every item completed, and the loop's plan holds the statuses ${show(plan.items.map((i) => i.status))}: Plan.update stores each good list, statuses included.`);
    const at = reminders(history);
    // A note after the results that is not recognised as the reminder: say what it lacks.
    const untagged = history.flatMap((m, i) => (m.role === "user" && i > 0 && at.length === 0 && blocksOf(m).some((b) => b.type === "text" && !isReminder(b)) && resultsIn(m).length > 0 ? [i] : []));
    rule(
      untagged.length === 0,
      "plan-reminder",
      () => `messages[${untagged.join(", ")}] carry a text after the results, but none starts with "<reminder>": the model knows the loop's reminder by that tag. Start the reminder's text with "<reminder>" (and end it with "</reminder>").`,
    );
    rule(
      at.length === 1 && at[0] === 8,
      "plan-reminder",
      () => `the plan is written in turn 1 and left alone after it: with remindAfter 3, one reminder belongs in the results of turn 4 (messages[8]), and none before or after it; the reminders are in ${at.length > 0 ? at.map((i) => `messages[${i}]`).join(", ") : "no message"}.`,
    );
    expectRemindersAfterResults(history);
  });
});

describe("s14 the reminder: after N untouched turns, after the results, not every turn", () => {
  it.each([2, 3, 5])("remindAfter %i: the first reminder comes exactly N turns after the plan was written, then at most every N turns", async (n) => {
    const { scenario, registry } = busyModel(12);
    const { history } = await run(scenario, { registry, remindAfter: n, guards: { maxRepeats: 100 } });
    const at = reminders(history);
    expectRemindersAfterResults(history);
    // The plan is written in turn 1; the results of turn t are messages[2t].
    rule(at[0] === 2 * (1 + n), "plan-reminder", `with remindAfter ${n}, the first reminder belongs in the results of turn ${1 + n} (messages[${2 * (1 + n)}])`);
    for (let k = 1; k < at.length; k++) expect(at[k]! - at[k - 1]!, "[plan-reminder] a reminder is not repeated every turn: wait N turns again").toBeGreaterThanOrEqual(2 * n);
  });

  it("no reminder when there is no plan, or when every item is completed", async () => {
    const { registry } = busyModel(6);
    const noPlan: Scenario = { id: "test-no-plan", title: "never plans", reply: (ctx) => (ctx.step < 6 ? { content: [call("read_chunk", { n: ctx.step })] } : say("Done.")) };
    expect(reminders((await run(noPlan, { registry, remindAfter: 2 })).history), "[plan-reminder] no plan was written: there is nothing to remind of").toEqual([]);
    const finished = busyModel(6, [{ content: "Everything", status: "completed" }]);
    expect(reminders((await run(finished.scenario, { registry: finished.registry, remindAfter: 2 })).history), "[plan-reminder] every item is completed: no reminder").toEqual([]);
  });
});

describe("s14 the reminder and the plan's items, in the plan's own code", () => {
  it("the reminder says how many turns have passed since the plan was written", () => {
    const plan = new Plan();
    plan.update([{ content: "Read the code", status: "in_progress" }, { content: "Fix it", status: "pending" }], 2);
    const reminder = staleReminder(plan, 6, 3) ?? "";
    rule(/\b4 turns?\b/.test(reminder) && !/\b(?:8|6|2) turns?\b/.test(reminder), "plan-reminder", () => `the plan was written in turn 2 and the reminder of turn 6 says ${JSON.stringify(reminder.split("\n")[0])}: count the turns since the model last wrote it (6 − 2 = 4), so it knows how stale the plan is.`);
  });

  it("a list with two items in progress is refused with a message that names them, apart", () => {
    // The TODO: "throw a ToolError that names them and says the plan was not changed".
    const plan = new Plan();
    let said = "";
    try {
      plan.update([{ content: "Read the code", status: "in_progress" }, { content: "Write the fix", status: "in_progress" }, { content: "Run the tests", status: "pending" }], 1);
    } catch (e) {
      said = (e as Error).message;
    }
    rule(said !== "", "plan-one-in-progress", "Plan.update took a list with two items in progress: throw a ToolError instead, and keep the old plan.");
    const a = said.indexOf("Read the code");
    const b = said.indexOf("Write the fix");
    rule(a >= 0 && b >= 0, "plan-one-in-progress", () => `the refusal of two items in progress says ${JSON.stringify(said)}: name the items in progress ("Read the code", "Write the fix"), so the model knows which to set back.`);
    const between = said.slice(Math.min(a, b) + (a < b ? "Read the code" : "Write the fix").length, Math.max(a, b));
    rule(/[^"'\s]/.test(between), "plan-one-in-progress", () => `the refusal says ${JSON.stringify(said)}: the two items run together; set them apart (a comma, "and"…) so the model reads two items.`);
    rule(!said.includes("Run the tests"), "plan-one-in-progress", () => `the refusal says ${JSON.stringify(said)}: name only the items in progress, not the pending one.`);
  });

  it("property: a reminder carries the plan as it is at that turn: each open item, and a change of status shows", () => {
    // The class of bug: a reminder that says "the plan is stale" but not what the plan holds, or
    // holds an older copy, or the items without their statuses. Whatever lists the model wrote
    // before, the reminder names every open item of the last one, and two plans that differ only in
    // one item's status give two different reminders (its wording is the loop's own).
    const status = fc.constantFrom("pending" as const, "in_progress" as const, "completed" as const);
    const list = fc.uniqueArray(fc.record({ content: fc.stringMatching(/^[A-Z][a-z]{3,8} [a-z]{3,8}$/), status }), { minLength: 1, maxLength: 5, selector: (i) => i.content }).filter((l) => l.filter((i) => i.status === "in_progress").length <= 1);
    const remind = (lists: Item[][], after: number) => {
      const plan = new Plan();
      lists.forEach((l, i) => plan.update(l, i + 1));
      return staleReminder(plan, lists.length + after, after);
    };
    assertProperty(
      fc.property(fc.array(list, { minLength: 1, maxLength: 3 }), fc.integer({ min: 1, max: 4 }), fc.nat(), (lists, after, pick) => {
        const last = lists.at(-1)!;
        const reminder = remind(lists, after);
        const open = last.filter((i) => i.status !== "completed");
        if (open.length === 0) return rule(reminder === null, "plan-reminder", () => `every item is completed and staleReminder gave ${JSON.stringify(reminder)}: nothing is open, so no reminder (null).`);
        rule(reminder !== null, "plan-reminder", () => `the plan has open items and was written ${after} turns ago (remindAfter ${after}), and staleReminder gave null: remind now.`);
        const missing = open.filter((i) => !reminder.includes(i.content)).map((i) => i.content);
        rule(missing.length === 0, "plan-reminder-state", () => `the reminder says ${JSON.stringify(reminder)}, without the open item(s) ${JSON.stringify(missing)}: a reminder carries the plan as it is at that turn (plan.render() shows it), every open item, not only that it is stale nor an older copy.`);
        // The same plan with one item's status changed (still one open item at least, one in progress at most).
        const j = pick % last.length;
        const other = last.map((it, k) => (k !== j ? it : { ...it, status: it.status === "completed" ? ("pending" as const) : ("completed" as const) }));
        if (!other.some((i) => i.status !== "completed")) return;
        const changed = remind([...lists.slice(0, -1), other], after);
        rule(
          changed !== reminder,
          "plan-reminder-state",
          () => `the plan ${JSON.stringify(last.map((i) => `${i.content}: ${i.status}`))} and the same plan with ${JSON.stringify(last[j]!.content)} ${other[j]!.status} gave the same reminder ${JSON.stringify(reminder)}: a reminder carries each item's status (plan.render() shows it), so the model can tell what is done from what is left.`,
        );
      }),
      {},
      "plan-reminder",
    );
  });

  it("items are kept as the model meant them: spaces around an item's text are not part of it", () => {
    const plan = new Plan();
    plan.update([{ content: "  Read the code \n", status: "pending" }], 1);
    rule(plan.items[0]?.content === "Read the code", "plan-owned", () => `an item written as ${JSON.stringify("  Read the code \n")} was kept as ${JSON.stringify(plan.items[0]?.content)}: keep the trimmed text (the text you checked for empty and duplicate items).`);
  });
});

describe("s14 the reminder the loop sends carries the plan as it is at that turn", () => {
  it("property: over any order of plan writes and other turns, each reminder in the history names every open item of the plan then, and a change of one status changes it", async () => {
    // The class of bug, through the learner's loop (not staleReminder alone): a reminder written by
    // the loop in its own words ("update your plan") without the plan, an older copy of the plan, or
    // the items without their statuses. The model writes a list at some turns and reads at others;
    // the first reminder of each run is compared with a run whose plan then differs in one status.
    const status = fc.constantFrom("pending" as const, "in_progress" as const, "completed" as const);
    const list = fc
      .uniqueArray(fc.record({ content: fc.stringMatching(/^[A-Z][a-z]{3,8} [a-z]{3,8}$/), status }), { minLength: 1, maxLength: 4, selector: (i) => i.content })
      .filter((l) => l.filter((i) => i.status === "in_progress").length <= 1 && l.some((i) => i.status !== "completed"));
    const registry = new SafeToolRegistry([
      defineTool({ name: "read_chunk", description: "Reads chunk n.", input: z.object({ n: z.number() }), readOnly: true, run: ({ n }) => `chunk ${n}` }),
    ]);
    /** Turn k + 1 writes events[k] when it is a list, else reads; then the model is done. */
    const model = (events: (Item[] | null)[]): Scenario => ({
      id: "test-plan-writes",
      title: "writes the plan at some turns, reads at others",
      reply: (ctx) => {
        const step = ctx.messages.filter((m) => m.role === "assistant").length;
        if (step >= events.length) return say("Done.");
        const items = events[step];
        return { content: [items ? call("todo", { items }) : call("read_chunk", { n: step })] };
      },
    });
    const firstReminder = async (events: (Item[] | null)[], remindAfter: number) => {
      const { history } = await run(model(events), { registry, remindAfter, guards: { maxRepeats: 100, maxTurns: 40 } });
      const at = reminders(history)[0];
      if (at === undefined) return null;
      // messages[at] answers turn at / 2; the plan then is the last list written in an earlier turn.
      const plan = events.slice(0, at / 2 - 1).filter((e): e is Item[] => e !== null).at(-1);
      const note = blocksOf(history[at]!).filter(isReminder).map((b) => (b.type === "text" ? b.text : "")).join("\n");
      return { at, plan, note };
    };
    await assertProperty(
      fc.asyncProperty(
        list,
        fc.array(fc.option(list, { freq: 3, nil: null }), { minLength: 2, maxLength: 6 }),
        fc.integer({ min: 1, max: 3 }),
        fc.nat(),
        async (first, rest, remindAfter, pick) => {
          const events = [first, ...rest, ...Array.from({ length: remindAfter + 1 }, () => null)];
          const got = await firstReminder(events, remindAfter);
          rule(got !== null, "plan-reminder", () => `the model wrote a plan with open items and then left it alone for ${remindAfter + 1} turns (remindAfter ${remindAfter}), and no reminder came: add staleReminder's text after the results.`);
          const plan = got.plan!;
          const missing = plan.filter((i) => i.status !== "completed" && !got.note.includes(i.content)).map((i) => i.content);
          rule(
            missing.length === 0,
            "plan-reminder-state",
            () => `the plan at messages[${got.at}] is ${JSON.stringify(plan.map((i) => `${i.content}: ${i.status}`))}, and the reminder the loop sent there is ${JSON.stringify(got.note)}, without the open item(s) ${JSON.stringify(missing)}: a reminder carries the plan as it is at that turn. Send staleReminder's own text (it shows plan.render()), not a note of the loop's own.`,
          );
          // The same run with one item of that plan in another status (one item still open).
          const j = pick % plan.length;
          const other = plan.map((it, k) => (k !== j ? it : { ...it, status: it.status === "completed" ? ("pending" as const) : ("completed" as const) }));
          if (!other.some((i) => i.status !== "completed")) return;
          const where = events.indexOf(plan);
          const changed = await firstReminder(events.map((e, k) => (k === where ? other : e)), remindAfter);
          rule(
            changed?.at === got.at && changed.note !== got.note,
            "plan-reminder-state",
            () => `the plan ${JSON.stringify(plan.map((i) => `${i.content}: ${i.status}`))} and the same plan with ${JSON.stringify(plan[j]!.content)} ${other[j]!.status} brought the same reminder at messages[${got.at}]: ${JSON.stringify(got.note)}. A reminder carries each item's status, so the model can tell what is done from what is left: send staleReminder's text.`,
          );
        },
      ),
      { numRuns: 12 },
      "plan-reminder-state",
    );
  });
});

describe("s14 the list: at most one item in progress; a bad list is refused and changes nothing", () => {
  const lists: Item[][] = [
    [{ content: "a", status: "in_progress" }, { content: "b", status: "pending" }],
    [{ content: "a", status: "in_progress" }, { content: "b", status: "in_progress" }],
    [{ content: "a", status: "completed" }, { content: "b", status: "in_progress" }],
  ];
  const writer = (seq: Item[][]): Scenario => ({
    id: "test-writer",
    title: "writes lists",
    // The lists written so far, counted from the history (not from ctx.step: a reminder after the results is a note, and a loop may add one).
    reply: (ctx) => {
      const written = ctx.messages.filter((m) => m.role === "assistant" && typeof m.content !== "string" && m.content.some((b) => b.type === "tool_use" && b.name === "todo")).length;
      return written < seq.length ? { content: [call("todo", { items: seq[written]! })] } : say("Done.");
    },
  });

  it("answers two items in_progress with is_error, keeps the old plan, and takes the next good list", async () => {
    const { history, plan } = await run(writer(lists));
    const result = (i: number) => (history[i]!.content as Anthropic.ToolResultBlockParam[])[0]!;
    rule(!result(2).is_error, "plan-one-in-progress", () => `a list with one item in progress was answered ${show(result(2))}: it is a good list; take it (no is_error).`);
    rule(result(4).is_error === true, "plan-one-in-progress", () => `a list with two items in_progress was answered ${show(result(4))}: refuse it with is_error (ToolError), keeping the plan as it was.`);
    expect(JSON.stringify(result(4).content), "[plan-one-in-progress] the error says which rule: one item in progress at a time").toMatch(/in.progress/i);
    expect(plan.items, "[plan-one-in-progress] the plan is the last good list").toEqual(lists[2]);
  });

  it("the plan is the last good list though three bad ones in a row brought a reminder in between", async () => {
    const a: Item = { content: "a", status: "pending" };
    const b: Item = { content: "b", status: "pending" };
    const { plan } = await run(writer([[a], [a, a], [b, b], [a, a], []]), { guards: { maxRepeats: 100 } });
    expect(plan.items, "[plan-owned] after [a], three lists with a duplicate item, then an empty list: the plan is the empty list").toEqual([]);
  });

  it("refuses a list with an unknown status, an empty step or more than MAX_ITEMS items: is_error, and the old plan stays", async () => {
    const good: Item[] = [{ content: "a", status: "in_progress" }, { content: "b", status: "pending" }];
    const bad: Array<[string, unknown[]]> = [
      ['an item with the status "done" (the statuses are pending, in_progress and completed)', [{ content: "a", status: "done" }]],
      ["an item whose content is only spaces", [{ content: "a", status: "in_progress" }, { content: "   ", status: "pending" }]],
      [`${MAX_ITEMS + 5} items (a plan holds at most ${MAX_ITEMS})`, Array.from({ length: MAX_ITEMS + 5 }, (_, k) => ({ content: `step ${k + 1}`, status: "pending" }))],
    ];
    for (const [what, list] of bad) {
      const { history, plan } = await run(writer([good, list as Item[]]), { guards: { maxRepeats: 100 } });
      const answer = resultsIn(history[4]).find((r) => r.type === "tool_result");
      rule(
        answer?.is_error === true,
        "plan-one-in-progress",
        () => `the model sent ${what}, and the todo call was answered without is_error (${JSON.stringify(textIn(answer?.content)).slice(0, 120)}). Check the whole list before it replaces the plan (the tool's input schema: z.enum of the statuses, .max(MAX_ITEMS); Plan.update: no empty or repeated step) and refuse it with a ToolError.`,
      );
      rule(
        JSON.stringify(plan.items) === JSON.stringify(good),
        "plan-one-in-progress",
        () => `the model sent ${what} after a good plan; the plan is now ${JSON.stringify(plan.items).slice(0, 160)}. A refused list changes nothing: the plan is the last good list, kept as it was.`,
      );
    }
  });

  it("the todo tool's answers say the plan and what is wrong: each status marked, the count done, the items at fault", async () => {
    const plan: Item[] = [{ content: "fix the lockout", status: "in_progress" }, { content: "read the log", status: "completed" }, { content: "run the tests again", status: "pending" }];
    const { history } = await run(writer([plan, [], [{ content: "fix the lockout", status: "in_progress" }, { content: "write a test", status: "in_progress" }], [{ content: "  ", status: "pending" }], [{ content: "read the log", status: "pending" }, { content: "read the log", status: "pending" }]]), { guards: { maxRepeats: 100 } });
    const said = (i: number) => textIn(resultsIn(history[i])[0]?.content);
    // The plan as the model reads it back: one line per item, each status told apart, the count done.
    const lines = said(2).split("\n");
    const own = plan.map((it) => lines.find((l) => l.includes(it.content) && plan.every((o) => o === it || !l.includes(o.content))));
    const marks = plan.map((it, k) => own[k]?.replace(it.content, "").trim());
    rule(marks.every((m) => Boolean(m)) && new Set(marks).size === 3, "plan-owned", () => `a plan of three items (one in progress, one completed, one pending) was answered ${JSON.stringify(said(2))}: show each item on a line of its own, its status told apart (the loop's render(): [>], [x], [ ]).`);
    rule(/\b1\s*(\/|of)\s*3\b/.test(said(2)), "plan-owned", () => `a plan with 1 of its 3 items completed was answered ${JSON.stringify(said(2))}: say how many are done (1/3).`);
    rule(/empty|\b0\s*(\/|of)\s*0\b|no (items|steps)|nothing/i.test(said(4)), "plan-owned", () => `an empty list was answered ${JSON.stringify(said(4))}: say the plan is empty.`);
    rule(/content|empty|blank/i.test(said(8)), "plan-one-in-progress", () => `a list with an item of only spaces was refused with ${JSON.stringify(said(8))}: say an item has no content.`);
    rule(/read the log/.test(said(10)) && /twice|duplicate|more than once|repeat/i.test(said(10)), "plan-one-in-progress", () => `a list with "read the log" twice was refused with ${JSON.stringify(said(10))}: name the item listed twice.`);
  });

  it("onPlan is called after each turn that wrote the plan, and only then", async () => {
    const registry = new SafeToolRegistry([defineTool({ name: "read_chunk", description: "Reads chunk n.", input: z.object({ n: z.number() }), readOnly: true, run: ({ n }) => `chunk ${n}` })]);
    // Turn 1 writes the plan beside a read; turns 2 and 3 only read; turn 4 writes it again.
    const scenario: Scenario = {
      id: "test-on-plan",
      title: "writes the plan in turns 1 and 4",
      reply: (ctx) => {
        const step = ctx.messages.filter((m) => m.role === "assistant").length;
        const items: Item[] = [{ content: "read", status: step < 3 ? "in_progress" : "completed" }];
        if (step === 0 || step === 3) return { content: [call("todo", { items }), call("read_chunk", { n: step })] };
        return step < 4 ? { content: [call("read_chunk", { n: step })] } : say("Done.");
      },
    };
    const seen: number[] = [];
    const { history } = await run(scenario, { registry, guards: { maxRepeats: 100 }, onPlan: (p) => void seen.push(p.items.length) });
    const turns = history.filter((m) => m.role === "assistant").length;
    rule(seen.length === 2, "plan-owned", () => `in a run of ${turns} turns that wrote the plan in turns 1 and 4 (each beside another call), onPlan was called ${seen.length} time(s): call it after each turn with a todo call, and only then.`);
  });

  it("property: after any sequence of lists, the plan is the last good one, with at most one item in progress", async () => {
    const item = fc.record({ content: fc.constantFrom("a", "b", "c", "d"), status: fc.constantFrom("pending" as const, "in_progress" as const, "completed" as const) });
    const good = (l: Item[]) => l.filter((i) => i.status === "in_progress").length <= 1 && new Set(l.map((i) => i.content)).size === l.length;
    await assertProperty(
      fc.asyncProperty(fc.array(fc.array(item, { maxLength: 4 }), { minLength: 1, maxLength: 5 }), async (seq) => {
        const { plan } = await run(writer(seq), { guards: { maxRepeats: 100 } });
        const expected = [...seq].reverse().find(good) ?? [];
        expect(plan.items.filter((i) => i.status === "in_progress").length, "[plan-one-in-progress] the plan holds more than one item in progress").toBeLessThanOrEqual(1);
        expect(plan.items, "[plan-one-in-progress] the plan is not the last good list the model sent").toEqual(expected);
      }),
      { numRuns: 25 },
      "plan-one-in-progress",
    );
  });
});

// The net under the rules: this lesson beside the reference, on its own task and on generated
// model answers (tests/differential/net.ts).
import { differentialNet } from "./differential/net.ts";
differentialNet("s14");
