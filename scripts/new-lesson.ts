/**
 * `npm run new-lesson -- sNN_slug --from sMM [--title "Title"]`: writes a new lesson built on sMM
 * (scripts/lib/scaffold.ts: course.json with its base, the exercise and the solution, the test,
 * the scenario, a page per language, a mutant and an alternative). It edits no existing file: the
 * rules page shows the new rules from the catalog when the site is built (scripts/lib/rules-doc.ts).
 *
 * `npm run new-lesson -- sNN` (or the folder name): what the lesson still lacks, one line per
 * piece of docs/guide/contributing.md, each with what to do. Exit 0 when nothing is missing.
 * Without a lesson id: every lesson. `npm run verify -- sNN` runs the same list.
 */
import { LESSONS, findLesson } from "../runtime/manifest.ts";
import { green, red } from "../runtime/print.ts";
import { lessonChecklist } from "./lib/checklist.ts";
import { ROOT } from "./lib/paths.ts";
import { strictArgsOrExit } from "./lib/args.ts";
import { ScaffoldError, parseLessonName, scaffoldLesson } from "./lib/scaffold.ts";

const USAGE = 'usage: npm run new-lesson -- sNN_slug --from sMM [--title "Title"]   (write a new lesson)\n       npm run new-lesson -- [sNN]                               (what a lesson still lacks)';

// Strict: an unknown flag (or --help) is one line with the usage, exit 2, nothing written.
const parsed = strictArgsOrExit({
  command: "npm run new-lesson --",
  usage: 'sNN_slug --from sMM [--title "Title"] | [sNN …]',
  options: { from: { type: "string" }, title: { type: "string" }, help: { type: "boolean" } },
  positionals: { max: LESSONS.length },
});
if (parsed.values.help) {
  console.log(USAGE);
  process.exit(0);
}
const args = parsed.positionals;
const { from, title } = parsed.values;

if (from !== undefined) scaffold();
else checklist();

function scaffold(): void {
  const name = parseLessonName(args[0] ?? "", title);
  const base = findLesson(from ?? "");
  if (args.length !== 1 || !name || !base) {
    const why = !name ? `name the new lesson by its folder, sNN_slug (e.g. s24_headless), or give --title` : !base ? `--from ${from}: no such lesson` : "one lesson at a time";
    console.error(red(`${why}.\n${USAGE}`));
    process.exitCode = 2;
    return;
  }
  try {
    const files = scaffoldLesson({ root: ROOT, ...name, base, lessons: LESSONS, ...(title ? { title } : {}) });
    for (const f of files) console.log(`${green("+")} ${f}`);
  } catch (e) {
    if (!(e instanceof ScaffoldError)) throw e;
    console.error(red(e.message));
    process.exitCode = 2;
    return;
  }
  const id = `${name.id}_${name.slug}`;
  console.log(`\n${name.id} builds on ${base.id}. Its exercise fails its test and its solution passes it already:\n` +
    `  npm run check ${name.id}                 # the exercise: fails on the rule, naming the TODO\n` +
    `  npx vitest run --project learner tests/${id}.test.ts   # the solution: passes\n` +
    `Now replace the stub idea (a note in the system prompt) with the lesson's own, and every WRITE: with words;\n` +
    `npm run new-lesson -- ${name.id} lists what is left, npm run verify -- ${name.id} grades it all (docs/guide/contributing.md).`);
}

function checklist(): void {
  const keys = args;
  const lessons = keys.length === 0 ? LESSONS : keys.map((k) => findLesson(k));
  const missing = keys.filter((_, i) => !lessons[i]);
  if (missing.length > 0) {
    console.error(
      red(
        `not a lesson yet: ${missing.join(", ")}. Write one with npm run new-lesson -- sNN_slug --from sMM (a lesson after s17 is found by its ` +
          `solutions/sNN_slug/course.json; docs/guide/contributing.md), then run this again for the rest of the list.`,
      ),
    );
    process.exitCode = 2;
    return;
  }
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
