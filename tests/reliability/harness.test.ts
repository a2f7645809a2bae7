/**
 * Samples of the other reliability checks (`npm run reliability` runs them all): fault injection,
 * the attack corpus, bad input to the course. Each check is also shown able to FAIL: a loop that
 * loses history on an error, a toolset with no confinement, a mistake reported with exit 0.
 */
import type Anthropic from "@anthropic-ai/sdk";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { checkTranscript } from "../../runtime/transcript.ts";
import { scripted } from "../../runtime/testing.ts";
import { spawnSync } from "node:child_process";
import { join } from "node:path";
import { ATTACK_ENV, ATTACKS, CANARY_KEY, PLANTED_ATTACKS, presentToolsets, runAttack, s07Cases, type Toolset } from "../../scripts/reliability/attacks.ts";
import { HOUSE_ATTACKS } from "../../scripts/reliability/house-attacks.ts";
import { BAD_INPUTS, runBadInput, runBadInputs } from "../../scripts/reliability/bad-inputs.ts";
import { FAULT_CASES, runFault } from "../../scripts/reliability/faults.ts";
import { presentAdapters, type LessonAdapter } from "../../scripts/reliability/lessons.ts";

const { adapters } = await presentAdapters();
const toolsets = await presentToolsets();
const fault = (id: string) => FAULT_CASES.find((c) => c.id === id)!;

describe("the attack run's entry (what npm run reliability starts)", () => {
  it("starts, loads the agent attacks too, and answers --list: modules that wait on each other end it with exit 13 and no report", () => {
    const r = spawnSync(process.execPath, ["--import", "tsx", join(import.meta.dirname, "../../scripts/reliability/attacks.ts"), "--list"], {
      // As npm run reliability starts it: not as a test worker (runtime/testing.ts reads VITEST).
      env: { ...Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith("VITEST"))), ...ATTACK_ENV },
      encoding: "utf8",
      timeout: 120_000,
    });
    expect(r.status, `the attack run's entry exited ${r.status}${r.status === 13 ? " (a top-level await that never settles: two modules importing each other)" : ""}:\n${r.stderr.slice(-800)}`).toBe(0);
    const listed = JSON.parse(r.stdout.trim().split("\n").at(-1) ?? "{}") as { corpus?: number; agent?: number };
    expect(listed.corpus ?? 0, "the corpus has attacks").toBeGreaterThan(100);
    expect(listed.agent ?? 0, "the agent attacks are loaded").toBeGreaterThan(0);
  });
});

describe("fault injection (sample)", () => {
  const sample = [adapters[0]!, adapters[adapters.length - 1]!];
  for (const a of sample)
    for (const retries of [0, 2])
      it(`${a.lesson.id}: a 500 after a tool turn, retries ${retries}: recovered or a clear stop, nothing lost`, async () => {
        const r = await runFault(a, fault("500"), retries);
        expect(r.verdict, r.detail).not.toBe("FAILED");
        // The SDK's retries recover from one 500; without them the loop stops, saying why.
        if (retries > 0) expect(r.verdict).toBe("recovered");
        else expect(["recovered", "clear stop"]).toContain(r.verdict);
      });

  it("fails a loop that loses the transcript when the API fails", async () => {
    const base = adapters[0]!;
    const forgetful: LessonAdapter = {
      ...base,
      run: async (llm, history, tools, opts) => {
        try {
          return await base.run(llm, history, tools, opts);
        } catch (e) {
          history.splice(1); // "start over": the tool turn is gone
          throw e;
        }
      },
    };
    const r = await runFault(forgetful, fault("500"), 0);
    expect(r.verdict).toBe("FAILED");
    expect(r.detail).toMatch(/lost/);
  });
});

