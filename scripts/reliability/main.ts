/**
 * npm run reliability [-- --json] [--runs N] [--seed N] [--only fuzz,faults,attacks,bad,part3] [--update-docs]
 *
 * Runs everything at scale and prints a table: property-based fuzzing of every lesson's loop
 * (N generated runs in all, 10 000 by default), fault injection, the attack corpus against the
 * tools, bad input to the course itself, and Part III (s18–s22: hooks that misbehave, the rules
 * fuzzed, jobs that never end, a rewind after every stop, attacks on the new surfaces; part3.ts).
 * With --json, the last line is:
 *
 *   {"fuzz":{"runs":N,"invariant_violations":N,"crashes":N},"faults":{"total":N,"survived":N},
 *    "attacks":{"corpus":N,"tried":N,"escaped":N,"sandbox":"bubblewrap"|"none","modes":[…]},
 *    "bad_inputs":{"tried":N,"handled":N},
 *    "part3":{"hooks":{"cells":N,"passed":N},"rules":{"runs":N,"violations":N},"jobs":{"tried":N,"survived":N},
 *             "rewind":{"cells":N,"passed":N},"attacks":{"corpus":N,"tried":N,"escaped":N}}}
 *
 * ("part3" only when it ran.) With --only and --update-docs, the parts not run keep the figures the
 * page already holds: a run of one part redraws the page with the others as they were.
 *
 * `attacks.corpus` is the number of attacks; each runs against the lessons' toolsets in every mode
 * the machine has (with the OS sandbox, with it and every command approved, without it).
 * `tried`/`escaped` count only the runs a lesson claims to stop; the others are in the table,
 * marked "not claimed". `sandbox` says whether the sandbox was on for the sandboxed modes. --update-docs writes the tables into
 * docs/guide/reliability.md and docs/zh/guide/reliability.md (between their "latest" markers), each in its
 * language, drawn by report.ts from the figures the block keeps (`npx tsx scripts/docs/render-reports.ts`
 * draws them again without running anything). Exit code 1 when any figure fails.
 */
import { spawn } from "node:child_process";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { mistakeLine, strictArgsOrExit, usageLine } from "../lib/args.ts";
import { ROOT } from "../../runtime/testing.ts";
import { ATTACK_ENV, BOUNDARY_ATTACKS, ATTACKS, presentToolsets, type AttackReport, type AttackResult } from "./attacks.ts";
import { runBadInputs, type BadInputResult } from "./bad-inputs.ts";
import { FAULT_CASES, runFaults, type FaultResult } from "./faults.ts";
import { fuzzLesson, type FuzzStats } from "./fuzz.ts";
import { presentAdapters } from "./lessons.ts";
import { part3Ok, part3Summary, runPart3 } from "./part3.ts";
import { figuresOf, reliabilityBlock, renderReliability, replaceBlock, type AttackCell, type ClaimKey, type FaultCell, type ReliabilityFigures } from "./report.ts";
import { SITE_LANGS, langDir } from "../../docs/.vitepress/theme/langs.ts";
import { reportFailures } from "../lib/failure.ts";

// What nothing else catches ends the run in words, with what to do (scripts/lib/failure.ts).
reportFailures("npm run reliability");

const SPEC = {
  command: "npm run reliability --",
  usage: "[--json] [--runs N] [--seed N] [--only fuzz,faults,attacks,bad,part3] [--update-docs] [--help]",
  options: {
    json: { type: "boolean", default: false },
    runs: { type: "string", default: "10000" },
    seed: { type: "string" },
    only: { type: "string", default: "fuzz,faults,attacks,bad,part3" },
    "update-docs": { type: "boolean", default: false },
    help: { type: "boolean", short: "h" },
  },
} as const;
const HELP = `  --json          one JSON line of the figures on stdout (progress on stderr)
  --runs N        generated runs of the fuzzer, shared among the lessons (default 10000)
  --seed N        the fuzzer's seed, to reproduce a run (default: a fresh one, printed)
  --only a,b      only these parts: fuzz, faults, attacks, bad (bad input), part3 (default: all)
  --update-docs   write the tables into the reliability page of every language`;

function usage(message: string): never {
  console.error(mistakeLine(SPEC, message));
  process.exit(2);
}

const { values } = strictArgsOrExit(SPEC);
if (values.help) {
  console.log(`${usageLine(SPEC)}\n\n${HELP}`);
  process.exit(0);
}
const totalRuns = Number(values.runs);
if (!Number.isInteger(totalRuns) || totalRuns < 1) usage(`--runs must be a positive whole number, not "${values.runs}"`);
const seed = values.seed === undefined ? undefined : Number(values.seed);
if (seed !== undefined && !Number.isInteger(seed)) usage(`--seed must be a whole number, not "${values.seed}"`);
const parts = new Set(values.only.split(",").map((s) => s.trim()));
const PARTS = ["fuzz", "faults", "attacks", "bad", "part3"];
for (const p of parts) if (!PARTS.includes(p)) usage(`--only takes ${PARTS.join(", ")}; not "${p}"`);

