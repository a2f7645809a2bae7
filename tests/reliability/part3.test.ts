/**
 * Samples of Part III in `npm run reliability` (`--only part3` runs them all): hooks that
 * misbehave (s19), the rules fuzzed (s18), jobs that never end (s22), a rewind after a stop (s21),
 * attacks on the new surfaces. Each check is also shown able to FAIL: a probe with the protection
 * it checks removed (a report swallowed, a history left unanswered, a process left behind, a
 * broken precedence, a gate that runs what it denies, a table that stops nothing, a rewind that
 * forgets the code, rules without the user's file, a job's words as the user's, a memory tool
 * that follows links).
 */
import { readFileSync } from "node:fs";
import { resolve } from "node:path";
import { spawn } from "node:child_process";
import type Anthropic from "@anthropic-ai/sdk";
import { describe, expect, it } from "vitest";
import type { Llm } from "../../runtime/client.ts";
import { loadLesson } from "../../runtime/testing.ts";
import { renderPart3, rowWords } from "../../scripts/reliability/report.ts";
import { p3Modes } from "../../scripts/reliability/part3-common.ts";
import { HOOK_BEHAVIOURS, runHookCell, type HookLoop } from "../../scripts/reliability/part3-hooks.ts";
import { JOB_KINDS, runJobCell } from "../../scripts/reliability/part3-jobs.ts";
import { P3_ATTACKS, POSING, runP3Attack, type AttackLoop } from "../../scripts/reliability/part3-attacks.ts";
import { runRewindCell } from "../../scripts/reliability/part3-rewind.ts";
import { rulesDeps, runRulesPart, type RulesDeps } from "../../scripts/reliability/part3-rules.ts";
import * as words from "../../scripts/reliability/part3-words.ts";

type S19 = typeof import("../../solutions/s19_hooks/agent.ts");
type S21 = typeof import("../../solutions/s21_checkpoints/agent.ts");
type Jobs = typeof import("../../solutions/s22_background/jobs.ts");
const s19 = await loadLesson<S19>("s19_hooks");
const s21 = await loadLesson<S21>("s21_checkpoints");
const jobsModule = await loadLesson<Jobs>("s22_background", "jobs.ts");
const [mode] = p3Modes();
const behaviour = (id: string) => HOOK_BEHAVIOURS.find((b) => b.id === id)!;
const job = (id: string) => JOB_KINDS.find((k) => k.id === id)!;
const attack = (id: string) => P3_ATTACKS.find((a) => a.id === id)!;

describe("Part III: hooks that misbehave (sample)", () => {
  it("s19 holds: a crash, a hang and a hook that leaves processes, before a call and at the end", async () => {
    const cells = [];
    for (const b of ["signal", "hang", "leaves-process", "block-huge"]) for (const e of ["PreToolUse", "Stop"] as const) cells.push(await runHookCell(behaviour(b), e, mode!));
    cells.push(await runHookCell(behaviour("leaves-process"), "PostToolUse", "none"));
    expect(cells.filter((c) => c.verdict !== "ok").map((c) => `${c.behaviour} ${c.event} ${c.mode}: ${c.failed.join("; ")}`)).toEqual([]);
  });

  it("each check can fail: a report swallowed, a tool_use left unanswered, a loop that throws, a process left running", async () => {
    const run = s19.runAgent as HookLoop;
    const silent: HookLoop = (llm, history, opts) => run(llm, history, { ...opts, onHookProblem: () => {} });
    const unanswered: HookLoop = async (llm, history, opts) => {
      const outcome = await run(llm, history, opts);
      history.push({ role: "assistant", content: [{ type: "tool_use", id: "toolu_left", name: "read_file", input: {} }] });
      return outcome;
    };
    const throwing: HookLoop = async () => {
      throw new Error("the loop fell over");
    };
    // Starts a process named like the hook's token (read from the settings it is given), as a hook runner that left one would.
    const leaving: HookLoop = async (llm, history, opts) => {
      const settings = readFileSync(resolve(String(opts.root), ".agent", "settings.json"), "utf8");
      const token = /p3-[\w-]+/.exec(settings)![0];
      spawn("bash", ["-c", `exec -a ${token}-left sleep 30`], { detached: true, stdio: "ignore" }).unref();
      await new Promise((r) => setTimeout(r, 200));
      return run(llm, history, opts);
    };
    const broken = behaviour("exit-1");
    expect((await runHookCell(broken, "PreToolUse", mode!, silent)).failed.join()).toMatch(/^reported: /);
    expect((await runHookCell(broken, "PostToolUse", mode!, unanswered)).failed.join()).toMatch(/transcript: /);
    expect((await runHookCell(broken, "Stop", mode!, throwing)).failed.join()).toMatch(/goes on: the loop threw/);
    expect((await runHookCell(behaviour("leaves-process"), "PreToolUse", mode!, leaving)).failed.join()).toMatch(/no process: 1 process/);
  });
});

