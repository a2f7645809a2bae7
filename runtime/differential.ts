/**
 * The differential net: what a run of a loop did that matters, and the first place where two runs
 * (the learner's and the reference's, on the same model answers) differ, in a learner's words.
 *
 * A run is recorded as a `RunRecord` (every request it sent, the history it left, how it ended,
 * the tool calls with effects it ran and those still running when it returned) and reduced to a
 * projection that leaves out what a correct loop may do differently:
 *
 *   - tool_use ids: the scripted model derives them from the request, so two loops that word a
 *     note differently see different ids; each id is replaced by its place of first appearance
 *     (the verdict shows your own ids);
 *   - free text the loop writes itself: a user message's text (a note, a "continue" prompt) is
 *     compared by presence only, and text beside tool_result blocks is left out;
 *   - the order of the tool_result blocks in one user message (the API takes any order);
 *   - an error result's wording (only that it is is_error and says something); a result the
 *     reference marks is_error must be is_error in yours; one you mark is_error where the
 *     reference did not is left to the rule tests (a command that exits non-zero may be either);
 *   - a result's text may carry more than the reference's (a header, an exit code): one must
 *     contain the other;
 *   - how the content is shaped (a string or text blocks), the system prompt's words (only
 *     whether there is one, and whether it is the same as with the first request, where the
 *     reference's is), max_tokens and stream flag, and timing.
 *
 * The model's own text and thinking are compared by place, not by wording: a model may quote what
 * the loop told it (an error's words), and whether they are sent back verbatim is a rule of its own
 * (not-verbatim), tested by every lesson.
 *
 * Requests of conversations that run at the same time (s25's children) come in an order of their
 * own each run: two runs whose requests differ only in how those interleave are compared
 * conversation by conversation (`conversations`), each in its order.
 *
 * What it keeps: every request, message by message and block by block (each tool_use's name and
 * input), the tools offered, the number of requests, how the run ended, the events (s09 on: each
 * one's type, turn and figures), the calls with effects, calls left running. tests/differential/net.ts drives the runs; this file is pure.
 */
import type { RuleId } from "./rules.ts";
import { blocksIn, textIn } from "./testing.ts";

type Message = { role: string; content: unknown };

export interface RunRecord {
  /** The body of every request the loop sent, in order. */
  requests: readonly unknown[];
  /** The history the loop left (what the next request would start from). */
  history: readonly Message[];
  /** How the run ended: its result in a few words (an outcome's status and reason, a stop_reason), or what it threw. */
  end: { kind: "returned"; result: string } | { kind: "threw"; error: string };
  /** Tool calls with effects that ran (a label each, e.g. "fz_write n=3"), in any order. */
  effects?: readonly string[];
  /** Tool calls still running when the loop returned. */
  stillRunning?: readonly string[];
  /** The events the loop emitted (s09's think / act / observe / stop), in order. */
  events?: readonly unknown[];
}

export interface Difference {
  rule: RuleId;
  message: string;
}

// ── the projection ──────────────────────────────────────────────────────────────────────────

/** One block as the net compares it, and how it is shown (with the run's own ids). */
interface PBlock {
  kind: "text" | "thinking" | "tool_use" | "tool_result" | "other";
  /** What must be equal (ids by place). For a tool_result: its id by place only. */
  key: string;
  show: string;
  /** tool_result only. */
  isError?: boolean;
  text?: string;
  id?: string;
  /** tool_result only: the place of the call it answers. */
  order?: number;
}

interface PMessage {
  role: string;
  blocks: PBlock[];
}

const stable = (v: unknown): string =>
  JSON.stringify(v, (_k, x: unknown) =>
    x && typeof x === "object" && !Array.isArray(x) ? Object.fromEntries(Object.entries(x as Record<string, unknown>).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) : x,
  ) ?? "undefined";

const clip = (s: string, n = 60) => (s.length > n ? `${s.slice(0, n - 1)}…` : s);
const squash = (s: string) => s.replace(/\s+/g, " ").trim();

