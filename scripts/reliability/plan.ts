/**
 * Generated model behaviour and generated tool outcomes, for the property-based tests.
 *
 * A `Plan` is what the scripted model will answer, turn by turn: any mix of text, thinking, one
 * or many tool calls (known tools, unknown tools, inputs that break the schema), an explicit
 * stop_reason, empty content, the same turn repeated. The tools the loop is given are named by
 * what they do (`fz_ok`, `fz_throw`, `fz_hang`, …), so a shrunk counterexample reads as a story:
 *
 *   turn 1: text · fz_throw({n:1}) · nope_tool({n:2})   stop=tool_use
 *   turn 2: (empty)                                      stop=end_turn
 *
 * Which behaviours a lesson is fuzzed with depends on what that lesson claims (see lessons.ts):
 * the arbitrary is built from the claims, so a shrunk counterexample is always in scope.
 */
import fc from "fast-check";
import type { Fault, Reply, ReplyBlock, Scenario } from "../../runtime/scripted/types.ts";

/** What a generated tool does when called. */
export type ToolKind = "ok" | "write" | "throw" | "hang" | "huge" | "binary" | "empty";

export const TOOL_NAMES: Record<ToolKind, string> = {
  ok: "fz_ok",
  write: "fz_write",
  throw: "fz_throw",
  hang: "fz_hang",
  huge: "fz_huge",
  binary: "fz_binary",
  empty: "fz_empty",
};
export const UNKNOWN_TOOLS = ["nope_tool", "fz_missing"];

/** The stop_reason a turn ends with. "natural" lets the model pick (tool_use when it calls, else end_turn). */
export const STOPS = [
  "natural",
  "end_turn",
  "max_tokens",
  "stop_sequence",
  "pause_turn",
  "refusal",
  "model_context_window_exceeded",
  "weird_new_reason",
] as const;
export type Stop = (typeof STOPS)[number];

export type InputShape = "valid" | "missing" | "wrong_type" | "extra_field" | "null_field";

export interface PlannedCall {
  /** A generated tool's name, an unknown name, or "bash" (lesson s01). */
  tool: string;
  input: InputShape;
  /** For bash: the command. */
  command?: string;
}
/**
 * A block of a planned turn. A call with `twin` asks for the turn's previous call again, the same
 * tool with the same input (the model may do that: each tool_use is its own call and gets its own
 * result); the first call of a turn is never a twin.
 */
export type PlannedBlock = { type: "text"; text: string } | { type: "thinking"; thinking: string } | { type: "call"; call: PlannedCall; twin?: boolean };
export interface PlannedTurn {
  blocks: PlannedBlock[];
  stop: Stop;
}
/**
 * A fault of the API before a turn's answer comes (the scripted model's FaultPlan): a 429 the
 * SDK retries, a 529 it retries (both with retry-after: 1 ms, so a run does not wait out the
 * SDK's half-second backoff), three 429s in a row
 * (more than the SDK's two retries: it gives up, and the loop gets the error), or, for a loop
 * that streams, the connection cut in the middle of the answer.
 */
export type PlannedFault = "rate_limit" | "overloaded" | "gave_up" | "stream_cut";
export interface Plan {
  turns: PlannedTurn[];
  /** Faults before the answer of turn `turn` (0-based), in order. */
  faults?: Array<{ turn: number; fault: PlannedFault }>;
}

/** What the fuzzer may generate for one lesson (derived from the lesson's claims). */
export interface PlanSpace {
  /** Tools the loop is given (by kind); "bash" alone for s01. */
  toolKinds: ToolKind[];
  /** s01: the only tool is bash, called with these commands. */
  bashCommands?: string[];
  unknownTools: boolean;
  badInputs: boolean;
  /** Stop reasons other than natural on a turn that calls tools (a cut-off or odd tool_use). */
  oddStopsWithCalls: boolean;
  /** Stop reasons other than natural on a turn without tool calls. */
  oddStops: boolean;
  /** A turn with no content at all. */
  emptyContent: boolean;
  maxTurns: number;
  maxCalls: number;
  /** API faults before some answers (429, 529, a 429 the SDK gives up on). */
  faults?: boolean;
  /** A stream cut in the middle of an answer (loops that stream). */
  streamFaults?: boolean;
  /**
   * At most this many calls whose output is huge (fz_huge, s01's HUGE_BASH_COMMAND) in a plan:
   * the plans of a lesson that does not compact a full context (before s11) stay within the
   * context window, since a request past it gets the API's 400 "prompt is too long", which the
   * lesson does not claim to handle. Unset: no limit (a lesson that compacts is fuzzed past it).
   */
  maxHugeResults?: number;
}

