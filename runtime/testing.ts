/**
 * What the lesson tests share: which tree is graded, how a lesson module is loaded, a scripted
 * client, and "can this transcript be sent again". One set of builders, no copied fixtures.
 *
 *   COURSE_TREE=solutions (default, `npm test`) or COURSE_TREE=lessons (`npm run check`).
 *   COURSE_TREE_DIR=/abs/dir (optional): a folder laid out like solutions/, graded instead.
 */
import { existsSync, renameSync, writeFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import type Anthropic from "@anthropic-ai/sdk";
import fc from "fast-check";
import { scriptedLlm } from "./client.ts";
import { withinRunningTime } from "./clock.ts";
import { TodoError } from "./lesson.ts";
import { output } from "./print.ts";
import type { ScriptedModel, ScriptedModelOptions } from "./scripted/model.ts";
import { checkTranscript, formatViolations, type CheckOptions } from "./transcript.ts";
import { isRuleId, ruleOfApiMessage, type RuleId } from "./rules.ts";

// ── content by shape ────────────────────────────────────────────────────────────────────────
// The API takes a user message's content as a string OR an array of blocks, and a tool_result's
// content as a string OR an array of text (and image) blocks. The grading reads every one of
// them through these helpers, never with String(content) or `typeof content === "string"`.

type AnyBlock = { type: string; [k: string]: unknown };
type AnyContent = string | readonly unknown[] | undefined | null;

/** The blocks of any content: a string is one text block. */
export function blocksIn(content: AnyContent | unknown): AnyBlock[] {
  if (typeof content === "string") return content.length > 0 ? [{ type: "text", text: content }] : [];
  return Array.isArray(content) ? (content as AnyBlock[]).filter((b) => b && typeof b === "object") : [];
}

/**
 * The text of any content, whatever its shape: a string, text blocks, or (nested) the content of
 * tool_result blocks. Text blocks are joined with a newline.
 */
export function textIn(content: AnyContent | unknown): string {
  return blocksIn(content)
    .map((b) => (b.type === "text" && typeof b.text === "string" ? b.text : b.type === "tool_result" ? textIn(b.content) : ""))
    .filter((t) => t.length > 0)
    .join("\n");
}

/** The tool_result blocks of a message (any shape; none when content is a string). */
export function resultsIn(m: { content: unknown } | undefined): Anthropic.ToolResultBlockParam[] {
  return blocksIn(m?.content).filter((b) => b.type === "tool_result") as unknown as Anthropic.ToolResultBlockParam[];
}

/** The tool_use blocks of a message. */
export function callsIn(m: { content: unknown } | undefined): Anthropic.ToolUseBlock[] {
  return blocksIn(m?.content).filter((b) => b.type === "tool_use") as unknown as Anthropic.ToolUseBlock[];
}

/** The tool_result that answers `id`, wherever it is in the history (results may come in any order). */
export function resultFor(history: readonly { content: unknown }[], id: string): Anthropic.ToolResultBlockParam | undefined {
  for (const m of history) {
    const r = resultsIn(m).find((b) => b.tool_use_id === id);
    if (r) return r;
  }
  return undefined;
}

/** The text blocks a user wrote (string content or text blocks; not the text inside tool results). */
export function userTexts(history: readonly { role: string; content: unknown }[]): string[] {
  return history.filter((m) => m.role === "user").flatMap((m) => blocksIn(m.content).flatMap((b) => (b.type === "text" && typeof b.text === "string" ? [b.text] : [])));
}

// ── rules ───────────────────────────────────────────────────────────────────────────────────

/**
 * A broken rule, in words for the learner: "[rule-id] what is wrong and what to do". The rule id
 * is a key of runtime/rules.ts, whose explanation and fix `npm run check` prints beside it.
 */
export class RuleError extends Error {
  readonly rule: RuleId;
  constructor(rule: RuleId, sentence: string, options?: { cause?: unknown }) {
    super(`[${rule}] ${sentence}`, options);
    this.name = "RuleError";
    this.rule = rule;
  }
}

/** Fails the test with the rule's id and a sentence for the learner when `ok` is false. */
export function rule(ok: unknown, id: RuleId, sentence: string | (() => string)): asserts ok {
  if (!ok) throw new RuleError(id, typeof sentence === "function" ? sentence() : sentence);
}

/** The API's own message for an SDK error (or the error's message). */
export function errorText(e: unknown): string {
  const err = e as { error?: { error?: { message?: string } }; message?: string };
  return err?.error?.error?.message ?? err?.message ?? String(e);
}

export const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "..");

