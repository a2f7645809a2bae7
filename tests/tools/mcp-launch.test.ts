/**
 * MCP servers inside the tools' rules (runtime/tools/server-launch.ts, s17's McpServers): a
 * hostile server (tests/attacks/hostile-mcp.mjs) started with the sandbox on (where bubblewrap
 * can start) and off. Its environment never holds the agent's key; in the sandbox it cannot read a
 * secret outside the workspace nor rewrite its own source; its results are capped; nothing it
 * started outlives close() or killEverything().
 */
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type Anthropic from "@anthropic-ai/sdk";
import { afterAll, afterEach, describe, expect, it } from "vitest";
import { ROOT } from "../../runtime/testing.ts";
import { killEverything, liveCount } from "../../runtime/tools/live.ts";
import { sandboxInfo } from "../../runtime/tools/sandbox.ts";
import { McpServers } from "../../solutions/s17_mcp/mcp.ts";
import { aliveAfter } from "../../runtime/processes.ts";

const KEY = "sk-ant-MCP-CANARY-4242";
// Under the course's node_modules, so that the server's imports (the MCP SDK) resolve.
mkdirSync(join(ROOT, "node_modules/.cache"), { recursive: true });
const dir = realpathSync(mkdtempSync(join(ROOT, "node_modules/.cache/mcp-launch-test-")));
// The server's folder is under the course's node_modules (its imports resolve there); the
// workspace is elsewhere, as an agent's is: a workspace inside node_modules would be covered by it.
const ws = realpathSync(mkdtempSync(join(tmpdir(), "mcp-launch-ws-")));
const serverDir = join(dir, "server");
mkdirSync(serverDir);
const outside = realpathSync(mkdtempSync(join(tmpdir(), "mcp-outside-")));
writeFileSync(join(outside, "secret.txt"), "SECRET-OUTSIDE-9191\n");
copyFileSync(join(ROOT, "tests/attacks/hostile-mcp.mjs"), join(serverDir, "server.mjs"));
afterAll(() => {
  rmSync(dir, { recursive: true, force: true });
  rmSync(ws, { recursive: true, force: true });
  rmSync(outside, { recursive: true, force: true });
});

const saved = { key: process.env.ANTHROPIC_API_KEY, sandbox: process.env.COURSE_SANDBOX };
afterEach(() => {
  killEverything();
  for (const [name, value] of [["ANTHROPIC_API_KEY", saved.key], ["COURSE_SANDBOX", saved.sandbox]] as const)
    if (value === undefined) delete process.env[name];
    else process.env[name] = value;
});

const textOf = (r: Anthropic.ToolResultBlockParam) => (Array.isArray(r.content) ? r.content.map((b) => (b.type === "text" ? b.text : `[${b.type}]`)).join("\n") : String(r.content));
let n = 0;
const callOf = (name: string, input: Record<string, unknown> = {}) => ({ type: "tool_use", id: `toolu_${n++}`, name: `mcp__hostile__${name}`, input }) as Anthropic.ToolUseBlock;

const modes = [...(sandboxInfo().kind === "bubblewrap" ? ["bubblewrap"] : []), "none"] as const;

async function start(extra: Record<string, unknown> = {}) {
  const warnings: string[] = [];
  const servers = await McpServers.start(
    { hostile: { command: process.execPath, args: ["server.mjs"], cwd: serverDir, env: { ANTHROPIC_API_KEY: KEY, HARMLESS: "1" }, ...extra } },
    { workspace: ws, warn: (w) => warnings.push(w), startTimeoutMs: 30_000 },
  );
  expect(servers.problems, "the hostile server started").toEqual([]);
  return { servers, warnings };
}

describe.each(modes)("an MCP server, sandbox %s", (mode) => {
  it("has no key in its environment (neither the agent's nor one its config passes), and the config's other variables", async () => {
    process.env.ANTHROPIC_API_KEY = `${KEY}-agent`;
    if (mode === "none") process.env.COURSE_SANDBOX = "off";
    const { servers, warnings } = await start();
    try {
      const env = textOf(await servers.call(callOf("env")));
      expect(env).not.toContain(KEY);
      expect(JSON.parse(env)).toMatchObject({ HARMLESS: "1" });
      expect(warnings.join("\n")).toMatch(/ANTHROPIC_API_KEY is left out/);
      if (mode === "none") expect(warnings.join("\n")).toMatch(/without a sandbox/);
    } finally {
      await servers.close();
    }
  });

  it("returns at most the tools' cap of text, whatever it sends", async () => {
    if (mode === "none") process.env.COURSE_SANDBOX = "off";
    const { servers } = await start();
    try {
      const flood = textOf(await servers.call(callOf("flood", { n: 300_000 })));
      expect(flood.length).toBeLessThan(52_000);
      expect(flood).toMatch(/characters not shown/);
    } finally {
      await servers.close();
    }
  });

  it("leaves nothing running after close(), and killEverything() (the agent's end) kills it and all it started", async () => {
    if (mode === "none") process.env.COURSE_SANDBOX = "off";
    for (const end of ["close", "killEverything"] as const) {
      const token = `mcp-stray-${mode}-${end}-${Date.now()}`;
      const { servers } = await start();
      const before = liveCount();
      expect(before, "the server is registered while it runs").toBeGreaterThan(0);
      expect(textOf(await servers.call(callOf("spawn", { token })))).toMatch(/started/);
      if (end === "close") await servers.close();
      else killEverything();
      expect(await aliveAfter(token, 3_000), `a process the server started survived ${end}() (still alive 3 s later)`).toBe(0);
      if (end === "killEverything") await servers.close();
    }
  });
});

describe.runIf(modes.includes("bubblewrap" as never))("an MCP server in the sandbox", () => {
  it("cannot read a secret outside the workspace nor rewrite its own source; a server opted out is warned about", async () => {
    const { servers } = await start();
    try {
      expect(textOf(await servers.call(callOf("read", { path: join(outside, "secret.txt") })))).not.toContain("SECRET-OUTSIDE");
      await servers.call(callOf("write", { path: join(serverDir, "server.mjs"), text: "planted" }));
      expect(readFileSync(join(serverDir, "server.mjs"), "utf8")).not.toBe("planted");
      expect(textOf(await servers.call(callOf("write", { path: join(ws, "ok.txt"), text: "fine" })))).toBe("written");
    } finally {
      await servers.close();
    }
    const optedOut = await start({ sandbox: false });
    try {
      expect(optedOut.warnings.join("\n")).toMatch(/OUTSIDE the sandbox/);
    } finally {
      await optedOut.servers.close();
    }
  });
});

describe.runIf(modes.includes("bubblewrap" as never))("a server's folder bound back read-only", () => {
  it("is never a folder that holds the home folder (that would show ~/.ssh and the rest the sandbox hides)", async () => {
    const { homedir } = await import("node:os");
    const { launchServer } = await import("../../runtime/tools/server-launch.ts");
    for (const cwd of [homedir(), "/"]) {
      const launch = launchServer("x", { command: "node", args: [], env: {}, cwd }, ws);
      const binds = launch.args.flatMap((a, i) => (a === "--ro-bind" ? [launch.args[i + 1]] : []));
      // (The sandbox mounts only the system folders, the workspace and what a server needs: never / or the home.)
      expect(binds.filter((b) => b === cwd).length, `cwd ${cwd}`).toBe(0);
      launch.cleanup();
    }
    const own = launchServer("x", { command: "node", args: [], env: {}, cwd: serverDir }, ws);
    expect(own.args.join(" ")).toContain(`--ro-bind ${serverDir} ${serverDir}`);
    own.cleanup();
  });
});
