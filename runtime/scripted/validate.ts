/**
 * Request validation, as the real Messages API does it, with the API's own error texts
 * (see api-notes: the texts are those quoted in public reports against the real API).
 *
 * It checks one request at a time and returns the FIRST problem, as the API does. It must never
 * reject what the real API accepts: tool results in any order, text after the results, a
 * result whose content is an array of blocks, a final assistant message (prefill).
 */
import { verifySignature } from "./signature.ts";

export interface ApiError {
  status: number;
  type: "invalid_request_error" | "not_found_error";
  message: string;
}

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
/** What a tool_result's content list may hold (ToolResultBlockParam in the SDK). */
const RESULT_BLOCKS = ["text", "image", "search_result", "document", "tool_reference", "browser_state"];
const TOOL_NAME = /^[a-zA-Z0-9_-]{1,128}$/;

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
}

export function validateRequest(body: unknown, opts: ValidateOptions): ApiError | null {
  if (!isObj(body)) return bad("Input should be a valid dictionary");
  if (body.model === undefined) return bad("model: Field required");
  if (typeof body.model !== "string" || body.model.length === 0) return bad("model: Input should be a valid string");
  if (body.max_tokens === undefined) return bad("max_tokens: Field required");
  if (typeof body.max_tokens !== "number" || !Number.isInteger(body.max_tokens))
    return bad("max_tokens: Input should be a valid integer");
  if (body.max_tokens < 1) return bad("max_tokens: Input should be greater than or equal to 1");
  if (body.messages === undefined) return bad("messages: Field required");
  if (!Array.isArray(body.messages)) return bad("messages: Input should be a valid list");
  if (body.messages.length === 0) return bad("messages: at least one message is required");

  const toolError = validateTools(body.tools);
  if (toolError) return toolError;
  if (body.system !== undefined && typeof body.system !== "string" && !Array.isArray(body.system))
    return bad("system: Input should be a valid string");
  if (Array.isArray(body.system))
    for (const b of body.system as unknown[])
      if (isObj(b) && b.type === "text" && (typeof b.text !== "string" || b.text.length === 0))
        return bad("system: text content blocks must be non-empty");
  const rangeError = validateSampling(body);
  if (rangeError) return rangeError;

  const breakpoints = countCacheControl(body);
  if (breakpoints > 4) return bad(`A maximum of 4 blocks with cache_control may be provided. Found ${breakpoints}.`);

  const messages = body.messages as unknown[];
  for (let i = 0; i < messages.length; i++) {
    const m = messages[i];
    if (!isObj(m)) return bad(`messages.${i}: Input should be a valid dictionary`);
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
      const e = validateBlock(b, i, j, m.role as string);
      if (e) return e;
    }
  }
  const last = messages[messages.length - 1] as Obj;
  if (last.role === "assistant") {
    const blocks = blocksOf(last.content);
    const tail = blocks[blocks.length - 1];
    if (tail && tail.type === "text" && typeof tail.text === "string" && /\s$/.test(tail.text))
      return bad("messages: final assistant content cannot end with trailing whitespace");
  }
  return validatePairing(messages as Obj[]) ?? validateThinking(messages as Obj[], opts);
}

/** Cache breakpoints in a request: tools, system blocks and message blocks with a cache_control. */
function countCacheControl(body: Obj): number {
  const marked = (b: unknown) => isObj(b) && isObj(b.cache_control);
  const tools = Array.isArray(body.tools) ? (body.tools as unknown[]) : [];
  const system = Array.isArray(body.system) ? (body.system as unknown[]) : [];
  const blocks = Array.isArray(body.messages) ? (body.messages as unknown[]).flatMap((m) => (isObj(m) && Array.isArray(m.content) ? (m.content as unknown[]) : [])) : [];
  return [...tools, ...system, ...blocks].filter(marked).length;
}

/** temperature, top_p, top_k and extended thinking's budget, as the API bounds them. */
function validateSampling(body: Obj): ApiError | null {
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
  if (isObj(thinking) && thinking.type === "enabled") {
    const budget = thinking.budget_tokens;
    if (budget === undefined) return bad("thinking.enabled.budget_tokens: Field required");
    if (typeof budget !== "number" || !Number.isInteger(budget)) return bad("thinking.enabled.budget_tokens: Input should be a valid integer");
    if (budget < 1024) return bad("thinking.enabled.budget_tokens: Input should be greater than or equal to 1024");
    if (typeof body.max_tokens === "number" && body.max_tokens <= budget)
      return bad("`max_tokens` must be greater than `thinking.budget_tokens`");
  }
  return null;
}

function validateTools(tools: unknown): ApiError | null {
  if (tools === undefined) return null;
  if (!Array.isArray(tools)) return bad("tools: Input should be a valid list");
  const names = new Set<string>();
  for (let i = 0; i < tools.length; i++) {
    const t = tools[i];
    if (!isObj(t)) return bad(`tools.${i}: Input should be a valid dictionary`);
    if (t.type !== undefined && t.type !== "custom") {
      // A server tool (web_search_…, bash_…): accepted as declared, never called by this model.
      if (typeof t.name === "string") names.add(t.name);
      continue;
    }
    if (t.name === undefined) return bad(`tools.${i}.custom.name: Field required`);
    if (typeof t.name !== "string" || !TOOL_NAME.test(t.name))
      return bad(`tools.${i}.custom.name: String should match pattern '^[a-zA-Z0-9_-]{1,128}$'`);
    if (t.input_schema === undefined) return bad(`tools.${i}.custom.input_schema: Field required`);
    if (!isObj(t.input_schema)) return bad(`tools.${i}.custom.input_schema: Input should be a valid dictionary`);
    if (t.input_schema.type !== "object") return bad(`tools.${i}.custom.input_schema.type: Input should be 'object'`);
    if (t.description !== undefined && typeof t.description !== "string")
      return bad(`tools.${i}.custom.description: Input should be a valid string`);
    if (names.has(t.name)) return bad("tools: Tool names must be unique.");
    names.add(t.name);
  }
  return null;
}

function validateBlock(b: Obj, i: number, j: number, role: string): ApiError | null {
  const at = `messages.${i}.content.${j}`;
  switch (b.type) {
    case "text":
      if (typeof b.text !== "string") return bad(`${at}.text.text: Field required`);
      if (b.text.length === 0) return bad("messages: text content blocks must be non-empty");
      if (b.text.trim().length === 0) return bad("messages: text content blocks must contain non-whitespace text");
      return null;
    case "tool_use":
      if (role !== "assistant") return bad(`${at}: \`tool_use\` blocks can only be in \`assistant\` messages`);
      if (typeof b.id !== "string") return bad(`${at}.tool_use.id: Field required`);
      if (typeof b.name !== "string") return bad(`${at}.tool_use.name: Field required`);
      if (!isObj(b.input)) return bad(`${at}.tool_use.input: Input should be a valid dictionary`);
      return null;
    case "tool_result": {
      if (role !== "user") return bad(`${at}: \`tool_result\` blocks can only be in \`user\` messages`);
      if (typeof b.tool_use_id !== "string") return bad(`${at}.tool_result.tool_use_id: Field required`);
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
          if (inner.type === "text" && (typeof inner.text !== "string" || inner.text.length === 0))
            return bad("messages: text content blocks must be non-empty");
        }
      }
      const emptyContent = c === undefined || (typeof c === "string" && c.length === 0) || (Array.isArray(c) && c.length === 0);
      if (b.is_error === true && emptyContent) return bad(`${at}.tool_result: content cannot be empty if \`is_error\` is true`);
      return null;
    }
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
