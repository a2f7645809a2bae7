/**
 * runtime/differential.ts: what the net compares and what it leaves out. Both errors of a grader:
 * runs a correct loop may produce (other ids, other words, results in another order, a result with
 * a header) are the same; runs that differ in what matters are told apart, in words.
 */
import { describe, expect, it } from "vitest";
import { compareRuns, conversations, projectEvents, type Difference, type RunRecord } from "../../runtime/differential.ts";
import { againstReference, replayed, REPLAYS } from "../differential/net.ts";

type Msg = { role: string; content: unknown };
const use = (id: string, name = "read_file", input: unknown = { path: "a" }) => ({ type: "tool_use", id, name, input });
const result = (id: string, content: unknown, is_error?: boolean) => ({ type: "tool_result", tool_use_id: id, content, ...(is_error === undefined ? {} : { is_error }) });

/** A run of one request per history prefix that ends with a user message. */
function run(history: Msg[], end: RunRecord["end"] = { kind: "returned", result: "done" }, extra: Partial<RunRecord> = {}): RunRecord {
  const requests = history.flatMap((m, i) => (m.role === "user" ? [{ messages: history.slice(0, i + 1), tools: [{ name: "read_file" }, { name: "bash" }] }] : []));
  return { requests, history, end, ...extra };
}

const reference: Msg[] = [
  { role: "user", content: "task" },
  { role: "assistant", content: [{ type: "text", text: "Reading." }, use("toolu_A"), use("toolu_B", "bash", { command: "ls" })] },
  { role: "user", content: [result("toolu_A", "contents of a"), result("toolu_B", [{ type: "text", text: "exit 1" }], true)] },
  { role: "assistant", content: [{ type: "text", text: "Done." }] },
];

describe("the net leaves out what a correct loop may do its own way", () => {
  it("other ids, content as blocks, results in another order, its own error words and notes, a header on a result", () => {
    const yours: Msg[] = [
      { role: "user", content: [{ type: "text", text: "task" }] },
      { role: "assistant", content: [{ type: "text", text: "Reading (my model worded it otherwise)." }, use("toolu_X"), use("toolu_Y", "bash", { command: "ls" })] },
      { role: "user", content: [result("toolu_Y", "the command failed with exit code 1", true), result("toolu_X", "read_file a:\ncontents of a", false), { type: "text", text: "my note" }] },
      { role: "assistant", content: "Done." },
    ];
    expect(compareRuns(run(reference), run(yours))).toBeNull();
  });

  it("a result marked is_error where the reference's is not (a command that exits non-zero may be either)", () => {
    const yours = structuredClone(reference);
    (yours[2]!.content as Array<{ is_error?: boolean }>)[0]!.is_error = true;
    expect(compareRuns(run(reference), run(yours))).toBeNull();
  });

  it("two conversations at the same time (a parent and its children), their requests interleaved another way", () => {
    // A child's conversation: its task, then one turn with a call.
    const child = (task: string, path: string): Msg[] => [
      { role: "user", content: task },
      { role: "assistant", content: [use(`toolu_${path}`, "edit_file", { path })] },
      { role: "user", content: [result(`toolu_${path}`, "edited")] },
    ];
    const req = (messages: Msg[], last = false) => ({ messages: last ? messages.map((m, i) => (i === messages.length - 1 ? { ...m, cache_control: { type: "ephemeral" } } : m)) : messages, tools: [{ name: "edit_file" }] });
    const a = child("Fix the limit.", "a.js");
    const b = child("Fix the message.", "b.js");
    const parent: Msg[] = [{ role: "user", content: "task" }];
    const at = (order: unknown[]): RunRecord => ({ requests: order, history: parent, end: { kind: "returned", result: "done" } });
    const ref = at([req(parent), req(a.slice(0, 1)), req(a, true), req(b.slice(0, 1)), req(b, true)]);
    const yours = at([req(parent), req(b.slice(0, 1)), req(a.slice(0, 1)), req(b), req(a)]);
    expect(conversations(ref.requests).map((c) => c.length), "the parent's, a's and b's conversations, cache markers aside").toEqual([1, 2, 2]);
    expect(compareRuns(ref, yours)).toBeNull();
    // Interleaved another way and one child's call other than the reference's: still a difference.
    const wrong = child("Fix the message.", "c.js");
    const d = compareRuns(ref, at([req(parent), req(wrong.slice(0, 1)), req(a.slice(0, 1)), req(wrong), req(a)]));
    expect(d?.rule).toBe("net-requests");
    // Shown in the child's conversation that differs (not the first request out of order), with both places.
    expect(d?.message, "the difference is named where it is: the child's second request, its call's input").toMatch(/^request 5 \(yours: request 4\), messages\[1\] \(assistant\).*b\.js.*c\.js/);
    // A child whose conversation is a request short.
    const short = compareRuns(ref, at([req(parent), req(b.slice(0, 1)), req(a.slice(0, 1)), req(a)]));
    expect(short?.message, "a child's conversation a request short is named as such").toMatch(/^the conversation that starts at request 4 .*the reference sent request 5, .*yours sent 1 request\(s\) in it/);
    // One conversation's own requests out of order is not an interleaving.
    expect(compareRuns(ref, at([req(parent), req(a), req(a.slice(0, 1)), req(b.slice(0, 1)), req(b)]))?.rule).toBe("net-requests");
  });

  it("act and observe events of calls that ran together, in another order; times", () => {
    const events = (order: string[], ms: number) => [
      { type: "think", turn: 1, usage: { input: 3 }, message: { stop_reason: "tool_use" }, ms },
      ...order.map((id) => ({ type: "act", turn: 1, call: { id, name: "read_file" } })),
      ...order.map((id) => ({ type: "observe", turn: 1, call: { id, name: "read_file" }, result: {}, ms })),
      { type: "stop", turn: 1, outcome: { status: "done" }, totals: { input: 3 }, ms },
    ];
    expect(projectEvents(events(["a", "b"], 1))).toEqual(projectEvents(events(["b", "a"], 99)));
  });
});

