/**
 * What a lesson needs, checked: the contributing guide's list (docs/guide/contributing.md), one
 * line per piece, each with what to do when it is missing. `npm run new-lesson -- sNN` prints it;
 * `npm run verify -- sNN` counts every missing piece as a problem.
 *
 * It reads files only (no test runs): the exercise and the solution, the registration, the test
 * file, the scenario, the hints, the rules (both languages), the
 * mutants and alternatives, the docs page in every language of the site and the picture, and no
 * run of DUPLICATE_LINES lines shared with another lesson's solution.
 */
import { existsSync, readFileSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { diagramFor } from "../../docs/.vitepress/theme/diagrams.ts";
import { SITE_LANGS, langDir, type SiteLang } from "../../docs/.vitepress/theme/langs.ts";
import { LESSONS, type Lesson } from "../../runtime/manifest.ts";
import { REGISTRATION_FILE, registrationOf } from "../../runtime/registrations.ts";
import { RULES } from "../../runtime/rules.ts";
import { SCENARIOS } from "../../runtime/scripted/scenarios/index.ts";
import { ROOT, filesUnder } from "./paths.ts";

export interface Item {
  ok: boolean;
  /** The piece, as the guide names it. */
  what: string;
  /** What to do when it is missing (or what is wrong). */
  fix: string;
  /** Read from the exercise in lessons/, which the learner changes: true on a pristine tree only (verify checks it; npm test does not). */
  exercise?: boolean;
}

/** Each language of the site, as the checklist names it, and how a page written in it is told from a copy of the English one. */
const PAGE_LANGS: Record<SiteLang, { name: string; own?: RegExp; min?: number }> = {
  en: { name: "English" },
  zh: { name: "Chinese", own: /[\u4e00-\u9fff]/g, min: 300 },
  // Kana are what tell Japanese from Chinese; kanji count too (a Japanese page has both).
  ja: { name: "Japanese", own: /[\u3040-\u30ff\u4e00-\u9fff]/g, min: 300 },
  ru: { name: "Russian", own: /[\u0400-\u04ff]/g, min: 600 },
};

/** Whether a page is written in its language (prose outside code fences), not a copy of the English one. */
export function writtenIn(lang: SiteLang, text: string): boolean {
  const { own, min } = PAGE_LANGS[lang];
  if (!own || !min) return true;
  const prose = text.replace(/```[\s\S]*?```/g, "");
  if (lang === "ja" && !/[\u3040-\u30ff]/.test(prose)) return false; // kanji alone is Chinese
  return (prose.match(own) ?? []).length > min;
}

/** A run of this many code lines found in two lessons' solutions is a copy (import it instead). */
export const DUPLICATE_LINES = 20;

/** The last lesson listed in the central files; every later one registers itself. */
const LAST_LISTED = 17;

const read = (rel: string) => (existsSync(join(ROOT, rel)) ? readFileSync(join(ROOT, rel), "utf8") : "");
/** Files of a lesson's folder that are code (course.json is the registration, not the lesson). */
const lessonFiles = (tree: "lessons" | "solutions", dir: string) => filesUnder(join(ROOT, tree, dir)).filter((f) => f !== REGISTRATION_FILE);

/** Code lines of a file, for the duplication check: no blanks, no comment-only lines, trimmed. */
function codeLines(text: string): string[] {
  return text
    .split("\n")
    .map((l) => l.trim())
    .filter((l) => l !== "" && !/^(\/\/|\/\*|\*)/.test(l) && !/^import\b|^} from /.test(l));
}

/** The first run of DUPLICATE_LINES code lines `dir`'s solution shares with another lesson's, if any. */
export function sharedRun(dir: string, lessons: readonly Lesson[] = LESSONS): string | null {
  const windows = (d: string) => {
    const out = new Map<string, string>();
    for (const f of lessonFiles("solutions", d).filter((x) => x.endsWith(".ts"))) {
      const lines = codeLines(read(`solutions/${d}/${f}`));
      for (let i = 0; i + DUPLICATE_LINES <= lines.length; i++) out.set(lines.slice(i, i + DUPLICATE_LINES).join("\n"), `solutions/${d}/${f}`);
    }
    return out;
  };
  const mine = windows(dir);
  if (mine.size === 0) return null;
  for (const other of lessons) {
    if (other.dir === dir) continue;
    for (const [text, file] of windows(other.dir)) {
      const here = mine.get(text);
      if (here) return `${here} repeats ${DUPLICATE_LINES} lines of ${file} (from "${text.split("\n")[0]}"): import it instead of copying`;
    }
  }
  return null;
}

