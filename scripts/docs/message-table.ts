/**
 * Message tables on the site: one HTML table for every transcript a page shows, recorded or
 * written by hand, so the two look alike and neither scrolls sideways (custom.css turns each row
 * into a card on a phone).
 *
 * - `<RecordedTable />` on a lesson page: the lesson's recorded run (docs/public/transcripts/).
 * - A fenced block with the info string `messages`, written by hand, one message per line:
 *
 *   ```messages
 *   [3] assistant | text + tool_use#A read_file logs/auth.log + tool_use#B read_file src/login.js | tool_use | two calls, one turn
 *   [4] user | tool_result#A + tool_result#B is_error: "No such file" | | ONE message
 *   ```
 *
 *   Fields: `[index] role`, blocks joined by ` + `, the stop_reason (assistant rows), a note.
 *   A block is `kind[#id] label` (`text`, `thinking`, `tool_use`, `tool_result`, …); a block that
 *   starts with a quote is a text block; `is_error:` at the start of a label marks a failed
 *   result. A tool_use and the tool_result with its id share a colour. A line that starts with
 *   `+` adds its blocks to the row above, so a long row can be written on several lines.
 */
import type Anthropic from "@anthropic-ai/sdk";
import type { Lang } from "./diff.ts";

export interface TableBlock {
  kind: string;
  label: string;
  /** The id as the table shows it ("A", "…01abcd"). */
  id?: string;
  colour?: number;
  isError?: boolean;
}

export interface TableRow {
  index: number;
  role: Anthropic.MessageParam["role"];
  blocks: TableBlock[];
  stop?: string | null;
  /** The last column: tokens in / out of a recorded turn, or the hand-written note. */
  last?: string;
}

const WORDS: Record<Lang, { cols: [string, string, string, string]; tokens: string; note: string }> = {
  en: { cols: ["#", "role", "blocks", "stop_reason"], tokens: "tokens in / out", note: "note" },
  zh: { cols: ["#", "角色", "内容块", "stop_reason"], tokens: "token 输入 / 输出", note: "说明" },
  ja: { cols: ["#", "ロール", "ブロック", "stop_reason"], tokens: "トークン 入力 / 出力", note: "説明" },
  ru: { cols: ["#", "роль", "блоки", "stop_reason"], tokens: "токены вход / выход", note: "примечание" },
};

const PALETTE_SIZE = 8;
const escapeHtml = (s: string) => s.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;").replace(/"/g, "&quot;");
const CLASSES = ["lp-c-index", "lp-c-role", "lp-c-blocks", "lp-c-stop"];

/** The table's HTML. `last` names the fifth column: "tokens" (a recorded run) or "note" (by hand). */
export function messageTableHtml(rows: TableRow[], lang: Lang, opts: { last: "tokens" | "note"; caption?: string }): string {
  const w = WORDS[lang];
  const lastHead = opts.last === "tokens" ? w.tokens : w.note;
  const lastClass = opts.last === "tokens" ? "lp-c-tokens" : "lp-c-note";
  const showLast = opts.last === "tokens" || rows.some((r) => r.last);
  const body = rows.map((r) => {
    const blocks = r.blocks
      .map((b) => {
        const pair = b.colour !== undefined ? ` tv-c${b.colour}` : "";
        const label = b.kind === "text" && b.label ? `“${b.label}”` : b.label;
        const id = b.id ? ` <code>${escapeHtml(b.id)}</code>` : "";
        const err = b.isError ? ' <b class="lp-is-error">is_error</b>' : "";
        return `<span class="lp-block lp-kind-${escapeHtml(b.kind)}${pair}"><b>${escapeHtml(b.kind)}</b>${id}${err}${label ? ` ${escapeHtml(label)}` : ""}</span>`;
      })
      .join(" ");
    const stop = r.role === "assistant" && r.stop !== undefined ? `<code>${escapeHtml(r.stop ?? "—")}</code>` : "";
    const last = showLast ? `<td class="${lastClass}" data-label="${escapeHtml(lastHead)}">${escapeHtml(r.last ?? "")}</td>` : "";
    return (
      `<tr class="lp-role-${r.role}"><td class="lp-c-index">${r.index}</td><td class="lp-c-role" data-label="${w.cols[1]}">${r.role}</td>` +
      `<td class="lp-c-blocks" data-label="${w.cols[2]}">${blocks}</td><td class="lp-c-stop" data-label="${w.cols[3]}">${stop}</td>${last}</tr>`
    );
  });
  const heads = [...w.cols.map((c, i) => `<th class="${CLASSES[i]}">${escapeHtml(c)}</th>`), ...(showLast ? [`<th class="${lastClass}">${escapeHtml(lastHead)}</th>`] : [])];
  const caption = opts.caption ? `<caption>${escapeHtml(opts.caption)}</caption>` : "";
  const kind = opts.last === "tokens" ? "run-table" : "run-table msg-table";
  return `<table class="lp-table ${kind}" v-pre>${caption}<thead><tr>${heads.join("")}</tr></thead><tbody>${body.join("")}</tbody></table>`;
}