describe("the net tells runs apart where it matters, and says where", () => {
  it("a call answered once where the reference answered it twice (one call asked twice in a turn)", () => {
    const twice: Msg[] = [
      { role: "user", content: "task" },
      { role: "assistant", content: [use("toolu_A"), use("toolu_B")] },
      { role: "user", content: [result("toolu_A", "x"), result("toolu_B", "x")] },
    ];
    const once: Msg[] = [twice[0]!, twice[1]!, { role: "user", content: [result("toolu_A", "x")] }];
    const d = compareRuns(run(twice), run(once));
    expect(d?.rule).toBe("net-requests");
    expect(d?.message).toMatch(/^request 2, messages\[2\] \(user\): the reference sent two tool_result blocks .*toolu_A.*toolu_B.*, yours sent one \[tool_result for toolu_A\]/);
  });

  it("blocks of the same kinds whose content differs (a document with other words): the first such block is named, with both texts where they part", () => {
    const doc = (data: string) => ({ type: "document", title: "evidence", source: { type: "text", media_type: "text/plain", data } });
    const with_ = (data: string): Msg[] => [{ role: "user", content: [{ type: "text", text: "goal" }, doc("the answer"), doc(data)] }];
    const d = compareRuns(run(with_("tests: 3 passed, 0 failed")), run(with_("tests: 2 passed, 1 failed")));
    expect(d?.rule, "documents with other contents are a difference the net must report").toBe("net-requests");
    expect(d?.message, "the message must name the block and show where the two contents part, not two equal lists").toMatch(/^request 1, messages\[0\] \(user\), block 2 \(document\): the reference's says ".*3 passed, 0 failed.*", yours says ".*2 passed, 1 failed.*"/);
  });

  it("a failure not marked is_error", () => {
    const yours = structuredClone(reference);
    (yours[2]!.content as Array<{ is_error?: boolean }>)[1]!.is_error = false;
    const d = compareRuns(run(reference), run(yours));
    expect(d?.rule).toBe("net-requests");
    expect(d?.message).toMatch(/is_error: true.*yours without is_error/);
  });

  it("outputs swapped between two calls", () => {
    const swapped = structuredClone(reference);
    const results = swapped[2]!.content as Array<{ tool_use_id: string }>;
    [results[0]!.tool_use_id, results[1]!.tool_use_id] = [results[1]!.tool_use_id, results[0]!.tool_use_id];
    expect(compareRuns(run(reference), run(swapped))).not.toBeNull();
  });

  it("a request more or fewer, a different ending, an extra call run, a call left running", () => {
    const shorter = reference.slice(0, 2);
    expect(compareRuns(run(reference), run(shorter))?.message).toMatch(/the reference sent request 2.*yours stopped after 1 request/);
    expect(compareRuns(run(reference), run(reference, { kind: "threw", error: "boom" }))?.rule).toBe("net-outcome");
    expect(compareRuns(run(reference), run(reference, { kind: "returned", result: 'an Outcome { status: "stopped" }' }))?.rule).toBe("net-outcome");
    expect(compareRuns(run(reference, undefined, { effects: ["the call n=1"] }), run(reference, undefined, { effects: ["the call n=1", "the call n=2"] }))?.rule).toBe("net-effects");
    expect(compareRuns(run(reference), run(reference, undefined, { stillRunning: ["the call n=1"] }))?.message).toMatch(/still running/);
    // The same call asked twice in a turn runs twice: once is a difference.
    expect(compareRuns(run(reference, undefined, { effects: ["the call n=1", "the call n=1"] }), run(reference, undefined, { effects: ["the call n=1"] }))?.message).toMatch(/the reference ran the call n=1, which yours did not run \(or not that often\)/);
  });

  it("a system prompt sent whole only with the first request", () => {
    const ref = run(reference);
    const withSystem = (r: RunRecord, second: string) => ({ ...r, requests: r.requests.map((q, i) => ({ ...(q as object), system: i === 0 ? "You are a helper. Skills: a, b." : second })) });
    expect(compareRuns(withSystem(ref, "You are a helper. Skills: a, b."), withSystem(ref, "You are a helper. Skills: a, b."))).toBeNull();
    const d = compareRuns(withSystem(ref, "You are a helper. Skills: a, b."), withSystem(ref, "You are a helper."));
    expect(d?.message).toMatch(/^request 2: the reference sent the same system prompt as with request 1, yours another/);
  });

  it("a THINK with the running totals instead of its own turn's usage", () => {
    const events = (usage: number) => [{ type: "think", turn: 2, usage: { input: usage, output: usage }, message: { stop_reason: "end_turn" } }];
    const d = compareRuns(run(reference, undefined, { events: events(3) }), run(reference, undefined, { events: events(9) }));
    expect(d?.rule).toBe("net-events");
    expect(d?.message).toMatch(/^event 1: the reference emitted think \(turn 2.*"output":3.*yours think \(turn 2.*"output":9/);
  });

  it("input, cache and cost figures that differ with the loop's own words are not a difference", () => {
    const events = (write: number) => [{ type: "think", turn: 2, usage: { input: 1, cacheWrite: write, costUsd: write / 1e5, output: 3 }, message: { stop_reason: "end_turn" } }];
    expect(compareRuns(run(reference, undefined, { events: events(86) }), run(reference, undefined, { events: events(89) }))).toBeNull();
    // A figure there in one run and not in the other still is.
    expect(compareRuns(run(reference, undefined, { events: events(86) }), run(reference, undefined, { events: events(0) }))?.rule).toBe("net-events");
  });
});

describe("a reference that ends a case in more than one way (timing has a say)", () => {
  const stopped = run(reference.slice(0, 2), { kind: "returned", result: 'an Outcome { status: "stopped" }' });
  const done = run(reference);
  /** The reference's further runs on the case: these, in turn; each call counted. */
  const runsOf = (...records: RunRecord[]) => {
    let calls = 0;
    return { next: async () => records[Math.min(calls++, records.length - 1)]!, calls: () => calls };
  };

  it("yours passes when it does what one of the reference's runs did, and the reference runs again only after a difference", async () => {
    const same = runsOf(done);
    expect(await againstReference(done, done, same.next)).toBeNull();
    expect(same.calls(), "a case yours agrees on at once runs the reference once").toBe(0);
    const later = runsOf(stopped, done);
    expect(await againstReference(stopped, done, later.next), "the reference's third run ended done, as yours did").toBeNull();
    expect(later.calls()).toBe(2);
  });

  it("a generated case that differed is run again: a difference that comes back counts, one that never does was timing", async () => {
    const d: Difference = { rule: "net-outcome", message: "ended another way" };
    const calls = (pattern: boolean[]) => {
      let n = 0;
      return { differ: async () => (pattern[n++] ? d : null), count: () => n };
    };
    const always = calls([true, true, true, true]);
    expect(await replayed(always.differ, "case"), "a loop that differs every time").toBe(d);
    expect(always.count(), "a difference that comes back on the first replay needs no more").toBe(1);
    const late = calls([false, false, true]);
    expect(await replayed(late.differ, "case"), "a difference that comes back on the third replay still counts").toBe(d);
    const never = calls(Array.from({ length: REPLAYS }, () => false));
    expect(await replayed(never.differ, "case"), "a difference that never comes back").toBeNull();
    expect(never.count(), `the case is run ${REPLAYS} times before it is let go`).toBe(REPLAYS);
  });

  it("yours fails, with the first run's difference, when it differs from every run of the reference", async () => {
    const threw = run(reference, { kind: "threw", error: "boom" });
    const always = runsOf(done);
    const d = await againstReference(done, threw, always.next);
    expect(d?.rule, "a loop that throws where the reference (four runs) returns").toBe("net-outcome");
    expect(always.calls(), "three more runs of the reference, then the verdict").toBe(3);
    const twoWays = runsOf(stopped, done, stopped);
    expect((await againstReference(done, threw, twoWays.next))?.rule, "a reference that ends two ways, neither of them yours").toBe("net-outcome");
  });
});
