/**
 * s07 · what replaces the block list: read-only commands run freely, anything else asks first.
 *
 * "Read-only" is decided by parsing, conservatively. The command is split into words and
 * pipeline stages by a kept shell parser (shell-quote), after a scan that refuses everything the
 * shell would rewrite before running ($, `…`, \, globs * ? [ ], braces, ~, redirections, ;, &,
 * sub-shells, newlines), since a parser that does not expand them cannot say what would run.
 * Every stage must be a command from a short allow list, and each of its options must be on that
 * command's EXACT list: no abbreviations (--compress-prog is not --compress-program to us, though
 * it is to sort), no `=` forms that are not listed, nothing that executes or reads a named file
 * (--files0-from, -f FILE), nothing that follows symlinks (-R, -L). Paths out of the workspace ask.
 * A false "ask" costs a keypress; a false "read-only" could cost the repository.
 *
 * This is a policy, for clear answers to the model: the boundary is the OS sandbox underneath
 * (runtime/tools/sandbox.ts), which holds even when a check here is fooled.
 */
import { existsSync, statSync } from "node:fs";
import { resolve } from "node:path";
import { createInterface } from "node:readline/promises";
import { parse } from "shell-quote";
import { todo } from "../../runtime/lesson.ts";
import { isInside, realLocation } from "./workspace.ts";

export type Verdict = { readOnly: true } | { readOnly: false; reason: string };

// #region allow-list
/** What one command accepts without asking: an exact list, nothing inferred. */
interface OptionSpec {
  /** Single-letter flags without a value; they may be grouped (-la). */
  letters?: string;
  /** Long flags without a value, exactly as written. */
  long?: string[];
  /**
   * Options that take a value, exactly as written ("-n", "--lines"), with the value's pattern.
   * A short one may carry it attached (-n5) or as the next word; a long one after "=" or as the
   * next word.
   */
  values?: Record<string, RegExp>;
  /** head/tail's old form: -5 for -n 5. */
  digits?: boolean;
}

const NUM = /^[+-]?\d{1,12}$/;
const SIZE = /^[+-]?\d{1,12}[bkKmMgG]?$/;
const ANY = /^[^\0]*$/;
const CHAR = /^.$/su;

/** Checks a command's arguments against its exact list; the reason it asks, or null. */
function options(name: string, spec: OptionSpec): (args: string[]) => string | null {
  const values = spec.values ?? {};
  const listed = () => {
    const all = [...(spec.letters ?? "").split("").map((c) => `-${c}`), ...(spec.long ?? []), ...Object.keys(values)];
    return all.length > 0 ? `it runs without asking only with ${all.join(" ")}` : "it runs without asking only without options";
  };
  return (args) => {
    for (let i = 0; i < args.length; i++) {
      const a = args[i]!;
      if (a === "--") return null; // the rest are operands (each is checked for paths outside)
      if (!a.startsWith("-") || a === "-") continue;
      if (spec.digits && /^-\d{1,9}$/.test(a)) continue;
      if (a.startsWith("--")) {
        if (spec.long?.includes(a)) continue;
        const eq = a.indexOf("=");
        const opt = eq < 0 ? a : a.slice(0, eq);
        const pattern = values[opt];
        if (!pattern || !opt.startsWith("--")) return `${name} ${a} is not an option on this course's exact list (${listed()})`;
        const value = eq < 0 ? args[++i] : a.slice(eq + 1);
        if (value === undefined || !pattern.test(value)) return `${name} ${opt} needs a plain value here`;
        continue;
      }
      for (let j = 1; j < a.length; j++) {
        const flag = `-${a[j]}`;
        const pattern = values[flag];
        if (pattern) {
          const value = j + 1 < a.length ? a.slice(j + 1) : args[++i];
          if (value === undefined || !pattern.test(value)) return `${name} ${flag} needs a plain value here`;
          break;
        }
        if (!(spec.letters ?? "").includes(a[j]!)) return `${name} ${flag} is not an option on this course's exact list (${listed()})`;
      }
    }
    return null;
  };
}

/** find: every word that starts with "-" must be one of these predicates (with how many values follow). */
const FIND_PREDICATES: Record<string, number> = {
  "-name": 1, "-iname": 1, "-path": 1, "-ipath": 1, "-wholename": 1, "-type": 1, "-maxdepth": 1, "-mindepth": 1,
  "-size": 1, "-mtime": 1, "-mmin": 1, "-newer": 1, "-empty": 0, "-print": 0, "-print0": 0, "-prune": 0,
  "-o": 0, "-a": 0, "-or": 0, "-and": 0, "-not": 0, "-true": 0, "-false": 0, "-depth": 0,
};

