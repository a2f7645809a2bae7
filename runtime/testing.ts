/**
 * What the lesson tests share: which tree is graded, how a lesson module is loaded, a scripted
 * client, and "can this transcript be sent again". One set of builders, no copied fixtures.
 *
 *   COURSE_TREE=solutions (default, `npm test`) or COURSE_TREE=lessons (`npm run check`).
 *   COURSE_TREE_DIR=/abs/dir (optional): a folder laid out like solutions/, graded instead.
 */
import { existsSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import type Anthropic from "@anthropic-ai/sdk";
import { scriptedLlm } from "./client.ts";
import { TodoError } from "./lesson.ts";
import { output } from "./print.ts";
import type { ScriptedModel, ScriptedModelOptions } from "./scripted/model.ts";
import { checkTranscript, formatViolations, type CheckOptions } from "./transcript.ts";

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
  return scriptedLlm({ maxRequests: 50, ...options }, { maxRetries: client.maxRetries ?? 0, ...(client.timeout ? { timeout: client.timeout } : {}) });
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
      { headers: { "x-scripted-scenario": "echo" }, maxRetries: 0 },
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

/**
 * Runs a loop on `history` and fails with one readable message when it goes wrong: when the loop
 * throws (say the API refused a broken transcript), the message has the API's words AND the
 * checker's verdict on the transcript as the loop left it; when it returns, the transcript must
 * keep every rule and be sendable again (`transcriptProblems`).
 */
export async function driveLoop<T>(
  llm: { client: Anthropic; model: string; scripted?: ScriptedModel },
  history: Anthropic.MessageParam[],
  loop: () => Promise<T>,
  opts: CheckOptions = {},
): Promise<T> {
  let result: T;
  try {
    result = await loop();
  } catch (e) {
    if (e instanceof TodoError) throw e; // an unsolved exercise: the TODO says it all
    const violations = checkTranscript(history, { responses: llm.scripted?.responses, ...opts });
    const verdict = violations.length > 0 ? `\n${formatViolations(violations)}` : "";
    throw new Error(`the loop failed: ${errorText(e)}${verdict}`, { cause: e });
  }
  const problems = await transcriptProblems(llm, history, opts);
  if (problems) throw new Error(problems);
  return result;
}