export type Tree = "lessons" | "solutions";

export function gradedTree(): Tree {
  const t = process.env.COURSE_TREE ?? "solutions";
  if (t !== "lessons" && t !== "solutions") throw new Error(`COURSE_TREE must be "lessons" or "solutions", not "${t}"`);
  return t;
}

/**
 * COURSE_TREE_DIR (optional): an absolute path to a folder laid out like solutions/ that
 * loadLesson reads instead of lessons/ or solutions/ (`npm run verify` grades mutants this way).
 */
export function gradedTreeDir(): string | undefined {
  const dir = process.env.COURSE_TREE_DIR;
  return dir ? resolve(dir) : undefined;
}

/** Loads `<tree>/<lessonDir>/<file>` from the graded tree (or from COURSE_TREE_DIR when set). */
export async function loadLesson<T>(lessonDir: string, file = "agent.ts"): Promise<T> {
  const dir = gradedTreeDir();
  const path = join(dir ?? join(ROOT, gradedTree()), lessonDir, file);
  if (dir && !existsSync(path)) throw new Error(`${path} is missing (COURSE_TREE_DIR=${dir})`);
  if (!existsSync(path)) throw new Error(`${gradedTree()}/${lessonDir}/${file} is missing: restore it with \`npm run reset\``);
  return (await import(pathToFileURL(path).href)) as T;
}

/** A client on a fresh scripted model. Retries off unless asked: tests see every failure. */
export function scripted(options: ScriptedModelOptions = {}, client: { maxRetries?: number; timeout?: number } = {}) {
  const llm = scriptedLlm({ maxRequests: 50, ...options }, { maxRetries: client.maxRetries ?? 0, ...(client.timeout ? { timeout: client.timeout } : {}) });
  lastModel = llm.scripted;
  // Each answered request leaves a heartbeat: a loop that then blocks the process is reported
  // with the last request it made.
  const model = llm.scripted;
  const sdk = llm.client.withOptions({
    fetch: async (input: string | URL | Request, init?: RequestInit) => {
      const response = await model.fetch(input, init);
      heartbeat();
      return response;
    },
  });
  return { ...llm, client: sdk };
}

// ── a loop that does not return ───────────────────────────────────────────────────────────────

/** The scripted model of the test running now: its last request is what a hung loop sent last. */
let lastModel: ScriptedModel | undefined;
/** Set when a loop of this test file did not return: the file's other tests are skipped. */
let hungAt: string | undefined;

/** How long driveLoop waits for a loop (below the runner's own test timeout). */
export const LOOP_TIMEOUT_MS = Number(process.env.COURSE_LOOP_TIMEOUT_MS) || 12_000;

/** One line about a request: its messages' roles and what the last one carries. */
export function describeRequest(body: unknown): string {
  const messages = (body as { messages?: { role: string; content: unknown }[] } | undefined)?.messages;
  if (!Array.isArray(messages)) return "(a request with no messages)";
  const last = messages[messages.length - 1];
  const kinds = last ? blocksIn(last.content).map((b) => (b.type === "tool_result" ? `tool_result for ${String(b.tool_use_id)}` : b.type)) : [];
  const roles = messages.map((m) => m.role);
  const shown = roles.length <= 6 ? roles.join(", ") : `${roles.slice(0, 2).join(", ")}, … ${roles.slice(-2).join(", ")}`;
  return `${messages.length} message(s) [${shown}]; the last is a ${last?.role ?? "?"} message with ${kinds.join(", ") || "no blocks"}`;
}

