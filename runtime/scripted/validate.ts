/**
 * Request validation, as the real Messages API does it, with the API's own error texts
 * (see api-notes: the texts are those quoted in public reports against the real API).
 *
 * It checks one request at a time and returns the FIRST problem, as the API does. It must never
 * reject what the real API accepts: tool results in any order, text after the results, a
 * result whose content is an array of blocks, a final assistant message (prefill).
 */
import { verifySignature } from "./signature.ts";
import { DEFAULT_EFFORT, EFFORT_LEVELS, INTERLEAVED_BETA, servedModel, THINKING_TYPES, unknownModel, type ModelSpec } from "./models.ts";

export interface ApiError {
  status: number;
  type: "invalid_request_error" | "not_found_error" | "authentication_error" | "request_too_large";
  message: string;
  /** Machine-readable details (message threads' `error_code`), in the error object. */
  details?: Record<string, unknown>;
}

/**
 * Top-level fields of a Messages request, as the API reference lists them. Anything else is
 * refused with `<field>: Extra inputs are not permitted`, as the API does (`response_format`,
 * `extra_body`, and the SDK's header params `betas`, `user_profile_id`, `workspace_id`: SDK 1.14
 * sends them as `anthropic-beta`, `anthropic-user-profile-id`, `anthropic-workspace-id`, never in
 * the body; resources/messages/messages.js).
 */
const MESSAGE_FIELDS = [
  "model",
  "messages",
  "max_tokens",
  "system",
  "tools",
  "tool_choice",
  "thinking",
  "stop_sequences",
  "stream",
  "metadata",
  "service_tier",
  "temperature",
  "top_p",
  "top_k",
  "cache_control",
  "container",
  "diagnostics",
  "inference_geo",
  "output_config",
  "speed",
];
/** What count_tokens takes: the prompt, never the sampling or output fields. */
const COUNT_FIELDS = ["model", "messages", "system", "tools", "tool_choice", "thinking", "cache_control", "output_config", "speed"];

/**
 * Fields only a beta accepts, with the `anthropic-beta` value that turns them on (by prefix; null:
 * any beta). Without their beta they are extra inputs like any unknown field.
 */
const BETA_FIELDS: Record<string, string | null> = {
  thread: "message-threads-",
  mcp_servers: "mcp-client-",
  context_management: "context-management-",
  compaction: "compact-",
  fallbacks: "server-side-fallback-",
  fallback_credit_token: "fallback-credit-",
  output_format: "structured-outputs-",
  billing_policy: null,
};

/** Server tools, by `type` (their versions as the API lists them). A tool without `type` (or `custom`) is a client tool. */
const SERVER_TOOL_TYPES = [
  "bash_20241022",
  "bash_20250124",
  "code_execution_20250522",
  "code_execution_20250825",
  "code_execution_20260120",
  "code_execution_20260521",
  "computer_20241022",
  "computer_20250124",
  "computer_20251124",
  "computer_toolset_20260801",
  "browser_toolset_20260801",
  "memory_20250818",
  "text_editor_20241022",
  "text_editor_20250124",
  "text_editor_20250429",
  "text_editor_20250728",
  "web_search_20250305",
  "web_search_20260209",
  "web_search_20260318",
  "web_fetch_20250910",
  "web_fetch_20260209",
  "web_fetch_20260309",
  "web_fetch_20260318",
  "tool_search_tool_bm25_20251119",
  "tool_search_tool_regex_20251119",
  "advisor_20260301",
  "mcp_toolset",
];
const CLIENT_TOOL_FIELDS = ["type", "name", "description", "input_schema", "cache_control", "strict", "defer_loading", "allowed_callers", "input_examples", "eager_input_streaming"];

/** What the scripted model tells a client that sends `thread` (it keeps no conversations). */
export const THREADS_UNSUPPORTED =
  "thread: the scripted model (offline) does not keep message threads. Send the whole conversation on every request: pass `thread: false` to client.beta.messages.toolRunner(), or leave `thread` out.";

const KNOWN_BLOCKS = [
  "text",
  "image",
  "document",
  "search_result",
  "thinking",
  "redacted_thinking",
  "tool_use",
  "tool_result",
  "server_tool_use",
  "web_search_tool_result",
  "web_fetch_tool_result",
  "code_execution_tool_result",
  "bash_code_execution_tool_result",
  "text_editor_code_execution_tool_result",
  "tool_search_tool_result",
  "container_upload",
];
/** What an assistant message may hold under API version 2026-10-21 (no documents). */
const ASSISTANT_BLOCKS = KNOWN_BLOCKS.filter((t) => t !== "document");
/** What a tool_result's content list may hold (ToolResultBlockParam in the SDK). */
const RESULT_BLOCKS = ["text", "image", "search_result", "document", "tool_reference", "browser_state"];
const TOOL_NAME = /^[a-zA-Z0-9_-]{1,128}$/;
/** The API's pattern for a tool_use id (ToolUseBlockParam in the API reference). */
const TOOL_USE_ID = /^[a-zA-Z0-9_-]+$/;

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => typeof v === "object" && v !== null && !Array.isArray(v);
const bad = (message: string): ApiError => ({ status: 400, type: "invalid_request_error", message });

/** Content of a message as a block list (a string is one text block). */
function blocksOf(content: unknown): Obj[] {
  if (typeof content === "string") return [{ type: "text", text: content }];
  return Array.isArray(content) ? (content as Obj[]) : [];
}

/**
 * Remembers the assistant content this model produced, by the tool_use ids and signatures in it,
 * so it can tell when a loop sent back a modified or incomplete assistant turn.
 */
export type IssuedContent = Map<string, Obj[]>;

export interface ValidateOptions {
  secret: string;
  issued?: IssuedContent;
  /** Which endpoint: a count_tokens body has no max_tokens and takes fewer fields. */
  endpoint?: "messages" | "count_tokens";
  /** The request's `anthropic-beta` values. */
  betas?: readonly string[];
  /** The request's `anthropic-version` (default 2023-06-01): which version's rules apply. */
  version?: string;
  /**
   * The model table. When given, a model id not in it gets the API's 404 and the named model's
   * rules apply (output limit, prefill, sampling, thinking types). Without it, no per-model rules.
   */
  models?: readonly ModelSpec[];
  /** Is this final assistant message a paused turn (stop_reason pause_turn) sent back to go on? */
  paused?: (content: unknown) => boolean;
}

