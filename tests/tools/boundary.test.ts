/**
 * The capstone's boundary in both modes (`npm run agent`): with the OS sandbox, run_tests runs
 * without asking even after the agent wrote a test; with none (COURSE_SANDBOX=off), it asks once
 * a file was changed in the run, and a refusal runs nothing. The run's first line says which.
 */
import { cpSync, existsSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type Anthropic from "@anthropic-ai/sdk";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { output } from "../../runtime/print.ts";
import { textOf } from "../../runtime/scripted/conversation.ts";
import { ROOT, scripted } from "../../runtime/testing.ts";
import { sandboxInfo } from "../../runtime/tools/sandbox.ts";
import { SafeToolRegistry } from "../../solutions/s04_tool_errors/define-tool.ts";
import { capstoneTools, run } from "../../solutions/s12_guarded_agent/agent.ts";

const SAMPLE = join(ROOT, "examples", "login-service");
function sample(): string {
  const dir = mkdtempSync(join(tmpdir(), "boundary-"));
  cpSync(SAMPLE, dir, { recursive: true });
  return dir;
}

const saved = process.env.COURSE_SANDBOX;
let printed: string[] = [];
const original = output.write;
beforeEach(() => {
  printed = [];
  output.write = (line: string) => void printed.push(line);
});
afterEach(() => {
  output.write = original;
  if (saved === undefined) delete process.env.COURSE_SANDBOX;
  else process.env.COURSE_SANDBOX = saved;
});

let ids = 0;
const call = (name: string, input: Record<string, unknown>): Anthropic.ToolUseBlock =>
  ({ type: "tool_use", id: `toolu_boundary_${++ids}`, name, input, caller: { type: "direct" } }) as Anthropic.ToolUseBlock;

function tools(dir: string, answer: "yes" | "no") {
  const asked: string[] = [];
  const approve = async ({ command }: { command: string }) => {
    asked.push(command);
    return answer === "yes" ? { approved: true as const } : { approved: false as const, why: "the user said no" };
  };
  return { asked, registry: new SafeToolRegistry(capstoneTools(dir, approve)) };
}

/** A test file the agent writes: it leaves a mark outside the workspace when it runs. */
function evilTest(mark: string): string {
  return `import { test } from "node:test";\nimport { writeFileSync } from "node:fs";\ntest("x", () => { try { writeFileSync(${JSON.stringify(mark)}, "ran"); } catch {} });\n`;
}

describe("no sandbox: run_tests asks once the workspace changed", () => {
  it("runs freely before any change; after write_file it asks, and a refusal runs nothing", async () => {
    process.env.COURSE_SANDBOX = "off";
    const dir = sample();
    const mark = join(mkdtempSync(join(tmpdir(), "boundary-out-")), "ran.txt");
    const { asked, registry } = tools(dir, "no");
    const first = await registry.dispatch(call("run_tests", {}), { root: dir });
    expect(first.is_error, textOf(first.content ?? "")).toBeFalsy();
    expect(asked, "run_tests asked before anything was changed").toEqual([]);

    const wrote = await registry.dispatch(call("write_file", { path: "test/evil.test.js", content: evilTest(mark) }), { root: dir });
    expect(wrote.is_error).toBeFalsy();
    const second = await registry.dispatch(call("run_tests", {}), { root: dir });
    expect(asked, "with no sandbox, run_tests after a write must ask").toHaveLength(1);
    expect(second.is_error).toBe(true);
    expect(textOf(second.content ?? "")).toMatch(/not run: there is no sandbox/);
    expect(existsSync(mark), "the written test ran although the user said no").toBe(false);
  });

  it("an approved run goes ahead; edit_file and a command that writes count as changes too", async () => {
    process.env.COURSE_SANDBOX = "off";
    for (const change of [
      call("edit_file", { path: "src/login.js", old_text: "MAX_FAILED_ATTEMPTS = 3", new_text: "MAX_FAILED_ATTEMPTS = 3 " }),
      call("bash", { command: "touch made.txt" }),
    ]) {
      const dir = sample();
      const { asked, registry } = tools(dir, "yes");
      await registry.dispatch(change, { root: dir });
      const r = await registry.dispatch(call("run_tests", {}), { root: dir });
      expect(asked.some((c) => c.startsWith("node --test")), `${change.name} did not make run_tests ask`).toBe(true);
      expect(textOf(r.content ?? "")).toMatch(/# tests/);
    }
  });

  it("the run's first line says there is no sandbox; --yes says what it does", async () => {
    process.env.COURSE_SANDBOX = "off";
    await run(["--workspace", sample(), "--yes", "list the files"], { llm: scripted() });
    expect(printed[0]).toMatch(/^(\S+ )?sandbox: none — commands ask first/);
    expect(printed.join("\n")).toMatch(/--yes: commands that are not read-only run without asking/);
  });
});

const info = sandboxInfo();
describe("with the sandbox", () => {
  it.skipIf(info.kind === "none")(`run_tests runs a test the agent wrote without asking, and the test cannot reach outside${info.why ? ` (skipped: ${info.why})` : ""}`, async () => {
    const dir = sample();
    const mark = join(mkdtempSync(join(tmpdir(), "boundary-out-")), "ran.txt");
    const { asked, registry } = tools(dir, "no");
    await registry.dispatch(call("write_file", { path: "test/evil.test.js", content: evilTest(mark) }), { root: dir });
    const r = await registry.dispatch(call("run_tests", { module: "evil" }), { root: dir });
    expect(asked).toEqual([]);
    expect(textOf(r.content ?? "")).toMatch(/# pass 1/);
    expect(existsSync(mark), "a test run in the sandbox wrote outside the workspace").toBe(false);
    await run(["--workspace", dir, "list the files"], { llm: scripted() });
    expect(printed.find((l) => l.includes("sandbox:"))).toMatch(/sandbox: bubblewrap \(workspace rw, no network\)/);
    expect(printed.findIndex((l) => l.includes("sandbox:"))).toBe(0);
  });
});

// Keep the file's helper honest: the mark is really written when nothing stops it.
it("the evil test writes its mark when run outside any boundary", async () => {
  const { spawnSync } = await import("node:child_process");
  const dir = mkdtempSync(join(tmpdir(), "boundary-plain-"));
  const mark = join(dir, "ran.txt");
  writeFileSync(join(dir, "evil.test.mjs"), evilTest(mark));
  spawnSync(process.execPath, ["--test", join(dir, "evil.test.mjs")], { encoding: "utf8" });
  expect(existsSync(mark)).toBe(true);
});
