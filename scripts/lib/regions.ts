/**
 * The map of what each lesson hands out and what grades it: every TODO region of every lesson,
 * and the mutants (tests/mutants/sNN/*.patch) that break the code of that region.
 *
 * A TODO region is where lessons/<dir>/<file> differs from solutions/<dir>/<file> around a
 * `todo(…)` call: the solution's lines the learner writes (found with the `diff` package, the
 * changes a few lines apart taken as one region, so a helper deleted beside the TODO belongs to
 * it). A mutant covers a region when the lines its patch changes fall inside it.
 *
 * `npm run verify` checks the map, so that every lesson grades all the code it hands out, on the
 * learner's path:
 *
 *   - every TODO region has at least one mutant;
 *   - a lesson's files import every other lesson from solutions/ (never the learner's own copy
 *     of an earlier lesson, which that lesson grades);
 *   - every mutant patches only files of its own lesson (the lesson that hands out the region):
 *     it is then graded by that lesson's test file against a copy of solutions/ in which every
 *     other lesson is the reference, exactly as a learner's lessons/<dir> imports the reference
 *     solutions of the lessons before it. A mutant of an earlier lesson's file, graded by a later
 *     lesson, would pass only through a path no learner's files take (a later lesson imports the
 *     reference, not the learner's copy), so it is refused here: move it to its own lesson and
 *     make that lesson's tests catch it.
 *
 * `npx tsx scripts/lib/regions.ts [sNN …]` prints the map.
 */
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { parsePatch, structuredPatch } from "diff";
import { LESSONS, findLesson, type Lesson } from "../../runtime/manifest.ts";
import { loadEquivalents } from "../mutation/equivalents.ts";
import { compute, loadScores, scoreLine, type LessonScore } from "../mutation/scores.ts";
import { findPatches, type Mutant, type MutantResult } from "./mutants.ts";
import { ROOT, filesUnder } from "./paths.ts";

export interface TodoRegion {
  lesson: Lesson;
  /** The file, relative to the lesson's folder ("guards.ts"). */
  file: string;
  /** The todo("…") text up to its colon ("s06 tokensOf"), or the file and line. */
  name: string;
  /** The solution's lines the region spans (1-based, inclusive). */
  start: number;
  end: number;
}

/** Changes this many unchanged lines apart or fewer are one region. */
const GAP = 3;

