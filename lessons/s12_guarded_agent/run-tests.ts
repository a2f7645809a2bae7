/**
 * s12 · run_tests, the guarded agent's own test tool: the workspace's tests, run with Node's test runner.
 *
 * Unlike bash, the model cannot choose the command: the program is fixed (`node --test`), and its
 * one input, `module`, is only a name to look for in the paths of the test files this tool found
 * itself (checked by zod to letters, digits, `_`, `.` and `-`). Arbitrary commands still go
 * through bash and its approval gate (s07).
 *
 * subtle: a fixed command is not a safe one. Running tests runs the workspace's code, and the
 * agent can write that code first (write_file a test, then run_tests). So run_tests needs no
 * approval only where the OS sandbox holds it (runtime/tools/sandbox.ts: workspace read-write,
 * nothing else, no network, no secrets, nothing left running). Without a sandbox it runs freely
 * only while the workspace is exactly as the user first gave it or last approved it (a
 * fingerprint of every file, runtime/tools/fingerprint.ts, whatever changed it); then it asks.
 */
import { readdirSync } from "node:fs";
import { join } from "node:path";
import { z } from "zod";
import { ToolError } from "../../runtime/tools/files.ts";
import { WorkspaceTrust } from "../../runtime/tools/fingerprint.ts";
import { sandboxInfo } from "../../runtime/tools/sandbox.ts";
import { defineTool, type CheckedTool } from "../../solutions/s04_tool_errors/define-tool.ts";
import { refuseAll, type Approver } from "../../solutions/s07_safe_tools/approval.ts";
import { SAFE_BASH_TIMEOUT_MS, runSafeBash } from "../../solutions/s07_safe_tools/safe-bash.ts";
import { safeTools } from "../../solutions/s07_safe_tools/safe-tools.ts";

export interface RunTestsOptions {
  /** Wall-clock limit of the whole test run, in ms (default: s07's 120 s). */
  timeoutMs?: number;
  /** Characters of output kept (default: s07's 50 000). */
  maxOutput?: number;
  /** Asked before a run when there is no sandbox and the workspace changed (default: refuse). */
  approve?: Approver;
  /** What the agent changed in this run so far (write_file, edit_file, commands that write): named when it asks. */
  changes?: ChangeLog;
  /**
   * The workspace state the user trusts (runtime/tools/fingerprint.ts): without a sandbox, the
   * tests run without asking only while the workspace's fingerprint is that one (default: one
   * made for this tool, kept in .course/trust/ across runs).
   */
  trust?: WorkspaceTrust;
}

/** What the tools changed in the workspace during one run (filled by s07's `onChange`). */
export class ChangeLog {
  readonly changes: string[] = [];
  readonly note = (what: string): void => void this.changes.push(what);
  get changed(): boolean {
    return this.changes.length > 0;
  }
}

/** What `module` may be: a name, never a path, an option or a piece of shell. */
export const MODULE_NAME = /^\w[\w.-]{0,63}$/;

