/**
 * Strict command-line arguments for every course command: node's own `util.parseArgs` with
 * `strict: true`, and one short line for every mistake (the flag or argument that is wrong, then
 * the command's usage), exit code 2. A typo such as `--verbos` is an error, never ignored.
 *
 * npm keeps the flags written before `--` for itself: `npm run reset s01 --frobnicate` runs the
 * script WITHOUT `--frobnicate` and sets `npm_config_frobnicate=true` instead. `npmSwallowed()`
 * finds such flags (names npm does not know as its own settings), so they are refused too.
 */
import { existsSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { parseArgs, type ParseArgsConfig } from "node:util";
import { word } from "../../runtime/words.ts";

/** A mistake in how a command was called: printed as one line, exit code 2. */
export class UsageError extends Error {
  override name = "UsageError";
}

/**
 * `--help` (or `-h`) to a command whose spec has no help of its own: not a mistake. Its message is
 * the usage line, for stdout, and the command exits 0.
 */
export class HelpRequested extends UsageError {
  override name = "HelpRequested";
}

type Options = NonNullable<ParseArgsConfig["options"]>;

export interface CommandSpec<O extends Options> {
  /** How the learner types it: "npm run reset". */
  command: string;
  /** The rest of the usage line: "sNN [-- --yes | --undo]". */
  usage: string;
  options: O;
  /** How many plain arguments (lesson ids, words) it takes; default none. */
  positionals?: { max: number };
}

/** `usage: npm run reset sNN [-- --yes]` */
export const usageLine = (spec: { command: string; usage: string }) => word("args.usage", { command: `${spec.command}${spec.usage ? ` ${spec.usage}` : ""}` });

/** "npm run check: unknown flag --verbos. usage: npm run check [sNN] [-- --verbose]", in the learner's language. */
export const mistakeLine = (spec: { command: string; usage: string }, what: string) => word("args.mistake", { command: spec.command, what, usage: usageLine(spec) });

/** The mistake, in a few words, from node's parseArgs error. */
function reason(e: unknown): string {
  const err = e as { code?: string; message?: string };
  const message = err.message ?? String(e);
  const quoted = /'([^']+)'/.exec(message)?.[1];
  switch (err.code) {
    case "ERR_PARSE_ARGS_UNKNOWN_OPTION":
      return word("args.unknown-flag", { flag: quoted ?? message });
    case "ERR_PARSE_ARGS_UNEXPECTED_POSITIONAL":
      return word("args.unexpected", { arg: quoted ?? message });
    case "ERR_PARSE_ARGS_INVALID_OPTION_VALUE":
      return /argument missing/.test(message) ? word("args.needs-value", { flag: quoted?.replace(/ <value>$/, "") ?? "--" }) : word("args.no-value", { flag: quoted ?? "--" });
    default:
      return message.split("\n")[0]!;
  }
}

/** Parses `argv` strictly for `spec`; throws a one-line UsageError naming what is wrong. */
export function strictArgs<O extends Options>(spec: CommandSpec<O>, argv: string[]) {
  const fail = (what: string): never => {
    throw new UsageError(mistakeLine(spec, what));
  };
  const own = argv.indexOf("--");
  const flags = own === -1 ? argv : argv.slice(0, own);
  if (!("help" in spec.options) && flags.some((a) => a === "--help" || a === "-h")) throw new HelpRequested(usageLine(spec));
  let parsed;
  try {
    parsed = parseArgs({ args: argv, options: spec.options, strict: true, allowPositionals: true, allowNegative: false });
  } catch (e) {
    return fail(reason(e));
  }
  const max = spec.positionals?.max ?? 0;
  if (parsed.positionals.length > max) fail(word("args.unexpected", { arg: parsed.positionals[max]! }));
  const swallowed = npmSwallowed();
  if (swallowed.length > 0)
    fail(word("args.npm-kept", { flags: swallowed.join(", "), command: spec.command }));
  return parsed;
}

/**
 * Bare flags npm took from the command line and does not know as its own settings: flags meant
 * for the course that npm kept (written before `--`). Empty when not run by npm, or when npm's
 * own list of settings cannot be read (then nothing can be told apart, so nothing is refused).
 */
export function npmSwallowed(env: NodeJS.ProcessEnv = process.env): string[] {
  const known = npmSettings(env.npm_execpath);
  if (!known || !env.npm_lifecycle_event) return [];
  return Object.keys(env)
    // A bare `--flag` npm kept is "true"; settings with other values (an .npmrc's, node-gyp's
    // npm_config_python=…) are someone's configuration, not a typo on this command line.
    .filter((k) => /^npm_config_[a-z0-9_]+$/i.test(k) && env[k] === "true")
    .map((k) => k.slice("npm_config_".length).toLowerCase())
    .filter((name) => !known.has(name) && !NPM_DERIVED.has(name))
    .map((name) => `--${name.replaceAll("_", "-")}`)
    .sort();
}

/** Set by npm itself for every script, though not settings a learner can type. */
const NPM_DERIVED = new Set(["local_prefix", "global_prefix", "npm_version", "nodedir", "node_gyp", "user_agent", "prefix"]);

const cache = new Map<string, Set<string> | undefined>();

/** npm's own setting names ("save_dev", as they appear in npm_config_*), from npm's install. */
function npmSettings(execpath: string | undefined): Set<string> | undefined {
  if (!execpath) return undefined;
  if (cache.has(execpath)) return cache.get(execpath);
  let names: Set<string> | undefined;
  try {
    const file = join(dirname(execpath), "..", "node_modules", "@npmcli", "config", "lib", "definitions", "definitions.js");
    if (existsSync(file)) {
      const mod = createRequire(import.meta.url)(file) as { definitions?: Record<string, unknown> } & Record<string, unknown>;
      const defs = mod.definitions ?? mod;
      names = new Set(Object.keys(defs).map((k) => k.replaceAll("-", "_").replaceAll(".", "_").toLowerCase()));
      if (names.size < 50) names = undefined; // not the list we expect: do not guess
    }
  } catch {
    names = undefined;
  }
  cache.set(execpath, names);
  return names;
}

/** For a script's entry point: strictArgs, or the one-line message on stderr and exit code 2. */
export function strictArgsOrExit<O extends Options>(spec: CommandSpec<O>, argv: string[] = process.argv.slice(2)) {
  try {
    return strictArgs(spec, argv);
  } catch (e) {
    if (e instanceof HelpRequested) {
      console.log(e.message);
      process.exit(0);
    }
    if (!(e instanceof UsageError)) throw e;
    console.error(e.message);
    process.exit(2);
  }
}
