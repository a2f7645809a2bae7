/**
 * s07 · the read-only allow list behind `classify` (approval.ts): which commands, with which
 * exact options, run without asking, and how a command is split into words first.
 *
 * The command is split into words and pipeline stages by a kept shell parser (shell-quote), after
 * a scan that refuses everything the shell would rewrite before running ($, `…`, \, globs * ? [ ],
 * braces, ~, redirections, ;, &, sub-shells, newlines), since a parser that does not expand them
 * cannot say what would run. Each option must be on its command's EXACT list: no abbreviations
 * (--compress-prog is not --compress-program to us, though it is to sort), no `=` forms that are
 * not listed, nothing that executes or reads a named file (--files0-from, -f FILE), nothing that
 * follows symlinks (-R, -L). A false "ask" costs a keypress; a false "read-only" could cost the
 * repository.
 */

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
export const READ_ONLY: Record<string, (args: string[]) => string | null> = {
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