function lastRequestLine(model: ScriptedModel | undefined): string {
  const ex = model?.exchanges ?? [];
  if (ex.length === 0) return "It made no request at all: it is stuck before its first call (an await that never finishes, or a loop with no exit).";
  return `It made ${ex.length} request(s); the last one: ${describeRequest(ex[ex.length - 1]!.request)}.`;
}

/** The file's remaining tests are skipped once one loop hung: one cause, said once. */
if (process.env.VITEST) {
  const { beforeEach, afterEach } = await import("vitest");
  beforeEach((ctx) => {
    lastModel = undefined;
    heartbeat(true);
    if (hungAt) ctx.skip();
  });
  afterEach((ctx) => {
    heartbeat(false);
    const errors = ctx.task.result?.errors ?? [];
    if (!hungAt && errors.some((e) => /timed out|\[loop-did-not-return\]/i.test(String(e?.message))))
      hungAt = ctx.task.name;
  });
}

/**
 * COURSE_HEARTBEAT_FILE (set by `npm run check`): written at each test's start and end and at
 * each request, so a check can tell a loop that blocks the process (a `while (true)` with no
 * await) from a slow test, and say what the loop sent last.
 */
function heartbeat(inTest = true): void {
  const file = process.env.COURSE_HEARTBEAT_FILE;
  if (!file) return;
  try {
    // inTest: a test is running (only then can silence mean a loop that blocks the process).
    const line = lastModel ? lastRequestLine(lastModel) : "";
    // Written whole, then moved into place: the watchdog never reads half a beat.
    const tmp = `${file}.${process.pid}.tmp`;
    writeFileSync(tmp, JSON.stringify({ at: Date.now(), last: line, inTest }));
    renameSync(tmp, file);
  } catch {
    /* only a diagnosis aid */
  }
}

/** Silences lesson output for the duration of a test file (call in beforeAll/afterAll). */
export function quietOutput(): () => void {
  const original = output.write;
  output.write = () => {};
  return () => {
    output.write = original;
  };
}

/**
 * Would the API accept this transcript as the next request? Asks the same scripted model (so it
 * remembers the thinking blocks it sent) through the real SDK. Returns the API's error text or null.
 */
export async function sendAgainError(llm: { client: Anthropic; model: string }, messages: Anthropic.MessageParam[]): Promise<string | null> {
  // A transcript that ends with the assistant's answer is complete; the next request adds a user turn.
  const last = messages[messages.length - 1];
  const next: Anthropic.MessageParam[] =
    last && last.role === "assistant" ? [...messages, { role: "user", content: "Go on." }] : [...messages];
  try {
    await llm.client.messages.create(
      { model: llm.model, max_tokens: 64, messages: next },
      // The model's set latency is for the loop's requests; this probe is the grader's own.
      { headers: { "x-scripted-scenario": "echo", "x-scripted-latency-ms": "0" }, maxRetries: 0 },
    );
    return null;
  } catch (e) {
    return errorText(e);
  }
}

/** Transcript rules and "sendable again" together, as one readable failure message (or null). */
export async function transcriptProblems(
  llm: { client: Anthropic; model: string; scripted?: ScriptedModel },
  messages: Anthropic.MessageParam[],
  opts: CheckOptions = {},
): Promise<string | null> {
  const violations = checkTranscript(messages, { responses: llm.scripted?.responses, ...opts });
  if (violations.length > 0) return formatViolations(violations);
  const api = await sendAgainError(llm, messages);
  return api ? `the transcript cannot be sent again; the API answers: ${api}` : null;
}

