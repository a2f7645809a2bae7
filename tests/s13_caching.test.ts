/**
 * s13_caching: the loop marks prompt-cache breakpoints itself. Grades lessons/ or solutions/
 * (COURSE_TREE). Every request the loop sends is read back from the scripted model: the system
 * prompt (its marker caches the tools before it too; one on the last tool may be added) and the
 * newest message carry a marker, never more than four in all (the API refuses a fifth), and the markers move forward instead of piling up. The history keeps
 * none: the transcript is the same with caching as without. Over a long session the share of the
 * input read from the cache rises, and the budget counts cache tokens.
 */
import type Anthropic from "@anthropic-ai/sdk";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { call, say, text } from "../runtime/scripted/scenarios/script.ts";
import { S13_TASK } from "../runtime/tasks.ts";
import type { Scenario } from "../runtime/scripted/types.ts";
import { ROOT, RuleError, assertProperty, driveLoop, errorText, loadLesson, rule, scripted } from "../runtime/testing.ts";
import { scratchCopy } from "../runtime/tools/files.ts";
import { SafeToolRegistry, defineTool } from "../solutions/s04_tool_errors/define-tool.ts";
import { refuseAll } from "../solutions/s07_safe_tools/approval.ts";
import { quietLessonFile, show } from "./support.ts";

type Agent = typeof import("../solutions/s13_caching/agent.ts");
type Cache = typeof import("../solutions/s13_caching/cache.ts");
const lesson = await loadLesson<Agent>("s13_caching");
const cache = await loadLesson<Cache>("s13_caching", "cache.ts");

const keep = quietLessonFile();
const SAMPLE = `${ROOT}/examples/login-service`;

type Request = { system?: unknown; tools?: Array<Record<string, unknown>>; messages: Anthropic.MessageParam[] };
type Llm = ReturnType<typeof scripted>;
type Options = NonNullable<Parameters<Agent["runAgent"]>[2]>;

/**
 * Runs the lesson's loop and checks the transcript can be sent again (driveLoop); returns the
 * requests the LOOP sent and the responses it got (not the check's own request).
 */
