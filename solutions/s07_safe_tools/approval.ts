/**
 * s07 · what replaces the block list: read-only commands run freely, anything else asks first.
 *
 * "Read-only" is decided by parsing, conservatively: the command is split into words and
 * pipeline stages; every stage must be a command from a short allow list, with no option that
 * writes or runs something; and anything the shell would rewrite before running ($, `…`, \,
 * redirections, ;, &&, sub-shells, paths out of the workspace) makes the command "ask first".
 * A false "ask" costs a keypress; a false "read-only" could cost the repository.
 */
import { existsSync } from "node:fs";
import { resolve } from "node:path";
import { createInterface } from "node:readline/promises";
import { isInside, realLocation } from "./workspace.ts";

export type Verdict = { readOnly: true } | { readOnly: false; reason: string };

// #region allow-list
/** Commands that only read, and the options that would make them write or run something. */
const READ_ONLY: Record<string, (args: string[]) => string | null> = {
  ls: none, cat: none, head: none, tail: none, wc: none, grep: none, pwd: none, echo: none,
  stat: none, du: none, diff: none, cut: none, tr: none, basename: none, dirname: none,
  which: none, true: none, false: none,
  find: (args) => {
    const bad = args.find((a) => /^-(exec|execdir|ok|okdir|delete|fprint0?|fprintf|fls)$/.test(a));
    return bad ? `find ${bad} runs or writes something` : null;
  },
  sort: (args) => {
    const bad = args.find((a) => /^--(output|compress-program)/.test(a) || /^-[^-]*o/.test(a));
    return bad ? `sort ${bad} writes a file` : null;
  },
};
function none(): null {
  return null;
}
// #endregion allow-list

/** Splits a command into pipeline stages of words, or says why it will not try. */
export function words(command: string): { stages: string[][] } | { reason: string } {
  const stages: string[][] = [[]];
  let word: string | null = null;
  let quote: "'" | '"' | null = null;
  const stage = () => stages[stages.length - 1]!;
  const end = () => {
    if (word !== null) stage().push(word);
    word = null;
  };
  for (let i = 0; i < command.length; i++) {
    const c = command[i]!;
    if (quote === "'") {
      if (c === "'") quote = null;
      else word += c;
      continue;
    }
    if (quote === '"') {
      if (c === '"') quote = null;
      else if (c === "$" || c === "`" || c === "\\") return { reason: `${c} inside double quotes is expanded by the shell` };
      else word += c;
      continue;
    }
    if (c === "'" || c === '"') {
      quote = c;
      word ??= "";
      continue;
    }
    if (c === " " || c === "\t") {
      end();
      continue;
    }
    if (c === "|") {
      if (command[i + 1] === "|") return { reason: "|| chains a second command" };
      end();
      if (stage().length === 0) return { reason: "a pipe with nothing before it" };
      stages.push([]);
      continue;
    }
    if (c === "$") return { reason: "$ expands a variable or runs a command substitution" };
    if (c === "`") return { reason: "backquotes run a command substitution" };
    if (c === "\\") return { reason: "a backslash makes the shell read a word differently than it looks" };
    if (c === ">" || c === "<") return { reason: "redirections can write or read files anywhere" };
    if (c === "&") return { reason: command[i + 1] === "&" ? "&& chains a second command" : "& runs a command in the background" };
    if (c === ";" || c === "\n" || c === "\r") return { reason: `${JSON.stringify(c)} starts another command` };
    if (c === "(" || c === ")" || c === "{" || c === "}") return { reason: "sub-shells and groups run other commands" };
    if (c === "~" && word === null) return { reason: "~ reaches the home directory, outside the workspace" };
    word = (word ?? "") + c;
  }
  if (quote) return { reason: "a quote is never closed" };
  end();
  if (stage().length === 0) return { reason: stages.length > 1 ? "a pipe with nothing after it" : "an empty command" };
  return { stages };
}

