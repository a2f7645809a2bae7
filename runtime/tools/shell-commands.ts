/**
 * What a bash command would run, read the way the shell reads it: s18's rules judge each
 * command found here, not the text as it is spelt.
 *
 * The reader walks the shell's grammar by hand (shell-quote only splits words; it does not know
 * `if`, `for`, `case`, functions or here-documents): lists and pipelines (; & && || | newlines),
 * `!`, sub-shells and brace groups, if / while / until / for / select / case, functions,
 * `[[ … ]]`, `(( … ))`, redirections and here-documents, and inside words the quotes, backslashes,
 * $'…', variables, $(…), backquotes and <(…) / >(…). Every command in any branch counts (the
 * reader does not guess which branch runs), and so does a function's body.
 *
 * A command's name is resolved as the shell would: quotes and backslashes gone (`\rm` is rm), a
 * path's last part (/bin/rm is rm), and through the programs that run another command from
 * their words: command, builtin, exec, env, nice, nohup, timeout, time, sudo, doas, setsid,
 * stdbuf, ionice, busybox, flock, taskset, chrt, prlimit, setpriv, unshare, nsenter, fakeroot,
 * chroot, script -c, xargs, find -exec/-execdir/-ok/-okdir (and -delete, read as rm), the
 * shells' -c (sh, bash, dash, zsh, ksh), eval, trap, mapfile -C, watch and GNU parallel, and the
 * command an option names (tar --to-command, --checkpoint-action=exec=, -I; rsync -e), each read
 * again, recursively. A wrapper not on this list is read as a program like any other: its own name only.
 *
 * Text the shell fills in when the command runs ($X, $(…), globs, ~) is kept as one character,
 * UNKNOWN, that stands for any text. What the reader cannot tell is written in `doubts`: a name
 * that is filled in at run time ($X rm), an alias, a shell reading commands from its input, a
 * quote never closed. Code handed to an interpreter inline (node -e, python -c, awk's system,
 * vim -c, sed's e command), git -c settings that can run a command, and a variable that changes
 * what runs (PATH, also through export; GIT_PAGER, EDITOR, …) go into `unsure`: the command is
 * known, what it does is not.
 *
 * This is policy, read in the agent's own process: the boundary is the OS sandbox (sandbox.ts).
 * A program's own code (npm test, node script.js, make) does what it says, whatever its name.
 */

/** Text the shell fills in when the command runs: it could be anything. */
export const UNKNOWN = "\u0000";

export interface RunCommand {
  /** Its words, quotes and backslashes gone, UNKNOWN where the shell fills text in. */
  words: string[];
  /** The name a rule sees: the last part of a path (/usr/bin/rm → rm). */
  name: string;
  /** Named by a path outside the system's program folders (./rm, node_modules/.bin/x): an allow rule must name the path. */
  pathed: boolean;
  /** It writes a file by redirection (> out.txt): no allow rule for the command covers that. */
  writes: boolean;
}

export interface ShellReading {
  /** Every command that would (or could) run, in the order written, wrappers and what they run both. */
  commands: RunCommand[];
  /** Why what runs cannot be known: no rule may allow it, and a deny rule for commands may be hiding in it. */
  doubts: string[];
  /** Known commands whose effect no rule can judge (inline code, a changed PATH): never allowed by a rule. */
  unsure: string[];
}

const SYSTEM_DIRS = new Set(["/bin", "/usr/bin", "/usr/local/bin", "/sbin", "/usr/sbin", "/usr/local/sbin"]);
/** Variables that change which program a name runs, or what a shell runs first. */
const STEERING =
  /^(PATH|BASH_ENV|ENV|LD_PRELOAD|LD_LIBRARY_PATH|IFS|NODE_OPTIONS|PYTHONSTARTUP|PERL5OPT|BASH_FUNC_.*|PROMPT_COMMAND|PAGER|MANPAGER|EDITOR|VISUAL|LESSOPEN|LESSCLOSE|GIT_PAGER|GIT_EDITOR|GIT_SEQUENCE_EDITOR|GIT_SSH|GIT_SSH_COMMAND|GIT_EXTERNAL_DIFF|GIT_ASKPASS|SSH_ASKPASS|GIT_EXEC_PATH|GIT_CONFIG.*|TAR_OPTIONS|RSYNC_RSH)$/;