async function runLoop(llm: Llm, history: Anthropic.MessageParam[], opts: Options) {
  let sent = 0;
  const outcome = await driveLoop(llm, history, async () => {
    try {
      const o = await lesson.runAgent(llm, history, opts);
      sent = llm.scripted.exchanges.length;
      return o;
    } catch (e) {
      // The API's answer to a fifth marker: say where markers pile up, not only that it refused.
      if (/maximum of 4 blocks with cache_control/i.test(errorText(e))) {
        const refused = llm.scripted.exchanges.at(-1)?.request as Request | undefined;
        throw new RuleError("cache-max-four", `request ${llm.scripted.exchanges.length} was refused (${errorText(e)}): ${refused ? `${whereMarked(refused)}. ${markerAdvice(refused)}` : "markers left in the history add up turn after turn. Mark a copy of each request instead."}`, { cause: e });
      }
      // Any other refusal that names a marker (its ttl, its place): say which marker, and how to place it.
      const refused = llm.scripted.exchanges.at(-1)?.request as Request | undefined;
      const why = refused ? markerRefusal(errorText(e), refused) : null;
      if (why) throw new RuleError("cache-placement", `request ${llm.scripted.exchanges.length} was refused (${errorText(e)}): ${why}`, { cause: e });
      throw e;
    }
  });
  const exchanges = llm.scripted.exchanges.slice(0, sent);
  return { outcome, requests: exchanges.map((e) => e.request as Request), responses: exchanges.flatMap((e) => (e.response ? [e.response] : [])) };
}
const isMarked = (b: unknown) => typeof b === "object" && b !== null && Boolean((b as { cache_control?: unknown }).cache_control);
const blocks = (m: Anthropic.MessageParam): unknown[] => (typeof m.content === "string" ? [m.content] : m.content);
/** Indexes of the messages that carry a marker on any block. */
const markedMessages = (r: Request) => r.messages.flatMap((m, i) => (blocks(m).some(isMarked) ? [i] : []));
/** Where a request's markers are, in words: "5 markers: 3 on tools, 1 on the system prompt, 1 on messages[4]". */
function whereMarked(r: Request): string {
  const tools = (r.tools ?? []).filter(isMarked).length;
  const system = Array.isArray(r.system) ? (r.system as unknown[]).filter(isMarked).length : 0;
  const messages = markedMessages(r);
  const parts = [`${tools} on tools`, `${system} on the system prompt`, messages.length > 0 ? `${messages.length} on messages[${messages.join(", ")}]` : "none on messages"];
  return `it carries ${cache.countBreakpoints(r)} cache_control markers: ${parts.join(", ")}`;
}
/** Why the API refused a request because of its markers, and what to do; null when the markers are not the cause. */
function markerRefusal(said: string, r: Request): string | null {
  if (/ttl='1h'.*must not come after/i.test(said))
    return "a marker with ttl \"1h\" comes after one with the default five minutes (the API reads tools, then system, then messages). Give every marker the same ttl, or put the hour-long ones first (the tools and the system prompt).";
  if (/cache_control\.ttl/i.test(said)) return "a marker's ttl is \"5m\" (the default: leave it out) or \"1h\", nothing else.";
  if (/cache_control/i.test(said)) return `a marker is not where the API takes one (${whereMarked(r)}). Mark the last tool, the system prompt's last text block and the last block of a message, as { type: "ephemeral" }; thinking blocks take none.`;
  const empty = r.messages.flatMap((m, i) => blocks(m).flatMap((b, j) => (isMarked(b) && typeof b === "object" && (b as { type?: unknown }).type === "text" && !String((b as { text?: unknown }).text ?? "").trim() ? [`messages[${i}].content[${j}]`] : [])));
  if (empty.length > 0) return `the marker rides on an empty text block of its own (${empty.join(", ")}): put it on the message's own last block (on a copy), not on a block added for it.`;
  return null;
}

/** What to do about too many markers, from where they are. */
function markerAdvice(r: Request): string {
  if ((r.tools ?? []).filter(isMarked).length > 1) return "One marker on the LAST tool caches every tool before it: mark only that one.";
  if (markedMessages(r).length > 2) return "Markers left in the history add up turn after turn: mark a copy of each request instead, the newest message and one before it.";
  return "Place at most four: the last tool, the system prompt, the newest message and one user message before it.";
}

/** The default task on a scratch copy of the sample repository. */
async function defaultRun(opts: { cache?: boolean } = {}) {
  const llm = scripted({ scenario: "s13_caching" });
  const root = keep(await scratchCopy(SAMPLE));
  const history: Anthropic.MessageParam[] = [{ role: "user", content: S13_TASK }];
  return { history, ...(await runLoop(llm, history, { root, approve: refuseAll, ...opts })) };
}

/** A tool that returns `size` characters, and a model that calls it `turns` times, then answers. */
function longSession(turns: number, size = 2_000) {
  const registry = new SafeToolRegistry([
    defineTool({ name: "read_chunk", description: "Reads chunk n of a long file.", input: z.object({ n: z.number() }), readOnly: true, run: ({ n }) => `chunk ${n}: ${"x".repeat(size)}` }),
  ]);
  const scenario: Scenario = {
    id: "test-long-session",
    title: "reads a chunk per turn",
    reply: (ctx) => (ctx.step < turns ? { content: [text(`Chunk ${ctx.step}.`), call("read_chunk", { n: ctx.step })] } : say("Read them all.")),
  };
  return { registry, scenario };
}

