/**
 * Every command README.md and docs/guide/commands.md show runs as written, on a fresh clone
 * (a temporary git copy of the course), offline, each with a time limit: its exit code and its
 * output are checked. A command is what a ```sh block holds, a `$ ` line of a ```text block, or
 * an inline `npm …` with no placeholder in it (`sNN`, `[…]`, `…`, `NAME`: those are usage lines),
 * with the variables it sets first (`COURSE_TIME_SCALE=3 npm run reliability`). The agent's user
 * config folder is a new empty one, as on a fresh machine: no command reads or writes the real one.
 * A command the pages gain without an entry in EXPECTED fails here, naming it: say what it does.
 *
 * Commands that run for many minutes are run by a step of their own in .ci/run (`ci`), or only
 * started here, their first line checked within the limit (`starts`).
 */
import { spawn } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { homedir, tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ROOT } from "../../runtime/testing.ts";
import { courseEnv, hasCommand, makeCopy, stripAnsi, type CourseCopy } from "./course-copy.ts";

type Expect =
  | { exit: number; out?: RegExp; not?: RegExp; limitS?: number }
  | { starts: RegExp; limitS?: number }
  | { ci: string };

const SAMPLE = "npm run agent -- --workspace examples/login-service";
const FLAGSHIP = `"Run the login module's tests and find out why one fails."`;

