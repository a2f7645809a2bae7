/**
 * Build-time data for the syllabus and the "loop, growing" page: figures measured from the
 * solutions (scripts/docs/course-data.ts), one entry per lesson of the manifest.
 */
import { dirname, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { defineLoader } from "vitepress";
import { LESSONS } from "../../../runtime/manifest.ts";
import { TRANSLATED } from "./langs.ts";
import { courseFigures, type LessonFigures } from "../../../scripts/docs/course-data.ts";

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "../../..");

declare const data: LessonFigures[];
export { data };

export default defineLoader({
  watch: [resolve(ROOT, "solutions/**/*.ts"), resolve(ROOT, "solutions/*/course.json"), ...TRANSLATED.map((l) => resolve(ROOT, `docs/${l}/lessons/*.md`)), resolve(ROOT, "runtime/manifest.ts")],
  load: () => courseFigures(ROOT, LESSONS),
});