describe("s13 breakpoints on every request: tools and system once, the newest message each turn", () => {
  it("marks the last tool, the system prompt and the newest message of every request, with at most 4 markers", async () => {
    const { requests, outcome } = await defaultRun();
    rule(outcome.status === "done", "typed-outcome", () => `the default task ended "${outcome.status}"${typeof (outcome as { reason?: unknown }).reason === "string" ? ` (${(outcome as { reason: string }).reason})` : ""}, not "done": when the model answers with end_turn, return { status: "done", … }; a stop means a guard or an error ended the run early, and its reason says which.`);
    expect(requests.length, `[cache-placement] the default task made ${requests.length} request(s), and it takes at least 4: keep looping while stop_reason is tool_use, so the breakpoints can be checked turn after turn`).toBeGreaterThanOrEqual(4);
    requests.forEach((r, n) => {
      const where = `request ${n + 1} of ${requests.length}`;
      rule(cache.countBreakpoints(r) <= 4, "cache-max-four", () => `${where}: ${whereMarked(r)}; the API takes at most 4. ${markerAdvice(r)}`);
      const tools = r.tools ?? [];
      // The fixed breakpoints end the stable prefix (tools, then system): the last tool's marker
      // (the TODO and the page ask for it) and the system prompt's. A marker on an earlier tool is
      // one the limit of four cannot spare.
      rule(Array.isArray(r.system) && isMarked((r.system as unknown[]).at(-1)), "cache-placement", `${where}: the system prompt went out without a marker: send it as a list of text blocks, the last one with cache_control (it caches the tools before it too)`);
      rule(!(tools.slice(0, -1).some(isMarked)), "cache-placement", `${where}: a marker on a tool before the last one: one marker covers every tool before it, so mark only the last tool`);
      rule(tools.length === 0 || isMarked(tools.at(-1)), "cache-placement", () => `${where}: the last tool (${(tools.at(-1) as { name?: string }).name}) went out without a marker: mark the LAST tool of the list (on a copy), so the tools stay cached as one prefix of their own`);
      const newest = r.messages[r.messages.length - 1]!;
      rule(isMarked(blocks(newest).at(-1)), "cache-placement", `${where}: the newest message's last block has no marker: put the moving marker on it (on a copy of the message), every turn`);
    });
  });

  it("moves the message markers forward: only the newest messages carry one, none piles up", async () => {
    const { registry, scenario } = longSession(12);
    const llm = scripted({ scenario });
    const history: Anthropic.MessageParam[] = [{ role: "user", content: "Read every chunk." }];
    const { requests } = await runLoop(llm, history, { registry, guards: { maxRepeats: 100 } });
    rule(requests.length === 13, "cache-placement", `12 turns of reading, then the answer, are 13 requests; the loop made ${requests.length}: keep looping while stop_reason is tool_use, and stop after the answer`);
    requests.forEach((r, n) => {
      const last = r.messages.length - 1;
      // The markers of this turn sit on the newest messages: the newest and the two before it at most.
      const extra = markedMessages(r).filter((i) => i < last - 2);
      expect(extra, `[cache-placement] request ${n + 1}: messages ${extra.join(", ")} still carry a marker from an earlier turn (markers must move, not pile up)`).toEqual([]);
      rule(cache.countBreakpoints(r) <= 4, "cache-max-four", () => `request ${n + 1}: ${whereMarked(r)}; the API takes at most 4. ${markerAdvice(r)}`);
    });
  });
});

/**
 * Where a request's markers sit, counted in blocks of its prompt as the API counts them for the
 * cache (each tool, each system block, each message block; a string is one block): the end of
 * each marked block, in order.
 */
function markerEnds(r: Request): number[] {
  const ends: number[] = [];
  let at = 0;
  const count = (b: unknown) => {
    at++;
    if (isMarked(b)) ends.push(at);
  };
  (r.tools ?? []).forEach(count);
  if (typeof r.system === "string") at++;
  else if (Array.isArray(r.system)) (r.system as unknown[]).forEach(count);
  for (const m of r.messages) blocks(m).forEach(count);
  return ends;
}

