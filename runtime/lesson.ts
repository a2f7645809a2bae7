/**
 * Running a lesson file: `todo()` for the exercises, and `runMain()`, which runs `main()` when
 * the file is executed (not when a test imports it) and turns every error a learner can cause
 * into a short explanation instead of a stack trace.
 */
import { realpathSync } from "node:fs";
import { fileURLToPath } from "node:url";
import Anthropic from "@anthropic-ai/sdk";
import { CourseError } from "./env.ts";
import { TranscriptError } from "./transcript.ts";
import { red, yellow } from "./print.ts";

/** Thrown by `todo()`: the exercise still has work left at this point. */
export class TodoError extends Error {
  override name = "TodoError";
  constructor(readonly task: string) {
    super(`TODO left: ${task}`);
  }
}

/** Marks where a learner writes code. Replace the call with your code. */
export function todo(task: string): never {
  throw new TodoError(task);
}

/** Is this module the script being run (`tsx path/to/agent.ts`)? */
export function isMain(metaUrl: string): boolean {
  const entry = process.argv[1];
  if (!entry) return false;
  try {
    return realpathSync(entry) === realpathSync(fileURLToPath(metaUrl));
  } catch {
    return false;
  }
}

/** A plain-words explanation of an error, or null when it is not one a learner can fix. */
export function explainError(e: unknown): string | null {
  if (e instanceof TodoError) return `${e.message}\n  Fill it in (look for "// TODO:" in the file), then check it with \`npm run check\`.`;
  if (e instanceof CourseError) return e.message;
  if (e instanceof TranscriptError) return e.message;
  if (e instanceof Anthropic.APIUserAbortError) return "Stopped: the request was aborted.";
  if (e instanceof Anthropic.APIConnectionTimeoutError)
    return "The request timed out. Try again, or raise the timeout; offline, remove the key from .env.";
  if (e instanceof Anthropic.APIConnectionError)
    return `Could not reach the model's server (${e.message}). Check your network and ANTHROPIC_BASE_URL, or remove the keys from .env to run offline.`;
  if (e instanceof Anthropic.AuthenticationError)
    return "The server refused your key (401). Check ANTHROPIC_API_KEY / ANTHROPIC_AUTH_TOKEN in .env, or remove them to run offline.";
  if (e instanceof Anthropic.PermissionDeniedError) return `Your key may not use this model or endpoint (403): ${apiMessage(e)}`;
  if (e instanceof Anthropic.NotFoundError)
    return `Not found (404): ${apiMessage(e)}. Check MODEL_ID and ANTHROPIC_BASE_URL (without /v1).`;
  if (e instanceof Anthropic.RateLimitError) return "Rate limited (429) even after the SDK's retries. Wait a minute and run again.";
  if (e instanceof Anthropic.BadRequestError)
    return `The API rejected the request (400): ${apiMessage(e)}\n  If it names messages.N, your loop broke a message rule; \`npm run check\` shows which.`;
  if (e instanceof Anthropic.InternalServerError) return `The model's server failed (${e.status}) even after retries: ${apiMessage(e)}. Try again later.`;
  if (e instanceof Anthropic.APIError)
    return e.status === undefined
      ? `The model's server broke off its answer mid-stream (${apiType(e) ?? "error"}): ${apiMessage(e)}. Run again; lesson s11 shows how a loop recovers.`
      : `API error ${e.status}: ${apiMessage(e)}`;
  if (e instanceof Anthropic.AnthropicError && /terminated|other side closed|socket/i.test(e.message))
    return `The connection to the model's server broke mid-answer (${e.message}). Run again; lesson s11 shows how a loop recovers.`;
  return null;
}

function apiType(e: InstanceType<typeof Anthropic.APIError>): string | undefined {
  return (e.error as { error?: { type?: string } } | undefined)?.error?.type;
}

function apiMessage(e: InstanceType<typeof Anthropic.APIError>): string {
  const body = e.error as { error?: { message?: string } } | undefined;
  return body?.error?.message ?? e.message;
}

/** Run `main` if this file is the script being executed; explain errors, set the exit code. */
export function runMain(metaUrl: string, main: () => Promise<void>): void {
  if (!isMain(metaUrl)) return;
  main().catch((e: unknown) => {
    const known = explainError(e);
    if (known) {
      console.error((e instanceof TodoError ? yellow : red)(known));
    } else {
      console.error(red(`Unexpected error: ${e instanceof Error ? e.message : String(e)}`));
      if (process.env.DEBUG) console.error(e);
      else console.error("  (run with DEBUG=1 to see where it came from)");
    }
    process.exitCode = e instanceof TodoError ? 2 : 1;
  });
}

/** The task from the command line, or the lesson's default task. */
export function taskFromArgs(defaultTask: string, argv = process.argv.slice(2)): string {
  const words = argv.filter((a) => !a.startsWith("--"));
  return words.join(" ").trim() || defaultTask;
}