/**
 * The `anthropic-beta` names the API knows: every name of SDK 1.14's `AnthropicBeta` type
 * (resources/beta/beta.d.ts), the ones its own code sends (`structured-outputs-2025-12-15` from
 * messages.parse, the OAuth and federation credentials' betas), and earlier public betas clients
 * still send (`fine-grained-tool-streaming-2025-05-14`). Any other value is refused, as the API
 * refuses a beta it does not know. tests/runtime/compat.test.ts checks that the SDK's names are all here.
 */
export const KNOWN_BETAS: readonly string[] = [
  "computer-use-2024-10-22", "computer-use-2025-01-24", "output-128k-2025-02-19", "mcp-client-2025-04-04",
  "mcp-client-2025-11-20", "dev-full-thinking-2025-05-14", "interleaved-thinking-2025-05-14",
  "code-execution-2025-05-22", "context-1m-2025-08-07", "context-management-2025-06-27",
  "model-context-window-exceeded-2025-08-26", "fast-mode-2026-02-01", "output-300k-2026-03-24",
  "user-profiles-2026-03-24", "user-profiles-2026-08-18", "user-profiles-2026-09-04",
  "advisor-tool-2026-03-01", "managed-agents-2026-04-01", "dreaming-2026-04-21",
  "thinking-token-count-2026-05-13", "server-side-fallback-2026-06-01", "server-side-fallback-2026-07-01",
  "fallback-credit-2026-06-01", "fallback-credit-2026-07-01", "agent-memory-2026-07-22",
  "mid-conversation-tool-changes-2026-07-01", "compact-2026-01-12", "computer-use-2025-11-24",
  "mcp-tunnels-2026-06-22", "structured-outputs-2025-11-13", "task-budgets-2026-03-13",
  "thinking-display-updates-2026-08-18", "mid-conversation-output-config-2026-07-01",
  "thinking-binding-controls-2026-08-01", "mid-conversation-system-clear-at-2026-08-21",
  "compact-2026-09-04", "inline-tools-2026-09-15", "mcp-client-2026-09-15", "ce-plugins-2026-09-01",
  "spend-limit-reads-2026-09-26", "telemetry-destinations-2026-08-11", "webhooks-2026-10-07",
  "admin-user-sign-out-2026-10-08", "message-threads-2026-08-12", "analytics-usage-cost-2026-08-24",
  "experimental-claude-tag-2026-10-21", "message-batches-2024-09-24", "prompt-caching-2024-07-31",
  "pdfs-2024-09-25", "token-counting-2024-11-01", "token-efficient-tools-2025-02-19", "files-api-2025-04-14",
  "extended-cache-ttl-2025-04-11", "skills-2025-10-02", "cache-diagnosis-2026-04-07",
  "ce-user-management-2026-07-13", "ce-claude-code-managed-settings-2026-10-06", "efs-2026-10-01",
  "google-managed-data-controls-2026-09-01", "user-profiles-billing-2026-10-01",
  "structured-outputs-2025-12-15", "oauth-2025-04-20", "oidc-federation-2026-04-01",
  "fine-grained-tool-streaming-2025-05-14",
];

/** The API's refusal of `anthropic-beta` values it does not know (its words, as public reports quote them). */
export function betaError(betas: readonly string[]): ApiError | null {
  const odd = betas.filter((b) => !KNOWN_BETAS.includes(b));
  if (odd.length === 0) return null;
  return bad(
    `Unexpected value(s) ${odd.map((b) => `\`${b}\``).join(", ")} for the \`anthropic-beta\` header. Please consult our documentation at docs.claude.com or try again without the header.`,
  );
}

/** The values of an `anthropic-beta` header (comma-separated). */
export function betasOf(header: string | null): string[] {
  return (header ?? "")
    .split(",")
    .map((b) => b.trim())
    .filter((b) => b.length > 0);
}

/**
 * The API versions (`anthropic-version`) the API knows. 2023-01-01 and 2023-06-01 differ only in
 * the legacy Text Completions API, so the Messages API reads them alike; 2026-10-21 (what SDK 1.14
 * sends, client.js) refuses what the older ones accept: see `versionError`.
 */
export const API_VERSIONS = ["2023-01-01", "2023-06-01", "2026-10-21"] as const;
/** Does this version refuse sampling parameters, assistant documents and user citations? */
const strictVersion = (version: string) => version >= "2026-10-21";

/** Is thinking on in this request (a type that makes the model think before it answers)? */
function thinkingOn(body: Obj): boolean {
  return isObj(body.thinking) && (body.thinking.type === "enabled" || body.thinking.type === "adaptive");
}

