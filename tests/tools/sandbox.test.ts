/**
 * The boundary under every tool process (runtime/tools/sandbox.ts): the allow-listed environment,
 * and, where bubblewrap can start, the OS sandbox really used. The slow attack corpus is in the
 * reliability run (npm run reliability -- --only attacks); this file keeps one quick check of each.
 */
import { spawn } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import fc from "fast-check";
import { afterAll, afterEach, describe, expect, it } from "vitest";
import { until } from "../../runtime/processes.ts";
import { sandboxInfo, spawnTool, toolEnv, trustedPath } from "../../runtime/tools/sandbox.ts";

/** A process's environment, one entry per variable (empty once it is gone). */
const readEnviron = (pid: number) => {
  try {
    return readFileSync(`/proc/${pid}/environ`, "latin1").split("\0");
  } catch {
    return [];
  }
};

const dir = realpathSync(mkdtempSync(join(tmpdir(), "sandbox-test-")));
const ws = join(dir, "ws");
const out = join(dir, "out");
mkdirSync(ws);
mkdirSync(out);
writeFileSync(join(out, "secret.txt"), "SECRET-OUTSIDE-4711\n");
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const saved = process.env.COURSE_SANDBOX;
afterEach(() => {
  if (saved === undefined) delete process.env.COURSE_SANDBOX;
  else process.env.COURSE_SANDBOX = saved;
});

/** Runs a command as a tool would; the output and exit code once the process is gone. */
function run(command: string, timeoutMs = 10_000): Promise<{ out: string; code: number | null; sandbox: string; strays: number }> {
  const proc = spawnTool(["bash", "-c", command], { workspace: ws });
  return new Promise((resolve) => {
    let text = "";
    proc.child.stdout.on("data", (c: Buffer) => (text += c.toString()));
    proc.child.stderr.on("data", (c: Buffer) => (text += c.toString()));
    const timer = setTimeout(() => proc.killAll(), timeoutMs);
    proc.child.on("close", (code) => {
      clearTimeout(timer);
      const { strays } = proc.killAll();
      proc.cleanup();
      resolve({ out: text, code, sandbox: proc.sandbox, strays });
    });
  });
}

describe("toolEnv: a tool process gets an allow list, never the agent's environment", () => {
  it("passes LANG, LC_*, TERM; sets its own PATH (trusted system folders), HOME and TMPDIR; drops keys and tokens", () => {
    const env = toolEnv(
      { home: "/sb/home", tmp: "/sb/tmp" },
      { PATH: "/bin", LANG: "C", LC_ALL: "C", TERM: "xterm", HOME: "/root", TMPDIR: "/x", ANTHROPIC_API_KEY: "k", ANTHROPIC_BASE_URL: "u", GITHUB_TOKEN: "t", AWS_SECRET_ACCESS_KEY: "s", NPM_CONFIG_USERCONFIG: "n", DATABASE_URL: "d" },
    );
    expect(env).toEqual({ PATH: trustedPath(), LANG: "C", LC_ALL: "C", TERM: "xterm", HOME: "/sb/home", TMPDIR: "/sb/tmp", TMP: "/sb/tmp", TEMP: "/sb/tmp" });
  });

  it("property: whatever the agent's environment holds, only allow-listed names (and no secret-looking one) reach the tool", () => {
    const name = fc.stringMatching(/^[A-Za-z_][A-Za-z0-9_]{0,20}$/);
    fc.assert(
      fc.property(fc.dictionary(name, fc.string()), (base) => {
        const env = toolEnv({ home: "/h", tmp: "/t" }, base);
        return Object.keys(env).every(
          (k) => /^(PATH|LANG|LANGUAGE|LC_[A-Z_]+|TERM|COLORTERM|TZ|NO_COLOR|FORCE_COLOR|CI|HOME|TMPDIR|TMP|TEMP)$/.test(k) && !/KEY|TOKEN|SECRET|ANTHROPIC/i.test(k),
        );
      }),
    );
  });
});

