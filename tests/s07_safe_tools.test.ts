/**
 * s07_safe_tools: tools that cannot hurt you. Grades lessons/ or solutions/ (COURSE_TREE).
 * The mechanisms first (workspace, safe bash, read-only check and approval), then the attack
 * cases of tests/attacks/s07_cases.ts, every one of which must fail, then the loop itself.
 */
import { existsSync, linkSync, lstatSync, mkdirSync, mkdtempSync, readFileSync, readlinkSync, realpathSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { isAbsolute, join, resolve as resolvePath } from "node:path";
import { PassThrough } from "node:stream";
import type Anthropic from "@anthropic-ai/sdk";
import fc from "fast-check";
import { afterAll, beforeAll, describe, it } from "vitest";
import { SCRIPTED_MODEL_ID } from "../runtime/client.ts";
import { COMMAND_ATTACKS, FILE_ATTACKS } from "./attacks/s07_cases.ts";
import type { Approver } from "../solutions/s07_safe_tools/approval.ts";
import { S07_TASK, S07_WORKSPACE } from "../runtime/scripted/scenarios/s07_safe_tools.ts";
import { scratchWorkspace } from "../runtime/tools/files.ts";
import { RuleError, assertProperty, expectSendable, loadLesson, quietOutput, rule, scripted, textIn } from "../runtime/testing.ts";
import { clip } from "./support.ts";
import { onTestClock, realSleep } from "./test-clock.ts";

/** A quoted piece of output, cut with an ellipsis when it is longer than `n`. */

// s07 grades the lesson's own layer (allow-listed environment, process group, read-only policy),
// so its tools run without the OS sandbox here: tests/tools/sandbox.test.ts tests that one. (Inside
// the sandbox, a PID a command prints is its namespace's, not the host's.)
process.env.COURSE_SANDBOX = "off";

type WorkspaceModule = typeof import("../solutions/s07_safe_tools/workspace.ts");
type BashModule = typeof import("../solutions/s07_safe_tools/safe-bash.ts");
type ApprovalModule = typeof import("../solutions/s07_safe_tools/approval.ts");
type BlockListModule = typeof import("../solutions/s07_safe_tools/blocklist.ts");
type ToolsModule = typeof import("../solutions/s07_safe_tools/safe-tools.ts");
type RegistryModule = typeof import("../solutions/s04_tool_errors/define-tool.ts");

const ws = await loadLesson<WorkspaceModule>("s07_safe_tools", "workspace.ts");
const bash = await loadLesson<BashModule>("s07_safe_tools", "safe-bash.ts");
const approval = await loadLesson<ApprovalModule>("s07_safe_tools", "approval.ts");
const blocklist = await loadLesson<BlockListModule>("s07_safe_tools", "blocklist.ts");
const tools = await loadLesson<ToolsModule>("s07_safe_tools", "safe-tools.ts");
const { SafeToolRegistry } = (await import("../solutions/s04_tool_errors/define-tool.ts")) as RegistryModule;

const SECRET = "TOP SECRET: outside the workspace";
let base: string;
let root: string;
let out: string;

/**
 * base/
 *   out/secret.txt                        outside the workspace
 *   ws/                                   the workspace
 *     src/a.txt
 *     secret-link.txt -> ../out/secret.txt
 *     out-link -> ../out
 *     chain-link.txt -> hop.txt -> /…/out/secret.txt
 *     dangling-link.txt -> ../out/created-by-attack.txt (does not exist)
 *     inner-link.txt -> src/a.txt         (a symlink that stays inside: allowed)
 *     hard-link.txt = out/secret.txt      (a hard link: the same file as the one outside)
 */
function makeWorkspace(): void {
  base = realpathSync(mkdtempSync(join(tmpdir(), "s07-test-")));
  out = join(base, "out");
  root = join(base, "ws");
  mkdirSync(out);
  mkdirSync(join(root, "src"), { recursive: true });
  writeFileSync(join(out, "secret.txt"), SECRET);
  writeFileSync(join(root, "src", "a.txt"), "alpha\nbeta\n");
  symlinkSync("../out/secret.txt", join(root, "secret-link.txt"));
  symlinkSync("../out", join(root, "out-link"));
  symlinkSync(join(out, "secret.txt"), join(root, "hop.txt"));
  symlinkSync("hop.txt", join(root, "chain-link.txt"));
  symlinkSync("../out/created-by-attack.txt", join(root, "dangling-link.txt"));
  symlinkSync("src/a.txt", join(root, "inner-link.txt"));
  linkSync(join(out, "secret.txt"), join(root, "hard-link.txt"));
  // A sibling whose name starts with the root's name: a prefix check lets it through.
  mkdirSync(`${root}-evil`);
  writeFileSync(join(`${root}-evil`, "x.txt"), SECRET);
  symlinkSync(`${root}-evil`, join(root, "evil-link"));
}

beforeAll(makeWorkspace);
afterAll(() => rmSync(base, { recursive: true, force: true }));

let nextId = 0;
function callOf(name: string, input: Record<string, unknown>): Anthropic.ToolUseBlock {
  return { type: "tool_use", id: `toolu_test_${nextId++}`, name, input, caller: { type: "direct" } } as Anthropic.ToolUseBlock;
}

type Safety = Parameters<ToolsModule["safeTools"]>[0];

function registry(opts: Safety = {}) {
  return new SafeToolRegistry(tools.safeTools({ workspace: root, approve: approval.refuseAll, timeoutMs: 10_000, ...opts }));
}

async function run(name: string, input: Record<string, unknown>, opts: Safety = {}) {
  const result = await registry(opts).dispatch(callOf(name, input), { root });
  return { isError: result.is_error === true, text: textIn(result.content) };
}

/** Is the process still running (a zombie waiting to be reaped counts as gone)? */
function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch {
    return false;
  }
  try {
    return !/^\d+ \(.*\) Z /.test(readFileSync(`/proc/${pid}/stat`, "utf8"));
  } catch {
    return true;
  }
}

