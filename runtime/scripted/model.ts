/**
 * The scripted model: the Messages API implemented locally and deterministically.
 *
 * The real SDK client talks to it through its `fetch` option (in-process) or over HTTP (the
 * standalone server). It validates every request as the real API does, answers from scenario
 * scripts, reports usage (with prompt caching), streams SSE in the exact order the SDK parses,
 * and injects faults on demand. It never pretends to be Claude: the model id asked for (one of its
 * table, models.ts) is echoed back and its text says "scripted model (offline)" wherever it speaks
 * for itself. It applies the rules of the request's anthropic-version and of the named model, and
 * holds every scenario's answer to the request's tool_choice and thinking (tool-choice.ts).
 */
import { createHash } from "node:crypto";
import type Anthropic from "@anthropic-ai/sdk";
import { readConversation } from "./conversation.ts";
import { parseFault } from "./faults.ts";
import { routeScenario } from "./scenarios/index.ts";
import { estimateTokens } from "../tokens.ts";

export { estimateTokens };
import { signThinking } from "./signature.ts";
import { contextWindowOf, findModel, listModels, MODEL_TABLE, retrieveModel } from "./models.ts";
import { obeyRequest } from "./tool-choice.ts";
import { Message as MessageSchema, CountTokens, ModelInfo, ModelList, StreamEvent as StreamEventSchema, shapeProblems } from "./schema.ts";
import { messageEvents, encodeEvent, type StreamEvent } from "./sse.ts";
import { systemClock, type Clock } from "../clock.ts";
import type { Fault, FaultPlan, Reply, Scenario, ScriptedRequest } from "./types.ts";
import { API_VERSIONS, betaError, betasOf, validateRequest, type ApiError, type IssuedContent } from "./validate.ts";

export interface ScriptedModelOptions {
  /** Force one scenario (by id or object). Default: the scenario whose task matches, else intents. */
  scenario?: string | Scenario;
  /** Faults for successive requests, or a function deciding per request. */
  faults?: FaultPlan;
  /**
   * Delay before every answer, in ms. A request's `x-scripted-latency-ms` header overrides it for
   * that request (the graders' own probe, runtime/testing.ts sendAgainError, sends 0: the delay is
   * the loop's to live with, not the check's).
   */
  latencyMs?: number;
  /** The clock the delays before answers (latencyMs, latency faults) run on (default: the machine's). */
  clock?: Clock;
  /** Delay between SSE events, in ms (a set pace for streaming lessons and benchmarks). */
  streamDelayMs?: number;
  /**
   * Context window in estimated tokens; a longer request gets 400 "prompt is too long". Default:
   * the named model's, from the model table.
   */
  contextWindow?: number;
  /** Key for thinking signatures. The default is fixed, so saved sessions can be resumed. */
  secret?: string;
  /**
   * Answer at most this many requests; the next gets a 400 saying the loop does not stop.
   * Tests set it so a loop that never stops fails quickly with a clear message.
   */
  maxRequests?: number;
  /** The request size limit in bytes (default the API's, 32 MB); a larger body gets 413. */
  maxRequestBytes?: number;
}

export const SCRIPTED_MODEL_NAME = "scripted model (offline)";
/** The anthropic-version SDK 1.14 sends (client.js), so the lessons' requests get its rules. */
export const SDK_API_VERSION = "2026-10-21";
const DEFAULT_SECRET = "scripted-model-thinking-signature";


/** JSON with object keys sorted, so the same content hashes the same however it was built. */
function stableJson(value: unknown): string {
  return JSON.stringify(value, (_key, v: unknown) =>
    v && typeof v === "object" && !Array.isArray(v)
      ? Object.fromEntries(Object.entries(v as Record<string, unknown>).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)))
      : v,
  );
}

function shortHash(...parts: unknown[]): string {
  return createHash("sha256").update(stableJson(parts)).digest("base64url").replace(/[-_]/g, "x").slice(0, 24);
}

export interface RecordedExchange {
  request: unknown;
  /** When the request arrived (ms since the epoch): tests compare the gaps between retries. */
  at: number;
  response?: Anthropic.Message;
  /** The SSE events of a streamed answer, as sent (before any scripted fault cut them short). */
  events?: StreamEvent[];
  error?: ApiError | { status: number; type: string; message: string };
  fault?: Fault;
}