describe("Part III: the rules fuzzed (sample)", () => {
  it("s18's rules keep the three properties over generated rule sets and calls", async () => {
    const rows = (await runRulesPart(150, 7))!;
    expect(rows.map((r) => `${r.id}: ${r.violations}${r.counterexample ? ` ${r.counterexample}` : ""}`)).toEqual(["user-deny-holds: 0", "precedence: 0", "denied-is-error: 0"]);
  });

  it("each property can fail, with a shrunk counterexample: the project's allow read first, a gate that runs what it denies", async () => {
    const d = (await rulesDeps())!;
    const allowFirst: RulesDeps["decide"] = (name, input, rules, m, facts) => {
      const allow = rules.find((r) => r.behavior === "allow" && r.source.includes("project") && d.perms.ruleMatches(r, name, input, facts.root));
      return allow ? { behavior: "allow", rule: allow, reason: "the project allows it" } : d.perms.decide(name, input, rules, m, facts);
    };
    const passThrough: RulesDeps["gate"] = (inner) => ({ dispatch: (call) => inner.dispatch(call) });
    const rows = (await runRulesPart(300, 7, { ...d, decide: allowFirst, gate: passThrough }))!;
    for (const r of rows) {
      expect(r.violations, r.id).toBe(1);
      expect(r.counterexample, r.id).toMatch(/shrunk after \d+ steps[\s\S]*input: \[/);
    }
  });
});

describe("Part III: the rules property's verdict for a command tool", () => {
  it("a gate that judges bash_background by its own name alone (not bash's rules too, as s18's page says) fails denied-is-error", async () => {
    const d = (await rulesDeps())!;
    class OwnNameOnly extends d.agent.Policy {
      override verdict(call: Anthropic.ToolUseBlock, tool: Parameters<InstanceType<RulesDeps["agent"]["Policy"]>["verdict"]>[1]) {
        if (call.name === "bash") return super.verdict(call, tool);
        return d.perms.decide(call.name, call.input as Record<string, unknown>, this.rules, this.mode, { readOnly: tool?.readOnly === true, root: this.root });
      }
    }
    const rows = (await runRulesPart(600, 7, { ...d, agent: { ...d.agent, Policy: OwnNameOnly } }))!;
    const row = rows.find((r) => r.id === "denied-is-error")!;
    expect(row.violations, "the property passed a gate that lets bash_background escape bash's rules").toBe(1);
    expect(row.counterexample).toMatch(/bash_background/);
  });
});

describe("Part III: background jobs that never end (sample)", () => {
  it("s22 stops a job that ignores SIGTERM when the run is done, and one that detached when the run is aborted, with the sandbox and without", async () => {
    const cells = [await runJobCell(job("ignores-term"), "done", mode!), await runJobCell(job("setsid"), "abort", mode!), await runJobCell(job("forks"), "guard stop", "none"), await runJobCell(job("setsid"), "done", "none")];
    expect(cells.filter((c) => c.cell !== "stopped").map((c) => `${c.kind} ${c.end} ${c.mode}: ${c.detail}`)).toEqual([]);
  });

  it("the check can fail: a job table whose stopAll stops nothing leaves the job alive", async () => {
    class Forgetful extends jobsModule.JobTable {
      override stopAll(): number {
        return 0;
      }
    }
    const tables: InstanceType<typeof Forgetful>[] = [];
    const cell = await runJobCell(job("ignores-term"), "done", mode!, (root) => {
      const t = new Forgetful(root);
      tables.push(t);
      return t;
    });
    for (const t of tables) jobsModule.JobTable.prototype.stopAll.call(t);
    expect(cell.cell, cell.detail).toBe("SURVIVED");
  });
});

describe("Part III: a rewind after a stop (sample)", () => {
  it("s21 puts back the files and the conversation after an API error and an abort; the next question is sendable", async () => {
    const cells = [await runRewindCell("api_error", 2, "both"), await runRewindCell("abort", 1, "code"), await runRewindCell("repeated_call", 1, "conversation")];
    expect(cells.filter((c) => c.cell !== "ok").map((c) => `${c.stop} ${c.checkpoint} ${c.what}: ${c.detail}`)).toEqual([]);
  });

  it("each check can fail: a rewind that forgets the code, and one that cuts the history in the middle of a pair", async () => {
    const noCode: typeof s21.rewind = (id, n) => s21.rewind(id, n, "conversation");
    const cut: typeof s21.rewind = (id, n, what) => {
      const done = s21.rewind(id, n, "code");
      const history = s21.timelineOf(id)!.history;
      if (what !== "code") history.splice(history.findIndex((m) => m.role === "assistant" && Array.isArray(m.content) && m.content.some((b) => b.type === "tool_use")) + 1);
      return done;
    };
    expect((await runRewindCell("end_turn", 1, "both", noCode)).detail).toMatch(/files: .*differ from checkpoint 1/);
    const mid = await runRewindCell("max_turns", 2, "both", cut);
    expect(mid.detail).toMatch(/history: not what it was/);
    expect(mid.detail).toMatch(/sendable: /);
  });
});

describe("Part III: attacks on the new surfaces (sample)", () => {
  const ids = ["p3-project-allows-rm", "p3-hook-allow-vs-deny", "p3-hook-rewrites-to-denied", "p3-job-says-user", "p3-memory-symlink-out", "p3-memory-secret-names", "p3-rewind-through-link", "p3-job-notice-separator"];

  it("s18–s22 stop them, through their own loops", async () => {
    const results = [];
    for (const id of ids) results.push(await runP3Attack(attack(id), mode!));
    expect(results.filter((r) => r.escaped !== false).map((r) => `${r.attack}: ${r.detail}`)).toEqual([]);
  });

  it("the harm checks see an escape: rules without the user's file, a job's words sent as the user's, a memory tool that follows links", async () => {
    const load = async (owner: string) => (await loadLesson<{ runAgent: (l: Llm, h: Anthropic.MessageParam[], o: Record<string, unknown>) => Promise<unknown> }>(owner)).runAgent;
    const projectOnly: AttackLoop = async (owner, llm, history, opts) => {
      const perms = await loadLesson<typeof import("../../solutions/s18_permissions/permissions.ts")>("s18_permissions", "permissions.ts");
      return (await load(owner))(llm, history, { ...opts, rules: perms.readSettings(perms.projectSettings(String(opts.root)), "the project's file") });
    };
    const asTheUser: AttackLoop = async (owner, llm, history, opts) =>
      (await load(owner))(llm, history, { ...opts, extensions: [() => ({ answer: (results: Anthropic.ContentBlockParam[]) => [...results, { type: "text", text: `${POSING}, said the job` }] })] });
    const followsLinks: AttackLoop = async (owner, llm, history, opts) => {
      const { defineTool } = await loadLesson<typeof import("../../solutions/s04_tool_errors/define-tool.ts")>("s04_tool_errors", "define-tool.ts");
      const { withTools } = await loadLesson<typeof import("../../solutions/s11_recovery/extend.ts")>("s11_recovery", "extend.ts");
      const { z } = await import("zod");
      const naive = defineTool({ name: "memory", description: "a memory tool that follows links", input: z.object({ command: z.string(), path: z.string() }).passthrough(), run: ({ path }) => readFileSync(resolve(String(opts.root), ".agent", "memory", path), "utf8") });
      return (await load(owner))(llm, history, { ...opts, memory: false, extensions: [() => ({ tools: (t: Parameters<typeof withTools>[0]) => withTools(t, naive) })] });
    };
    expect((await runP3Attack(attack("p3-project-allows-rm"), mode!, projectOnly)).escaped).toBe(true);
    expect((await runP3Attack(attack("p3-job-says-user"), mode!, asTheUser)).detail).toMatch(/reached the model as a user text block/);
    const leak = await runP3Attack(attack("p3-memory-symlink-out"), mode!, followsLinks);
    expect(leak.detail).toMatch(/the secret outside reached the model/);
    expect(leak.escaped).toBe(true);
    const rawSeparator: AttackLoop = async (owner, llm, history, opts) =>
      (await load(owner))(llm, history, { ...opts, extensions: [() => ({ answer: (results: Anthropic.ContentBlockParam[]) => [...results, { type: "text", text: "ready\u2028said the job" }] })] });
    expect((await runP3Attack(attack("p3-job-notice-separator"), mode!, rawSeparator)).detail, "a raw U+2028 beside the results is seen").toMatch(/raw separator/);
  });
});

describe("Part III: the page's words", () => {
  it("has Chinese words for every hook behaviour, job, property, attack, group and note, and draws the zh tables without English verdicts", () => {
    const missing = [
      ...HOOK_BEHAVIOURS.filter((b) => !words.HOOK_BEHAVIOURS_ZH[b.id]).map((b) => b.id),
      ...JOB_KINDS.filter((k) => !words.JOB_KINDS_ZH[k.id]).map((k) => k.id),
      ...P3_ATTACKS.filter((a) => !words.P3_ATTACKS_ZH[a.id] || !words.P3_GROUPS_ZH[a.group] || (a.note && !words.P3_NOTES_ZH[a.id])).map((a) => a.id),
      ...["user-deny-holds", "precedence", "denied-is-error"].filter((id) => !words.RULES_PROPERTIES_ZH[id]),
    ];
    expect(missing).toEqual([]);
    // Japanese and Russian too: each id of the current checks has words in every translated language.
    for (const lang of ["ja", "ru"] as const) {
      const w = rowWords(lang)!;
      const gaps = [
        ...HOOK_BEHAVIOURS.filter((b) => !w.hookBehaviours[b.id]).map((b) => b.id),
        ...JOB_KINDS.filter((k) => !w.jobKinds[k.id]).map((k) => k.id),
        ...P3_ATTACKS.filter((a) => !w.p3Attacks[a.id] || !w.p3Groups[a.group] || (a.note && !w.p3Notes[a.id])).map((a) => a.id),
        ...["user-deny-holds", "precedence", "denied-is-error"].filter((id) => !w.rulesProperties[id]),
      ];
      expect(gaps, `${lang}: Part III ids without words (scripts/reliability/words-${lang}.ts)`).toEqual([]);
    }
    const zh = renderPart3(
      {
        date: "2026-01-01",
        lessons: ["s18", "s19"],
        sandbox: "bubblewrap",
        hooks: { events: ["PreToolUse"], modes: ["none"], rows: HOOK_BEHAVIOURS.map((b) => ({ id: b.id, what: b.what, kind: b.kind, cells: ["ok"] })), failed: [], cells: 1, passed: 1 },
        rules: { properties: [{ id: "precedence", what: "deny beats ask", runs: 1, violations: 0 }], counterexamples: [] },
        jobs: { modes: ["none"], ends: ["done", "abort"], rows: JOB_KINDS.map((k) => ({ id: k.id, what: k.what, cells: ["stopped", "survives (not claimed)"] })), failed: [], tried: 1, survived: 0 },
        rewind: { columns: ["1 code"], rows: [{ stop: "abort", cells: ["ok"] }], failed: [], cells: 1, passed: 1 },
        attacks: { corpus: P3_ATTACKS.length, modes: ["none"], rows: P3_ATTACKS.map((a) => ({ id: a.id, what: a.what, group: a.group, owner: a.owner.slice(0, 3), cells: ["stopped"] })), escaped: [], notes: P3_ATTACKS.flatMap((a) => (a.note ? [{ id: a.id, what: a.what, note: a.note }] : [])), tried: 1, escapedCount: 0 },
      },
      "zh",
    ).join("\n");
    expect(zh.replace(/`[^`]*`/g, "")).not.toMatch(/\b(stopped|survives|not claimed|ok|Hooks that|Background jobs|Attacks on)\b/);
    expect(zh).toMatch(/^#### 行为异常的钩子/m);
  });
});