const words = fc.constantFrom("Looking.", "Let me check.", "Done here.", "I will call a tool.", "Hmm.", "Reading the result.", "多语言 текст ✓");

function blockArb(space: PlanSpace): fc.Arbitrary<PlannedBlock> {
  const tools = [
    ...(space.bashCommands ? ["bash"] : space.toolKinds.map((k) => TOOL_NAMES[k])),
    ...(space.unknownTools ? UNKNOWN_TOOLS : []),
  ];
  const inputs: InputShape[] = space.badInputs ? ["valid", "valid", "missing", "wrong_type", "extra_field", "null_field"] : ["valid"];
  const callArb: fc.Arbitrary<PlannedCall> = fc
    .record({
      tool: fc.constantFrom(...tools),
      input: fc.constantFrom(...inputs),
      command: space.bashCommands ? fc.constantFrom(...space.bashCommands) : fc.constant(undefined),
    })
    .map((c) => (c.command === undefined ? { tool: c.tool, input: c.input } : c));
  return fc.oneof(
    { weight: 2, arbitrary: words.map((text): PlannedBlock => ({ type: "text", text })) },
    { weight: 1, arbitrary: words.map((thinking): PlannedBlock => ({ type: "thinking", thinking })) },
    { weight: 3, arbitrary: callArb.map((call): PlannedBlock => ({ type: "call", call })) },
    { weight: 1, arbitrary: callArb.map((call): PlannedBlock => ({ type: "call", call, twin: true })) },
  );
}

function turnArb(space: PlanSpace): fc.Arbitrary<PlannedTurn> {
  const blocks = fc
    .array(blockArb(space), { minLength: space.emptyContent ? 0 : 1, maxLength: space.maxCalls + 2 })
    // Thinking comes first in a real response; calls past maxCalls are dropped (a map, not a
    // filter, so fast-check can still shrink).
    .map((bs) => {
      let calls = 0;
      const kept = bs
        .filter((b) => b.type !== "call" || ++calls <= space.maxCalls)
        // A twin needs a call before it in the turn.
        .map((b, i, all) => (b.type === "call" && b.twin && !all.slice(0, i).some((x) => x.type === "call") ? { type: "call" as const, call: b.call } : b));
      return [...kept.filter((b) => b.type === "thinking"), ...kept.filter((b) => b.type !== "thinking")];
    });
  return fc
    .record({ blocks, stop: fc.constantFrom(...STOPS) })
    .map((t) => {
      const calls = t.blocks.some((b) => b.type === "call");
      // The API never ends a turn that calls client tools with end_turn or pause_turn (pause_turn
      // is for its own server tools): those pairs are not generated.
      if (calls && (!space.oddStopsWithCalls || t.stop === "pause_turn" || t.stop === "end_turn")) return { ...t, stop: "natural" as Stop };
      if (!calls && !space.oddStops) return { ...t, stop: "natural" as Stop };
      return t;
    });
}

/** The API's faults before some answers, from what the space allows (none for most plans). */
function faultsArb(space: PlanSpace): fc.Arbitrary<NonNullable<Plan["faults"]>> {
  const kinds: PlannedFault[] = [...(space.faults ? (["rate_limit", "overloaded", "gave_up"] as const) : []), ...(space.streamFaults ? (["stream_cut"] as const) : [])];
  const none = fc.constant<NonNullable<Plan["faults"]>>([]);
  if (kinds.length === 0) return none;
  // Most plans have none: a fault is the exception.
  return fc.oneof(
    { weight: 3, arbitrary: none },
    { weight: 1, arbitrary: fc.array(fc.record({ turn: fc.nat({ max: space.maxTurns - 1 }), fault: fc.constantFrom(...kinds) }), { minLength: 1, maxLength: 2 }) },
  );
}

/** A plan: some turns, one of them possibly repeated (the same calls again and again), and maybe faults. */
export function planArb(space: PlanSpace): fc.Arbitrary<Plan> {
  return fc
    .record({
      turns: fc.array(turnArb(space), { minLength: 1, maxLength: space.maxTurns }),
      repeat: fc.nat({ max: 3 }),
      faults: faultsArb(space),
    })
    .map(({ turns, repeat, faults }) => {
      const all = repeat > 0 ? [...turns, ...Array.from({ length: repeat }, () => turns[turns.length - 1]!)] : turns;
      // subtle: the answer after a pause_turn continues the paused turn (s05 appends it there; a
      // max_tokens retry in between does not change that). Whether the API accepts a thinking
      // block in the middle of that continued turn is not known (the scripted model refuses it),
      // so once a turn has paused, no later turn carries thinking.
      const paused = all.findIndex((t) => t.stop === "pause_turn");
      const fixed = all.map((t, i) => (paused >= 0 && i > paused ? { ...t, blocks: t.blocks.filter((b) => b.type !== "thinking") } : t));
      const capped = space.maxHugeResults === undefined ? fixed : capHugeResults(fixed, space.maxHugeResults);
      const kept = faults.filter((f) => f.turn < capped.length).sort((a, b) => a.turn - b.turn);
      return withDescription(kept.length > 0 ? { turns: capped, faults: kept } : { turns: capped });
    });
}

