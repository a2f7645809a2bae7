/**
 * What a learner sees when something goes wrong, in a real process: runMain turning a TODO, a 400,
 * a 401, a connection error or an unexpected error into a short message with a non-zero exit and
 * no stack trace. Small fixture scripts run as real processes with tsx, in an empty directory,
 * with an environment that holds no real key. Process-level, so in the extended suite (test:all);
 * selectModel and .env, in process, are client.test.ts (npm test).
 */
import { spawn } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { createServer, type IncomingHttpHeaders } from "node:http";
import { createServer as createTcpServer, type AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { DEFAULT_MODEL } from "../../runtime/client.ts";
import { ROOT } from "../../runtime/testing.ts";

const SECRET = "sk-ant-api03-TESTSECRET-0123456789";
const OFFLINE_BANNER = "model: scripted (offline) — set ANTHROPIC_API_KEY to use Claude";

// ── real processes ─────────────────────────────────────────────────────────────────────────

const FIXTURE = join(ROOT, "tests/runtime/fixtures/call-model.ts");
/** What `npx tsx` runs; called by path because the fixtures run in an empty directory. */
const TSX = join(ROOT, "node_modules/tsx/dist/cli.mjs");
const work = mkdtempSync(join(tmpdir(), "course-run-"));
afterAll(() => rmSync(work, { recursive: true, force: true }));

/** The environment of this process without any model settings (a real key must never leak in). */
function cleanEnv(extra: Record<string, string>): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [k, v] of Object.entries(process.env))
    if (!/^(ANTHROPIC_|MODEL_ID$|COURSE_|DEBUG$|FORCE_COLOR$|VITEST|NODE_OPTIONS$)/.test(k)) env[k] = v;
  // English whatever the machine's locale: the tests read the messages in English.
  return { ...env, NO_COLOR: "1", COURSE_LANG: "en", ...extra };
}

function run(mode: string, extra: Record<string, string> = {}, cwd = work): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [TSX, FIXTURE, mode], { cwd, env: cleanEnv(extra), stdio: ["ignore", "pipe", "pipe"] });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (d: Buffer) => (stdout += d.toString()));
    child.stderr.on("data", (d: Buffer) => (stderr += d.toString()));
    child.once("close", (code) => resolve({ code, stdout, stderr }));
  });
}

const STACK = /\n\s+at .+[:(]/;

function closedPort(): Promise<number> {
  return new Promise((resolve) => {
    const s = createTcpServer();
    s.listen(0, "127.0.0.1", () => {
      const { port } = s.address() as AddressInfo;
      s.close(() => resolve(port));
    });
  });
}

// Five tsx processes at once: on a shared 2-core machine each takes far longer than alone; the limit is a cap, not a wait.
describe.concurrent("runMain: short messages, non-zero exits, no stack traces (real processes)", { timeout: 240_000 }, () => {
  it("offline (COURSE_OFFLINE=1 beats a key): the banner first, then the answer, exit 0", async () => {
    const r = await run("ok", { ANTHROPIC_API_KEY: SECRET, COURSE_OFFLINE: "1" });
    expect(r.stderr).toBe("");
    expect(r.stdout.split("\n")[0]).toBe(OFFLINE_BANNER);
    expect(r.stdout).toContain("stop_reason: tool_use");
    expect(r.code).toBe(0);
  });

  it("a TODO left: says which, exit 2", async () => {
    const r = await run("todo");
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/^TODO left: write the loop\n {2}Fill it in \(look for "\/\/ TODO:" in the file\)/);
    expect(r.stderr).not.toMatch(STACK);
  });

  it("a 400 from the API: its message and what to do, exit 1", async () => {
    const r = await run("bad-request");
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('The API rejected the request (400): messages: first message must use the "user" role');
    expect(r.stderr).not.toMatch(STACK);
  });

  it("an unexpected error: one line and how to see more, exit 1", async () => {
    const r = await run("crash");
    expect(r.code).toBe(1);
    expect(r.stderr).toBe("Unexpected error: something nobody planned for\n  (run with DEBUG=1 to see where it came from)\n");
  });

  it("a server that is not there: a connection message naming ANTHROPIC_BASE_URL, no key, exit 1", async () => {
    const port = await closedPort();
    const r = await run("ok", { ANTHROPIC_API_KEY: SECRET, ANTHROPIC_BASE_URL: `http://127.0.0.1:${port}` });
    expect(r.stdout.split("\n")[0]).toBe(`model: ${DEFAULT_MODEL} via http://127.0.0.1:${port} (ANTHROPIC_API_KEY)`);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/^Could not reach the model's server .*ANTHROPIC_BASE_URL/);
    expect(r.stderr).not.toMatch(STACK);
    expect(r.stdout + r.stderr).not.toContain("TESTSECRET");
  });

  it("a key the server refuses (401): says so, never prints the key, exit 1", async () => {
    const seen: IncomingHttpHeaders[] = [];
    const server = createServer((req, res) => {
      seen.push(req.headers);
      res.writeHead(401, { "content-type": "application/json", "x-should-retry": "false" });
      res.end(JSON.stringify({ type: "error", error: { type: "authentication_error", message: "invalid x-api-key" } }));
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    const { port } = server.address() as AddressInfo;
    try {
      const r = await run("ok", { ANTHROPIC_API_KEY: SECRET, ANTHROPIC_BASE_URL: `http://127.0.0.1:${port}` });
      expect(r.code).toBe(1);
      expect(r.stderr).toMatch(/^The server refused your key \(401\)\. Check ANTHROPIC_API_KEY/);
      expect(r.stderr).not.toMatch(STACK);
      expect(r.stdout + r.stderr).not.toContain("TESTSECRET");
      // The key did go to the server (that is where it belongs), both ways compatible servers read it.
      expect(seen[0]?.authorization).toBe(`Bearer ${SECRET}`);
      expect(seen[0]?.["x-api-key"]).toBe(SECRET);
    } finally {
      await new Promise<void>((resolve) => server.close(() => resolve()));
    }
  });

  it("a .env in the current folder (a workspace a tool could write) is never the configuration: only the course's is read", async () => {
    const dir = mkdtempSync(join(work, "env-"));
    writeFileSync(join(dir, ".env"), `MODEL_ID=x\nANTHROPIC_API_KEY: ${SECRET}\nANTHROPIC_BASE_URL=http://evil.example\n`);
    const r = await run("ok", {}, dir);
    expect(r.stderr, "the current folder's .env was read").not.toMatch(/\.env line/);
    expect(r.stdout + r.stderr).not.toContain("evil.example");
    expect(r.stdout + r.stderr).not.toContain("TESTSECRET");
    expect(r.code).toBe(0);
  });
});