export function validateRequest(body: unknown, opts: ValidateOptions): ApiError | null {
  if (!isObj(body)) return bad("Input should be a valid dictionary");
  const counting = opts.endpoint === "count_tokens";
  const version = opts.version ?? "2023-06-01";
  // API version 2026-10-21 takes no sampling parameters, "even at default values" (the API's
  // migration notes; a request with temperature: 1.0 gets `temperature: Extra inputs are not permitted`).
  if (strictVersion(version))
    for (const key of ["temperature", "top_p", "top_k"])
      if (key in body) return bad(`${key}: Extra inputs are not permitted`);
  const fieldError = validateFields(body, counting, opts.betas ?? []);
  if (fieldError) return fieldError;
  if (body.model === undefined) return bad("model: Field required");
  if (typeof body.model !== "string" || body.model.length === 0) return bad("model: Input should be a valid string");
  let model: ModelSpec | undefined;
  if (opts.models) {
    model = servedModel(body.model, opts.models);
    if (!model) return unknownModel(body.model);
  }
  if (!counting) {
    if (body.max_tokens === undefined) return bad("max_tokens: Field required");
    if (typeof body.max_tokens !== "number" || !Number.isInteger(body.max_tokens))
      return bad("max_tokens: Input should be a valid integer");
    // 0 is valid: it fills the prompt cache without generating (SDK 1.14's MessageCreateParams docs).
    if (body.max_tokens < 0) return bad("max_tokens: Input should be greater than or equal to 0");
    if (model && body.max_tokens > model.maxOutput)
      return bad(`max_tokens: ${body.max_tokens} > ${model.maxOutput}, which is the maximum allowed number of output tokens for ${model.id}`);
  }
  if (body.messages === undefined) return bad("messages: Field required");
  if (!Array.isArray(body.messages)) return bad("messages: Input should be a valid list");
  if (body.messages.length === 0) return bad("messages: at least one message is required");

  const toolError = validateTools(body.tools) ?? validateToolChoice(body) ?? validateOptions(body);
  if (toolError) return toolError;
  if (body.system !== undefined && typeof body.system !== "string" && !Array.isArray(body.system))
    return bad("system: Input should be a valid string");
  if (Array.isArray(body.system))
    for (const b of body.system as unknown[])
      if (isObj(b) && b.type === "text" && (typeof b.text !== "string" || b.text.length === 0))
        return bad("system: text content blocks must be non-empty");
  const rangeError = validateSampling(body, model, opts.betas ?? []) ?? modelRulesError(body, model, version);
  if (rangeError) return rangeError;

  const breakpoints = countCacheControl(body);
  if (breakpoints > 4) return bad(`A maximum of 4 blocks with cache_control may be provided. Found ${breakpoints}.`);
  const ttlError = ttlOrderError(body);
  if (ttlError) return ttlError;

  const messages = body.messages as unknown[];
  for (let i = 0; i < messages.length; i++) {
    const m = messages[i];
    if (!isObj(m)) return bad(`messages.${i}: Input should be a valid dictionary`);
    const extra = Object.keys(m).find((k) => k !== "role" && k !== "content");
    if (extra !== undefined) return bad(`messages.${i}.${extra}: Extra inputs are not permitted`);
    if (m.role !== "user" && m.role !== "assistant") return bad(`messages.${i}.role: Input should be 'user' or 'assistant'`);
    if (m.content === undefined) return bad(`messages.${i}.content: Field required`);
    if (typeof m.content !== "string" && !Array.isArray(m.content))
      return bad(`messages.${i}.content: Input should be a valid string or a valid list`);
  }
  if ((messages[0] as Obj).role !== "user") return bad('messages: first message must use the "user" role');

  for (let i = 0; i < messages.length; i++) {
    const m = messages[i] as Obj;
    const isFinal = i === messages.length - 1;
    const blocks = blocksOf(m.content);
    const empty = typeof m.content === "string" ? m.content.length === 0 : blocks.length === 0;
    if (empty && !(isFinal && m.role === "assistant"))
      return bad(`messages.${i}: all messages must have non-empty content except for the optional final assistant message`);
    for (let j = 0; j < blocks.length; j++) {
      const b = blocks[j];
      if (!isObj(b) || typeof b.type !== "string") return bad(`messages.${i}.content.${j}: Input should be a valid dictionary`);
      if (!KNOWN_BLOCKS.includes(b.type))
        return bad(
          `messages.${i}.content.${j}: Input tag '${b.type}' found using 'type' does not match any of the expected tags: ${KNOWN_BLOCKS.map((t) => `'${t}'`).join(", ")}`,
        );
      const e = validateBlock(b, i, j, m.role as string) ?? (strictVersion(version) ? versionError(b, i, j, m.role as string) : null);
      if (e) return e;
    }
  }
  const last = messages[messages.length - 1] as Obj;
  if (last.role === "assistant") {
    const blocks = blocksOf(last.content);
    const tail = blocks[blocks.length - 1];
    if (tail && tail.type === "text" && typeof tail.text === "string" && /\s$/.test(tail.text))
      return bad("messages: final assistant content cannot end with trailing whitespace");
    // A paused turn (stop_reason pause_turn) sent back as it came is how the API continues it,
    // not a prefill; anything else in the final place is a prefilled answer.
    if (!opts.paused?.(last.content)) {
      if (model && !model.prefill) return bad(PREFILL_UNSUPPORTED);
      if (thinkingOn(body)) return bad(PREFILL_WITH_THINKING);
    }
  }
  return validatePairing(messages as Obj[]) ?? validateThinking(messages as Obj[], opts) ?? thinkingTurnError(body, messages as Obj[]);
}

/** Claude 4.6 models refuse a prefill (the 4.6 migration notes; this text as public reports quote it). */
export const PREFILL_UNSUPPORTED = "This model does not support assistant message prefill. The conversation must end with a user message.";
export const PREFILL_WITH_THINKING =
  "messages: prefilling the assistant's answer is not supported when thinking is enabled. The conversation must end with a user message (or disable `thinking`).";

/**
 * API version 2026-10-21's content rules (its migration notes): no document block in an assistant
 * message (SDK 1.x's MessageParam is a union by role), no citations on a user's text block.
 */
function versionError(b: Obj, i: number, j: number, role: string): ApiError | null {
  if (role === "assistant" && b.type === "document")
    return bad(
      `messages.${i}.content.${j}: Input tag 'document' found using 'type' does not match any of the expected tags: ${ASSISTANT_BLOCKS.map((t) => `'${t}'`).join(", ")}`,
    );
  if (role === "user" && b.type === "text" && Array.isArray(b.citations) && b.citations.length > 0)
    return bad(`messages.${i}.content.${j}.text.citations: citations are not permitted on text blocks in user messages (API version 2026-10-21)`);
  return null;
}

/**
 * With thinking enabled, the assistant turn that called the tools whose results end the request
 * must start with its thinking (or redacted_thinking) block, as the model produced it. The text is
 * the API's, as public reports quote it. (With adaptive thinking the model may not have thought;
 * a thinking block it did send and the loop dropped is caught by `compareWithIssued`.)
 */
function thinkingTurnError(body: Obj, messages: Obj[]): ApiError | null {
  if (!isObj(body.thinking) || body.thinking.type !== "enabled" || messages.length < 2) return null;
  const last = messages[messages.length - 1]!;
  const prev = messages[messages.length - 2]!;
  if (last.role !== "user" || prev.role !== "assistant") return null;
  if (!blocksOf(last.content).some((b) => b.type === "tool_result")) return null;
  const blocks = blocksOf(prev.content);
  if (!blocks.some((b) => b.type === "tool_use")) return null;
  const first = blocks[0]?.type;
  if (first === "thinking" || first === "redacted_thinking") return null;
  return bad(
    `messages.${messages.length - 2}.content.0.type: Expected \`thinking\` or \`redacted_thinking\`, but found \`${String(first)}\`. When \`thinking\` is enabled, a final \`assistant\` message must start with a thinking block (preceeding the lastmost set of \`tool_use\` and \`tool_result\` blocks). We recommend you include thinking blocks from previous turns. To avoid this requirement, disable \`thinking\`. Please consult our documentation at https://docs.claude.com/en/docs/build-with-claude/extended-thinking`,
  );
}

/**
 * The named model's rules: the thinking types it takes, `output_config.effort`, sampling
 * parameters (where the version still takes them) and a forced tool call. Texts: the thinking one
 * as public reports quote it for a type a model does not take; the others are this model's words
 * (the API's status and type).
 */
