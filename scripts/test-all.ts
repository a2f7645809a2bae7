/**
 * npm run test:all [-- --no-build] [--sample] [--no-learner]
 *
 * Everything `npm test` runs, and what it leaves out to stay near a minute:
 *   1. vitest, both projects (vitest.config.ts), one after the other: the learner's suite, then the
 *      course command line, the reliability samples, the mutants, the offline model as a process,
 *      the appendix
 *   2. `npm run verify`: every pristine exercise fails, every solution passes, every mutant caught
 *   3. `npm run test:e2e`: the docs site in a browser (it builds the site first; `--no-build`
 *      uses the build already in docs/.vitepress/dist, as CI does after `npm run docs:build`)
 *   4. the learner's project again, on a copy of the course in which every exercise is solved (each
 *      solution copied over its exercise): `npm test` must stay green whatever state lessons/ is
 *      in, and only such a run shows a test that reads the exercise where it means the solution
 *
 * `--no-learner` (CI, which has just run `npm test`) leaves out the learner's project (not step 4), and verify's
 * runs of the solutions, which are the learner's lesson files again (`npm run verify -- --no-solutions`).
 * `--sample` (CI) grades verify's patches on a fixed sample (`npm run verify -- --sample`): every
 * other check of verify still runs on every lesson; `npm run verify` alone grades every patch. It
 * also runs the browser test with `--sample`: English on every page, each translation's lesson pages
 * on a fixed sample (`npm run test:e2e` alone checks every page of every language).
 *
 * Every step runs even when one before it failed; the summary names the ones that failed.
 */
import { spawnSync } from "node:child_process";
import { mkdirSync, rmSync } from "node:fs";
import { join } from "node:path";
import { LESSONS } from "../runtime/manifest.ts";
import { bold, green, red } from "../runtime/print.ts";
import { makeCopy, solve } from "../tests/cli/course-copy.ts";
import { strictArgsOrExit } from "./lib/args.ts";
import { ROOT, STATE_DIR } from "./lib/paths.ts";
import { failingTests } from "./lib/vitest-report.ts";

const { values } = strictArgsOrExit({ command: "npm run test:all", usage: "[-- --no-build] [--sample] [--no-learner]", options: { "no-build": { type: "boolean" }, sample: { type: "boolean" }, "no-learner": { type: "boolean" } } });

const node = (args: string[], cwd = ROOT) => spawnSync(process.execPath, args, { cwd, stdio: "inherit" }).status ?? 1;

/**
 * The failing tests of every vitest step, said again at the very end: the steps after a vitest
 * step print hundreds of lines, and a log read from its tail (CI's) must still name what failed.
 * vitest writes them as JSON beside its usual report (.course/test-all/<project>.json).
 */
const REPORTS = join(STATE_DIR, "test-all");
const recap: string[] = [];
/** vitest's `project` in the course at `root` (this one, or a copy); its report in .course/test-all/<name>.json. */
const vitest = (project: string, root = ROOT, name = project) => {
  const report = join(REPORTS, `${name}.json`);
  mkdirSync(REPORTS, { recursive: true });
  rmSync(report, { force: true });
  const status = node([join(root, "node_modules/vitest/vitest.mjs"), "run", "--project", project, "--reporter=default", "--reporter=json", `--outputFile.json=${report}`], root);
  if (status !== 0) recap.push(...failingTests(name, report, root));
  return status;
};

/** The learner's suite on a copy of the course whose every exercise is solved, as a learner's is at the end. */
const solvedLearner = () => {
  const copy = makeCopy({ git: true });
  try {
    for (const l of LESSONS) solve(copy.root, l.dir);
    return vitest("learner", copy.root, "learner-solved");
  } finally {
    copy.remove();
  }
};

const tsx = (file: string, args: string[] = []) => node(["--import", "tsx", join(ROOT, file), ...args]);

const steps: [string, () => number][] = [
  // Each project in a vitest of its own: the learner's global setup gives its run a temp folder
  // and fails on what is left in it (tests/leftovers.setup.ts), which must not span the other.
  ...(values["no-learner"] ? [] : [["vitest: the learner's project (npm test)", () => vitest("learner")] as [string, () => number]]),
  ["vitest: the extended project", () => vitest("extended")],
  ["verify (exercises fail, solutions pass, mutants caught)", () => tsx("scripts/course.ts", ["verify", ...(values.sample ? ["--sample"] : []), ...(values["no-learner"] ? ["--no-solutions"] : [])])],
  ["test:e2e (the docs site in a browser)", () => tsx("tests/e2e/run.ts", [...(values["no-build"] ? ["--no-build"] : []), ...(values.sample ? ["--sample"] : [])])],
  ["vitest: the learner's project with every exercise solved (a copy of the course)", solvedLearner],
];

const failed: string[] = [];
for (const [name, run] of steps) {
  console.log(bold(`\n== test:all · ${name}`));
  const started = Date.now();
  if (run() !== 0) failed.push(name);
  console.log(`== test:all · ${name}: ${Math.round((Date.now() - started) / 1000)} s`);
}
console.log("");
if (failed.length > 0) {
  for (const line of recap) console.error(red(`  failed: ${line}`));
  console.error(red(`test:all: ${failed.length} of ${steps.length} steps failed: ${failed.join("; ")}`));
  process.exit(1);
}
console.log(green(`test:all: all ${steps.length} steps pass`));
