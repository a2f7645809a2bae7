/**
 * The house around the sandbox: secret files out of reach of every tool, a trusted bwrap and
 * PATH, hard links found however deep, the workspace's fingerprint, the sandbox's walls. Quick
 * checks of each layer; the attacks over several runs are in the reliability run
 * (scripts/reliability/house-attacks.ts).
 */
import { chmodSync, linkSync, mkdirSync, mkdtempSync, realpathSync, rmSync, statSync, utimesSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import fc from "fast-check";
import { afterAll, afterEach, describe, expect, it } from "vitest";
import { COURSE_ROOT } from "../../runtime/env.ts";
import { ToolError, listFiles, readFile, writeFile, editFile } from "../../runtime/tools/files.ts";
import { WorkspaceTrust, workspaceFingerprint } from "../../runtime/tools/fingerprint.ts";
import { SurveyError, secretPart, surveyWorkspace, unseenReads } from "../../runtime/tools/secrets.ts";
import { coverHidden, sandboxInfo, spawnTool, trustedBwrap, trustedPath, untrusted } from "../../runtime/tools/sandbox.ts";

const dir = realpathSync(mkdtempSync(join(tmpdir(), "house-test-")));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
let n = 0;
function workspace(): { ws: string; out: string } {
  const base = join(dir, String(++n));
  const ws = join(base, "ws");
  const out = join(base, "out");
  mkdirSync(join(ws, "src"), { recursive: true });
  mkdirSync(out);
  writeFileSync(join(out, "secret.txt"), "OUTSIDE-SECRET-93\n");
  writeFileSync(join(ws, "src", "a.js"), "export const a = 1;\n");
  writeFileSync(join(ws, ".env"), "ANTHROPIC_API_KEY=sk-ant-HOUSE-TEST\n");
  return { ws, out };
}
const saved = process.env.COURSE_SANDBOX;
afterEach(() => {
  if (saved === undefined) delete process.env.COURSE_SANDBOX;
  else process.env.COURSE_SANDBOX = saved;
});

function run(ws: string, command: string): Promise<string> {
  const proc = spawnTool(["bash", "-c", command], { workspace: ws });
  return new Promise((resolve) => {
    let text = "";
    proc.child.stdout.on("data", (c: Buffer) => (text += c.toString()));
    proc.child.stderr.on("data", (c: Buffer) => (text += c.toString()));
    proc.child.on("close", () => {
      proc.killAll();
      proc.cleanup();
      resolve(text);
    });
  });
}

describe("secret files are out of reach of the file tools, whether they exist or not", () => {
  it("names: .env*, keys, credentials and .course/ anywhere in a path; ordinary names are not", () => {
    for (const p of [".env", ".env.local", "a/b/.env.production", "keys/id_ed25519", "certs/server.pem", "tls.key", ".npmrc", "credentials.json", ".course/runs/x.jsonl", ".ssh/config", "gcp-service-account.json"])
      expect(secretPart(p), p).not.toBeNull();
    for (const p of ["src/env.ts", "README.md", "environment.md", "keyboard.js", "course/notes.md", "id_rsa.pub.txt.md"]) expect(secretPart(p), p).toBeNull();
  });

  it("read, write, edit and list refuse them, and a write does not create one", async () => {
    const { ws } = workspace();
    await expect(readFile(ws, ".env")).rejects.toThrow(/secret file/);
    await expect(readFile(ws, "src/../.env")).rejects.toThrow(ToolError);
    await expect(editFile(ws, ".env", "HOUSE", "X")).rejects.toThrow(/secret file/);
    await expect(writeFile(ws, ".env.new", "ANTHROPIC_BASE_URL=http://evil.example\n")).rejects.toThrow(/secret file/);
    await expect(writeFile(ws, ".course/sessions/forged.json", "{}")).rejects.toThrow(/secret file/);
    await expect(listFiles(ws, ".course")).rejects.toThrow(/secret file/);
    expect(() => statSync(join(ws, ".env.new")), "write_file created a secret file").toThrow();
  });

  it("property: a path with a secret part anywhere is refused by read_file", async () => {
    const { ws } = workspace();
    const part = fc.constantFrom(".env", ".env.x", "id_rsa", "a.pem", ".course", "credentials.json");
    await fc.assert(
      fc.asyncProperty(fc.array(fc.constantFrom("src", "lib", "x"), { maxLength: 3 }), part, async (dirs, secret) => {
        const path = [...dirs, secret].join("/");
        await expect(readFile(ws, path)).rejects.toThrow(ToolError);
      }),
      { numRuns: 40 },
    );
  });
});

describe("the walk that finds hard links and secrets: every entry, failing closed", () => {
  it("finds a hard link deep in node_modules and .git, and one past 20 000 entries", () => {
    const { ws, out } = workspace();
    for (const rel of ["node_modules/p/q/r.txt", ".git/objects/aa/bb"]) {
      mkdirSync(join(ws, rel, ".."), { recursive: true });
      linkSync(join(out, "secret.txt"), join(ws, rel));
    }
    mkdirSync(join(ws, "many"));
    for (let i = 0; i < 20_100; i++) writeFileSync(join(ws, "many", `f${i}`), "");
    mkdirSync(join(ws, "zz"));
    linkSync(join(out, "secret.txt"), join(ws, "zz", "late.txt"));
    const found = surveyWorkspace(ws).hardLinks.map((p) => p.slice(ws.length + 1)).sort();
    expect(found).toEqual([".git/objects/aa/bb", "node_modules/p/q/r.txt", "zz/late.txt"]);
    expect(() => surveyWorkspace(ws, 1_000), "a walk past its limit must fail, not answer in part").toThrow(SurveyError);
  });

  it("more hard links than can be covered one by one: the folders that hold them are hidden whole, never the workspace", () => {
    const ws = "/w/ws";
    const files = Array.from({ length: 30 }, (_, i) => `/w/ws/node_modules/p${i % 3}/lib/f${i}.js`);
    expect(coverHidden(ws, files, 50)).toHaveLength(30);
    const cover = coverHidden(ws, [...files, "/w/ws/top.txt"], 10);
    expect(cover).toEqual(expect.arrayContaining([{ path: "/w/ws/top.txt", dir: false }, { path: "/w/ws/node_modules/p0/lib", dir: true }]));
    expect(cover.length).toBeLessThanOrEqual(10);
    for (const f of files) expect(cover.some((c) => c.dir && f.startsWith(`${c.path}/`)), `${f} is not covered`).toBe(true);
    expect(() => coverHidden(ws, Array.from({ length: 20 }, (_, i) => `/w/ws/f${i}`), 5), "the workspace itself can never be hidden: too many links must fail").toThrow(SurveyError);
  });

  it("a file whose every name is inside the workspace is its own (not hidden)", () => {
    const { ws } = workspace();
    linkSync(join(ws, "src", "a.js"), join(ws, "src", "b.js"));
    expect(surveyWorkspace(ws).hardLinks).toEqual([]);
  });

  it("a read-only command that reads a secret, or every file under a folder over a hard link, is caught", () => {
    const { ws, out } = workspace();
    mkdirSync(join(ws, "vendor", "x"), { recursive: true });
    linkSync(join(out, "secret.txt"), join(ws, "vendor", "x", "l.txt"));
    expect(unseenReads([["cat", ".env"]], ws)).toMatch(/secret/);
    expect(unseenReads([["grep", "-r", "x", "vendor"]], ws)).toMatch(/hard link/);
    expect(unseenReads([["grep", "-rn", "x"]], ws)).toMatch(/\.env|hard link/);
    expect(unseenReads([["grep", "-n", "x", "src/a.js"]], ws)).toBeNull();
    expect(unseenReads([["find", ".", "-name", "x"]], ws)).toBeNull();
  });
});

describe("run_tests' trust: a fingerprint of the workspace itself", () => {
  it("changes with any write, even one that keeps the size and the times; the trusted state outlives the tools", () => {
    const { ws } = workspace();
    const store = join(dir, `trust-${n}`);
    const first = new WorkspaceTrust(ws, store);
    expect(first.check().differs).toBe(false);
    const file = join(ws, "src", "a.js");
    const { atime, mtime } = statSync(file);
    writeFileSync(file, "export const a = 2;\n");
    utimesSync(file, atime, mtime);
    const changed = first.check();
    expect(changed.differs, "same size and times, new content: the fingerprint did not change").toBe(true);
    // A new run (new tools) still sees it as changed; once approved, it is trusted in every run.
    const second = new WorkspaceTrust(ws, store);
    expect(second.check().differs).toBe(true);
    second.approve(second.check().now);
    expect(new WorkspaceTrust(ws, store).check().differs).toBe(false);
    expect(workspaceFingerprint(ws, 2), "a workspace too large to fingerprint must not count as unchanged").toBeNull();
  });
});

describe("a trusted bwrap and PATH", () => {
  it("a program the user could have planted is not trusted; the system's are", () => {
    const planted = join(dir, "bwrap");
    writeFileSync(planted, "#!/bin/sh\n");
    chmodSync(planted, 0o755);
    expect(untrusted(planted)).not.toBeNull();
    expect(untrusted("/usr/bin/env")).toBeNull();
    const path = trustedPath().split(":");
    expect(path.every((d) => untrusted(d) === null || d.endsWith("bin"))).toBe(true);
    expect(path.some((d) => d.includes("node_modules"))).toBe(false);
    const bwrap = trustedBwrap();
    if ("path" in bwrap) expect(untrusted(bwrap.path)).toBeNull();
  });

  it("a tool's PATH is never the agent's, even when the agent's starts with the workspace's bin", async () => {
    process.env.COURSE_SANDBOX = "off";
    const { ws, out } = workspace();
    mkdirSync(join(ws, "node_modules", ".bin"), { recursive: true });
    for (const name of ["bash", "ls", "bwrap"]) {
      writeFileSync(join(ws, "node_modules", ".bin", name), `#!/bin/sh\ntouch ${join(out, `ran-${name}`)}\n`);
      chmodSync(join(ws, "node_modules", ".bin", name), 0o755);
    }
    const agentPath = process.env.PATH;
    process.env.PATH = `${join(ws, "node_modules", ".bin")}:${agentPath}`;
    try {
      const text = await run(ws, "ls src; echo PATH=$PATH");
      expect(text).toContain("a.js");
      expect(text).not.toContain("node_modules");
      for (const name of ["bash", "ls", "bwrap"]) expect(() => statSync(join(out, `ran-${name}`)), `the planted ${name} ran`).toThrow();
    } finally {
      process.env.PATH = agentPath;
    }
  });
});

const info = sandboxInfo();
describe("the sandbox's walls", () => {
  it.skipIf(info.kind === "none")(`only the system folders and the workspace: no home, /run, parents, host names; secrets hidden; limits set${info.why ? ` (skipped: ${info.why})` : ""}`, async () => {
    const { ws } = workspace();
    const text = await run(
      ws,
      [
        "ls -A / | tr '\\n' ' '; echo",
        "ls -A .. | tr '\\n' ' '; echo",
        "ls -A /var | tr '\\n' ' '; echo",
        `test -e ${COURSE_ROOT}/package.json && echo course-visible || echo course-hidden`,
        "cat .env; echo env-read",
        "hostname",
        "ulimit -f; ulimit -d; ulimit -n",
        "echo fresh > .env.created; cat .env.created",
      ].join("; "),
    );
    const [root = "", parent = "", varDir = ""] = text.split("\n");
    expect(varDir.trim(), "/var shows more than its private tmp").toBe("tmp");
    for (const hidden of ["home", "root", "run", "srv", "mnt", "sys", "opt", "media", "work"]) expect(root.split(" "), `/${hidden} is there in the sandbox`).not.toContain(hidden);
    expect(parent.trim(), "the workspace's parent shows more than the workspace").toBe("ws");
    expect(text).toContain("course-hidden");
    expect(text).not.toContain("sk-ant-HOUSE-TEST");
    expect(text).toMatch(/^sandbox$/m);
    expect(text).toMatch(/^1048576\n4194304\n4096$/m);
    expect(text, "a file the command makes itself is its own").toContain("fresh");
  });
});