function modelRulesError(body: Obj, model: ModelSpec | undefined, version: string): ApiError | null {
  const config = body.output_config;
  const effort = isObj(config) ? config.effort : undefined;
  if (effort !== undefined && effort !== null && !(EFFORT_LEVELS as readonly unknown[]).includes(effort))
    return bad(`output_config.effort: Input should be ${EFFORT_LEVELS.slice(0, -1).map((e) => `'${e}'`).join(", ")} or '${EFFORT_LEVELS[EFFORT_LEVELS.length - 1]}'`);
  if (!model) return null;
  const t = isObj(body.thinking) ? body.thinking.type : undefined;
  if (typeof t === "string" && !(model.thinking as readonly string[]).includes(t)) {
    const instead = model.thinking.includes("adaptive")
      ? ' Use "thinking.type.adaptive" and "output_config.effort" to control thinking behavior.'
      : ` This model takes: ${model.thinking.map((x) => `"thinking.type.${x}"`).join(", ")}.`;
    return bad(`"thinking.type.${t}" is not supported for this model.${instead}`);
  }
  const given = effort !== undefined && effort !== null;
  if (given && model.effort.length === 0)
    return bad("output_config.effort: this model does not support the effort parameter. Remove `output_config.effort`, or use a model that takes it.");
  if (given && !(model.effort as readonly unknown[]).includes(effort))
    return bad(`output_config.effort: '${String(effort)}' is not supported for this model, which takes ${model.effort.map((e) => `'${e}'`).join(", ")}.`);
  const levels = typeof t === "string" ? model.thinkingEffort?.[t as keyof typeof model.thinkingEffort] : undefined;
  const level = given ? String(effort) : DEFAULT_EFFORT;
  if (levels && !(levels as readonly string[]).includes(level))
    return bad(`"thinking.type.${String(t)}" is only supported at effort ${levels.map((e) => `'${e}'`).join(", ")} on this model, not '${level}'. Lower \`output_config.effort\`, or use "thinking.type.adaptive".`);
  const set = (k: string) => body[k] !== undefined && body[k] !== null;
  if (!strictVersion(version)) {
    if (model.sampling === "one" && set("temperature") && set("top_p"))
      return bad("`temperature` and `top_p` cannot both be specified for this model. Please use only one.");
    if (model.sampling === "defaults") {
      const odd = (["temperature", "top_p"] as const).find((k) => set(k) && body[k] !== 1) ?? (set("top_k") ? "top_k" : undefined);
      if (odd) return bad(`\`${odd}\` is not supported for this model: sampling parameters may only be left at their defaults. Remove \`${odd}\`.`);
    }
    if (model.sampling === "none") {
      const sent = (["temperature", "top_p", "top_k"] as const).find(set);
      if (sent) return bad(`\`${sent}\` is not supported for this model: it takes no sampling parameters, not even at their defaults. Remove \`${sent}\`.`);
    }
  }
  const choice = body.tool_choice;
  if (!model.forcedToolChoice && isObj(choice) && (choice.type === "any" || choice.type === "tool"))
    return bad(`tool_choice: this model does not support forcing a tool call (\`${choice.type}\`). Use \`auto\` (or \`none\`) and ask for the tool in the prompt.`);
  return null;
}

/** Cache breakpoints in a request: tools, system blocks and message blocks with a cache_control. */
function countCacheControl(body: Obj): number {
  const marked = (b: unknown) => isObj(b) && isObj(b.cache_control);
  const tools = Array.isArray(body.tools) ? (body.tools as unknown[]) : [];
  const system = Array.isArray(body.system) ? (body.system as unknown[]) : [];
  const blocks = Array.isArray(body.messages) ? (body.messages as unknown[]).flatMap((m) => (isObj(m) && Array.isArray(m.content) ? (m.content as unknown[]) : [])) : [];
  return [...tools, ...system, ...blocks].filter(marked).length;
}

/**
 * The API processes cache breakpoints in the order tools, system, messages, and refuses a marker
 * with ttl "1h" after one with the default (or explicit) "5m": a longer-lived prefix cannot end
 * after a shorter-lived one.
 */
function ttlOrderError(body: Obj): ApiError | null {
  const list = (v: unknown): unknown[] => (Array.isArray(v) ? v : []);
  const places: Array<[unknown, string]> = [
    ...list(body.tools).map((t, i): [unknown, string] => [t, `tools.${i}`]),
    ...list(body.system).map((b, k): [unknown, string] => [b, `system.${k}`]),
    ...list(body.messages).flatMap((m, i) => list(isObj(m) ? m.content : undefined).map((b, j): [unknown, string] => [b, `messages.${i}.content.${j}`])),
  ];
  let shorter = false;
  for (const [b, at] of places) {
    if (!isObj(b) || !isObj(b.cache_control)) continue;
    if (b.cache_control.ttl === "1h") {
      if (shorter)
        return bad(`${at}.cache_control.ttl: a ttl='1h' cache_control block must not come after a ttl='5m' cache_control block. Note that blocks are processed in the following order: \`tools\`, \`system\`, \`messages\`.`);
    } else shorter = true;
  }
  return null;
}

/**
 * temperature, top_p, top_k and extended thinking's budget, as the API bounds them. The budget
 * stays under `max_tokens`, except with the interleaved-thinking beta on a model that takes it:
 * the budget then spans every thinking block of the turn and may exceed `max_tokens` (the
 * extended-thinking docs), up to the context window.
 */
function validateSampling(body: Obj, model: ModelSpec | undefined, betas: readonly string[]): ApiError | null {
  for (const key of ["temperature", "top_p"] as const) {
    const v = body[key];
    if (v === undefined || v === null) continue;
    if (typeof v !== "number") return bad(`${key}: Input should be a valid number`);
    if (v < 0) return bad(`${key}: Input should be greater than or equal to 0`);
    if (v > 1) return bad(`${key}: Input should be less than or equal to 1`);
  }
  if (body.top_k !== undefined && body.top_k !== null && (typeof body.top_k !== "number" || !Number.isInteger(body.top_k) || body.top_k < 0))
    return bad("top_k: Input should be greater than or equal to 0");
  const thinking = body.thinking;
  // Extended thinking takes no top_k (the extended-thinking docs: "Thinking isn't compatible with
  // temperature or top_k modifications"); the words are this model's.
  if (thinkingOn(body) && body.top_k !== undefined && body.top_k !== null)
    return bad("`top_k` may not be set when thinking is enabled. Remove `top_k`, or disable `thinking`.");
  if (isObj(thinking) && thinking.type === "enabled") {
    const budget = thinking.budget_tokens;
    if (budget === undefined) return bad("thinking.enabled.budget_tokens: Field required");
    if (typeof budget !== "number" || !Number.isInteger(budget)) return bad("thinking.enabled.budget_tokens: Input should be a valid integer");
    if (budget < 1024) return bad("thinking.enabled.budget_tokens: Input should be greater than or equal to 1024");
    const interleaved = model?.interleaved === true && betas.includes(INTERLEAVED_BETA);
    if (interleaved && budget >= model.contextWindow)
      return bad(`thinking.enabled.budget_tokens: Input should be less than ${model.contextWindow}`);
    if (!interleaved && typeof body.max_tokens === "number" && body.max_tokens <= budget)
      return bad("`max_tokens` must be greater than `thinking.budget_tokens`");
  }
  if (thinkingOn(body) && typeof body.temperature === "number" && body.temperature !== 1)
    return bad(
      "`temperature` may only be set to 1 when thinking is enabled. Please consult our documentation at https://docs.anthropic.com/en/docs/build-with-claude/extended-thinking#important-considerations-when-using-extended-thinking",
    );
  return null;
}