describe("s13 a turn that adds many blocks", () => {
  it("a turn that adds more than 20 blocks still reads what the turn before wrote", async () => {
    const registry = new SafeToolRegistry([
      defineTool({ name: "read_chunk", description: "Reads chunk n.", input: z.object({ n: z.number() }), readOnly: true, run: ({ n }) => `chunk ${n}` }),
    ]);
    // Each turn asks for 12 chunks at once: 12 tool_use blocks and 12 tool_result blocks a turn.
    const scenario: Scenario = {
      id: "test-wide-turns",
      title: "reads 12 chunks a turn",
      reply: (ctx) => (ctx.step < 3 ? { content: Array.from({ length: 12 }, (_, k) => call("read_chunk", { n: ctx.step * 12 + k })) } : say("Read them all.")),
    };
    const llm = scripted({ scenario });
    const history: Anthropic.MessageParam[] = [{ role: "user", content: "Read every chunk." }];
    const { requests } = await runLoop(llm, history, { registry, guards: { maxRepeats: 100 } });
    rule(requests.length === 4, "cache-placement", `3 turns of 12 calls, then the answer, are 4 requests; the loop made ${requests.length}: answer all the calls of a turn in one message and keep looping while stop_reason is tool_use`);
    for (let n = 1; n < requests.length; n++) {
      const wrote = Math.max(0, ...markerEnds(requests[n - 1]!));
      const ends = markerEnds(requests[n]!);
      rule(
        ends.some((e) => e >= wrote && e - wrote <= 20),
        "cache-placement",
        () =>
          `request ${n + 1}: the turn before added more than 20 blocks, and no marker sits within 20 blocks after the one request ${n} wrote its cache at (block ${wrote}; this request's markers end at blocks ${ends.join(", ") || "none"}). The API looks back at most 20 blocks from a marker, so this request reads nothing of it: keep a second marker on the user message before the previous one.`,
      );
    }
  });
});

