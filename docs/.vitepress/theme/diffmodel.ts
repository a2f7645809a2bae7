/**
 * "What changed" between two lessons, as the diff view shows it: per file, the hunks of a unified
 * diff (the `diff` package) with both line numbers, each hunk sorted by what it teaches. The loop's
 * own change comes first, then the new mechanism, then other changes; hunks that only touch
 * comments, imports or names (a lesson id, a task's wording) are "cosmetic" and folded. No Vue
 * here: the tests import it, and the browser runs it on the solution snapshots the build writes
 * (docs/public/solutions/<lesson>.json, scripts/docs/record-transcripts.ts).
 */
import { structuredPatch } from "diff";

/** A lesson's reference solution: every text file of solutions/<dir>/, by path. */
export interface Snapshot {
  dir: string;
  id: string;
  entry: string;
  files: Record<string, string>;
  /** Files the lesson gives whole (lessons/<dir>/ holds them as the solution does: no TODO), e.g. a program around the loop. */
  given?: string[];
}

export type HunkKind = "loop" | "new" | "change" | "cosmetic";

export interface DiffLine {
  type: " " | "+" | "-";
  text: string;
  old?: number;
  new?: number;
}

export interface Hunk {
  kind: HunkKind;
  header: string;
  lines: DiffLine[];
  added: number;
  removed: number;
}

export interface FileDiffModel {
  path: string;
  status: "added" | "changed";
  /** Given code, not the exercise: shown after the files with TODOs. */
  given: boolean;
  hunks: Hunk[];
  added: number;
  removed: number;
}

export interface DiffModel {
  from: string;
  to: string;
  files: FileDiffModel[];
  /** Files only in the earlier lesson: later lessons import them from there. */
  kept: string[];
  unchanged: string[];
  summary: { added: number; removed: number; filesAdded: string[]; filesChanged: string[]; exportsAdded: string[]; toolsAdded: string[] };
}

const RANK: Record<HunkKind, number> = { loop: 0, new: 1, change: 2, cosmetic: 3 };

/** 1-based first and last line of a region's body, or null. */
export function regionLines(text: string, name: string): [number, number] | null {
  const lines = text.split("\n");
  const start = lines.findIndex((l) => new RegExp(`^\\s*// ?#?region ${name}\\s*$`).test(l));
  if (start < 0) return null;
  const end = lines.findIndex((l, i) => i > start && new RegExp(`^\\s*// ?#?endregion ${name}\\s*$`).test(l));
  return end < 0 ? null : [start + 2, end];
}