/** Unknown top-level fields, and beta-only fields without their beta, as the API refuses them. */
function validateFields(body: Obj, counting: boolean, betas: readonly string[]): ApiError | null {
  const known = counting ? COUNT_FIELDS : MESSAGE_FIELDS;
  for (const key of Object.keys(body)) {
    if (known.includes(key)) continue;
    if (key in BETA_FIELDS) {
      const beta = BETA_FIELDS[key] ?? null;
      const on = beta === null ? betas.length > 0 : betas.some((b) => b.startsWith(beta));
      if (on) {
        if (key === "thread" && body.thread !== null && body.thread !== undefined) {
          // `thread: false` is the SDK's runner option, never a request field.
          if (!isObj(body.thread)) return bad("thread: Input should be a valid dictionary");
          return { ...bad(THREADS_UNSUPPORTED), details: { error_code: "thread_unsupported_request", unsupported: ["thread"] } };
        }
        continue; // accepted and ignored: the scripted model has no servers, memory or fallbacks
      }
    }
    return bad(`${key}: Extra inputs are not permitted`);
  }
  return null;
}

const SERVER_TOOL_TAGS = ["custom", ...SERVER_TOOL_TYPES].map((t) => `'${t}'`).join(", ");

function validateTools(tools: unknown): ApiError | null {
  if (tools === undefined) return null;
  if (!Array.isArray(tools)) return bad("tools: Input should be a valid list");
  const names = new Set<string>();
  for (let i = 0; i < tools.length; i++) {
    const t = tools[i];
    if (!isObj(t)) return bad(`tools.${i}: Input should be a valid dictionary`);
    if (t.type !== undefined && t.type !== null && t.type !== "custom") {
      if (typeof t.type !== "string" || !SERVER_TOOL_TYPES.includes(t.type))
        return bad(
          `tools.${i}: Input tag '${String(t.type)}' found using 'type' does not match any of the expected tags: ${SERVER_TOOL_TAGS}`,
        );
      // A server tool (web_search_…, bash_…): accepted as declared, never called by this model.
      if (t.type !== "mcp_toolset" && typeof t.name !== "string") return bad(`tools.${i}.${t.type}.name: Field required`);
      if (typeof t.name === "string") {
        if (names.has(t.name)) return bad("tools: Tool names must be unique.");
        names.add(t.name);
      }
      const cc = cacheControlError(t.cache_control, `tools.${i}.${t.type}.cache_control`);
      if (cc) return cc;
      continue;
    }
    const extra = Object.keys(t).find((k) => !CLIENT_TOOL_FIELDS.includes(k));
    if (extra !== undefined) return bad(`tools.${i}.custom.${extra}: Extra inputs are not permitted`);
    if (t.name === undefined) return bad(`tools.${i}.custom.name: Field required`);
    if (typeof t.name !== "string" || !TOOL_NAME.test(t.name))
      return bad(`tools.${i}.custom.name: String should match pattern '^[a-zA-Z0-9_-]{1,128}$'`);
    if (t.input_schema === undefined) return bad(`tools.${i}.custom.input_schema: Field required`);
    if (!isObj(t.input_schema)) return bad(`tools.${i}.custom.input_schema: Input should be a valid dictionary`);
    if (t.input_schema.type !== "object") return bad(`tools.${i}.custom.input_schema.type: Input should be 'object'`);
    if (t.description !== undefined && typeof t.description !== "string")
      return bad(`tools.${i}.custom.description: Input should be a valid string`);
    if (!isSchema(t.input_schema))
      return bad(
        `tools.${i}.custom.input_schema: JSON schema is invalid. It must match JSON Schema draft 2020-12 (https://json-schema.org/draft/2020-12). Learn more about tool use at https://platform.claude.com/docs/en/agents-and-tools/tool-use/overview.`,
      );
    for (const combinator of ["oneOf", "allOf", "anyOf"])
      if (combinator in t.input_schema)
        return bad(`tools.${i}.custom.input_schema: input_schema does not support oneOf, allOf, or anyOf at the top level`);
    const cc = cacheControlError(t.cache_control, `tools.${i}.custom.cache_control`);
    if (cc) return cc;
    if (names.has(t.name)) return bad("tools: Tool names must be unique.");
    names.add(t.name);
  }
  return null;
}

const SCHEMA_TYPES = ["object", "array", "string", "number", "integer", "boolean", "null"];
const SCHEMA_MAPS = ["properties", "patternProperties", "$defs", "definitions", "dependentSchemas"];
const SCHEMA_LISTS = ["allOf", "anyOf", "oneOf", "prefixItems"];
const SCHEMA_ONE = ["items", "additionalProperties", "not", "if", "then", "else", "contains", "propertyNames", "unevaluatedProperties", "unevaluatedItems", "additionalItems"];

/**
 * The structure JSON Schema (2020-12) gives its keywords, checked where a mistake is common: a
 * type name that does not exist, `properties` that are not schemas, `required` that is not a
 * list of names. Not a full meta-schema check.
 */
function isSchema(schema: unknown, depth = 0): boolean {
  if (typeof schema === "boolean") return true;
  if (!isObj(schema) || depth > 64) return false;
  const type = schema.type;
  if (type !== undefined) {
    const types = Array.isArray(type) ? type : [type];
    if (types.length === 0 || !types.every((x) => typeof x === "string" && SCHEMA_TYPES.includes(x))) return false;
  }
  if (schema.required !== undefined && (!Array.isArray(schema.required) || !schema.required.every((r) => typeof r === "string"))) return false;
  if (schema.enum !== undefined && !Array.isArray(schema.enum)) return false;
  for (const key of SCHEMA_MAPS) {
    const map = schema[key];
    if (map === undefined) continue;
    if (!isObj(map) || !Object.values(map).every((s) => isSchema(s, depth + 1))) return false;
  }
  for (const key of SCHEMA_LISTS) {
    const list = schema[key];
    if (list === undefined) continue;
    if (!Array.isArray(list) || list.length === 0 || !list.every((s) => isSchema(s, depth + 1))) return false;
  }
  for (const key of SCHEMA_ONE) if (schema[key] !== undefined && !isSchema(schema[key], depth + 1)) return false;
  return true;
}