/**
 * A word that names a place outside the workspace: absolute, climbing with "..", a glob that
 * could match "..", or (when the root is known) an existing symlink that points out.
 */
function leavesWorkspace(word: string, root?: string): boolean {
  const forms = [word, word.replace(/^--?[\w-]+=/, ""), word.replace(/^-+[A-Za-z]*/, "")];
  for (const value of forms) {
    if (value.startsWith("/")) return true;
    if (value.split("/").some((part) => part === ".." || /^\.[*?[]/.test(part))) return true;
  }
  if (root === undefined || word.startsWith("-")) return false;
  const path = resolve(root, word);
  return existsSync(path) && !isInside(root, realLocation(path));
}

// #region classify
/** Is `command`, run in the workspace `root`, read-only by this course's conservative rules? */
export function classify(command: string, root?: string): Verdict {
  const parsed = words(command);
  if ("reason" in parsed) return { readOnly: false, reason: parsed.reason };
  for (const [name = "", ...args] of parsed.stages) {
    const check = READ_ONLY[name];
    if (!check) return { readOnly: false, reason: `${name} is not on the read-only list` };
    const outside = args.find((a) => leavesWorkspace(a, root));
    if (outside !== undefined) return { readOnly: false, reason: `${outside} reaches outside the workspace` };
    const bad = check(args);
    if (bad) return { readOnly: false, reason: bad };
  }
  return { readOnly: true };
}
// #endregion classify

// #region approval
/** Asked before a command that is not read-only runs: yes, or why not. */
export type Decision = { approved: true } | { approved: false; why: string };
export type Approver = (request: { command: string; reason: string }) => Promise<Decision>;

/** For `--yes` (and tests): every command is approved. */
export const approveAll: Approver = async () => ({ approved: true });
/** Nothing but read-only commands. */
export const refuseAll: Approver = async () => ({ approved: false, why: "only read-only commands are allowed in this run" });

/** Commands the user approved in advance (exactly as written); anything else goes to `ask`. */
export function preApproved(commands: readonly string[], ask: Approver): Approver {
  return async (request) => (commands.includes(request.command.trim()) ? { approved: true } : ask(request));
}

export interface TerminalApproverOptions {
  /** --yes: approve without asking. */
  yes?: boolean;
  input?: NodeJS.ReadableStream & { isTTY?: boolean };
  output?: NodeJS.WritableStream;
  /** Ctrl-C at the question: after refusing, pass it on (default: the process gets its SIGINT). */
  onInterrupt?: () => void;
}

/** Asks y/n on the terminal; with no terminal to ask, refuses (unless --yes). */
export function terminalApprover(opts: TerminalApproverOptions = {}): Approver {
  const input = opts.input ?? process.stdin;
  const output = opts.output ?? process.stdout;
  const interrupt = opts.onInterrupt ?? (() => process.kill(process.pid, "SIGINT"));
  return async ({ command, reason }) => {
    if (opts.yes) {
      output.write(`\n(--yes) running without asking: ${command}\n  (${reason})\n`);
      return { approved: true };
    }
    if (!input.isTTY) return { approved: false, why: "there is no terminal to ask for approval (run with --yes to allow such commands)" };
    const rl = createInterface({ input, output });
    // subtle: while readline owns the terminal, Ctrl-C reaches it, not the process. Refuse, then
    // pass the Ctrl-C on, so the run stops as it would anywhere else.
    const asking = new AbortController();
    rl.on("SIGINT", () => asking.abort());
    try {
      const answer = await rl.question(`\nThe model wants to run: ${command}\n  (${reason})\nAllow it? [y/N] `, { signal: asking.signal });
      return /^y(es)?$/i.test(answer.trim()) ? { approved: true } : { approved: false, why: "the user said no" };
    } catch (e) {
      if (!asking.signal.aborted) throw e;
      interrupt();
      return { approved: false, why: "the user pressed Ctrl-C" };
    } finally {
      rl.close();
    }
  };
}
// #endregion approval