export function lessonChecklist(lesson: Lesson): Item[] {
  const { id, dir, entry } = lesson;
  const items: Item[] = [];
  const add = (ok: boolean, what: string, fix: string, exercise = false) => items.push({ ok, what, fix, ...(exercise ? { exercise } : {}) });
  const number = Number(id.slice(1));
  const reg = registrationOf(dir);

  if (number > LAST_LISTED)
    add(Boolean(reg), `solutions/${dir}/${REGISTRATION_FILE}`, `write it: the lesson's manifest entry, tasks, rules and picture (docs/guide/contributing.md, "A lesson registers itself")`);

  const exFiles = lessonFiles("lessons", dir);
  const solFiles = lessonFiles("solutions", dir);
  add(exFiles.includes(entry), `lessons/${dir}/${entry} (the exercise)`, "write the exercise: the solution's files with // TODO: markers, each followed by a todo(\"…\") call");
  add(solFiles.includes(entry), `solutions/${dir}/${entry} (the solution)`, "write the reference solution at the same paths as the exercise");
  add(exFiles.join() === solFiles.join(), "lessons/ and solutions/ hold the same files", `make them match (exercise: ${exFiles.join(", ") || "none"}; solution: ${solFiles.join(", ") || "none"})`, true);
  const exText = exFiles.map((f) => read(`lessons/${dir}/${f}`)).join("\n");
  const solText = solFiles.map((f) => read(`solutions/${dir}/${f}`)).join("\n");
  const todos = (exText.match(/\/\/ TODO:/g) ?? []).length;
  add(todos > 0 && /\btodo\(/.test(exText), "the exercise's TODOs say which is left when run", "mark each place the learner works with // TODO: and follow it with a todo(\"…\") call", true);
  add(!/\/\/ TODO:|\btodo\(/.test(solText), "the solution has no TODO", "finish the solution: no // TODO: and no todo( call");
  const main = read(`solutions/${dir}/${entry}`);
  add(/export (const|async function|function) demo\b/.test(main), "the entry exports demo(llm)", "export demo(llm) = transcriptOf(task, workspace, run): the docs record its run");
  add(/\blesson\(import\.meta\.url|\brunMain\(import\.meta\.url/.test(main), "the entry ends with lesson(import.meta.url, …)", "end the entry with lesson(import.meta.url, { task, workspace, run }) from runtime/lesson.ts");
  add(/\/\/ #region \w+/.test(main), "the entry marks the code the page shows (// #region)", "wrap the loop's change in // #region loop … // #endregion loop");

  const test = read(`tests/${dir}.test.ts`);
  add(test !== "", `tests/${dir}.test.ts`, "write the tests: loadLesson() the module, drive it with scripted(), check transcriptProblems and the lesson's rules with rule()");
  // (An id the tests name that is in no catalog is reported by tests/runtime/lesson-assertions.test.ts.)
  const own = reg ? Object.keys(reg.rules) : [];
  const unused = own.filter((r) => !test.includes(`"${r}"`) && !test.includes(`[${r}]`));
  add(unused.length === 0, "every rule the lesson registers is checked by its tests", `check ${unused.join(", ")} in tests/${dir}.test.ts with rule(…, "id", "…"), or remove it`);
  // The rules page's table is made from the catalog when the site is built (scripts/lib/rules-doc.ts): nothing to write.
  add(own.every((r) => RULES[r]?.zh.what && RULES[r]?.zh.fix), "the lesson's rules are in Chinese too", "give each rule in course.json its zh: { what, fix }");

  // s01–s17's scenarios are imported by scenarios/index.ts and graded by their tests; a registered lesson's default task must reach its own.
  if (reg) {
    const task = reg.tasks.task;
    const routed = task !== undefined && SCENARIOS.some((s) => s.task?.trim() === task.trim() && s.id.startsWith(dir));
    add(routed, `runtime/scripted/scenarios/${dir}.ts answers the default task`, `write the scenario (a Scenario export with id "${dir}…" and task: lessonTask("${dir}")) and give course.json a tasks.task`);
  }
  add(lesson.hints.every((h) => h.trim().length > 40), "two hints (guiding questions, then a stronger one)", "write both hints in the lesson's entry (course.json: lesson.hints)");

  for (const [kind, folder] of [["mutants", "tests/mutants"], ["alternatives", "tests/alternatives"]] as const) {
    const dirPath = join(ROOT, folder, id);
    const n = existsSync(dirPath) ? readdirSync(dirPath).filter((f) => f.endsWith(".patch")).length : 0;
    add(n > 0, `${folder}/${id}/*.patch (${kind})`, kind === "mutants" ? "add broken loops the check must fail with their rule leading (# rule: id)" : "add other valid ways to write the change; the check must pass them");
  }

  for (const lang of SITE_LANGS) {
    const page = `docs/${langDir(lang)}lessons/${dir}.md`;
    const name = PAGE_LANGS[lang].name;
    const text = read(page);
    add(text !== "", page, `write the ${name} page: the idea, the code imported with <<< by region, the exercise, the hint`);
    if (text === "") continue;
    add(new RegExp(`^#\\s+${id}\\s+·\\s+\\S`, "m").test(text), `${page} opens with "# ${id} · <title>"`, `start the page with "# ${id} · " and the lesson's title${lang === "en" ? "" : ` in ${name} (the syllabus reads it)`}`);
    add(/<<<\s+@\/\.\.\/solutions\//.test(text), `${page} imports its code from solutions/`, "show the code with <<< @/../solutions/<dir>/<file>#<region>, never pasted");
    add(!new RegExp(`npx tsx lessons/${dir}/`).test(text), `${page} teaches \`npm run lesson ${id}\``, `run the exercise with \`npm run lesson ${id}\` (a bare npx tsx prints the transpiler's trace on a syntax error)`);
    if (lang !== "en") add(writtenIn(lang, text), `${page} is written in ${name}`, `write the page in ${name}, not a copy of the English one`);
  }
  add(diagramFor(dir, reg?.diagram) !== undefined, "a picture of the idea", `add "diagram" to solutions/${dir}/${REGISTRATION_FILE} (boxes, arrows, labels in en, zh, ja and ru; English fills a missing one)`);

  const dup = sharedRun(dir);
  add(dup === null, `no run of ${DUPLICATE_LINES} lines copied from another lesson`, dup ?? "");
  return items;
}

/** The missing pieces of a lesson, as one line each ("s18: … — what to do"). */
export function checklistProblems(lesson: Lesson): string[] {
  return lessonChecklist(lesson)
    .filter((i) => !i.ok)
    .map((i) => `${lesson.id}: ${i.what}: ${i.fix}`);
}
