/**
 * `npx tsx scripts/rebase-patches.ts [sNN…]`: makes every mutant and alternative patch again at
 * the current line numbers of the solution files it changes.
 *
 * A patch still applies when the code around it moved (the hunk is found near where it was), but
 * verify's TODO-region map reads the hunk headers' line numbers (scripts/lib/regions.ts), so after
 * code moves the patches must say where their change now is. Each patch is applied to the current
 * file and written again from the result, keeping its "# …" header lines; a patch that no longer
 * applies is named and left as it is. Prints what it changed; exit 1 if any patch did not apply.
 */
import { readdirSync, readFileSync, writeFileSync, existsSync } from "node:fs";
import { join } from "node:path";
import { applyPatch, parsePatch, structuredPatch } from "diff";
import { LESSONS, findLesson } from "../runtime/manifest.ts";
import { ROOT } from "./lib/paths.ts";

/** The patch made again against the current files, or an error saying why it cannot be. */
export function rebasePatch(text: string): { text: string } | { error: string } {
  const headerLines = text.split("\n").filter((l, i, all) => l.startsWith("#") && all.slice(0, i).every((x) => x.startsWith("#")));
  const parts: string[] = [];
  for (const p of parsePatch(text)) {
    const name = (p.newFileName ?? p.oldFileName ?? "").replace(/^[ab]\//, "");
    const path = join(ROOT, name);
    if (!existsSync(path)) return { error: `${name} does not exist` };
    const before = readFileSync(path, "utf8");
    const after = applyPatch(before, p, { fuzzFactor: 0 });
    if (after === false) return { error: `no longer applies to ${name}` };
    const made = structuredPatch(name, name, before, after, "", "", { context: 3 });
    parts.push(`--- ${name}\n+++ ${name}\n`);
    for (const h of made.hunks) parts.push(`@@ -${h.oldStart},${h.oldLines} +${h.newStart},${h.newLines} @@\n${h.lines.join("\n")}\n`);
  }
  return { text: `${headerLines.map((l) => `${l}\n`).join("")}${parts.join("")}` };
}

function main() {
  const keys = process.argv.slice(2).filter((a) => a !== "--");
  const lessons = keys.length > 0 ? keys.map((k) => findLesson(k) ?? (console.error(`not a lesson: ${k}`), process.exit(2))) : LESSONS;
  let moved = 0;
  let failed = 0;
  for (const lesson of lessons)
    for (const base of ["tests/mutants", "tests/alternatives"]) {
      const dir = join(ROOT, base, lesson.id);
      if (!existsSync(dir)) continue;
      for (const entry of readdirSync(dir).filter((f) => f.endsWith(".patch"))) {
        const file = join(dir, entry);
        const text = readFileSync(file, "utf8");
        const made = rebasePatch(text);
        if ("error" in made) {
          failed++;
          console.error(`${base}/${lesson.id}/${entry}: ${made.error}; make it again by hand against the current file`);
        } else if (made.text !== text) {
          moved++;
          writeFileSync(file, made.text);
          console.log(`${base}/${lesson.id}/${entry}: made again at the current line numbers`);
        }
      }
    }
  console.log(`${moved} patch(es) made again${failed > 0 ? `, ${failed} that no longer apply` : ""}`);
  process.exitCode = failed > 0 ? 1 : 0;
}

main();