/** A list of messages, projected: ids by place of first appearance, the loop's own free text by presence. */
export function project(messages: readonly Message[]): PMessage[] {
  const place = new Map<string, string>();
  const idOf = (id: unknown) => {
    const s = String(id);
    if (!place.has(s)) place.set(s, `#${place.size + 1}`);
    return place.get(s)!;
  };
  // Ids are numbered in the order the assistant turns asked for them.
  for (const m of messages) if (m.role === "assistant") for (const b of blocksIn(m.content)) if (b.type === "tool_use") idOf(b.id);
  return messages.map((m) => {
    const blocks = blocksIn(m.content);
    if (m.role === "assistant")
      return {
        role: m.role,
        blocks: blocks.map((b): PBlock => {
          // The model's words may quote the loop's own (an error text): kept verbatim is the rule tests' to check.
          if (b.type === "text") return { kind: "text", key: "text", show: `text ${JSON.stringify(clip(String(b.text), 30))}` };
          if (b.type === "thinking") return { kind: "thinking", key: "thinking", show: "thinking" };
          if (b.type === "tool_use")
            return { kind: "tool_use", key: `tool_use ${idOf(b.id)} ${String(b.name)} ${stable(b.input)}`, show: `tool_use ${String(b.id)} (${String(b.name)} ${clip(stable(b.input), 40)})`, id: String(b.id) };
          return { kind: "other", key: stable(b), show: b.type };
        }),
      };
    const results = blocks.filter((b) => b.type === "tool_result");
    if (results.length === 0) {
      // A message of the loop's own words (the task, a note, "continue"): its presence, and anything not text.
      const kept = blocks.map((b): PBlock => (b.type === "text" ? { kind: "text", key: "text", show: "text" } : { kind: "other", key: stable(b), show: b.type }));
      const merged = kept.filter((b, i) => b.kind !== "text" || kept[i - 1]?.kind !== "text");
      return { role: m.role, blocks: merged };
    }
    const projected = results.map((b): PBlock => {
      const id = idOf(b.tool_use_id);
      const isError = b.is_error === true;
      return {
        kind: "tool_result",
        key: `tool_result ${id}`,
        show: `tool_result for ${String(b.tool_use_id)}${isError ? " (is_error)" : ""}`,
        isError,
        text: textIn(b.content),
        id: String(b.tool_use_id),
        order: Number(id.slice(1)),
      };
    });
    // Any order of results is valid: compared in the order of the calls they answer.
    projected.sort((a, b) => a.order! - b.order!);
    const other = blocks.filter((b) => b.type !== "tool_result" && b.type !== "text").map((b): PBlock => ({ kind: "other", key: stable(b), show: b.type }));
    return { role: m.role, blocks: [...projected, ...other] };
  });
}

const messagesOf = (request: unknown): Message[] => {
  const m = (request as { messages?: unknown } | undefined)?.messages;
  return Array.isArray(m) ? (m as Message[]) : [];
};
/** The system prompt's text (cache markers aside), or null when the request has none. */
const systemOf = (request: unknown): string | null => {
  const sys = (request as { system?: unknown } | undefined)?.system;
  if (sys === undefined || sys === null) return null;
  return typeof sys === "string" ? sys : textIn(sys);
};
const toolsOf = (request: unknown): string[] => {
  const t = (request as { tools?: unknown } | undefined)?.tools;
  return Array.isArray(t) ? t.map((x) => String((x as { name?: unknown }).name)).sort() : [];
};

// ── the comparison ──────────────────────────────────────────────────────────────────────────

const list = (bs: readonly PBlock[]) => (bs.length === 0 ? "nothing" : `[${bs.map((b) => b.show).join(" · ")}]`);
const count = (bs: readonly PBlock[], kind: PBlock["kind"]) => bs.filter((b) => b.kind === kind).length;
const a = (role: string) => (/^[aeiou]/.test(role) ? `an ${role}` : `a ${role}`);
const number = (n: number) => ["no", "one", "two", "three", "four", "five"][n] ?? String(n);

/** Two blocks' contents that differ, shown from a little before the first character where they part. */
function contentDifference(ref: string, yours: string): string {
  let i = 0;
  while (i < ref.length && i < yours.length && ref[i] === yours[i]) i++;
  const from = Math.max(0, i - 20);
  const part = (s: string) => JSON.stringify(`${from > 0 ? "…" : ""}${clip(s.slice(from), 70)}`);
  return `the reference's says ${part(ref)}, yours says ${part(yours)}`;
}