/** The Messages API's request size limit (32 MB): a larger body gets 413 request_too_large. */
export const MAX_REQUEST_BYTES = 32 * 1024 * 1024;

/**
 * What the API checks before it reads a body: a key (x-api-key, or `Authorization: Bearer` as SDK
 * 1.14 sends it; with both, the API reads x-api-key) and an anthropic-version it knows
 * (API_VERSIONS: 2023-06-01, or 2026-10-21 as SDK 1.14 sends it).
 */
export function checkHeaders(headers: Headers): ApiError | null {
  const key = headers.get("x-api-key")?.trim();
  const bearer = headers.get("authorization")?.match(/^Bearer\s+(\S.*)$/i)?.[1]?.trim();
  if (!key && !bearer) return { status: 401, type: "authentication_error", message: "x-api-key header is required" };
  const version = headers.get("anthropic-version");
  if (version === null || version.trim() === "") return { status: 400, type: "invalid_request_error", message: "anthropic-version: header is required" };
  if (!(API_VERSIONS as readonly string[]).includes(version.trim()))
    return { status: 400, type: "invalid_request_error", message: `anthropic-version: "${version}" is not a valid version` };
  return null;
}

export class ScriptedModel {
  readonly options: ScriptedModelOptions;
  /** Every request this model received and what it answered, in order (for tests). */
  readonly exchanges: RecordedExchange[] = [];
  private readonly issued: IssuedContent = new Map();
  private readonly cache = new Set<string>();
  private readonly secret: string;

  constructor(options: ScriptedModelOptions = {}) {
    this.options = options;
    this.secret = options.secret ?? DEFAULT_SECRET;
  }

  /**
   * A `fetch` for `new Anthropic({ fetch })`. The caller's own signal is passed on: a Request's
   * copy of it can stop following it once the Request is garbage-collected (nodejs/node#55428),
   * and an abort during a long latency would then be lost on a busy machine.
   */
  readonly fetch = async (input: string | URL | Request, init?: RequestInit): Promise<Response> => {
    // As over a network, the answer comes in a later turn of the event loop, never in the same
    // run of microtasks: a loop that asks again and again in-process still lets timers fire (its
    // deadline, the SDK's timeout, the test's own time limit) instead of starving them forever.
    await new Promise<void>((resolve) => setImmediate(resolve));
    return this.handle(new Request(input, init), init?.signal ?? undefined);
  };

  /** The responses this model produced, in order. */
  get responses(): Anthropic.Message[] {
    return this.exchanges.flatMap((e) => (e.response ? [e.response] : []));
  }