describe("s13 the transcript is unchanged by caching", () => {
  it("keeps no cache_control in the history, and the same transcript as a run without breakpoints", async () => {
    const cached = await defaultRun();
    const plain = await defaultRun({ cache: false });
    const marked = cached.history.flatMap((m, i) => (blocks(m).some(isMarked) ? [i] : []));
    expect(marked, `[cache-not-in-history] messages ${marked.join(", ")} of the history hold a cache_control marker: put markers on a copy of the request, not on the history`).toEqual([]);
    // Tool-use ids differ between the runs (they are random on the real API): compare without them.
    const shape = (h: Anthropic.MessageParam[]) => JSON.parse(JSON.stringify(h).replace(/"toolu_[A-Za-z0-9]+"/g, '"toolu"')) as unknown;
    expect(shape(cached.history), "[cache-not-in-history] the transcript with caching differs from the one without: caching changes the requests, never what the history holds").toEqual(shape(plain.history));
    const markedPlain = plain.requests.flatMap((r, n) => (cache.countBreakpoints(r) > 0 ? [n + 1] : []));
    rule(markedPlain.length === 0, "cache-placement", () => `a run with cache: false still sent cache_control markers (requests ${markedPlain.join(", ")}): with cache false, send each request as it is, unmarked.`);
  });

  it("withCacheBreakpoints marks the last tool, and the newest message with the last USER message before it", () => {
    const tools: Anthropic.Tool[] = ["read_file", "list_files", "grep"].map((name) => ({ name, input_schema: { type: "object" } }));
    const m = (role: "user" | "assistant", text: string): Anthropic.MessageParam => ({ role, content: [{ type: "text", text }] });
    const marked = (out: ReturnType<Cache["withCacheBreakpoints"]>) => out.messages.flatMap((x, i) => (blocks(x).some(isMarked) ? [i] : []));
    const usual = cache.withCacheBreakpoints({ system: "You are an agent.", tools, messages: [m("user", "task"), m("assistant", "call 1"), m("user", "results 1"), m("assistant", "call 2"), m("user", "results 2")] });
    rule(
      JSON.stringify(usual.tools.map((t) => isMarked(t))) === "[false,false,true]",
      "cache-placement",
      () => `withCacheBreakpoints marked the tools ${JSON.stringify(usual.tools.map((t) => isMarked(t)))} (read_file, list_files, grep): mark the LAST tool only; its marker caches every tool before it.`,
    );
    rule(
      JSON.stringify(marked(usual)) === "[2,4]",
      "cache-placement",
      () => `of [user task, assistant, user results, assistant, user results] withCacheBreakpoints marked messages ${JSON.stringify(marked(usual))}, not [2, 4]: the newest message, and the last USER message before it (where the previous request ended, with its results), not the model's turn between them.`,
    );
    // A paused turn sent back: the newest message is the assistant's, the user message just before it carries the second marker.
    const paused = cache.withCacheBreakpoints({ system: "You are an agent.", tools, messages: [m("user", "task"), m("assistant", "call 1"), m("user", "results 1"), m("assistant", "paused turn")] });
    rule(JSON.stringify(marked(paused)) === "[2,3]", "cache-placement", () => `of [user task, assistant, user results, assistant (a paused turn sent back)] withCacheBreakpoints marked messages ${JSON.stringify(marked(paused))}, not [2, 3]: the newest message, and the last user message before it.`);
  });

  it("withCacheBreakpoints changes nothing it is given, and marks a copy (any history shape)", () => {
    const block = fc.oneof(
      fc.record({ type: fc.constant("text" as const), text: fc.string({ minLength: 1 }) }),
      fc.record({ type: fc.constant("tool_result" as const), tool_use_id: fc.constant("toolu_1"), content: fc.string({ minLength: 1 }) }),
    );
    const message = fc.record({ role: fc.constantFrom("user" as const, "assistant" as const), content: fc.oneof(fc.string({ minLength: 1 }), fc.array(block, { minLength: 1, maxLength: 4 })) });
    assertProperty(
      fc.property(fc.array(message, { minLength: 1, maxLength: 12 }), fc.integer({ min: 1, max: 3 }), fc.integer({ min: 0, max: 3 }), (messages, ntools, systemBlocks) => {
        const tools: Anthropic.Tool[] = Array.from({ length: ntools }, (_, i) => ({ name: `t${i}`, input_schema: { type: "object" } }));
        // The system prompt as a string (0) or as 1 to 3 text blocks.
        const system = systemBlocks === 0 ? "You are an agent." : Array.from({ length: systemBlocks }, (_, i) => ({ type: "text" as const, text: `You are an agent (${i + 1}).` }));
        const prompt = { system, tools, messages };
        const before = structuredClone(prompt);
        let out: ReturnType<Cache["withCacheBreakpoints"]>;
        try {
          out = cache.withCacheBreakpoints(prompt);
        } catch (e) {
          throw new RuleError("cache-placement", `withCacheBreakpoints threw on this prompt (${errorText(e)}): every prompt the loop can send must go out, marked`);
        }
        rule(JSON.stringify(prompt) === JSON.stringify(before), "cache-not-in-history", "withCacheBreakpoints changed the prompt it was given (its history, tools or system): copy each array and block you mark, and mark the copies.");
        rule(cache.countBreakpoints(out) <= 4, "cache-max-four", () => `withCacheBreakpoints put ${cache.countBreakpoints(out)} markers on a prompt of ${messages.length} messages and ${ntools} tools: the API takes at most 4 (the last tool, the system prompt, two on messages).`);
        const said = (v: unknown) => (typeof v === "string" ? v : Array.isArray(v) ? v.map((b: { text?: unknown }) => String(b.text ?? "")).join("\n") : "");
        rule(said(out.system) === said(system), "cache-placement", () => `withCacheBreakpoints was given the system prompt ${show(system, 120)} and sent ${show(out.system, 120)}: send the same text (a string becomes one text block), with the marker on its last block.`);
        const newestLast = blocks(out.messages[out.messages.length - 1]!).at(-1);
        rule(isMarked(newestLast), "cache-placement", () => `withCacheBreakpoints left the newest message's LAST block without a marker (it is ${show(newestLast, 100)}): mark that block (a string content becomes one text block first).`);
        // The blocks without their markers, whatever the marker says (a ttl too).
        const plain = (m: Anthropic.MessageParam) => (typeof m.content === "string" ? [{ type: "text", text: m.content }] : m.content).map((b) => Object.fromEntries(Object.entries(b).filter(([k]) => k !== "cache_control")));
        expect(out.messages.map(plain), "[cache-not-in-history] the request's messages say the same as the history, markers aside").toEqual(messages.map(plain));
      }),
      { numRuns: 200 },
      "cache-not-in-history",
    );
  });
});