/** The promise, or a process-group failure when the command never comes back (a process it started holds its output open). */
async function within<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () => reject(new RuleError("process-group", `${what} did not come back within ${ms / 1000} s: a process it started is still running (and holds its output open). Kill the whole process group.`)),
      ms,
    );
  });
  try {
    return await Promise.race([promise, late]);
  } finally {
    clearTimeout(timer);
  }
}

/** Resolves once `path` exists (polled on the machine's time; the caller bounds the wait). */
async function whenExists(path: string, ms = 25_000): Promise<void> {
  for (const end = Date.now() + ms; Date.now() < end && !existsSync(path); ) await realSleep(10);
}

/**
 * A command with a time limit, run on the test's clock (tests/test-clock.ts): the clock stays put
 * until the command is under way (it created `marker` in the workspace), then moves 0.1 s a step
 * (with `realGap` ms of the machine's time between steps) up to 3 s. The command's timer is a
 * setTimeout, so it fires when the test's clock passes its timeout, however busy the machine is.
 * Each command sleeps 30 s: one still running 20 s of the machine's time later was not stopped by
 * its timeout (a hang, not a slow machine), and fails as tool-timeout.
 */
async function onClock<T>(start: () => Promise<T>, marker: string, what: string, opts: { realGap?: number; rule?: "tool-timeout" | "process-group" } = {}): Promise<T> {
  const realGap = opts.realGap ?? 0;
  const path = join(root, marker);
  rmSync(path, { force: true });
  const got = await onTestClock(start, {
    limit: 3_000,
    grace: 20_000,
    pace: async () => {
      if (!existsSync(path)) return (await realSleep(10), 0);
      if (realGap > 0) await realSleep(realGap);
      return 100;
    },
  });
  rmSync(path, { force: true });
  if ("late" in got && got.at > 0 && opts.rule === "process-group")
    throw new RuleError("process-group", `${what} did not come back: its timeout passed on the test's clock, and 20 s later a process it started was still running (and holds its output open). Kill the whole process group.`);
  if ("late" in got)
    throw new RuleError(
      "tool-timeout",
      got.at === 0
        ? `${what} never started (it did not create ${marker} within 20 s).`
        : `${what} did not come back: its timeout passed on the test's clock (${got.at / 1000} s of it went by) and the command was still running 20 s later. Start a timer for timeoutMs when the command starts, stop the command when it fires, and answer that it timed out.`,
    );
  return got.value;
}

async function goneWithin(pid: number, ms = 15_000): Promise<boolean> {
  for (const end = Date.now() + ms; Date.now() < end; ) {
    if (!alive(pid)) return true;
    await realSleep(50);
  }
  return !alive(pid);
}