/** Is this call's output huge? */
export const isHugeCall = (c: PlannedCall) => c.tool === TOOL_NAMES.huge || (c.tool === "bash" && c.command === HUGE_BASH_COMMAND);

/**
 * Keeps at most `max` huge calls in a plan, counting a twin as the call it repeats: a huge call
 * that would go past it (with its twins) becomes the small one (fz_ok, or `echo hello` for bash),
 * same input shape. A map of the generated plan, so fast-check still shrinks it.
 */
export function capHugeResults(turns: PlannedTurn[], max: number): PlannedTurn[] {
  let used = 0;
  return turns.map((t) => {
    const blocks = t.blocks.map((b, i): PlannedBlock => {
      if (b.type !== "call" || b.twin || !isHugeCall(b.call)) return b;
      // The twins that repeat this call: the ones after it, up to the turn's next call of its own.
      const next = t.blocks.findIndex((x, j) => j > i && x.type === "call" && !x.twin);
      const twins = t.blocks.slice(i + 1, next < 0 ? undefined : next).filter((x) => x.type === "call" && x.twin).length;
      if (used + 1 + twins <= max) {
        used += 1 + twins;
        return b;
      }
      const small: PlannedCall = b.call.tool === "bash" ? { ...b.call, command: "echo hello" } : { ...b.call, tool: TOOL_NAMES.ok };
      return { type: "call", call: small };
    });
    return { ...t, blocks };
  });
}

/** fast-check prints counterexamples with this, so a shrunk plan reads as turns. */
export function withDescription(plan: Plan): Plan {
  Object.defineProperty(plan, fc.toStringMethod, { value: () => describePlan(plan), enumerable: false });
  return plan;
}

export function describeCall(c: PlannedCall, n: number): string {
  if (c.tool === "bash") return c.input === "valid" ? `bash(${JSON.stringify(c.command)})` : `bash(<${c.input}>)`;
  return c.input === "valid" ? `${c.tool}({n:${n}})` : `${c.tool}(<${c.input}>)`;
}

export function describePlan(plan: Plan): string {
  return (
    "\n" +
    plan.turns
      .map((t, i) => {
        let n = 0;
        const body =
          t.blocks.length === 0
            ? "(empty content)"
            : t.blocks
                .map((b) => {
                  if (b.type !== "call") return b.type;
                  // A twin repeats the previous call: its tool, its input, its number.
                  if (b.twin && n > 0) return `${describeTwin(t.blocks, b, i)} (the same call again)`;
                  return describeCall(b.call, callNumber(i, n++));
                })
                .join(" · ");
        const faults = (plan.faults ?? []).filter((f) => f.turn === i).map((f) => FAULT_WORDS[f.fault]);
        return `${faults.map((f) => `  before turn ${i + 1}: ${f}\n`).join("")}  turn ${i + 1}: ${body}   stop=${t.stop === "natural" ? "(natural)" : t.stop}`;
      })
      .join("\n") +
    `\n  then: text   stop=end_turn\n`
  );
}

const FAULT_WORDS: Record<PlannedFault, string> = {
  rate_limit: "429 rate_limit_error (retry-after 1 ms; the SDK retries)",
  overloaded: "529 overloaded_error (retry-after 1 ms; the SDK retries)",
  gave_up: "429 three times (the SDK retries twice, then gives up: the loop gets the error)",
  stream_cut: "the answer's stream is cut after 3 events",
};

/**
 * The scripted model's faults for a plan, by request: each turn's faults take a request each
 * (the SDK's retries are requests too), then the request that gets the turn's answer. A stream
 * cut is that request's own fault: its answer is cut (so the plan's turn is used up).
 */