describe("s13 a paused turn sent back", () => {
  it("a request that ends with a long paused assistant turn still reads what the request before wrote", () => {
    // The request before ended with the results (messages[2]) and wrote its cache there; the model
    // paused (pause_turn) after 25 blocks, and the paused turn goes back as the newest message.
    const messages: Anthropic.MessageParam[] = [
      { role: "user", content: "Search the docs." },
      { role: "assistant", content: [{ type: "tool_use", id: "toolu_s13_a", name: "t", input: {} }] },
      { role: "user", content: [{ type: "tool_result", tool_use_id: "toolu_s13_a", content: "found" }] },
      { role: "assistant", content: Array.from({ length: 25 }, (_, k) => ({ type: "text" as const, text: `Step ${k + 1}.` })) },
    ];
    const prompt = (m: Anthropic.MessageParam[]) => cache.withCacheBreakpoints({ system: "You are an agent.", tools: [{ name: "t", input_schema: { type: "object" } }], messages: m });
    const wrote = Math.max(0, ...markerEnds(prompt(messages.slice(0, 3)) as unknown as Request));
    const ends = markerEnds(prompt(messages) as unknown as Request);
    rule(
      ends.some((e) => e >= wrote && e - wrote <= 20),
      "cache-placement",
      () => `the request before ended with the tool results (messages[2]) and wrote its cache there; this request adds a paused turn of 25 blocks, and its markers end at blocks ${ends.join(", ") || "none"}: none within 20 blocks after block ${wrote}, so nothing is read back. The second message marker goes on the last user message before the newest message (here messages[2], just before the paused turn).`,
    );
  });
});

describe("s13 thinking blocks carry no marker", () => {
  it("a message that ends with a thinking or redacted_thinking block goes out with that block as it came", () => {
    for (const last of [
      { type: "thinking" as const, thinking: "Let me look at the log first.", signature: "sig-s13-1" },
      { type: "redacted_thinking" as const, data: "cmVkYWN0ZWQ=" },
    ]) {
      // A paused turn sent back as the newest message, its last block a thinking block.
      const messages: Anthropic.MessageParam[] = [
        { role: "user", content: "Why does the login test fail?" },
        { role: "assistant", content: [{ type: "text", text: "Looking." }, structuredClone(last)] },
      ];
      const out = cache.withCacheBreakpoints({ system: "You are an agent.", tools: [{ name: "t", input_schema: { type: "object" } }], messages });
      const sent = blocks(out.messages.at(-1)!).at(-1);
      rule(JSON.stringify(sent) === JSON.stringify(last), "cache-placement", () => `a message ending with a ${last.type} block went out with that block as ${show(sent, 160)}: thinking blocks go back exactly as they came and take no cache_control (the API refuses one); leave them unmarked.`);
    }
  });
});

/** The tools and the system prompt as sent, markers aside: a cached prefix is read back only if they stay the same. */
function expectStablePrefix(requests: Request[]) {
  const unmarked = (v: unknown) => JSON.stringify(v, (k, x: unknown) => (k === "cache_control" ? undefined : x));
  for (let n = 1; n < requests.length; n++)
    for (const part of ["tools", "system"] as const)
      rule(
        unmarked(requests[n]![part]) === unmarked(requests[n - 1]![part]),
        "cache-placement",
        () =>
          `request ${n + 1} sent ${part === "tools" ? "other tool definitions" : "another system prompt"} than request ${n} (markers aside), so the cached prefix is never read back and every turn pays for all of it again: keep ${part === "tools" ? "the tools" : "the system prompt"} the same in every request of a run (anything that changes per turn goes in the newest message). Request ${n + 1} sent: ${unmarked(requests[n]![part]).slice(0, 160)}`,
      );
}