  async handle(req: Request, signal: AbortSignal | undefined = req.signal): Promise<Response> {
    const url = new URL(req.url);
    const path = url.pathname.replace(/\/+$/, "");
    const isModels = req.method === "GET" && (path === "/v1/models" || path.startsWith("/v1/models/"));
    if (!isModels && (req.method !== "POST" || (path !== "/v1/messages" && path !== "/v1/messages/count_tokens")))
      return errorResponse({ status: 404, type: "not_found_error", message: `Not Found: ${req.method} ${path}` });
    const headerError = checkHeaders(req.headers);
    if (headerError) return errorResponse(headerError);
    if (isModels) {
      const list = path === "/v1/models";
      const answer = list ? listModels(url.searchParams) : retrieveModel(decodeURIComponent(path.slice("/v1/models/".length)));
      return "error" in answer ? errorResponse(answer.error) : this.checkedJson(list ? ModelList : ModelInfo, answer.body);
    }
    const betas = betasOf(req.headers.get("anthropic-beta"));
    const unknownBeta = betaError(betas);
    if (unknownBeta) return errorResponse(unknownBeta);
    const version = (req.headers.get("anthropic-version") ?? "").trim();

    const raw = await req.text();
    if (Buffer.byteLength(raw) > (this.options.maxRequestBytes ?? MAX_REQUEST_BYTES))
      return errorResponse({ status: 413, type: "request_too_large", message: "Request exceeds the maximum allowed number of bytes." });
    let body: unknown;
    try {
      body = JSON.parse(raw);
    } catch (e) {
      return errorResponse({
        status: 400,
        type: "invalid_request_error",
        message: `There was an issue with your request body: it is not valid JSON (${(e as Error).message})`,
      });
    }

    if (path === "/v1/messages/count_tokens") {
      const invalid = validateRequest(body, { secret: this.secret, endpoint: "count_tokens", betas, version, models: MODEL_TABLE });
      if (invalid) return errorResponse(invalid);
      return this.checkedJson(CountTokens, { input_tokens: this.inputTokens(body as ScriptedRequest) });
    }

    const requestIndex = this.exchanges.length;
    const record: RecordedExchange = { request: body, at: Date.now() };
    this.exchanges.push(record);

    if (this.options.maxRequests !== undefined && requestIndex >= this.options.maxRequests) {
      const err: ApiError = {
        status: 400,
        type: "invalid_request_error",
        message: `scripted model: ${requestIndex} requests already answered and the loop keeps calling. Does it stop when stop_reason is not "tool_use"?`,
      };
      record.error = err;
      return errorResponse(err);
    }
    let fault: Fault | null;
    try {
      fault = this.faultFor(requestIndex, body, req.headers);
    } catch (e) {
      const err: ApiError = { status: 400, type: "invalid_request_error", message: (e as Error).message };
      record.error = err;
      return errorResponse(err);
    }
    if (fault) record.fault = fault;
    const latency = (fault?.kind === "latency" ? fault.ms : 0) + Number(req.headers.get("x-scripted-latency-ms") ?? this.options.latencyMs ?? 0);
    if (latency > 0) {
      // Like a real fetch, an aborted request rejects (the SDK turns it into APIUserAbortError
      // or, for its own timeout, APIConnectionTimeoutError); it never resolves with a response.
      const aborted = await (this.options.clock ?? systemClock).sleep(latency, signal);
      if (aborted) throw abortError();
    }
    const failure = fault ? faultResponse(fault) : null;
    if (failure) {
      record.error = failure.error;
      return failure.response;
    }

    const invalid = validateRequest(body, { secret: this.secret, issued: this.issued, betas, version, models: MODEL_TABLE, paused: this.isPaused });
    if (invalid) {
      record.error = invalid;
      return errorResponse(invalid);
    }
    const request = body as ScriptedRequest;
    const inputTokens = this.inputTokens(request);
    const window = this.options.contextWindow ?? contextWindowOf(findModel(request.model) ?? MODEL_TABLE[0]!, betas);
    if (inputTokens > window || fault?.kind === "prompt_too_long") {
      const err: ApiError = {
        status: 400,
        type: "invalid_request_error",
        message: `prompt is too long: ${Math.max(inputTokens, window + 1)} tokens > ${window} maximum`,
      };
      record.error = err;
      return errorResponse(err);
    }

    let message: Anthropic.Message;
    let scenario: Scenario;
    try {
      scenario = this.scenarioFor(request, req.headers);
    } catch (e) {
      const err: ApiError = { status: 400, type: "invalid_request_error", message: (e as Error).message };
      record.error = err;
      return errorResponse(err);
    }
    try {
      // max_tokens 0 fills the prompt cache and generates nothing: no scenario is asked.
      const reply =
        request.max_tokens === 0
          ? { content: [], stop_reason: "max_tokens" }
          : obeyRequest(scenario.reply(readConversation(request, requestIndex)), request);
      message = this.buildMessage(request, reply, scenario.id);
    } catch (e) {
      const err = { status: 500, type: "api_error", message: `scripted model: the scenario failed: ${(e as Error).message}` };
      record.error = err;
      return errorResponse(err);
    }
    // Every answer is checked against the API's shape before it leaves: a scenario or a change
    // here that would send what the API never sends fails loudly instead of teaching it.
    const events = request.stream ? messageEvents(message) : [];
    const problems = request.stream
      ? events.flatMap((e, n) => shapeProblems(StreamEventSchema, e).map((p) => `event ${n} (${e.type}) ${p}`))
      : shapeProblems(MessageSchema, message);
    if (problems.length > 0) {
      const err = { status: 500, type: "api_error", message: `scripted model: the answer is not what the API sends: ${problems.join("; ")}` };
      record.error = err;
      return errorResponse(err);
    }
    record.response = message;
    this.remember(message);

    if (request.stream) {
      record.events = events;
      const delay = Number(req.headers.get("x-scripted-stream-delay-ms") ?? this.options.streamDelayMs ?? 0);
      return sseResponse(events, fault, delay, signal);
    }
    return jsonResponse(message);
  }

