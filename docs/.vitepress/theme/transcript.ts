/**
 * The transcript viewer's data: what the build records for each lesson, how a learner's own file
 * is read (the JSONL a lesson run writes, a JSON array of messages, or a recorded file), and how
 * each tool_use is linked to its tool_result. No Vue here: the tests import it directly.
 */
import type Anthropic from "@anthropic-ai/sdk";

/** stop_reason and usage of one assistant turn, by its index in `messages`. */
export interface TurnMeta {
  index: number;
  stop_reason: string | null;
  usage?: Partial<Anthropic.Usage> | null;
  /** When the loop joined several responses into this message (pause_turn, a continuation): their stop_reasons. */
  merged?: (string | null)[];
}

/** What scripts/docs/record-transcripts.ts writes to docs/public/transcripts/<dir>.json. */
export interface RecordedTranscript {
  type: "recorded";
  lesson: string;
  id: string;
  title: string;
  /** Who answered: always the scripted model, offline. */
  model: string;
  messages: Anthropic.MessageParam[];
  turns: TurnMeta[];
  /** Responses the model sent that the loop did not keep in its transcript (e.g. a retried turn). */
  unkept: number;
  /** Their stop_reasons, in order. */
  unkeptStops?: (string | null)[];
}

/** What the recorder writes instead when a lesson's demo could not be run. */
export interface FailedRecording {
  type: "failed";
  lesson: string;
  id: string;
  title: string;
  error: string;
}

export interface LoadedTranscript {
  messages: Anthropic.MessageParam[];
  turns: TurnMeta[];
  /** What the file was read as, for the viewer's caption. */
  format: "recorded" | "jsonl" | "json-array" | "json-object";
}

/** A file the viewer cannot read; the message says why in a learner's terms. */
export class TranscriptFileError extends Error {
  override name = "TranscriptFileError";
}

type Json = Record<string, unknown>;
const isObject = (v: unknown): v is Json => typeof v === "object" && v !== null && !Array.isArray(v);

function isMessage(v: unknown): v is Anthropic.MessageParam {
  return isObject(v) && (v.role === "user" || v.role === "assistant") && (typeof v.content === "string" || Array.isArray(v.content));
}

function asMessages(v: unknown, where: string): Anthropic.MessageParam[] {
  if (!Array.isArray(v)) throw new TranscriptFileError(`${where} is not a list of messages`);
  v.forEach((m, i) => {
    if (!isMessage(m))
      throw new TranscriptFileError(`${where}[${i}] is not a message: expected { "role": "user" | "assistant", "content": … }`);
  });
  return v as Anthropic.MessageParam[];
}

/** A response-like object seen in a log: its stop_reason, usage and (maybe) content. */
export interface SeenResponse {
  stop_reason: string | null;
  usage?: Partial<Anthropic.Usage> | null;
  content?: unknown;
}

function responseIn(v: unknown): SeenResponse | null {
  if (!isObject(v)) return null;
  for (const c of [v, v.response, v.message, v.data]) {
    if (isObject(c) && "stop_reason" in c && (typeof c.stop_reason === "string" || c.stop_reason === null))
      return {
        stop_reason: c.stop_reason as string | null,
        usage: isObject(c.usage) ? (c.usage as Partial<Anthropic.Usage>) : isObject(v.usage) ? (v.usage as Partial<Anthropic.Usage>) : null,
        content: c.content,
      };
  }
  return null;
}

/** JSON with object keys sorted: the same blocks compare equal whatever order their keys came in (a streamed message vs a JSON one). */
export function canonical(v: unknown): string {
  return JSON.stringify(v, (_k, x: unknown) =>
    isObject(x) ? Object.fromEntries(Object.keys(x).sort().map((k) => [k, x[k]])) : x,
  );
}

const USAGE_KEYS = ["input_tokens", "output_tokens", "cache_read_input_tokens", "cache_creation_input_tokens"] as const;