/** Why two results for the same call differ, or null when yours may stand for the reference's. */
function resultDiffers(ref: PBlock, yours: PBlock): string | null {
  if (ref.isError && !yours.isError)
    return `the reference answered ${yours.id} with is_error: true (${JSON.stringify(clip(squash(ref.text ?? ""), 70))}), yours without is_error (${JSON.stringify(clip(squash(yours.text ?? ""), 70))}): a call that failed is told to the model as an error result`;
  if (ref.isError || yours.isError) return null; // the wording of an error is the loop's own
  const r = squash(ref.text ?? "");
  const y = squash(yours.text ?? "");
  // A long output may be capped differently: its beginning must agree.
  const head = (s: string) => s.slice(0, 200);
  if (r.includes(y) && y.length > 0 || y.includes(r) || head(y).includes(head(r)) || head(r).includes(head(y)) && y.length > 0) return null;
  return `the reference's result for ${yours.id} says ${JSON.stringify(clip(r, 80))}, yours says ${JSON.stringify(clip(y, 80))}: a tool_result carries what the tool returned for that very call`;
}

/** The first difference between two projected message lists, in words (`where` names the request). */
function firstMessageDifference(where: string, ref: PMessage[], yours: PMessage[]): string | null {
  const n = Math.max(ref.length, yours.length);
  for (let i = 0; i < n; i++) {
    const r = ref[i];
    const y = yours[i];
    if (!r) return `${where}, messages[${i}]: yours has ${a(y!.role)} message ${list(y!.blocks)} the reference does not have (it has ${ref.length} messages)`;
    if (!y) return `${where}, messages[${i}]: the reference has ${a(r.role)} message ${list(r.blocks)} here; yours ends after ${yours.length} message(s)`;
    if (r.role !== y.role) return `${where}, messages[${i}]: the reference has ${a(r.role)} message ${list(r.blocks)}, yours ${a(y.role)} message ${list(y.blocks)}`;
    const at = `${where}, messages[${i}] (${r.role})`;
    for (const kind of ["tool_result", "tool_use"] as const) {
      const a = count(r.blocks, kind);
      const b = count(y.blocks, kind);
      if (a !== b) return `${at}: the reference sent ${number(a)} ${kind} block${a === 1 ? "" : "s"} ${list(r.blocks.filter((x) => x.kind === kind))}, yours sent ${number(b)} ${list(y.blocks.filter((x) => x.kind === kind))}`;
    }
    if (r.blocks.length !== y.blocks.length || r.blocks.some((b, j) => b.key !== y.blocks[j]!.key)) {
      // The same kinds of block in the same places: name the first block whose content differs, and how.
      const j = r.blocks.length === y.blocks.length && list(r.blocks) === list(y.blocks) ? r.blocks.findIndex((b, k) => b.key !== y.blocks[k]!.key) : -1;
      if (j >= 0) return `${at}, block ${j} (${r.blocks[j]!.show}): ${contentDifference(r.blocks[j]!.key, y.blocks[j]!.key)}`;
      return `${at}: the reference sent ${list(r.blocks)}, yours sent ${list(y.blocks)}`;
    }
    for (const [j, b] of r.blocks.entries()) {
      if (b.kind !== "tool_result") continue;
      const why = resultDiffers(b, y.blocks[j]!);
      if (why) return `${at}: ${why}`;
    }
  }
  return null;
}

/** The first request of a record whose body `describe` shows (the last message's blocks). */
const lastMessage = (request: unknown) => {
  const ms = project(messagesOf(request));
  const last = ms[ms.length - 1];
  return last ? `ends with a ${last.role} message ${list(last.blocks)}` : "has no messages";
};

// ── events ──────────────────────────────────────────────────────────────────────────────────

type Event = { type?: unknown; turn?: unknown; usage?: unknown; totals?: unknown; outcome?: { status?: unknown; reason?: unknown }; call?: { id?: unknown; name?: unknown }; result?: { is_error?: unknown }; message?: { stop_reason?: unknown } };

