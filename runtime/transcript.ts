/**
 * The transcript checker: the message-pairing rules every loop must keep, checked on a whole
 * conversation, each broken rule reported with the message index, the block, and what to do.
 *
 *   checkTranscript(messages, { responses })  → Violation[] (empty when all is well)
 *   assertTranscript(messages, { responses }) → throws TranscriptError listing them
 *
 * A transcript that passes can be sent to the API again: that is the property every lesson,
 * whatever way its loop stopped, must leave behind.
 */
import type Anthropic from "@anthropic-ai/sdk";

export type Rule =
  | "first-message-user"
  | "roles-alternate"
  | "empty-message"
  | "empty-text"
  | "wrong-role-block"
  | "unanswered-tool-use"
  | "results-split"
  | "results-first"
  | "orphan-result"
  | "duplicate-result"
  | "duplicate-tool-use-id"
  | "error-result-empty"
  | "not-verbatim"
  | "api-rejected";

export interface Violation {
  rule: Rule;
  /** Index in the messages array. */
  index: number;
  /** Index of the block in that message's content, when one block is at fault. */
  block?: number;
  message: string;
}

export interface CheckOptions {
  /**
   * The responses the model produced. Each assistant message that shares a tool_use id or a
   * text with one of them must carry that response's content unchanged (thinking included).
   */
  responses?: readonly Anthropic.Message[];
}

type Block = Anthropic.ContentBlockParam | Anthropic.ContentBlock;
type AnyMessage = Anthropic.MessageParam | { role: string; content: unknown };

function blocksOf(content: unknown): Block[] {
  if (typeof content === "string") return [{ type: "text", text: content }];
  // A hole in the array (undefined, null, a string) is reported once, by checkTranscript; the rules read the blocks.
  return Array.isArray(content) ? (content as unknown[]).filter(isBlock) : [];
}
const isBlock = (b: unknown): b is Block => typeof b === "object" && b !== null && typeof (b as { type?: unknown }).type === "string";
const isToolUse = (b: Block): b is Anthropic.ToolUseBlockParam => b.type === "tool_use";
const isResult = (b: Block): b is Anthropic.ToolResultBlockParam => b.type === "tool_result";

function callLabel(b: Anthropic.ToolUseBlockParam): string {
  return `${b.id} (${b.name})`;
}