const log = (s = "") => {
  if (!values.json) console.log(s);
};
const { adapters, missing } = await presentAdapters();

// ── fuzz ──
const fuzz: FuzzStats[] = [];
let fuzzFigures: ReliabilityFigures["fuzz"] = null;
if (parts.has("fuzz") && adapters.length > 0) {
  const per = Math.ceil(totalRuns / adapters.length);
  for (const a of adapters) {
    const s = await fuzzLesson(a, per, seed);
    fuzz.push(s);
    if (!values.json) process.stderr.write(`  fuzzed ${a.lesson.id}: ${s.runs} runs, ${s.violations + s.crashes === 0 ? "ok" : "FAILED"}\n`);
  }
  const claimsOf = (id: string): ClaimKey[] => {
    const c = adapters.find((a) => a.lesson.id === id)!.claims;
    const keys: Array<ClaimKey | null> = [
      c.unknownToolIsError ? "unknown-is-error" : "unknown-answered",
      c.toolThrows ? "throws-is-error" : null,
      c.stopReasons ? "every-stop-reason" : "stops-on-other",
      c.streaming ? "early-reads" : null,
    ];
    return keys.filter((k): k is ClaimKey => k !== null);
  };
  fuzzFigures = {
    per,
    rows: fuzz.map((s) => ({ lesson: s.lesson, runs: s.runs, violations: s.violations, crashes: s.crashes, ms_per_run: Math.round((s.ms / Math.max(1, s.runs)) * 10) / 10, claims: claimsOf(s.lesson) })),
    counterexamples: fuzz.flatMap((s) => (s.counterexample ? [s.counterexample] : [])),
  };
}

// ── faults ──
let faults: FaultResult[] = [];
let faultFigures: ReliabilityFigures["faults"] = null;
if (parts.has("faults") && adapters.length > 0) {
  faults = await runFaults(adapters);
  const cell = (l: string, f: string, r: number): FaultCell => faults.find((x) => x.lesson === l && x.fault === f && x.retries === r)?.verdict ?? "?";
  faultFigures = {
    lessons: adapters.map((a) => a.lesson.id),
    rows: FAULT_CASES.map((c) => ({ id: c.id, what: c.what, cells: adapters.map((a): [FaultCell, FaultCell] => [cell(a.lesson.id, c.id, 2), cell(a.lesson.id, c.id, 0)]) })),
    failed: faults.filter((f) => f.verdict === "FAILED").map((f) => ({ lesson: f.lesson, fault: f.fault, retries: f.retries, detail: f.detail })),
  };
}

// ── attacks ── (a child process whose environment holds canaries where the API keys would be)
let attacks: AttackResult[] = [];
let attackReport: Omit<AttackReport, "results"> = { corpus: 0, sandbox: "none", modes: [] };
let attackFigures: ReliabilityFigures["attacks"] = null;
const toolsets = parts.has("attacks") ? await presentToolsets() : [];
if (parts.has("attacks")) {
  const report = await new Promise<AttackReport>((resolve, reject) => {
    const child = spawn(process.execPath, ["--import", "tsx", join(ROOT, "scripts/reliability/attacks.ts")], {
      cwd: ROOT,
      env: { ...process.env, ...ATTACK_ENV },
      stdio: ["ignore", "pipe", "inherit"],
    });
    let text = "";
    child.stdout.on("data", (d: Buffer) => (text += d.toString()));
    child.on("close", (code) => {
      const last = text.trim().split("\n").pop() ?? "";
      try {
        resolve(JSON.parse(last) as AttackReport);
      } catch {
        reject(new Error(`the attack run failed (exit ${code}): ${text.slice(-500)}`));
      }
    });
  });
  attacks = report.results;
  attackReport = { corpus: report.corpus, sandbox: report.sandbox, modes: report.modes };
  const sets = [...new Set(attacks.map((a) => `${a.toolset} · ${a.mode}`))];
  const corpus = [...new Map(attacks.map((a) => [a.attack, a])).values()];
  const verdict = (r: AttackResult | undefined): AttackCell =>
    !r ? "n/a" : r.hung ? "HUNG" : r.escaped === null ? "not run" : r.escaped ? (r.claimed ? "ESCAPED" : "escapes (not claimed)") : "stopped";
  attackFigures = {
    corpus: report.corpus,
    sandbox: report.sandbox,
    modes: report.modes,
    toolsets: toolsets.map((t) => ({ id: t.id, lessons: t.lessons, claims: t.claims })),
    columns: sets,
    rows: corpus.map((a) => ({ what: a.what, group: a.group, cells: sets.map((s) => verdict(attacks.find((r) => r.attack === a.attack && `${r.toolset} · ${r.mode}` === s))) })),
    escaped: attacks.filter((r) => r.claimed && (r.escaped || r.hung)).map((r) => ({ what: r.what, column: `${r.toolset} · ${r.mode}`, detail: r.detail })),
    notes: [...ATTACKS, ...BOUNDARY_ATTACKS].flatMap((a) => (a.note ? [{ what: a.what, note: a.note, ...(a.sandboxOnly ? { sandboxOnly: true } : {}) }] : [])),
  };
}

