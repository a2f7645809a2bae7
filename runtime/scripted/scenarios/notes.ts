/**
 * Questions about the team's notes, answered through the example MCP server's tools
 * (examples/mcp-notes): search, then read the first hit, then answer quoting it; or the diagram.
 * Used by s17's scenario (its task) and by the free-form intents (any notes question), so
 * `npm run agent -- --mcp-config examples/mcp-notes/mcp.json "what do the notes say about releases?"`
 * works offline too: "search the notes for on-call", "笔记里关于发布说了什么？", "show the lockout
 * diagram". The tools are found by their MCP names in the request, whatever the server is called
 * (`mcp__<server>__search`); without them the answer says the notes cannot be reached.
 */
import { S17_TASK } from "../../tasks.ts";
import type { Reply, TurnContext } from "../types.ts";
import { call, say, text } from "./script.ts";

/** Words that carry no topic ("what do our team notes say about …", "who is on call this week?"). */
const FILLER = new Set([
  ...["the", "a", "an", "our", "team", "team's", "notes", "note", "say", "says", "about", "on", "for", "what", "do", "does", "is", "in", "of", "any", "me", "tell", "search", "find", "look", "up", "please", "there"],
  ...["who", "whom", "whose", "when", "where", "which", "why", "how", "this", "that", "these", "those", "week", "today", "now", "we", "us", "i", "you", "it", "its", "my", "your"],
  ...["are", "was", "were", "be", "has", "have", "had", "did", "should", "can", "could", "would", "will", "to", "and", "or", "with", "at", "by", "from", "know", "get", "gets"],
]);

/** The topic words of any question ("Who is on call this week?" → "call"), or null when it has none. */
export function questionTopic(prompt: string): string | null {
  const zh = ZH_WORDS.find(([w]) => prompt.includes(w))?.[1];
  if (zh) return zh;
  const words = prompt.replace(/[?.!,"“”:;()]/g, " ").split(/\s+/).filter((w) => w && !FILLER.has(w.toLowerCase()));
  return words.length ? words.join(" ") : null;
}

/** The example notes are in English: the Chinese words of their topics, for a search that finds them. */
const ZH_WORDS: Array<[string, string]> = [["锁定", "lockout"], ["封锁", "lockout"], ["登录", "login"], ["发布", "release"], ["上线", "release"], ["值班", "on-call"], ["事故", "incident"]];

/**
 * The topic of a question about the team's notes, or null when the prompt is not one.
 * "What do our team notes say about account lockouts?" → "account lockouts".
 */
export function notesTopic(prompt: string): string | null {
  const p = prompt.trim();
  const zh = /笔记/.exec(p) ? /(?:关于|有关)\s*([^，。？?！!]+?)(?:的|说了|写了|[，。？?！!]|$)/.exec(p)?.[1] ?? /搜索笔记[：:\s]*([^，。？?！!]+)/.exec(p)?.[1] : undefined;
  if (zh) return ZH_WORDS.find(([w]) => zh.includes(w))?.[1] ?? zh.trim();
  if (!/\bnotes?\b/i.test(p)) return null;
  const after = /\b(?:about|on|for|regarding|mention(?:ing)?)\s+(.+?)[?.!]*$/i.exec(p)?.[1] ?? p;
  const words = after.replace(/[?.!,"“”]/g, " ").split(/\s+/).filter((w) => w && !FILLER.has(w.toLowerCase()));
  return words.length ? words.join(" ") : null;
}

const toolLike = (ctx: TurnContext, name: string) => ctx.tools.find((t) => new RegExp(`^mcp__.+__${name}$`).test(t));

/** How a notes question is read: `anyQuestion`, any wording with a topic (the free-form intents found no other). */
export interface NotesOptions {
  anyQuestion?: boolean;
}

/** The topic a turn asks the notes about, or null when it does not ask them. */
function topicOf(ctx: TurnContext, opts: NotesOptions): string | null {
  if (ctx.prompt.trim() === S17_TASK) return "lockout";
  const named = notesTopic(ctx.prompt);
  if (named !== null || !opts.anyQuestion || toolLike(ctx, "search") === undefined) return named;
  return questionTopic(ctx.prompt);
}

/** Whether this turn is one of a notes conversation this scenario answers. */
export function asksTheNotes(ctx: TurnContext, opts: NotesOptions = {}): boolean {
  return ctx.prompt.trim() === S17_TASK || (topicOf(ctx, opts) !== null && toolLike(ctx, "search") !== undefined) || (/\b(diagram|picture)\b|图/i.test(ctx.prompt) && toolLike(ctx, "diagram") !== undefined);
}

/** The answer of a turn in a notes conversation, or null when this turn is not one. */
export function notesReply(ctx: TurnContext, opts: NotesOptions = {}): Reply | null {
  if (!asksTheNotes(ctx, opts)) return null;
  const search = toolLike(ctx, "search");
  const read = toolLike(ctx, "read_note");
  const diagram = toolLike(ctx, "diagram");
  const r = ctx.results[0];
  if (ctx.step > 0 && (!r || r.is_error)) return say(`The notes server failed: ${r ? ctx.resultText(r) : "no result"}`);
  if (/\b(diagram|picture)\b|图/i.test(ctx.prompt) && diagram) {
    if (ctx.step === 0) return { content: [text("Asking the notes server for its diagram."), call(diagram, {})] };
    return say(`The notes server sent the diagram: ${ctx.resultText(r!) || "(an image)"}`);
  }
  if (!search || !read) return say("I have no tool that reaches the team's notes (no MCP notes server is connected), so I cannot say.");
  const topic = topicOf(ctx, opts)!;
  if (ctx.step === 0) return { content: [text(`Searching the team's notes for "${topic}".`), call(search, { query: topic })] };
  if (ctx.step === 1) {
    const id = /^([\w-]+):/m.exec(ctx.resultText(r!))?.[1];
    if (!id) return say(`The notes say nothing about "${topic}": ${ctx.resultText(r!)}`);
    return { content: [text(`Reading the note "${id}".`), call(read, { id })] };
  }
  const note = ctx.resultText(r!).split("\n").filter((l) => l.trim() && !l.startsWith("#")).join(" ");
  return say(`The team's notes (from the MCP server) say: ${note}`);
}