export function checkTranscript(messages: readonly AnyMessage[], opts: CheckOptions = {}): Violation[] {
  const v: Violation[] = [];
  const add = (rule: Rule, index: number, message: string, block?: number) =>
    v.push(block === undefined ? { rule, index, message } : { rule, index, block, message });

  if (messages.length === 0) {
    add("empty-message", 0, "the transcript is empty: a conversation starts with one user message.");
    return v;
  }
  if (messages[0]!.role !== "user")
    add("first-message-user", 0, `messages[0] is from the ${messages[0]!.role}: a conversation must start with a user message.`);

  const idSeenAt = new Map<string, number>();
  messages.forEach((m, i) => {
    const blocks = blocksOf(m.content);
    const isLast = i === messages.length - 1;
    if (i > 0 && messages[i - 1]!.role === m.role)
      add(
        "roles-alternate",
        i,
        m.role === "user"
          ? `messages[${i - 1}] and messages[${i}] are both user messages: roles must alternate. Put all the tool results of one turn (and any text) in ONE user message.`
          : `messages[${i - 1}] and messages[${i}] are both assistant messages: roles must alternate. Append each response once, then the user's results.`,
      );
    const emptyContent = typeof m.content === "string" ? m.content.length === 0 : blocks.length === 0;
    if (emptyContent && !(isLast && m.role === "assistant"))
      add(
        "empty-message",
        i,
        m.role === "assistant"
          ? `messages[${i}] is an assistant message with no content: do not store an empty response (an end_turn may come back with content []).`
          : `messages[${i}] is a user message with no content: every message needs at least one block.`,
      );
    if (Array.isArray(m.content))
      (m.content as unknown[]).forEach((b, j) => {
        if (!isBlock(b))
          add(
            "api-rejected",
            i,
            `messages[${i}].content[${j}] is ${b === undefined ? "undefined" : show(b)}, not a block: every entry of content is an object with a type (a tool that answered nothing still needs its tool_result, with is_error: true if it failed).`,
            j,
          );
      });
    const extraKey = Object.keys(m).find((k) => k !== "role" && k !== "content");
    if (extraKey !== undefined)
      add(
        "api-rejected",
        i,
        m.role === "assistant" && "stop_reason" in m
          ? `messages[${i}] is the whole Message the API returned (it has \`${extraKey}\`, \`stop_reason\`, …): a message in the history is only { role, content }. Push { role: "assistant", content: response.content }.`
          : `messages[${i}] has a \`${extraKey}\` field: a message is only { role, content }, and the API refuses anything else.`,
      );
    blocks.forEach((b, j) => {
      if (isResult(b)) fieldProblems(b, `messages[${i}].content[${j}] (the tool_result for ${String(b.tool_use_id)})`).forEach((why) => add("api-rejected", i, why, j));
      if (b.type === "text" && (typeof b.text !== "string" || b.text.trim().length === 0))
        add("empty-text", i, `messages[${i}].content[${j}] is an empty text block: the API rejects empty text; leave the block out.`, j);
      if (m.role === "user" && (b.type === "tool_use" || b.type === "thinking"))
        add("wrong-role-block", i, `messages[${i}].content[${j}] is a ${b.type} block in a user message: it belongs to the assistant's turn.`, j);
      if (m.role === "assistant" && b.type === "tool_result")
        add("wrong-role-block", i, `messages[${i}].content[${j}] is a tool_result in an assistant message: results go in the next USER message.`, j);
      if (isToolUse(b)) {
        const prev = idSeenAt.get(b.id);
        if (prev !== undefined)
          add("duplicate-tool-use-id", i, `${b.id} is used by messages[${prev}] and messages[${i}]: tool_use ids must be unique.`, j);
        else idSeenAt.set(b.id, i);
      }
      if (isResult(b) && Array.isArray(b.content)) {
        const k = b.content.findIndex((c) => c.type === "text" && c.text.trim().length === 0);
        if (k >= 0)
          add(
            "empty-text",
            i,
            `messages[${i}].content[${j}] (the tool_result for ${b.tool_use_id}) has an empty text block at content[${k}]: the API rejects empty text; leave the block out or say "(no output)".`,
            j,
          );
      }
      if (isResult(b) && b.is_error === true) {
        const c = b.content;
        const empty = c === undefined || (typeof c === "string" ? c.trim().length === 0 : c.length === 0);
        if (empty)
          add("error-result-empty", i, `messages[${i}].content[${j}] is an error result (is_error: true) with no content: say what went wrong, so the model can act on it.`, j);
      }
    });
    if (m.role === "assistant") checkAnswered(messages, i, add);
    if (m.role === "user") checkResults(messages, i, add);
  });
  if (opts.responses) checkVerbatim(messages, opts.responses, add);
  return causeFirst(v);
}

/**
 * The cause before its symptom, within one message. An assistant message that is not the model's
 * response (a block rebuilt wrong, a delta put in the wrong block) may also hold an empty text
 * block: not-verbatim goes before empty-text and empty-message. Results sent in an assistant
 * message (or calls in a user one) also make two messages of one role in a row: wrong-role-block
 * goes before roles-alternate, whose fix (merging or reordering messages) would hide it.
 */
function causeFirst(v: Violation[]): Violation[] {
  const pairs: Array<[cause: Rule, symptoms: readonly Rule[]]> = [
    ["not-verbatim", ["empty-text", "empty-message"]],
    ["wrong-role-block", ["roles-alternate"]],
  ];
  let out = v;
  for (const [cause, symptoms] of pairs) {
    const symptom = (x: Violation) => symptoms.includes(x.rule);
    const moved = out.filter((x) => x.rule === cause && out.some((y) => y.index === x.index && symptom(y)));
    if (moved.length === 0) continue;
    const rest = out.filter((x) => !moved.includes(x));
    for (const x of moved) rest.splice(rest.findIndex((y) => y.index === x.index && symptom(y)), 0, x);
    out = rest;
  }
  return out;
}