describe("s07 the workspace: paths resolve inside the root, or are refused", () => {
  /** What Workspace.resolve(p) did: the path it gave, or what it threw. */
  const attempt = (w: InstanceType<typeof ws.Workspace>, p: string): { got?: string; thrown?: unknown } => {
    try {
      return { got: w.resolve(p) };
    } catch (e) {
      return { thrown: e };
    }
  };

  it("resolves ordinary paths, new files and symlinks that stay inside", () => {
    const w = new ws.Workspace(root);
    for (const [path, real] of [
      ["src/a.txt", join(root, "src", "a.txt")],
      ["src/../src/a.txt", join(root, "src", "a.txt")],
      ["new/dir/file.txt", join(root, "new", "dir", "file.txt")],
      ["inner-link.txt", join(root, "src", "a.txt")],
      [join(root, "src"), join(root, "src")],
    ] as const) {
      let got: string;
      try {
        got = w.resolve(path);
      } catch (e) {
        throw new RuleError("workspace", `Workspace.resolve(${JSON.stringify(path)}) refused a path inside the workspace (${(e as Error).message}): only paths whose REAL location is outside are refused.`);
      }
      // The real path itself, or a path inside the root that leads there (a symlink that stays inside).
      rule(ws.realLocation(got) === real && ws.isInside(root, got), "workspace", `Workspace.resolve(${JSON.stringify(path)}) gave ${got}, which is not (and does not lead to) ${real}: resolve it against the root, then through the file system (realpath), symlinks included.`);
    }
  });

  it("refuses .., absolute paths and symlinks out, with a message that says what to do", () => {
    const w = new ws.Workspace(root);
    for (const p of ["..", "../out/secret.txt", "src/../../out/secret.txt", "/etc/passwd", `${out}/secret.txt`, `${root}-evil/x.txt`, `../ws-evil/x.txt`, "secret-link.txt", "out-link/x", "dangling-link.txt", "chain-link.txt", "evil-link/x.txt"]) {
      const { got, thrown } = attempt(w, p);
      const link = linkOnTheWay(root, p);
      rule(
        thrown instanceof ws.OutsideWorkspaceError,
        "workspace",
        `Workspace.resolve(${JSON.stringify(p)}) ${got ? `gave ${got}` : `threw ${String(thrown)}`}: ${link ? `${link}, so the path leads outside ${root} though its name looks inside` : `that is outside ${root}`}, and it must throw OutsideWorkspaceError. ${link ? "Follow symbolic links before the check: compare the REAL path (fs.realpathSync, or the nearest existing parent's for a new file) with the root." : `Compare the REAL path with the root by path.relative (a sibling such as ${root}-evil starts with the same letters).`}`,
      );
      rule(/outside the workspace.*relative/s.test((thrown as Error).message), "workspace", `Workspace.resolve(${JSON.stringify(p)}) threw "${(thrown as Error).message}": say the path is outside the workspace and what to use instead (a path relative to the root).`);
    }
  });

  it("an empty path is refused, saying what a path looks like; a link out is named as a link", () => {
    const w = new ws.Workspace(root);
    for (const p of ["", "   "]) {
      const { got, thrown } = attempt(w, p);
      rule(thrown instanceof ws.OutsideWorkspaceError && /path is needed/.test((thrown as Error).message), "workspace", `Workspace.resolve(${JSON.stringify(p)}) ${got !== undefined ? `gave ${got}` : `threw "${String((thrown as Error)?.message ?? thrown)}"`}: an empty path names no file (resolve would make it the root itself): refuse it, saying a file path is needed, e.g. {"path": "src/index.ts"}.`);
    }
    const message = String((attempt(w, "secret-link.txt").thrown as Error | undefined)?.message ?? "");
    const plain = String((attempt(w, "../out/secret.txt").thrown as Error | undefined)?.message ?? "");
    rule(plain.startsWith('"../out/secret.txt" is outside the workspace. '), "workspace", `Workspace.resolve("../out/secret.txt") threw "${plain}": a path that is no link says only that it is outside the workspace, and what to use instead.`);
    rule(/symbolic link to .*out\/secret\.txt/.test(message), "workspace", `Workspace.resolve("secret-link.txt") threw "${message}": when the path's name is inside but a link leads out, say so (it is a symbolic link to …), so the model knows why a path that looks inside is refused.`);
  });

  it("property: whatever the path, the result is inside the root or the call throws", () => {
    const w = new ws.Workspace(root);
    const segment = fc.constantFrom("..", ".", "src", "a.txt", "out-link", "secret-link.txt", "dangling-link.txt", "new", "");
    assertProperty(
      fc.property(fc.array(segment, { minLength: 1, maxLength: 6 }), fc.boolean(), (parts, absolute) => {
        const p = (absolute ? `${root}/` : "") + parts.join("/");
        let resolved: string;
        try {
          resolved = w.resolve(p);
        } catch (e) {
          return e instanceof ws.OutsideWorkspaceError;
        }
        return ws.isInside(root, ws.realLocation(resolved)) && ws.isInside(root, resolved);
      }),
      { numRuns: 300 },
      "workspace",
      "Workspace.resolve gave a path outside the workspace (itself, or where its links lead) instead of throwing OutsideWorkspaceError: resolve the path against the root, follow every link with realpath, and refuse what lands outside",
    );
  });
});

/**
 * The first symbolic link on the way from `root` along `path`, in words ("secret-link.txt is a
 * symbolic link to ../out/secret.txt, that is /…/out/secret.txt"), or undefined when there is none.
 */
function linkOnTheWay(root: string, path: string): string | undefined {
  if (isAbsolute(path)) return undefined;
  let at = root;
  const walked: string[] = [];
  for (const part of path.split("/").filter(Boolean)) {
    at = join(at, part);
    walked.push(part);
    let isLink = false;
    try {
      isLink = lstatSync(at).isSymbolicLink();
    } catch {
      return undefined;
    }
    if (!isLink) continue;
    const target = readlinkSync(at);
    const real = (() => {
      try {
        return realpathSync(at);
      } catch {
        return `${resolvePath(join(at, ".."), target)} (which does not exist yet)`;
      }
    })();
    return `${walked.join("/")} is a symbolic link to ${target}, that is ${real}`;
  }
  return undefined;
}