/** Fails with the first broken pairing rule (its id and words; the others listed after it). */
export function expectTranscriptRules(messages: Anthropic.MessageParam[], opts: CheckOptions = {}): void {
  const violations = checkTranscript(messages, opts);
  if (violations.length === 0) return;
  const more = violations.length > 1 ? `\n${formatViolations(violations.slice(1))}` : "";
  throw new RuleError(violations[0]!.rule as RuleId, `${violations[0]!.message}${more}`);
}

/** No request the loop sent was refused by the API (a REPL may catch the refusal and go on). */
export function expectAccepted(llm: { scripted?: ScriptedModel }): void {
  const refused = (llm.scripted?.exchanges ?? []).findIndex((e) => e.error && !e.fault);
  if (refused < 0) return;
  const msg = llm.scripted!.exchanges[refused]!.error!.message;
  const rule = ruleOfApiMessage(msg);
  throw new RuleError(rule === "api-rejected" ? "api-rejected" : rule, `the API refused request ${refused + 1} the loop sent: ${msg}`);
}

/**
 * Every request the loop sent carried the model's earlier turns unchanged (thinking blocks and
 * signatures included): a loop that keeps its history whole but strips or edits what it SENDS
 * fails here, naming the request.
 */
export function expectVerbatimRequests(llm: { scripted?: ScriptedModel }): void {
  const exchanges = llm.scripted?.exchanges ?? [];
  const responses = llm.scripted?.responses ?? [];
  exchanges.forEach((ex, n) => {
    const sent = (ex.request as { messages?: Anthropic.MessageParam[] } | undefined)?.messages;
    if (!Array.isArray(sent)) return;
    const earlier = responses.slice(0, exchanges.slice(0, n).filter((e) => e.response).length);
    const bad = checkTranscript(sent, { responses: earlier }).find((v) => v.rule === "not-verbatim");
    if (bad) throw new RuleError("not-verbatim", `request ${n + 1} the loop sent: ${bad.message}`);
  });
}

/** The transcript keeps every rule AND the API takes it again as the next request; else fails in words. */
export async function expectSendable(
  llm: { client: Anthropic; model: string; scripted?: ScriptedModel },
  messages: Anthropic.MessageParam[],
  opts: CheckOptions = {},
): Promise<void> {
  expectTranscriptRules(messages, { responses: llm.scripted?.responses, ...opts });
  expectVerbatimRequests(llm);
  const api = await sendAgainError(llm, messages);
  if (api) throw new RuleError(againRule(api), `the history the loop left cannot be sent again; the API answers: ${api}`);
}

const againRule = (api: string): RuleId => {
  const r = ruleOfApiMessage(api);
  return r === "api-rejected" ? "sendable-again" : r;
};

/**
 * Runs a loop on `history` and fails with one readable message when it goes wrong, the cause
 * first: the loop did not return (with the last request it made) → the history did not grow →
 * an assistant turn is missing → the pairing rules (the API's words and the checker's verdict) →
 * the transcript cannot be sent again.
 */
