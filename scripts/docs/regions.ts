/**
 * Code imported into the docs with VitePress's `<<< @/../path#region` and which of those imports
 * are an exercise's answer.
 *
 * A region of `solutions/<lesson>/<file>` is the answer to an exercise when the same region of
 * `lessons/<lesson>/<file>` (the learner's copy) holds a `// TODO` or a `todo(` call; a whole-file
 * import is one when the learner's file holds any. Lesson pages never show such code open: the
 * page rewriter (pages.ts) shows the learner's copy of the region in its place and folds the
 * reference code into a closed "Show the reference solution" block under "Your turn", and the
 * browser test checks that none of its lines is visible until that block is opened. Nothing here
 * is a list kept by hand, so a lesson added later is covered by the same rule.
 */
import { existsSync, readFileSync, readdirSync, statSync } from "node:fs";
import { join, relative } from "node:path";

/** A `<<<` line: the file (relative to the repository root), its region, the rest of the line. */
export interface CodeImport {
  path: string;
  region: string | null;
  /** Whatever followed the path and region on the line (`{ts}`, `[title]`), kept as written. */
  rest: string;
}

const IMPORT = /^<<<\s*@\/\.\.\/([^\s#{[]+)(?:#([\w-]+))?(.*)$/;

export function parseImport(line: string): CodeImport | null {
  const m = IMPORT.exec(line.trim());
  return m ? { path: m[1]!, region: m[2] ?? null, rest: m[3]!.trim() } : null;
}

const REGION_START = /^\s*\/\/ ?#?region ([\w*-]+)\s*$/;
const REGION_END = /^\s*\/\/ ?#?endregion ([\w*-]+)\s*$/;

/**
 * A region's lines as VitePress shows them: `first` is the 1-based line of the file the snippet's
 * first line comes from, `lines` the body (nested region markers dropped, as VitePress drops them),
 * `nested` whether any were dropped (then the file's line numbers do not run on evenly).
 */
export function findRegion(text: string, name: string | null): { first: number; lines: string[]; nested: boolean } | null {
  const all = text.replace(/\r\n/g, "\n").split("\n");
  if (name === null) return { first: 1, lines: all, nested: false };
  const start = all.findIndex((l) => REGION_START.exec(l)?.[1] === name);
  if (start < 0) return null;
  const end = all.findIndex((l, i) => i > start && REGION_END.exec(l)?.[1] === name);
  if (end < 0) return null;
  const body = all.slice(start + 1, end);
  const kept = body.filter((l) => !REGION_START.test(l) && !REGION_END.test(l));
  return { first: start + 2, lines: kept, nested: kept.length !== body.length };
}

const TODO = /\bTODO\b|\btodo\(/;

/** The learner's copy of a solutions/ file: lessons/<same path>; null for any other file. */
export function exercisePath(path: string): string | null {
  return path.startsWith("solutions/") ? `lessons/${path.slice("solutions/".length)}` : null;
}

/** True when the import shows code the learner is asked to write (see the module comment). */
export function isAnswer(root: string, imp: CodeImport): boolean {
  const exercise = exercisePath(imp.path);
  if (!exercise || !existsSync(join(root, exercise))) return false;
  const region = findRegion(readFileSync(join(root, exercise), "utf8"), imp.region);
  return region !== null && region.lines.some((l) => TODO.test(l));
}

/** The exercise's copy of the same region exists (so the page can show it in the answer's place). */
export function exerciseHasRegion(root: string, imp: CodeImport): boolean {
  const exercise = exercisePath(imp.path);
  if (!exercise || !existsSync(join(root, exercise))) return false;
  return findRegion(readFileSync(join(root, exercise), "utf8"), imp.region) !== null;
}

/** Every file under lessons/<dir>/, relative to the root, "/" separated. */
function exerciseFiles(root: string, dir: string): string[] {
  const base = join(root, "lessons", dir);
  if (!existsSync(base)) return [];
  const out: string[] = [];
  const walk = (d: string) => {
    for (const name of readdirSync(d)) {
      if (name === "node_modules" || name.startsWith(".")) continue;
      const p = join(d, name);
      if (statSync(p).isDirectory()) walk(p);
      else out.push(relative(root, p).split("\\").join("/"));
    }
  };
  walk(base);
  return out.sort();
}

/** The regions of a lesson's exercise files that hold a TODO, named as their solutions/ imports. */
export function todoRegions(root: string, dir: string): CodeImport[] {
  const out: CodeImport[] = [];
  for (const file of exerciseFiles(root, dir)) {
    const text = readFileSync(join(root, file), "utf8");
    for (const line of text.split("\n")) {
      const name = REGION_START.exec(line)?.[1];
      if (!name) continue;
      const imp: CodeImport = { path: `solutions/${file.slice("lessons/".length)}`, region: name, rest: "" };
      if (existsSync(join(root, imp.path)) && isAnswer(root, imp)) out.push(imp);
    }
  }
  return out;
}

/**
 * The lines only the answer has: lines of the solution's region, trimmed, that appear nowhere in
 * the lesson's exercise files (the code the learner is given, comments included), leaving out comments, lone
 * brackets and anything shorter than `min` characters. The browser test looks for these on the page.
 */
export function answerLines(root: string, imp: CodeImport, min = 16): string[] {
  const solution = findRegion(readFileSync(join(root, imp.path), "utf8"), imp.region);
  if (!solution) return [];
  const dir = imp.path.split("/")[1] ?? "";
  // Code the exercise already spells out, even inside a comment or a hint, is not the answer.
  const given = exerciseFiles(root, dir).map((f) => readFileSync(join(root, f), "utf8")).join("\n");
  return [
    ...new Set(
      solution.lines
        .map((l) => l.trim())
        .filter((l) => l.length >= min && !given.includes(l) && !/^(\/\/|\/\*|\*)/.test(l) && !/^[\])};,]+$/.test(l)),
    ),
  ];
}

/** The `<<<` lines of a markdown text that are outside code fences. */
export function importsIn(src: string): CodeImport[] {
  const out: CodeImport[] = [];
  let fence: string | null = null;
  for (const line of src.split("\n")) {
    const f = /^\s*(`{3,}|~{3,})/.exec(line)?.[1];
    if (f) {
      if (fence === null) fence = f;
      else if (f[0] === fence[0] && f.length >= fence.length) fence = null;
      continue;
    }
    if (fence !== null) continue;
    const imp = parseImport(line);
    if (imp) out.push(imp);
  }
  return out;
}