function find(args: string[]): string | null {
  for (let i = 0; i < args.length; i++) {
    const a = args[i]!;
    if (!a.startsWith("-")) continue;
    const n = FIND_PREDICATES[a];
    if (n === undefined)
      return `find ${a} is not on this course's exact list (it may run, write, delete, read a named file or follow links; the list: ${Object.keys(FIND_PREDICATES).join(" ")})`;
    i += n;
  }
  return null;
}

/** Commands that only read, each with the exact options it may have without asking. */
const READ_ONLY: Record<string, (args: string[]) => string | null> = {
  ls: options("ls", { letters: "aAlhdFRrtSi1", long: ["--all", "--almost-all", "--human-readable", "--directory", "--recursive", "--reverse"] }),
  cat: options("cat", { letters: "AbeEnstTuv", long: ["--number", "--show-all"] }),
  head: options("head", { letters: "qv", digits: true, values: { "-n": SIZE, "-c": SIZE, "--lines": SIZE, "--bytes": SIZE } }),
  tail: options("tail", { letters: "qv", digits: true, values: { "-n": SIZE, "-c": SIZE, "--lines": SIZE, "--bytes": SIZE } }),
  wc: options("wc", { letters: "lwcmL", long: ["--lines", "--words", "--bytes", "--chars", "--max-line-length"] }),
  grep: options("grep", {
    letters: "inrlLcvwxEFGHhoqsIz",
    long: ["--ignore-case", "--line-number", "--recursive", "--files-with-matches", "--files-without-match", "--count", "--invert-match",
      "--word-regexp", "--line-regexp", "--extended-regexp", "--fixed-strings", "--with-filename", "--no-filename", "--only-matching", "--quiet", "--silent"],
    values: { "-e": ANY, "-m": NUM, "-A": NUM, "-B": NUM, "-C": NUM, "--regexp": ANY, "--max-count": NUM, "--context": NUM,
      "--after-context": NUM, "--before-context": NUM, "--include": ANY, "--exclude": ANY, "--exclude-dir": ANY },
  }),
  pwd: options("pwd", {}),
  echo: options("echo", { letters: "neE" }),
  true: options("true", {}),
  false: options("false", {}),
  stat: options("stat", { letters: "tf", values: { "-c": ANY, "--format": ANY } }),
  du: options("du", { letters: "shacbkmx", values: { "-d": NUM, "--max-depth": NUM } }),
  diff: options("diff", { letters: "uqiwbBatN", long: ["--brief", "--unified", "--ignore-case", "--text"], values: { "-U": NUM } }),
  cut: options("cut", { letters: "s", long: ["--complement", "--only-delimited"], values: { "-d": CHAR, "-f": /^[\d,-]+$/, "-c": /^[\d,-]+$/, "-b": /^[\d,-]+$/ } }),
  tr: options("tr", { letters: "cdsC" }),
  basename: options("basename", { letters: "az", values: { "-s": ANY } }),
  dirname: options("dirname", { letters: "z" }),
  which: options("which", { letters: "a" }),
  find,
  sort: options("sort", {
    letters: "bdfginMhrVsucCmz",
    long: ["--numeric-sort", "--reverse", "--unique", "--ignore-case", "--human-numeric-sort", "--version-sort", "--stable"],
    values: { "-k": /^[\w.,]+$/, "-t": CHAR, "--key": /^[\w.,]+$/, "--field-separator": CHAR },
  }),
};
// #endregion allow-list

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
function leavesWorkspace(word: string, root?: string): boolean {
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

// #region classify
/** Is `command`, run in the workspace `root`, read-only by this course's conservative rules? */
export function classify(command: string, root?: string): Verdict {
  const parsed = words(command);
  if ("reason" in parsed) return { readOnly: false, reason: parsed.reason };
  // TODO: for every pipeline stage [name, ...args] of parsed.stages, the command is NOT read-only
  //       (say why in `reason`) when: `name` is not a key of READ_ONLY; or an argument
  //       `leavesWorkspace(arg, root)`; or READ_ONLY[name](args) returns a reason. Otherwise it is.
  void leavesWorkspace;
  return todo("s07 classify: decide from the parsed stages whether the command only reads");
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