/**
 * A usage or totals record as the net compares it: the model's output tokens exactly (what the
 * model wrote is the same for both loops); the input, cache and cost figures only as there (+) or
 * not, since they grow with the words the loop itself sends (its notes, its refusals: s18's
 * alternative words its denials its own way, and its cache write is 3 tokens longer). A usage
 * counted twice or passed on as a running total still shows, in the output tokens.
 */
function figures(u: unknown): string {
  if (!u || typeof u !== "object" || Array.isArray(u)) return stable(u);
  return stable(Object.fromEntries(Object.entries(u).map(([k, v]) => [k, typeof v === "number" && !/output/i.test(k) ? (v > 0 ? "+" : v) : v])));
}

/**
 * Events as the net compares them: each event's type, turn and figures (a think's usage and the
 * response's stop_reason, a stop's outcome and totals, an act's or observe's tool and is_error),
 * call ids by place, times left out. Calls that run together may report in any order: the act and
 * observe events between two think events are compared as a set.
 */
export function projectEvents(events: readonly unknown[]): string[] {
  const place = new Map<string, number>();
  const idOf = (id: unknown) => {
    if (!place.has(String(id))) place.set(String(id), place.size + 1);
    return `#${place.get(String(id))}`;
  };
  const keys = (events as Event[]).map((e) => {
    const turn = `turn ${String(e.turn)}`;
    switch (e.type) {
      case "think":
        return `think (${turn}, stop_reason ${String(e.message?.stop_reason)}, usage ${figures(e.usage)})`;
      case "act":
        return `act (${turn}, ${String(e.call?.name)} ${idOf(e.call?.id)})`;
      case "observe":
        return `observe (${turn}, ${String(e.call?.name)} ${idOf(e.call?.id)}${e.result?.is_error === true ? ", is_error" : ""})`;
      case "stop":
        return `stop (${turn}, ${String(e.outcome?.status)}${e.outcome?.reason ? ` ${String(e.outcome.reason)}` : ""}, totals ${figures(e.totals)})`;
      default:
        return String(e.type);
    }
  });
  // Sort each run of act/observe events (concurrent calls), keeping every act before its observe.
  const out: string[] = [];
  for (let i = 0; i < keys.length; ) {
    if (!/^(act|observe) /.test(keys[i]!)) {
      out.push(keys[i++]!);
      continue;
    }
    let j = i;
    while (j < keys.length && /^(act|observe) /.test(keys[j]!)) j++;
    const run = keys.slice(i, j);
    out.push(...run.filter((k) => k.startsWith("act")).sort(), ...run.filter((k) => k.startsWith("observe")).sort());
    i = j;
  }
  return out;
}

/** One request beside the reference's: its messages, whether it has a system prompt and the same as `firsts`', its tools. */
function requestDifference(where: string, r: unknown, y: unknown, firsts: [unknown, unknown], firstWhere: string, threw: string): Difference | null {
  const diff = firstMessageDifference(where, project(messagesOf(r)), project(messagesOf(y)));
  if (diff) return { rule: "net-requests", message: diff + threw };
  // The system prompt's words are the loop's own; whether it is sent, and sent whole with every
  // request as it was with the first, is not.
  const rs = systemOf(r);
  const ys = systemOf(y);
  if ((rs === null) !== (ys === null))
    return { rule: "net-requests", message: `${where}: the reference sent ${rs === null ? "no system prompt" : "a system prompt"}, yours ${ys === null ? "none" : "one"}` };
  const rSame = rs === systemOf(firsts[0]);
  const ySame = ys === systemOf(firsts[1]);
  if (rSame !== ySame)
    return {
      rule: "net-requests",
      message: `${where}: the reference sent ${rSame ? `the same system prompt as with ${firstWhere}` : `a system prompt other than ${firstWhere}'s`}, yours ${ySame ? `the same as with ${firstWhere}` : `another (${ys!.length} characters, ${firstWhere}'s had ${systemOf(firsts[1])?.length ?? 0}): what goes into the prompt goes with every request, not only the first`}`,
    };
  const rt = toolsOf(r);
  const yt = toolsOf(y);
  if (rt.join() !== yt.join()) return { rule: "net-requests", message: `${where}: the reference offered the tools [${rt.join(", ")}], yours [${yt.join(", ")}]` };
  return null;
}

