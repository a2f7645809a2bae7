/**
 * npm run reliability [-- --json] [--runs N] [--seed N] [--only fuzz,faults,attacks,bad] [--update-docs]
 *
 * Runs everything at scale and prints a table: property-based fuzzing of every lesson's loop
 * (N generated runs in all, 10 000 by default), fault injection, the attack corpus against the
 * tools, and bad input to the course itself. With --json, the last line is:
 *
 *   {"fuzz":{"runs":N,"invariant_violations":N,"crashes":N},"faults":{"total":N,"survived":N},
 *    "attacks":{"corpus":N,"tried":N,"escaped":N,"sandbox":"bubblewrap"|"none","modes":[…]},
 *    "bad_inputs":{"tried":N,"handled":N}}
 *
 * `attacks.corpus` is the number of attacks; each runs against the lessons' toolsets in every mode
 * the machine has (with the OS sandbox, with it and every command approved, without it).
 * `tried`/`escaped` count only the runs a lesson claims to stop; the others are in the table,
 * marked "not claimed". `sandbox` says whether the sandbox was on for the sandboxed modes. --update-docs writes the tables into
 * docs/guide/reliability.md (between its "latest" markers). Exit code 1 when any figure fails.
 */
import { spawn } from "node:child_process";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { npmSwallowed } from "../lib/args.ts";
import { ROOT } from "../../runtime/testing.ts";
import { ATTACK_ENV, BOUNDARY_ATTACKS, ATTACKS, presentToolsets, type AttackReport, type AttackResult } from "./attacks.ts";
import { runBadInputs, type BadInputResult } from "./bad-inputs.ts";
import { FAULT_CASES, runFaults, type FaultResult } from "./faults.ts";
import { fuzzLesson, type FuzzStats } from "./fuzz.ts";
import { presentAdapters } from "./lessons.ts";

function usage(message: string): never {
  console.error(`${message}\nusage: npm run reliability -- [--json] [--runs N] [--seed N] [--only fuzz,faults,attacks,bad] [--update-docs]`);
  process.exit(2);
}

let values;
try {
  ({ values } = parseArgs({
    options: {
      json: { type: "boolean", default: false },
      runs: { type: "string", default: "10000" },
      seed: { type: "string" },
      only: { type: "string", default: "fuzz,faults,attacks,bad" },
      "update-docs": { type: "boolean", default: false },
    },
  }));
} catch (e) {
  usage((e as Error).message);
}
const swallowed = npmSwallowed();
if (swallowed.length > 0) usage(`unknown flag ${swallowed.join(", ")} (npm kept it for itself: put \`--\` before the flags)`);
const totalRuns = Number(values.runs);
if (!Number.isInteger(totalRuns) || totalRuns < 1) usage(`--runs must be a positive whole number, not "${values.runs}"`);
const seed = values.seed === undefined ? undefined : Number(values.seed);
if (seed !== undefined && !Number.isInteger(seed)) usage(`--seed must be a whole number, not "${values.seed}"`);
const parts = new Set(values.only.split(",").map((s) => s.trim()));
for (const p of parts) if (!["fuzz", "faults", "attacks", "bad"].includes(p)) usage(`--only takes fuzz, faults, attacks, bad; not "${p}"`);

const log = (s = "") => {
  if (!values.json) console.log(s);
};
const lines: string[] = [];
const out = (s = "") => {
  lines.push(s);
  log(s);
};

function table(head: string[], rows: Array<Array<string | number>>): void {
  const cells = rows.map((r) => r.map(String));
  const width = head.map((h, i) => Math.max(h.length, ...cells.map((r) => (r[i] ?? "").length)));
  const line = (r: string[]) => `| ${r.map((c, i) => c.replace(/\|/g, "\\|").padEnd(width[i]!)).join(" | ")} |`;
  out(line(head));
  out(`| ${width.map((w) => "-".repeat(w)).join(" | ")} |`);
  for (const r of cells) out(line(r));
  out();
}

const { adapters, missing } = await presentAdapters();
out(`Lessons tested: ${adapters.map((a) => a.lesson.id).join(", ") || "none"}${missing.length ? `; not present yet: ${missing.map((m) => m.lesson.id).join(", ")}` : ""}`);
out();

// ── fuzz ──
const fuzz: FuzzStats[] = [];
if (parts.has("fuzz") && adapters.length > 0) {
  const per = Math.ceil(totalRuns / adapters.length);
  out(`### Property-based fuzzing (${per} generated runs per lesson)`);
  out();
  for (const a of adapters) {
    const s = await fuzzLesson(a, per, seed);
    fuzz.push(s);
    if (!values.json) process.stderr.write(`  fuzzed ${a.lesson.id}: ${s.runs} runs, ${s.violations + s.crashes === 0 ? "ok" : "FAILED"}\n`);
  }
  const claimsOf = (id: string) => {
    const c = adapters.find((a) => a.lesson.id === id)!.claims;
    return [
      c.unknownToolIsError ? "unknown→is_error" : "unknown answered",
      c.toolThrows ? "throws, bad input, hangs→is_error" : null,
      c.stopReasons ? "every stop_reason, cut-off calls not run, Outcome" : "stops on any stop_reason ≠ tool_use",
    ]
      .filter(Boolean)
      .join("; ");
  };
  table(
    ["lesson", "runs", "violations", "crashes", "ms/run", "claims checked"],
    fuzz.map((s) => [s.lesson, s.runs, s.violations, s.crashes, (s.ms / Math.max(1, s.runs)).toFixed(1), claimsOf(s.lesson)]),
  );
  for (const s of fuzz) if (s.counterexample) out(`Counterexample:\n\n\`\`\`text\n${s.counterexample}\n\`\`\`\n`);
}