const show = (v: unknown) => {
  const t = JSON.stringify(v) ?? String(v);
  return t.length > 60 ? `${t.slice(0, 59)}…` : t;
};

type Add = (rule: Rule, index: number, message: string, block?: number) => void;

/** The fields a tool_result may carry (ToolResultBlockParam), each of the type the API takes. */
const RESULT_KEYS = ["type", "tool_use_id", "content", "is_error", "cache_control", "toolset_name"];

/** What is wrong with a tool_result's fields, in words (the API refuses such a block); [] when nothing is. */
export function fieldProblems(b: Anthropic.ToolResultBlockParam, at: string): string[] {
  const r = b as unknown as Record<string, unknown>;
  const out: string[] = [];
  const extra = Object.keys(r).filter((k) => !RESULT_KEYS.includes(k));
  if (extra.length > 0)
    out.push(`${at} has ${extra.map((k) => `\`${k}\``).join(", ")}: a tool_result has only type, tool_use_id, content and is_error (the output goes in content).`);
  if (typeof r.tool_use_id !== "string") out.push(`${at}: tool_use_id is ${JSON.stringify(r.tool_use_id) ?? "missing"}; it must be the string id of the tool_use it answers (block.id).`);
  if (r.is_error !== undefined && typeof r.is_error !== "boolean")
    out.push(`${at}: is_error is ${JSON.stringify(r.is_error)} (${typeof r.is_error === "object" ? "an object" : `a ${typeof r.is_error}`}); the API takes only a boolean: is_error: true for a failure, or leave it out.`);
  const c = r.content;
  if (c !== undefined && typeof c !== "string" && !Array.isArray(c))
    out.push(`${at}: content is ${c === null ? "null" : typeof c === "object" ? "an object" : `a ${typeof c}`}; it must be a string or a list of blocks (turn an object into text with JSON.stringify).`);
  return out;
}

/** Every tool_use of messages[i] is answered at the start of messages[i + 1]. */
function checkAnswered(messages: readonly AnyMessage[], i: number, add: Add): void {
  const calls = blocksOf(messages[i]!.content).filter(isToolUse);
  if (calls.length === 0) return;
  const next = messages[i + 1];
  if (!next) {
    add(
      "unanswered-tool-use",
      i,
      `messages[${i}] asks for ${calls.map(callLabel).join(", ")} and nothing answers: the transcript ends waiting for tool results, so it cannot be sent again. Answer every tool_use (with is_error: true if it was not run) before you stop.`,
    );
    return;
  }
  const nextBlocks = blocksOf(next.content);
  const leading = new Set<string>();
  for (const b of nextBlocks) {
    if (!isResult(b)) break;
    leading.add(b.tool_use_id);
  }
  const anywhere = new Set(nextBlocks.filter(isResult).map((b) => b.tool_use_id));
  const missing = calls.filter((c) => !leading.has(c.id));
  if (missing.length === 0) return;
  const placedLate = missing.filter((c) => anywhere.has(c.id));
  if (placedLate.length > 0) {
    const firstText = nextBlocks.findIndex((b) => !isResult(b));
    add(
      "results-first",
      i + 1,
      `messages[${i + 1}].content[${firstText}] is a ${nextBlocks[firstText]?.type} block before the tool_result for ${placedLate.map((c) => c.id).join(", ")}: tool_result blocks must come first in the user message.`,
      firstText,
    );
  }
  const absent = missing.filter((c) => !anywhere.has(c.id));
  if (absent.length === 0) return;
  const ids = nextBlocks.filter(isResult).map((b) => b.tool_use_id);
  const twice = ids.find((id, n) => ids.indexOf(id) !== n);
  const laterAt = messages.findIndex((m, k) => k > i + 1 && blocksOf(m.content).some((b) => isResult(b) && absent.some((c) => c.id === b.tool_use_id)));
  if (laterAt >= 0)
    add(
      "results-split",
      i + 1,
      `messages[${i}] asks for ${absent.map(callLabel).join(", ")}, but messages[${i + 1}] does not answer ${absent.length > 1 ? "them" : "it"} (messages[${laterAt}] does, too late): all the results of one turn go in ONE user message, right after it.`,
    );
  else
    add(
      "unanswered-tool-use",
      i + 1,
      `messages[${i}] asks for ${absent.map(callLabel).join(", ")}, but messages[${i + 1}] has no tool_result for ${absent.length > 1 ? "them" : "it"}: every tool_use needs a tool_result with the same id in the very next user message.${twice ? ` (messages[${i + 1}] answers ${twice} more than once: take each result's id from its own call, block.id, not from a position.)` : ""}`,
    );
}

/** Every tool_result of messages[i] answers a tool_use of messages[i - 1], once. */
function checkResults(messages: readonly AnyMessage[], i: number, add: Add): void {
  const blocks = blocksOf(messages[i]!.content);
  const prev = i > 0 ? messages[i - 1] : undefined;
  const asked = new Set(prev && prev.role === "assistant" ? blocksOf(prev.content).filter(isToolUse).map((b) => b.id) : []);
  const seen = new Set<string>();
  blocks.forEach((b, j) => {
    if (!isResult(b)) return;
    if (!asked.has(b.tool_use_id))
      add(
        "orphan-result",
        i,
        i > 0
          ? `messages[${i}] answers ${b.tool_use_id}, which messages[${i - 1}] never asked for: a tool_result must answer a tool_use of the message right before it.`
          : `messages[${i}] answers ${b.tool_use_id}, but no assistant message came before it.`,
        j,
      );
    else if (seen.has(b.tool_use_id))
      add("duplicate-result", i, `messages[${i}] answers ${b.tool_use_id} twice: each tool_use gets exactly one tool_result.`, j);
    seen.add(b.tool_use_id);
  });
}

/** The fields that make a block what it is (the SDK adds nulls such as citations: null). */
function essence(b: Block): string {
  const r = b as unknown as Record<string, unknown>;
  switch (b.type) {
    case "text":
      return JSON.stringify(["text", r.text]);
    case "thinking":
      return JSON.stringify(["thinking", r.thinking, r.signature]);
    case "redacted_thinking":
      return JSON.stringify(["redacted_thinking", r.data]);
    case "tool_use":
      return JSON.stringify(["tool_use", r.id, r.name, sortKeys(r.input)]);
    default:
      return JSON.stringify(sortKeys(r));
  }
}

function sortKeys(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(sortKeys);
  if (v && typeof v === "object")
    return Object.fromEntries(Object.entries(v as Record<string, unknown>).sort(([a], [b]) => a.localeCompare(b)).map(([k, x]) => [k, sortKeys(x)]));
  return v;
}

function checkVerbatim(messages: readonly AnyMessage[], responses: readonly Anthropic.Message[], add: Add): void {
  messages.forEach((m, i) => {
    if (m.role !== "assistant") return;
    const blocks = blocksOf(m.content);
    const keys = new Set(blocks.map(essence));
    const ids = new Set(blocks.filter(isToolUse).map((b) => b.id));
    // A turn identical to one of the responses is verbatim (a text may repeat across turns), and
    // so is a paused turn with its continuation appended (pause_turn): responses laid end to end.
    if (responses.some((r) => r.content.length === blocks.length && r.content.every((b, n) => essence(b) === essence(blocks[n]!)))) return;
    if (isConcatenation(blocks, responses)) return;
    const source =
      responses.find((r) => r.content.some((b) => b.type === "tool_use" && ids.has(b.id))) ??
      responses.find((r) => r.content.some((b) => b.type === "text" && keys.has(essence(b))));
    if (!source) return;
    const want = source.content.map(essence);
    const got = blocks.map(essence);
    if (want.length === got.length && want.every((k, n) => k === got[n])) return;
    const what = describeDifference(source.content, blocks);
    add(
      "not-verbatim",
      i,
      `messages[${i}] is not the model's response as it was sent: ${what}. Append response.content unchanged (thinking blocks and their signatures included, in order).`,
    );
  });
}