/** Fields are split at " | " (a pipe with a space either side); an empty field is " | | ". */
const FIELD = /\s\|(?=\s)/;
const QUOTES = /^["“'](.*)["”']$/s;

function parseBlock(src: string): TableBlock {
  const s = src.trim();
  if (/^["“']/.test(s)) return { kind: "text", label: s.replace(QUOTES, "$1") };
  const m = /^([a-z_]+)(?:#(\S+))?\s*([\s\S]*)$/.exec(s);
  if (!m) return { kind: "text", label: s };
  const [, kind, id, rest] = m as unknown as [string, string, string | undefined, string];
  let label = rest.trim();
  let isError = false;
  if (/^is_error:?\s*/.test(label)) {
    isError = true;
    label = label.replace(/^is_error:?\s*/, "");
  }
  if (kind === "text") label = label.replace(QUOTES, "$1");
  return { kind, label, ...(id ? { id } : {}), ...(isError ? { isError } : {}) };
}

/** The rows of a hand-written `messages` block; a line it cannot read throws, naming it. */
export function parseMessageTable(src: string): TableRow[] {
  const rows: TableRow[] = [];
  const colourOf = new Map<string, number>();
  let next = 0;
  const paint = (b: TableBlock) => {
    if (!b.id) return;
    if (b.kind === "tool_use" || !colourOf.has(b.id)) colourOf.set(b.id, next++ % PALETTE_SIZE);
    b.colour = colourOf.get(b.id);
  };
  for (const raw of src.split("\n")) {
    const line = raw.trim();
    if (!line) continue;
    if (line.startsWith("+")) {
      const row = rows[rows.length - 1];
      if (!row) throw new Error(`messages table: "${line}" continues no row`);
      const [blocks = "", ...rest] = line.slice(1).split(FIELD);
      for (const b of blocks.split(" + ").map(parseBlock)) row.blocks.push((paint(b), b));
      const note = rest.join(" | ").trim();
      if (note) row.last = row.last ? `${row.last} ${note}` : note;
      continue;
    }
    const [head = "", blocks = "", stop, ...note] = line.split(FIELD);
    const h = /^\[(\d+)\]\s+(user|assistant)$/.exec(head.trim());
    if (!h) throw new Error(`messages table: "${line}" does not start with "[index] user" or "[index] assistant"`);
    const role = h[2] as "user" | "assistant";
    const row: TableRow = {
      index: Number(h[1]),
      role,
      blocks: blocks.trim() ? blocks.split(" + ").map(parseBlock) : [],
      ...(role === "assistant" && stop?.trim() ? { stop: stop.trim() } : {}),
    };
    row.blocks.forEach(paint);
    const last = note.join(" | ").trim();
    if (last) row.last = last;
    rows.push(row);
  }
  return rows;
}

const FENCE = /^```messages[ \t]*\n([\s\S]*?)\n```[ \t]*$/gm;

/** Every hand-written `messages` block of a page, as its HTML table. */
export function renderMessageBlocks(src: string, lang: Lang): string {
  return src.replace(FENCE, (_all, body: string) => `\n${messageTableHtml(parseMessageTable(body), lang, { last: "note" })}\n`);
}