// ── faults ──
let faults: FaultResult[] = [];
if (parts.has("faults") && adapters.length > 0) {
  faults = await runFaults(adapters);
  out("### Fault injection (retries: SDK default 2 / off)");
  out();
  const cell = (l: string, f: string) =>
    [2, 0].map((r) => faults.find((x) => x.lesson === l && x.fault === f && x.retries === r)?.verdict ?? "?").join(" / ");
  table(["fault", ...adapters.map((a) => a.lesson.id)], FAULT_CASES.map((c) => [c.what, ...adapters.map((a) => cell(a.lesson.id, c.id))]));
  for (const f of faults) if (f.verdict === "FAILED") out(`FAILED: ${f.lesson} ${f.fault} (retries ${f.retries}): ${f.detail}`);
}

// ── attacks ── (a child process whose environment holds canaries where the API keys would be)
let attacks: AttackResult[] = [];
let attackReport: Omit<AttackReport, "results"> = { corpus: 0, sandbox: "none", modes: [] };
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
  out(`Sandbox: ${report.sandbox === "bubblewrap" ? "bubblewrap (on)" : "none (off: bwrap cannot start here)"}; modes run: ${report.modes.join(", ")}.`);
  out();
  const sets = [...new Set(attacks.map((a) => `${a.toolset} · ${a.mode}`))];
  for (const t of toolsets) out(`- ${t.id}: used by ${t.lessons.join(", ") || "no lesson present"}${t.claims ? " (they claim to stop the attacks marked claimed)" : " (no claim: run to show what the attacks do)"}`);
  out();
  const corpus = [...new Map(attacks.map((a) => [a.attack, a])).values()];
  out(`### Attack corpus (${report.corpus} attacks; ${sets.length} toolset × mode columns)`);
  out();
  const verdict = (r: AttackResult | undefined) =>
    !r ? "n/a" : r.escaped === null ? "not run" : r.escaped ? (r.claimed ? "ESCAPED" : "escapes (not claimed)") : "stopped";
  table(
    ["attack", "group", ...sets],
    corpus.map((a) => [a.what, a.group, ...sets.map((s) => verdict(attacks.find((r) => r.attack === a.attack && `${r.toolset} · ${r.mode}` === s)))]),
  );
  for (const r of attacks) if (r.claimed && r.escaped) out(`ESCAPED: ${r.what} (${r.toolset} · ${r.mode}): ${r.detail}`);
  for (const a of [...ATTACKS, ...BOUNDARY_ATTACKS]) if (a.note) out(`- ${a.what}: ${a.note}${a.sandboxOnly ? " (claimed only with the sandbox)" : ""}.`);
  out();
}

// ── bad inputs ──
let bad: BadInputResult[] = [];
if (parts.has("bad")) {
  bad = await runBadInputs();
  out("### Bad input to the course");
  out();
  table(["input", "handled", "what the learner sees"], bad.map((b) => [b.what, b.handled ? "yes" : "NO", b.detail.replace(/\n/g, " ")]));
}

const claimedAttacks = attacks.filter((a) => a.claimed && a.escaped !== null);
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
    escaped: claimedAttacks.filter((a) => a.escaped).length,
    sandbox: attackReport.sandbox,
    modes: attackReport.modes,
  },
  bad_inputs: { tried: bad.length, handled: bad.filter((b) => b.handled).length },
};
out(
  `Summary: ${summary.fuzz.runs} fuzzed runs, ${summary.fuzz.invariant_violations} violations, ${summary.fuzz.crashes} crashes; ` +
    `faults ${summary.faults.survived}/${summary.faults.total} survived; attacks ${summary.attacks.escaped} escaped of ${summary.attacks.tried} claimed; ` +
    `bad inputs ${summary.bad_inputs.handled}/${summary.bad_inputs.tried} handled.`,
);

if (values["update-docs"]) {
  // Markdown for the docs: angle brackets and asterisks of commands must not become HTML or emphasis.
  const md = lines.map((l) => (l.startsWith("  ") ? l : l.replace(/</g, "&lt;").replace(/>/g, "&gt;").replace(/\*/g, "\\*")));
  for (const rel of ["docs/guide/reliability.md", "docs/zh/guide/reliability.md"]) {
    const page = join(ROOT, rel);
    if (!existsSync(page)) continue;
    const text = readFileSync(page, "utf8");
    const start = "<!-- reliability:latest:start -->";
    const end = "<!-- reliability:latest:end -->";
    const a = text.indexOf(start);
    const b = text.indexOf(end);
    if (a < 0 || b < a) continue;
    const body = `${start}\n\n_${new Date().toISOString().slice(0, 10)}, \`npm run reliability\`:_\n\n${md.join("\n")}\n\n\`\`\`json\n${JSON.stringify(summary)}\n\`\`\`\n\n${end}`;
    writeFileSync(page, text.slice(0, a) + body + text.slice(b + end.length));
    log(`(updated ${rel})`);
  }
}

if (values.json) console.log(JSON.stringify(summary));
const ok =
  summary.fuzz.invariant_violations === 0 &&
  summary.fuzz.crashes === 0 &&
  summary.faults.survived === summary.faults.total &&
  summary.attacks.escaped === 0 &&
  summary.bad_inputs.handled === summary.bad_inputs.tried;
process.exitCode = ok ? 0 : 1;
