/**
 * The mutants Stryker makes in a lesson's TODO regions, listed without running any test (its
 * instrumenter only, in a second): each with its place as Stryker reports it, `line:col-line:col`
 * (lines 1-based, columns 0-based, the end exclusive). An entry of tests/mutation/equivalent.yaml
 * names one mutant by that place, its mutator and its replacement.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { Instrumenter, type File } from "@stryker-mutator/instrumenter";
import type { Logger } from "@stryker-mutator/api/logging";
import type { Lesson } from "../../runtime/manifest.ts";
import { ROOT } from "../lib/paths.ts";
import { todoRegions } from "./regions.ts";

export interface Place {
  start: { line: number; column: number };
  end: { line: number; column: number };
}
export interface ListedMutant {
  file: string;
  at: string;
  mutator: string;
  replacement: string;
}

/**
 * "12:5-12:31": where a mutant is, as the sweep's results give it (Stryker's report: 1-based lines
 * AND columns). The instrumenter below counts columns from 0: listMutants adds one, so an entry of
 * tests/mutation/equivalent.yaml written from either names the same mutant.
 */
export const placeOf = (l: Place) => `${l.start.line}:${l.start.column}-${l.end.line}:${l.end.column}`;

const quiet = new Proxy({}, { get: (_t, k) => (k === "isDebugEnabled" || k === "isTraceEnabled" || k === "isInfoEnabled" || k === "isWarnEnabled" || k === "isErrorEnabled" || k === "isFatalEnabled" ? () => false : () => undefined) }) as Logger;

/** Every mutant of the lesson's TODO regions, in file order. */
export async function listMutants(lesson: Lesson): Promise<ListedMutant[]> {
  const byFile = new Map<string, File>();
  for (const r of todoRegions(lesson)) {
    const f = byFile.get(r.file) ?? { name: join(ROOT, r.file), content: readFileSync(join(ROOT, r.file), "utf8"), mutate: [] };
    if (Array.isArray(f.mutate)) for (const w of r.written) f.mutate.push({ start: { line: w.from - 1, column: 0 }, end: { line: w.to - 1, column: Number.MAX_SAFE_INTEGER } });
    byFile.set(r.file, f);
  }
  const instrumenter = new Instrumenter(quiet);
  const { mutants } = await instrumenter.instrument([...byFile.values()], { plugins: null, excludedMutations: [], ignorers: [] });
  return mutants.map((m) => ({
    file: m.fileName.slice(ROOT.length + 1),
    at: placeOf({ start: { line: m.location.start.line + 1, column: m.location.start.column + 1 }, end: { line: m.location.end.line + 1, column: m.location.end.column + 1 } }),
    mutator: m.mutatorName,
    replacement: m.replacement,
  }));
}

// `npx tsx scripts/mutation/mutants.ts sNN`: list them (to name one in tests/mutation/equivalent.yaml).
if (process.argv[1] && import.meta.url === new URL(`file://${process.argv[1]}`).href) {
  const { findLesson } = await import("../../runtime/manifest.ts");
  for (const id of process.argv.slice(2)) {
    const lesson = findLesson(id);
    if (!lesson) {
      console.error(`no lesson ${id}`);
      process.exit(2);
    }
    for (const m of await listMutants(lesson)) console.log(`${m.file}:${m.at} ${m.mutator} → ${JSON.stringify(m.replacement)}`);
  }
}
