/**
 * Type errors in a lesson's files, as part of `npm run check`: TypeScript's API on just that
 * lesson's .ts files (what they import is read, only their own diagnostics are reported), with
 * the project's compiler options. In watch mode the previous program is handed back to
 * TypeScript, so the files that did not change (the SDK's types, runtime/) are reused: a
 * re-check costs the changed file only.
 *
 * A verdict is remembered in .course/typecheck.json with every file the program read (its size
 * and modification time) and a hash of the lesson's own files: while none of them changed, a
 * fresh `npm run check` answers from there without loading TypeScript at all (the compiler is a
 * second of start-up and two of parsing the SDK's and Node's types).
 *
 * A fresh check first asks TypeScript's native compiler (`tsgo`, the @typescript/native-preview
 * package, a binary shipped inside the npm package) in a process of its own, beside the tests:
 * about a sixth of the CPU of the compiler API on the same files. It only ever says "no errors":
 * when it finds some, the compiler API (the version `npm run typecheck` runs) decides, and its
 * words are the ones reported, so check never reports an error that `npm run typecheck` would
 * not. Where the native compiler is missing or fails, the compiler API does it all.
 *
 *   typeErrors(dir)       → TypeProblem[] (empty when the files type-check)
 *   typeErrorsFast(dir)   → the same, through the native compiler first
 */