function sumUsage(rs: SeenResponse[]): Partial<Anthropic.Usage> | null {
  if (rs.every((r) => !r.usage)) return null;
  // The joined turn's usage keeps the shape the API sends (the last part's keys), with its counts summed.
  const last = [...rs].reverse().find((r) => r.usage)!.usage!;
  const sum: Record<string, unknown> = { ...last };
  for (const k of USAGE_KEYS) sum[k] = rs.reduce((n, r) => n + (r.usage?.[k] ?? 0), 0);
  if (last.cache_creation) {
    const part = (k: "ephemeral_5m_input_tokens" | "ephemeral_1h_input_tokens") => rs.reduce((n, r) => n + (r.usage?.cache_creation?.[k] ?? 0), 0);
    sum.cache_creation = { ephemeral_5m_input_tokens: part("ephemeral_5m_input_tokens"), ephemeral_1h_input_tokens: part("ephemeral_1h_input_tokens") };
  }
  return sum as Partial<Anthropic.Usage>;
}

/** How many responses (at most 4) from `from` join, block after block, into exactly this content; 0 if none. */
function joinedCount(content: unknown, responses: SeenResponse[], from: number): number {
  if (!Array.isArray(content)) return 0;
  const wanted = canonical(content);
  const blocks: unknown[] = [];
  for (let k = from; k < Math.min(responses.length, from + 4); k++) {
    const c = responses[k]!.content;
    if (!Array.isArray(c)) return 0;
    blocks.push(...(c as unknown[]));
    if (blocks.length > content.length) return 0;
    if (k > from && canonical(blocks) === wanted) return k - from + 1;
  }
  return 0;
}

/**
 * Pairs assistant messages with the responses they came from, in order. A response whose content
 * is known is matched by content; a message the loop joined from consecutive responses (pause_turn,
 * a max_tokens continuation) is matched to all of them; a response the loop dropped or rewrote
 * stays unmatched. Responses without content are given to the assistant turns in order.
 */
export function matchResponses(messages: Anthropic.MessageParam[], responses: SeenResponse[]): { turns: TurnMeta[]; unmatched: number[] } {
  const turns: TurnMeta[] = [];
  const used = new Set<number>();
  let next = 0;
  messages.forEach((m, index) => {
    if (m.role !== "assistant") return;
    const wanted = canonical(m.content);
    for (let j = next; j < responses.length; j++) {
      const r = responses[j]!;
      if (r.content === undefined || canonical(r.content) === wanted) {
        turns.push({ index, stop_reason: r.stop_reason, usage: r.usage ?? null });
        used.add(j);
        next = j + 1;
        return;
      }
      const n = joinedCount(m.content, responses, j);
      if (n > 1) {
        const parts = responses.slice(j, j + n);
        turns.push({ index, stop_reason: parts[n - 1]!.stop_reason, usage: sumUsage(parts), merged: parts.map((p) => p.stop_reason) });
        for (let k = j; k < j + n; k++) used.add(k);
        next = j + n;
        return;
      }
    }
  });
  return { turns, unmatched: responses.map((_, i) => i).filter((i) => !used.has(i)) };
}

export function matchTurns(messages: Anthropic.MessageParam[], responses: SeenResponse[]): TurnMeta[] {
  return matchResponses(messages, responses).turns;
}

