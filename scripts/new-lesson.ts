/**
 * `npm run new-lesson -- sNN` (or the folder name): what the lesson still lacks, one line per
 * piece of docs/guide/contributing.md, each with what to do. Exit 0 when nothing is missing.
 * Without a lesson id: every lesson. `npm run verify -- sNN` runs the same list.
 */
import { LESSONS, findLesson } from "../runtime/manifest.ts";
import { green, red } from "../runtime/print.ts";
import { lessonChecklist } from "./lib/checklist.ts";

const keys = process.argv.slice(2).filter((a) => a !== "--");
const lessons = keys.length === 0 ? LESSONS : keys.map((k) => findLesson(k));
const missing = keys.filter((_, i) => !lessons[i]);
if (missing.length > 0) {
  console.error(
    red(
      `not a lesson yet: ${missing.join(", ")}. A lesson after s17 is found by its solutions/sNN_slug/course.json: write it first ` +
        `(docs/guide/contributing.md, "A lesson registers itself"), then run this again for the rest of the list.`,
    ),
  );
  process.exitCode = 2;
} else {
  let bad = 0;
  for (const lesson of lessons) {
    const items = lessonChecklist(lesson!);
    const left = items.filter((i) => !i.ok);
    bad += left.length;
    if (keys.length === 0 && left.length === 0) {
      console.log(`${green("✓")} ${lesson!.id} ${lesson!.dir}: all ${items.length} pieces`);
      continue;
    }
    console.log(`${lesson!.id} ${lesson!.dir}`);
    for (const i of items) console.log(i.ok ? `  ${green("✓")} ${i.what}` : `  ${red("✗")} ${i.what}\n      ${i.fix}`);
  }
  process.exitCode = bad > 0 ? 1 : 0;
}