export function planFaults(plan: Plan): Array<Fault | null> {
  const out: Array<Fault | null> = [];
  for (let turn = 0; turn < plan.turns.length; turn++) {
    for (const { fault } of (plan.faults ?? []).filter((f) => f.turn === turn)) {
      if (fault === "rate_limit") out.push({ kind: "rate_limit", retryAfterSeconds: 0.001 });
      else if (fault === "overloaded") out.push({ kind: "overloaded", retryAfterSeconds: 0.001 });
      else if (fault === "gave_up") out.push(...Array.from({ length: 3 }, (): Fault => ({ kind: "rate_limit", retryAfterSeconds: 0.001 })));
      else out.push({ kind: "stream_cut", afterEvents: 3 });
    }
    out.push(null);
  }
  return out;
}

/** The call a twin repeats, as describePlan shows it. */
function describeTwin(blocks: PlannedBlock[], twin: PlannedBlock, turn: number): string {
  const before = blocks.slice(0, blocks.indexOf(twin));
  let n = 0;
  let last: { call: PlannedCall; n: number } | undefined;
  for (const b of before) if (b.type === "call" && !(b.twin && n > 0)) last = { call: b.call, n: n++ };
  return last ? describeCall(last.call, callNumber(turn, last.n)) : "?";
}

/** A unique number per call (turn, position), so the harness can tell which calls ran (a twin shares its original's). */
export const callNumber = (turn: number, position: number) => turn * 100 + position + 1;

/** The tool input a planned call sends. `n` identifies the call. */
export function inputFor(c: PlannedCall, n: number): Record<string, unknown> {
  if (c.tool === "bash") {
    switch (c.input) {
      case "valid":
        return { command: c.command ?? "true" };
      case "missing":
        return {};
      case "wrong_type":
        return { command: 42 };
      case "extra_field":
        return { command: c.command ?? "true", extra: true };
      case "null_field":
        return { command: null };
    }
  }
  switch (c.input) {
    case "valid":
      return { n };
    case "missing":
      return {};
    case "wrong_type":
      return { n: "not a number" };
    case "extra_field":
      return { n, extra: "field" };
    case "null_field":
      return { n: null };
  }
}

/** Turns a plan into the scripted model's scenario. Past the plan, the model answers with text. */
export function planScenario(plan: Plan): Scenario {
  let index = 0;
  return {
    id: "fuzz-plan",
    title: "generated model behaviour",
    reply(): Reply {
      const turnIndex = index++;
      const turn = plan.turns[turnIndex];
      if (!turn) return { content: [{ type: "text", text: "All done." }], stop_reason: "end_turn" };
      let position = 0;
      let previous: ReplyBlock | undefined;
      const content: ReplyBlock[] = turn.blocks.map((b) => {
        if (b.type === "text") return { type: "text", text: b.text };
        if (b.type === "thinking") return { type: "thinking", thinking: b.thinking };
        if (b.twin && previous?.type === "tool_use") return { type: "tool_use", name: previous.name, input: structuredClone(previous.input) };
        previous = { type: "tool_use", name: b.call.tool, input: inputFor(b.call, callNumber(turnIndex, position++)) };
        return previous;
      });
      const reply: Reply = { content };
      if (turn.stop !== "natural") reply.stop_reason = turn.stop;
      if (turn.stop === "stop_sequence") reply.stop_sequence = "###";
      if (turn.stop === "refusal") reply.stop_details = { type: "refusal", category: null, explanation: "generated refusal" };
      return reply;
    },
  };
}

/** Does the plan's turn (0-based) end with a stop_reason other than tool_use while calling tools? */
export function cutOffTurns(plan: Plan): Set<number> {
  const cut = new Set<number>();
  plan.turns.forEach((t, i) => {
    if (t.stop !== "natural" && t.stop !== "pause_turn" && t.blocks.some((b) => b.type === "call")) cut.add(i);
  });
  return cut;
}

/** The output of a generated tool. Huge and binary outputs are the same each time (deterministic). */
export const HUGE_OUTPUT_CHARS = 60_000;
/** s01's command with a huge output (HUGE_OUTPUT_CHARS of "x"). */
export const HUGE_BASH_COMMAND = `head -c ${HUGE_OUTPUT_CHARS} /dev/zero | tr '\\0' x`;
/**
 * The estimated tokens of one huge output (the scripted model counts 4 characters a token), and
 * how many fit in a plan with room to spare: 8 × 15 000 = 120 000 of the 200 000-token window,
 * the rest of a plan (at most 7 turns of short text, small outputs and calls) being far less.
 */
export const HUGE_OUTPUT_TOKENS = Math.ceil(HUGE_OUTPUT_CHARS / 4);
export const HUGE_RESULTS_WITHIN_WINDOW = 8;
export function binaryOutput(): string {
  let s = "";
  for (let i = 0; i < 512; i++) s += String.fromCharCode((i * 131 + 7) % 256);
  return `${s}\u0000\ufffd\ud800 end`;
}