function cacheControlError(cc: unknown, at: string): ApiError | null {
  if (cc === undefined || cc === null) return null;
  if (!isObj(cc)) return bad(`${at}: Input should be a valid dictionary`);
  if (cc.type !== "ephemeral") return bad(`${at}.type: Input should be 'ephemeral'`);
  if (cc.ttl !== undefined && cc.ttl !== "5m" && cc.ttl !== "1h") return bad(`${at}.ttl: Input should be '5m' or '1h'`);
  const extra = Object.keys(cc).find((k) => k !== "type" && k !== "ttl");
  return extra === undefined ? null : bad(`${at}.${extra}: Extra inputs are not permitted`);
}

const TOOL_CHOICES = ["auto", "any", "tool", "none"];

/** tool_choice: one of its four shapes, only with tools, naming a tool that is offered. */
function validateToolChoice(body: Obj): ApiError | null {
  const choice = body.tool_choice;
  if (choice === undefined || choice === null) return null;
  if (!isObj(choice)) return bad("tool_choice: Input should be a valid dictionary");
  if (typeof choice.type !== "string" || !TOOL_CHOICES.includes(choice.type))
    return bad(
      `tool_choice: Input tag '${String(choice.type)}' found using 'type' does not match any of the expected tags: ${TOOL_CHOICES.map((t) => `'${t}'`).join(", ")}`,
    );
  const allowed = choice.type === "tool" ? ["type", "name", "disable_parallel_tool_use"] : choice.type === "none" ? ["type"] : ["type", "disable_parallel_tool_use"];
  const extra = Object.keys(choice).find((k) => !allowed.includes(k));
  if (extra !== undefined) return bad(`tool_choice.${choice.type}.${extra}: Extra inputs are not permitted`);
  if (choice.disable_parallel_tool_use !== undefined && typeof choice.disable_parallel_tool_use !== "boolean")
    return bad(`tool_choice.${choice.type}.disable_parallel_tool_use: Input should be a valid boolean`);
  if (choice.type === "tool" && typeof choice.name !== "string") return bad("tool_choice.tool.name: Field required");
  const tools = Array.isArray(body.tools) ? (body.tools as Obj[]) : [];
  if (tools.length === 0) return bad("tool_choice: tool_choice may only be specified while providing tools.");
  if (choice.type === "tool" && !tools.some((t) => t.name === choice.name))
    return bad(`tool_choice: Tool '${String(choice.name)}' not found in tools.`);
  const thinking = body.thinking;
  if ((choice.type === "any" || choice.type === "tool") && isObj(thinking) && thinkingOn(body))
    return bad("Thinking may not be enabled when tool_choice forces tool use.");
  return null;
}

/** The fields of each thinking type (SDK 1.14's ThinkingConfigEnabled, …Adaptive, …Disabled, …BetweenTools). */
const THINKING_FIELDS: Record<(typeof THINKING_TYPES)[number], readonly string[]> = {
  enabled: ["type", "budget_tokens", "display"],
  adaptive: ["type", "display"],
  disabled: ["type"],
  between_tools: ["type"],
};

/** The smaller request fields, by their types in the API reference. */
function validateOptions(body: Obj): ApiError | null {
  if (body.stream !== undefined && typeof body.stream !== "boolean") return bad("stream: Input should be a valid boolean");
  if (body.stop_sequences !== undefined) {
    if (!Array.isArray(body.stop_sequences)) return bad("stop_sequences: Input should be a valid list");
    const k = (body.stop_sequences as unknown[]).findIndex((s) => typeof s !== "string");
    if (k >= 0) return bad(`stop_sequences.${k}: Input should be a valid string`);
  }
  if (body.metadata !== undefined && body.metadata !== null) {
    if (!isObj(body.metadata)) return bad("metadata: Input should be a valid dictionary");
    const extra = Object.keys(body.metadata).find((k) => k !== "user_id");
    if (extra !== undefined) return bad(`metadata.${extra}: Extra inputs are not permitted`);
    const id = body.metadata.user_id;
    if (id !== undefined && id !== null && typeof id !== "string") return bad("metadata.user_id: Input should be a valid string");
  }
  if (body.service_tier !== undefined && body.service_tier !== "auto" && body.service_tier !== "standard_only")
    return bad("service_tier: Input should be 'auto' or 'standard_only'");
  if (body.thinking !== undefined && body.thinking !== null) {
    const t = body.thinking;
    if (!isObj(t)) return bad("thinking: Input should be a valid dictionary");
    if (!(THINKING_TYPES as readonly unknown[]).includes(t.type))
      return bad(
        `thinking: Input tag '${String(t.type)}' found using 'type' does not match any of the expected tags: ${THINKING_TYPES.map((x) => `'${x}'`).join(", ")}`,
      );
    // Each type's own fields (SDK 1.14's ThinkingConfig*): a budget belongs to `enabled` only.
    const type = t.type as (typeof THINKING_TYPES)[number];
    const extra = Object.keys(t).find((k) => !THINKING_FIELDS[type].includes(k));
    if (extra !== undefined) return bad(`thinking.${type}.${extra}: Extra inputs are not permitted`);
    if (t.display !== undefined && t.display !== null && t.display !== "summarized" && t.display !== "omitted")
      return bad(`thinking.${type}.display: Input should be 'summarized' or 'omitted'`);
  }
  const cc = cacheControlError(body.cache_control, "cache_control");
  if (cc) return cc;
  if (Array.isArray(body.system))
    for (let k = 0; k < body.system.length; k++) {
      const b = body.system[k] as unknown;
      if (!isObj(b)) return bad(`system.${k}: Input should be a valid dictionary`);
      if (b.type !== "text") return bad(`system.${k}.type: Input should be 'text'`);
      const e = cacheControlError(b.cache_control, `system.${k}.cache_control`);
      if (e) return e;
    }
  return null;
}

/**
 * The keys each request block may carry (the API reference's *BlockParam). A block sent back as
 * the SDK returned it passes: the SDK's own additions (`parsed_output`) are not enumerable, and
 * `citations: null`, `caller` are params too.
 */