/** The requests of two runs, one beside the other in the order they were sent. */
function requestsDifference(ref: RunRecord, yours: RunRecord, threw: string): Difference | null {
  const n = Math.max(ref.requests.length, yours.requests.length);
  for (let i = 0; i < n; i++) {
    const r = ref.requests[i];
    const y = yours.requests[i];
    if (r === undefined)
      return {
        rule: ref.end.kind === yours.end.kind ? "net-requests" : "net-outcome",
        message: `the reference stopped after ${ref.requests.length} request(s) (${ref.end.kind === "returned" ? `returning ${ref.end.result}` : `throwing ${clip(ref.end.error, 120)}`}); yours sent request ${i + 1}, which ${lastMessage(y)}`,
      };
    if (y === undefined)
      return {
        rule: yours.end.kind === "threw" || ref.end.kind === "threw" ? "net-outcome" : "net-requests",
        message: `the reference sent request ${i + 1}, which ${lastMessage(r)}; yours stopped after ${yours.requests.length} request(s)${threw || (yours.end.kind === "returned" ? `, returning ${yours.end.result}` : "")}`,
      };
    const d = requestDifference(`request ${i + 1}`, r, y, [ref.requests[0], yours.requests[0]], "request 1", threw);
    if (d) return d;
  }
  return null;
}

/** A message as sent, cache markers aside (a loop moves them to the newest block each turn). */
const rawMessage = (m: unknown): string => JSON.stringify(m, (k, x: unknown) => (k === "cache_control" ? undefined : x)) ?? "";

/**
 * The requests of one run split into conversations: a request that carries the messages of an
 * earlier one, and more, goes on that request's conversation (the one that carries most of them);
 * any other starts a conversation of its own. Each conversation lists its requests in order.
 */
export function conversations(requests: readonly unknown[]): unknown[][] {
  const threads: { keys: string[]; requests: unknown[] }[] = [];
  for (const request of requests) {
    const keys = messagesOf(request).map(rawMessage);
    let best: (typeof threads)[number] | undefined;
    for (const t of threads)
      if (t.keys.length < keys.length && t.keys.every((k, i) => k === keys[i]) && (!best || t.keys.length > best.keys.length)) best = t;
    if (best) {
      best.keys = keys;
      best.requests.push(request);
    } else threads.push({ keys, requests: [request] });
  }
  return threads.map((t) => t.requests);
}

/**
 * Two runs' requests compared conversation by conversation, whatever the order in which requests
 * of different conversations came: each conversation of the reference's is paired with one of
 * yours that agrees with it request by request (each of yours used once). Undefined when the runs
 * do not hold the same number of conversations (two or more); null when every one pairs; else the
 * first difference in the first conversation of the reference's that none of yours agrees with,
 * beside yours that starts alike (the same first messages), or the first left.
 */
function conversationDifference(ref: readonly unknown[], yours: readonly unknown[], threw: string): Difference | null | undefined {
  const rc = conversations(ref);
  const yc = conversations(yours);
  if (rc.length < 2 || rc.length !== yc.length) return undefined;
  const agree = (r: unknown[], y: unknown[]) => y.length === r.length && r.every((q, k) => requestDifference("", q, y[k], [r[0], y[0]], "", "") === null);
  const free = [...yc];
  const unpaired = rc.filter((r) => {
    const i = free.findIndex((y) => agree(r, y));
    if (i >= 0) free.splice(i, 1);
    return i < 0;
  });
  const r = unpaired[0];
  if (!r) return null;
  const start = (c: unknown[]) => messagesOf(c[0]).map(rawMessage).join("\n");
  const y = free.find((c) => start(c) === start(r)) ?? free[0]!;
  const at = (all: readonly unknown[], q: unknown) => all.indexOf(q) + 1;
  const where = (k: number) => `request ${at(ref, r[k])}${at(yours, y[k]) !== at(ref, r[k]) ? ` (yours: request ${at(yours, y[k])})` : ""}`;
  const about = `the conversation that starts at request ${at(ref, r[0])}`;
  for (let k = 0; k < Math.max(r.length, y.length); k++) {
    if (r[k] === undefined) return { rule: "net-requests", message: `${about} (conversations that run at the same time are compared one by one): the reference sent ${r.length} request(s) in it; yours sent more, request ${at(yours, y[k])}, which ${lastMessage(y[k])}${threw}` };
    if (y[k] === undefined) return { rule: "net-requests", message: `${about} (conversations that run at the same time are compared one by one): the reference sent request ${at(ref, r[k])}, which ${lastMessage(r[k])}; yours sent ${y.length} request(s) in it${threw}` };
    const d = requestDifference(where(k), r[k], y[k], [r[0], y[0]], `request ${at(ref, r[0])}`, threw);
    if (d) return d;
  }
  // Each request agrees with its partner, yet the pairing failed (a conversation of yours that
  // agrees with this one was taken by another): the difference in order is the one to show.
  return undefined;
}

