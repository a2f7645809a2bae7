/**
 * "What changed since the previous lesson", generated from the two reference solutions (never
 * written by hand). `lessonDiff` compares the two folders at build time (the page says when no
 * file changed); the page shows the diff view (docs/.vitepress/theme/LessonDiffView.vue), which
 * diffs the build's snapshots of any two solutions in the browser.
 */
import { existsSync, readFileSync, readdirSync, statSync } from "node:fs";
import { join, relative } from "node:path";
import { createTwoFilesPatch } from "diff";
import { baseOf, type Lesson } from "../../runtime/manifest.ts";
import { REGISTRATION_FILE } from "../../runtime/registrations.ts";
import type { SiteLang as Lang } from "../../docs/.vitepress/theme/langs.ts";

export type FileStatus = "changed" | "added" | "removed" | "unchanged";

export interface FileDiff {
  /** Path inside the lesson folder, "/" separated: "agent.ts", "tools/registry.ts". */
  path: string;
  status: FileStatus;
  /** The unified diff without its "Index:"/"===" preamble; empty when unchanged. */
  patch: string;
  added: number;
  removed: number;
}

export interface LessonDiff {
  lesson: Lesson;
  previous: Lesson | undefined;
  files: FileDiff[];
}

/** Every file under a folder, relative and "/"-separated, sorted; [] when the folder is missing. */
export function listFiles(dir: string): string[] {
  if (!existsSync(dir)) return [];
  const out: string[] = [];
  const walk = (d: string) => {
    for (const name of readdirSync(d)) {
      if (name === "node_modules" || name.startsWith(".") || name === REGISTRATION_FILE) continue;
      const p = join(d, name);
      if (statSync(p).isDirectory()) walk(p);
      else out.push(relative(dir, p).split("\\").join("/"));
    }
  };
  walk(dir);
  return out.sort();
}

/** agent.ts first (it carries the loop), then the rest alphabetically. */
function byImportance(a: string, b: string): number {
  const rank = (p: string) => (p === "agent.ts" ? 0 : 1);
  return rank(a) - rank(b) || a.localeCompare(b);
}

/** Diffs two texts as one file; counts the added and removed lines. */
export function diffFile(oldName: string, newName: string, oldText: string, newText: string, path: string): FileDiff {
  const status: FileStatus =
    oldText === newText ? "unchanged" : oldName === "/dev/null" ? "added" : newName === "/dev/null" ? "removed" : "changed";
  if (status === "unchanged") return { path, status, patch: "", added: 0, removed: 0 };
  const raw = createTwoFilesPatch(oldName, newName, oldText, newText, undefined, undefined, { context: 3 });
  const lines = raw.split("\n").filter((l) => !l.startsWith("Index:") && !/^=+$/.test(l));
  // Drop the tab-separated (empty) headers the library adds after each file name.
  const patch = lines.map((l) => (l.startsWith("--- ") || l.startsWith("+++ ") ? l.replace(/\t.*$/, "") : l)).join("\n").trimEnd();
  let added = 0;
  let removed = 0;
  for (const l of lines) {
    if (l.startsWith("+") && !l.startsWith("+++")) added++;
    else if (l.startsWith("-") && !l.startsWith("---")) removed++;
  }
  return { path, status, patch, added, removed };
}

