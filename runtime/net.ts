/**
 * The lesson harness's net under a loop that never stops. A loop without its stop check asks
 * the model again and again, silently (hundreds of requests in seconds offline; with a real key,
 * money spent). The harness hands every lesson a client that counts its requests and stops the
 * run, in plain words, on either of:
 *
 *   - a clear runaway: the model answered with nothing left to do (stop_reason "end_turn" or
 *     "stop_sequence", no tool call) and the loop asked again, with nothing new from the user,
 *     RUNAWAY_REPEATS times in a row; or it asked again after such an answer DONE_ANSWERS times in
 *     one run, whatever it added (a lesson's run is one task: the model says it is done once);
 *   - a generous limit on the requests of one run (DEFAULT_REQUEST_LIMIT; `--max-requests=N` or
 *     COURSE_MAX_REQUESTS=N raises it, 0 turns the net off).
 *
 * This is a net for mistakes, not a guard the lessons teach (s06 does that): it only counts.
 */
import type Anthropic from "@anthropic-ai/sdk";
import { CourseError } from "./env.ts";
import { word } from "./words.ts";

/** Requests in one run of a lesson before the net stops it (the longest default task uses about 15). */
export const DEFAULT_REQUEST_LIMIT = 50;
/** Requests sent in a row after the model said it was done, before the net calls it a runaway. */
export const RUNAWAY_REPEATS = 3;

/**
 * Answers saying "done" that one run may go on after, before the net calls it a runaway. A lesson
 * whose loop sends the model back on purpose raises it in its course.json (`doneAnswers`).
 */
export const DONE_ANSWERS = 5;

/** The net stopped a run: what happened, the question to ask of the loop, how to raise the limit. */
export class RunawayError extends CourseError {
  override name = "RunawayError";
}


/** The limit from `--max-requests=N` or COURSE_MAX_REQUESTS (flag first), else the lesson's default. */
export function requestLimit(argv: string[], fallback = DEFAULT_REQUEST_LIMIT, env: NodeJS.ProcessEnv = process.env): number {
  const flag = argv.find((a) => a.startsWith("--max-requests="));
  const raw = flag !== undefined ? flag.slice("--max-requests=".length) : env.COURSE_MAX_REQUESTS;
  if (raw === undefined || raw.trim() === "") return fallback;
  if (!/^\d+$/.test(raw.trim()))
    throw new CourseError(word("net.not-a-number", { name: flag !== undefined ? "--max-requests" : "COURSE_MAX_REQUESTS", raw }));
  return Number(raw.trim());
}

/** Does this new part of the conversation bring anything from the user (a question, a tool's result)? */
function bringsSomethingNew(added: readonly Anthropic.MessageParam[]): boolean {
  return added.some(
    (m) =>
      m.role === "user" &&
      (typeof m.content === "string" ? m.content.trim() !== "" : m.content.some((b) => (b.type === "text" && b.text.trim() !== "") || b.type === "tool_result")),
  );
}

/** One conversation's state (a run may hold several on one client: s15's subagents). */
interface Conversation {
  /** How the last answer ended, and how long the conversation was when it was asked for. */
  lastStop: string | null;
  lastLength: number;
  repeats: number;
  /** Requests sent after an answer that said it was done. */
  afterDone: number;
}

/**
 * A client that counts the requests sent through `messages.create` and `messages.stream` and
 * throws RunawayError (before sending) when the net trips; `limit` 0 counts nothing. The limit
 * is on the run's requests (`doneAnswers` the answers saying done a run may go on after); the runaway patterns are read per conversation (known by its first
 * message), so a subagent's conversation ending "done" is not its parent's. Once tripped, every
 * later request throws the same error (a loop that swallows it stops anyway).
 */
export function withRequestNet(client: Anthropic, limit: number, doneAnswers = DONE_ANSWERS): Anthropic {
  if (limit <= 0) return client;
  let requests = 0;
  let tripped: RunawayError | null = null;
  const conversations = new Map<string, Conversation>();

  const check = (params: { messages?: Anthropic.MessageParam[] }): Conversation => {
    if (tripped) throw tripped;
    const messages = Array.isArray(params?.messages) ? params.messages : [];
    const key = JSON.stringify(messages[0] ?? null);
    const c = conversations.get(key) ?? { lastStop: null, lastLength: 0, repeats: 0, afterDone: 0 };
    conversations.set(key, c);
    if (c.lastStop === "end_turn" || c.lastStop === "stop_sequence") {
      c.repeats = bringsSomethingNew(messages.slice(c.lastLength)) ? 0 : c.repeats + 1;
      c.afterDone += 1;
    } else c.repeats = 0;
    requests += 1;
    if (c.repeats >= RUNAWAY_REPEATS)
      tripped = new RunawayError(word("net.repeats", { stop: String(c.lastStop), n: c.repeats }));
    else if (c.afterDone >= doneAnswers)
      tripped = new RunawayError(word("net.after-done", { stop: String(c.lastStop), n: c.afterDone }));
    else if (requests > limit)
      tripped = new RunawayError(word("net.limit", { limit }));
    if (tripped) throw tripped;
    c.lastLength = messages.length;
    c.lastStop = null;
    return c;
  };
  const seen = (c: Conversation, message: { stop_reason?: string | null } | undefined) => {
    c.lastStop = message?.stop_reason ?? null;
  };

  const messages = client.messages;
  const counted = new Proxy(messages, {
    get(target, prop) {
      if (prop === "create")
        return (params: Anthropic.MessageCreateParams, ...rest: unknown[]) => {
          // As the SDK does with a failed request: a rejected promise, not a throw.
          let c: Conversation;
          try {
            c = check(params);
          } catch (e) {
            return Promise.reject(e);
          }
          const answer = (target.create as (...a: unknown[]) => Promise<unknown>).call(target, params, ...rest);
          // A non-streamed answer tells how it ended; a raw stream (stream: true) is not read here.
          if (!params.stream) void Promise.resolve(answer).then((m) => seen(c, m as Anthropic.Message), () => undefined);
          return answer;
        };
      if (prop === "stream")
        return (params: Anthropic.MessageStreamParams, ...rest: unknown[]) => {
          const c = check(params);
          const stream = (target.stream as (...a: unknown[]) => ReturnType<Anthropic["messages"]["stream"]>).call(target, params, ...rest);
          stream.on("finalMessage", (m: Anthropic.Message) => seen(c, m));
          return stream;
        };
      const value: unknown = Reflect.get(target, prop, target);
      return typeof value === "function" ? (value as (...a: unknown[]) => unknown).bind(target) : value;
    },
  });
  return new Proxy(client, {
    get(target, prop) {
      if (prop === "messages") return counted;
      const value: unknown = Reflect.get(target, prop, target);
      return typeof value === "function" ? (value as (...a: unknown[]) => unknown).bind(target) : value;
    },
  });
}
