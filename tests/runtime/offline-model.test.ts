/**
 * `npm run offline-model` as a real process: it serves on the port it is given, refuses bad
 * flags with a clear message and exit code 2, and says so when the port is taken.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { createServer, type Server } from "node:net";
import type { AddressInfo } from "node:net";
import Anthropic from "@anthropic-ai/sdk";
import { afterAll, describe, expect, it } from "vitest";
import { ROOT } from "../../runtime/testing.ts";

const NPM = process.platform === "win32" ? "npm.cmd" : "npm";

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once("error", reject);
    s.listen(0, "127.0.0.1", () => {
      const { port } = s.address() as AddressInfo;
      s.close(() => resolve(port));
    });
  });
}

/** Runs the command to completion (it must exit by itself: a refused flag or a busy port). */
function runToExit(args: string[]): Promise<{ status: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(NPM, ["run", "--silent", "offline-model", "--", ...args], { cwd: ROOT, stdio: ["ignore", "pipe", "pipe"] });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (d: Buffer) => (stdout += d.toString()));
    child.stderr.on("data", (d: Buffer) => (stderr += d.toString()));
    child.once("close", (status) => resolve({ status, stdout, stderr }));
  });
}

function groupAlive(pid: number): boolean {
  try {
    process.kill(-pid, 0);
    return true;
  } catch {
    return false;
  }
}

const started: ChildProcess[] = [];
afterAll(() => {
  // Each server was started in its own process group; stop that group (npm, tsx, node) only.
  for (const p of started) if (p.pid && groupAlive(p.pid)) process.kill(-p.pid, "SIGTERM");
});

// Real processes (npm, tsx, node) start slowly on a busy machine: generous time limits.
describe("npm run offline-model (a real process)", { timeout: 60_000 }, () => {
  it("serves the Messages API on 127.0.0.1 at the given port, with the faults asked for", async () => {
    const port = await freePort();
    // Faults by flag: the third request is refused as overloaded.
    const child = spawn(NPM, ["run", "--silent", "offline-model", "--", "--port", String(port), "--faults", "ok,ok,529"], {
      cwd: ROOT,
      detached: true,
      stdio: ["ignore", "pipe", "pipe"],
    });
    started.push(child);
    let out = "";
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`the server did not start:\n${out}`)), 50_000);
      const onData = (d: Buffer) => {
        out += d.toString();
        if (out.includes("listening on")) {
          clearTimeout(timer);
          resolve();
        }
      };
      child.stdout!.on("data", onData);
      child.stderr!.on("data", onData);
      child.once("exit", (code) => reject(new Error(`the server exited (${code}):\n${out}`)));
    });
    expect(out).toContain(`http://127.0.0.1:${port}`);
    expect(out).toContain("scripted model (offline)");

    const client = new Anthropic({ apiKey: "offline", baseURL: `http://127.0.0.1:${port}`, maxRetries: 0 });
    const m = await client.messages.create({
      model: "scripted-model",
      max_tokens: 200,
      tools: [{ name: "bash", input_schema: { type: "object", properties: { command: { type: "string" } } } }],
      messages: [{ role: "user", content: "list the files" }],
    });
    expect(m.stop_reason).toBe("tool_use");
    expect(m.content.find((b) => b.type === "tool_use")).toMatchObject({ name: "bash", input: { command: "ls -la" } });
    await expect(
      client.messages.create({ model: "scripted-model", max_tokens: 10, messages: [{ role: "assistant", content: "hi" }] }),
    ).rejects.toMatchObject({
      status: 400,
      error: { error: { type: "invalid_request_error", message: 'messages: first message must use the "user" role' } },
    });

    await expect(client.messages.create({ model: "scripted-model", max_tokens: 10, messages: [{ role: "user", content: "hi" }] })).rejects.toBeInstanceOf(
      Anthropic.OverloadedError,
    );

    // Leave as asked: SIGTERM ends the server cleanly.
    const exited = new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)));
    process.kill(-child.pid!, "SIGTERM");
    await exited;
    for (let i = 0; i < 50 && groupAlive(child.pid!); i++) await new Promise((r) => setTimeout(r, 100));
    expect(groupAlive(child.pid!)).toBe(false);
  });

  it.concurrent.each([
    [["--port", "abc"], /--port must be a number from 0 to 65535, not "abc"/],
    [["--bogus"], /Unknown option '--bogus'[\s\S]*Usage: npm run offline-model/],
    [["--faults", "nope"], /unknown fault "nope"/],
    [["--scenario", "nothing_like_it"], /unknown scenario "nothing_like_it"; known: /],
  ])("refuses %j with a clear message and exit code 2", async (args, message) => {
    const r = await runToExit(args);
    expect(r.status).toBe(2);
    expect(r.stderr).toMatch(message);
    expect(r.stderr).not.toMatch(/\n\s+at /); // no stack trace
  });

  it("says so when the port is already in use (exit code 2)", async () => {
    const busy: Server = createServer();
    await new Promise<void>((resolve) => busy.listen(0, "127.0.0.1", resolve));
    const { port } = busy.address() as AddressInfo;
    try {
      const r = await runToExit(["--port", String(port)]);
      expect(r.status).toBe(2);
      expect(r.stderr).toContain(`port ${port} is already in use`);
      expect(r.stderr).not.toMatch(/\n\s+at /);
    } finally {
      await new Promise<void>((resolve) => busy.close(() => resolve()));
    }
  });
});