/** The diff of one lesson's solution against its base's (course.json's `base`, else the lesson before it). */
export function lessonDiff(root: string, lessons: Lesson[], dir: string): LessonDiff {
  const lesson = lessons.find((l) => l.dir === dir);
  if (!lesson) throw new Error(`lesson diff: "${dir}" is not in runtime/manifest.ts`);
  const previous = baseOf(lesson, lessons);
  if (!previous) return { lesson, previous, files: [] };

  const newDir = join(root, "solutions", lesson.dir);
  const oldDir = join(root, "solutions", previous.dir);
  if (!existsSync(newDir)) throw new Error(`lesson diff: solutions/${lesson.dir}/ is missing (runtime/manifest.ts lists ${lesson.id})`);
  if (!existsSync(oldDir)) throw new Error(`lesson diff: solutions/${previous.dir}/ is missing (runtime/manifest.ts lists ${previous.id})`);

  const paths = [...new Set([...listFiles(oldDir), ...listFiles(newDir)])].sort(byImportance);
  const files = paths.map((p) => {
    const oldPath = join(oldDir, p);
    const newPath = join(newDir, p);
    const oldText = existsSync(oldPath) ? readFileSync(oldPath, "utf8") : "";
    const newText = existsSync(newPath) ? readFileSync(newPath, "utf8") : "";
    const oldName = existsSync(oldPath) ? `solutions/${previous.dir}/${p}` : "/dev/null";
    const newName = existsSync(newPath) ? `solutions/${lesson.dir}/${p}` : "/dev/null";
    return diffFile(oldName, newName, oldText, newText, p);
  });
  return { lesson, previous, files };
}

export type { Lang };

const WORDS = {
  en: {
    first: (l: Lesson) =>
      `${l.id} starts the course: there is no earlier solution to compare it with. From the next lesson on, this section shows, generated from the two reference solutions, exactly what each lesson adds to the loop.`,
    intro: (l: Lesson, p: Lesson) =>
      `Generated at build time from \`solutions/${p.dir}/\` → \`solutions/${l.dir}/\` (never edited by hand):`,
    same: "no file changed.",
  },
  zh: {
    first: (l: Lesson) =>
      `${l.id} 是第一课：没有更早的参考答案可以比较。从下一课起，这一节会根据两份参考答案自动生成，准确显示每一课给循环添加了什么。`,
    intro: (l: Lesson, p: Lesson) => `构建时由 \`solutions/${p.dir}/\` → \`solutions/${l.dir}/\` 自动生成（从不手写）：`,
    same: "没有文件变化。",
  },
  ja: {
    first: (l: Lesson) =>
      `${l.id} はコースの最初のレッスンです：比べる前の参考解答はありません。次のレッスンからは、このセクションが二つの参考解答から自動生成され、各レッスンがループに何を加えるかを正確に示します。`,
    intro: (l: Lesson, p: Lesson) => `ビルド時に \`solutions/${p.dir}/\` → \`solutions/${l.dir}/\` から自動生成（手で編集しません）：`,
    same: "変更されたファイルはありません。",
  },
  ru: {
    first: (l: Lesson) =>
      `${l.id} открывает курс: более раннего решения для сравнения нет. Начиная со следующего урока этот раздел, созданный по двум эталонным решениям, точно показывает, что каждый урок добавляет в цикл.`,
    intro: (l: Lesson, p: Lesson) => `Создано при сборке из \`solutions/${p.dir}/\` → \`solutions/${l.dir}/\` (руками не правится):`,
    same: "ни один файл не изменился.",
  },
} as const satisfies Record<Lang, unknown>;

/**
 * The markdown a lesson page shows: where the diff comes from, then the diff view
 * (LessonDiffView.vue: a summary card, the code folded until asked, the loop's change first,
 * any two lessons). Left out of the search index.
 */
export function diffMarkdown(d: LessonDiff, lang: Lang): string {
  const w = WORDS[lang];
  if (!d.previous) return `${w.first(d.lesson)}\n`;
  const changed = d.files.filter((f) => f.status === "changed" || f.status === "added");
  // The generated text stays out of the search index (docs/.vitepress/config.ts, `_render`).
  const out: string[] = ["<!-- search:skip -->", "", w.intro(d.lesson, d.previous), ""];
  if (changed.length === 0) out.push(w.same, "");
  out.push(`<LessonDiffView lesson="${d.lesson.dir}" />`, "", "<!-- /search:skip -->", "");
  return out.join("\n");
}
