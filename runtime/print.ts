/**
 * Terminal output for the lessons: every block of a response, tool calls and their results,
 * the final answer. Colour only on a terminal and never when NO_COLOR is set.
 */
import type Anthropic from "@anthropic-ai/sdk";
import { terminalSafe, stripEscapes } from "./terminal-text.ts";
import { checkTranscript, formatViolations } from "./transcript.ts";
import { word } from "./words.ts";

const useColor = () => Boolean(process.stdout.isTTY) && !process.env.NO_COLOR;
const paint = (code: string) => (s: string) => (useColor() ? `\x1b[${code}m${s}\x1b[0m` : s);
export const dim = paint("2");
export const bold = paint("1");
export const cyan = paint("36");
export const yellow = paint("33");
export const green = paint("32");
export const red = paint("31");
export const magenta = paint("35");

// Output piped into `head` and closed early is not an error worth a stack trace.
process.stdout.on("error", (e: NodeJS.ErrnoException) => {
  if (e.code === "EPIPE") process.exit(0);
  throw e;
});

/** Where lesson output goes; tests may redirect or silence it. */
export const output = { write: (line: string) => console.log(line) };
/**
 * One line for the user. Lines carry text the course does not control (the model's, a tool's, an
 * MCP server's): its escape sequences and control characters are removed, the course's own
 * colours kept (runtime/terminal-text.ts).
 */
export const say = (line = "") => output.write(terminalSafe(line));

export function clip(s: string, max = 300): string {
  const one = s.length > max ? `${s.slice(0, max)}… (${s.length - max} more characters)` : s;
  return one;
}

function indent(s: string, pad = "    "): string {
  return s
    .split("\n")
    .map((l) => pad + l)
    .join("\n");
}

/** One content block, the way lesson 1 prints the Message of its first raw call. */
export function formatBlock(b: Anthropic.ContentBlock | Anthropic.ContentBlockParam): string {
  switch (b.type) {
    case "text":
      return `${cyan("text")}      ${b.text}`;
    case "thinking":
      return `${magenta("thinking")}  ${dim(clip(b.thinking, 200))} ${dim(`(signature ${b.signature.slice(0, 12)}…)`)}`;
    case "redacted_thinking":
      return `${magenta("redacted_thinking")} ${dim("(encrypted)")}`;
    case "tool_use":
      return `${yellow("tool_use")}  ${b.name}(${JSON.stringify(b.input)}) ${dim(`id=${b.id}`)}`;
    case "tool_result":
      return `${green("tool_result")} ${dim(`for ${b.tool_use_id}`)}${b.is_error ? red(" is_error") : ""}`;
    default:
      return `${b.type}`;
  }
}

/** A whole response: its blocks, stop_reason and usage. */
export function printMessage(m: Anthropic.Message): void {
  say(bold(`Message ${m.id} (${m.model})`));
  if (m.content.length === 0) say(dim("  (no content blocks)"));
  for (const b of m.content) say(`  ${formatBlock(b)}`);
  const u = m.usage;
  say(
    `  ${bold("stop_reason")}: ${m.stop_reason}   ${dim(
      `usage: input ${u.input_tokens}, output ${u.output_tokens}, cache read ${u.cache_read_input_tokens ?? 0}, cache write ${u.cache_creation_input_tokens ?? 0}`,
    )}`,
  );
}

export function printToolCall(b: Anthropic.ToolUseBlock): void {
  say(`${yellow("→")} ${b.name} ${JSON.stringify(b.input)}`);
}

export function printToolResult(output: string, isError = false): void {
  const body = indent(clip(output.trimEnd() || "(no output)", 600));
  say(isError ? red(body) : dim(body));
}

/** The text blocks of the final response. */
export function printFinal(m: Anthropic.Message | undefined): void {
  const text = m?.content.flatMap((b) => (b.type === "text" ? [b.text] : [])).join("\n") ?? "";
  say("");
  say(bold(word("run.answer")) + " " + (text || dim(word("run.no-text"))));
}

export function heading(s: string): void {
  say("");
  say(bold(`── ${s} ──`));
}

/** One line on whether `history` can be sent again (every tool_use answered), or what is wrong. */
export function sendableLine(history: readonly Anthropic.MessageParam[]): string {
  const problems = checkTranscript(history);
  return problems.length === 0
    ? green(word("run.sendable", { n: history.length }))
    : red(formatViolations(problems));
}

/** After a REPL turn: say it was cancelled or failed (the session goes on either way). */
export function printTurnEnd({ error, cancelled }: { error?: unknown; cancelled: boolean }): void {
  if (cancelled) say(yellow("(turn cancelled: ask again, or ask something else)"));
  else if (error) say(yellow(`(the turn failed: ${error instanceof Error ? error.message : String(error)})`));
}

/** Handlers that print a streamed answer as it arrives, and end its line before a tool call is printed. */
export function streamToTerminal(): { onText(delta: string): void; onToolUse(): void } {
  let midLine = false;
  return {
    onText: (delta) => {
      // The model's text, as it arrives: no escape sequence reaches the terminal (see say).
      process.stdout.write(stripEscapes(delta));
      midLine = !delta.endsWith("\n");
    },
    onToolUse: () => {
      if (midLine) process.stdout.write("\n");
      midLine = false;
    },
  };
}