describe("s07 safe bash: a capped, clean process group", () => {
  it("caps output and says how much was cut", async () => {
    // 15 000 characters: over the cap, under the flood limit (20 times the cap), so all of it is counted.
    const r = await bash.runSafeBash("head -c 15000 /dev/zero | tr '\\0' a", { cwd: root, maxOutput: 1000 });
    const kept = /^a*/.exec(r.text)![0].length;
    rule(kept === 1000, "output-cap", `runSafeBash with maxOutput 1000 returned ${kept} characters of a 15 000-character output: keep exactly the first maxOutput characters.`);
    rule(/output cut: 14000 of 15000 characters/.test(r.text), "output-cap", `the capped output does not say how much was cut (it should end with "[output cut: 14000 of 15000 characters not shown]"): ${JSON.stringify(r.text.slice(-120))}`);
    rule(r.cut === 14000, "output-cap", `BashRun.cut is ${r.cut}, not 14000: count the characters that were not shown.`);
  });

  it("the child environment has no API keys or tokens", () => {
    const env = bash.childEnv({ PATH: "/bin", HOME: "/h", ANTHROPIC_API_KEY: "sk-1", ANTHROPIC_BASE_URL: "http://x", GITHUB_TOKEN: "t", AWS_SECRET_ACCESS_KEY: "s", OPENAI_API_KEY: "o", DATABASE_URL: "postgres://u:p@h/db", LANG: "C" });
    const leaked = Object.keys(env).filter((k) => !["PATH", "HOME", "LANG"].includes(k));
    rule(leaked.length === 0, "child-env", `childEnv let ${leaked.join(", ")} through to the child: build the environment from an allow list (PATH, HOME, LANG, …), not by removing a few names.`);
    rule(env.PATH === "/bin", "child-env", `childEnv dropped PATH (got ${JSON.stringify(env)}): a shell needs it; keep the variables on the allow list.`);
  });

  it("property: a variable whose name looks secret never reaches the child", () => {
    const name = fc.tuple(fc.stringMatching(/^[A-Z_]{0,8}$/), fc.constantFrom("KEY", "TOKEN", "SECRET", "PASSWORD", "API_KEY"), fc.stringMatching(/^[A-Z_]{0,8}$/));
    assertProperty(
      fc.property(name, ([a, s, b]) => !(`${a}${s}${b}` in bash.childEnv({ [`${a}${s}${b}`]: "x", PATH: "/bin" }))),
      {},
      "child-env",
      "childEnv passed a variable whose name looks secret (KEY, TOKEN, SECRET, PASSWORD) to the child: build the environment from an allow list (PATH, HOME, LANG, …), not by removing a few names",
    );
    rule(!("ANTHROPIC_MODEL" in bash.childEnv({ ANTHROPIC_MODEL: "m", PATH: "/bin" })), "child-env", "childEnv passed ANTHROPIC_MODEL to the child: no ANTHROPIC_ variable reaches a tool's process.");
  });

  it("a command past its timeout is stopped, and says it timed out", async () => {
    const r = await onClock(() => bash.runSafeBash("touch started-1; exec sleep 30", { cwd: root, timeoutMs: 500 }), "started-1", "`sleep 30` with a 0.5 s timeout");
    rule(r.timedOut && /timed out/.test(r.text), "tool-timeout", `\`sleep 30\` past its 0.5 s timeout came back without timedOut and a "timed out" note: ${JSON.stringify(clip(r.text, 200))}`);
  });

  it("a timeout kills the whole process group: the shell's children die too", async () => {
    const r = await onClock(() => bash.runSafeBash("(sleep 30 & echo $!; touch started-2; wait)", { cwd: root, timeoutMs: 500 }), "started-2", "a command with a 0.5 s timeout", { rule: "process-group" });
    rule(r.timedOut && /timed out/.test(r.text), "tool-timeout", `a command past its 0.5 s timeout came back without timedOut and a "timed out" note: ${JSON.stringify(clip(r.text, 200))}`);
    const pid = Number(r.text.split("\n")[0]);
    rule(pid > 0, "process-group", `the command's output should start with its child's pid: ${JSON.stringify(clip(r.text, 200))}`);
    rule(await goneWithin(pid), "process-group", `sleep (pid ${pid}), started by the command, outlived the timeout: kill the whole process group, not only the shell.`);
  });

  it("nothing started in the background outlives the command", async () => {
    const r = await bash.runSafeBash("sleep 30 > /dev/null 2>&1 & echo $!", { cwd: root, timeoutMs: 5_000 });
    const pid = Number(r.text.trim());
    rule(pid > 0, "process-group", `the command's output should be its background child's pid: ${JSON.stringify(clip(r.text, 200))}`);
    rule(await goneWithin(pid), "process-group", `a background sleep (pid ${pid}) outlived its command: when the shell exits, kill its process group too.`);
  });

  it("the timeout is a deadline for the whole command, however often it prints", async () => {
    // The test's clock moves 0.1 s at a time, with 0.15 s of the machine's time between steps,
    // so the command prints between one step and the next: a timer restarted by its output is
    // never due, one started with the command is, at 0.6 s.
    const r = await onClock(() => bash.runSafeBash("touch started-3; while :; do echo tick; sleep 0.1; done", { cwd: root, timeoutMs: 600 }), "started-3", "a command printing every 0.1 s with a 0.6 s timeout", { realGap: 150 });
    rule(r.timedOut && /timed out/.test(r.text), "tool-timeout", `a command that prints every 0.1 s came back without timedOut and a "timed out" note: ${JSON.stringify(clip(r.text, 200))}. Start the timer once, when the command starts; output does not extend it.`);
  });

  it("stderr is capped and counted like stdout", async () => {
    const r = await bash.runSafeBash("head -c 15000 /dev/zero | tr '\\0' a >&2", { cwd: root, maxOutput: 1000 });
    const kept = /^a*/.exec(r.text)![0].length;
    rule(kept === 1000 && /output cut: 14000 of 15000 characters/.test(r.text), "output-cap", `a 15 000-character output on stderr came back with ${kept} characters (${JSON.stringify(r.text.slice(-120))}): stderr goes through the same cap and count as stdout.`);
    // Its timeout (6 s) is only a backstop: an output that keeps growing is stopped long before,
    // so a run that reached it (timedOut) did not stop at the cap. `exec`: the shell becomes yes,
    // so this checks the cap alone (the process group has its own tests).
    const flood = await bash.runSafeBash("exec yes >&2", { cwd: root, maxOutput: 2_000, timeoutMs: 6_000 });
    rule(flood.text.length < 2_400 && !flood.timedOut, "output-cap", `\`yes >&2\` came back with ${flood.text.length} characters${flood.timedOut ? " at its 6 s timeout" : ""}: an endless output on stderr is capped and stopped at the cap, like stdout.`);
  });

  it("an abort stops the command at once", async () => {
    const controller = new AbortController();
    // Aborted once the command runs (not after a guessed delay); its own timeout (20 s) is far
    // away, so a result that says "aborted" (not "timed out") came from the abort, however slow
    // the machine. `within` is only the bound of a command that never comes back.
    void whenExists(join(root, "started-4")).then(() => controller.abort());
    const r = await within(bash.runSafeBash("touch started-4; exec sleep 30", { cwd: root, timeoutMs: 20_000, signal: controller.signal }), 28_000, "an aborted `sleep 30`");
    rule(/aborted/.test(r.text) && !r.timedOut, "process-group", `aborting the signal did not stop \`sleep 30\` at once (its result: ${JSON.stringify(clip(r.text, 120))}): kill the process group when the signal aborts, and say it was aborted.`);
  });
});

