/**
 * Set-up shared by the lesson test files: lesson output silenced while the file runs, and the
 * scratch folders its tests create removed at the end.
 */
import { rm } from "node:fs/promises";
import { afterAll, beforeAll } from "vitest";
import { z } from "zod";
import { quietOutput } from "../runtime/testing.ts";
import { defineTool } from "../solutions/s04_tool_errors/define-tool.ts";

/** Call once at the top of a test file; returns `keep(root)`, which registers a scratch folder. */
export function quietLessonFile(): (root: string) => string {
  let restore = () => {};
  const roots: string[] = [];
  beforeAll(() => {
    restore = quietOutput();
  });
  afterAll(async () => {
    restore();
    await Promise.all(roots.map((r) => rm(r, { recursive: true, force: true })));
  });
  return (root) => {
    roots.push(root);
    return root;
  };
}

// ── the stop reasons, before s05 makes them outcomes ─────────────────────────────────────────

import type Anthropic from "@anthropic-ai/sdk";
import { call, text } from "../runtime/scripted/scenarios/script.ts";
import type { Scenario } from "../runtime/scripted/types.ts";
import { resultsIn, rule, scripted } from "../runtime/testing.ts";

/** The stop reasons that end the loop of s01–s04 (any stop_reason but tool_use). */
export const OTHER_STOPS = ["max_tokens", "stop_sequence", "refusal", "pause_turn"] as const;

/** One response that ends with `stop`, a tool_use in it (which must not run). */
export function stopsWith(stop: string, tool = "bash", input: Record<string, unknown> = { command: "echo ran-anyway" }): Scenario {
  return {
    id: `test-stop-${stop}`,
    title: `one response with stop_reason ${stop}`,
    reply: () => ({
      content: [text(`Stopping (${stop}).`), call(tool, input)],
      stop_reason: stop,
      ...(stop === "stop_sequence" ? { stop_sequence: "###" } : {}),
      ...(stop === "refusal" ? { stop_details: { type: "refusal" as const, category: null, explanation: null } } : {}),
    }),
  };
}

/**
 * Runs a loop of s01–s04 on one response with stop_reason `stop`: it must return after that one
 * request, without running the tool_use in it.
 */
export async function expectStopsAt(stop: string, loop: (llm: ReturnType<typeof scripted>, history: Anthropic.MessageParam[]) => Promise<unknown>, tool?: string, input?: Record<string, unknown>) {
  const llm = scripted({ maxRequests: 6, scenario: stopsWith(stop, tool, input) });
  const history: Anthropic.MessageParam[] = [{ role: "user", content: "stop" }];
  let thrown: unknown;
  try {
    await loop(llm, history);
  } catch (e) {
    thrown = e;
  }
  const requests = llm.scripted.exchanges.length;
  rule(!history.some((m) => resultsIn(m).length > 0), "tools-only-on-tool-use", `the response's stop_reason was "${stop}" and the loop ran its tool_use anyway: only "tool_use" asks for tools (a ${stop} response may hold a cut-off or unfinished call). Return instead.`);
  rule(requests === 1, "stop-when-done", `after a "${stop}" response the loop made ${requests} requests: any stop_reason but "tool_use" ends the loop in this lesson.`);
  rule(!thrown, "loop-threw", () => `the loop threw on a "${stop}" response: ${(thrown as Error)?.message ?? String(thrown)}`);
}

// ── a loop that throws ───────────────────────────────────────────────────────────────────────

import Anthropic_ from "@anthropic-ai/sdk";
import { ToolError } from "../runtime/tools/files.ts";
import { RuleError, errorText, messageTable, textIn } from "../runtime/testing.ts";
import type { RuleId } from "../runtime/rules.ts";

/**
 * The rule a loop broke by throwing (not an API refusal, which the transcript explains): a throw
 * naming an unknown tool, a tool's own failure escaping, or else `fallback`.
 */
export function thrownRule(e: unknown, fallback: RuleId = "tool-failure-observed"): RuleError | undefined {
  if (e instanceof Anthropic_.APIError || e instanceof RuleError) return undefined;
  const msg = errorText(e);
  const id: RuleId = /unknown tool|no tool|not a tool/i.test(msg) ? "unknown-tool" : e instanceof ToolError ? "tool-failure-observed" : fallback;
  const what = id === "unknown-tool" ? "a call to a tool that does not exist" : "a tool that failed";
  return new RuleError(id, `the loop threw on ${what}: ${msg}. A tool call is answered with a tool_result (is_error: true and the reason), never thrown: the loop goes on and the model reads the error.`);
}

/** Wraps a loop so a throw of its own (not the API's) fails with the rule it breaks; driveLoop passes a RuleError through. */
export function naming<T>(loop: () => Promise<T>, fallback?: RuleId): () => Promise<T> {
  return async () => {
    try {
      return await loop();
    } catch (e) {
      throw thrownRule(e, fallback) ?? e;
    }
  };
}

/** Runs a property's checks on a loop's history; a broken rule carries the transcript as a message table. */
export async function withTranscript<T>(history: Anthropic.MessageParam[], checks: () => Promise<T> | T): Promise<T> {
  try {
    return await checks();
  } catch (e) {
    if (!(e instanceof RuleError)) throw e;
    throw new RuleError(e.rule, `${e.message.replace(/^\[[a-z0-9-]+\] /, "")}\n${messageTable(history)}`);
  }
}

// ── values in a check's words ────────────────────────────────────────────────────────────────