export async function driveLoop<T>(
  llm: { client: Anthropic; model: string; scripted?: ScriptedModel },
  history: Anthropic.MessageParam[],
  loop: () => Promise<T>,
  opts: CheckOptions & { timeoutMs?: number } = {},
): Promise<T> {
  const before = history.length;
  const snapshot = JSON.stringify(history);
  const answeredBefore = llm.scripted?.responses.length ?? 0;
  let result: T;
  const ms = opts.timeoutMs ?? LOOP_TIMEOUT_MS;
  try {
    const watching = llm.scripted;
    const progress = setInterval(() => watching && heartbeat(), 1000);
    try {
      // The limit counts the time this process ran, not the wall clock's (runtime/clock.ts).
      result = await withinRunningTime(loop(), ms, () => new LoopTimeout(ms));
    } finally {
      clearInterval(progress);
    }
  } catch (e) {
    if (e instanceof TodoError) throw e; // an unsolved exercise: the TODO says it all
    if (e instanceof RuleError) throw e; // the test's loop callback has already named the rule
    if (e instanceof LoopTimeout) {
      hungAt ??= "driveLoop";
      throw new RuleError("loop-did-not-return", `the loop did not return within ${Math.round(ms / 1000)} s. ${lastRequestLine(llm.scripted)}`);
    }
    const growth = growthProblem(llm, history, before, snapshot, answeredBefore);
    if (growth) throw growth;
    const exhausted = llm.scripted?.exchanges.at(-1)?.error?.message?.includes("requests already answered");
    if (exhausted)
      throw new RuleError(
        "stop-when-done",
        `the loop kept calling the model: ${llm.scripted!.exchanges.length} requests, and the model had stopped asking for tools. ${lastRequestLine(llm.scripted)} Return when stop_reason is not "tool_use".`,
        { cause: e },
      );
    const wentOn = keptGoing(llm, history);
    if (wentOn) throw new RuleError("stop-when-done", `${wentOn} (the API refused the next request: ${errorText(e)})`, { cause: e });
    const violations = checkTranscript(history, { responses: llm.scripted?.responses, ...opts });
    if (violations.length > 0) {
      const first = violations[0]!;
      const more = violations.length > 1 ? `\n${formatViolations(violations.slice(1))}` : "";
      throw new RuleError(first.rule as RuleId, `${first.message} (the API refused the next request: ${errorText(e)})${more}`, { cause: e });
    }
    // The API refused a request whose history keeps every pairing rule: a field it does not take
    // in a message or block (messages.N…), or in the request's other parts (tools.N…, system…,
    // tool_choice…). The API's words name it. (A lesson whose own idea the refusal is about, such
    // as s13's cache markers, names it in its test's callback, before this.)
    const refused = llm.scripted?.exchanges.at(-1)?.error;
    if (refused && !llm.scripted!.exchanges.at(-1)!.fault && errorText(e).includes(refused.message)) {
      const id = ruleOfApiMessage(refused.message);
      const part = /^(messages|tools|system|tool_choice|thinking|metadata|stop_sequences|max_tokens|model)\b/.exec(refused.message)?.[1];
      const advice =
        part === "messages" || part === undefined
          ? "Send only what the SDK's types describe: each message { role, content }, each block with its own fields."
          : part === "tools"
            ? "Send each tool as the SDK's Anthropic.Tool type describes it: { name, description, input_schema } (and cache_control), nothing of your own."
            : `Send \`${part}\` as the SDK's types describe it (Anthropic.MessageCreateParams).`;
      throw new RuleError(id, `the API refused request ${llm.scripted!.exchanges.length} the loop sent: ${refused.message}. ${advice}`, { cause: e });
    }
    throw new Error(`the loop failed: ${errorText(e)}`, { cause: e });
  }
  const growth = growthProblem(llm, history, before, snapshot, answeredBefore);
  if (growth) throw growth;
  const wentOn = keptGoing(llm, history);
  if (wentOn) throw new RuleError("stop-when-done", wentOn);
  const violations = checkTranscript(history, { responses: llm.scripted?.responses, ...opts });
  if (violations.length > 0) {
    const first = violations[0]!;
    const more = violations.length > 1 ? `\n${formatViolations(violations.slice(1))}` : "";
    throw new RuleError(first.rule as RuleId, `${first.message}${more}`);
  }
  expectVerbatimRequests(llm);
  const api = await sendAgainError(llm, history);
  if (api) throw new RuleError(againRule(api), `the history the loop left cannot be sent again; the API answers: ${api}`);
  return result;
}

/**
 * A loop with no stop check goes on after the model's final answer: the empty message it then
 * stores (nothing to answer, no results) is the symptom the API refuses, the missing stop its cause.
 * Said first, so the fix is the stop, not leaving out the message (which would make the bug a
 * silent endless loop). The sentence, or undefined when no end_turn answer was followed so.
 */