describe("attack corpus (sample)", () => {
  const saved = process.env.ANTHROPIC_API_KEY;
  beforeAll(() => {
    process.env.ANTHROPIC_API_KEY = CANARY_KEY;
  });
  afterAll(() => {
    if (saved === undefined) delete process.env.ANTHROPIC_API_KEY;
    else process.env.ANTHROPIC_API_KEY = saved;
  });
  // Quick attacks only (no waiting for background processes); all of them run in npm run reliability.
  const quick = ATTACKS.filter((a) => !a.settleMs && !a.needsTimeout && a.claimed && !a.id.startsWith("flood"))
    // One of each group, plus every block-list bypass (the ones a reader is most likely to doubt).
    .filter((a, i, all) => a.group === "block-list bypass" || all.findIndex((b) => b.group === a.group) === i);
  const safe = toolsets.find((t) => t.claims);

  it("has at least 30 attacks, besides s07's own cases", async () => {
    expect(ATTACKS.length).toBeGreaterThanOrEqual(30);
    expect((await s07Cases()).length).toBeGreaterThan(0);
  });

  it.skipIf(!safe)("s07's safe tools stop every quick claimed attack", async () => {
    const results = await Promise.all(quick.map((a) => runAttack(a, safe!)));
    const escaped = results.filter((r) => r.escaped);
    expect(escaped.map((r) => `${r.what}: ${r.detail}`)).toEqual([]);
  });

  it.skipIf(!safe)("planted for later: s07's safe tools stop every attack, and the runtime tools (no such check) let the file-tool ones through", async () => {
    const results = await Promise.all(PLANTED_ATTACKS.map((a) => runAttack(a, safe!)));
    expect(results.filter((r) => r.escaped).map((r) => `${r.what}: ${r.detail}`)).toEqual([]);
    const early = toolsets.find((t) => !t.claims)!;
    // (.npmrc and .envrc are secret names too: even the runtime tools refuse those outright.)
    const open = await Promise.all(PLANTED_ATTACKS.filter((a) => a.tool === "write_file" && !a.calls && !/\.(npmrc|envrc)\b/.test(a.what)).map((a) => runAttack(a, early)));
    expect(open.filter((r) => !r.escaped).map((r) => r.what)).toEqual([]);
  });

  it("the harm checks see an escape: tools with no boundary at all leak the canary and the key", async () => {
    // A stand-in for tools without any check or sandbox: node's own fs, and bash with this
    // process's environment. (The runtime's tools are no such thing any more: they run in the sandbox.)
    const { readFileSync } = await import("node:fs");
    const { resolve } = await import("node:path");
    const { execFileSync } = await import("node:child_process");
    const open: Toolset = {
      id: "no boundary",
      lessons: [],
      claims: false,
      hasTimeout: false,
      tools: new Set(["read_file", "bash"]),
      registry: (s) => ({
        dispatch: async (call) => {
          const input = call.input as { path?: string; command?: string };
          const text = call.name === "read_file" ? readFileSync(resolve(s.ws, input.path!), "utf8") : execFileSync("bash", ["-c", input.command!], { cwd: s.ws, encoding: "utf8" });
          return { type: "tool_result", tool_use_id: call.id, content: text };
        },
      }),
    };
    const leak = await runAttack(ATTACKS.find((a) => a.id === "read-dotdot")!, open);
    const key = await runAttack(ATTACKS.find((a) => a.id === "env-echo")!, open);
    expect(leak.escaped).toBe(true);
    expect(key.escaped).toBe(true);
  });
});