const COMMENT = /^\s*(\/\/|\/\*|\*|\*\/)/;
const IMPORT = /^\s*(import\b|export\s+(\*|\{[^}]*\})\s+from\b|\}\s+from\s+["']|[\w$]+,?\s*$)/;

/** A line with string contents and lesson ids blanked: two lines equal under it differ only in names. */
function normalized(line: string): string {
  return line
    .replace(/(["'`])(?:\\.|(?!\1).)*\1/g, '""')
    .replace(/\bs\d{2}(_[a-z0-9_]+)?\b/g, "sNN")
    .trim();
}

/** Only comments, imports, blank lines, or the same lines with other names/strings. */
function isCosmetic(lines: DiffLine[]): boolean {
  const minus = lines.filter((l) => l.type === "-").map((l) => l.text);
  const plus = lines.filter((l) => l.type === "+").map((l) => l.text);
  const trivial = (t: string) => t.trim() === "" || COMMENT.test(t) || IMPORT.test(t);
  if ([...minus, ...plus].every(trivial)) return true;
  const m = minus.filter((t) => !trivial(t));
  const p = plus.filter((t) => !trivial(t));
  return m.length === p.length && m.every((t, i) => normalized(t) === normalized(p[i]!));
}

const DEFINES = /^\s*(export\s+)?(async\s+)?(function\*?|class)\s+[\w$]+|^\s*export\s+(const|let|interface|type|enum)\s+[\w$]+/;

function fileDiff(path: string, oldText: string | undefined, newText: string, loop: [number, number] | null): Omit<FileDiffModel, "given"> {
  const patch = structuredPatch(`a/${path}`, `b/${path}`, oldText ?? "", newText, undefined, undefined, { context: 3 });
  const hunks: Hunk[] = patch.hunks.map((h) => {
    let o = h.oldStart;
    let n = h.newStart;
    const lines: DiffLine[] = [];
    for (const raw of h.lines) {
      const type = raw[0] as DiffLine["type"] | "\\";
      if (type === "\\") continue; // "\ No newline at end of file"
      const text = raw.slice(1);
      if (type === " ") lines.push({ type, text, old: o++, new: n++ });
      else if (type === "-") lines.push({ type, text, old: o++, new: n });
      else lines.push({ type, text, new: n++ });
    }
    const changed = lines.filter((l) => l.type !== " ");
    const inLoop = loop !== null && changed.some((l) => l.new! >= loop[0] && l.new! <= loop[1]);
    const defines = lines.some((l) => l.type === "+" && DEFINES.test(l.text));
    const kind: HunkKind = inLoop ? "loop" : oldText === undefined || defines ? "new" : isCosmetic(lines) ? "cosmetic" : "change";
    return {
      kind,
      header: `@@ -${h.oldStart},${h.oldLines} +${h.newStart},${h.newLines} @@`,
      lines,
      added: lines.filter((l) => l.type === "+").length,
      removed: lines.filter((l) => l.type === "-").length,
    };
  });
  // What teaches first; the file's own order within a kind.
  const ordered = hunks.map((h, i) => ({ h, i })).sort((a, b) => RANK[a.h.kind] - RANK[b.h.kind] || a.i - b.i).map((x) => x.h);
  return {
    path,
    status: oldText === undefined ? "added" : "changed",
    hunks: ordered,
    added: hunks.reduce((s, h) => s + h.added, 0),
    removed: hunks.reduce((s, h) => s + h.removed, 0),
  };
}

function exportsOf(files: Record<string, string>): Set<string> {
  const out = new Set<string>();
  for (const text of Object.values(files))
    for (const m of text.matchAll(/^export\s+(?:async\s+)?(?:function\*?|class|const|let|interface|type|enum)\s+([A-Za-z_$][\w$]*)/gm)) out.add(m[1]!);
  return out;
}

function toolsOf(files: Record<string, string>): Set<string> {
  const out = new Set<string>();
  for (const text of Object.values(files))
    for (const m of text.matchAll(/\bname:\s*"([a-z][a-z0-9_]*)"\s*,\s*\n?\s*(?:description|input_schema|inputSchema|readOnly|schema)\b/g)) out.add(m[1]!);
  return out;
}

/** The diff of one lesson's solution against another's, in teaching order. */
export function diffLessons(from: Snapshot, to: Snapshot): DiffModel {
  const paths = [...new Set([...Object.keys(from.files), ...Object.keys(to.files)])].sort();
  const files: FileDiffModel[] = [];
  const kept: string[] = [];
  const unchanged: string[] = [];
  for (const p of paths) {
    const a = from.files[p];
    const b = to.files[p];
    if (b === undefined) kept.push(p);
    else if (a === b) unchanged.push(p);
    else files.push({ ...fileDiff(p, a, b, p === to.entry ? regionLines(b, "loop") : null), given: (to.given ?? []).includes(p) });
  }
  // The exercise's files first (the loop's change, then the new mechanism), the given ones after them.
  const rank = (f: FileDiffModel) => (f.given ? 10 : 0) + Math.min(...f.hunks.map((h) => RANK[h.kind]), 9);
  files.sort((x, y) => rank(x) - rank(y) || (x.path === to.entry ? -1 : y.path === to.entry ? 1 : 0) || x.path.localeCompare(y.path));
  const before = exportsOf(from.files);
  const toolsBefore = toolsOf(from.files);
  return {
    from: from.dir,
    to: to.dir,
    files,
    kept,
    unchanged,
    summary: {
      added: files.reduce((s, f) => s + f.added, 0),
      removed: files.reduce((s, f) => s + f.removed, 0),
      filesAdded: files.filter((f) => f.status === "added").map((f) => f.path),
      filesChanged: files.filter((f) => f.status === "changed").map((f) => f.path),
      exportsAdded: [...exportsOf(to.files)].filter((e) => !before.has(e)),
      toolsAdded: [...toolsOf(to.files)].filter((t) => !toolsBefore.has(t)),
    },
  };
}

/** Side-by-side rows of a hunk: context on both sides, a run of removals beside the additions that follow it. */
export function splitRows(h: Hunk): { left?: DiffLine; right?: DiffLine }[] {
  const rows: { left?: DiffLine; right?: DiffLine }[] = [];
  let i = 0;
  while (i < h.lines.length) {
    const l = h.lines[i]!;
    if (l.type === " ") {
      rows.push({ left: l, right: l });
      i++;
      continue;
    }
    const minus: DiffLine[] = [];
    const plus: DiffLine[] = [];
    while (i < h.lines.length && h.lines[i]!.type === "-") minus.push(h.lines[i++]!);
    while (i < h.lines.length && h.lines[i]!.type === "+") plus.push(h.lines[i++]!);
    for (let k = 0; k < Math.max(minus.length, plus.length); k++) rows.push({ left: minus[k], right: plus[k] });
  }
  return rows;
}
