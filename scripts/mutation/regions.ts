/**
 * The TODO regions of a lesson: the `// #region name` … `// #endregion name` blocks of a lesson's
 * exercise files (lessons/sNN/…) that hold a todo(…) call, located in the same file of its
 * solution (solutions/sNN/…) as 1-based inclusive line ranges, each with the lines of it the
 * learner writes: those of the solution's region that the exercise's region does not hold as they
 * are. A line the exercise gives (a print, a tool's description, a guard written out for the
 * learner) is not the learner's to get wrong, so the sweep does not mutate it.
 */
import { existsSync, readFileSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { structuredPatch } from "diff";
import type { Lesson } from "../../runtime/manifest.ts";
import { ROOT } from "../lib/paths.ts";

export interface TodoRegion {
  /** Relative to the root: "solutions/s01_agent_loop/agent.ts". */
  file: string;
  region: string;
  /** The region's body in the solution file (the marker lines left out), 1-based, inclusive. */
  from: number;
  to: number;
  /** The lines of the body the learner writes (not given as they are in the exercise), 1-based inclusive ranges. */
  written: Array<{ from: number; to: number }>;
}

const OPEN = /^\s*\/\/ #region (\S+)/;
const CLOSE = /^\s*\/\/ #endregion (\S+)/;

/** Each region of a file: its name and the lines of its body (0-based, end exclusive). */
function regionsOf(text: string): Array<{ name: string; start: number; end: number; body: string }> {
  const lines = text.split("\n");
  const open = new Map<string, number>();
  const out: Array<{ name: string; start: number; end: number; body: string }> = [];
  lines.forEach((line, i) => {
    const o = OPEN.exec(line);
    if (o) open.set(o[1]!, i + 1);
    const c = CLOSE.exec(line);
    if (c && open.has(c[1]!)) {
      const start = open.get(c[1]!)!;
      out.push({ name: c[1]!, start, end: i, body: lines.slice(start, i).join("\n") });
      open.delete(c[1]!);
    }
  });
  return out;
}

/** The lesson's TODO regions, in file order. */
export function todoRegions(lesson: Lesson): TodoRegion[] {
  const dir = join(ROOT, "lessons", lesson.dir);
  const out: TodoRegion[] = [];
  for (const name of readdirSync(dir).filter((f) => f.endsWith(".ts")).sort()) {
    const solution = join(ROOT, "solutions", lesson.dir, name);
    if (!existsSync(solution)) continue;
    const todo = new Map(regionsOf(readFileSync(join(dir, name), "utf8")).filter((r) => /\btodo\(/.test(r.body)).map((r) => [r.name, r.body]));
    for (const r of regionsOf(readFileSync(solution, "utf8"))) {
      const given = todo.get(r.name);
      if (given === undefined || r.end <= r.start) continue;
      // The solution's lines that the exercise does not give as they are (a diff of the two bodies).
      const written = structuredPatch("solution", "exercise", `${r.body}\n`, `${given}\n`, "", "", { context: 0 })
        .hunks.filter((h) => h.oldLines > 0)
        .map((h) => ({ from: r.start + h.oldStart, to: r.start + h.oldStart + h.oldLines - 1 }));
      out.push({ file: `solutions/${lesson.dir}/${name}`, region: r.name, from: r.start + 1, to: r.end, written });
    }
  }
  return out;
}