describe("the run says which boundary it has", () => {
  it("COURSE_SANDBOX=off: no sandbox, and the line says commands ask first", () => {
    process.env.COURSE_SANDBOX = "off";
    const info = sandboxInfo();
    expect(info.kind).toBe("none");
    expect(info.line).toMatch(/^sandbox: none — commands ask first/);
  });

  it("without a sandbox, a process that leaves the group (setsid) is still found and killed, and the count is told", async () => {
    process.env.COURSE_SANDBOX = "off";
    const r = await run(`setsid sh -c 'sleep 1; touch ${join(out, "late")}' >/dev/null 2>&1 & sleep 0.3; echo started`);
    expect(r.sandbox).toBe("none");
    expect(r.out).toContain("started");
    expect(r.strays, "the setsid process (sh and its sleep) was not found by its marker").toBe(2);
    await new Promise((resolve) => setTimeout(resolve, 1_200));
    expect(existsSync(join(out, "late")), "a setsid process outlived the call (no sandbox)").toBe(false);
  });
});

const info = sandboxInfo();
const skip = info.kind === "none" ? ` (skipped: ${info.why})` : "";

describe("the OS sandbox is really used where it can start", () => {
  it.skipIf(info.kind === "none")(`every tool process runs in bubblewrap: outside files, the agent's processes and the network are not there${skip}`, async () => {
    process.env.ANTHROPIC_API_KEY_TEST_CANARY = "sk-ant-must-not-leak";
    try {
      const r = await run(
        [
          `cat ${join(out, "secret.txt")} 2>&1 || echo no-outside-file`,
          "echo pid=$$",
          `cat /proc/${process.pid}/environ 2>&1 | tr '\\0' ' ' || true`,
          `test -e /proc/${process.pid} && echo agent-visible || echo agent-invisible`,
          "touch /usr/pwned 2>/dev/null && echo wrote-usr || echo usr-read-only",
          "echo inside > made-inside.txt",
          "tail -n +3 /proc/net/dev | wc -l",
        ].join("; "),
      );
      expect(r.sandbox).toBe("bubblewrap");
      expect(r.out, "a file outside the workspace was readable inside the sandbox").not.toContain("SECRET-OUTSIDE-4711");
      expect(r.out).toContain("no-outside-file");
      expect(r.out, "the agent's environment was readable through /proc").not.toContain("must-not-leak");
      expect(r.out, "the agent's process is visible from inside (no PID namespace?)").toContain("agent-invisible");
      expect(Number(/pid=(\d+)/.exec(r.out)?.[1]), "the command's PID is the host's, not a fresh namespace's").toBeLessThan(10);
      expect(r.out).toContain("usr-read-only");
      expect(existsSync(join(ws, "made-inside.txt")), "the workspace must stay writable").toBe(true);
      // No network: the only interface in its network namespace is the loopback.
      expect(r.out.trim().split("\n").at(-1)?.trim()).toBe("1");
    } finally {
      delete process.env.ANTHROPIC_API_KEY_TEST_CANARY;
    }
  });

  it.skipIf(info.kind === "none")(`killAll also finds a sandbox whose init left bwrap's group before --die-with-parent took hold (a kill during start-up, on a loaded machine)${skip}`, async () => {
    const proc = spawnTool(["sleep", "30"], { workspace: ws });
    try {
      await until(() => readEnviron(proc.child.pid!).some((v) => v.startsWith("COURSE_TOOL_RUN=")), 5_000);
      const marker = readEnviron(proc.child.pid!).find((v) => v.startsWith("COURSE_TOOL_RUN="));
      expect(marker, "bwrap's own environment carries the run's marker, for the sweep to find the sandbox by").toBeDefined();
      // The escaped init, as it is then: another session, the marker in its environment, alive.
      const init = spawn("sleep", ["30"], { detached: true, stdio: "ignore", env: { PATH: process.env.PATH, [marker!.split("=")[0]!]: marker!.slice(marker!.indexOf("=") + 1) } });
      init.unref();
      proc.killAll();
      const gone = await until(() => !existsSync(`/proc/${init.pid}`) || /\) Z /.test(readFileSync(`/proc/${init.pid}/stat`, "utf8")), 5_000);
      if (!gone) process.kill(init.pid!, "SIGKILL");
      expect(gone, "a process carrying the run's marker outside bwrap's group outlived killAll: sweep by the marker in the sandbox too (killMarked)").toBe(true);
    } finally {
      proc.killAll();
      proc.cleanup();
    }
  });

  it.skipIf(info.kind === "none")(`nothing outlives the call: a setsid process dies with the sandbox${skip}`, async () => {
    const r = await run(`setsid -f sh -c 'sleep 1; touch ${join(ws, "late")}'; echo started`);
    expect(r.out).toContain("started");
    await new Promise((resolve) => setTimeout(resolve, 1_300));
    expect(existsSync(join(ws, "late")), "a setsid process outlived its sandbox").toBe(false);
  });
});