const BLOCK_KEYS: Record<string, string[]> = {
  text: ["type", "text", "cache_control", "citations"],
  image: ["type", "source", "cache_control", "transformations"],
  document: ["type", "source", "cache_control", "citations", "context", "title"],
  search_result: ["type", "source", "title", "content", "cache_control", "citations"],
  tool_use: ["type", "id", "name", "input", "cache_control", "caller", "toolset_name"],
  tool_result: ["type", "tool_use_id", "content", "is_error", "cache_control", "toolset_name"],
  thinking: ["type", "thinking", "signature"],
  redacted_thinking: ["type", "data"],
};

function validateBlock(b: Obj, i: number, j: number, role: string): ApiError | null {
  const at = `messages.${i}.content.${j}`;
  const allowed = BLOCK_KEYS[b.type as string];
  const extra = allowed ? Object.keys(b).find((k) => !allowed.includes(k)) : undefined;
  if (extra !== undefined) return bad(`${at}.${b.type as string}.${extra}: Extra inputs are not permitted`);
  const cc = cacheControlError(b.cache_control, `${at}.${b.type as string}.cache_control`);
  if (cc) return cc;
  switch (b.type) {
    case "text":
      if (typeof b.text !== "string") return bad(`${at}.text.text: Field required`);
      if (b.text.length === 0) return bad("messages: text content blocks must be non-empty");
      if (b.text.trim().length === 0) return bad("messages: text content blocks must contain non-whitespace text");
      return null;
    case "tool_use":
      if (role !== "assistant") return bad(`${at}: \`tool_use\` blocks can only be in \`assistant\` messages`);
      if (typeof b.id !== "string") return bad(`${at}.tool_use.id: Field required`);
      if (!TOOL_USE_ID.test(b.id)) return bad(`${at}.tool_use.id: String should match pattern '^[a-zA-Z0-9_-]+$'`);
      if (typeof b.name !== "string") return bad(`${at}.tool_use.name: Field required`);
      if (!isObj(b.input)) return bad(`${at}.tool_use.input: Input should be a valid dictionary`);
      return null;
    case "tool_result": {
      if (role !== "user") return bad(`${at}: \`tool_result\` blocks can only be in \`user\` messages`);
      if (typeof b.tool_use_id !== "string") return bad(`${at}.tool_result.tool_use_id: Field required`);
      if (b.is_error !== undefined && typeof b.is_error !== "boolean") return bad(`${at}.tool_result.is_error: Input should be a valid boolean`);
      const c = b.content;
      if (c !== undefined && typeof c !== "string" && !Array.isArray(c))
        return bad(`${at}.tool_result.content: Input should be a valid string or a valid list`);
      if (Array.isArray(c)) {
        for (let k = 0; k < c.length; k++) {
          const inner = c[k] as unknown;
          if (!isObj(inner) || typeof inner.type !== "string")
            return bad(`${at}.tool_result.content.${k}: Input should be a valid dictionary`);
          if (!RESULT_BLOCKS.includes(inner.type))
            return bad(
              `${at}.tool_result.content.${k}: Input tag '${inner.type}' found using 'type' does not match any of the expected tags: ${RESULT_BLOCKS.map((t) => `'${t}'`).join(", ")}`,
            );
          const innerAt = `${at}.tool_result.content.${k}`;
          const innerKeys = BLOCK_KEYS[inner.type];
          const innerExtra = innerKeys ? Object.keys(inner).find((key) => !innerKeys.includes(key)) : undefined;
          if (innerExtra !== undefined) return bad(`${innerAt}.${inner.type}.${innerExtra}: Extra inputs are not permitted`);
          if (inner.type === "text" && (typeof inner.text !== "string" || inner.text.length === 0))
            return bad("messages: text content blocks must be non-empty");
          if (inner.type === "image") {
            const e = imageError(inner, innerAt);
            if (e) return e;
          }
          if (inner.type === "document") {
            const e = documentError(inner, innerAt);
            if (e) return e;
          }
        }
      }
      const emptyContent = c === undefined || (typeof c === "string" && c.length === 0) || (Array.isArray(c) && c.length === 0);
      if (b.is_error === true && emptyContent) return bad(`${at}.tool_result: content cannot be empty if \`is_error\` is true`);
      return null;
    }
    case "image":
      return imageError(b, at);
    case "document":
      return documentError(b, at);
    case "thinking":
      if (role !== "assistant") return bad(`${at}: \`thinking\` blocks can only be in \`assistant\` messages`);
      if (typeof b.thinking !== "string") return bad(`${at}.thinking.thinking: Field required`);
      if (typeof b.signature !== "string") return bad(`${at}.thinking.signature: Field required`);
      return null;
    case "redacted_thinking":
      if (role !== "assistant") return bad(`${at}: \`redacted_thinking\` blocks can only be in \`assistant\` messages`);
      if (typeof b.data !== "string") return bad(`${at}.redacted_thinking.data: Field required`);
      return null;
    default:
      return null;
  }
}

const IMAGE_MEDIA_TYPES = ["image/jpeg", "image/png", "image/gif", "image/webp"];

/** The keys of each source type (the API reference's Base64ImageSource, URLImageSource, …). */
const SOURCE_KEYS: Record<string, string[]> = {
  base64: ["type", "media_type", "data"],
  text: ["type", "media_type", "data"],
  url: ["type", "url"],
  file: ["type", "file_id"],
  content: ["type", "content"],
};

/** A key a source of its type does not have, as the API refuses it. */
function sourceKeyError(src: Obj, at: string): ApiError | null {
  const keys = typeof src.type === "string" ? SOURCE_KEYS[src.type] : undefined;
  const extra = keys ? Object.keys(src).find((k) => !keys.includes(k)) : undefined;
  return extra === undefined ? null : bad(`${at}.${String(src.type)}.${extra}: Extra inputs are not permitted`);
}

/** An image block's source: base64 data of one of the four image types the API reads, a URL or a file id. */
function imageError(b: Obj, at: string): ApiError | null {
  const src = b.source;
  if (!isObj(src)) return bad(`${at}.image.source: Field required`);
  if (src.type !== "content" && src.type !== "text") {
    const e = sourceKeyError(src, `${at}.image.source`);
    if (e) return e;
  }
  if (src.type === "url") return typeof src.url === "string" ? null : bad(`${at}.image.source.url.url: Field required`);
  if (src.type === "file") return typeof src.file_id === "string" ? null : bad(`${at}.image.source.file.file_id: Field required`);
  if (src.type !== "base64") return bad(`${at}.image.source: Input tag '${String(src.type)}' found using 'type' does not match any of the expected tags: 'base64', 'url', 'file'`);
  if (!IMAGE_MEDIA_TYPES.includes(src.media_type as string))
    return bad(`${at}.image.source.base64.media_type: Input should be ${IMAGE_MEDIA_TYPES.map((t) => `'${t}'`).join(", ").replace(/, ([^,]*)$/, " or $1")}`);
  if (typeof src.data !== "string" || src.data.length === 0) return bad(`${at}.image.source.base64.data: Field required`);
  return null;
}

