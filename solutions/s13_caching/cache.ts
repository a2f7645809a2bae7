/**
 * s13 · prompt-cache breakpoints, placed by the loop.
 *
 * Every turn re-sends the tools, the system prompt and the whole history. With a `cache_control`
 * marker on a block, the API keeps the prompt up to that block (the prefix) for a few minutes: a
 * later request that starts with the same prefix reads it from the cache at a tenth of the input
 * price, instead of paying for it again (writing it costs 1.25 times the input price, once).
 *
 * Where the markers go:
 *   - the last tool definition: the tools, which never change during a run (once);
 *   - the system prompt (once);
 *   - the newest message, moved forward every turn: this turn writes the history up to here, and
 *     the next turn reads it, since its prompt starts with the same blocks;
 *   - the message before it: a turn that added more than 20 blocks (the API looks back at most
 *     20 blocks from a marker for a prefix it knows) still reads what the turn before wrote.
 * The API takes at most FOUR markers in one request and refuses a fifth (400). So the markers
 * are put on a COPY of the request each turn; the history itself never holds one, or old markers
 * would pile up turn after turn, and the saved transcript would not be what the model said.
 */
import type Anthropic from "@anthropic-ai/sdk";
import type { Prompt } from "../../solutions/s11_recovery/extend.ts";
import { withContent } from "../../runtime/transcript.ts";

/** The API's limit on cache_control markers in one request. */
export const MAX_BREAKPOINTS = 4;

export const EPHEMERAL: Anthropic.CacheControlEphemeral = { type: "ephemeral" };

/** What a request re-sends every turn (s11's loop hands it to the `request` hook): the part a cache can hold. */
export type { Prompt };

/** The request's prompt as it goes out: every field a copy, with the markers. */
export interface CachedPrompt {
  system: Anthropic.TextBlockParam[];
  tools: Anthropic.ToolUnion[];
  messages: Anthropic.MessageParam[];
}

// #region mark
/** A copy of `block` with a cache_control marker (a block that cannot hold one is returned as is). */
function marked<T extends Anthropic.ContentBlockParam | Anthropic.ToolUnion>(block: T): T {
  // Thinking blocks go back exactly as they came (s01): they never carry a marker.
  if ("type" in block && (block.type === "thinking" || block.type === "redacted_thinking")) return block;
  return { ...block, cache_control: EPHEMERAL };
}

/** A copy of `message` with a marker on its last block (a string content becomes one text block). */
export function markLastBlock(message: Anthropic.MessageParam): Anthropic.MessageParam {
  const blocks: Anthropic.ContentBlockParam[] = typeof message.content === "string" ? [{ type: "text", text: message.content }] : [...message.content];
  const last = blocks.length - 1;
  if (last < 0) return message;
  blocks[last] = marked(blocks[last]!);
  return withContent(message, blocks);
}
// #endregion mark

// #region breakpoints
/**
 * The prompt with its cache breakpoints: the last tool, the system prompt, the newest message and
 * the user message before it. Nothing passed in is changed (the history keeps no marker).
 */
export function withCacheBreakpoints(prompt: Prompt): CachedPrompt {
  const tools = prompt.tools.map((t, i) => (i === prompt.tools.length - 1 ? marked(t) : t));
  const blocks: Anthropic.TextBlockParam[] = typeof prompt.system === "string" ? [{ type: "text", text: prompt.system }] : [...prompt.system];
  const system = blocks.map((b, i) => (i === blocks.length - 1 ? marked(b) : b));
  const messages = [...prompt.messages];
  // The newest message, and the last user message before it: two markers that move every turn.
  const newest = messages.length - 1;
  const earlier = messages.findLastIndex((m, i) => i < newest && m.role === "user");
  for (const i of [newest, earlier]) if (i >= 0) messages[i] = markLastBlock(messages[i]!);
  return { system, tools, messages };
}
// #endregion breakpoints

/** How many cache_control markers a request carries (tools, system and message blocks). */
export function countBreakpoints(request: { system?: unknown; tools?: unknown; messages?: unknown }): number {
  const has = (b: unknown) => typeof b === "object" && b !== null && "cache_control" in b && Boolean((b as { cache_control?: unknown }).cache_control);
  const list = (v: unknown): unknown[] => (Array.isArray(v) ? v : []);
  const blocks = list(request.messages).flatMap((m) => list((m as { content?: unknown }).content));
  return [...list(request.tools), ...list(request.system), ...blocks].filter(has).length;
}

// #region share
/** The share of a turn's input the cache served: reads / (input + cache writes + cache reads). */
export function cacheReadShare(usage: Anthropic.Usage): number {
  const read = usage.cache_read_input_tokens ?? 0;
  const all = usage.input_tokens + (usage.cache_creation_input_tokens ?? 0) + read;
  return all > 0 ? read / all : 0;
}
// #endregion share