/**
 * The first difference between the reference's run and yours, or null when they agree on
 * everything the projection keeps. Requests come first (the earliest difference in time), then
 * the history left, how each run ended, the calls with effects, calls left running.
 */
export function compareRuns(ref: RunRecord, yours: RunRecord): Difference | null {
  const threw = yours.end.kind === "threw" ? ` (yours threw: ${clip(yours.end.error, 160)})` : "";
  // Conversations that run at the same time (two children at once) send their requests in an
  // order of their own each run: requests that differ in order only agree conversation by
  // conversation, and the difference shown is the first in order when they do not.
  const inOrder = requestsDifference(ref, yours, threw);
  if (inOrder) {
    const byConversation = conversationDifference(ref.requests, yours.requests, threw);
    if (byConversation !== null) return byConversation ?? inOrder;
  }
  const left = firstMessageDifference("the history your loop left", project(ref.history), project(yours.history));
  if (left) return { rule: "net-requests", message: left + threw };
  if (ref.end.kind !== yours.end.kind || (ref.end.kind === "returned" && yours.end.kind === "returned" && ref.end.result !== yours.end.result)) {
    const say = (e: RunRecord["end"]) => (e.kind === "returned" ? `returned ${e.result}` : `threw ${clip(e.error, 160)}`);
    return { rule: "net-outcome", message: `after the same ${ref.requests.length} request(s), the reference ${say(ref.end)}; yours ${say(yours.end)}` };
  }
  const rev = projectEvents(ref.events ?? []);
  const yev = projectEvents(yours.events ?? []);
  for (let i = 0; i < Math.max(rev.length, yev.length); i++)
    if (rev[i] !== yev[i])
      return {
        rule: "net-events",
        message: `event ${i + 1}: the reference emitted ${rev[i] ? clip(rev[i]!, 300) : "nothing more"}, yours ${yev[i] ? clip(yev[i]!, 300) : "nothing more"} (the events before it agree: ${rev.slice(Math.max(0, i - 3), i).map((k) => k.split(" (")[0]).join(", ") || "none"})`,
      };
  // As multisets: one call asked twice in a turn runs twice.
  const minus = (a: readonly string[], b: readonly string[]) => {
    const left = [...b];
    return a.filter((x) => {
      const i = left.indexOf(x);
      if (i < 0) return true;
      left.splice(i, 1);
      return false;
    });
  };
  const extra = minus(yours.effects ?? [], ref.effects ?? []);
  const missing = minus(ref.effects ?? [], yours.effects ?? []);
  if (extra.length > 0) return { rule: "net-effects", message: `yours ran ${extra.join(", ")}, which the reference did not run (or not that often): a call in a turn that did not end with tool_use, or one call run twice` };
  if (missing.length > 0) return { rule: "net-effects", message: `the reference ran ${missing.join(", ")}, which yours did not run (or not that often): each tool_use is its own call, even the same call asked twice in a turn` };
  const running = [...(yours.stillRunning ?? [])].filter((c) => !(ref.stillRunning ?? []).includes(c));
  if (running.length > 0) return { rule: "net-effects", message: `when yours returned, ${running.join(", ")} was still running: stop (abort) and await every call the loop started` };
  return null;
}