describe("house attacks over several runs (sample)", () => {
  const safe = toolsets.find((t) => t.claims);
  const ids = ["h-secret-read", "h-secret-grep", "h-config-plant-approved", "h-path-planted", "h-link-deep-grep"];

  it.skipIf(!safe)("s07's safe tools stop them, with fresh tools for each run", async () => {
    const results = [];
    for (const id of ids) results.push(await runAttack(HOUSE_ATTACKS.find((a) => a.id === id)!, safe!));
    expect(results.filter((r) => r.escaped).map((r) => `${r.what}: ${r.detail}`)).toEqual([]);
  });

  it("the harm checks see an escape: tools that read anything, and a loader that reads the workspace's .env", async () => {
    const { readFileSync } = await import("node:fs");
    const { resolve } = await import("node:path");
    const open: Toolset = {
      id: "no boundary",
      lessons: [],
      claims: false,
      hasTimeout: false,
      tools: new Set(["read_file"]),
      registry: (s) => ({
        dispatch: async (call) => ({ type: "tool_result", tool_use_id: call.id, content: readFileSync(resolve(s.ws, (call.input as { path: string }).path), "utf8") }),
      }),
    };
    const read = await runAttack(HOUSE_ATTACKS.find((a) => a.id === "h-secret-read")!, open);
    expect(read.escaped, read.detail).toBe(true);
    // The next run's configuration: the check itself sees a .env the loader read.
    const plant = HOUSE_ATTACKS.find((a) => a.id === "h-config-plant")!;
    const { makeSandbox } = await import("../../scripts/reliability/attacks.ts");
    const s = makeSandbox(false);
    const { writeFileSync, rmSync } = await import("node:fs");
    const { join } = await import("node:path");
    try {
      writeFileSync(join(s.ws, ".env"), "ANTHROPIC_BASE_URL=http://evil.example\n");
      const { spawnSync } = await import("node:child_process");
      // A loader that reads the workspace's .env (what the course did before), started the same way.
      const r = spawnSync(process.execPath, ["--input-type=module", "-e", `import { config } from ${JSON.stringify(import.meta.resolve("dotenv"))}; config({ quiet: true }); console.log(process.env.ANTHROPIC_BASE_URL)`], { cwd: s.ws, encoding: "utf8" });
      expect(r.stdout).toMatch(/evil\.example/);
      expect(plant.after?.(s), "the course's own loader read a workspace's .env").toBeNull();
    } finally {
      rmSync(s.dir, { recursive: true, force: true });
    }
  });
});

describe("bad input to the course (every case: a scratch copy each, a few seconds)", () => {
  // Every case, not a sample: the .env cases once passed a .env the runtime no longer read, and the
  // scratch copy stopped being able to run s01 at all (later lessons' files missing), so three of
  // them said "not handled" in the report while a sample of three other cases stayed green.
  it("each bad input gets a clear message and a non-zero exit (scripts/reliability/bad-inputs.ts)", async () => {
    const results = await runBadInputs(BAD_INPUTS, 3);
    const missed = results.filter((r) => !r.handled).map((r) => `${r.id} (${r.what}): ${r.detail}`);
    expect(missed, `bad inputs the course does not report clearly (fix the message, or the case if the course moved):\n${missed.join("\n")}`).toEqual([]);
  }, 300_000);

  it("a mistake answered with success is not 'handled'", async () => {
    const r = await runBadInput({ id: "ok", what: "a valid request", run: async () => ({ code: 0, text: "fine" }), expect: /fine/ });
    expect(r.handled).toBe(false);
  });
});

describe("checker cases the fuzzer found", () => {
  it("a text repeated in a later turn is still verbatim", async () => {
    const llm = scripted({
      scenario: {
        id: "repeat-text",
        title: "same text twice",
        reply: (ctx) =>
          ctx.step === 0
            ? { content: [{ type: "text", text: "Looking." }, { type: "tool_use", name: "t", input: {} }] }
            : { content: [{ type: "text", text: "Looking." }], stop_reason: "end_turn" },
      },
    });
    const history: Anthropic.MessageParam[] = [{ role: "user", content: "go" }];
    const tools: Anthropic.Tool[] = [{ name: "t", input_schema: { type: "object" } }];
    const first = await llm.client.messages.create({ model: llm.model, max_tokens: 100, tools, messages: history });
    history.push({ role: "assistant", content: first.content });
    const id = first.content.find((b) => b.type === "tool_use")!.id;
    history.push({ role: "user", content: [{ type: "tool_result", tool_use_id: id, content: "ok" }] });
    const second = await llm.client.messages.create({ model: llm.model, max_tokens: 100, tools, messages: history });
    history.push({ role: "assistant", content: second.content });
    expect(checkTranscript(history, { responses: llm.scripted.responses })).toEqual([]);
    // …while a turn that really changed is still caught.
    history[3] = { role: "assistant", content: [{ type: "text", text: "Changed." }, ...second.content] };
    expect(checkTranscript(history, { responses: llm.scripted.responses }).map((v) => v.rule)).toContain("not-verbatim");
  });
});
