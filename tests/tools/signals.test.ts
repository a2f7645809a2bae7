/**
 * Nothing survives the agent: the final agent's program (tests/attacks/agent-program.ts
 * runs solutions/s17_mcp/program.ts, `npm run agent`, with a scripted model), stopped by a real
 * SIGHUP, SIGTERM or SIGINT while a bash command runs and an MCP server has left a process behind.
 * It must exit with 128 + the signal's number, kill the tool's process group (and what left it),
 * the MCP server and what it started, and save the transcript with every tool_use answered.
 */
import { spawn } from "node:child_process";
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { constants, tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { ROOT } from "../../runtime/testing.ts";
import { checkTranscript } from "../../runtime/transcript.ts";
import { sandboxInfo } from "../../runtime/tools/sandbox.ts";
import { processesWith, until } from "../../runtime/processes.ts";

mkdirSync(join(ROOT, "node_modules/.cache"), { recursive: true });
const dir = realpathSync(mkdtempSync(join(ROOT, "node_modules/.cache/signals-test-")));
// The workspace is outside node_modules, as an agent's is (the MCP server's imports resolve from its own folder, in dir).
const ws = realpathSync(mkdtempSync(join(tmpdir(), "signals-test-ws-")));
copyFileSync(join(ROOT, "tests/attacks/hostile-mcp.mjs"), join(dir, "server.mjs"));
writeFileSync(join(dir, "mcp.json"), JSON.stringify({ mcpServers: { hostile: { command: process.execPath, args: ["server.mjs"] } } }));
afterAll(() => {
  rmSync(dir, { recursive: true, force: true });
  rmSync(ws, { recursive: true, force: true });
});

const modes = [...(sandboxInfo().kind === "bubblewrap" ? ["bubblewrap"] : []), "none"];
/**
 * How each signal arrives: a closed terminal (SIGHUP) and Ctrl-C (SIGINT) reach the whole
 * foreground process group; `kill` (SIGTERM, SIGHUP) reaches the agent's process alone; and a
 * wrapper such as tsx's, signalled alone, dies of SIGHUP without passing it on (the agent sees
 * its parent gone).
 */
const cases = modes.flatMap((mode) =>
  ([["SIGHUP", "group"], ["SIGINT", "group"], ["SIGTERM", "agent"], ["SIGHUP", "agent"], ["SIGHUP", "wrapper"]] as const).map(([signal, to]) => [mode, signal, to] as const),
);

describe("the agent stopped by a signal leaves nothing running", () => {
  it.each(cases)("sandbox %s, %s sent to the %s: every process killed, the transcript saved", async (mode, signal, to) => {
    const stamp = `${mode === "none" ? "off" : "bw"}-${signal}-${to}-${Date.now()}`;
    const tokens = ["mcp", "setsid", "fg"].map((t) => `sig-${t}-${stamp}`);
    const env: NodeJS.ProcessEnv = { ...process.env, SIGNAL_TOKENS: tokens.join(","), NO_COLOR: "1" };
    for (const name of ["ANTHROPIC_API_KEY", "ANTHROPIC_AUTH_TOKEN", "ANTHROPIC_BASE_URL"]) delete env[name];
    if (mode === "none") env.COURSE_SANDBOX = "off";
    else delete env.COURSE_SANDBOX;
    // As `npm run agent` starts it (node --import tsx: the agent is the process signalled), or under tsx's wrapper.
    const [command, ...pre] = to === "wrapper" ? [join(ROOT, "node_modules/.bin/tsx")] : [process.execPath, "--import", "tsx"];
    const child = spawn(command!, [...pre, join(ROOT, "tests/attacks/agent-program.ts"), "--workspace", ws, "--yes", "--mcp-config", join(dir, "mcp.json"), "leave processes running"], {
      cwd: ROOT,
      env,
      stdio: ["ignore", "pipe", "pipe"],
      detached: true,
    });
    let out = "";
    child.stdout.on("data", (d: Buffer) => (out += d.toString()));
    child.stderr.on("data", (d: Buffer) => (out += d.toString()));
    // The output ends when the last process holding it (the agent's node, under tsx) has exited.
    const ended = new Promise<void>((r) => child.stdout.on("close", () => r()));
    try {
      const ready = await until(() => tokens.every((t) => processesWith(t).length > 0), 40_000);
      expect(ready, `the agent never had all three processes running:\n${out}`).toBe(true);
      process.kill(to === "group" ? -child.pid! : child.pid!, signal);
      const end = await Promise.race([ended.then(() => "ended"), new Promise<"hung">((r) => setTimeout(() => r("hung"), 15_000))]);
      expect(end, `after ${signal} the agent was still running 15 s later:\n${out}`).toBe("ended");
      expect(out, `after ${signal} the agent did not say it stopped everything:\n${out}`).toMatch(new RegExp(`${signal}: stopped \\d+ running`));
      if (child.exitCode !== null) expect(child.exitCode, `tsx passed ${signal} on, and the agent exited with ${child.exitCode}: 128 + ${constants.signals[signal]} says which signal stopped it`).toBe(128 + constants.signals[signal]);
      await until(() => tokens.every((t) => processesWith(t).length === 0), 2_000);
      const alive = tokens.filter((t) => processesWith(t).length > 0);
      expect(alive, `after ${signal} these processes of the agent were still running:\n${out}`).toEqual([]);
      const log = /transcript is saved in (\S+\.jsonl)/.exec(out)?.[1];
      expect(log, `after ${signal} the agent did not say where it saved the transcript:\n${out}`).toBeDefined();
      const last = JSON.parse(readFileSync(log!, "utf8").trim().split("\n").at(-1)!) as { type: string; messages: never[] };
      expect(last.type).toBe("transcript");
      expect(last.messages.length).toBeGreaterThan(2);
      expect(checkTranscript(last.messages), "the saved transcript has every tool_use answered").toEqual([]);
      rmSync(log!, { force: true });
    } finally {
      try {
        process.kill(-child.pid!, "SIGKILL");
      } catch {
        // The group is gone.
      }
      for (const t of tokens) for (const pid of processesWith(t)) process.kill(pid, "SIGKILL");
    }
  }, 70_000);
});
