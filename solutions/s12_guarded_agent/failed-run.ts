/**
 * s12 · nothing lost on a failed run. Whatever ends a run by throwing (an API error after the
 * retries, a stream that broke on every try, a body that is not the API's, a crash), the run
 * still ends like any other: the history is made whole again (every tool_use answered), the
 * caller writes it to .course/runs/, and the person sees ONE line naming the cause, no stack.
 */
import Anthropic from "@anthropic-ai/sdk";
import { red, say } from "../../runtime/print.ts";

/** How a run that threw is reported: stopped, with the cause in one line. */
export interface FailedRun {
  status: "stopped";
  reason: "error";
  detail: string;
}

/**
 * Runs `run`; if it throws, makes `history` a transcript the API would take again, prints the
 * cause in one line and returns a stopped outcome instead of throwing.
 */
export async function keepOnFailure<T>(history: Anthropic.MessageParam[], run: () => Promise<T>): Promise<T | FailedRun> {
  try {
    return await run();
  } catch (e) {
    const detail = causeOf(e);
    closeTranscript(history, `the run stopped before this call ran: ${detail}`);
    say(red(`the run stopped: ${detail}. The transcript so far is saved (see "run log" below).`));
    return { status: "stopped", reason: "error", detail };
  }
}

/** The cause of a failure in one line, in words a person can act on. */
export function causeOf(e: unknown): string {
  const first = (text: string) => text.split("\n")[0]!.trim().replace(/\.+$/, "").slice(0, 240);
  if (e instanceof Anthropic.APIConnectionTimeoutError) return "the API did not answer in time (after the retries)";
  if (e instanceof Anthropic.APIConnectionError) return `the API could not be reached or its stream broke (after the retries): ${first(e.message)}`;
  if (e instanceof Anthropic.APIError) {
    const status = e.status ?? "no status";
    const type = (e.error as { error?: { type?: string } } | undefined)?.error?.type;
    if (status === 529 || type === "overloaded_error") return `the API is overloaded (status ${status}) on every retry: try again later`;
    if (status === 401) return "the API refused the key (401): check ANTHROPIC_API_KEY in .env";
    if (status === 429) return "the API's rate limit was hit on every retry (429): wait a minute";
    return `the API answered with an error${type ? ` (${type})` : ""}, status ${status}: ${first(e.message)}`;
  }
  if (e instanceof Anthropic.AnthropicError) return `the API's answer broke off or could not be read (after the retries): ${first(e.message)}`;
  if (e instanceof SyntaxError) return `the answer was not the API's (it could not be read as JSON or as an event stream): ${first(e.message)}`;
  if (e instanceof Error) return `${e.name === "Error" ? "" : `${e.name}: `}${first(e.message) || "no message"}`;
  return first(String(e));
}

/**
 * Makes `history` end as a valid transcript: every tool_use of an assistant turn is answered by
 * a tool_result in the next user message (added, marked as an error, with `why`).
 */
export function closeTranscript(history: Anthropic.MessageParam[], why: string): void {
  for (let i = 0; i < history.length; i++) {
    const m = history[i]!;
    if (m.role !== "assistant" || typeof m.content === "string") continue;
    const ids = m.content.filter((b): b is Anthropic.ToolUseBlockParam => b.type === "tool_use").map((b) => b.id);
    if (ids.length === 0) continue;
    const next = history[i + 1];
    const missing = (answered: Set<string>) =>
      ids.filter((id) => !answered.has(id)).map((id): Anthropic.ToolResultBlockParam => ({ type: "tool_result", tool_use_id: id, content: why, is_error: true }));
    if (next === undefined) {
      history.push({ role: "user", content: missing(new Set()) });
      return;
    }
    if (next.role !== "user") {
      history.splice(i + 1, 0, { role: "user", content: missing(new Set()) });
      continue;
    }
    const blocks = typeof next.content === "string" ? [{ type: "text" as const, text: next.content }] : next.content;
    const answered = new Set(blocks.flatMap((b) => (b.type === "tool_result" ? [b.tool_use_id] : [])));
    const added = missing(answered);
    // Results first: the API wants them at the start of the user message.
    if (added.length > 0) next.content = [...added, ...blocks];
  }
}