/** Reads a file a learner picked: JSONL from a lesson run, a JSON array of messages, or a recorded file. */
export function parseTranscriptText(text: string): LoadedTranscript {
  const trimmed = text.trim();
  if (trimmed === "") throw new TranscriptFileError("the file is empty");

  let whole: unknown;
  let wholeOk = false;
  try {
    whole = JSON.parse(trimmed);
    wholeOk = true;
  } catch {
    // not one JSON value: read it as JSON Lines below
  }
  if (wholeOk) {
    if (Array.isArray(whole)) return { messages: asMessages(whole, "the file"), turns: [], format: "json-array" };
    if (isObject(whole) && Array.isArray(whole.messages)) {
      const messages = asMessages(whole.messages, "messages");
      const turns = Array.isArray(whole.turns) ? (whole.turns as TurnMeta[]).filter((t) => isObject(t) && typeof t.index === "number") : [];
      return { messages, turns, format: whole.type === "recorded" ? "recorded" : "json-object" };
    }
    if (!isObject(whole) || whole.type !== "transcript")
      throw new TranscriptFileError('expected a list of messages, an object with "messages", or JSON Lines ending with a {"type":"transcript"} line');
  }

  const lines = trimmed.split(/\r?\n/).filter((l) => l.trim() !== "");
  const values = lines.map((line, i) => {
    try {
      return JSON.parse(line) as unknown;
    } catch (e) {
      throw new TranscriptFileError(`line ${i + 1} is not JSON (${(e as Error).message}); a JSONL file has one JSON object per line`);
    }
  });
  const transcript = [...values].reverse().find((v) => isObject(v) && v.type === "transcript" && Array.isArray(v.messages));
  let messages: Anthropic.MessageParam[];
  if (isObject(transcript)) messages = asMessages(transcript.messages, 'the "transcript" line\'s messages');
  else if (values.length > 0 && values.every(isMessage)) messages = values as Anthropic.MessageParam[];
  else
    throw new TranscriptFileError(
      'no {"type":"transcript","messages":[…]} line found: is the run finished? A lesson run writes it as its last line',
    );
  const responses = values.filter((v) => v !== transcript).map(responseIn).filter((r): r is SeenResponse => r !== null);
  return { messages, turns: matchTurns(messages, responses), format: "jsonl" };
}

/** A block as the viewer shows it: the SDK's block params, or something it does not know. */
export type AnyBlock = Anthropic.ContentBlockParam | (Json & { type: string });

export function blocksOf(m: Anthropic.MessageParam): AnyBlock[] {
  return typeof m.content === "string" ? [{ type: "text", text: m.content }] : (m.content as AnyBlock[]);
}

export interface ToolLinks {
  /** Colour slot of every id seen in a tool_use or tool_result, by first appearance. */
  colour: Map<string, number>;
  /** Message index of each tool_use id. */
  useAt: Map<string, number>;
  /** Message index of each tool_result's tool_use_id. */
  resultAt: Map<string, number>;
}

export const PALETTE_SIZE = 8;

/** Which tool_use pairs with which tool_result, and a colour per pair. */
export function linkTools(messages: Anthropic.MessageParam[]): ToolLinks {
  const links: ToolLinks = { colour: new Map(), useAt: new Map(), resultAt: new Map() };
  const see = (id: string) => {
    if (!links.colour.has(id)) links.colour.set(id, links.colour.size % PALETTE_SIZE);
  };
  messages.forEach((m, i) => {
    for (const b of blocksOf(m)) {
      if (b.type === "tool_use" && typeof b.id === "string") {
        see(b.id);
        links.useAt.set(b.id, i);
      } else if (b.type === "tool_result" && typeof b.tool_use_id === "string") {
        see(b.tool_use_id);
        links.resultAt.set(b.tool_use_id, i);
      }
    }
  });
  return links;
}

/** The text of a tool_result's content (string, or text blocks joined; other blocks named). */
export function resultText(content: unknown): string {
  if (content === undefined || content === null) return "";
  if (typeof content === "string") return content;
  if (Array.isArray(content))
    return content
      .map((c) => (isObject(c) && c.type === "text" && typeof c.text === "string" ? c.text : `[${isObject(c) ? String(c.type) : "?"} block]`))
      .join("\n");
  return JSON.stringify(content, null, 2);
}

/** Usage in a short line: "in 512 · out 64 · cache read 0 · cache write 0". */
export function usageLine(u: Partial<Anthropic.Usage> | null | undefined): string {
  if (!u) return "";
  const parts = [`in ${u.input_tokens ?? 0}`, `out ${u.output_tokens ?? 0}`];
  if (u.cache_read_input_tokens) parts.push(`cache read ${u.cache_read_input_tokens}`);
  if (u.cache_creation_input_tokens) parts.push(`cache write ${u.cache_creation_input_tokens}`);
  return parts.join(" · ");
}