import { spawn } from "node:child_process";
import { createHash } from "node:crypto";
import { existsSync, mkdirSync, readFileSync, readdirSync, renameSync, rmSync, statSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { isAbsolute, join, relative } from "node:path";
import type ts from "typescript";
import { ROOT, STATE_DIR } from "./paths.ts";

export interface TypeProblem {
  /** "lessons/s02_tool_dispatch/agent.ts:41:7" */
  where: string;
  /** TypeScript's message, one paragraph, with its code ("TS2345"). */
  message: string;
}

/** TypeScript, loaded the first time a program is built (not for an answer from the cache). */
let loaded: typeof ts | undefined;
const typescript = (): typeof ts => (loaded ??= createRequire(import.meta.url)("typescript") as typeof ts);

let options: ts.CompilerOptions | undefined;
let fullOptions: ts.CompilerOptions | undefined;
let previous: ts.Program | undefined;
let host: ts.CompilerHost | undefined;
/** Source files by path and text, kept across checks (the SDK's .d.ts parse once per process). */
const sources = new Map<string, { text: string; file: ts.SourceFile }>();

/**
 * The project's options, first without the DOM library (a third of the parsing; the lessons run
 * on Node, whose types declare fetch, AbortSignal and friends). Errors found that way are
 * confirmed with the project's own options before they are reported, so check never reports an
 * error that `npm run typecheck` would not.
 */
function compilerOptions(full = false): ts.CompilerOptions {
  if (!fullOptions) {
    const t = typescript();
    const configPath = join(ROOT, "tsconfig.json");
    const read = t.readConfigFile(configPath, (p) => t.sys.readFile(p));
    const parsed = t.parseJsonConfigFileContent(read.config ?? {}, t.sys, ROOT, undefined, configPath);
    fullOptions = { ...parsed.options, noEmit: true, skipLibCheck: true, incremental: false };
    const libs = (fullOptions.lib ?? []).filter((l) => !/dom/i.test(l));
    options = { ...fullOptions, lib: libs.length > 0 ? libs : ["lib.es2023.d.ts"] };
  }
  return full ? fullOptions : options!;
}

function cachingHost(opts: ts.CompilerOptions): ts.CompilerHost {
  if (host) return host;
  const t = typescript();
  const base = t.createCompilerHost(opts, true);
  // JSDoc is read only where it can carry types (in .js files): the SDK's .d.ts files are mostly
  // comments, and tsc itself skips them the same way.
  const jsDocParsingMode = t.JSDocParsingMode.ParseForTypeErrors;
  host = {
    ...base,
    jsDocParsingMode,
    getSourceFile(fileName, languageVersion, onError, shouldCreate) {
      const text = t.sys.readFile(fileName);
      if (text === undefined) return base.getSourceFile(fileName, languageVersion, onError, shouldCreate);
      const hit = sources.get(fileName);
      if (hit && hit.text === text) return hit.file;
      const version = typeof languageVersion === "object" ? languageVersion : { languageVersion };
      const file = t.createSourceFile(fileName, text, { ...version, jsDocParsingMode }, true);
      sources.set(fileName, { text, file });
      return file;
    },
  };
  return host;
}

/** The .ts files of a folder, absolute. */
function tsFiles(dir: string): string[] {
  return readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((d) => d.isFile() && d.name.endsWith(".ts"))
    .map((d) => join(d.parentPath, d.name))
    .sort();
}

/** The type errors in the .ts files of `dir` (a lesson folder), first ones first. */
export function typeErrors(dir: string, max = 5): TypeProblem[] {
  const roots = tsFiles(dir);
  if (roots.length === 0) return [];
  const key = cacheKey(roots, max);
  const remembered = key ? fromCache(dir, key) : undefined;
  if (remembered) return remembered;
  const opts = compilerOptions();
  const program = typescript().createProgram({ rootNames: roots, options: opts, host: cachingHost(opts), ...(previous ? { oldProgram: previous } : {}) });
  previous = program;
  let found = diagnose(program, roots, max);
  // Confirm with the project's own options (the DOM library included): the same errors as tsc.
  if (found.length > 0) {
    const full = compilerOptions(true);
    found = diagnose(typescript().createProgram({ rootNames: roots, options: full, host: cachingHost(full) }), roots, max);
  }
  if (key) remember(dir, key, program, roots, found);
  return found;
}

/** Type texts longer than this are cut in a message (a union of ten SDK types says nothing more at 900 characters). */
const TYPE_TEXT = 60;

/**
 * TypeScript's message in a length a learner reads: a short one as it is; a long chain (a value
 * that is not assignable, ten levels down through the SDK's unions) as its first sentence, what is
 * wrong where it was written, and its last, the root cause, with long type texts cut.
 */
export function readable(t: typeof ts, text: string | ts.DiagnosticMessageChain): string {
  const whole = t.flattenDiagnosticMessageText(text, " ").replace(/\s+/g, " ");
  if (typeof text === "string" || whole.length <= 300) return whole;
  let root = text;
  while (root.next?.[0]) root = root.next[0];
  const cut = (s: string) => s.replace(/\s+/g, " ").replace(new RegExp(`'([^']{${TYPE_TEXT},})'`, "g"), (_, type: string) => `'${type.slice(0, TYPE_TEXT - 20)}…'`);
  if (root === text) return cut(whole);
  return `this value does not have the type this place needs: ${cut(text.messageText)} At the root of it: ${cut(root.messageText)}`;
}

function diagnose(program: ts.Program, roots: string[], max: number): TypeProblem[] {
  const t = typescript();
  const problems: TypeProblem[] = [];
  for (const file of roots) {
    const sf = program.getSourceFile(file);
    if (!sf) continue;
    const diags = [...program.getSyntacticDiagnostics(sf), ...program.getSemanticDiagnostics(sf)].filter((d) => d.category === t.DiagnosticCategory.Error);
    for (const d of diags) {
      const pos = d.start !== undefined ? sf.getLineAndCharacterOfPosition(d.start) : { line: 0, character: 0 };
      problems.push({
        where: `${relative(ROOT, file)}:${pos.line + 1}:${pos.character + 1}`,
        message: `${readable(t, d.messageText)} (TS${d.code})`,
      });
      if (problems.length >= max) return problems;
    }
  }
  return problems;
}

// ── the verdicts remembered ──────────────────────────────────────────────────────────────────

const CACHE_FILE = join(STATE_DIR, "typecheck.json");

interface Entry {
  /** The lesson's own files (contents), the compiler's version and the project's options. */
  key: string;
  /** Every other file the program read: [path from the root, size, mtime in ms]. */
  deps: [string, number, number][];
  problems: TypeProblem[];
}

/** Only lesson folders of this repository are remembered (not a mutant's temporary copy). */
const inRepo = (dir: string) => {
  const rel = relative(ROOT, dir);
  return rel !== "" && !rel.startsWith("..") && !isAbsolute(rel);
};

function cacheKey(roots: string[], max: number): string | undefined {
  if (!inRepo(roots[0]!) || process.env.COURSE_TYPECHECK_CACHE === "0") return undefined;
  try {
    const h = createHash("sha256");
    for (const f of ["node_modules/typescript/package.json", "tsconfig.json", "package-lock.json"]) h.update(`${f}\0${readFileSync(join(ROOT, f))}\0`);
    h.update(`max=${max}\0`);
    for (const f of roots) h.update(`${relative(ROOT, f)}\0${readFileSync(f)}\0`);
    return h.digest("hex");
  } catch {
    return undefined;
  }
}

function readCache(): Record<string, Entry> {
  try {
    return JSON.parse(readFileSync(CACHE_FILE, "utf8")) as Record<string, Entry>;
  } catch {
    return {};
  }
}

const stamp = (abs: string): [number, number] | undefined => {
  try {
    const s = statSync(abs);
    return [s.size, s.mtimeMs];
  } catch {
    return undefined;
  }
};

function fromCache(dir: string, key: string): TypeProblem[] | undefined {
  const entry = readCache()[relative(ROOT, dir)];
  if (!entry || entry.key !== key || !Array.isArray(entry.deps)) return undefined;
  for (const [rel, size, mtime] of entry.deps) {
    const now = stamp(join(ROOT, rel));
    if (!now || now[0] !== size || now[1] !== mtime) return undefined;
  }
  return entry.problems;
}

function remember(dir: string, key: string, program: ts.Program | readonly string[], roots: string[], problems: TypeProblem[]): void {
  // A module not found may be found once someone writes it: such a verdict is not kept.
  if (problems.some((p) => /\(TS(2307|2792|2305|2614)\)$/.test(p.message))) return;
  const own = new Set(roots);
  const deps: [string, number, number][] = [];
  const read = "getSourceFiles" in program ? program.getSourceFiles().map((sf) => sf.fileName) : program;
  for (const fileName of read) {
    if (own.has(fileName)) continue;
    const s = stamp(fileName);
    if (!s) return;
    deps.push([relative(ROOT, fileName), ...s]);
  }
  try {
    const all = readCache();
    for (const d of Object.keys(all)) if (!stamp(join(ROOT, d))) delete all[d]; // a folder since removed
    all[relative(ROOT, dir)] = { key, deps, problems };
    mkdirSync(STATE_DIR, { recursive: true });
    const tmp = `${CACHE_FILE}.${process.pid}.tmp`;
    writeFileSync(tmp, JSON.stringify(all));
    renameSync(tmp, CACHE_FILE);
  } catch {
    /* only a shortcut */
  }
}

// ── the native compiler, first ────────────────────────────────────────────────────────────────

/** The native compiler's executable for this platform, or undefined where it is not installed. */
function nativeCompiler(): string | undefined {
  if (process.env.COURSE_NATIVE_TSC === "0") return undefined;
  try {
    const pkg = createRequire(join(ROOT, "package.json")).resolve(`@typescript/native-preview-${process.platform}-${process.arch}/package.json`);
    const exe = join(pkg, "..", "lib", process.platform === "win32" ? "tsgo.exe" : "tsgo");
    return existsSync(exe) ? exe : undefined;
  } catch {
    return undefined;
  }
}

/**
 * What the native compiler says of these files with the project's options: clean (and every
 * file it read, for the remembered verdict), has errors, or could not say.
 */
function nativeVerdict(exe: string, roots: string[]): Promise<{ clean: true; read: string[] } | { clean: false } | undefined> {
  const config = join(STATE_DIR, `tsgo-${process.pid}-${createHash("sha1").update(roots.join("\0")).digest("hex").slice(0, 8)}.json`);
  try {
    mkdirSync(STATE_DIR, { recursive: true });
    writeFileSync(config, JSON.stringify({ extends: relative(STATE_DIR, join(ROOT, "tsconfig.json")), include: [], files: roots }));
  } catch {
    return Promise.resolve(undefined);
  }
  return new Promise((done) => {
    let out = "";
    const child = spawn(exe, ["-p", config, "--noEmit", "--pretty", "false", "--listFiles"], { cwd: ROOT, stdio: ["ignore", "pipe", "pipe"] });
    child.stdout.on("data", (d: Buffer) => (out += d.toString()));
    child.stderr.resume();
    const finish = (v: Awaited<ReturnType<typeof nativeVerdict>>) => {
      rmSync(config, { force: true });
      done(v);
    };
    child.on("error", () => finish(undefined));
    child.on("close", (code) => {
      const lines = out.split("\n").filter(Boolean);
      if (code === 0 && !lines.some((l) => / error TS\d+:/.test(l))) return finish({ clean: true, read: lines.filter((l) => isAbsolute(l) && existsSync(l)) });
      // Errors (exit 1 or 2) are confirmed by the compiler API; anything else: it could not say.
      finish(code === 1 || code === 2 ? { clean: false } : undefined);
    });
  });
}

/**
 * typeErrors, with the native compiler asked first (in its own process, so the tests keep the
 * other core): a clean verdict is final (and remembered); errors are found again, and worded, by
 * the compiler API, which alone decides what is reported.
 */
export async function typeErrorsFast(dir: string, max = 5): Promise<TypeProblem[]> {
  const exe = nativeCompiler();
  const roots = exe ? tsFiles(dir) : [];
  if (!exe || roots.length === 0) return typeErrors(dir, max);
  const key = cacheKey(roots, max);
  const remembered = key ? fromCache(dir, key) : undefined;
  if (remembered) return remembered;
  const verdict = await nativeVerdict(exe, roots);
  if (!verdict?.clean) return typeErrors(dir, max);
  if (key) remember(dir, key, verdict.read, roots, []);
  return [];
}