  private checkedJson(schema: Parameters<typeof shapeProblems>[0], body: unknown): Response {
    const problems = shapeProblems(schema, body);
    if (problems.length > 0)
      return errorResponse({ status: 500, type: "api_error", message: `scripted model: the answer is not what the API sends: ${problems.join("; ")}` });
    return jsonResponse(body);
  }

  private faultFor(index: number, body: unknown, headers: Headers): Fault | null {
    const header = headers.get("x-scripted-fault");
    if (header) return parseFault(header);
    const plan = this.options.faults;
    if (!plan) return null;
    return typeof plan === "function" ? plan(index, body) : (plan[index] ?? null);
  }

  private scenarioFor(request: ScriptedRequest, headers: Headers): Scenario {
    const forced = headers.get("x-scripted-scenario") ?? this.options.scenario;
    return routeScenario(forced, request);
  }

  /**
   * Would the API accept these messages? (The same checks as a request, with this model's memory,
   * under the API version the course's SDK sends.)
   */
  validate(body: unknown): ApiError | null {
    return validateRequest(body, { secret: this.secret, issued: this.issued, version: SDK_API_VERSION, models: MODEL_TABLE, paused: this.isPaused });
  }

  /** The content of every paused turn (stop_reason pause_turn) this model sent, to know it when it comes back. */
  private readonly pausedTurns = new Set<string>();
  private readonly isPaused = (content: unknown): boolean => Array.isArray(content) && this.pausedTurns.has(stableJson(content.map(withoutCacheControl)));

  private remember(message: Anthropic.Message): void {
    const content = message.content as unknown as Record<string, unknown>[];
    for (const b of message.content) if (b.type === "tool_use") this.issued.set(b.id, content);
    if (message.stop_reason === "pause_turn") this.pausedTurns.add(stableJson(content));
  }

  /** Input tokens, with the cached prefix (up to the last cache_control) split out. */
  private inputTokens(request: ScriptedRequest): number {
    return this.usageFor(request, false).input_tokens;
  }

  private usageFor(request: ScriptedRequest, record: boolean) {
    const parts: unknown[] = [];
    let prefixEnd = -1;
    const push = (value: unknown, marked: boolean) => {
      parts.push(value);
      if (marked) prefixEnd = parts.length;
    };
    const marked = (b: unknown) => typeof b === "object" && b !== null && "cache_control" in b && Boolean((b as { cache_control?: unknown }).cache_control);
    // A cached prefix is its content: where the breakpoints sit (cache_control) is not part of
    // it, and a string content is the same as one text block.
    const plain = (b: unknown) => {
      if (!marked(b)) return b;
      const { cache_control: _marker, ...rest } = b as Record<string, unknown>;
      return rest;
    };
    for (const t of request.tools ?? []) push(plain(t), marked(t));
    if (typeof request.system === "string") push(request.system, false);
    else for (const b of request.system ?? []) push(plain(b), marked(b));
    for (const m of request.messages) {
      if (typeof m.content === "string") push({ role: m.role, b: { type: "text", text: m.content } }, false);
      else for (const b of m.content) push({ role: m.role, b: plain(b) }, marked(b));
    }
    const total = Math.max(1, estimateTokens(parts));
    if (prefixEnd < 0) return { input_tokens: total, cache_creation_input_tokens: 0, cache_read_input_tokens: 0 };
    const prefix = parts.slice(0, prefixEnd);
    const prefixTokens = Math.min(total, estimateTokens(prefix));
    const key = shortHash(request.model, prefix);
    // Like the API, a request reads the longest cached prefix ending at its breakpoint or at one
    // of the 20 block boundaries before it: a breakpoint on the last message, moved forward
    // each turn, still reads what the previous turn wrote.
    let hitEnd = 0;
    for (let end = prefixEnd; end >= Math.max(1, prefixEnd - 20) && hitEnd === 0; end--)
      if (this.cache.has(end === prefixEnd ? key : shortHash(request.model, parts.slice(0, end)))) hitEnd = end;
    const read = hitEnd === prefixEnd ? prefixTokens : hitEnd > 0 ? Math.min(prefixTokens, estimateTokens(parts.slice(0, hitEnd))) : 0;
    if (record) this.cache.add(key);
    return {
      input_tokens: Math.max(1, total - prefixTokens),
      cache_creation_input_tokens: prefixTokens - read,
      cache_read_input_tokens: read,
    };
  }

