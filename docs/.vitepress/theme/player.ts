/**
 * The step-through player's data: a recorded run (or a learner's own file, read by transcript.ts)
 * turned into the steps of the loop, request by request. No Vue here: the tests import it.
 *
 * Every run of every lesson is the same loop, so the steps are too: a user message (the task)
 * → a request → the assistant's content appended → its stop_reason checked → the tools run →
 * their results appended in one user message → the next request … → done. A lesson added later
 * gets its player from its recording alone.
 */
import type Anthropic from "@anthropic-ai/sdk";
import { blocksOf, linkTools, type TurnMeta } from "./transcript.ts";

/** The loop's stages, as the player's diagram draws them. */
export const STAGES = ["task", "call", "append", "check", "tools", "results", "done"] as const;
export type Stage = (typeof STAGES)[number];

export interface Step {
  stage: Stage;
  /** How many messages of the transcript exist after this step (the table shows this many rows). */
  shown: number;
  /** The message this step is about (the one sent, received or appended). */
  message: number;
  /** 1-based number of the request this step belongs to (0 before the first). */
  request: number;
  /** The response's stop_reason on call/append/check/done steps, when known. */
  stop?: string | null;
  usage?: Partial<Anthropic.Usage> | null;
  /** Names of the tools run on a "tools" step. */
  tools?: string[];
  /** How many responses the loop joined into this message (pause_turn, a continuation), when more than one. */
  joined?: number;
  /** On the last step: the loop stopped itself (a guard, a cancelled turn), not the model. */
  halted?: boolean;
}

/** One row of the messages[] table: what each block is, with the pair colour of its id. */
export interface RowBlock {
  kind: string;
  /** Tool name (tool_use), or the text's first words (text). */
  label: string;
  id?: string;
  colour?: number;
  isError?: boolean;
}

export interface Row {
  index: number;
  role: Anthropic.MessageParam["role"];
  blocks: RowBlock[];
  stop?: string | null;
  usage?: Partial<Anthropic.Usage> | null;
}

/** The text's first words, cut at a word boundary with one "…" (never "…." or half a word). */
export const short = (s: string, n = 48) => {
  const one = s.replace(/\s+/g, " ").trim();
  if (one.length <= n) return one;
  const cut = one.slice(0, n);
  const space = cut.lastIndexOf(" ");
  return `${(space > n / 2 ? cut.slice(0, space) : cut).replace(/[\s,.;:…]+$/, "")} …`;
};

/** The table's rows, one per message. */
export function rowsOf(messages: Anthropic.MessageParam[], turns: TurnMeta[]): Row[] {
  const links = linkTools(messages);
  const turnAt = new Map(turns.map((t) => [t.index, t]));
  return messages.map((m, index) => ({
    index,
    role: m.role,
    stop: turnAt.get(index)?.stop_reason,
    usage: turnAt.get(index)?.usage ?? null,
    blocks: blocksOf(m).map((b): RowBlock => {
      const x = b as Record<string, unknown>;
      switch (b.type) {
        case "text":
          return { kind: "text", label: short(String(x.text ?? "")) };
        case "tool_use":
          return { kind: "tool_use", label: String(x.name ?? ""), id: String(x.id ?? ""), colour: links.colour.get(String(x.id ?? "")) };
        case "tool_result": {
          const id = String(x.tool_use_id ?? "");
          return { kind: "tool_result", label: "", id, colour: links.colour.get(id), isError: x.is_error === true };
        }
        default:
          return { kind: String(b.type), label: "" };
      }
    }),
  }));
}

const hasToolResult = (m: Anthropic.MessageParam | undefined) => !!m && blocksOf(m).some((b) => b.type === "tool_result");
const hasToolUse = (m: Anthropic.MessageParam) => blocksOf(m).some((b) => b.type === "tool_use");

/**
 * The steps of a run. A response's stop_reason comes from the recording's turn metadata; a file
 * without it (a plain list of messages) is read as the loop would: "tool_use" when the message
 * holds a tool_use block, else "end_turn".
 */
export function playerSteps(messages: Anthropic.MessageParam[], turns: TurnMeta[]): Step[] {
  const turnAt = new Map(turns.map((t) => [t.index, t]));
  const steps: Step[] = [];
  let request = 0;
  messages.forEach((m, i) => {
    if (m.role === "user") {
      if (hasToolResult(m)) {
        const names = blocksOf(messages[i - 1] ?? { role: "assistant", content: [] })
          .filter((b) => b.type === "tool_use")
          .map((b) => String((b as { name?: unknown }).name ?? ""));
        steps.push({ stage: "tools", shown: i, message: i, request, tools: names });
        steps.push({ stage: "results", shown: i + 1, message: i, request });
      } else {
        steps.push({ stage: "task", shown: i + 1, message: i, request });
      }
      return;
    }
    request++;
    const t = turnAt.get(i);
    const stop = t ? t.stop_reason : hasToolUse(m) ? "tool_use" : "end_turn";
    const joined = t?.merged && t.merged.length > 1 ? t.merged.length : undefined;
    const meta = { stop, usage: t?.usage ?? null, ...(joined ? { joined } : {}) };
    steps.push({ stage: "call", shown: i, message: i, request, ...meta });
    steps.push({ stage: "append", shown: i + 1, message: i, request, ...meta });
    steps.push({ stage: "check", shown: i + 1, message: i, request, ...meta });
    // The loop goes on only when the model waits for tools and their results follow.
    if (stop !== "tool_use" || !hasToolResult(messages[i + 1])) steps.push({ stage: "done", shown: i + 1, message: i, request, ...meta });
  });
  // A run the loop ended itself (a guard, a cancelled turn) ends on a user message: it is done too.
  const last = steps[steps.length - 1];
  if (last && last.stage !== "done") steps.push({ stage: "done", shown: messages.length, message: messages.length - 1, request, halted: true });
  return steps;
}

/** Requests in a run: one per assistant message. */
export function requestCount(messages: Anthropic.MessageParam[]): number {
  return messages.filter((m) => m.role === "assistant").length;
}
