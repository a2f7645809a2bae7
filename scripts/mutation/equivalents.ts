/**
 * The equivalent mutants of the mutation sweep, read from tests/mutation/equivalent.yaml: per
 * lesson, each names ONE mutant, by its file, its place (Stryker's line:column-line:column), its
 * mutator and its replacement, with the trimmed line it starts on (for the reader, and checked),
 * and why it changes nothing observable: nothing sent to the model, nothing that runs, nothing
 * returned or written, nothing a page promises the person (docs/guide/reliability.md).
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { parse } from "yaml";
import { z } from "zod";
import { ROOT } from "../lib/paths.ts";

export const EQUIVALENT_FILE = "tests/mutation/equivalent.yaml";

const Equivalent = z.object({
  file: z.string(),
  /** Where the mutant is: line:column-line:column, 1-based as in the sweep's results (scripts/mutation/mutants.ts placeOf). */
  at: z.string().regex(/^\d+:\d+-\d+:\d+$/),
  mutator: z.string(),
  /** The line the mutant starts on, trimmed (checked against the file: when it moved, the entry is looked at again). */
  line: z.string(),
  replacement: z.string(),
  why: z.string().min(10),
});
export type Equivalent = z.infer<typeof Equivalent>;
const EquivalentFile = z.record(z.string(), z.array(Equivalent).nullable());

export function loadEquivalents(): Record<string, Equivalent[]> {
  const raw = parse(readFileSync(join(ROOT, EQUIVALENT_FILE), "utf8")) ?? {};
  const parsed = EquivalentFile.safeParse(raw);
  if (!parsed.success) throw new Error(`${EQUIVALENT_FILE} is not valid: ${parsed.error.issues.map((i) => `${i.path.join(".")}: ${i.message}`).join("; ")}`);
  return Object.fromEntries(Object.entries(parsed.data).map(([k, v]) => [k, v ?? []]));
}