  /** A scenario's reply → a complete API Message (ids, signatures, truncation, usage). */
  buildMessage(request: ScriptedRequest, reply: Reply, scenarioId: string): Anthropic.Message {
    const seed = shortHash(scenarioId, request.messages);
    let budget = request.max_tokens;
    let stopReason: string = reply.stop_reason ?? (reply.content.some((b) => b.type === "tool_use") ? "tool_use" : "end_turn");
    let stopSequence: string | null = reply.stop_sequence ?? null;
    const content: Anthropic.ContentBlock[] = [];
    let output = 0;
    const stops = request.stop_sequences ?? [];

    for (let i = 0; i < reply.content.length; i++) {
      const b = reply.content[i]!;
      if (b.type === "text") {
        let text = b.text;
        const hit = stops
          .map((s) => ({ s, at: s.length > 0 ? text.indexOf(s) : -1 }))
          .filter((h) => h.at >= 0)
          .sort((a, z) => a.at - z.at)[0];
        if (hit) text = text.slice(0, hit.at);
        const cost = estimateTokens(text);
        if (cost > budget) {
          const cut = text.slice(0, budget * 4);
          if (cut.trim().length > 0) content.push(textBlock(cut));
          output += estimateTokens(cut);
          stopReason = "max_tokens";
          stopSequence = null;
          break;
        }
        if (text.trim().length > 0) content.push(textBlock(text));
        budget -= cost;
        output += cost;
        if (hit) {
          stopReason = "stop_sequence";
          stopSequence = hit.s;
          break;
        }
      } else if (b.type === "thinking") {
        const cost = estimateTokens(b.thinking);
        if (cost > budget) {
          stopReason = "max_tokens";
          break;
        }
        content.push({ type: "thinking", thinking: b.thinking, signature: signThinking(this.secret, b.thinking) });
        budget -= cost;
        output += cost;
      } else if (b.type === "redacted_thinking") {
        content.push({ type: "redacted_thinking", data: b.data });
      } else {
        // Like the API's, a turn's ids do not sort in the order of its calls (a loop that sorts its
        // results by id must not pass by luck): each is a hash of the turn and the call's place.
        const id = b.id ?? `toolu_${shortHash(seed, i)}`;
        const cost = estimateTokens({ name: b.name, input: b.input }) + 8;
        if (cost > budget) {
          // Cut off mid-call: the input never finished, so it arrives empty. Never run it.
          content.push({ type: "tool_use", id, name: b.name, input: {} } as Anthropic.ToolUseBlock);
          output += budget;
          stopReason = "max_tokens";
          stopSequence = null;
          break;
        }
        content.push({ type: "tool_use", id, name: b.name, input: b.input } as Anthropic.ToolUseBlock);
        budget -= cost;
        output += cost;
      }
    }
    const usage = this.usageFor(request, true);
    // Only the keys the API sends: no `null` for what it leaves out (container, diagnostics,
    // server_tool_use…), and stop_details only when there are details (a refusal).
    return {
      id: `msg_scripted_${seed}`,
      type: "message",
      role: "assistant",
      model: request.model,
      content,
      stop_reason: stopReason as Anthropic.StopReason,
      stop_sequence: stopSequence,
      ...(reply.stop_details ? { stop_details: reply.stop_details } : {}),
      usage: {
        input_tokens: usage.input_tokens,
        output_tokens: request.max_tokens === 0 ? 0 : Math.max(1, output),
        cache_creation_input_tokens: usage.cache_creation_input_tokens,
        cache_read_input_tokens: usage.cache_read_input_tokens,
        cache_creation: { ephemeral_5m_input_tokens: usage.cache_creation_input_tokens, ephemeral_1h_input_tokens: 0 },
        service_tier: "standard",
      },
    } as Anthropic.Message;
  }
}

