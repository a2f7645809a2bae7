/**
 * The equivalent mutants of the mutation sweep, read from tests/mutation/equivalent.yaml: per
 * lesson, each with its file, Stryker's mutator name, the trimmed line it starts on, the
 * replacement, and why it changes nothing a test could see.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { parse } from "yaml";
import { z } from "zod";
import { ROOT } from "../lib/paths.ts";

export const EQUIVALENT_FILE = "tests/mutation/equivalent.yaml";

const Equivalent = z.object({
  file: z.string(),
  mutator: z.string(),
  /** The line the mutant starts on, trimmed: it finds the mutant again when lines move. */
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