describe("s07 read-only commands run freely; anything else asks first", () => {
  it("recognises read-only commands and pipelines of them", () => {
    for (const c of ["ls -la", "cat src/a.txt", "grep -rn alpha src | head -5", "wc -l src/a.txt", "find . -name '*.txt'", "echo 'a; b > c'", "sort src/a.txt"]) {
      const v = approval.classify(c, root);
      rule(v.readOnly, "approval", () => `classify(${JSON.stringify(c)}) says it is not read-only (${"reason" in v ? v.reason : ""}): a pipeline of allow-listed commands with listed options runs without asking.`);
    }
  });

  it("a program whose name only begins like one on the list is not read-only", async () => {
    for (const c of ["truncate -s 0 src/a.txt", "trap", "cats src/a.txt", "lsblk", "headless", "sorted", "echoes hi"]) {
      const v = approval.classify(c, root);
      rule(!v.readOnly, "approval", `classify(${JSON.stringify(c)}) says it is read-only: match the program's name exactly against the allow list (not by prefix or substring).`);
    }
    const r = await run("bash", { command: "truncate -s 0 src/a.txt" });
    rule(readFileSync(join(root, "src", "a.txt"), "utf8") === "alpha\nbeta\n", "approval", "`truncate -s 0 src/a.txt` ran (it emptied src/a.txt) although the approver refused: ask BEFORE running a command that is not read-only, and run nothing when refused.");
    rule(r.isError, "approval", `\`truncate -s 0 src/a.txt\` was not refused: ${JSON.stringify(clip(r.text, 200))}`);
  });

  it("a substring block list lets each bypass through, and the shell still runs the blocked program", () => {
    const runs = blocklist.runBypasses();
    rule(runs.length === 3, "approval", `runBypasses() showed ${runs.length} bypasses: the lesson shows three (a backslash, a command substitution, another shell).`);
    for (const r of runs) {
      rule(!r.blocked, "approval", `the substring block list blocked \`${r.command}\`: the bypass must get past it, as it does against any block list.`);
      const word = /the shell ran: (\S+)/.exec(r.ran)?.[1];
      rule(blocklist.SEED_BLOCK_LIST.some((d) => d.includes(word ?? "?")), "approval", `\`${r.command}\` → ${r.ran}: the bypass should make the shell run a program the block list names.`);
      rule(!approval.classify(r.command, root).readOnly, "approval", `classify(\`${r.command}\`) says it is read-only: a bypass of the block list must still ask.`);
    }
  });

  it("property: a command with a shell metacharacter outside single quotes is never read-only", () => {
    const meta = fc.constantFrom("$", "`", ";", "&", ">", "<", "\\", "(", "\n", "||");
    assertProperty(fc.property(fc.constantFrom("ls", "cat src/a.txt", "echo hi"), meta, fc.stringMatching(/^[a-z ]{0,6}$/), (c, m, tail) => !approval.classify(`${c} ${m}${tail}`, root).readOnly), {}, "approval", "classify called a command with a shell metacharacter outside single quotes ($ ` ; & > < \\ ( a new line ||) read-only: such a command can run anything, so it is never read-only, and the person is asked");
  });

  it("a demo's approver approves the offline scripted model's calls only: a real model's are refused, since no person gave that approval", async () => {
    const request = { command: "touch x", reason: "touch is not on the read-only list" };
    const scriptedAnswer = await approval.demoApprover({ model: SCRIPTED_MODEL_ID })(request);
    const realAnswer = await approval.demoApprover({ model: "claude-sonnet-4-5" })(request);
    rule(scriptedAnswer.approved && !realAnswer.approved, "approval", () => `demoApprover gave ${JSON.stringify({ scripted: scriptedAnswer, real: realAnswer })}: a demo's recorded run approves the scripted model's own script, and refuses any other model's commands.`);
  });

  it("with no terminal and no --yes the approver refuses, saying how to allow it", async () => {
    const input = Object.assign(new PassThrough(), { isTTY: false });
    const d = await approval.terminalApprover({ input })({ command: "touch x", reason: "touch is not on the read-only list" });
    rule(!d.approved && /--yes/.test(d.why), "approval", `with no terminal and no --yes, terminalApprover answered ${JSON.stringify(d)}: refuse, and say --yes allows such commands.`);
    const yes = await approval.terminalApprover({ yes: true, input })({ command: "touch x", reason: "r" });
    rule(yes.approved, "approval", `terminalApprover({ yes: true }) refused (${JSON.stringify(yes)}): --yes approves without asking.`);
  });

  it("on a terminal it asks y/n: y approves, anything else refuses", async () => {
    const ask = async (answer: string) => {
      const input = Object.assign(new PassThrough(), { isTTY: true });
      const output = new PassThrough();
      let asked = "";
      output.on("data", (d: Buffer) => (asked += d.toString()));
      setTimeout(() => input.write(`${answer}\n`), 20);
      const d = await approval.terminalApprover({ input, output })({ command: "touch x", reason: "r" });
      rule(/touch x[\s\S]*\[y\/N\]/.test(asked), "approval", `on a terminal the approver should show the command and ask [y/N]; it wrote ${JSON.stringify(asked)}`);
      return d.approved;
    };
    for (const [answer, approved] of [["y", true], ["n", false], ["", false]] as const)
      rule((await ask(answer)) === approved, "approval", `answering ${JSON.stringify(answer)} at the approval question ${approved ? "refused" : "approved"} the command: only y (or yes) approves.`);
  });

  it("Ctrl-C at the question refuses, and is passed on so the run can stop", async () => {
    const input = Object.assign(new PassThrough(), { isTTY: true });
    const output = Object.assign(new PassThrough(), { isTTY: true, columns: 80 });
    let interrupted = 0;
    setTimeout(() => input.write("\x03"), 20);
    const d = await approval.terminalApprover({ input, output, onInterrupt: () => interrupted++ })({ command: "touch x", reason: "r" });
    rule(!d.approved, "approval", `Ctrl-C at the approval question approved the command: it refuses (${JSON.stringify(d)}).`);
    rule(interrupted === 1, "abort-leaves-transcript", `Ctrl-C at the approval question was passed on ${interrupted} time(s): refuse, then pass it on once (onInterrupt) so the run stops.`);
  });
});

