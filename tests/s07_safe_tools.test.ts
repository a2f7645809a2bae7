/**
 * s07_safe_tools: tools that cannot hurt you. Grades lessons/ or solutions/ (COURSE_TREE).
 * The mechanisms first (workspace, safe bash, read-only check and approval), then the attack
 * cases of tests/attacks/s07_cases.ts, every one of which must fail, then the loop itself.
 */
import { existsSync, mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { PassThrough } from "node:stream";
import type Anthropic from "@anthropic-ai/sdk";
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { COMMAND_ATTACKS, FILE_ATTACKS } from "./attacks/s07_cases.ts";
import type { Approver } from "../solutions/s07_safe_tools/approval.ts";
import { S07_TASK, S07_WORKSPACE } from "../runtime/scripted/scenarios/s07_safe_tools.ts";
import { scratchWorkspace } from "../runtime/tools/files.ts";
import { loadLesson, quietOutput, scripted, transcriptProblems , textIn , assertProperty } from "../runtime/testing.ts";

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

/** The promise, or a failure that says what it means when a command never comes back. */
async function within<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what} did not come back within ${ms / 1000} s: a process it started is still running (and holds its output open). Kill the whole process group.`)), ms);
  });
  try {
    return await Promise.race([promise, late]);
  } finally {
    clearTimeout(timer);
  }
}

async function goneWithin(pid: number, ms = 3_000): Promise<boolean> {
  for (const end = Date.now() + ms; Date.now() < end; ) {
    if (!alive(pid)) return true;
    await new Promise((r) => setTimeout(r, 50));
  }
  return !alive(pid);
}

describe("s07 the workspace: paths resolve inside the root, or are refused", () => {
  it("resolves ordinary paths, new files and symlinks that stay inside", () => {
    const w = new ws.Workspace(root);
    expect(w.resolve("src/a.txt")).toBe(join(root, "src", "a.txt"));
    expect(w.resolve("src/../src/a.txt")).toBe(join(root, "src", "a.txt"));
    expect(w.resolve("new/dir/file.txt")).toBe(join(root, "new", "dir", "file.txt"));
    expect(w.resolve("inner-link.txt")).toBe(join(root, "src", "a.txt"));
    expect(w.resolve(join(root, "src"))).toBe(join(root, "src"));
  });

  it("refuses .., absolute paths and symlinks out, with a message that says what to do", () => {
    const w = new ws.Workspace(root);
    for (const p of ["..", "../out/secret.txt", "/etc/passwd", `${out}/secret.txt`, "secret-link.txt", "out-link/x", "dangling-link.txt", "chain-link.txt"]) {
      expect(() => w.resolve(p), p).toThrow(ws.OutsideWorkspaceError);
      expect(() => w.resolve(p), p).toThrow(/outside the workspace.*relative/s);
    }
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
    );
  });
});

describe("s07 safe bash: a capped, clean process group", () => {
  it("caps output and says how much was cut", async () => {
    // 15 000 characters: over the cap, under the flood limit (20 times the cap), so all of it is counted.
    const r = await bash.runSafeBash("head -c 15000 /dev/zero | tr '\\0' a", { cwd: root, maxOutput: 1000 });
    expect(r.text.startsWith("a".repeat(1000))).toBe(true);
    expect(r.text).toMatch(/output cut: 14000 of 15000 characters/);
    expect(r.cut).toBe(14000);
  });

  it("the child environment has no API keys or tokens", () => {
    const env = bash.childEnv({ PATH: "/bin", HOME: "/h", ANTHROPIC_API_KEY: "sk-1", ANTHROPIC_BASE_URL: "http://x", GITHUB_TOKEN: "t", AWS_SECRET_ACCESS_KEY: "s", OPENAI_API_KEY: "o", LANG: "C" });
    expect(env).toEqual({ PATH: "/bin", HOME: "/h", LANG: "C" });
  });

  it("property: a variable whose name looks secret never reaches the child", () => {
    const name = fc.tuple(fc.stringMatching(/^[A-Z_]{0,8}$/), fc.constantFrom("KEY", "TOKEN", "SECRET", "PASSWORD", "API_KEY"), fc.stringMatching(/^[A-Z_]{0,8}$/));
    assertProperty(
      fc.property(name, ([a, s, b]) => !(`${a}${s}${b}` in bash.childEnv({ [`${a}${s}${b}`]: "x", PATH: "/bin" }))),
    );
    expect(bash.childEnv({ ANTHROPIC_MODEL: "m", PATH: "/bin" })).toEqual({ PATH: "/bin" });
  });

  it("a timeout kills the whole process group: the shell's children die too", async () => {
    const r = await within(bash.runSafeBash("(sleep 30 & echo $!; wait)", { cwd: root, timeoutMs: 500 }), 5_000, "a command with a 0.5 s timeout");
    expect(r.timedOut).toBe(true);
    expect(r.text).toMatch(/timed out/);
    const pid = Number(r.text.split("\n")[0]);
    expect(pid).toBeGreaterThan(0);
    expect(await goneWithin(pid), `sleep (pid ${pid}) outlived the timeout`).toBe(true);
  });

  it("nothing started in the background outlives the command", async () => {
    const r = await bash.runSafeBash("sleep 30 > /dev/null 2>&1 & echo $!", { cwd: root, timeoutMs: 5_000 });
    const pid = Number(r.text.trim());
    expect(pid).toBeGreaterThan(0);
    expect(await goneWithin(pid), `background sleep (pid ${pid}) outlived its command`).toBe(true);
  });

  it("an abort stops the command at once", async () => {
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 200);
    const r = await bash.runSafeBash("sleep 30", { cwd: root, timeoutMs: 20_000, signal: controller.signal });
    expect(r.text).toMatch(/aborted/);
  });
});

describe("s07 read-only commands run freely; anything else asks first", () => {
  it("recognises read-only commands and pipelines of them", () => {
    for (const c of ["ls -la", "cat src/a.txt", "grep -rn alpha src | head -5", "wc -l src/a.txt", "find . -name '*.txt'", "echo 'a; b > c'", "sort src/a.txt"])
      expect(approval.classify(c, root), c).toEqual({ readOnly: true });
  });

  it("the seed's block list lets each bypass through, and the shell still runs the blocked program", () => {
    const runs = blocklist.runBypasses();
    expect(runs).toHaveLength(3);
    for (const r of runs) {
      expect(r.blocked, r.command).toBe(false);
      const word = /the shell ran: (\S+)/.exec(r.ran)?.[1];
      expect(blocklist.SEED_BLOCK_LIST.some((d) => d.includes(word ?? "?")), `${r.command} → ${r.ran}`).toBe(true);
      expect(approval.classify(r.command, root).readOnly, r.command).toBe(false);
    }
  });

  it("property: a command with a shell metacharacter outside single quotes is never read-only", () => {
    const meta = fc.constantFrom("$", "`", ";", "&", ">", "<", "\\", "(", "\n", "||");
    assertProperty(fc.property(fc.constantFrom("ls", "cat src/a.txt", "echo hi"), meta, fc.stringMatching(/^[a-z ]{0,6}$/), (c, m, tail) => !approval.classify(`${c} ${m}${tail}`, root).readOnly));
  });

  it("with no terminal and no --yes the approver refuses, saying how to allow it", async () => {
    const input = Object.assign(new PassThrough(), { isTTY: false });
    const d = await approval.terminalApprover({ input })({ command: "touch x", reason: "touch is not on the read-only list" });
    expect(d).toEqual({ approved: false, why: expect.stringMatching(/--yes/) });
    expect(await approval.terminalApprover({ yes: true, input })({ command: "touch x", reason: "r" })).toEqual({ approved: true });
  });

  it("on a terminal it asks y/n: y approves, anything else refuses", async () => {
    const ask = async (answer: string) => {
      const input = Object.assign(new PassThrough(), { isTTY: true });
      const output = new PassThrough();
      let asked = "";
      output.on("data", (d: Buffer) => (asked += d.toString()));
      setTimeout(() => input.write(`${answer}\n`), 20);
      const d = await approval.terminalApprover({ input, output })({ command: "touch x", reason: "r" });
      expect(asked).toMatch(/touch x[\s\S]*\[y\/N\]/);
      return d.approved;
    };
    expect(await ask("y")).toBe(true);
    expect(await ask("n")).toBe(false);
    expect(await ask("")).toBe(false);
  });

  it("Ctrl-C at the question refuses, and is passed on so the run can stop", async () => {
    const input = Object.assign(new PassThrough(), { isTTY: true });
    const output = Object.assign(new PassThrough(), { isTTY: true, columns: 80 });
    let interrupted = 0;
    setTimeout(() => input.write("\x03"), 20);
    const d = await approval.terminalApprover({ input, output, onInterrupt: () => interrupted++ })({ command: "touch x", reason: "r" });
    expect(d).toEqual({ approved: false, why: "the user pressed Ctrl-C" });
    expect(interrupted).toBe(1);
  });
});