/** What each command does on a fresh clone, offline, with no terminal (stdin is empty). */
const EXPECTED: Record<string, Expect> = {
  "npm install": { ci: ".ci/run's first step (npm ci)" },
  "npm test": { ci: ".ci/run runs it twice: as on a fresh machine (no bubblewrap, no Chromium), then with both" },
  "COURSE_HIDE_BWRAP=1 npm test": { ci: ".ci/run's first test step (COURSE_HIDE_BWRAP=1 CHROMIUM_PATH=… npm test)" },
  "COURSE_TIME_SCALE=3 npm run reliability": { starts: /fuzzed s01/, limitS: 300 },
  "npm run test:all": { ci: ".ci/run's test:all step" },
  "npm run typecheck": { ci: ".ci/run's typecheck step" },
  "npm run lint": { ci: ".ci/run's lint step" },
  "npm run docs:build": { ci: ".ci/run's docs step" },
  "npm run docs:sync": { ci: "tests/runtime/checklist.test.ts runs the same check on every page (the lesson checklist's translations line)" },
  "npm run test:e2e": { ci: "test:all's last step" },
  "npm run verify": { ci: ".ci/run's test:all (verify --sample); all of it takes over 20 minutes" },
  "npm run docs:dev": { starts: /transcript|VitePress|localhost/i, limitS: 180 },
  "npm run watch": { starts: /s01/, limitS: 180 },
  "npm run offline-model -- --port 8787": { starts: /127\.0\.0\.1:8787|in use/i, limitS: 120 },
  "npm run bench -- --only npm_test": { ci: "it runs npm test, which .ci/run runs in steps of its own" },
  "npm run -s eval -- --json": { exit: 0, out: /"pass_rate":/, limitS: 900 },
  "npm run -s eval -- --json | jq .pass_rate": { ci: "the line before, piped to jq (not installed everywhere)" },
  "npm run bench": { starts: /parallel|streaming|loop|cycle/i, limitS: 180 },
  "npm run eval": { starts: /fix-range|explain-port|pass/i, limitS: 180 },
  "npm start": { exit: 0, out: /model: scripted \(offline\)[\s\S]*lessons\/s01_agent_loop\/agent\.ts/ },
  "npm run list": { exit: 0, out: /s01\s+The agent loop/ },
  "COURSE_LANG=ja npm run list": { exit: 0, out: /s01\s+エージェントループ/, not: /The agent loop/ },
  "npm run lesson s01": { exit: 2, out: /TODO/ },
  'npm run lesson s01 "read package.json"': { exit: 2, out: /TODO/ },
  "npm run lesson s01 -- --solution": { exit: 0, out: /model: scripted \(offline\)/ },
  "npm run lesson s01 -- --verbos": { exit: 2, out: /--verbos/ },
  "npm run check": { exit: 1, out: /s01/ },
  "npm run check s01": { exit: 1, out: /✗ s01[\s\S]*TODO/ },
  "npm run check s01 -- --verbose": { exit: 1, out: /✗ s01/ },
  "npm run check s01 -- --verbos": { exit: 2, out: /unknown flag --verbos/ },
  // Every course command refuses a flag it does not know at once, the long ones too, and --help is the usage.
  "npm run mutation -- --hlep": { exit: 2, out: /unknown flag --hlep\. usage: npm run mutation/, limitS: 60 },
  "npm run mutation -- --help": { exit: 0, out: /usage: npm run mutation[\s\S]*--stale[\s\S]*--docs/, limitS: 60 },
  "npm run eval -- --help": { exit: 0, out: /usage: npm run eval[\s\S]*--agent NAME/, limitS: 60 },
  "npm run new-lesson -- --help": { exit: 0, out: /usage: npm run new-lesson -- sNN_slug --from sMM/, limitS: 60 },
  "npm run check s01 --verbose": { exit: 1, out: /-- --verbose/ },
  "npm run hint s01": { exit: 0, out: /\S/ },
  "npm run hint s01 -- --more": { exit: 0, out: /\S/ },
  "npm run solution s01": { exit: 0, out: /agent\.ts/ },
  // On a fresh clone the exercise is pristine: reset has nothing to do, and --undo no backup.
  "npm run reset s01": { exit: 0, out: /already pristine: nothing to reset/ },
  "npm run reset s01 --yes": { exit: 0, out: /already pristine: nothing to reset/ },
  "npm run reset s01 --frobnicate": { exit: 2, out: /--frobnicate/ },
  "npm run reset s01 -- --yes": { exit: 0, out: /already pristine: nothing to reset/ },
  "npm run reset s01 -- --undo": { exit: 1, out: /no backup of lessons\/s01_agent_loop[\s\S]*nothing to undo/ },
  "npm run agent": { exit: 2, out: /--workspace/ },
  "npm run agent -- --help": { exit: 0, out: /--workspace[\s\S]*--mcp-config[\s\S]*--worktrees[\s\S]*--workflow FILE[\s\S]*--goal/ },
  "npm run agent -- --scenarios": { exit: 0, out: /Fix the login lockout so the tests pass\./ },
  // No terminal and no --yes: the sample repository's Stop hook is not approved, so it does not run
  // (one line says so and how to approve it); the answer is the same.
  [`${SAMPLE} ${FLAGSHIP}`]: { exit: 0, out: /hook not run: Stop hook[\s\S]*not approved[\s\S]*--yes[\s\S]*off-by-one/, not: /Not done|stopped \(no_script\)|Stop hook sent me back/ },
  [`${SAMPLE} --yes ${FLAGSHIP}`]: { exit: 0, out: /off-by-one[\s\S]*Stop hook sent me back/, not: /Not done|hook not run|stopped \(no_script\)/ },
  [SAMPLE]: { exit: 0, out: /workspace: / },
  // Headless (s24): json prints the one result line, stream-json a line per event, ending in the result.
  [`npm run -s agent -- --workspace examples/login-service -p ${FLAGSHIP} --output-format json`]: { exit: 0, out: /\{"type":"result","subtype":"success","is_error":false,[\s\S]*off-by-one/, not: /"type":"assistant"/ },
  [`npm run -s agent -- --workspace examples/login-service -p ${FLAGSHIP} --output-format stream-json`]: { exit: 0, out: /^\{"type":"system","subtype":"init"[\s\S]*\{"type":"assistant"[\s\S]*\{"type":"result","subtype":"success"/m },
  'npm run -s agent -- --workspace DIR -p "task" --output-format json | jq .result': { ci: "a pattern (DIR, task): the json line before runs it on the sample repository; jq is not installed everywhere" },
  [`${SAMPLE} --workflow examples/workflows/review.json`]: { exit: 0, out: /workflow "review": done · ran files, source, tests, draft, short/, not: /Not done|no_script|session: headless-/ },
  // No terminal: the worker's edit is refused, so the evaluator never finds the tests passing (the sample stays as it is).
  [`${SAMPLE} --goal --goal-check "node --test" "Make the login service's tests pass: an account must lock after MAX_FAILED_ATTEMPTS failed logins in a row."`]: { exit: 1, out: /evaluator: not done[\s\S]*stopped \(goal_not_met\)[\s\S]*evaluator: 3 request/, not: /Not done|no_script|goal met/ },
  [`${SAMPLE} --mcp-config examples/mcp-notes/mcp.json "What do our team notes say about account lockouts?"`]: { exit: 0, out: /→ mcp__notes__search[\s\S]*locks after 3 failed logins/, not: /Not done|Not run/ },
  [`npm run agent -- --skills examples/skills --workspace examples/login-service ${FLAGSHIP}`]: { exit: 0, out: /off-by-one/, not: /Not done/ },
  [`npm run agent -- --permission-mode plan --workspace examples/login-service "Fix the login lockout so the tests pass."`]: { exit: 1, out: /→ read_file[\s\S]*→ exit_plan_mode[\s\S]*The plan was not approved[\s\S]*I changed nothing[\s\S]*■ stopped \(plan_not_approved\)[\s\S]*Not done: the plan was not approved/, not: /Fixed src|■ done/ },
  [`npm run agent -- --context-budget 40000 --workspace examples/login-service ${FLAGSHIP}`]: { exit: 0, out: /off-by-one/, not: /Not done/ },
  "npx tsx examples/tool-runner/agent.ts": { exit: 0, out: /\S/ },
  "npx tsx examples/structured-output/extract.ts": { exit: 0, out: /\S/ },
};

/** The output without npm's own lines ("> agent-loop-course@0.1.0 watch"), which would match anything. */
const own = (out: string) =>
  stripAnsi(out)
    .split("\n")
    .filter((l) => !l.startsWith("> "))
    .join("\n");

const PLACEHOLDER = /sNN|\[|…|NAME|\\\||<|\bk\b|path\/to/;

/** A command line: npm or npx, after the variables it sets (`COURSE_TIME_SCALE=3 npm run reliability`). */
const COMMAND = /^(?:[A-Z][A-Z0-9_]*=\S+ )*(?:npm|npx) /;

/** The commands a page shows, in order, each once (comments after `#` dropped). */
export function commandsOf(markdown: string): string[] {
  const found: string[] = [];
  let block: string | null = null;
  for (const line of markdown.split("\n")) {
    const fence = /^```(\w*)/.exec(line);
    if (fence) {
      block = block === null ? fence[1]! : null;
      continue;
    }
    if (block !== null) {
      const l = line.trim();
      const cmd = block === "text" ? (l.startsWith("$ ") ? l.slice(2) : null) : l;
      if (cmd && COMMAND.test(cmd)) found.push(cmd.replace(/\s+#.*$/, "").trim());
    } else for (const m of line.matchAll(/`([^`]+)`/g)) if (COMMAND.test(m[1]!) && !PLACEHOLDER.test(m[1]!)) found.push(m[1]!.trim());
  }
  return [...new Set(found)].filter((c) => !PLACEHOLDER.test(c));
}

const pages = ["README.md", "docs/guide/commands.md"];
const commands = [...new Set(pages.flatMap((p) => commandsOf(readFileSync(join(ROOT, p), "utf8"))))];

/** Runs one command line in the copy with bash, stdin empty; killed (its group) at the limit, or once its output matches `until`. */
function run(root: string, config: string, command: string, limitS: number, until?: RegExp): Promise<{ code: number | null; out: string; timedOut: boolean }> {
  return new Promise((resolve) => {
    const env = { ...courseEnv(), AGENT_CONFIG_DIR: config, ...(process.env.COURSE_HIDE_BWRAP ? { COURSE_HIDE_BWRAP: process.env.COURSE_HIDE_BWRAP } : {}) };
    const child = spawn("bash", ["-c", command], { cwd: root, env, detached: true, stdio: ["ignore", "pipe", "pipe"] });
    let out = "";
    let timedOut = false;
    const stop = () => {
      try {
        process.kill(-child.pid!, "SIGKILL");
      } catch {
        // gone already
      }
    };
    const seen = (c: Buffer) => {
      out += c.toString();
      if (until?.test(own(out))) stop();
    };
    child.stdout.on("data", seen);
    child.stderr.on("data", seen);
    const timer = setTimeout(() => {
      timedOut = true;
      stop();
    }, limitS * 1000);
    child.on("close", (code) => {
      clearTimeout(timer);
      resolve({ code, out: stripAnsi(out), timedOut });
    });
  });
}

describe("the pages' commands", () => {
  it("every command README.md and docs/guide/commands.md show has an expectation here", () => {
    const missing = commands.filter((c) => !(c in EXPECTED));
    expect(missing, `commands on the pages with no entry in EXPECTED (tests/cli/docs-commands.test.ts): say what each does on a fresh clone`).toEqual([]);
    expect(commands).toContain(`${SAMPLE} ${FLAGSHIP}`);
  });

  it("finds a command with the variables it sets, in a block and inline, and leaves usage lines out", () => {
    const page = "Run `COURSE_TIME_SCALE=3 npm run reliability` or `npm run eval [-- --json]`.\n\n```sh\nCOURSE_HIDE_BWRAP=1 npm test   # as on a fresh machine\nNOT_A_COMMAND=1 ls\n```\n";
    expect(commandsOf(page)).toEqual(["COURSE_TIME_SCALE=3 npm run reliability", "COURSE_HIDE_BWRAP=1 npm test"]);
  });
});

describe.skipIf(!hasCommand("git") || !hasCommand("bash"))("the pages' commands, run as written on a fresh clone, offline", () => {
  let copy: CourseCopy;
  // A fresh machine's agent config folder: empty, and not the real one (~/.config/agent-loop-course).
  const config = mkdtempSync(join(tmpdir(), "course-pages-config-"));
  beforeAll(() => {
    copy = makeCopy({ git: true });
  }, 120_000);
  afterAll(() => {
    copy?.remove();
    rmSync(config, { recursive: true, force: true });
  });

  for (const command of commands) {
    const want = EXPECTED[command];
    if (!want || "ci" in want) continue;
    const limitS = want.limitS ?? 300;
    it(command, { timeout: (limitS + 60) * 1000 }, async () => {
      const r = await run(copy.root, config, command, limitS, "starts" in want ? want.starts : undefined);
      const shown = `${command} (exit ${r.code}${r.timedOut ? `, stopped at the ${limitS} s limit` : ""}) printed:\n${r.out.slice(0, 1500)}`;
      if ("starts" in want) {
        expect(own(r.out), `${shown}\n\nit should start, printing its first lines within ${limitS} s`).toMatch(want.starts);
        return;
      }
      expect(r.timedOut, `${shown}\n\nit should end within ${limitS} s`).toBe(false);
      expect(r.code, shown).toBe(want.exit);
      if (want.out) expect(r.out, shown).toMatch(want.out);
      if (want.not) expect(r.out, shown).not.toMatch(want.not);
    });
  }

  it("no command wrote into the real agent config folder (a hook approved with --yes went to the fresh one)", () => {
    const real = join(homedir(), ".config", "agent-loop-course", "trusted-hooks.json");
    const approvals = existsSync(real) ? readFileSync(real, "utf8") : "";
    expect(approvals.includes(copy.root), `${real} names the copy ${copy.root}: run the pages' commands with AGENT_CONFIG_DIR set to a fresh folder`).toBe(false);
  });
});