/** Every TODO region of a lesson, in file order. */
export function todoRegions(lesson: Lesson): TodoRegion[] {
  const regions: TodoRegion[] = [];
  const dir = join(ROOT, "lessons", lesson.dir);
  for (const file of filesUnder(dir)) {
    const solution = join(ROOT, "solutions", lesson.dir, file);
    if (!existsSync(solution) || !file.endsWith(".ts")) continue;
    const patch = structuredPatch("solution", "lesson", readFileSync(solution, "utf8"), readFileSync(join(dir, file), "utf8"), "", "", { context: 0 });
    // Hunks a few lines apart are one change.
    const groups: Array<{ start: number; end: number; lines: string[] }> = [];
    for (const h of patch.hunks) {
      const start = h.oldLines === 0 ? h.oldStart + 1 : h.oldStart;
      const end = h.oldLines === 0 ? h.oldStart : h.oldStart + h.oldLines - 1;
      const last = groups[groups.length - 1];
      if (last && start - last.end - 1 <= GAP) {
        last.end = Math.max(last.end, end);
        last.lines.push(...h.lines);
      } else groups.push({ start, end, lines: [...h.lines] });
    }
    for (const g of groups) {
      const call = g.lines.find((l) => l.startsWith("+") && /\btodo\(/.test(l));
      if (!call) continue;
      const text = /todo\(\s*["'`]([^"'`]*)/.exec(call)?.[1];
      regions.push({ lesson, file, name: text ? text.split(":")[0]!.trim() : `${file}:${g.start}`, start: g.start, end: Math.max(g.start, g.end) });
    }
  }
  return regions;
}

/** The solution lines each file of a patch changes (old line numbers; an insertion counts as the line it follows and the next). */
export function changedLines(patchText: string): Map<string, number[]> {
  const out = new Map<string, number[]>();
  for (const p of parsePatch(patchText)) {
    const target = (p.newFileName ?? p.oldFileName ?? "").replace(/^[ab]\//, "").replace(/^solutions\//, "");
    const lines: number[] = [];
    for (const h of p.hunks) {
      let old = h.oldStart;
      let replacing = false; // a "+" right after "-" lines replaces them: no more lines changed
      for (const l of h.lines) {
        if (l.startsWith("-")) {
          lines.push(old++);
          replacing = true;
        } else if (l.startsWith("+")) {
          if (!replacing) lines.push(old - 1, old);
        } else if (!l.startsWith("\\")) {
          old++;
          replacing = false;
        }
      }
    }
    out.set(target, [...new Set(lines)].sort((a, b) => a - b));
  }
  return out;
}

/** The TODO regions a mutant's patch changes. */
export function regionsOf(mutant: Mutant, regions: readonly TodoRegion[]): TodoRegion[] {
  const changed = changedLines(readFileSync(join(ROOT, mutant.file), "utf8"));
  return regions.filter((r) => (changed.get(`${r.lesson.dir}/${r.file}`) ?? []).some((n) => n >= r.start && n <= r.end));
}

export interface LessonMap {
  lesson: Lesson;
  regions: Array<{ region: TodoRegion; mutants: string[] }>;
  /** Mutants that change no TODO region (code the lesson shows whole, which a learner may still edit). */
  outside: string[];
}

/** The map for some lessons, and what is wrong with it. */
export function checkMap(lessons: readonly Lesson[], mutants: readonly Mutant[]): { maps: LessonMap[]; problems: string[] } {
  const problems: string[] = [];
  const maps: LessonMap[] = [];
  for (const lesson of lessons) {
    const regions = todoRegions(lesson);
    const own = mutants.filter((m) => m.kind === "mutant" && m.lesson.id === lesson.id);
    const map: LessonMap = { lesson, regions: regions.map((region) => ({ region, mutants: [] })), outside: [] };
    for (const m of own) {
      const foreign = m.targets.filter((t) => !t.startsWith(`${lesson.dir}/`));
      if (foreign.length > 0)
        problems.push(
          `${m.file} patches solutions/${foreign.join(", solutions/")}, a file ${lesson.id} does not hand out: a learner's ${lesson.id} imports the reference of that file, so this mutant is caught only through a path no learner takes. Move it to the lesson that hands the file out and make that lesson's tests catch it.`,
        );
      const hit = regionsOf(m, regions);
      for (const r of hit) map.regions.find((x) => x.region === r)!.mutants.push(m.name);
      if (hit.length === 0) map.outside.push(m.name);
    }
    // A learner's files take every other lesson from solutions/: a lesson that imported the
    // learner's own copy of an earlier lesson would grade that lesson's code again, here.
    for (const file of filesUnder(join(ROOT, "lessons", lesson.dir)).filter((f) => f.endsWith(".ts"))) {
      const text = readFileSync(join(ROOT, "lessons", lesson.dir, file), "utf8");
      for (const m of text.matchAll(/from\s+["']\.\.\/(s\d\d_[^/"']+)\//g))
        if (m[1] !== lesson.dir)
          problems.push(`lessons/${lesson.dir}/${file} imports "../${m[1]}/…", the learner's own copy of another lesson: import it from "../../solutions/${m[1]}/…", so that each lesson grades only the code it hands out.`);
    }
    for (const { region, mutants: names } of map.regions)
      if (names.length === 0)
        problems.push(`${lesson.id}: the TODO region "${region.name}" (solutions/${lesson.dir}/${region.file}:${region.start}-${region.end}) has no mutant: add one in tests/mutants/${lesson.id}/ that breaks it, and make ${lesson.id}'s tests catch it.`);
    maps.push(map);
  }
  return { maps, problems };
}

/**
 * CI's sample of the patches (`npm run verify -- --sample`): the first mutant (by name) of each
 * TODO region and the first alternative of each lesson. Fixed, so a CI run is the same every time.
 */
export function sampleOf(maps: readonly LessonMap[], patches: readonly Mutant[]): Mutant[] {
  const names = new Set<string>();
  for (const map of maps) {
    for (const { mutants } of map.regions) if (mutants.length > 0) names.add(`${map.lesson.id}/mutant/${[...mutants].sort()[0]}`);
    const alternative = patches.filter((p) => p.kind === "alternative" && p.lesson.id === map.lesson.id).map((p) => p.name).sort()[0];
    if (alternative) names.add(`${map.lesson.id}/alternative/${alternative}`);
  }
  return patches.filter((p) => names.has(`${p.lesson.id}/${p.kind}/${p.name}`));
}

/** The map in a few lines per lesson. */
export function describeMap(map: LessonMap): string[] {
  const lines = map.regions.map(({ region, mutants }) => `    ${region.file}:${region.start}-${region.end} ${region.name}: ${mutants.length === 0 ? "NO MUTANT" : `${mutants.length} mutant(s) (${mutants.join(", ")})`}`);
  if (map.outside.length > 0) lines.push(`    outside the TODO regions: ${map.outside.join(", ")}`);
  return lines;
}

/** Is this mutant one the net catches on its own (its rule is a net-* rule)? */
export const isNetMutant = (m: Mutant) => m.kind === "mutant" && (m.rule ?? "").startsWith("net-");

/**
 * What `npm run verify` prints per lesson once its patches are graded: its TODO regions (each with
 * mutants), the rule mutants caught, the net's own mutants caught (those whose rule is net-*),
 * the alternatives that pass.
 */
export function verifySummary(maps: readonly LessonMap[], results: readonly MutantResult[], scores: Record<string, LessonScore> = loadScores()): string[] {
  const lines: string[] = [];
  const equivalents = loadEquivalents();
  const sweep = (id: string) => (scores[id] ? scoreLine(id, compute(scores[id], equivalents[id] ?? []), scores[id].date) : scoreLine(id, undefined));
  for (const map of maps) {
    const mine = results.filter((r) => r.mutant.lesson.id === map.lesson.id);
    const rules = mine.filter((r) => r.mutant.kind === "mutant" && !isNetMutant(r.mutant));
    const net = mine.filter((r) => isNetMutant(r.mutant));
    const alts = mine.filter((r) => r.mutant.kind === "alternative");
    const caught = (rs: MutantResult[]) => `${rs.filter((r) => r.caught).length}/${rs.length}`;
    const covered = map.regions.filter((r) => r.mutants.length > 0).length;
    lines.push(
      `${map.lesson.id.padEnd(4)} TODO regions with mutants ${covered}/${map.regions.length} · rule mutants caught ${caught(rules)} · the net's own mutants caught ${caught(net)}${net.length > 0 ? ` (${net.map((r) => r.mutant.name).join(", ")})` : ""} · alternatives passing ${caught(alts)} · ${sweep(map.lesson.id)}`,
    );
  }
  return lines;
}

// `npx tsx scripts/lib/regions.ts [sNN …]`: print the map.
if (process.argv[1] && import.meta.url === new URL(`file://${process.argv[1]}`).href) {
  const ids = process.argv.slice(2);
  const lessons = ids.length > 0 ? ids.map((id) => findLesson(id) ?? (console.error(`no lesson ${id}`), process.exit(2))) : LESSONS;
  const { mutants, problems: bad } = findPatches(lessons, "mutant");
  const { maps, problems } = checkMap(lessons, mutants);
  for (const m of maps) console.log(`${m.lesson.id}: ${m.regions.length} TODO region(s)\n${describeMap(m).join("\n")}`);
  for (const p of [...bad, ...problems]) console.log(`problem: ${p}`);
  process.exitCode = bad.length + problems.length > 0 ? 1 : 0;
}
