/**
 * Figures about the course, measured from the sources at build time (never written by hand): per
 * lesson, the lines of its loop (the `loop` region of its entry file), the lines of its whole
 * solution, and what it adds to the one before (files, exported functions/classes/types, tools).
 * The home page's syllabus and the "loop, growing" page draw these (docs/.vitepress/theme/
 * course.data.ts loads them); a lesson added to the manifest appears with its own figures.
 */
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import type { Lesson } from "../../runtime/manifest.ts";
import { registrationOf } from "../../runtime/registrations.ts";
import type { Diagram } from "../../docs/.vitepress/theme/diagrams.ts";
import { SITE_LANGS, langDir, type SiteLang } from "../../docs/.vitepress/theme/langs.ts";
import { listFiles } from "./diff.ts";
import { findRegion } from "./regions.ts";

export interface LessonFigures {
  id: string;
  dir: string;
  title: string;
  /** The lesson's title in each language of the site: the heading of its page without its "sNN · ", the manifest's title where there is no page. */
  titles: Record<SiteLang, string>;
  /** The languages the lesson has a page in (a link in another language goes to the English page). */
  pages: SiteLang[];
  idea: string;
  /** Lines of the `loop` region of the entry file (code lines: no blanks, no comment-only lines). */
  loopLines: number;
  /** The lesson whose loop this one runs, when its entry has no loop of its own (it imports one). */
  loopFrom?: string;
  /** Code lines of every .ts file of the solution folder. */
  codeLines: number;
  filesAdded: string[];
  /** Exported names new in this lesson (not exported by the previous lesson's solution). */
  exportsAdded: string[];
  /** Tool names new in this lesson's solution (`name: "…"` in a tool definition). */
  toolsAdded: string[];
  /** The picture of a lesson that registers itself (its course.json); the others are in diagrams.ts. */
  diagram?: Diagram;
}

const codeLines = (lines: string[]) => lines.filter((l) => l.trim() !== "" && !/^\s*(\/\/|\/\*|\*)/.test(l)).length;

function exportsOf(text: string): string[] {
  return [...text.matchAll(/^export\s+(?:async\s+)?(?:function\*?|class|const|let|interface|type|enum)\s+([A-Za-z_$][\w$]*)/gm)].map((m) => m[1]!);
}

function toolsOf(text: string): string[] {
  // A tool definition names itself next to its description or input schema.
  return [...text.matchAll(/\bname:\s*"([a-z][a-z0-9_]*)"\s*,\s*\n?\s*(?:description|input_schema|inputSchema|readOnly|schema)\b/g)].map((m) => m[1]!);
}

function folderFacts(root: string, dir: string): { files: string[]; exports: Set<string>; tools: Set<string>; code: number } {
  const base = join(root, "solutions", dir);
  const files = listFiles(base).filter((f) => f.endsWith(".ts"));
  const exports = new Set<string>();
  const tools = new Set<string>();
  let code = 0;
  for (const f of files) {
    const text = readFileSync(join(base, f), "utf8");
    exportsOf(text).forEach((e) => exports.add(e));
    toolsOf(text).forEach((t) => tools.add(t));
    code += codeLines(text.split("\n"));
  }
  return { files, exports, tools, code };
}

/** The picture a lesson registers in its course.json, as a LessonFigures field. */
function pictureOf(dir: string): { diagram?: Diagram } {
  const diagram = registrationOf(dir)?.diagram;
  return diagram ? { diagram: diagram as unknown as Diagram } : {};
}

export function courseFigures(root: string, lessons: Lesson[]): LessonFigures[] {
  let before: ReturnType<typeof folderFacts> | null = null;
  let lastLoop: { id: string; lines: number } | null = null;
  let toolsSoFar = new Set<string>();
  return lessons.map((l) => {
    const facts = folderFacts(root, l.dir);
    const entry = join(root, "solutions", l.dir, l.entry);
    const loop = existsSync(entry) ? findRegion(readFileSync(entry, "utf8"), "loop") : null;
    const headingIn = (lang: SiteLang) => {
      const page = join(root, "docs", langDir(lang), "lessons", `${l.dir}.md`);
      const heading = existsSync(page) ? (/^#\s+(.+)$/m.exec(readFileSync(page, "utf8"))?.[1] ?? "") : "";
      return heading.replace(/^s\d+\s*·\s*/, "").trim() || l.title;
    };
    const figures: LessonFigures = {
      id: l.id,
      dir: l.dir,
      title: l.title,
      pages: SITE_LANGS.filter((lang) => existsSync(join(root, "docs", langDir(lang), "lessons", `${l.dir}.md`))),
      titles: Object.fromEntries(SITE_LANGS.map((lang) => [lang, lang === "en" ? l.title : headingIn(lang)])) as Record<SiteLang, string>,
      idea: l.idea,
      loopLines: loop ? codeLines(loop.lines) : (lastLoop?.lines ?? 0),
      ...(loop || !lastLoop ? {} : { loopFrom: lastLoop.id }),
      codeLines: facts.code,
      filesAdded: before ? facts.files.filter((f) => !before!.files.includes(f)) : facts.files,
      exportsAdded: [...facts.exports].filter((e) => !before?.exports.has(e)),
      toolsAdded: [...facts.tools].filter((t) => !toolsSoFar.has(t)),
      ...pictureOf(l.dir),
    };
    before = facts;
    if (loop) lastLoop = { id: l.id, lines: figures.loopLines };
    toolsSoFar = new Set([...toolsSoFar, ...facts.tools]);
    return figures;
  });
}