describe("s07 attack cases: every one must fail", () => {
  it("has at least 30 attack cases", () => {
    rule(FILE_ATTACKS.length + COMMAND_ATTACKS.length + 5 >= 30, "workspace", "tests/attacks/s07_cases.ts lost attack cases: keep at least 30.");
  });

  for (const attack of FILE_ATTACKS)
    it(`file: ${attack.name} (${attack.tool})`, async () => {
      const r = await run(attack.tool, attack.input(out));
      const what = `${attack.tool} ${JSON.stringify(attack.input(out))}`;
      rule(r.isError, "workspace", `${what} was not refused: ${clip(r.text, 200)}`);
      rule(!r.text.includes(SECRET), "workspace", `${what} showed the secret file outside the workspace.`);
      rule(/outside the workspace|NUL/.test(r.text), "workspace", `${what} was refused, but its error does not say the path is outside the workspace: ${clip(r.text, 200)}`);
      rule(readFileSync(join(out, "secret.txt"), "utf8") === SECRET, "workspace", `${what} changed a file outside the workspace.`);
      rule(!existsSync(join(out, "new.txt")) && !existsSync(join(out, "created-by-attack.txt")), "workspace", `${what} created a file outside the workspace.`);
    });

  for (const attack of COMMAND_ATTACKS)
    it(`command: ${attack.name}`, async () => {
      const r = await run("bash", { command: attack.command });
      rule(!existsSync(join(root, "pwned")), "approval", `\`${attack.command}\` ran (it created "pwned") although the approver refused: ask BEFORE running a command that is not read-only, and run nothing when refused.`);
      rule(r.isError, "approval", `\`${attack.command}\` ran without approval: ${clip(r.text, 200)}`);
      rule(/not run: this command is not read-only/.test(r.text), "approval", `\`${attack.command}\` was refused, but its error does not say why ("not run: this command is not read-only …"): ${clip(r.text, 200)}`);
      rule(!r.text.includes(SECRET), "approval", `\`${attack.command}\` showed the secret file outside the workspace.`);
    });

  it("approved: the key is not in the child's environment, whichever way it is read", async () => {
    const saved = process.env.ANTHROPIC_API_KEY;
    process.env.ANTHROPIC_API_KEY = "sk-ant-test-must-not-leak";
    process.env.S07_TEST_TOKEN = "token-must-not-leak";
    try {
      for (const command of ["echo $ANTHROPIC_API_KEY", "env", "cat /proc/self/environ | tr '\\0' '\\n'", "node -e 'console.log(JSON.stringify(process.env))'"]) {
        const r = await run("bash", { command }, { approve: approval.approveAll });
        rule(!r.text.includes("must-not-leak"), "child-env", `\`${command}\` showed the agent's key or token: the child's environment comes from an allow list.`);
      }
    } finally {
      if (saved === undefined) delete process.env.ANTHROPIC_API_KEY;
      else process.env.ANTHROPIC_API_KEY = saved;
      delete process.env.S07_TEST_TOKEN;
    }
  });

  it("approved: a fork-and-sleep is dead after the timeout", async () => {
    const r = await onClock(
      () => run("bash", { command: "bash -c 'sleep 30 & echo $!; touch started-5; wait' ; sleep 30" }, { approve: approval.approveAll, timeoutMs: 600 }),
      "started-5",
      "a command with a 0.6 s timeout",
      { rule: "process-group" },
    );
    rule(r.isError && /timed out/.test(r.text), "tool-timeout", `a command past its 0.6 s timeout was not answered as a timed-out error: ${JSON.stringify(clip(r.text, 200))}`);
    const pid = Number(/^\d+/m.exec(r.text)?.[0]);
    rule(await goneWithin(pid), "process-group", `the forked sleep (pid ${pid}) is still running after the timeout: kill the whole process group.`);
  });

  it("approved: `sleep 30 & echo started` leaves nothing running", async () => {
    const r = await within(run("bash", { command: "sleep 30 & echo started $!" }, { approve: approval.approveAll }), 20_000, "`sleep 30 & echo started`");
    const pid = Number(/started (\d+)/.exec(r.text)?.[1]);
    rule(pid > 0, "process-group", `\`sleep 30 & echo started $!\` should print its child's pid: ${JSON.stringify(clip(r.text, 200))}`);
    rule(await goneWithin(pid), "process-group", `the background sleep (pid ${pid}) is still running after its command ended: kill the process group when the shell exits.`);
  });

  it("approved: an endless output flood comes back capped, with a note", async () => {
    // Its timeout (6 s) is only a backstop: `yes` fills the cap many times over in a few
    // milliseconds, so a run that reached the timeout did not stop at the cap (not a slow machine).
    // Kept short: reading a flood that is never stopped burns the test's CPU, and 15 s of it reads
    // as a blocked loop to the hang watch, which would hide this rule behind another.
    const r = await run("bash", { command: "yes" }, { approve: approval.approveAll, maxOutput: 2_000, timeoutMs: 6_000 });
    rule(r.text.length < 2_400, "output-cap", `\`yes\` with maxOutput 2 000 came back with ${r.text.length} characters: keep at most maxOutput, then a note.`);
    rule(/output cut: \d+ of \d+ characters not shown/.test(r.text), "output-cap", `\`yes\` came back capped but without the note saying how much was cut: ${JSON.stringify(r.text.slice(-160))}`);
    rule(!/timed out/.test(r.text), "output-cap", "`yes` ran until its timeout (6 s): an output that keeps growing far past the cap is stopped at once, not read to the end.");
  });

  it("approved: aborting the run stops the bash tool's command (the tool passes the signal on)", async () => {
    const pidFile = join(root, "abort-pid.txt");
    const controller = new AbortController();
    // Aborted once the command has written its pid (it runs), not after a guessed delay.
    void whenExists(pidFile).then(() => controller.abort());
    const result = await within(
      registry({ approve: approval.approveAll, timeoutMs: 20_000 }).dispatch(callOf("bash", { command: `echo $$ > abort-pid.tmp; mv abort-pid.tmp abort-pid.txt; exec sleep 30` }), { root, signal: controller.signal }),
      28_000,
      "an aborted bash call (`sleep 30`)",
    );
    const pid = Number(existsSync(pidFile) ? readFileSync(pidFile, "utf8").trim() : NaN);
    rmSync(pidFile, { force: true });
    rule(pid > 0, "process-group", `the aborted command did not start (its result: ${clip(textIn(result.content), 200)}).`);
    rule(await goneWithin(pid), "process-group", `the bash tool's command (pid ${pid}) is still running after the run was aborted: pass the tool context's signal (ctx.signal) on to runSafeBash, so an abort kills its process group.`);
  });

  it("approved: approval is for one command: a different command asks again", async () => {
    const asked: string[] = [];
    const approve: Approver = async ({ command }) => (asked.push(command), command === "touch approved-once.txt" ? { approved: true } : { approved: false, why: "the user said no" });
    const reg = registry({ approve });
    await reg.dispatch(callOf("bash", { command: "touch approved-once.txt" }), { root });
    const second = await reg.dispatch(callOf("bash", { command: "touch pwned" }), { root });
    rmSync(join(root, "approved-once.txt"), { force: true });
    const ran = existsSync(join(root, "pwned"));
    rmSync(join(root, "pwned"), { force: true });
    rule(!ran && second.is_error === true && asked.includes("touch pwned"), "approval", `after \`touch approved-once.txt\` was approved, \`touch pwned\` ${ran ? "ran" : "was not refused"} (asked about: ${asked.join(", ") || "nothing"}): ask for every command that is not read-only; an approval is for that command alone.`);
  });

  it("approved: an approved write still cannot use a path outside (the file tools refuse it)", async () => {
    const r = await run("write_file", { path: "../out/new.txt", content: "x" }, { approve: approval.approveAll });
    rule(r.isError && !existsSync(join(out, "new.txt")), "workspace", "write_file ../out/new.txt wrote outside the workspace when commands were approved: approval is for commands, the file tools still refuse a path outside.");
  });
});