describe("s07 attack cases: every one must fail", () => {
  it("has at least 30 attack cases", () => {
    expect(FILE_ATTACKS.length + COMMAND_ATTACKS.length + 5).toBeGreaterThanOrEqual(30);
  });

  for (const attack of FILE_ATTACKS)
    it(`file: ${attack.name} (${attack.tool})`, async () => {
      const r = await run(attack.tool, attack.input(out));
      expect(r.isError, `${attack.tool} ${JSON.stringify(attack.input(out))} was not refused: ${r.text.slice(0, 200)}`).toBe(true);
      expect(r.text).not.toContain(SECRET);
      expect(r.text).toMatch(/outside the workspace|NUL/);
      expect(readFileSync(join(out, "secret.txt"), "utf8")).toBe(SECRET);
      expect(existsSync(join(out, "new.txt"))).toBe(false);
      expect(existsSync(join(out, "created-by-attack.txt"))).toBe(false);
    });

  for (const attack of COMMAND_ATTACKS)
    it(`command: ${attack.name}`, async () => {
      const r = await run("bash", { command: attack.command });
      expect(r.isError, `\`${attack.command}\` ran without approval: ${r.text.slice(0, 200)}`).toBe(true);
      expect(r.text).toMatch(/not run: this command is not read-only/);
      expect(r.text).not.toContain(SECRET);
      expect(existsSync(join(root, "pwned"))).toBe(false);
    });

  it("approved: the key is not in the child's environment, whichever way it is read", async () => {
    const saved = process.env.ANTHROPIC_API_KEY;
    process.env.ANTHROPIC_API_KEY = "sk-ant-test-must-not-leak";
    process.env.S07_TEST_TOKEN = "token-must-not-leak";
    try {
      for (const command of ["echo $ANTHROPIC_API_KEY", "env", "cat /proc/self/environ | tr '\\0' '\\n'", "node -e 'console.log(JSON.stringify(process.env))'"]) {
        const r = await run("bash", { command }, { approve: approval.approveAll });
        expect(r.text, command).not.toContain("must-not-leak");
      }
    } finally {
      if (saved === undefined) delete process.env.ANTHROPIC_API_KEY;
      else process.env.ANTHROPIC_API_KEY = saved;
      delete process.env.S07_TEST_TOKEN;
    }
  });

  it("approved: a fork-and-sleep is dead after the timeout", async () => {
    const r = await within(
      run("bash", { command: "bash -c 'sleep 30 & echo $!; wait' ; sleep 30" }, { approve: approval.approveAll, timeoutMs: 600 }),
      5_000,
      "a command with a 0.6 s timeout",
    );
    expect(r.isError).toBe(true);
    expect(r.text).toMatch(/timed out/);
    const pid = Number(/^\d+/m.exec(r.text)?.[0]);
    expect(await goneWithin(pid), `the forked sleep (pid ${pid}) is still running`).toBe(true);
  });

  it("approved: `sleep 30 & echo started` leaves nothing running", async () => {
    const r = await within(run("bash", { command: "sleep 30 & echo started $!" }, { approve: approval.approveAll }), 5_000, "`sleep 30 & echo started`");
    const pid = Number(/started (\d+)/.exec(r.text)?.[1]);
    expect(pid).toBeGreaterThan(0);
    expect(await goneWithin(pid)).toBe(true);
  });

  it("approved: an endless output flood comes back capped, with a note", async () => {
    const r = await run("bash", { command: "yes" }, { approve: approval.approveAll, maxOutput: 2_000 });
    expect(r.text.length).toBeLessThan(2_400);
    expect(r.text).toMatch(/output cut: \d+ of \d+ characters not shown/);
  });

  it("approved: an approved write still cannot use a path outside (the file tools refuse it)", async () => {
    const r = await run("write_file", { path: "../out/new.txt", content: "x" }, { approve: approval.approveAll });
    expect(r.isError).toBe(true);
    expect(existsSync(join(out, "new.txt"))).toBe(false);
  });
});