function keptGoing(llm: { scripted?: ScriptedModel }, history: Anthropic.MessageParam[]): string | undefined {
  const responses = llm.scripted?.responses ?? [];
  const isEmpty = (m: Anthropic.MessageParam) => m.role === "user" && (typeof m.content === "string" ? m.content.trim() === "" : m.content.length === 0);
  for (const [n, r] of responses.entries()) {
    if (r.stop_reason !== "end_turn") continue;
    const at = history.findIndex((m) => m.role === "assistant" && JSON.stringify(m.content) === JSON.stringify(r.content));
    const after = at >= 0 ? history.slice(at + 1) : [];
    if (after.length > 0 && after.every(isEmpty))
      return `response ${n + 1} ended with stop_reason "end_turn" (history[${at}]), and the loop went on: it stored an empty user message after it (no calls to answer, so no results) and asked again. Return when stop_reason is not "tool_use": an end_turn answer is the run's last turn, and then no empty message is ever made.`;
  }
  return undefined;
}

class LoopTimeout extends Error {
  constructor(ms: number) {
    super(`the loop did not return within ${ms} ms`);
  }
}

/**
 * The history must be the loop's record: it grew (the loop pushed onto the array it was given),
 * and every response whose calls were answered is in it as an assistant turn.
 */
function growthProblem(
  llm: { scripted?: ScriptedModel },
  history: Anthropic.MessageParam[],
  before: number,
  snapshot: string,
  answeredBefore = 0,
): RuleError | undefined {
  // Only the answers the loop itself asked for: a test may make a first call before it drives the loop.
  const responses = (llm.scripted?.responses ?? []).slice(answeredBefore);
  if (responses.length === 0) return undefined;
  if (history.length <= before && JSON.stringify(history) === snapshot)
    return new RuleError(
      "history-not-grown",
      `the model answered ${responses.length} time(s), but the history you were given still has its ${before} message(s): the loop must push each response (and its results) onto that same array.`,
    );
  const inHistory = new Set(history.filter((m) => m.role === "assistant").flatMap((m) => callsIn(m).map((c) => c.id)));
  const answered = new Set(history.flatMap((m) => resultsIn(m).map((r) => r.tool_use_id)));
  for (const [n, r] of responses.entries()) {
    const calls = r.content.filter((b) => b.type === "tool_use");
    const lost = calls.find((c) => answered.has(c.id) && !inHistory.has(c.id));
    // An assistant turn stands right before the results, without the calls: it was stored filtered, not lost.
    const answeredAt = lost ? history.findIndex((m) => resultsIn(m).some((x) => x.tool_use_id === lost.id)) : -1;
    const kept = answeredAt > 0 && history[answeredAt - 1]!.role === "assistant" ? answeredAt - 1 : -1;
    if (lost && kept >= 0)
      return new RuleError(
        "not-verbatim",
        `history[${kept}] is response ${n + 1}'s assistant turn without its tool_use block(s) (${calls.map((c) => `${c.id} (${c.name})`).join(", ")}), and history[${answeredAt}] answers them: store the response's content whole, { role: "assistant", content: response.content }, calls included.`,
      );
    if (lost)
      return new RuleError(
        "assistant-turn-missing",
        `response ${n + 1} asked for ${lost.id} (${lost.name}) and the history has its tool_result, but not the assistant turn that asked: push { role: "assistant", content: response.content } before the results.`,
      );
  }
  return undefined;
}

// ── properties ──────────────────────────────────────────────────────────────────────────────