describe("s07 what still works", () => {
  it("file tools read, write and edit inside the workspace", async () => {
    const read = await run("read_file", { path: "src/a.txt" });
    rule(read.text.includes("alpha"), "workspace", `read_file src/a.txt, inside the workspace, did not return the file: ${clip(read.text, 200)}`);
    const write = await run("write_file", { path: "made/new.txt", content: "hello" });
    rule(!write.isError && readFileSync(join(root, "made", "new.txt"), "utf8") === "hello", "workspace", `write_file made/new.txt, a new file inside the workspace, failed: ${clip(write.text, 200)}`);
    const edit = await run("edit_file", { path: "made/new.txt", old_text: "hello", new_text: "bye" });
    rule(!edit.isError, "workspace", `edit_file inside the workspace failed: ${clip(edit.text, 200)}`);
    const list = await run("list_files", { path: "." });
    rule(list.text.includes("src/a.txt"), "workspace", `list_files . did not list src/a.txt: ${clip(list.text, 200)}`);
  });

  it("read-only commands run without asking; approved commands run", async () => {
    const wc = await run("bash", { command: "cat src/a.txt | wc -l" });
    rule(wc.text.trim() === "2", "approval", `the read-only \`cat src/a.txt | wc -l\` did not run without asking: ${JSON.stringify(clip(wc.text, 200))}`);
    const r = await run("bash", { command: "touch approved.txt && echo ok" }, { approve: approval.approveAll });
    rule(r.text.includes("ok") && existsSync(join(root, "approved.txt")), "approval", `an approved command did not run: ${JSON.stringify(clip(r.text, 200))}`);
  });
});