describe("s07 what still works", () => {
  it("file tools read, write and edit inside the workspace", async () => {
    expect((await run("read_file", { path: "src/a.txt" })).text).toContain("alpha");
    expect((await run("write_file", { path: "made/new.txt", content: "hello" })).isError).toBe(false);
    expect(readFileSync(join(root, "made", "new.txt"), "utf8")).toBe("hello");
    expect((await run("edit_file", { path: "made/new.txt", old_text: "hello", new_text: "bye" })).isError).toBe(false);
    expect((await run("list_files", { path: "." })).text).toContain("src/a.txt");
  });

  it("read-only commands run without asking; approved commands run", async () => {
    expect((await run("bash", { command: "cat src/a.txt | wc -l" })).text.trim()).toBe("2");
    const r = await run("bash", { command: "touch approved.txt && echo ok" }, { approve: approval.approveAll });
    expect(r.text).toContain("ok");
    expect(existsSync(join(root, "approved.txt"))).toBe(true);
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
    const problems = await transcriptProblems(llm, history);
    const results = history.flatMap((m) => (m.role === "user" && Array.isArray(m.content) ? m.content : [])).filter((b): b is Anthropic.ToolResultBlockParam => b.type === "tool_result");
    return { outcome, problems, results, workspace };
  }

  it("refuses the file outside, runs the read-only command, refuses the unapproved one; the transcript can be sent again", async () => {
    const restore = quietOutput();
    try {
      const { outcome, problems, results, workspace } = await runTask(approval.refuseAll);
      expect(problems).toBeNull();
      expect(outcome.status).toBe("done");
      const [wc, passwd, marker] = results;
      expect(wc?.is_error ?? false).toBe(false);
      expect(textIn(wc?.content)).toMatch(/4 README\.md/);
      expect(passwd?.is_error).toBe(true);
      expect(textIn(passwd?.content)).toMatch(/outside the workspace/);
      expect(textIn(passwd?.content)).not.toMatch(/root:x:0/);
      expect(marker?.is_error).toBe(true);
      expect(textIn(marker?.content)).toMatch(/not read-only/);
      expect(existsSync(join(workspace, ".course", "s07-was-here"))).toBe(false);
    } finally {
      restore();
    }
  });

  it("runs the command once it is approved", async () => {
    const restore = quietOutput();
    try {
      const { problems, results, workspace } = await runTask(approval.approveAll);
      expect(problems).toBeNull();
      expect(results[2]?.is_error ?? false).toBe(false);
      expect(existsSync(join(workspace, ".course", "s07-was-here"))).toBe(true);
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
    expect(code, out).toBe(0);
    expect(out.match(/block list: allowed/g), out).toHaveLength(3);
    expect(out).toMatch(/the shell ran: sudo id/);
    expect(out).toMatch(/outside the workspace/);
    expect(out).toMatch(/not run: this command is not read-only .* no terminal to ask/);
    expect(out).toMatch(/can be sent again/);
  }, 60_000);

  it("with --yes, the command runs", async () => {
    const { code, out } = await runScript("--yes");
    expect(code, out).toBe(0);
    expect(out).toMatch(/marker file was written after you approved it/);
  }, 60_000);
});
