/**
 * s19's review of the workspace's hooks, through the final agent's program (solutions/s19_hooks/
 * trust.ts): a project hook runs only once the person approved it, and again only while it is the
 * hook they approved; the approvals live in the user's config folder, never in the workspace; the
 * user's own hooks are never asked about. Whether a hook ran is seen on the disk: each hook here
 * leaves a file in the workspace when it runs.
 */
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { output } from "../../runtime/print.ts";
import { scripted } from "../../runtime/testing.ts";
import { run } from "../../solutions/s19_hooks/program.ts";
import { readHooks } from "../../solutions/s19_hooks/hooks.ts";
import { TRUST_FILE, hookId, readTrust, recordTrust, reviewedHooks } from "../../solutions/s19_hooks/trust.ts";
import { approveAll, refuseAll } from "../../solutions/s07_safe_tools/approval.ts";
import { scratchWorkspaces } from "../support.ts";

const { ws, keep } = scratchWorkspaces("hook-trust-");
let userDir: string;

beforeEach(() => {
  userDir = keep(mkdtempSync(join(tmpdir(), "hook-trust-user-")));
  // The program reads the user's folder from here: the tests never touch the real one.
  vi.stubEnv("AGENT_CONFIG_DIR", userDir);
});
afterEach(() => vi.unstubAllEnvs());

/** A hook that leaves `mark` in the workspace when it runs (at the prompt: it runs once per run). */
const marking = (mark: string) => ({ hooks: { UserPromptSubmit: [{ command: `touch ${mark}` }] } });

async function project(settings: object): Promise<string> {
  const root = await ws({ "notes.txt": "hello\n" });
  mkdirSync(join(root, ".agent"), { recursive: true });
  writeFileSync(join(root, ".agent", "settings.json"), JSON.stringify(settings));
  return root;
}

/** One run of the final agent on `root`, with what it printed. */
async function agent(root: string, ...flags: string[]) {
  const lines: string[] = [];
  const spy = vi.spyOn(output, "write").mockImplementation((line: string) => void lines.push(line));
  try {
    const { exitCode } = await run(["--workspace", root, ...flags, "Say hello."], { llm: scripted() });
    return { exitCode, out: lines.join("\n") };
  } finally {
    spy.mockRestore();
  }
}

describe("the workspace's hooks run once the person approved them", () => {
  it("a new project hook, with no terminal to ask and no --yes, is not run: the run says so and how to approve it", async () => {
    const root = await project(marking("ran"));
    const { out } = await agent(root);
    expect(existsSync(join(root, "ran")), "an unapproved project hook ran: the program must review the workspace's hooks before the loop runs them (withReviewedHooks)").toBe(false);
    expect(out).toMatch(/hook not run: UserPromptSubmit hook `touch ran`[\s\S]*not approved[\s\S]*--yes/);
    expect(existsSync(join(userDir, TRUST_FILE)), "a refusal recorded nothing").toBe(false);
  });

  it("approved once (--yes here), it runs in later runs without a question; the record is in the user's folder, not the workspace", async () => {
    const root = await project(marking("ran"));
    await agent(root, "--yes");
    expect(existsSync(join(root, "ran")), "with --yes the approved hook runs").toBe(true);
    rmSync(join(root, "ran"));
    const { out } = await agent(root);
    expect(existsSync(join(root, "ran")), "an approved hook, unchanged, runs in the next run").toBe(true);
    expect(out).not.toMatch(/hook not run/);
    expect(statSync(join(userDir, TRUST_FILE)).mode & 0o077, "the record is the user's alone").toBe(0);
    expect(existsSync(join(root, ".agent", TRUST_FILE))).toBe(false);
  });

  it("a hook changed after its approval (its command, its event, its matcher or its timeout) is new again: not run until approved", async () => {
    for (const changed of [
      { hooks: { UserPromptSubmit: [{ command: "touch ran; touch also" }] } },
      { hooks: { UserPromptSubmit: [{ command: "touch ran", timeout: 5 }] } },
      { hooks: { Stop: [{ command: "touch ran" }], UserPromptSubmit: [{ command: "touch ran" }, { command: "touch ran2" }] } },
    ]) {
      const root = await project(marking("ran"));
      await agent(root, "--yes");
      rmSync(join(root, "ran"));
      writeFileSync(join(root, ".agent", "settings.json"), JSON.stringify(changed));
      const { out } = await agent(root);
      const added = readHooks(join(root, ".agent", "settings.json")).filter((h) => !(readTrust(userDir)[root] ?? []).includes(hookId(h)));
      expect(added.length, JSON.stringify(changed)).toBeGreaterThan(0);
      expect(out, `${JSON.stringify(changed)}: the changed hook is named as not approved`).toMatch(/hook not run/);
      if (changed.hooks.UserPromptSubmit.length === 1) expect(existsSync(join(root, "ran")), `${JSON.stringify(changed)}: a changed hook ran without approval`).toBe(false);
    }
  });

  it("the same approval does not carry to another workspace with the same hooks", async () => {
    const a = await project(marking("ran"));
    await agent(a, "--yes");
    const b = await project(marking("ran"));
    await agent(b);
    expect(existsSync(join(b, "ran"))).toBe(false);
  });

  it("the user's own hooks (their settings.json) run with no question and no record", async () => {
    const root = await project({});
    writeFileSync(join(userDir, "settings.json"), JSON.stringify({ hooks: { UserPromptSubmit: [{ command: "touch mine" }] } }));
    const { out } = await agent(root);
    expect(existsSync(join(root, "mine"))).toBe(true);
    expect(out).not.toMatch(/hook not run/);
    expect(existsSync(join(userDir, TRUST_FILE))).toBe(false);
  });

  it("reviewedHooks: the approver is asked once per new hook, with the hook's command; an unreadable record means asking again", async () => {
    const root = await project({ hooks: { Stop: [{ command: "echo one" }], PreToolUse: [{ matcher: "bash", command: "echo two" }] } });
    const asked: string[] = [];
    const yes = async (q: { command: string; reason: string }) => (asked.push(q.command), approveAll(q));
    expect((await reviewedHooks(root, userDir, yes, () => {})).map((h) => h.command).sort()).toEqual(["echo one", "echo two"]);
    expect(asked.sort()).toEqual(["echo one", "echo two"]);
    expect((await reviewedHooks(root, userDir, refuseAll, () => {})).length, "approved before: kept without asking").toBe(2);
    writeFileSync(join(userDir, TRUST_FILE), "{ not json");
    const said: string[] = [];
    expect(await reviewedHooks(root, userDir, refuseAll, (l) => said.push(l))).toEqual([]);
    expect(said).toHaveLength(2);
    recordTrust(userDir, root, ["x"]);
    expect(JSON.parse(readFileSync(join(userDir, TRUST_FILE), "utf8"))).toBeTypeOf("object");
  });
});