describe("s07 the loop with safe tools (the default task, scripted)", () => {
  type AgentModule = typeof import("../solutions/s07_safe_tools/agent.ts");
  const loadAgent = () => loadLesson<AgentModule>("s07_safe_tools");

  async function runTask(approve: Approver) {
    const agent = await loadAgent();
    const workspace = await scratchWorkspace(S07_WORKSPACE);
    const llm = scripted();
    const history: Anthropic.MessageParam[] = [{ role: "user", content: S07_TASK }];
    const outcome = await agent.runAgent(llm, history, { root: workspace, approve });
    await expectSendable(llm, history);
    const results = history.flatMap((m) => (m.role === "user" && Array.isArray(m.content) ? m.content : [])).filter((b): b is Anthropic.ToolResultBlockParam => b.type === "tool_result");
    return { outcome, results, workspace };
  }

  it("refuses the file outside, runs the read-only command, refuses the unapproved one; the transcript can be sent again", async () => {
    const restore = quietOutput();
    try {
      const { outcome, results, workspace } = await runTask(approval.refuseAll);
      rule(!existsSync(join(workspace, ".course", "s07-was-here")), "approval", "the loop's bash call that writes a marker file ran although the approver refused it: ask before running, run nothing when refused.");
      rule(outcome.status === "done", "typed-outcome", `the default task ended ${JSON.stringify(outcome)}: refused calls are answered as errors and the run goes on to its answer.`);
      const [wc, passwd, marker] = results;
      rule(!(wc?.is_error ?? false) && /4 README\.md/.test(textIn(wc?.content)), "approval", `the read-only \`wc -l README.md\` was not run without asking: ${clip(textIn(wc?.content), 200)}`);
      rule(passwd?.is_error === true && /outside the workspace/.test(textIn(passwd?.content)) && !/root:x:0/.test(textIn(passwd?.content)), "workspace", `read_file /etc/passwd was not refused as outside the workspace: ${clip(textIn(passwd?.content), 200)}`);
      rule(marker?.is_error === true && /not read-only/.test(textIn(marker?.content)), "approval", `the unapproved command was not answered as a refused error ("not run: this command is not read-only …"): ${clip(textIn(marker?.content), 200)}`);
    } finally {
      restore();
    }
  });

  it("runs the command once it is approved", async () => {
    const restore = quietOutput();
    try {
      const { results, workspace } = await runTask(approval.approveAll);
      rule(!(results[2]?.is_error ?? false) && existsSync(join(workspace, ".course", "s07-was-here")), "approval", `an approved command did not run in the loop: ${clip(textIn(results[2]?.content), 200)}`);
    } finally {
      restore();
    }
  });
});

describe("s07 the script, offline", () => {
  const runScript = async (...args: string[]) => {
    const { spawnSync } = await import("node:child_process");
    const { ROOT, gradedTree } = await import("../runtime/testing.ts");
    const r = spawnSync(process.execPath, ["--import", "tsx", join(ROOT, gradedTree(), "s07_safe_tools", "agent.ts"), ...args], {
      cwd: ROOT,
      env: { ...process.env, COURSE_OFFLINE: "1", NO_COLOR: "1" },
      input: "",
      encoding: "utf8",
      timeout: 60_000,
    });
    return { code: r.status, out: `${r.stdout}${r.stderr}` };
  };

  it("shows the three bypasses, then refuses what it cannot ask about (no terminal)", async () => {
    const { code, out } = await runScript();
    const tail = out.slice(-1500);
    rule(code === 0, "loop-threw", `the lesson's script exited with ${code}:\n${tail}`);
    rule(out.match(/block list: allowed/g)?.length === 3 && /the shell ran: sudo id/.test(out), "approval", `the script should show three bypasses getting past the block list:\n${tail}`);
    rule(/outside the workspace/.test(out), "workspace", `the script's run did not refuse the file outside the workspace:\n${tail}`);
    rule(/not run: this command is not read-only .* no terminal to ask/.test(out), "approval", `with no terminal and no --yes, the script should refuse the command that is not read-only:\n${tail}`);
    rule(/can be sent again/.test(out), "sendable-again", `the script's run did not end with a transcript that can be sent again:\n${tail}`);
  }, 60_000);

  it("with --yes, the command runs", async () => {
    const { code, out } = await runScript("--yes");
    rule(code === 0 && /marker file was written after you approved it/.test(out), "approval", `with --yes the script's command should run (the marker file written):\n${out.slice(-1500)}`);
  }, 60_000);
});

// The net under the rules: this lesson beside the reference, on its own task and on generated
// model answers (tests/differential/net.ts).
import { differentialNet } from "./differential/net.ts";
differentialNet("s07");