const DOCUMENT_SOURCES = ["base64", "text", "content", "url", "file"];

/**
 * A document block's source, by the API reference's DocumentBlockParam: base64 data is a PDF
 * (Base64PDFSource: media_type 'application/pdf'), plain text is 'text/plain'.
 */
function documentError(b: Obj, at: string): ApiError | null {
  const src = b.source;
  if (!isObj(src)) return bad(`${at}.document.source: Field required`);
  if (typeof src.type !== "string" || !DOCUMENT_SOURCES.includes(src.type))
    return bad(
      `${at}.document.source: Input tag '${String(src.type)}' found using 'type' does not match any of the expected tags: ${DOCUMENT_SOURCES.map((t) => `'${t}'`).join(", ")}`,
    );
  const keyError = sourceKeyError(src, `${at}.document.source`);
  if (keyError) return keyError;
  if (src.type === "base64") {
    if (src.media_type !== "application/pdf") return bad(`${at}.document.source.base64.media_type: Input should be 'application/pdf'`);
    if (typeof src.data !== "string" || src.data.length === 0) return bad(`${at}.document.source.base64.data: Field required`);
  }
  if (src.type === "text") {
    if (src.media_type !== "text/plain") return bad(`${at}.document.source.text.media_type: Input should be 'text/plain'`);
    if (typeof src.data !== "string") return bad(`${at}.document.source.text.data: Field required`);
  }
  return null;
}

/** tool_use ↔ tool_result pairing: each call answered at the start of the very next message. */
function validatePairing(messages: Obj[]): ApiError | null {
  const useIds = new Set<string>();
  for (let i = 0; i < messages.length; i++) {
    const m = messages[i] as Obj;
    if (m.role !== "assistant") continue;
    const blocks = blocksOf(m.content);
    for (let j = 0; j < blocks.length; j++) {
      const b = blocks[j] as Obj;
      if (b.type !== "tool_use") continue;
      if (useIds.has(b.id as string)) return bad(`messages.${i}.content.${j}: \`tool_use\` ids must be unique`);
      useIds.add(b.id as string);
    }
  }
  for (let i = 0; i < messages.length; i++) {
    const m = messages[i] as Obj;
    const blocks = blocksOf(m.content);
    if (m.role === "assistant") {
      const ids = blocks.filter((b) => b.type === "tool_use").map((b) => b.id as string);
      if (ids.length === 0) continue;
      const next = messages[i + 1];
      const answered = new Set<string>();
      if (next && next.role === "user") {
        for (const b of blocksOf(next.content)) {
          if (b.type !== "tool_result") break; // results must come first
          answered.add(b.tool_use_id as string);
        }
      }
      const missing = ids.filter((id) => !answered.has(id));
      if (missing.length > 0)
        return bad(
          `messages.${i}: \`tool_use\` ids were found without \`tool_result\` blocks immediately after: ${missing.join(", ")}. Each \`tool_use\` block must have a corresponding \`tool_result\` block in the next message.`,
        );
    } else {
      const prev = i > 0 ? (messages[i - 1] as Obj) : undefined;
      const asked = new Set(
        prev && prev.role === "assistant"
          ? blocksOf(prev.content).filter((b) => b.type === "tool_use").map((b) => b.id as string)
          : [],
      );
      const seen = new Set<string>();
      for (let j = 0; j < blocks.length; j++) {
        const b = blocks[j] as Obj;
        if (b.type !== "tool_result") continue;
        const id = b.tool_use_id as string;
        if (!asked.has(id))
          return bad(
            `messages.${i}.content.${j}: unexpected \`tool_use_id\` found in \`tool_result\` blocks: ${id}. Each \`tool_result\` block must have a corresponding \`tool_use\` block in the previous message.`,
          );
        if (seen.has(id))
          return bad(`messages.${i}.content.${j}: each tool_use must have a single result. Found multiple \`tool_result\` blocks with id: ${id}`);
        seen.add(id);
      }
    }
  }
  return null;
}

/**
 * Thinking blocks must come back exactly as they were produced. Every signature is checked; in
 * the latest assistant message, a block that was dropped or reordered is caught too, because the
 * model remembers what it sent with each tool call.
 */
function validateThinking(messages: Obj[], opts: ValidateOptions): ApiError | null {
  let latest = -1;
  for (let i = messages.length - 1; i >= 0; i--)
    if ((messages[i] as Obj).role === "assistant") {
      latest = i;
      break;
    }
  for (let i = 0; i < messages.length; i++) {
    const m = messages[i] as Obj;
    if (m.role !== "assistant") continue;
    const blocks = blocksOf(m.content);
    for (let j = 0; j < blocks.length; j++) {
      const b = blocks[j] as Obj;
      if (b.type !== "thinking") continue;
      if (!verifySignature(opts.secret, b.thinking as string, b.signature as string)) {
        return i === latest
          ? bad(
              `messages.${i}.content.${j}: \`thinking\` or \`redacted_thinking\` blocks in the latest assistant message cannot be modified. These blocks must remain as they were in the original response.`,
            )
          : bad(`messages.${i}.content.${j}: Invalid \`signature\` in \`thinking\` block`);
      }
    }
    if (i === latest && opts.issued) {
      const e = compareWithIssued(blocks, i, opts.issued);
      if (e) return e;
    }
  }
  return null;
}

function compareWithIssued(blocks: Obj[], i: number, issued: IssuedContent): ApiError | null {
  const key = blocks.find((b) => b.type === "tool_use")?.id as string | undefined;
  const original = key ? issued.get(key) : undefined;
  if (!original) return null;
  const thinkingOf = (bs: Obj[]) =>
    bs.map((b, j) => ({ b, j })).filter(({ b }) => b.type === "thinking" || b.type === "redacted_thinking");
  const sent = thinkingOf(blocks);
  const orig = thinkingOf(original);
  for (let k = 0; k < orig.length; k++) {
    const o = orig[k]!;
    const s = sent[k];
    const same =
      s !== undefined &&
      s.j === o.j &&
      s.b.type === o.b.type &&
      s.b.thinking === o.b.thinking &&
      s.b.signature === o.b.signature &&
      s.b.data === o.b.data;
    if (!same)
      return bad(
        `messages.${i}.content.${s?.j ?? o.j}: \`thinking\` or \`redacted_thinking\` blocks in the latest assistant message cannot be modified. These blocks must remain as they were in the original response.`,
      );
  }
  return null;
}