describe("s13 a long session reads more and more from the cache", () => {
  it("the share of each turn's input read from the cache rises turn after turn", async () => {
    const { registry, scenario } = longSession(15);
    const llm = scripted({ scenario });
    const history: Anthropic.MessageParam[] = [{ role: "user", content: "Read every chunk." }];
    const { responses, requests } = await runLoop(llm, history, { registry, guards: { maxRepeats: 100 } });
    expectStablePrefix(requests);
    const shares = responses.map((m) => cache.cacheReadShare(m.usage));
    responses.forEach((m, t) => {
      const u = m.usage;
      const all = u.input_tokens + (u.cache_creation_input_tokens ?? 0) + (u.cache_read_input_tokens ?? 0);
      const want = all > 0 ? (u.cache_read_input_tokens ?? 0) / all : 0;
      rule(
        Math.abs(shares[t]! - want) < 1e-9,
        "cache-cost",
        () => `turn ${t + 1} reported input_tokens ${u.input_tokens}, cache writes ${u.cache_creation_input_tokens ?? 0}, cache reads ${u.cache_read_input_tokens ?? 0}: the cache served ${(want * 100).toFixed(1)}% of its input, and cacheReadShare says ${(shares[t]! * 100).toFixed(1)}%. The turn's input is all three added up.`,
      );
    });
    rule(shares[0] === 0, "cache-cost", () => `turn 1 reports ${(shares[0]! * 100).toFixed(0)}% of its input read from the cache, though nothing was cached yet: cacheReadShare is cache_read_input_tokens over the turn's whole input.`);
    for (let t = 2; t < shares.length; t++)
      expect(shares[t]!, `[cache-placement] turn ${t + 1} read ${(shares[t]! * 100).toFixed(0)}% from the cache, turn ${t} ${(shares[t - 1]! * 100).toFixed(0)}%: each turn should read what the last one wrote`).toBeGreaterThanOrEqual(shares[t - 1]! - 0.01);
    rule(
      shares.at(-1)! > 0.85,
      "cache-placement",
      () => `after ${shares.length} turns the last one read only ${(shares.at(-1)! * 100).toFixed(0)}% of its input from the cache: put the moving marker on the newest message's last block every turn (on a copy), so each turn reads what the one before wrote.`,
    );
  });

  it("the budget counts the cache tokens: cached turns report input_tokens of almost nothing", async () => {
    const { registry, scenario } = longSession(30);
    const llm = scripted({ scenario });
    const history: Anthropic.MessageParam[] = [{ role: "user", content: "Read every chunk." }];
    const { outcome, responses } = await runLoop(llm, history, { registry, guards: { tokenBudget: 8_000, maxRepeats: 100 } });
    rule(outcome.status === "stopped" && outcome.reason === "token_budget", "guard-budget", () => `a budget of 8 000 tokens is spent long before 30 turns of 500 tokens each once cache reads and writes count, and the run ended ${show(outcome.status === "stopped" ? outcome.reason : outcome.status)}: the budget (s06's guard, through this loop) counts cache tokens too.`);
    const fresh = responses.reduce((n, m) => n + m.usage.input_tokens + m.usage.output_tokens, 0);
    expect(fresh, "[guard-budget] (a check of this test itself, not of your loop) without cache tokens the budget would never be reached").toBeLessThan(8_000);
  });
});

// The net under the rules: this lesson beside the reference, on its own task and on generated
// model answers (tests/differential/net.ts).
import { differentialNet } from "./differential/net.ts";
differentialNet("s13");
