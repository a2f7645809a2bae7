/**
 * Type errors in a lesson's files, as part of `npm run check`: TypeScript's API on just that
 * lesson's .ts files (what they import is read, only their own diagnostics are reported), with
 * the project's compiler options. In watch mode the previous program is handed back to
 * TypeScript, so the files that did not change (the SDK's types, runtime/) are reused: a
 * re-check costs the changed file only.
 *
 *   typeErrors(dir)  → TypeProblem[] (empty when the files type-check)
 */
import { readdirSync } from "node:fs";
import { join, relative } from "node:path";
import ts from "typescript";
import { ROOT } from "./paths.ts";

export interface TypeProblem {
  /** "lessons/s02_tool_dispatch/agent.ts:41:7" */
  where: string;
  /** TypeScript's message, one paragraph, with its code ("TS2345"). */
  message: string;
}

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
    const configPath = join(ROOT, "tsconfig.json");
    const read = ts.readConfigFile(configPath, (p) => ts.sys.readFile(p));
    const parsed = ts.parseJsonConfigFileContent(read.config ?? {}, ts.sys, ROOT, undefined, configPath);
    fullOptions = { ...parsed.options, noEmit: true, skipLibCheck: true, incremental: false };
    const libs = (fullOptions.lib ?? []).filter((l) => !/dom/i.test(l));
    options = { ...fullOptions, lib: libs.length > 0 ? libs : ["lib.es2023.d.ts"] };
  }
  return full ? fullOptions : options!;
}

function cachingHost(opts: ts.CompilerOptions): ts.CompilerHost {
  if (host) return host;
  const base = ts.createCompilerHost(opts, true);
  host = {
    ...base,
    getSourceFile(fileName, languageVersion, onError, shouldCreate) {
      const text = ts.sys.readFile(fileName);
      if (text === undefined) return base.getSourceFile(fileName, languageVersion, onError, shouldCreate);
      const hit = sources.get(fileName);
      if (hit && hit.text === text) return hit.file;
      const file = ts.createSourceFile(fileName, text, languageVersion, true);
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
  const opts = compilerOptions();
  const program = ts.createProgram({ rootNames: roots, options: opts, host: cachingHost(opts), ...(previous ? { oldProgram: previous } : {}) });
  previous = program;
  const found = diagnose(program, roots, max);
  if (found.length === 0) return found;
  // Confirm with the project's own options (the DOM library included): the same errors as tsc.
  const full = compilerOptions(true);
  return diagnose(ts.createProgram({ rootNames: roots, options: full, host: cachingHost(full) }), roots, max);
}

function diagnose(program: ts.Program, roots: string[], max: number): TypeProblem[] {
  const problems: TypeProblem[] = [];
  for (const file of roots) {
    const sf = program.getSourceFile(file);
    if (!sf) continue;
    const diags = [...program.getSyntacticDiagnostics(sf), ...program.getSemanticDiagnostics(sf)].filter((d) => d.category === ts.DiagnosticCategory.Error);
    for (const d of diags) {
      const pos = d.start !== undefined ? sf.getLineAndCharacterOfPosition(d.start) : { line: 0, character: 0 };
      problems.push({
        where: `${relative(ROOT, file)}:${pos.line + 1}:${pos.character + 1}`,
        message: `${ts.flattenDiagnosticMessageText(d.messageText, " ").replace(/\s+/g, " ")} (TS${d.code})`,
      });
      if (problems.length >= max) return problems;
    }
  }
  return problems;
}