/**
 * Are `blocks` some of the responses' contents, in order, end to end (a pause_turn and its
 * continuation)? Every way of laying them is tried: a response dropped by the loop (a cut-off
 * answer asked again) may hold the same blocks as the start of the one it kept.
 */
function isConcatenation(blocks: readonly Block[], responses: readonly Anthropic.Message[]): boolean {
  let reached = new Set([0]);
  for (const r of responses) {
    const n = r.content.length;
    if (n === 0) continue;
    const next = new Set(reached);
    for (const at of reached) if (at + n <= blocks.length && r.content.every((b, k) => essence(b) === essence(blocks[at + k]!))) next.add(at + n);
    reached = next;
    if (reached.has(blocks.length)) return true;
  }
  return false;
}

function describeDifference(want: readonly Block[], got: readonly Block[]): string {
  const gotKeys = got.map(essence);
  const wantKeys = want.map(essence);
  for (let n = 0; n < want.length; n++) {
    const w = want[n]!;
    if (gotKeys.includes(wantKeys[n]!)) continue;
    const sameType = got.find((b) => b.type === w.type);
    if (w.type === "thinking" || w.type === "redacted_thinking")
      return sameType ? `its ${w.type} block was changed` : `its ${w.type} block was dropped`;
    return sameType ? `its ${w.type} block at content[${n}] was changed` : `its ${w.type} block at content[${n}] was dropped`;
  }
  const extra = got.findIndex((b, n) => !wantKeys.includes(gotKeys[n]!));
  if (extra >= 0) return `content[${extra}] (${got[extra]!.type}) was not in the response`;
  return "its blocks are in a different order";
}