const SHELLS = new Set(["sh", "bash", "dash", "zsh", "ksh", "mksh", "ash", "yash", "posh", "rbash"]);
const OPERATORS = [";;&", "&>>", "<<-", "<<<", ";;", ";&", "&&", "||", "|&", "&>", "<<", "<>", ">>", ">|", ">&", "<&", ";", "&", "|", "(", ")", "<", ">", "\n"];
const REDIRECTS = new Set(["<", ">", ">>", ">|", "<>", "&>", "&>>", ">&", "<&", "<<", "<<-", "<<<"]);
const WRITING = new Set([">", ">>", ">|", "<>", "&>", "&>>", ">&"]);
const MAX_DEPTH = 12;
const MAX_NESTING = 100;
/** A glob's [class], a brace expansion {a,b} or {1..3}, a parameter's name after $: read where they start (sticky). */
const GLOB_CLASS = /\[[^\s;&|()<>]{0,64}\]/y;
const BRACE_EXPANSION = /\{[^\s;&|()<>{}]{0,64}?(,|\.\.)[^\s;&|()<>{}]{0,64}\}/y;
/** More than the two above read: a word that long after [ or { is not read with confidence. */
const LONG_WORD = /[^\s;&|()<>]{65}/y;
const PARAMETER = /[A-Za-z_][A-Za-z0-9_]*|[0-9@*#?$!-]/y;

interface Word {
  kind: "word";
  /** The value, UNKNOWN where the shell fills text in. */
  text: string;
  /** As written. */
  raw: string;
}
interface Op {
  kind: "op";
  op: string;
}
type Token = Word | Op | { kind: "eof" } | { kind: "arith"; body: string };

class Unreadable extends Error {}

let last: { command: string; reading: ShellReading } | null = null;

/** What `command` would run; never throws (what it cannot read is a doubt). The reading is shared: do not change it. */
export function readCommand(command: string): ShellReading {
  // Each rule asks about the same command in turn: read it once.
  if (last?.command === command) return last.reading;
  const out: ShellReading = { commands: [], doubts: [], unsure: [] };
  read(command, out, 0);
  last = { command, reading: out };
  return out;
}

function read(source: string, out: ShellReading, depth: number): void {
  if (depth > MAX_DEPTH) return void out.doubts.push("commands nested too deep to follow");
  if (source.includes("\0")) return void out.doubts.push("the command contains a NUL byte");
  try {
    new Reader(source, out, depth).all();
  } catch (e) {
    if (e instanceof RangeError) return void out.doubts.push("commands nested too deep to follow");
    if (!(e instanceof Unreadable)) throw e;
    out.doubts.push(e.message);
  }
}

class Reader {
  private pos = 0;
  private peeked: Token | null = null;
  /** How many lists deep the reader is (groups, sub-shells, $(…) inside this text). */
  private level = 0;
  /** Right after <( or >(: bash reads "((" there as two sub-shells, not arithmetic. */
  private plainParen = false;
  private heredocs: Array<{ delimiter: string; strip: boolean; expands: boolean }> = [];

  constructor(
    private readonly src: string,
    private readonly out: ShellReading,
    private readonly depth: number,
  ) {}

  all(): void {
    this.list(() => false);
    const t = this.peek();
    if (t.kind !== "eof") throw new Unreadable(`unexpected ${show(t)}`);
  }

  // ── grammar ──

  /** Commands separated by ; & && || | ! and newlines, until `stop` says a token ends the list. */
  private list(stop: (t: Token) => boolean): void {
    for (;;) {
      const t = this.peek();
      if (t.kind === "eof" || stop(t)) return;
      if (t.kind === "op" && [";", "&", "\n", "&&", "||", "|", "|&"].includes(t.op)) {
        this.take();
        continue;
      }
      if (isWord(t, "!")) {
        this.take();
        continue;
      }
      this.command(stop);
    }
  }

  private command(stop: (t: Token) => boolean): void {
    if (++this.level > MAX_NESTING) throw new Unreadable("commands nested too deep to follow");
    try {
      this.compound(stop);
    } finally {
      this.level--;
    }
  }

  private compound(stop: (t: Token) => boolean): void {
    const t = this.peek();
    if (t.kind === "arith") {
      this.take();
      this.arithmetic(t.body);
    } else if (t.kind === "op" && t.op === "(") {
      this.take();
      this.list((x) => isOp(x, ")"));
      this.expectOp(")");
    } else if (t.kind === "op") {
      if (!redirectOf(t)) throw new Unreadable(`unexpected ${show(t)}`);
      this.simple();
      return;
    } else if (t.kind === "word" && t.raw === t.text && Object.hasOwn(KEYWORDS, t.text)) {
      this.take();
      KEYWORDS[t.text]!(this, stop);
    } else {
      this.simple();
      return;
    }
    this.redirections();
  }

  private simple(): void {
    const words: string[] = [];
    let writes = false;
    for (;;) {
      const t = this.peek();
      if (t.kind === "word") {
        this.take();
        const assignment = /^([A-Za-z_][A-Za-z0-9_]*)(\[[^\]]*\])?\+?=/.exec(t.raw);
        if (words.length === 0 && assignment) {
          if (STEERING.test(assignment[1]!)) this.out.unsure.push(`${assignment[1]} is set, which changes what runs`);
          if (t.raw.endsWith("=") && isOp(this.peek(), "(")) this.arrayValue();
          continue;
        }
        words.push(t.text);
        // name() { …; }: a function; its body counts as commands that run.
        if (words.length === 1 && isOp(this.peek(), "(")) {
          this.take();
          this.expectOp(")");
          this.skipNewlines();
          this.command(() => false);
          return;
        }
        continue;
      }
      const redirect = redirectOf(t);
      if (redirect) {
        this.take();
        writes = this.redirection(redirect) || writes;
        continue;
      }
      break;
    }
    if (words.length > 0) this.run(words, writes, 0);
  }

  private redirections(): void {
    for (let op = redirectOf(this.peek()); op; op = redirectOf(this.peek())) {
      this.take();
      this.redirection(op);
    }
  }

  /** One redirection (its operator taken); true when it writes a file. */
  private redirection(op: string): boolean {
    const target = this.take();
    if (target.kind !== "word") throw new Unreadable(`a redirection ${op} with no file after it`);
    if (op === "<<" || op === "<<-") {
      this.heredocs.push({ delimiter: unquote(target.raw), strip: op === "<<-", expands: !/['"\\]/.test(target.raw) });
      return false;
    }
    if (!WRITING.has(op)) return false;
    if ((op === ">&" || op === "<&") && /^(\d+-?|-)$/.test(target.text)) return false;
    return target.text !== "/dev/null";
  }

  private arrayValue(): void {
    this.take();
    while (!isOp(this.peek(), ")")) if (this.take().kind === "eof") throw new Unreadable("an array ( is never closed");
    this.take();
  }

  expectOp(op: string): void {
    const t = this.take();
    if (!isOp(t, op)) throw new Unreadable(`expected ${JSON.stringify(op)}, found ${show(t)}`);
  }

  expectWord(word: string): void {
    const t = this.take();
    if (!isWord(t, word)) throw new Unreadable(`expected "${word}", found ${show(t)}`);
  }

  skipNewlines(): void {
    while (isOp(this.peek(), "\n") || isOp(this.peek(), ";")) this.take();
  }

  /** Keyword bodies: a list up to one of `ends`, which is taken and returned. */
  until(...ends: string[]): string {
    this.list((t) => ends.some((e) => isWord(t, e)));
    const t = this.take();
    if (t.kind !== "word" || !ends.includes(t.text)) throw new Unreadable(`expected ${ends.join(" or ")}, found ${show(t)}`);
    return t.text;
  }

  /** Words up to a separator (for's list, case's word): already read for their substitutions. */
  wordsUntilSeparator(): void {
    while (this.peek().kind === "word") this.take();
  }

  skipWords(...words: string[]): void {
    while (words.some((w) => isWord(this.peek(), w))) this.take();
  }

  tokenAfter(): Token {
    return this.peek();
  }

  takeToken(): Token {
    return this.take();
  }

  body(): void {
    this.skipNewlines();
    const t = this.peek();
    if (isWord(t, "do")) {
      this.take();
      this.until("done");
    } else this.command(() => false);
  }

  caseItems(): void {
    for (;;) {
      this.skipNewlines();
      const t = this.peek();
      if (isWord(t, "esac")) return void this.take();
      if (t.kind === "eof") throw new Unreadable("case is never closed with esac");
      if (isOp(t, "(")) this.take();
      // The patterns, up to ")".
      for (;;) {
        const p = this.take();
        if (isOp(p, ")")) break;
        if (p.kind === "eof") throw new Unreadable("a case pattern is never closed with )");
      }
      this.list((x) => isWord(x, "esac") || (x.kind === "op" && [";;", ";&", ";;&"].includes(x.op)));
      if (this.peek().kind === "op") this.take();
    }
  }

  conditional(): void {
    for (;;) {
      const t = this.take();
      if (isWord(t, "]]")) return;
      if (t.kind === "eof") throw new Unreadable("[[ is never closed with ]]");
    }
  }

  arithmetic(body: string): void {
    // $( ) and backquotes inside arithmetic run too; anything else there is a number.
    new Reader(body, this.out, this.depth + 1).expansions();
  }

  // ── what runs ──

  /** A simple command's words: record it, then what it runs in turn. */
  private run(words: string[], writes: boolean, hops: number): void {
    if (hops > MAX_DEPTH) return void this.out.doubts.push("too many wrappers to follow");
    const word = words[0]!;
    const slash = word.lastIndexOf("/");
    const name = word.slice(slash + 1);
    if (name === "" || name.includes(UNKNOWN)) return void this.out.doubts.push(`the command's name (${visible(word).slice(0, 60)}) is only known when it runs`);
    const pathed = slash >= 0 && !SYSTEM_DIRS.has(word.slice(0, slash).replace(/\/+$/, "") || "/");
    this.out.commands.push({ words, name, pathed, writes });
    for (const inner of innerCommands(name, words.slice(1), this.out)) {
      if (typeof inner !== "string") this.run(inner, false, hops + 1);
      else if (inner.includes(UNKNOWN)) this.out.doubts.push(`${name} runs text that is only known when it runs (${visible(inner).slice(0, 60)})`);
      else read(inner, this.out, this.depth + 1);
    }
  }

  // ── words ──

  private peek(): Token {
    this.peeked ??= this.lex();
    return this.peeked;
  }

  private take(): Token {
    const t = this.peek();
    this.peeked = null;
    return t;
  }

  private lex(): Token {
    this.blanks();
    if (this.pos >= this.src.length) return { kind: "eof" };
    const rest = this.src.slice(this.pos, this.pos + 3);
    if (rest[0] === "\n") {
      this.pos++;
      this.readHeredocs();
      return { kind: "op", op: "\n" };
    }
    const first = this.plainParen;
    this.plainParen = false;
    if (rest.startsWith("((") && !first) {
      // (( … )) is arithmetic; "((a) )" is two sub-shells, as bash reads it.
      const end = this.closing(this.pos + 2, "(", ")", 1);
      if (this.src[end + 1] === ")") {
        const body = this.src.slice(this.pos + 2, end);
        this.pos = end + 2;
        return { kind: "arith", body };
      }
    }
    if ((rest[0] === "<" || rest[0] === ">") && rest[1] === "(") return this.word();
    const fd = /^(\d+|\{[A-Za-z_][A-Za-z0-9_]*\})(?=[<>])/.exec(this.src.slice(this.pos, this.pos + 40));
    const at = this.pos + (fd ? fd[0].length : 0);
    const op = OPERATORS.find((o) => this.src.startsWith(o, at) && (!fd || REDIRECTS.has(o)));
    if (op && !((op === "<" || op === ">") && this.src[at + 1] === "(")) {
      this.pos = at + op.length;
      return { kind: "op", op: (fd ? fd[0] : "") + op };
    }
    return this.word();
  }

  private blanks(): void {
    for (;;) {
      const c = this.src[this.pos];
      if (c === " " || c === "\t" || c === "\r") this.pos++;
      else if (c === "\\" && this.src[this.pos + 1] === "\n") this.pos += 2;
      else if (c === "#") while (this.pos < this.src.length && this.src[this.pos] !== "\n") this.pos++;
      else return;
    }
  }

  private word(): Word {
    const start = this.pos;
    let text = "";
    for (;;) {
      const c = this.src[this.pos];
      if (c === undefined || " \t\r\n;&|()".includes(c)) break;
      if ((c === "<" || c === ">") && this.src[this.pos + 1] !== "(") break;
      if ((c === "<" || c === ">") && this.src[this.pos + 1] === "(") {
        this.pos += 2;
        this.plainParen = true;
        this.nested(")");
        text += UNKNOWN;
      } else if (c === "\\") {
        const next = this.src[this.pos + 1];
        this.pos += 2;
        if (next !== "\n" && next !== undefined) text += next;
      } else if (c === "'") {
        const end = this.src.indexOf("'", this.pos + 1);
        if (end < 0) throw new Unreadable("a quote (') is never closed");
        text += this.src.slice(this.pos + 1, end);
        this.pos = end + 1;
      } else if (c === "$" && this.src[this.pos + 1] === "'") text += this.ansiC();
      else if (c === '"' || (c === "$" && this.src[this.pos + 1] === '"')) text += this.doubleQuoted(c === "$" ? 2 : 1);
      else if (c === "$") text += this.dollar();
      else if (c === "`") text += this.backquoted();
      else if (c === "*" || c === "?") {
        text += UNKNOWN;
        this.pos++;
      } else if ((c === "[" && this.sticky(GLOB_CLASS)) || (c === "{" && this.sticky(BRACE_EXPANSION))) {
        text += UNKNOWN;
      } else if ((c === "[" || c === "{") && ((LONG_WORD.lastIndex = this.pos), LONG_WORD.test(this.src))) {
        throw new Unreadable(`a glob or brace expansion too long to read (${this.src.slice(this.pos, this.pos + 20)}…)`);
      } else if (c === "~" && this.pos === start) {
        this.pos++;
        while (/[A-Za-z0-9_.+-]/.test(this.src[this.pos] ?? "")) this.pos++;
        text += UNKNOWN;
      } else {
        text += c;
        this.pos++;
      }
    }
    if (this.pos === start) throw new Unreadable(`unexpected ${JSON.stringify(this.src[this.pos])}`);
    return { kind: "word", text, raw: this.src.slice(start, this.pos) };
  }

  /** Takes what `re` (sticky) matches here, if it does. */
  private sticky(re: RegExp): boolean {
    re.lastIndex = this.pos;
    if (!re.test(this.src)) return false;
    this.pos = re.lastIndex;
    return true;
  }

  /** "…" (from its opening quote, `skip` characters long): the text, UNKNOWN for each expansion. */
  private doubleQuoted(skip: number): string {
    this.pos += skip;
    let text = "";
    for (;;) {
      const c = this.src[this.pos];
      if (c === undefined) throw new Unreadable('a quote (") is never closed');
      if (c === '"') {
        this.pos++;
        return text;
      }
      if (c === "\\" && '$`"\\\n'.includes(this.src[this.pos + 1] ?? "")) {
        if (this.src[this.pos + 1] !== "\n") text += this.src[this.pos + 1];
        this.pos += 2;
      } else if (c === "$") text += this.dollar();
      else if (c === "`") text += this.backquoted();
      else {
        text += c;
        this.pos++;
      }
    }
  }

  /** $name, ${…}, $(…), $((…)): UNKNOWN (and the commands inside read), or a plain "$". */
  private dollar(): string {
    const next = this.src[this.pos + 1];
    if (next === "(" && this.src[this.pos + 2] === "(") {
      const end = this.closing(this.pos + 3, "(", ")", 1);
      if (this.src[end + 1] === ")") {
        this.arithmetic(this.src.slice(this.pos + 3, end));
        this.pos = end + 2;
        return UNKNOWN;
      }
    }
    if (next === "(") {
      this.pos += 2;
      this.nested(")");
      return UNKNOWN;
    }
    if (next === "{") {
      const end = this.closing(this.pos + 2, "{", "}", 1);
      new Reader(this.src.slice(this.pos + 2, end), this.out, this.depth + 1).expansions();
      this.pos = end + 1;
      return UNKNOWN;
    }
    this.pos++;
    return this.sticky(PARAMETER) ? UNKNOWN : "$";
  }

  /** `…`: the commands inside read (its backslashes first undone), UNKNOWN for the text. */
  private backquoted(): string {
    let inner = "";
    let i = this.pos + 1;
    for (; i < this.src.length && this.src[i] !== "`"; i++) {
      if (this.src[i] === "\\" && "$`\\".includes(this.src[i + 1] ?? "")) i++;
      inner += this.src[i];
    }
    if (i >= this.src.length) throw new Unreadable("a backquote (`) is never closed");
    this.pos = i + 1;
    read(inner, this.out, this.depth + 1);
    return UNKNOWN;
  }

  /** $'…': its escapes decoded, as the shell does ($'\x72m' is rm). */
  private ansiC(): string {
    let text = "";
    let i = this.pos + 2;
    const simple: Record<string, string> = { n: "\n", t: "\t", r: "\r", a: "\x07", b: "\b", e: "\x1b", E: "\x1b", f: "\f", v: "\v", "\\": "\\", "'": "'", '"': '"', "?": "?" };
    for (; i < this.src.length && this.src[i] !== "'"; i++) {
      if (this.src[i] !== "\\") {
        text += this.src[i];
        continue;
      }
      const e = this.src[++i] ?? "";
      const hex = /^(x[0-9a-fA-F]{1,2}|u[0-9a-fA-F]{1,4}|U[0-9a-fA-F]{1,8}|[0-7]{1,3})/.exec(this.src.slice(i, i + 9));
      if (simple[e] !== undefined) text += simple[e];
      else if (hex) {
        const digits = hex[0];
        text += String.fromCodePoint(/^[0-7]/.test(digits) ? parseInt(digits, 8) : parseInt(digits.slice(1), 16));
        i += digits.length - 1;
      } else if (e === "c") {
        text += UNKNOWN;
        i++;
      } else text += `\\${e}`;
    }
    if (i >= this.src.length) throw new Unreadable("a quote ($') is never closed");
    this.pos = i + 1;
    return text;
  }

  /** A list inside $(…) or <(…), read in place up to its closing parenthesis. */
  private nested(close: string): void {
    if (this.depth >= MAX_DEPTH) throw new Unreadable("commands nested too deep to follow");
    const saved = this.peeked;
    this.peeked = null;
    this.list((t) => isOp(t, close));
    this.expectOp(close);
    this.peeked = saved;
  }

  /** Where the bracket opened before `from` closes (quotes skipped); throws when it never does. */
  private closing(from: number, open: string, close: string, depth: number): number {
    let quote: string | null = null;
    for (let i = from; i < this.src.length; i++) {
      const c = this.src[i];
      if (quote) {
        if (c === "\\" && quote === '"') i++;
        else if (c === quote) quote = null;
      } else if (c === "\\") i++;
      else if (c === "'" || c === '"') quote = c;
      else if (c === open) depth++;
      else if (c === close && --depth === 0) return i;
    }
    throw new Unreadable(`a ${open} is never closed with ${close}`);
  }

  /** Text whose $(…), backquotes and ${…} run (a here-document's body, arithmetic): read only those. */
  expansions(): void {
    try {
      while (this.pos < this.src.length) {
        const c = this.src[this.pos];
        if (c === "\\") this.pos += 2;
        else if (c === "$") this.dollar();
        else if (c === "`") this.backquoted();
        else this.pos++;
      }
    } catch (e) {
      if (!(e instanceof Unreadable)) throw e;
      this.out.doubts.push(e.message);
    }
  }

  /** After a new line: the bodies of the here-documents opened on the line before. */
  private readHeredocs(): void {
    for (const doc of this.heredocs.splice(0)) {
      const lines: string[] = [];
      for (;;) {
        if (this.pos >= this.src.length) break;
        const eol = this.src.indexOf("\n", this.pos);
        const line = this.src.slice(this.pos, eol < 0 ? this.src.length : eol);
        this.pos = eol < 0 ? this.src.length : eol + 1;
        if ((doc.strip ? line.replace(/^\t+/, "") : line) === doc.delimiter) break;
        lines.push(line);
      }
      if (doc.expands) new Reader(lines.join("\n"), this.out, this.depth + 1).expansions();
    }
  }
}

type Keyword = (r: Reader, stop: (t: Token) => boolean) => void;
const KEYWORDS: Record<string, Keyword> = {
  "{": (r) => void r.until("}"),
  if: (r) => {
    for (;;) {
      r.until("then");
      const end = r.until("elif", "else", "fi");
      if (end === "fi") return;
      if (end === "else") return void r.until("fi");
    }
  },
  while: (r) => {
    r.until("do");
    r.until("done");
  },
  until: (r) => {
    r.until("do");
    r.until("done");
  },
  for: (r) => loop(r),
  select: (r) => loop(r),
  case: (r) => {
    r.takeToken();
    r.skipNewlines();
    r.expectWord("in");
    r.caseItems();
  },
  function: (r) => {
    r.takeToken();
    if (isOp(r.tokenAfter(), "(")) {
      r.takeToken();
      r.expectOp(")");
    }
    r.body();
  },
  "[[": (r) => r.conditional(),
  // time [-p] and coproc come before a command: the list goes on to read it.
  time: (r) => r.skipWords("-p", "--"),
  coproc: () => {},
};

/** for NAME [in WORDS]; do …; done, and for ((…)); do …; done. */
function loop(r: Reader): void {
  const t = r.takeToken();
  if (t.kind === "arith") r.arithmetic(t.body);
  else if (t.kind !== "word") throw new Unreadable(`for needs a name, found ${show(t)}`);
  r.skipNewlines();
  if (isWord(r.tokenAfter(), "in")) {
    r.takeToken();
    r.wordsUntilSeparator();
  }
  r.body();
}

// ── the programs that run another command from their words ──

/** Options of a wrapper: which take a value (the next word, or joined: -n5, --signal=KILL). */
function skipOptions(args: string[], withValue: string[], opts: { stopAtFirst?: boolean } = {}): string[] {
  let i = 0;
  while (i < args.length) {
    const a = args[i]!;
    if (a === "--") return args.slice(i + 1);
    if (!a.startsWith("-") || a === "-") break;
    i += withValue.includes(a) ? 2 : 1;
    if (opts.stopAtFirst) break;
  }
  return args.slice(i);
}

/**
 * What `name` runs from its arguments: each an argv, or a command string to read again.
 * Doubts and unsure commands are written to `out`.
 */
function innerCommands(name: string, args: string[], out: ShellReading): Array<string[] | string> {
  const inner = innerCommand(name, args, out);
  return inner === null ? [] : Array.isArray(inner) && (inner.length === 0 || Array.isArray(inner[0])) ? (inner as string[][]) : [inner as string[] | string];
}

function innerCommand(name: string, args: string[], out: ShellReading): string[] | string | string[][] | null {
  switch (name) {
    case "command":
      return args.some((a) => /^-[pvV]*[vV]/.test(a)) ? null : skipOptions(args, []);
    case "builtin":
    case "nohup":
    case "busybox":
      return args[0] === "--" ? args.slice(1) : args;
    case "exec":
      return skipOptions(args, ["-a"]);
    case "nice":
      return skipOptions(args, ["-n", "--adjustment"]);
    case "time":
      return skipOptions(args, ["-f", "-o", "--format", "--output"]);
    case "setsid":
    case "stdbuf":
      return skipOptions(args, ["-i", "-o", "-e"]);
    case "ionice":
      return skipOptions(args, ["-c", "-n", "-p", "-P", "-u", "--class", "--classdata"]);
    case "doas":
      return skipOptions(args, ["-u", "-C"]);
    case "sudo": {
      const rest = skipOptions(args, ["-u", "-g", "-h", "-p", "-r", "-t", "-U", "-C", "-D", "-T", "-R", "--user", "--group", "--host", "--prompt", "--role", "--type", "--other-user", "--close-from", "--chdir", "--command-timeout", "--chroot"]);
      const opts = args.slice(0, args.length - rest.length);
      if (opts.some((a) => /^-[a-zA-Z]*e/.test(a) || a === "--edit")) return null;
      if (rest.length === 0 && opts.some((a) => /^-[a-zA-Z]*[si]/.test(a) || a === "--shell" || a === "--login")) out.doubts.push("sudo -s / -i starts a shell that reads its commands from its input");
      return rest;
    }
    case "timeout": {
      const rest = skipOptions(args, ["-s", "-k", "--signal", "--kill-after"]);
      return rest.slice(1);
    }
    case "env":
      return envCommand(args, out);
    case "xargs": {
      const rest = skipOptions(args, ["-I", "-L", "-n", "-P", "-s", "-d", "-E", "-a", "--arg-file", "--delimiter", "--max-args", "--max-lines", "--max-procs", "--max-chars", "--eof", "--replace", "--process-slot-var"]);
      return [...(rest.length ? rest : ["echo"]), UNKNOWN];
    }
    case "find":
      return findCommands(args);
    case "eval":
      return args.join(" ");
    case "trap": {
      const rest = skipOptions(args, []);
      return rest.length >= 2 && rest[0] !== "-" ? rest[0]! : null;
    }
    case "watch":
      return skipOptions(args, ["-n", "--interval", "-d", "-q", "--equexit"]).join(" ") || null;
    case "flock": {
      // flock [options] FILE COMMAND… | flock [options] FILE -c STRING | flock [options] FD (no command)
      const c = args.findIndex((a) => a === "-c" || a === "--command");
      if (c >= 0) return args[c + 1] ?? null;
      return skipOptions(args, ["-w", "--timeout", "-E", "--conflict-exit-code"]).slice(1);
    }
    case "taskset":
      // taskset [options] MASK COMMAND…; with -p it changes a running process and runs nothing.
      return args.some((a) => a === "--pid" || /^-[a-z]*p/.test(a)) ? null : skipOptions(args, []).slice(1);
    case "chrt":
      return args.some((a) => a === "--pid" || /^-[a-zA-Z]*p/.test(a)) ? null : skipOptions(args, ["-T", "-P", "-D", "--sched-runtime", "--sched-period", "--sched-deadline"]).slice(1);
    case "prlimit":
      return args.some((a) => a === "--pid" || a === "-p" || a.startsWith("--pid=")) ? null : skipOptions(args, ["-o", "--output"]);
    case "setpriv":
      return skipOptions(args, ["--reuid", "--regid", "--ruid", "--rgid", "--euid", "--egid", "--groups", "--inh-caps", "--ambient-caps", "--bounding-set", "--securebits", "--pdeathsig", "--selinux-label", "--apparmor-profile", "--landlock-access", "--landlock-rule"]);
    case "unshare":
    case "nsenter":
    case "fakeroot":
    case "chroot": {
      const values: Record<string, string[]> = {
        unshare: ["-S", "-G", "-R", "-w", "--setuid", "--setgid", "--root", "--wd", "--map-user", "--map-group", "--map-users", "--map-groups", "--propagation"],
        nsenter: ["-t", "--target", "-S", "-G", "--setuid", "--setgid"],
        fakeroot: ["-l", "--lib", "--faked", "-i", "-s", "-b", "--fd-base"],
        chroot: [],
      };
      const rest = skipOptions(args, values[name]!);
      const command = name === "chroot" ? rest.slice(1) : rest;
      // With no command each starts a shell, which reads its commands from its input.
      if (command.length === 0) out.doubts.push(`${name} with no command starts a shell that reads its commands from its input`);
      return command;
    }
    case "script": {
      const c = args.findIndex((a) => a === "-c" || a === "--command" || /^-[a-zA-Z]*c$/.test(a));
      if (c >= 0) return args[c + 1] ?? null;
      const joined = args.find((a) => a.startsWith("--command="));
      if (joined) return joined.slice("--command=".length);
      out.doubts.push("script with no -c starts a shell that reads its commands from its input");
      return null;
    }
    case "mapfile":
    case "readarray": {
      // -C CALLBACK: bash runs the callback as a command every -c lines.
      const c = args.findIndex((a) => a.startsWith("-C"));
      if (c < 0) return null;
      return args[c] === "-C" ? (args[c + 1] ?? null) : args[c]!.slice(2);
    }
    case "source":
    case ".":
      if (args[0] !== undefined && /^(\/dev\/(stdin|fd\/)|\/proc\/[^/]+\/fd\/|-$)/.test(args[0])) out.doubts.push(`${name} ${args[0]} reads its commands from its input`);
      else if (args[0]?.includes(UNKNOWN)) out.doubts.push(`${name} runs a file whose name is only known when it runs`);
      else if (args.length === 0) out.doubts.push(`${name} with no file`);
      return null;
    case "alias":
      if (args.some((a) => a.includes("="))) out.doubts.push("an alias changes what a word runs");
      return null;
    case "export":
    case "declare":
    case "typeset":
    case "readonly":
    case "local":
      // export PATH=…: as PATH=… before a command, for every command after it.
      for (const a of args) {
        const variable = /^([A-Za-z_][A-Za-z0-9_]*)\+?=/.exec(a)?.[1];
        if (variable && STEERING.test(variable)) out.unsure.push(`${name} sets ${variable}, which changes what runs`);
      }
      return null;
    case "tar":
    case "rsync":
      return optionCommands(name, args);
    case "parallel":
      return parallelCommand(args, out);
    case "git":
      gitConfig(args, out);
      return null;
    case "sed":
      if (sedScripts(args).some((script) => SED_EXECUTES.some((re) => re.test(script)))) out.unsure.push("sed's e command (or s///e) runs a command from its script, which no rule reads");
      return null;
    case "hash":
    case "enable":
      if (args.some((a) => /^-[a-zA-Z]*[pf]/.test(a))) out.doubts.push(`${name} -p/-f changes what a name runs`);
      return null;
  }
  if (SHELLS.has(name)) return shellCommand(name, args, out);
  const code = inlineCode(name, args);
  if (code) out.unsure.push(`${name} ${code} runs the code it is given, which no rule reads`);
  return null;
}

/** env [-i] [-u NAME] [-C DIR] [-S STRING] [NAME=VALUE]… command. */
function envCommand(args: string[], out: ShellReading): string[] | string | null {
  let i = 0;
  for (; i < args.length; i++) {
    const a = args[i]!;
    if (a === "--") {
      i++;
      break;
    }
    if (a === "-S" || a.startsWith("--split-string") || /^-[a-zA-Z0-9]*S/.test(a)) {
      const inline = a.replace(/^(-[a-zA-Z0-9]*S|--split-string=?)/, "");
      const text = inline || args[++i] || "";
      return [text, ...args.slice(i + 1)].join(" ");
    }
    if (["-u", "-C", "--unset", "--chdir"].includes(a)) i++;
    else if (!a.startsWith("-") || a === "-") break;
  }
  for (; i < args.length && /^[A-Za-z_][A-Za-z0-9_]*=/.test(args[i]!); i++) {
    const variable = args[i]!.slice(0, args[i]!.indexOf("="));
    if (STEERING.test(variable)) out.unsure.push(`env sets ${variable}, which changes what runs`);
  }
  return args.slice(i);
}

/** find's -exec / -execdir / -ok / -okdir commands ({} is a found path), and -delete as rm. */
function findCommands(args: string[]): string[][] {
  const runs: string[][] = [];
  for (let i = 0; i < args.length; i++) {
    const a = args[i]!;
    if (a === "-delete") runs.push(["rm", UNKNOWN]);
    if (!["-exec", "-execdir", "-ok", "-okdir"].includes(a)) continue;
    let j = i + 1;
    while (j < args.length && args[j] !== ";" && args[j] !== "+") j++;
    const inner = args.slice(i + 1, j).map((w) => w.replaceAll("{}", UNKNOWN));
    if (inner.length > 0) runs.push(inner);
    i = j;
  }
  return runs;
}

/** sh -c 'string' (read again), sh script (a program), or sh alone (commands from its input: unknown). */
function shellCommand(name: string, args: string[], out: ShellReading): string | null {
  let command = false;
  let i = 0;
  for (; i < args.length; i++) {
    const a = args[i]!;
    if (a === "--" || a === "-") {
      i++;
      break;
    }
    if (["-o", "+o", "-O", "+O", "--rcfile", "--init-file"].includes(a)) i++;
    else if (/^-[a-zA-Z]*c[a-zA-Z]*$/.test(a)) command = true;
    else if (!/^[-+]/.test(a)) break;
    else if (/^-[a-zA-Z]*s/.test(a) && !a.startsWith("--")) {
      out.doubts.push(`${name} -s reads its commands from its input`);
      return null;
    }
  }
  const operand = args[i];
  if (command) {
    if (operand === undefined) out.doubts.push(`${name} -c with no command`);
    return operand ?? null;
  }
  if (operand === undefined) out.doubts.push(`${name} reads its commands from its input`);
  else if (operand.includes(UNKNOWN)) out.doubts.push(`${name} runs a script whose name is only known when it runs`);
  return null;
}

/**
 * Options that name a command the program runs (tar runs it with sh -c; rsync and tar's
 * compressor split it into words, which reads the same): each is read again, as sh -c's is.
 */
const COMMAND_OPTIONS: Record<string, { long: string[]; short: string[]; flags: string; exec?: string }> = {
  // flags: the short options that take no value, so may stand before -I in a cluster (-cvI 'zstd -19').
  tar: { long: ["--to-command", "--use-compress-program", "--info-script", "--new-volume-script", "--rsh-command"], short: ["I", "F"], flags: "Acdtrux0123456789aBhijJkmOpPsSvWwzZ", exec: "--checkpoint-action" },
  rsync: { long: ["--rsh"], short: ["e"], flags: "vqcarRbudlLkKHpEAXogDtUNOJnWxCyzhPSmI0s468" },
};

function optionCommands(name: string, args: string[]): string | null {
  const { long, short, flags, exec } = COMMAND_OPTIONS[name]!;
  const found: string[] = [];
  for (let i = 0; i < args.length; i++) {
    const a = args[i]!;
    let value: string | undefined;
    for (const o of long) {
      if (a === o) value = args[++i];
      else if (a.startsWith(`${o}=`)) value = a.slice(o.length + 1);
    }
    for (const o of short) {
      // -I VALUE, -IVALUE, and -cvI VALUE / -cvIVALUE in a cluster of flags.
      const m = new RegExp(`^-[${flags}]*${o}(.*)$`).exec(a);
      if (m) value = m[1] || args[++i];
    }
    // --checkpoint-action=exec=COMMAND
    if (exec && (a === exec || a.startsWith(`${exec}=`))) {
      const action = a === exec ? args[++i] : a.slice(exec.length + 1);
      if (action?.startsWith("exec=")) value = action.slice("exec=".length);
    }
    if (value !== undefined) found.push(value);
  }
  return found.length ? found.join("\n") : null;
}

/** GNU parallel COMMAND… ::: ARGS: like xargs, its words (up to :::) run as a command, with text from its input. */
function parallelCommand(args: string[], out: ShellReading): string[] | null {
  const end = args.findIndex((a) => /^::::?\+?$/.test(a));
  const words = skipOptions(end >= 0 ? args.slice(0, end) : args, ["-j", "--jobs", "-S", "--sshlogin", "-a", "--arg-file", "--delay", "--timeout", "--joblog", "--results", "-n", "--max-args", "--colsep", "-d", "--delimiter", "-I", "--tagstring", "--workdir"]);
  if (words.length === 0) {
    out.doubts.push("parallel with no command runs the lines of its input as commands");
    return null;
  }
  return [...words, UNKNOWN];
}

/** git's configuration keys that cannot run anything: any other key set with -c (core.pager, alias.x=!…, core.sshCommand, …) may. */
const GIT_SAFE_KEYS = /^(user\.(name|email)|color\..*|advice\..*|init\.defaultbranch|core\.(quotepath|autocrlf|safecrlf|filemode|abbrev|ignorecase)|log\..*|(commit|tag)\.gpgsign|safe\.directory|i18n\..*|column\..*|status\..*|pull\.(rebase|ff)|merge\.conflictstyle|diff\.(renames|algorithm|mnemonicprefix|noprefix))$/i;

/** git -c KEY=VALUE, --config-env, --exec-path=DIR: configuration that decides which commands git runs. */
function gitConfig(args: string[], out: ShellReading): void {
  for (let i = 0; i < args.length; i++) {
    const a = args[i]!;
    if (!a.startsWith("-")) return; // the subcommand: what follows is its own
    if (a === "-c" || a.startsWith("--config-env")) {
      const setting = a === "-c" || a === "--config-env" ? (args[++i] ?? "") : a.slice("--config-env=".length);
      const key = setting.split("=")[0]!;
      if (a !== "-c" || !GIT_SAFE_KEYS.test(key)) out.unsure.push(`git ${a === "-c" ? "-c" : "--config-env"} ${key} can make git run a command, which no rule reads`);
    } else if (a.startsWith("--exec-path=")) out.unsure.push("git --exec-path changes which programs git runs");
    else if (a === "-C" || a === "--git-dir" || a === "--work-tree" || a === "--namespace") i++;
  }
}

/** The scripts a sed command line gives inline (-e SCRIPT, --expression=SCRIPT, or its first operand). */
function sedScripts(args: string[]): string[] {
  const scripts: string[] = [];
  let fromOption = false;
  const operands: string[] = [];
  for (let i = 0; i < args.length; i++) {
    const a = args[i]!;
    if (a === "-e" || a === "--expression") {
      scripts.push(args[++i] ?? "");
      fromOption = true;
    } else if (a.startsWith("--expression=")) {
      scripts.push(a.slice("--expression=".length));
      fromOption = true;
    } else if (/^-[a-zA-Z]*e./.test(a) && !a.startsWith("--")) {
      scripts.push(a.slice(a.indexOf("e") + 1));
      fromOption = true;
    } else if (a === "-f" || a === "--file" || a === "-l" || a === "--line-length") i++;
    else if (!a.startsWith("-") || a === "-") operands.push(a);
  }
  if (!fromOption && operands[0] !== undefined) scripts.push(operands[0]);
  return scripts;
}

/** GNU sed runs a command with `e` (at a command's place, after its address) and with s///'s e flag. */
const SED_EXECUTES = [/(^|[;\n{}!0-9$/,~])\s*e(\s|;|}|$)/, /(^|[;\n{}!0-9$/,~])\s*s(.)(?:\\.|(?!\2)[^\\])*\2(?:\\.|(?!\2)[^\\])*\2[0-9gpiImMw]*e/];

/** Interpreters, and the flag that hands one its code inline. */
const INLINE_FLAGS: Array<[RegExp, RegExp]> = [
  [/^(node|nodejs|bun|deno)$/, /^(-e|--eval|-p|--print|-pe|eval)$/],
  [/^(python|pypy)[0-9.]*$/, /^-[a-zA-Z]*c$/],
  [/^perl[0-9.]*$/, /^-[a-zA-Z]*[eE][a-zA-Z]*$/],
  [/^(ruby|lua|luajit|osascript)$/, /^-[a-zA-Z]*e$/],
  [/^php[0-9.]*$/, /^-r$/],
];

/** The flag that hands an interpreter its code inline, or null. */
function inlineCode(name: string, args: string[]): string | null {
  for (const [program, flag] of INLINE_FLAGS) {
    if (!program.test(name)) continue;
    const found = args.find((a) => flag.test(a));
    if (found) return found;
  }
  // awk's program can run commands too: system(…) and pipes.
  if (/^[gmn]?awk$/.test(name) && args.some((a) => /system\s*\(|\|/.test(a))) return "'…system(…)…'";
  // An editor's commands given on its command line (-c, --cmd, +…, a script with -S) can run a shell.
  if (/^(vim?|nvim|ex|view|vimdiff|rvim|gvim)$/.test(name)) return args.find((a) => /^(-c|--cmd|-S|\+.)/.test(a)) ?? null;
  return null;
}

// ── small helpers ──

/** A redirection's operator, its file descriptor (2>, {fd}>) taken off; null for any other token. */
const redirectOf = (t: Token) => (t.kind === "op" && REDIRECTS.has(t.op.replace(/^(\d+|\{[A-Za-z_][A-Za-z0-9_]*\})/, "")) ? t.op.replace(/^(\d+|\{[A-Za-z_][A-Za-z0-9_]*\})/, "") : null);
const isOp = (t: Token, op: string) => t.kind === "op" && t.op === op;
/** An unquoted word (keywords are only keywords when nothing in them is quoted). */
const isWord = (t: Token, word: string) => t.kind === "word" && t.text === word && t.raw === word;
const show = (t: Token) => (t.kind === "eof" ? "the end" : t.kind === "op" ? JSON.stringify(t.op) : t.kind === "arith" ? "((…))" : JSON.stringify(t.raw));
const unquote = (raw: string) => raw.replace(/\\(.)/g, "$1").replace(/['"]/g, "");
/** UNKNOWN shown as "…". */
export const visible = (text: string) => text.replaceAll(UNKNOWN, "…");

// ── matching a rule's pattern (`*` is any text) against words with UNKNOWN in them ──

/** Every text UNKNOWN could stand for matches `pattern` (an allow rule needs that). */
export function mustMatch(pattern: string, subject: string): boolean {
  // A literal of the pattern never matches UNKNOWN: only its `*` can absorb it.
  return new RegExp(`^${pattern.replace(/[.+?^${}()|[\]\\]/g, "\\$&").replaceAll("*", "[^]*")}$`).test(subject);
}

/** Some text UNKNOWN could stand for matches `pattern` (a deny rule needs only that): both are globs, do they share a string? */
export function mayMatch(pattern: string, subject: string): boolean {
  const P = pattern.length;
  const S = subject.length;
  // can[i][j]: pattern[i..] and subject[j..] have a string in common.
  const can = Array.from({ length: P + 2 }, () => new Array<boolean>(S + 2).fill(false));
  for (let i = P; i >= 0; i--) {
    for (let j = S; j >= 0; j--) {
      if (i === P && j === S) can[i]![j] = true;
      else if (i < P && pattern[i] === "*") can[i]![j] = can[i + 1]![j]! || (j < S && can[i]![j + 1]!);
      else if (j < S && subject[j] === UNKNOWN) can[i]![j] = can[i]![j + 1]! || (i < P && can[i + 1]![j]!);
      else can[i]![j] = i < P && j < S && pattern[i] === subject[j] && can[i + 1]![j + 1]!;
    }
  }
  return can[0]![0]!;
}
