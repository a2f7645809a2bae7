/**
 * Part III in `npm run reliability` (`--only part3`): the lessons s18–s22, each through its real
 * loop and tools. Five checks, one file each:
 *
 *   part3-hooks.ts    hooks that misbehave at every hook event (s19)
 *   part3-rules.ts    the permission rules fuzzed with fast-check (s18)
 *   part3-jobs.ts     background jobs that never end, under every kind of stop (s22)
 *   part3-rewind.ts   a rewind to every checkpoint after every kind of stop (s21)
 *   part3-attacks.ts  attacks on the new surfaces: settings, hook answers, words posing as the
 *                     user, the memory tool's paths (s18–s22)
 *
 * The figures go into the reliability page (report.ts draws them, en and zh) and the last line of
 * --json gains a "part3" object (Part3Summary).
 */
import { existsSync } from "node:fs";
import { join } from "node:path";
import { ROOT } from "../../runtime/testing.ts";
import { p3Modes } from "./part3-common.ts";
import { runHookPart, type HookFigures } from "./part3-hooks.ts";
import { runJobPart, type JobFigures } from "./part3-jobs.ts";
import { runP3AttackPart, type P3AttackFigures } from "./part3-attacks.ts";
import { runRewindPart, type RewindFigures } from "./part3-rewind.ts";
import { runRulesPart, type RulesProperty } from "./part3-rules.ts";

export interface Part3Figures {
  date: string;
  /** The Part III lessons present (each part runs only when its lesson is). */
  lessons: string[];
  sandbox: "bubblewrap" | "none";
  hooks: HookFigures | null;
  rules: { properties: Array<Omit<RulesProperty, "counterexample">>; counterexamples: string[] } | null;
  jobs: JobFigures | null;
  rewind: RewindFigures | null;
  attacks: P3AttackFigures | null;
}

/** The "part3" object of --json's last line. */
export interface Part3Summary {
  hooks: { cells: number; passed: number };
  rules: { runs: number; violations: number };
  jobs: { tried: number; survived: number };
  rewind: { cells: number; passed: number };
  attacks: { corpus: number; tried: number; escaped: number };
}

export const PART3_LESSONS = ["s18_permissions", "s19_hooks", "s20_memory", "s21_checkpoints", "s22_background"];

export function part3Summary(f: Part3Figures): Part3Summary {
  return {
    hooks: { cells: f.hooks?.cells ?? 0, passed: f.hooks?.passed ?? 0 },
    rules: { runs: (f.rules?.properties ?? []).reduce((n, p) => n + p.runs, 0), violations: (f.rules?.properties ?? []).reduce((n, p) => n + p.violations, 0) },
    jobs: { tried: f.jobs?.tried ?? 0, survived: f.jobs?.survived ?? 0 },
    rewind: { cells: f.rewind?.cells ?? 0, passed: f.rewind?.passed ?? 0 },
    attacks: { corpus: f.attacks?.corpus ?? 0, tried: f.attacks?.tried ?? 0, escaped: f.attacks?.escapedCount ?? 0 },
  };
}

/** Does Part III hold? Every cell passed, no violation, no job survived, no claimed attack escaped. */
export const part3Ok = (s: Part3Summary) => s.hooks.passed === s.hooks.cells && s.rules.violations === 0 && s.jobs.survived === 0 && s.rewind.passed === s.rewind.cells && s.attacks.escaped === 0;

/** Runs the five checks (`rulesRuns` generated cases per rules property), saying on stderr how each went. */
export async function runPart3(opts: { rulesRuns: number; seed?: number; log?: (line: string) => void }): Promise<Part3Figures> {
  const log = opts.log ?? (() => {});
  const present = PART3_LESSONS.filter((d) => existsSync(join(ROOT, "solutions", d, "agent.ts")));
  const has = (d: string) => present.includes(d);
  const modes = p3Modes();
  const hooks = has("s19_hooks") ? (await runHookPart(modes)).figures : null;
  if (hooks) log(`  part3 hooks: ${hooks.passed}/${hooks.cells} cells ok`);
  const rules = has("s18_permissions") ? await runRulesPart(opts.rulesRuns, opts.seed) : null;
  if (rules) log(`  part3 rules: ${rules.reduce((n, p) => n + p.runs, 0)} runs, ${rules.reduce((n, p) => n + p.violations, 0)} violations`);
  const jobs = has("s22_background") ? (await runJobPart(modes)).figures : null;
  if (jobs) log(`  part3 jobs: ${jobs.survived} survived of ${jobs.tried} claimed`);
  const rewind = has("s21_checkpoints") ? (await runRewindPart()).figures : null;
  if (rewind) log(`  part3 rewind: ${rewind.passed}/${rewind.cells} cells ok`);
  const attacks = present.length > 0 ? (await runP3AttackPart(p3Modes(true))).figures : null;
  if (attacks) log(`  part3 attacks: ${attacks.escapedCount} escaped of ${attacks.tried} claimed`);
  return {
    date: new Date().toISOString().slice(0, 10),
    lessons: present.map((d) => d.slice(0, 3)),
    sandbox: modes.includes("bubblewrap") ? "bubblewrap" : "none",
    hooks,
    rules: rules ? { properties: rules.map(({ counterexample: _c, ...p }) => p), counterexamples: rules.flatMap((p) => (p.counterexample ? [p.counterexample] : [])) } : null,
    jobs,
    rewind,
    attacks,
  };
}
