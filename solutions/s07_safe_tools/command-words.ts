/**
 * s07 · how a command becomes words before the allow list (read-only.ts) judges it: a scan that
 * refuses what the shell would rewrite, then a kept shell parser (shell-quote) for the words and
 * pipeline stages; and whether a word reaches out of the workspace.
 */
import { existsSync, statSync } from "node:fs";
import { resolve } from "node:path";
import { parse } from "shell-quote";
import { isInside, realLocation } from "./workspace.ts";

/** Characters the shell rewrites when they are not quoted: outside quotes, any of these asks. */
const UNQUOTED: Record<string, string> = {
  $: "$ expands a variable or runs a command substitution",
  "`": "backquotes run a command substitution",
  "\\": "a backslash makes the shell read a word differently than it looks",
  ">": "redirections can write or read files anywhere",
  "<": "redirections can write or read files anywhere",
  "&": "& runs a command in the background, && chains a second command",
  ";": "; starts another command",
  "\n": "a new line starts another command",
  "\r": "a carriage return hides part of the command",
  "(": "sub-shells and groups run other commands",
  ")": "sub-shells and groups run other commands",
  "{": "braces expand to other words (or group commands)",
  "}": "braces expand to other words (or group commands)",
  "*": "a glob expands to paths the check never saw (quote it to pass it on as it is)",
  "?": "a glob expands to paths the check never saw (quote it to pass it on as it is)",
  "[": "a glob expands to paths the check never saw (quote it to pass it on as it is)",
  "]": "a glob expands to paths the check never saw (quote it to pass it on as it is)",
  "~": "~ reaches the home directory, outside the workspace",
  "!": "! is history expansion or negation",
  "#": "# hides the rest of the line",
};

/** Refuses what a parser that does not expand anything cannot judge; null when the text is plain. */
function unexpandable(command: string): string | null {
  if (command.includes("\0")) return "the command contains a NUL byte";
  let quote: "'" | '"' | null = null;
  for (const c of command) {
    if (quote === "'") {
      if (c === "'") quote = null;
      continue;
    }
    if (quote === '"') {
      if (c === '"') quote = null;
      else if (c === "$" || c === "`" || c === "\\" || c === "!") return `${c} inside double quotes is expanded by the shell`;
      continue;
    }
    if (c === "'" || c === '"') quote = c;
    else if (UNQUOTED[c]) return UNQUOTED[c]!;
  }
  return quote ? "a quote is never closed" : null;
}

/** Splits a command into pipeline stages of words (shell-quote), or says why it will not try. */
export function words(command: string): { stages: string[][] } | { reason: string } {
  const refused = unexpandable(command);
  if (refused) return { reason: refused };
  if (/\|\|/.test(command.replace(/'[^']*'|"[^"]*"/g, ""))) return { reason: "|| chains a second command" };
  const stages: string[][] = [[]];
  // Nothing is expanded: a variable would come back as an object, and is refused like any operator.
  for (const token of parse(command, (key) => ({ op: `$${key}` }) as never)) {
    if (typeof token === "string") {
      stages[stages.length - 1]!.push(token);
      continue;
    }
    if ("op" in token && token.op === "|") {
      if (stages[stages.length - 1]!.length === 0) return { reason: "a pipe with nothing before it" };
      stages.push([]);
      continue;
    }
    return { reason: `${"op" in token ? token.op : "a shell construct"} is not a plain word or pipe` };
  }
  if (stages[stages.length - 1]!.length === 0) return { reason: stages.length > 1 ? "a pipe with nothing after it" : "an empty command" };
  return { stages };
}

/**
 * A word that names a place outside the workspace: absolute, climbing with "..", a glob that
 * could match "..", or (when the root is known) an existing symlink that points out, or a file
 * with more than one hard link.
 */
export function leavesWorkspace(word: string, root?: string): boolean {
  const forms = [word, word.replace(/^--?[\w-]+=/, ""), word.replace(/^-+[A-Za-z]*/, "")];
  for (const value of forms) {
    if (value.startsWith("/")) return true;
    if (value.split("/").some((part) => part === ".." || /^\.[*?[]/.test(part))) return true;
  }
  if (root === undefined || word.startsWith("-")) return false;
  const path = resolve(root, word);
  if (!existsSync(path)) return false;
  // A hard link is the same file as its other names, which may be outside.
  return !isInside(root, realLocation(path)) || hardLinked(path);
}

function hardLinked(path: string): boolean {
  try {
    const st = statSync(path);
    return st.isFile() && st.nlink > 1;
  } catch {
    return false;
  }
}