// ── bad inputs ──
let bad: BadInputResult[] = [];
if (parts.has("bad")) bad = await runBadInputs();

// ── Part III (s18–s22) ──
// Each rules property gets a fifth of the runs, at most 2 000 (they are cheap, the other parts are not sized by --runs).
const part3 = parts.has("part3") ? await runPart3({ rulesRuns: Math.max(20, Math.min(2000, Math.round(totalRuns / 5))), ...(seed !== undefined ? { seed } : {}), log: (l) => void (!values.json && process.stderr.write(`${l}\n`)) }) : null;

// A claimed attack that hung counts as tried and not stopped: every tool call must end.
const claimedAttacks = attacks.filter((a) => a.claimed && (a.escaped !== null || a.hung));
const summary = {
  fuzz: {
    runs: fuzz.reduce((n, s) => n + s.runs, 0),
    invariant_violations: fuzz.reduce((n, s) => n + s.violations, 0),
    crashes: fuzz.reduce((n, s) => n + s.crashes, 0),
  },
  faults: { total: faults.filter((f) => f.verdict !== "n/a").length, survived: faults.filter((f) => f.verdict === "recovered" || f.verdict === "clear stop").length },
  attacks: {
    corpus: attackReport.corpus,
    tried: claimedAttacks.length,
    escaped: claimedAttacks.filter((a) => a.escaped || a.hung).length,
    sandbox: attackReport.sandbox,
    modes: attackReport.modes,
  },
  bad_inputs: { tried: bad.length, handled: bad.filter((b) => b.handled).length },
  ...(part3 ? { part3: part3Summary(part3) } : {}),
};
const figures: ReliabilityFigures = {
  date: new Date().toISOString().slice(0, 10),
  lessons: adapters.map((a) => a.lesson.id),
  missing: missing.map((m) => m.lesson.id),
  fuzz: fuzzFigures,
  faults: faultFigures,
  attacks: attackFigures,
  bad: parts.has("bad") ? bad.map((b) => ({ id: b.id, what: b.what, handled: b.handled, detail: b.detail })) : null,
  part3,
  summary,
};

/** The page's figures with this run's parts laid over them: a part not run keeps what the page shows. */
function merged(previous: ReliabilityFigures | null): ReliabilityFigures {
  if (!previous || PARTS.every((p) => parts.has(p))) return figures;
  const keepOld = !parts.has("fuzz") && !parts.has("faults") && !parts.has("attacks") && !parts.has("bad");
  const pick = <K extends "fuzz" | "faults" | "attacks" | "bad">(key: K, part: string) => (parts.has(part) ? figures[key] : previous[key]);
  const summary = {
    fuzz: parts.has("fuzz") ? figures.summary.fuzz : previous.summary.fuzz,
    faults: parts.has("faults") ? figures.summary.faults : previous.summary.faults,
    attacks: parts.has("attacks") ? figures.summary.attacks : previous.summary.attacks,
    bad_inputs: parts.has("bad") ? figures.summary.bad_inputs : previous.summary.bad_inputs,
    ...(parts.has("part3") ? (figures.summary.part3 ? { part3: figures.summary.part3 } : {}) : previous.summary.part3 ? { part3: previous.summary.part3 } : {}),
  };
  return {
    // The date and lessons of the earlier parts stay theirs when only Part III ran (it carries its own).
    date: keepOld ? previous.date : figures.date,
    lessons: keepOld ? previous.lessons : figures.lessons,
    missing: keepOld ? previous.missing : figures.missing,
    fuzz: pick("fuzz", "fuzz"),
    faults: pick("faults", "faults"),
    attacks: pick("attacks", "attacks"),
    bad: pick("bad", "bad"),
    part3: parts.has("part3") ? figures.part3 : (previous.part3 ?? null),
    summary,
  };
}
for (const line of renderReliability(figures, "en")) log(line);

if (values["update-docs"]) {
  // Each page in its own language, drawn from the same figures (report.ts), which the block keeps.
  for (const [rel, lang] of SITE_LANGS.map((l) => [`docs/${langDir(l)}guide/reliability.md`, l] as const)) {
    const page = join(ROOT, rel);
    if (!existsSync(page)) continue;
    const text = readFileSync(page, "utf8");
    const next = replaceBlock(text, reliabilityBlock(merged(figuresOf(text)), lang), "reliability");
    if (next === text) continue;
    writeFileSync(page, next);
    log(`(updated ${rel})`);
  }
}

if (values.json) console.log(JSON.stringify(summary));
const ok =
  summary.fuzz.invariant_violations === 0 &&
  summary.fuzz.crashes === 0 &&
  summary.faults.survived === summary.faults.total &&
  summary.attacks.escaped === 0 &&
  summary.bad_inputs.handled === summary.bad_inputs.tried &&
  (!summary.part3 || part3Ok(summary.part3));
process.exitCode = ok ? 0 : 1;
