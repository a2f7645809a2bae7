/**
 * The bash tool of the first lessons (runtime/tools/bash.ts): output and exit code come back as
 * text, errors never throw, long output is capped with a note, a command past its timeout is
 * stopped and says so. (s07 replaces it with a version that also stops the command's children.)
 */
import { mkdtempSync, realpathSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { capOutput, runBash } from "../../runtime/tools/bash.ts";

describe("runBash", () => {
  it("returns stdout and stderr, and the exit code when it is not 0", async () => {
    expect(await runBash("echo out; echo err >&2")).toBe("out\nerr");
    expect(await runBash("echo nope; exit 3")).toBe("nope\n(exit code 3)");
    expect(await runBash("true")).toBe("(no output)");
  });

  it("answers a missing or empty command with an error text, never an exception", async () => {
    for (const bad of [undefined, "", "   ", 42, { command: "ls" }])
      expect(await runBash(bad)).toBe('Error: the bash tool needs {"command": "<a shell command>"}');
  });

  it("caps long output and says how much was cut", async () => {
    const out = await runBash("head -c 5000 /dev/zero | tr '\\0' x", { maxOutput: 100 });
    expect(out.startsWith(`${"x".repeat(100)}\n… [output cut: `)).toBe(true);
    expect(out.length).toBeLessThan(300);
    expect(capOutput("short", 100)).toBe("short");
  });

  it("stops a command past its timeout and says so", async () => {
    const out = await runBash("sleep 5", { timeoutMs: 200 });
    expect(out).toBe("Error: timed out after 0.2 s");
  });

  it("runs in the directory it is given", async () => {
    // A small folder of its own: the whole file system is no workspace (the sandbox checks every entry of it).
    const dir = realpathSync(mkdtempSync(join(tmpdir(), "bash-cwd-")));
    try {
      expect(await runBash("pwd", { cwd: dir })).toBe(dir);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