/** Text cut to `n` characters, with an ellipsis when it was longer. */
export const clip = (text: string, n: number) => (text.length > n ? `${text.slice(0, n)}…` : text);

/** Any value as short JSON, for a sentence. */
export const show = (v: unknown, n = 120) => {
  const s = JSON.stringify(v) ?? String(v);
  return s.length > n ? clip(s, n - 1) : s;
};

/** A tool_result in a few words: its id, is_error, and its content's first line. */
export const brief = (r: Anthropic.ToolResultBlockParam | undefined) =>
  r ? `a tool_result for ${r.tool_use_id}${r.is_error ? " (is_error)" : " (no is_error)"} saying ${show(textIn(r.content).split("\n")[0] ?? "", 90)}` : "nothing";

/**
 * A program's run (the final agent's `run`) that should end with exit code `want`: otherwise the
 * rule "final-agent", with the code it gave and the end of its transcript, and what to look at.
 */
export function expectExit(result: { exitCode: number; history?: Anthropic.MessageParam[] }, want: number, what: string): void {
  const last = result.history?.at(-1);
  rule(
    result.exitCode === want,
    "final-agent",
    () =>
      `${what}: the program exited ${result.exitCode}, not ${want}${last ? `; its last message (${last.role}) says ${show(textIn(last.content), 160)}` : ""}. ` +
      (want === 0 ? "A run that ends done exits 0: see which guard or error stopped it (npm run lesson … -- --verbose)." : "A mistake in the flags is one line on stderr and exit 2, before anything runs."),
  );
}

/**
 * Runs `check` twice: with the OS sandbox as the machine has it ("on"), then with it off
 * (COURSE_SANDBOX=off, the policy layer alone); the variable is put back however it ends.
 */
export async function inSandboxModes(check: (sandbox: "on" | "off") => Promise<void>): Promise<void> {
  const saved = process.env.COURSE_SANDBOX;
  const restore = () => {
    if (saved === undefined) delete process.env.COURSE_SANDBOX;
    else process.env.COURSE_SANDBOX = saved;
  };
  try {
    for (const sandbox of ["on", "off"] as const) {
      if (sandbox === "off") process.env.COURSE_SANDBOX = "off";
      else restore();
      await check(sandbox);
    }
  } finally {
    restore();
  }
}

// ── a request the API refused ────────────────────────────────────────────────────────────────

import { checkTranscript } from "../runtime/transcript.ts";
import { ruleOfApiMessage } from "../runtime/rules.ts";

/**
 * When a loop threw because the API refused its last request (not a fault a test asked for), the
 * rule that request broke, in the checker's words (the transcript it sent), else the API's.
 * Undefined for any other throw: a tool's own failure is the test's to name.
 */
export function refusedRequest(llm: ReturnType<typeof scripted>, e: unknown): RuleError | undefined {
  const last = llm.scripted.exchanges.at(-1);
  if (!(e instanceof Anthropic_.APIError) || !last?.error || last.fault) return undefined;
  const sent = (last.request as { messages?: Anthropic.MessageParam[] } | undefined)?.messages;
  const first = Array.isArray(sent) ? checkTranscript(sent, { responses: llm.scripted.responses })[0] : undefined;
  const n = llm.scripted.exchanges.length;
  if (first) return new RuleError(first.rule as RuleId, `request ${n} the loop sent: ${first.message} (the API refused it: ${last.error.message})`);
  return new RuleError(ruleOfApiMessage(last.error.message), `the API refused request ${n} the loop sent: ${last.error.message}`);
}

/**
 * A read-only test spy named "read" (input { n }) that runs until its signal aborts (or its 2 s
 * timeout): it logs "start read N" and "end read N", each followed by `at()` (say, the requests
 * sent so far). A loop that must stop a call started early shows it by the "end" line.
 */
export function readUntilStopped(log: string[], at: () => string = () => "") {
  return defineTool({
    name: "read",
    description: "read (test spy): runs until stopped",
    input: z.object({ n: z.number() }),
    readOnly: true,
    timeoutMs: 2_000,
    run: ({ n }, { signal }) =>
      new Promise<string>((resolve) => {
        log.push(`start read ${n}${at()}`);
        const end = () => (log.push(`end read ${n}${at()}`), resolve(`read ${n} ok`));
        if (signal.aborted) end();
        else signal.addEventListener("abort", end, { once: true });
      }),
  });
}

import { readFileSync } from "node:fs";
import { join } from "node:path";
import { finalAgent } from "../runtime/registrations.ts";
import { ROOT } from "../runtime/testing.ts";

/**
 * `npm run agent` runs the final agent through one indirection (package.json → scripts/agent.ts →
 * the last course.json with an "agent" field), so no lesson's test names the folder it runs: a
 * lesson checks that it is its own program or a later lesson's (`from`: its number).
 */
export function checkFinalAgent(from: number, lesson: string): void {
  const script = JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8")).scripts.agent as string;
  // node itself with tsx as its loader, so a signal reaches the agent (tsx's own wrapper would SIGKILL it).
  rule(script === "node --import tsx scripts/agent.ts", "final-agent", `package.json's agent script is "${script}": it runs node --import tsx scripts/agent.ts, which runs the program of the last lesson whose course.json says "agent": "program.ts".`);
  const agent = finalAgent();
  rule(Number(agent.id.slice(1)) >= from, "final-agent", `npm run agent runs ${agent.program}: it should run ${lesson}'s program, or a later lesson's that extends it (course.json "agent": "program.ts").`);
}
