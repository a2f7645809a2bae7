/**
 * Text from outside the course (the model, a tool's output, an MCP server) on the user's terminal.
 *
 * A terminal obeys the bytes it is sent: an escape sequence can move the cursor and overwrite a
 * line already printed, hide text, set the window title, or write to the clipboard (OSC 52); a
 * carriage return makes what follows it cover what came before. So:
 *
 * - `stripEscapes` removes every escape sequence and control character but the newline and the
 *   tab (each ESC, CSI and C1 byte, even a lone one at the end of a streamed piece, so that no
 *   sequence can be put together from two pieces);
 * - `terminalSafe` does the same but keeps the course's own colours (the SGR codes of
 *   runtime/print.ts): it is what `say` prints;
 * - `visible` shows a command exactly as it will run, control characters written out (`\r`,
 *   `\x1b`, `\n`…): what an approval question shows, so the command asked about is the one run.
 */

/* eslint-disable no-control-regex -- control characters are what this file is about */
/** The course's own colour codes (runtime/print.ts's `paint`): reset, bold, dim, and five colours. */
const OWN_COLOUR = /\x1b\[(?:0|1|2|31|32|33|35|36)m/g;

/**
 * Escape sequences, whole: CSI (ESC [ or the 8-bit 0x9b) with its parameters; OSC, DCS, SOS, PM
 * and APC strings up to their terminator (BEL or ESC \, or the 8-bit ST); any other ESC + one byte.
 */
const SEQUENCE = /(?:\x1b\[|\x9b)[0-?]*[ -/]*[@-~]|(?:\x1b[\]PX^_]|[\x90\x98\x9d\x9e\x9f])[\s\S]*?(?:\x07|\x1b\\|\x9c|$)|\x1b[\s\S]?/g;
/** What is left that a terminal acts on: C0 controls but \t and \n, DEL, C1 controls. */
const CONTROL = /[\x00-\x08\x0b-\x1f\x7f-\x9f]/g;

/** `text` with every escape sequence and control character removed (newlines and tabs kept; \r\n read as \n). */
export function stripEscapes(text: string): string {
  return text.replace(/\r\n/g, "\n").replace(SEQUENCE, "").replace(CONTROL, "");
}

/** A line for the terminal: untrusted text made harmless, the course's own colours kept. */
export function terminalSafe(line: string): string {
  const parts = line.split(OWN_COLOUR);
  const colours = line.match(OWN_COLOUR) ?? [];
  return parts.map((p, i) => stripEscapes(p) + (colours[i] ?? "")).join("");
}

/** Characters that change how text looks without being seen: bidi overrides, zero-width marks, line separators. */
const INVISIBLE = /[\u200b-\u200f\u2028-\u202e\u2060-\u2069\ufeff]/g;

/** `text` on one line with every control and invisible character written out: \n, \r, \t, \x1b, \u202e… */
export function visible(text: string): string {
  const named: Record<string, string> = { "\n": "\\n", "\r": "\\r", "\t": "\\t", "\x1b": "\\x1b" };
  return text
    .replace(/[\x00-\x1f\x7f-\x9f]/g, (c) => named[c] ?? `\\x${c.charCodeAt(0).toString(16).padStart(2, "0")}`)
    .replace(INVISIBLE, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`);
}

/** Does `text` hold anything `visible` writes out (so the question can say the command is not what it seems)? */
export function hasHidden(text: string): boolean {
  return /[\x00-\x08\x0b-\x1f\x7f-\x9f]/.test(text) || new RegExp(INVISIBLE.source).test(text);
}

/** A command and why it is asked about, as an approval shows them: the command written out, the reason cleaned. */
export function shownCommand(command: string, reason: string): string {
  const warning = hasHidden(command) ? "\n  (careful: it holds control or invisible characters, written out above as \\r, \\x1b, \\u202e…)" : "";
  return `${visible(command)}${warning}\n  (${stripEscapes(reason)})`;
}

/** The approval question: the command exactly as it would run, then y/N. */
export function approvalQuestion(command: string, reason: string): string {
  return `The model wants to run: ${shownCommand(command, reason)}\nAllow it? [y/N] `;
}

/**
 * Text from outside (a job's output, a hook's words, a note's name, an instruction file) as it goes
 * into the system prompt or a notice for the model: every control character but the newline and
 * the tab, DEL, the C1 controls, and every invisible character (line and paragraph separators
 * U+2028/U+2029, bidi overrides and isolates, zero-width marks, BOM) written out as \uXXXX, so
 * nothing in it can start a line of its own or change how the text around it reads. With
 * `oneLine`, newlines and tabs are written out too (a name, a title).
 */
export function promptSafe(text: string, oneLine = false): string {
  const control = oneLine ? /[\x00-\x1f\x7f-\x9f]/g : /[\x00-\x08\x0b-\x1f\x7f-\x9f]/g;
  const hex = (c: string) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`;
  return text.replace(/\r\n/g, "\n").replace(control, hex).replace(INVISIBLE, hex);
}