/** The runner's vocabulary, never shown to a learner as the message. */
const RUNNER_TEXT = /\bexpected\b[\s\S]*\bto\b|Object\.is|Counterexample|toEqual|toBe\(/;

/** A transcript as a small table, one line per message: role and its blocks. */
export function messageTable(messages: readonly { role: string; content: unknown }[]): string {
  return messages
    .map((m, i) => {
      const blocks = blocksIn(m.content).map((b) => {
        if (b.type === "text") return `text ${JSON.stringify(String(b.text).slice(0, 30))}`;
        if (b.type === "tool_use") return `tool_use ${String(b.id)} (${String(b.name)})`;
        if (b.type === "tool_result") return `tool_result for ${String(b.tool_use_id)}${b.is_error ? " (error)" : ""}`;
        return b.type;
      });
      return `  messages[${i}] ${m.role.padEnd(9)} ${blocks.join(" · ") || "(empty)"}`;
    })
    .join("\n");
}

const looksLikeMessages = (v: unknown): v is { role: string; content: unknown }[] =>
  Array.isArray(v) && v.length > 0 && v.every((m) => m && typeof m === "object" && "role" in m && "content" in m);

function describeCase(args: readonly unknown[]): string {
  return args
    .map((a, i) => (looksLikeMessages(a) ? `${messageTable(a)}` : `  input ${i + 1}: ${JSON.stringify(a, (_k, v: unknown) => (typeof v === "bigint" ? String(v) : v))}`))
    .join("\n");
}

function propertyFailure(details: { failed: boolean; counterexample: unknown[] | null; numRuns: number; numShrinks: number; errorInstance?: unknown }, fallback: RuleId, says?: string): RuleError {
  const inner = details.errorInstance instanceof Error ? details.errorInstance.message : String(details.errorInstance ?? "");
  const named = /\[([a-z][a-z0-9-]*)\] ([^\n]*)/.exec(inner);
  const words = /^([\s\S]+?): expected /.exec(inner)?.[1];
  const rule = (named && isRuleId(named[1]!) ? named[1] : fallback) as RuleId;
  // A predicate that returns false has no words of its own: the property's `says` tells the learner what broke.
  const returnedFalse = inner === "" || /returning false/i.test(inner);
  const sentence = named ? named[2]! : words && !RUNNER_TEXT.test(words) ? words : says && returnedFalse ? says : RUNNER_TEXT.test(inner) ? "a case breaks this check" : inner.split("\n")[0]!;
  const table = details.counterexample ? describeCase(details.counterexample) : "";
  // A property that runs a loop may add the transcript it left (messageTable rows): kept, after the case.
  const rows = inner.split("\n").filter((l) => /^\s+messages\[\d+\] (user|assistant) /.test(l));
  const left = rows.length > 0 ? `\nthe transcript it left:\n${rows.join("\n")}` : "";
  return new RuleError(rule, `${sentence}\nthe smallest failing case (found after ${details.numRuns} run(s), shrunk ${details.numShrinks} time(s)):\n${table}${left}`);
}


/**
 * fast-check's assert, in words: a failing case is shrunk, then reported as the rule it breaks
 * (the inner failure's [rule-id], else `rule`) and the smallest case as a small message table.
 */
export function assertProperty<Ts extends unknown[]>(property: fc.IProperty<Ts>, params: fc.Parameters<Ts>, rule: RuleId, says?: string): void;
export function assertProperty<Ts extends unknown[]>(property: fc.IAsyncProperty<Ts>, params: fc.Parameters<Ts>, rule: RuleId, says?: string): Promise<void>;
export function assertProperty<Ts extends unknown[]>(
  property: fc.IProperty<Ts> | fc.IAsyncProperty<Ts>,
  params: fc.Parameters<Ts>,
  rule: RuleId,
  says?: string,
): void | Promise<void> {
  const out = fc.check(property as fc.IProperty<Ts>, params) as fc.RunDetails<Ts> | Promise<fc.RunDetails<Ts>>;
  const judge = (d: fc.RunDetails<Ts>) => {
    if (d.failed) throw propertyFailure(d as never, rule, says);
  };
  if (out instanceof Promise) return out.then(judge);
  judge(out);
}