// #region run-tests
export function runTestsTool(root: string, opts: RunTestsOptions = {}): CheckedTool {
  const timeoutMs = opts.timeoutMs ?? SAFE_BASH_TIMEOUT_MS;
  const trust = opts.trust ?? new WorkspaceTrust(root);
  return defineTool({
    name: "run_tests",
    description:
      "Run the workspace's tests with Node's test runner (node --test) and return its output. " +
      'Give `module` (e.g. "login") to run only the test files whose path contains that name. Runs in the sandbox without ' +
      "approval; where there is no sandbox, it asks once files were changed in this run.",
    input: z.object({
      module: z
        .string()
        .regex(MODULE_NAME, "a module is a name (a letter, digit or _, then letters, digits, _ . -; at most 64), not a path, an option or a command")
        .optional()
        .describe("Only the test files whose path contains this name"),
    }),
    // The test run has its own deadline (the safe runner's); the tool's is a little later.
    timeoutMs: timeoutMs + 5_000,
    run: async ({ module }, ctx) => {
      const argv = [process.execPath, "--test"];
      if (module !== undefined) {
        const all = testFiles(root);
        const files = all.filter((f) => f.includes(module));
        if (files.length === 0)
          throw new ToolError(`no test file's path contains "${module}". Test files: ${all.slice(0, 20).join(", ") || "none found"}${all.length > 20 ? ", …" : ""}.`);
        // "./" first: a file name that starts with "-" is not read as an option.
        argv.push(...files.map((f) => `./${f}`));
      }
      // No sandbox, and the workspace is not as the user last trusted it (whatever changed it: this
      // run's tools, an earlier run, an MCP tool, another process): the tests would run that code
      // with the user's permissions. That needs the same yes as any other command.
      const state = sandboxInfo().kind === "none" ? trust.check() : undefined;
      if (state?.differs) {
        const named = opts.changes?.changed ? `; this run: ${opts.changes.changes.slice(-3).join("; ")}` : "";
        const decision = await (opts.approve ?? refuseAll)({
          command: `node --test${module !== undefined ? ` (${module})` : ""}`,
          reason: `there is no sandbox, and the workspace differs from what you last approved or first gave the agent${named}: the tests would run that code with your permissions`,
        });
        if (!decision.approved)
          throw new ToolError(
            `not run: there is no sandbox on this machine and the workspace was changed since the user last approved it, so the tests need approval, and ${decision.why}. ` +
              "Tell the user what you changed and ask them to run the tests.",
          );
        trust.approve(state.now);
      }
      // s07's runner (process group, cap, clean environment) takes a command line for bash: every
      // word is single-quoted, so bash hands the array to node exactly as it is (nothing expanded).
      const run = await runSafeBash(`exec ${argv.map(shellWord).join(" ")}`, {
        cwd: root,
        signal: ctx.signal,
        timeoutMs,
        ...(opts.maxOutput !== undefined ? { maxOutput: opts.maxOutput } : {}),
        projectBin: true,
      });
      if (run.timedOut) throw new ToolError(run.text);
      // Failing tests are not a failing tool: the output is what the model came for.
      return run.text;
    },
  });
}
// #endregion run-tests

/**
 * The capstone's tools: s07's safe tools (bash asks before anything not read-only) and run_tests,
 * which shares their log of changes: with no sandbox, it asks once the agent changed a file.
 */
export function guardedTools(root: string, approve: Approver, opts: Omit<RunTestsOptions, "approve" | "changes" | "trust"> = {}): CheckedTool[] {
  const changes = new ChangeLog();
  const trust = new WorkspaceTrust(root);
  const limits = { ...(opts.timeoutMs !== undefined ? { timeoutMs: opts.timeoutMs } : {}), ...(opts.maxOutput !== undefined ? { maxOutput: opts.maxOutput } : {}) };
  return [...safeTools({ workspace: root, approve, onChange: changes.note, ...limits }), runTestsTool(root, { ...opts, approve, changes, trust })];
}

/** One word for bash, inside single quotes (where nothing is special but the quote itself). */
export function shellWord(word: string): string {
  return `'${word.replaceAll("'", `'\\''`)}'`;
}

/** Names node --test (Node 20) runs: files in a test/ folder, test.js, test-*.js, *.test.js, *-test.js, *_test.js. */
const TEST_FILE = /(^|\/)test\/.*\.[cm]?js$|(^|\/)(test|test-[^/]*|[^/]*[.\-_]test)\.[cm]?js$/;
/** A walk of a huge workspace stops here (the files seen so far are searched). */
const MAX_ENTRIES = 20_000;

/** The workspace's test files, relative paths; node_modules, hidden folders and symlinks are left out. */
export function testFiles(root: string): string[] {
  const found: string[] = [];
  let seen = 0;
  const walk = (dir: string) => {
    let entries;
    try {
      entries = readdirSync(join(root, dir), { withFileTypes: true });
    } catch {
      return; // a folder we may not read: its tests are not ours to run
    }
    for (const entry of entries) {
      if (++seen > MAX_ENTRIES) return;
      const path = dir ? `${dir}/${entry.name}` : entry.name;
      if (entry.isDirectory() && entry.name !== "node_modules" && !entry.name.startsWith(".")) walk(path);
      else if (entry.isFile() && TEST_FILE.test(path)) found.push(path);
    }
  };
  walk("");
  return found.sort();
}