/** A block without its cache breakpoint (where a loop puts a breakpoint does not change the content). */
function withoutCacheControl(block: unknown): unknown {
  if (typeof block !== "object" || block === null || !("cache_control" in block)) return block;
  const { cache_control: _marker, ...rest } = block as Record<string, unknown>;
  return rest;
}

/** A text block as the API sends it: `citations` only when there are citations. */
function textBlock(text: string): Anthropic.TextBlock {
  return { type: "text", text } as Anthropic.TextBlock;
}

function abortError(): DOMException {
  return new DOMException("This operation was aborted", "AbortError");
}

function requestId(): string {
  return `req_scripted_${Math.random().toString(36).slice(2, 14)}`;
}

function jsonResponse(body: unknown, status = 200, headers: Record<string, string> = {}): Response {
  return new Response(JSON.stringify(body), {
    status,
    headers: { "content-type": "application/json", "request-id": requestId(), ...headers },
  });
}

export function errorResponse(
  err: { status: number; type: string; message: string; details?: Record<string, unknown> },
  headers: Record<string, string> = {},
): Response {
  const id = requestId();
  const extra: Record<string, string> = { ...headers };
  // The real API tells the SDK not to retry a request that can never succeed.
  if (err.status === 400 || err.status === 401 || err.status === 404) extra["x-should-retry"] = "false";
  const error = { type: err.type, message: err.message, ...(err.details ? { details: err.details } : {}) };
  return new Response(JSON.stringify({ type: "error", error, request_id: id }), {
    status: err.status,
    headers: { "content-type": "application/json", "request-id": id, ...extra },
  });
}

function faultResponse(fault: Fault): { response: Response; error: { status: number; type: string; message: string } } | null {
  switch (fault.kind) {
    case "rate_limit": {
      const error = { status: 429, type: "rate_limit_error", message: "Rate limited (scripted fault): slow down and retry." };
      return { error, response: errorResponse(error, { "retry-after": String(fault.retryAfterSeconds ?? 1) }) };
    }
    case "server_error": {
      const error = { status: 500, type: "api_error", message: "Internal server error (scripted fault)" };
      return { error, response: errorResponse(error) };
    }
    case "overloaded": {
      const error = { status: 529, type: "overloaded_error", message: "Overloaded" };
      return { error, response: errorResponse(error, fault.retryAfterSeconds !== undefined ? { "retry-after": String(fault.retryAfterSeconds) } : {}) };
    }
    default:
      return null; // prompt_too_long, latency and stream faults are applied later
  }
}


function sseResponse(events: StreamEvent[], fault: Fault | null | undefined, delayMs: number, signal?: AbortSignal | null): Response {
  const encoder = new TextEncoder();
  const breakAt =
    fault?.kind === "stream_error" || fault?.kind === "stream_cut" ? Math.min(fault.afterEvents ?? 3, events.length - 1) : -1;
  let i = 0;
  let closed = false;
  // highWaterMark 0: an event is produced only when the reader asks for it, so every event before
  // a scripted cut has been read (an errored stream drops what is still queued).
  const stream = new ReadableStream<Uint8Array>({
    async pull(controller) {
      if (closed) return;
      if (signal?.aborted) {
        closed = true;
        controller.error(new DOMException("The operation was aborted.", "AbortError"));
        return;
      }
      if (i === breakAt) {
        closed = true;
        if (fault?.kind === "stream_error") {
          controller.enqueue(
            encoder.encode(encodeEvent("error", { type: "error", error: { type: "overloaded_error", message: "Overloaded" } })),
          );
          controller.close();
        } else {
          controller.error(new TypeError("terminated: the connection was cut mid-stream (scripted fault)"));
        }
        return;
      }
      if (i >= events.length) {
        closed = true;
        controller.close();
        return;
      }
      if (delayMs > 0 && i > 0 && (await systemClock.sleep(delayMs, signal))) {
        closed = true;
        controller.error(new DOMException("The operation was aborted.", "AbortError"));
        return;
      }
      const e = events[i++]!;
      controller.enqueue(encoder.encode(encodeEvent(e.type, e)));
    },
    cancel() {
      closed = true;
    },
  }, { highWaterMark: 0 });
  return new Response(stream, {
    status: 200,
    headers: { "content-type": "text/event-stream", "cache-control": "no-cache", "request-id": requestId() },
  });
}