export class TranscriptError extends Error {
  readonly violations: Violation[];
  constructor(violations: Violation[]) {
    super(formatViolations(violations));
    this.name = "TranscriptError";
    this.violations = violations;
  }
}

export function formatViolations(violations: readonly Violation[]): string {
  if (violations.length === 0) return "the transcript keeps every rule";
  const head = violations.length === 1 ? "1 broken rule" : `${violations.length} broken rules`;
  return `${head} in the transcript:\n` + violations.map((x) => `  - [${x.rule}] ${x.message}`).join("\n");
}

/** Throws a TranscriptError naming every broken rule; returns quietly when there is none. */
export function assertTranscript(messages: readonly AnyMessage[], opts: CheckOptions = {}): void {
  const violations = checkTranscript(messages, opts);
  if (violations.length > 0) throw new TranscriptError(violations);
}

/** The text of a message's or a tool result's content: a string as it is, text blocks joined by newlines. */
export function textOf(content: Anthropic.MessageParam["content"] | Anthropic.ToolResultBlockParam["content"]): string {
  if (content === undefined) return "";
  if (typeof content === "string") return content;
  return content
    .map((b) => (b.type === "text" ? b.text : ""))
    .filter((t) => t.length > 0)
    .join("\n");
}

/**
 * A copy of `message` with its content replaced by `blocks` (the role kept). The natural
 * `{ ...message, content: blocks }` does not type-check: the SDK's MessageParam union also has a
 * system-role message whose content is text only, so TypeScript cannot prove the spread fits.
 * This is that spread, typed once for every lesson that rebuilds a message.
 */
export function withContent(message: Anthropic.MessageParam, blocks: Anthropic.ContentBlockParam[]): Anthropic.MessageParam {
  return { ...message, content: blocks } as Anthropic.MessageParam;
}
