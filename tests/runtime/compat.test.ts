/**
 * The scripted model as an Anthropic-compatible server (`npm run offline-model`), started here on
 * 127.0.0.1 with a free port and stopped after:
 *
 * - a corpus of valid and invalid requests gets the real API's status, error type and wording
 *   (valid ones an answer that matches the API's response schema), under both API versions
 *   (2023-06-01, and 2026-10-21 as SDK 1.14 sends it), for the models of the table, with the
 *   thinking rules and the values the API checks (each round-three case names its source);
 * - the official SDK, all of it: messages.create, messages.stream() + finalMessage(), an aborted
 *   stream, the headers it sends, its beta names, max_tokens 0 and the cache, countTokens,
 *   models.list (paged) and retrieve, withResponse() headers, toolRunner with betaZodTool (with
 *   its default message threads, which the model refuses so the runner goes on without them);
 * - a client that is not the SDK (plain fetch, as curl would): a plain answer, a streamed answer
 *   read from the raw SSE, and a multi-step tool loop.
 */
import Anthropic from "@anthropic-ai/sdk";
import { betaZodTool } from "@anthropic-ai/sdk/helpers/beta/zod";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { MAX_REQUEST_BYTES, SDK_API_VERSION } from "../../runtime/scripted/model.ts";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { findModel, MODEL_TABLE, MODELS } from "../../runtime/scripted/models.ts";
import {
  CountTokens,
  ErrorBody,
  Message as MessageSchema,
  ModelInfo,
  ModelList,
  StreamEvent as StreamEventSchema,
  shapeProblems,
} from "../../runtime/scripted/schema.ts";
import { startServer, type RunningServer } from "../../runtime/scripted/server.ts";
import { API_VERSIONS, KNOWN_BETAS, THREADS_UNSUPPORTED } from "../../runtime/scripted/validate.ts";

const HEADERS = { "content-type": "application/json", "x-api-key": "offline", "anthropic-version": "2023-06-01" };

let server: RunningServer;
let s02: RunningServer;
beforeAll(async () => {
  server = await startServer({ port: 0, host: "127.0.0.1" });
  // As `npm run offline-model -- --scenario s02_tool_dispatch`: a multi-step tool task.
  s02 = await startServer({ port: 0, host: "127.0.0.1", scenario: "s02_tool_dispatch" });
});
afterAll(async () => {
  await Promise.all([server?.close(), s02?.close()]);
});

// ── The request corpus ──────────────────────────────────────────────────────────────────────

type Json = Record<string, unknown>;
interface Case {
  name: string;
  body?: Json;
  method?: "GET" | "POST";
  path?: string;
  /** Headers to add, or to remove (value null). */
  headers?: Record<string, string | null>;
  status: number;
  type?: string;
  message?: string | RegExp;
}

const ask = [{ role: "user", content: "hi" }];
const base = (extra: Json = {}): Json => ({ model: "scripted-model", max_tokens: 256, messages: ask, ...extra });
const bash = { name: "bash", description: "Run a shell command.", input_schema: { type: "object", properties: { command: { type: "string" } }, required: ["command"] } };
const PNG = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==";
const afterCall = (content: unknown): Json =>
  base({
    tools: [bash],
    messages: [
      { role: "user", content: "list the files" },
      { role: "assistant", content: [{ type: "tool_use", id: "toolu_corpus01", name: "bash", input: { command: "ls" } }] },
      { role: "user", content },
    ],
  });
const EXTRA = (field: string) => `${field}: Extra inputs are not permitted`;
const bad = (name: string, body: Json, message: string | RegExp, extra: Partial<Case> = {}): Case => ({
  name,
  body,
  status: 400,
  type: "invalid_request_error",
  message,
  ...extra,
});
const ok = (name: string, body: Json, extra: Partial<Case> = {}): Case => ({ name, body, status: 200, ...extra });

const VALID: Case[] = [
  ok("the smallest request", base()),
  ok("system as a string", base({ system: "Be brief." })),
  ok("system as blocks with cache_control", base({ system: [{ type: "text", text: "Be brief.", cache_control: { type: "ephemeral" } }] })),
  ok("cache_control with a 1h ttl on a tool", base({ tools: [{ ...bash, cache_control: { type: "ephemeral", ttl: "1h" } }] })),
  ok("cache_control on a message block", base({ messages: [{ role: "user", content: [{ type: "text", text: "hi", cache_control: { type: "ephemeral" } }] }] })),
  ok("top-level cache_control", base({ cache_control: { type: "ephemeral" } })),
  ok("a server tool beside a client tool", base({ tools: [bash, { type: "web_search_20250305", name: "web_search", max_uses: 3 }] })),
  ok("the text editor server tool", base({ tools: [{ type: "text_editor_20250728", name: "str_replace_based_edit_tool" }] })),
  ok("a rich input_schema (nested objects, arrays, enums, $defs, anyOf inside)", base({
    tools: [{
      name: "plan",
      input_schema: {
        $schema: "https://json-schema.org/draft/2020-12/schema",
        type: "object",
        properties: {
          steps: { type: "array", items: { $ref: "#/$defs/step" }, minItems: 1 },
          mode: { type: "string", enum: ["fast", "careful"] },
          limit: { anyOf: [{ type: "integer" }, { type: "null" }] },
          tags: { type: ["array", "null"], items: { type: "string" } },
        },
        required: ["steps"],
        additionalProperties: false,
        $defs: { step: { type: "object", properties: { cmd: { type: "string" } }, required: ["cmd"] } },
      },
    }],
  })),
  ok("a client tool with type custom", base({ tools: [{ type: "custom", ...bash }] })),
  ok("an image (base64)", base({ messages: [{ role: "user", content: [{ type: "image", source: { type: "base64", media_type: "image/png", data: PNG } }, { type: "text", text: "what is this?" }] }] })),
  ok("an image (url)", base({ messages: [{ role: "user", content: [{ type: "image", source: { type: "url", url: "https://example.com/a.png" } }, { type: "text", text: "and this?" }] }] })),
  ok("a plain-text document", base({ messages: [{ role: "user", content: [{ type: "document", source: { type: "text", media_type: "text/plain", data: "notes" } }, { type: "text", text: "sum up" }] }] })),
  ok("metadata with a user id", base({ metadata: { user_id: "user-1234" } })),
  ok("service_tier auto", base({ service_tier: "auto" })),
  ok("service_tier standard_only", base({ service_tier: "standard_only" })),
  ok("stop_sequences", base({ stop_sequences: ["\n\nHuman:", "STOP"] })),
  ok("tool_choice auto", base({ tools: [bash], tool_choice: { type: "auto" } })),
  ok("tool_choice any, no parallel calls", base({ tools: [bash], tool_choice: { type: "any", disable_parallel_tool_use: true } })),
  ok("tool_choice naming a tool", base({ tools: [bash], tool_choice: { type: "tool", name: "bash" } })),
  ok("tool_choice none", base({ tools: [bash], tool_choice: { type: "none" } })),
  ok("thinking within max_tokens", base({ max_tokens: 2048, thinking: { type: "enabled", budget_tokens: 1024 } })),
  ok("thinking with temperature 1", base({ max_tokens: 2048, temperature: 1, thinking: { type: "enabled", budget_tokens: 1024 } })),
  ok("thinking disabled", base({ thinking: { type: "disabled" } })),
  ok("adaptive thinking", base({ thinking: { type: "adaptive" } })),
  ok("temperature, top_p, top_k", base({ temperature: 0.2, top_p: 0.9, top_k: 40 })),
  ok("stream: true", base({ stream: true })),
  ok("tool results as blocks, then text", afterCall([{ type: "tool_result", tool_use_id: "toolu_corpus01", content: [{ type: "text", text: "a.txt" }] }, { type: "text", text: "go on" }])),
  ok("an error result", afterCall([{ type: "tool_result", tool_use_id: "toolu_corpus01", content: "ls: denied", is_error: true }])),
  ok("a final assistant prefill", base({ messages: [...ask, { role: "assistant", content: "Hello" }] })),
  ok("a bearer token instead of x-api-key", base(), { headers: { "x-api-key": null, authorization: "Bearer offline" } }),
  ok("context_management with its beta", base({ context_management: { edits: [] } }), { headers: { "anthropic-beta": "context-management-2025-06-27" } }),
  ok("mcp_servers with its beta", base({ mcp_servers: [] }), { headers: { "anthropic-beta": "token-efficient-tools-2025-02-19, mcp-client-2025-11-20" } }),
  ok("thread: null with the threads beta", base({ thread: null }), { headers: { "anthropic-beta": "message-threads-2026-08-12" } }),
  ok("a beta this model has never heard of", base(), { headers: { "anthropic-beta": "fine-grained-tool-streaming-2025-05-14" } }),
  ok("a text block sent back with citations: null and a tool_use with caller", base({
    tools: [bash],
    messages: [
      { role: "user", content: "list the files" },
      { role: "assistant", content: [{ type: "text", text: "Listing.", citations: null }, { type: "tool_use", id: "toolu_corpus02", name: "bash", input: { command: "ls" }, caller: { type: "direct" } }] },
      { role: "user", content: [{ type: "tool_result", tool_use_id: "toolu_corpus02", content: "a.txt" }] },
    ],
  })),
  ok("count_tokens", { model: "scripted-model", messages: ask }, { path: "/v1/messages/count_tokens" }),
  ok("count_tokens with system and tools", { model: "scripted-model", messages: ask, system: "x", tools: [bash], tool_choice: { type: "auto" } }, { path: "/v1/messages/count_tokens" }),
  ok("list the models", {}, { method: "GET", path: "/v1/models" }),
  ok("one page of models", {}, { method: "GET", path: "/v1/models?limit=1" }),
  ok("one model", {}, { method: "GET", path: "/v1/models/scripted-model" }),
  ok("models filtered by lifecycle (as the SDK sends it), on the beta route", {}, { method: "GET", path: "/v1/models?beta=true&lifecycle[]=active&lifecycle[]=retired" }),
];


// ── Round three: API versions, per-model rules, thinking, values ────────────────────────────
// Sources, by case: [V] the API's 2026-10-21 migration notes (sampling parameters, assistant
// documents and user citations refused under 2026-10-21; 2023-06-01 unchanged), and SDK 1.14's
// client.js (`anthropic-version: 2026-10-21`, the key as `Authorization: Bearer`); [M] each
// model's overview page on platform.claude.com (context window, max output) and the 4.6
// migration notes (prefill refused on 4.6 models; adaptive thinking); [T] the extended-thinking
// docs (the final assistant turn starts with its thinking block; no top_k; no forced tool);
// [S] SDK 1.14's MessageCreateParams (`max_tokens: 0` fills the cache without generating;
// `user_profile_id` and `workspace_id` are header params; ThinkingConfigParam's four types;
// AnthropicBeta's names); [R] the API reference's block params (tool_use id pattern, Base64PDFSource).
const V2026 = { "anthropic-version": "2026-10-21", "x-api-key": null, authorization: "Bearer offline" };
const PDF = "JVBERi0xLjQKJcTl8uXrCg==";
const pdfDoc = { type: "document", source: { type: "base64", media_type: "application/pdf", data: PDF } };
const cited = { type: "text", text: "as the notes say", citations: [{ type: "char_location", cited_text: "notes", document_index: 0, document_title: null, start_char_index: 0, end_char_index: 5 }] };
/** A tool turn and its result, the turn's first block given. */
const toolTurn = (first: Json[], extra: Json = {}): Json =>
  base({
    tools: [bash],
    ...extra,
    messages: [
      { role: "user", content: "list the files" },
      { role: "assistant", content: [...first, { type: "tool_use", id: "toolu_think01", name: "bash", input: { command: "ls" } }] },
      { role: "user", content: [{ type: "tool_result", tool_use_id: "toolu_think01", content: "a.txt" }] },
    ],
  });
const THINKING_ON = { max_tokens: 4096, thinking: { type: "enabled", budget_tokens: 1024 } };

const VALID_ROUND_THREE: Case[] = [
  ok("[V] the smallest request as SDK 1.14 sends it (2026-10-21, a bearer key)", base(), { headers: V2026 }),
  ok("[V] a PDF document in a user message under 2026-10-21", base({ messages: [{ role: "user", content: [pdfDoc, { type: "text", text: "sum up" }] }] }), { headers: V2026 }),
  ok("[V] citations: null and [] on a user's text under 2026-10-21", base({ messages: [{ role: "user", content: [{ type: "text", text: "a", citations: null }, { type: "text", text: "b", citations: [] }] }] }), { headers: V2026 }),
  ok("[V] a document in an assistant message under 2023-06-01", base({ messages: [{ role: "user", content: "read this" }, { role: "assistant", content: [pdfDoc, { type: "text", text: "read" }] }, { role: "user", content: "and?" }] })),
  ok("[V] citations on a user's text under 2023-06-01", base({ messages: [{ role: "user", content: [cited] }] })),
  ok("[V] the SDK's version with x-api-key instead of a bearer key", base(), { headers: { "anthropic-version": "2026-10-21" } }),
  ok("[S] max_tokens 0 (fills the prompt cache, generates nothing)", base({ max_tokens: 0, system: [{ type: "text", text: "cache me", cache_control: { type: "ephemeral" } }] })),
  ok("[S] thinking between_tools (scripted-model takes every type the SDK lists)", base({ thinking: { type: "between_tools" } })),
  ok("[M] max_tokens at the model's output limit (claude-haiku-4-5: 64000)", base({ model: "claude-haiku-4-5", max_tokens: 64_000 })),
  ok("[M] adaptive thinking on claude-sonnet-4-6", base({ model: "claude-sonnet-4-6", thinking: { type: "adaptive" } })),
  ok("[M] temperature alone on claude-haiku-4-5 (2023-06-01)", base({ model: "claude-haiku-4-5", temperature: 0.2 })),
  ok("[M] a prefill on claude-haiku-4-5", base({ model: "claude-haiku-4-5", messages: [...ask, { role: "assistant", content: "Hello" }] })),
  ok("[M] a known model's own page", {}, { method: "GET", path: "/v1/models/claude-opus-4-6" }),
  ok("[T] thinking on, the tool turn starting with its redacted_thinking block", toolTurn([{ type: "redacted_thinking", data: "opaque" }], THINKING_ON)),
  ok("[T] adaptive thinking, a tool turn without thinking (the model may not have thought)", toolTurn([], { thinking: { type: "adaptive" } })),
  ok("[T] thinking off, a tool turn without thinking", toolTurn([{ type: "text", text: "Listing." }])),
  ok("[R] a tool_use id of letters, digits, _ and -", base({ tools: [bash], messages: [{ role: "user", content: "go" }, { role: "assistant", content: [{ type: "tool_use", id: "call-01_AbZ", name: "bash", input: {} }] }, { role: "user", content: [{ type: "tool_result", tool_use_id: "call-01_AbZ", content: "ok" }] }] })),
  ok("[S] a beta name from the SDK's list", base(), { headers: { "anthropic-beta": "interleaved-thinking-2025-05-14" } }),
  ok("[S] count_tokens for a known model under 2026-10-21", { model: "claude-sonnet-4-6", messages: ask }, { path: "/v1/messages/count_tokens", headers: V2026 }),
];

const INVALID_ROUND_THREE: Case[] = [
  bad("[V] temperature under 2026-10-21, even at its default", base({ temperature: 1 }), EXTRA("temperature"), { headers: V2026 }),
  bad("[V] top_p under 2026-10-21", base({ top_p: 0.9 }), EXTRA("top_p"), { headers: V2026 }),
  bad("[V] top_k under 2026-10-21", base({ top_k: 40 }), EXTRA("top_k"), { headers: V2026 }),
  bad("[V] a document in an assistant message under 2026-10-21", base({ messages: [{ role: "user", content: "read this" }, { role: "assistant", content: [pdfDoc, { type: "text", text: "read" }] }, { role: "user", content: "and?" }] }), /^messages\.1\.content\.0: Input tag 'document' found using 'type' does not match any of the expected tags: 'text', /, { headers: V2026 }),
  bad("[V] citations on a user's text under 2026-10-21", base({ messages: [{ role: "user", content: [cited] }] }), /^messages\.0\.content\.0\.text\.citations: /, { headers: V2026 }),
  bad("[V] an anthropic-version the API never published", base(), 'anthropic-version: "2024-01-01" is not a valid version', { headers: { "anthropic-version": "2024-01-01" } }),
  { name: "[M] a model id the table does not have (messages)", body: base({ model: "claude-sonnet-9" }), status: 404, type: "not_found_error", message: "model: claude-sonnet-9" },
  { name: "[M] a model id the table does not have (count_tokens)", body: { model: "gpt-4o", messages: ask }, path: "/v1/messages/count_tokens", status: 404, type: "not_found_error", message: "model: gpt-4o" },
  bad("[M] max_tokens above the model's output limit", base({ model: "claude-sonnet-4-6", max_tokens: 128_001 }), "max_tokens: 128001 > 128000, which is the maximum allowed number of output tokens for claude-sonnet-4-6"),
  bad("[M] a prefill on claude-sonnet-4-6", base({ model: "claude-sonnet-4-6", messages: [...ask, { role: "assistant", content: "Hello" }] }), "This model does not support assistant message prefill. The conversation must end with a user message."),
  bad("[M] temperature with top_p on claude-haiku-4-5", base({ model: "claude-haiku-4-5", temperature: 0.5, top_p: 0.9 }), "`temperature` and `top_p` cannot both be specified for this model. Please use only one."),
  bad("[M] adaptive thinking on claude-haiku-4-5", base({ model: "claude-haiku-4-5", thinking: { type: "adaptive" } }), /^"thinking\.type\.adaptive" is not supported for this model\./),
  bad("[M] between_tools on claude-opus-4-6", base({ model: "claude-opus-4-6", thinking: { type: "between_tools" } }), '"thinking.type.between_tools" is not supported for this model. Use "thinking.type.adaptive" and "output_config.effort" to control thinking behavior.'),
  bad("[T] thinking on, the tool turn not starting with its thinking", toolTurn([{ type: "text", text: "Listing." }], THINKING_ON), "messages.1.content.0.type: Expected `thinking` or `redacted_thinking`, but found `text`. When `thinking` is enabled, a final `assistant` message must start with a thinking block (preceeding the lastmost set of `tool_use` and `tool_result` blocks). We recommend you include thinking blocks from previous turns. To avoid this requirement, disable `thinking`. Please consult our documentation at https://docs.claude.com/en/docs/build-with-claude/extended-thinking"),
  bad("[T] thinking on, a tool turn of calls only", toolTurn([], THINKING_ON), /^messages\.1\.content\.0\.type: Expected `thinking` or `redacted_thinking`, but found `tool_use`\./),
  bad("[T] thinking on and a prefill", base({ ...THINKING_ON, messages: [...ask, { role: "assistant", content: "Hello" }] }), /^messages: prefilling the assistant's answer is not supported when thinking is enabled/),
  bad("[T] thinking on and top_k", base({ ...THINKING_ON, top_k: 5 }), /^`top_k` may not be set when thinking is enabled/),
  bad("[T] adaptive thinking with a temperature other than 1", base({ thinking: { type: "adaptive" }, temperature: 0.2 }), /^`temperature` may only be set to 1 when thinking is enabled\./),
  bad("[T] adaptive thinking while tool_choice forces a tool", base({ tools: [bash], tool_choice: { type: "tool", name: "bash" }, thinking: { type: "adaptive" } }), "Thinking may not be enabled when tool_choice forces tool use."),
  bad("[R] a tool_use id outside the API's pattern", base({ tools: [bash], messages: [{ role: "user", content: "go" }, { role: "assistant", content: [{ type: "tool_use", id: "call:1.a", name: "bash", input: {} }] }, { role: "user", content: [{ type: "tool_result", tool_use_id: "call:1.a", content: "ok" }] }] }), "messages.1.content.0.tool_use.id: String should match pattern '^[a-zA-Z0-9_-]+$'"),
  bad("[R] a base64 document that is not a PDF", base({ messages: [{ role: "user", content: [{ type: "document", source: { type: "base64", media_type: "text/plain", data: "aGk=" } }, { type: "text", text: "sum up" }] }] }), "messages.0.content.0.document.source.base64.media_type: Input should be 'application/pdf'"),
  bad("[R] a key a block inside a tool_result does not have", afterCall([{ type: "tool_result", tool_use_id: "toolu_corpus01", content: [{ type: "text", text: "a.txt", name: "ls" }] }]), EXTRA("messages.2.content.0.tool_result.content.0.text.name")),
  bad("[R] a key an image source does not have", base({ messages: [{ role: "user", content: [{ type: "image", source: { type: "base64", media_type: "image/png", data: PNG, filename: "a.png" } }, { type: "text", text: "what?" }] }] }), EXTRA("messages.0.content.0.image.source.base64.filename")),
  bad("[S] user_profile_id in the body (the SDK sends it as a header)", base({ user_profile_id: "up_1" }), EXTRA("user_profile_id")),
  bad("[S] workspace_id in the body (the SDK sends it as a header)", base({ workspace_id: "wrkspc_1" }), EXTRA("workspace_id")),
  bad("[S] a beta name the API does not know", base(), "Unexpected value(s) `fine-grained-thinking-2099-01-01` for the `anthropic-beta` header. Please consult our documentation at docs.claude.com or try again without the header.", { headers: { "anthropic-beta": "interleaved-thinking-2025-05-14, fine-grained-thinking-2099-01-01" } }),
];

const INVALID: Case[] = [
  { name: "no key at all", body: base(), headers: { "x-api-key": null }, status: 401, type: "authentication_error", message: "x-api-key header is required" },
  { name: "an empty key", body: base(), headers: { "x-api-key": " " }, status: 401, type: "authentication_error", message: "x-api-key header is required" },
  bad("no anthropic-version", base(), "anthropic-version: header is required", { headers: { "anthropic-version": null } }),
  bad("an anthropic-version that is not a version", base(), 'anthropic-version: "latest" is not a valid version', { headers: { "anthropic-version": "latest" } }),
  { name: "models without a key", method: "GET", path: "/v1/models", headers: { "x-api-key": null }, status: 401, type: "authentication_error" },
  bad("response_format (OpenAI)", base({ response_format: { type: "json_object" } }), EXTRA("response_format")),
  bad("extra_body sent as a field", base({ extra_body: {} }), EXTRA("extra_body")),
  bad("betas in the body (the SDK sends them as a header)", base({ betas: ["x"] }), EXTRA("betas")),
  bad("n (OpenAI)", base({ n: 2 }), EXTRA("n")),
  bad("thread without its beta", base({ thread: { type: "create" } }), EXTRA("thread")),
  bad("thread with its beta (not kept here)", base({ thread: { type: "create" } }), THREADS_UNSUPPORTED, { headers: { "anthropic-beta": "message-threads-2026-08-12" } }),
  bad("thread: false in the body (a runner option, not a field)", base({ thread: false }), "thread: Input should be a valid dictionary", { headers: { "anthropic-beta": "message-threads-2026-08-12" } }),
  bad("context_management without its beta", base({ context_management: { edits: [] } }), EXTRA("context_management")),
  bad("mcp_servers with another beta only", base({ mcp_servers: [] }), EXTRA("mcp_servers"), { headers: { "anthropic-beta": "context-management-2025-06-27" } }),
  bad("an OpenAI-style function tool", base({ tools: [{ type: "function", function: { name: "bash", parameters: { type: "object" } } }] }), /^tools\.0: Input tag 'function' found using 'type' does not match any of the expected tags: 'custom', /),
  bad("a server tool type that does not exist", base({ tools: [{ type: "web_search_20990101", name: "web_search" }] }), /^tools\.0: Input tag 'web_search_20990101'/),
  bad("a client tool without input_schema", base({ tools: [{ name: "bash", description: "Run" }] }), "tools.0.custom.input_schema: Field required"),
  bad("a client tool with OpenAI's parameters", base({ tools: [{ name: "bash", parameters: { type: "object" } }] }), EXTRA("tools.0.custom.parameters")),
  bad("an input_schema that is not JSON Schema (a type that does not exist)", base({ tools: [{ name: "t", input_schema: { type: "object", properties: { n: { type: "int" } } } }] }), /^tools\.0\.custom\.input_schema: JSON schema is invalid\. It must match JSON Schema draft 2020-12/),
  bad("an input_schema whose required is not a list", base({ tools: [bash, { name: "t", input_schema: { type: "object", required: "n" } }] }), /^tools\.1\.custom\.input_schema: JSON schema is invalid/),
  bad("anyOf at the top of input_schema", base({ tools: [{ name: "pick", input_schema: { type: "object", anyOf: [{ required: ["a"] }] } }] }), "tools.0.custom.input_schema: input_schema does not support oneOf, allOf, or anyOf at the top level"),
  bad("tool_choice without tools", base({ tool_choice: { type: "auto" } }), /^tool_choice: /),
  bad("tool_choice any without tools", base({ tool_choice: { type: "any" } }), /^tool_choice: /),
  bad("tool_choice naming a tool not offered", base({ tools: [bash], tool_choice: { type: "tool", name: "read_file" } }), /^tool_choice: .*read_file/),
  bad("tool_choice tool without a name", base({ tools: [bash], tool_choice: { type: "tool" } }), "tool_choice.tool.name: Field required"),
  bad("tool_choice 'required' (OpenAI)", base({ tools: [bash], tool_choice: { type: "required" } }), /^tool_choice: Input tag 'required'/),
  bad("tool_choice as a bare string", base({ tools: [bash], tool_choice: "auto" }), "tool_choice: Input should be a valid dictionary"),
  bad("thinking while tool_choice forces a tool", base({ max_tokens: 4096, tools: [bash], tool_choice: { type: "any" }, thinking: { type: "enabled", budget_tokens: 1024 } }), "Thinking may not be enabled when tool_choice forces tool use."),
  bad("a thinking budget not below max_tokens", base({ max_tokens: 1024, thinking: { type: "enabled", budget_tokens: 1024 } }), "`max_tokens` must be greater than `thinking.budget_tokens`"),
  bad("thinking with a temperature other than 1", base({ max_tokens: 4096, temperature: 0.3, thinking: { type: "enabled", budget_tokens: 1024 } }), /^`temperature` may only be set to 1 when thinking is enabled\./),
  bad("an unknown thinking type", base({ thinking: { type: "deep" } }), /^thinking: Input tag 'deep'/),
  bad("service_tier priority", base({ service_tier: "priority" }), "service_tier: Input should be 'auto' or 'standard_only'"),
  bad("metadata with another key", base({ metadata: { user_id: "u", session: "s" } }), EXTRA("metadata.session")),
  bad("stop_sequences as a string", base({ stop_sequences: "STOP" }), "stop_sequences: Input should be a valid list"),
  bad("stream as a string", base({ stream: "yes" }), "stream: Input should be a valid boolean"),
  bad("cache_control of another type", base({ system: [{ type: "text", text: "x", cache_control: { type: "persistent" } }] }), "system.0.cache_control.type: Input should be 'ephemeral'"),
  bad("a message with a name (OpenAI)", base({ messages: [{ role: "user", content: "hi", name: "ann" }] }), EXTRA("messages.0.name")),
  bad("a key a block does not have (tool_use.text)", base({
    messages: [
      { role: "user", content: "go" },
      { role: "assistant", content: [{ type: "tool_use", id: "toolu_corpus03", name: "bash", input: {}, text: "x" }] },
      { role: "user", content: [{ type: "tool_result", tool_use_id: "toolu_corpus03", content: "ok" }] },
    ],
  }), EXTRA("messages.1.content.0.tool_use.text")),
  bad("a tool_result with OpenAI's name", afterCall([{ type: "tool_result", tool_use_id: "toolu_corpus01", content: "x", name: "bash" }]), EXTRA("messages.2.content.0.tool_result.name")),
  bad("an anthropic-beta value that is no beta", base(), /^Unexpected value\(s\) `banana` for the `anthropic-beta` header/, { headers: { "anthropic-beta": "banana" } }),
  bad("a system message in messages", base({ messages: [{ role: "system", content: "x" }, ...ask] }), "messages.0.role: Input should be 'user' or 'assistant'"),
  bad("no max_tokens", { model: "scripted-model", messages: ask }, "max_tokens: Field required"),
  bad("max_tokens below 0", base({ max_tokens: -1 }), "max_tokens: Input should be greater than or equal to 0"),
  bad("no messages", base({ messages: [] }), "messages: at least one message is required"),
  bad("an OpenAI function_call block", base({ messages: [{ role: "user", content: [{ type: "function_call", name: "x" }] }] }), /^messages\.0\.content\.0: Input tag 'function_call'/),
  bad("a result nobody asked for", base({ messages: [{ role: "user", content: [{ type: "tool_result", tool_use_id: "toolu_nobody", content: "x" }] }] }), /unexpected `tool_use_id` found in `tool_result` blocks: toolu_nobody/),
  bad("a call left unanswered", afterCall("what next?"), /`tool_use` ids were found without `tool_result` blocks immediately after: toolu_corpus01/),
  bad("count_tokens with max_tokens", base(), EXTRA("max_tokens"), { path: "/v1/messages/count_tokens" }),
  bad("count_tokens with stream", { model: "scripted-model", messages: ask, stream: true }, EXTRA("stream"), { path: "/v1/messages/count_tokens" }),
  bad("a lifecycle that does not exist", {}, "lifecycle.0: Input should be 'active', 'deprecated' or 'retired'", { method: "GET", path: "/v1/models?lifecycle[]=gone" }),
  bad("a page of models of size 0", {}, "limit: Input should be greater than or equal to 1", { method: "GET", path: "/v1/models?limit=0" }),
  { name: "a model that does not exist", method: "GET", path: "/v1/models/claude-nonexistent-9", status: 404, type: "not_found_error", message: "model: claude-nonexistent-9" },
  { name: "a route that does not exist", body: base(), path: "/v1/complete", status: 404, type: "not_found_error" },
];

async function send(c: Case, url = server.url): Promise<Response> {
  const headers: Record<string, string> = { ...HEADERS };
  for (const [k, v] of Object.entries(c.headers ?? {})) {
    if (v === null) delete headers[k];
    else headers[k] = v;
  }
  const method = c.method ?? "POST";
  return fetch(`${url}${c.path ?? "/v1/messages"}`, { method, headers, ...(method === "POST" ? { body: JSON.stringify(c.body ?? {}) } : {}) });
}

/** The schema an answer to this case must match. */
function schemaFor(c: Case) {
  const path = c.path ?? "/v1/messages";
  if (path.startsWith("/v1/messages/count_tokens")) return CountTokens;
  if (path === "/v1/models" || path.startsWith("/v1/models?")) return ModelList;
  if (path.startsWith("/v1/models/")) return ModelInfo;
  return MessageSchema;
}

/** The events of an SSE body: `event:` and `data:` lines, as any client reads them. */
function readSse(text: string): Array<{ event: string; data: Json }> {
  return text
    .split("\n\n")
    .filter((frame) => frame.trim().length > 0)
    .map((frame) => {
      const lines = frame.split("\n");
      const event = lines.find((l) => l.startsWith("event: "))?.slice(7) ?? "";
      const data = JSON.parse(lines.find((l) => l.startsWith("data: "))?.slice(6) ?? "null") as Json;
      return { event, data };
    });
}

// ── Round four: the models the API serves, each with its own rules ──────────────────────────
// Sources: [L] each model's overview page (context window, max output, lifecycle) and the model
// deprecations page; public reports of the API's 404 for retired ids (`model: claude-sonnet-4-20250514`,
// `model: claude-3-7-sonnet-latest`); [K] the thinking troubleshooting page (4.7 and later refuse
// `enabled`; 4.5 and earlier take only `enabled`), public reports of the refusal's words for
// claude-opus-4-7, and the extended-thinking docs (budget at least 1024 and under max_tokens,
// except with the interleaved-thinking beta); [N] the newer models' migration notes (Opus 4.7
// and later: sampling parameters refused; Sonnet 5.5: `between_tools`, forced tool use refused;
// Fable: thinking always on); [S] the API's own migration and error notes (temperature OR top_p on
// every Claude 4 model; Opus 4.7, 4.8 and Fable 5 refuse sampling parameters at any value, Sonnet 5
// only at non-default ones; `xhigh` from Opus 4.7 and Sonnet 5 on, `max` from Opus 4.6 and Sonnet
// 4.6 on); [O] What's new in Opus 5.5 and Sonnet 5.5 (forced tool use refused on Opus 5.5; Opus 5's
// `disabled` and Sonnet 5.5's `between_tools` only at effort high or below). Texts marked (ours)
// are this model's words.
const INTERLEAVED = { "anthropic-beta": "interleaved-thinking-2025-05-14" };
const on = (model: string, extra: Json = {}): Json => base({ model, ...extra });
const VALID_MODELS: Case[] = [
  ok("[L] claude-sonnet-4-5 (an alias, as in many tutorials)", on("claude-sonnet-4-5")),
  ok("[L] claude-sonnet-4-5-20250929 (its dated id)", on("claude-sonnet-4-5-20250929")),
  ok("[L] claude-opus-4-5 and claude-haiku-4-5-20251001", on("claude-opus-4-5", { max_tokens: 64_000 })),
  ok("[L] claude-haiku-5-5 at its output limit (128000)", on("claude-haiku-5-5", { max_tokens: 128_000 })),
  ok("[K] extended thinking on claude-sonnet-4-5 (budget 1024 < max_tokens)", on("claude-sonnet-4-5", THINKING_ON)),
  ok("[K] extended thinking on claude-opus-4-6 (deprecated there, still works)", on("claude-opus-4-6", THINKING_ON)),
  ok("[K] interleaved thinking: a budget over max_tokens with the beta (claude-sonnet-4-5)", on("claude-sonnet-4-5", { max_tokens: 4096, thinking: { type: "enabled", budget_tokens: 16_000 } }), { headers: INTERLEAVED }),
  ok("[K] adaptive thinking and effort xhigh on claude-opus-4-7", on("claude-opus-4-7", { thinking: { type: "adaptive" }, output_config: { effort: "xhigh" } })),
  ok("[K] thinking disabled on claude-opus-4-8", on("claude-opus-4-8", { thinking: { type: "disabled" } })),
  ok("[K] adaptive thinking with display omitted on claude-sonnet-4-6", on("claude-sonnet-4-6", { thinking: { type: "adaptive", display: "omitted" } })),
  ok("[N] between_tools on claude-sonnet-5-5", on("claude-sonnet-5-5", { thinking: { type: "between_tools" } })),
  ok("[N] effort on claude-opus-4-5", on("claude-opus-4-5", { output_config: { effort: "low" } })),
  ok("[N] temperature alone on claude-sonnet-4-5 (2023-06-01)", on("claude-sonnet-4-5", { temperature: 0.5 })),
  ok("[S] temperature 1 (its default) on claude-sonnet-5 (2023-06-01: non-default values are refused)", on("claude-sonnet-5", { temperature: 1 })),
  ok("[S] effort max on claude-sonnet-4-6", on("claude-sonnet-4-6", { output_config: { effort: "max" } })),
  ok("[S] effort xhigh on claude-sonnet-5", on("claude-sonnet-5", { output_config: { effort: "xhigh" } })),
  ok("[O] thinking disabled on claude-opus-5 at effort high", on("claude-opus-5", { thinking: { type: "disabled" }, output_config: { effort: "high" } })),
  ok("[O] thinking disabled on claude-opus-5 with no effort (its default is high)", on("claude-opus-5", { thinking: { type: "disabled" } })),
  ok("[O] between_tools on claude-sonnet-5-5 at effort medium", on("claude-sonnet-5-5", { thinking: { type: "between_tools" }, output_config: { effort: "medium" } })),
  ok("[L] claude-mythos-5 (by invitation; Fable 5's specifications)", on("claude-mythos-5", { max_tokens: 128_000 })),
  ok("[L] a retired Claude 3 model's own page", {}, { method: "GET", path: "/v1/models/claude-3-haiku-20240307" }),
  ok("[N] a prefill on claude-sonnet-4-5", on("claude-sonnet-4-5", { messages: [...ask, { role: "assistant", content: "Hello" }] })),
  ok("[N] tool_choice auto on claude-fable-5-1", on("claude-fable-5-1", { tools: [bash], tool_choice: { type: "auto" } })),
  ok("[L] a retired model's own page (it stays in the catalogue)", {}, { method: "GET", path: "/v1/models/claude-opus-4-1" }),
  ok("[L] an alias's page (the API resolves it)", {}, { method: "GET", path: "/v1/models/claude-sonnet-4-5" }),
  ok("[L] the retired models' list", {}, { method: "GET", path: "/v1/models?lifecycle[]=retired" }),
];
const gone = (id: string): Case => ({ name: `[L] ${id}, retired: the API's 404`, body: on(id), status: 404, type: "not_found_error", message: `model: ${id}` });
const INVALID_MODELS: Case[] = [
  gone("claude-sonnet-4-20250514"),
  gone("claude-opus-4-1"),
  gone("claude-3-7-sonnet-latest"),
  gone("claude-3-5-haiku-latest"),
  gone("claude-3-opus-20240229"),
  { name: "[L] a retired model, count_tokens", body: { model: "claude-sonnet-4-0", messages: ask }, path: "/v1/messages/count_tokens", status: 404, type: "not_found_error", message: "model: claude-sonnet-4-0" },
  bad("[L] max_tokens above claude-sonnet-4-5's limit", on("claude-sonnet-4-5", { max_tokens: 64_001 }), "max_tokens: 64001 > 64000, which is the maximum allowed number of output tokens for claude-sonnet-4-5-20250929"),
  bad("[K] extended thinking on claude-opus-4-7", on("claude-opus-4-7", THINKING_ON), '"thinking.type.enabled" is not supported for this model. Use "thinking.type.adaptive" and "output_config.effort" to control thinking behavior.'),
  bad("[K] thinking disabled on claude-fable-5 (always on)", on("claude-fable-5", { thinking: { type: "disabled" } }), /^"thinking\.type\.disabled" is not supported for this model\./),
  bad("[K] thinking disabled on claude-sonnet-5-5 (between_tools instead)", on("claude-sonnet-5-5", { thinking: { type: "disabled" } }), /^"thinking\.type\.disabled" is not supported for this model\./),
  bad("[K] adaptive thinking on claude-sonnet-4-5", on("claude-sonnet-4-5", { thinking: { type: "adaptive" } }), '"thinking.type.adaptive" is not supported for this model. This model takes: "thinking.type.enabled", "thinking.type.disabled".'),
  bad("[K] a budget under 1024 on claude-haiku-4-5", on("claude-haiku-4-5", { max_tokens: 4096, thinking: { type: "enabled", budget_tokens: 1023 } }), "thinking.enabled.budget_tokens: Input should be greater than or equal to 1024"),
  bad("[K] a budget over max_tokens without the interleaved beta", on("claude-sonnet-4-5", { max_tokens: 4096, thinking: { type: "enabled", budget_tokens: 16_000 } }), "`max_tokens` must be greater than `thinking.budget_tokens`"),
  bad("[K] a budget equal to max_tokens on claude-opus-4-6, without the beta", on("claude-opus-4-6", { max_tokens: 2048, thinking: { type: "enabled", budget_tokens: 2048 } }), "`max_tokens` must be greater than `thinking.budget_tokens`"),
  bad("[K] (ours) an interleaved budget past the context window", on("claude-sonnet-4-5", { max_tokens: 4096, thinking: { type: "enabled", budget_tokens: 200_000 } }), "thinking.enabled.budget_tokens: Input should be less than 200000", { headers: INTERLEAVED }),
  bad("[N] (ours) effort on claude-haiku-4-5", on("claude-haiku-4-5", { output_config: { effort: "high" } }), /^output_config\.effort: this model does not support the effort parameter\./),
  bad("[N] (ours) effort on claude-sonnet-4-5", on("claude-sonnet-4-5", { output_config: { effort: "low" } }), /^output_config\.effort: this model does not support the effort parameter\./),
  bad("[N] (ours) an effort level that does not exist", on("claude-opus-4-6", { output_config: { effort: "extreme" } }), "output_config.effort: Input should be 'low', 'medium', 'high', 'xhigh' or 'max'"),
  bad("[N] (ours) temperature 0.5 on claude-opus-4-7 (2023-06-01)", on("claude-opus-4-7", { temperature: 0.5 }), /^`temperature` is not supported for this model/),
  bad("[S] (ours) temperature 1, its default, on claude-opus-4-7 (2023-06-01: any value is refused)", on("claude-opus-4-7", { temperature: 1 }), /^`temperature` is not supported for this model: it takes no sampling parameters, not even at their defaults/),
  bad("[S] (ours) top_p 1 on claude-fable-5 (2023-06-01)", on("claude-fable-5", { top_p: 1 }), /^`top_p` is not supported for this model: it takes no sampling parameters/),
  bad("[S] temperature with top_p on claude-sonnet-4-5 (2023-06-01: every Claude 4 model takes one)", on("claude-sonnet-4-5", { temperature: 0.5, top_p: 0.9 }), "`temperature` and `top_p` cannot both be specified for this model. Please use only one."),
  bad("[S] (ours) effort xhigh on claude-opus-4-6 (xhigh came with Opus 4.7)", on("claude-opus-4-6", { output_config: { effort: "xhigh" } }), "output_config.effort: 'xhigh' is not supported for this model, which takes 'low', 'medium', 'high', 'max'."),
  bad("[S] (ours) effort max on claude-opus-4-5", on("claude-opus-4-5", { output_config: { effort: "max" } }), /^output_config\.effort: 'max' is not supported for this model, which takes 'low', 'medium', 'high'\.$/),
  bad("[O] (ours) thinking disabled on claude-opus-5 at effort max", on("claude-opus-5", { thinking: { type: "disabled" }, output_config: { effort: "max" } }), /^"thinking\.type\.disabled" is only supported at effort 'low', 'medium', 'high' on this model, not 'max'\./),
  bad("[O] (ours) between_tools on claude-sonnet-5-5 at effort xhigh", on("claude-sonnet-5-5", { thinking: { type: "between_tools" }, output_config: { effort: "xhigh" } }), /^"thinking\.type\.between_tools" is only supported at effort/),
  bad("[O] (ours) a forced tool on claude-opus-5-5", on("claude-opus-5-5", { tools: [bash], tool_choice: { type: "any" } }), /^tool_choice: this model does not support forcing a tool call \(`any`\)/),
  bad("[N] (ours) top_k on claude-sonnet-5 (2023-06-01)", on("claude-sonnet-5", { top_k: 5 }), /^`top_k` is not supported for this model/),
  bad("[N] (ours) a forced tool on claude-sonnet-5-5", on("claude-sonnet-5-5", { tools: [bash], tool_choice: { type: "any" } }), /^tool_choice: this model does not support forcing a tool call \(`any`\)/),
  bad("[N] (ours) a forced tool on claude-fable-5-1", on("claude-fable-5-1", { tools: [bash], tool_choice: { type: "tool", name: "bash" } }), /^tool_choice: this model does not support forcing a tool call \(`tool`\)/),
  bad("[N] a prefill on claude-opus-4-8", on("claude-opus-4-8", { messages: [...ask, { role: "assistant", content: "Hello" }] }), "This model does not support assistant message prefill. The conversation must end with a user message."),
  bad("[K] budget_tokens with adaptive thinking (a budget is `enabled`'s only)", on("claude-opus-4-7", { thinking: { type: "adaptive", budget_tokens: 4000 } }), EXTRA("thinking.adaptive.budget_tokens")),
  bad("[K] a display value the SDK's types do not have", on("claude-sonnet-4-6", { thinking: { type: "adaptive", display: "full" } }), "thinking.adaptive.display: Input should be 'summarized' or 'omitted'"),
  bad("[N] a prefill on claude-haiku-5-5", on("claude-haiku-5-5", { messages: [...ask, { role: "assistant", content: "Hello" }] }), "This model does not support assistant message prefill. The conversation must end with a user message."),
];

describe("a corpus of requests: the API's status, error type and words", () => {
  it("has more than forty cases, valid and invalid", () => {
    expect(VALID.length + INVALID.length).toBeGreaterThan(40);
    expect(VALID.length).toBeGreaterThan(15);
    expect(INVALID.length).toBeGreaterThan(15);
  });

  it.each([...VALID, ...VALID_ROUND_THREE, ...VALID_MODELS].map((c) => [c.name, c] as const))("accepts %s", async (_name, c) => {
    const res = await send(c);
    const text = await res.text();
    expect(res.status, `the API accepts this request; the scripted model answered ${text}`).toBe(200);
    if (c.body?.stream === true) {
      expect(res.headers.get("content-type")).toBe("text/event-stream");
      const events = readSse(text);
      for (const e of events) {
        expect(e.data.type, "each SSE frame's event line names its data's type").toBe(e.event);
        expect(shapeProblems(StreamEventSchema, e.data), `the ${e.event} event is not what the API streams`).toEqual([]);
      }
      expect(events.map((e) => e.event).slice(-2)).toEqual(["message_delta", "message_stop"]);
    } else {
      expect(res.headers.get("content-type")).toBe("application/json");
      expect(shapeProblems(schemaFor(c), JSON.parse(text)), "the answer is not what the API sends").toEqual([]);
    }
  });

  it.each([...INVALID, ...INVALID_ROUND_THREE, ...INVALID_MODELS].map((c) => [c.name, c] as const))("refuses %s", async (_name, c) => {
    const res = await send(c);
    const body = (await res.json()) as { type: string; error: { type: string; message: string }; request_id: string };
    expect(res.status, `the API answers ${c.status}: ${JSON.stringify(body)}`).toBe(c.status);
    expect(shapeProblems(ErrorBody, body), "the error body is not the API's").toEqual([]);
    expect(body.error.type).toBe(c.type);
    expect(body.request_id).toMatch(/^req_/);
    expect(res.headers.get("request-id")).toBe(body.request_id);
    if (typeof c.message === "string") expect(body.error.message).toBe(c.message);
    else if (c.message) expect(body.error.message).toMatch(c.message);
  });

  it("refuses a body over the size limit (the API's 32 MB; 2 kB here, to keep the test fast) with 413 request_too_large", async () => {
    expect(MAX_REQUEST_BYTES).toBe(32 * 1024 * 1024);
    const small = await startServer({ port: 0, host: "127.0.0.1", maxRequestBytes: 2048 });
    try {
      const res = await send({ name: "", body: base({ system: "x".repeat(3000) }), status: 413 }, small.url);
      const body = (await res.json()) as { error: { type: string } };
      expect(res.status).toBe(413);
      expect(shapeProblems(ErrorBody, body)).toEqual([]);
      expect(body.error.type).toBe("request_too_large");
      expect((await send({ name: "", body: base(), status: 200 }, small.url)).status).toBe(200);
    } finally {
      await small.close();
    }
  });

  it("refuses message threads with the error_code the SDK's threads recover from", async () => {
    const res = await send({ name: "", body: base({ thread: { type: "create" } }), headers: { "anthropic-beta": "message-threads-2026-08-12" }, status: 400 });
    const body = (await res.json()) as { error: { message: string; details?: Json } };
    expect(body.error.message).toContain("thread: false");
    expect(body.error.details).toEqual({ error_code: "thread_unsupported_request", unsupported: ["thread"] });
  });
});

/** An in-memory workspace for the s02 task (the scenario lists, reads, edits, then tests). */
function workspace() {
  const files: Record<string, string> = { "README.md": "# greet\n", "src/greet.mjs": "export const greet = (n) => `Helo, ${n}!`;\n" };
  return {
    files,
    list: () => Object.keys(files).join("\n"),
    read: (path: string) => files[path] ?? `no such file: ${path}`,
    edit: (path: string, oldText: string, newText: string) => {
      files[path] = (files[path] ?? "").replace(oldText, newText);
      return `edited ${path}`;
    },
    bash: () => (files["src/greet.mjs"]?.includes("Hello,") ? "1 test passed: greet" : "AssertionError: Helo"),
  };
}


// ── The official SDK ───────────────────────────────────────────────────────────────────────

describe("the official SDK against the standalone server", () => {
  const sdk = (url = server.url) => new Anthropic({ apiKey: "offline", baseURL: url, maxRetries: 0 });

  it("messages.create, and withResponse() gives the API's headers", async () => {
    const { data, response, request_id } = await sdk()
      .messages.create({ model: "scripted-model", max_tokens: 200, messages: [{ role: "user", content: "hello" }] })
      .withResponse();
    expect(shapeProblems(MessageSchema, JSON.parse(JSON.stringify(data)))).toEqual([]);
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toBe("application/json");
    expect(request_id).toMatch(/^req_/);
    expect(response.headers.get("request-id")).toBe(request_id);
  });

  it("messages.stream() + finalMessage() equals create()", async () => {
    const p = { model: "scripted-model", max_tokens: 300, tools: [bash as Anthropic.Tool], messages: [{ role: "user" as const, content: "list the files" }] };
    const client = sdk();
    const json = await client.messages.create(p);
    const stream = client.messages.stream(p);
    const texts: string[] = [];
    stream.on("text", (t) => texts.push(t));
    const final = await stream.finalMessage();
    const { parsed_output: _parsed, ...streamed } = final as Anthropic.Message & { parsed_output?: unknown };
    expect(JSON.parse(JSON.stringify(streamed))).toEqual(JSON.parse(JSON.stringify(json)));
    expect(json.stop_reason).toBe("tool_use");
    expect(texts.join("")).toBe((json.content[0] as Anthropic.TextBlock).text);
  });

  it("countTokens", async () => {
    const r = await sdk().messages.countTokens({ model: "scripted-model", messages: [{ role: "user", content: "hi ".repeat(200) }] });
    expect(r.input_tokens).toBeGreaterThan(100);
  });

  it("an aborted stream: the SDK raises APIUserAbortError, and the server answers the next request", async () => {
    const client = new Anthropic({ apiKey: "offline", baseURL: server.url, maxRetries: 0, defaultHeaders: { "x-scripted-stream-delay-ms": "30" } });
    const ac = new AbortController();
    const stream = client.messages.stream({ model: "scripted-model", max_tokens: 400, messages: [{ role: "user", content: "hello there, tell me about yourself" }] }, { signal: ac.signal });
    let events = 0;
    stream.on("streamEvent", () => {
      if (++events === 2) ac.abort();
    });
    await expect(stream.finalMessage()).rejects.toBeInstanceOf(Anthropic.APIUserAbortError);
    expect(events).toBeGreaterThanOrEqual(2);
    expect((await sdk().messages.create({ model: "scripted-model", max_tokens: 50, messages: [{ role: "user", content: "hi" }] })).type).toBe("message");
  });

  it("what SDK 1.14 sends is what the versioned rules read: anthropic-version 2026-10-21 and the key as a bearer token", async () => {
    const seen: Headers[] = [];
    const client = new Anthropic({
      apiKey: "offline",
      baseURL: server.url,
      maxRetries: 0,
      fetch: (async (url: string | URL | Request, init?: RequestInit) => {
        seen.push(new Headers(init?.headers));
        return fetch(url, init);
      }) as typeof fetch,
    });
    await client.messages.create({ model: "scripted-model", max_tokens: 50, messages: [{ role: "user", content: "hi" }] });
    expect(seen[0]!.get("anthropic-version")).toBe("2026-10-21");
    expect(SDK_API_VERSION, "the version the model's own checks assume is the one the SDK sends").toBe(seen[0]!.get("anthropic-version"));
    expect(API_VERSIONS).toContain("2026-10-21");
    expect(seen[0]!.get("authorization")).toBe("Bearer offline");
    expect(seen[0]!.get("x-api-key")).toBeNull();
    // So a sampling parameter sent through the SDK (as extra body, since its types have none) is refused.
    await expect(
      client.messages.create({ model: "scripted-model", max_tokens: 50, messages: [{ role: "user", content: "hi" }] }, { body: { model: "scripted-model", max_tokens: 50, messages: [{ role: "user", content: "hi" }], temperature: 0 } }),
    ).rejects.toThrow(/temperature: Extra inputs are not permitted/);
  });

  it("every beta name in SDK 1.14's AnthropicBeta type is one the model knows", () => {
    const dts = readFileSync(join(process.cwd(), "node_modules/@anthropic-ai/sdk/resources/beta/beta.d.ts"), "utf8");
    const union = /export type AnthropicBeta = ([^;]+);/.exec(dts)?.[1] ?? "";
    const names = [...union.matchAll(/'([^']+)'/g)].map((m) => m[1]!);
    expect(names.length, "the SDK's AnthropicBeta type was not found: has the SDK moved it?").toBeGreaterThan(20);
    expect(names.filter((n) => !KNOWN_BETAS.includes(n))).toEqual([]);
  });

  it("max_tokens 0 generates nothing and fills the prompt cache that the next request reads", async () => {
    const system = [{ type: "text" as const, text: "A long, stable system prompt. ".repeat(40), cache_control: { type: "ephemeral" as const } }];
    const messages = [{ role: "user" as const, content: "warm-up question" }];
    const warm = await sdk().messages.create({ model: "scripted-model", max_tokens: 0, system, messages });
    expect(warm.content).toEqual([]);
    expect(warm.stop_reason).toBe("max_tokens");
    expect(warm.usage.output_tokens).toBe(0);
    expect(warm.usage.cache_creation_input_tokens).toBeGreaterThan(0);
    const real = await sdk().messages.create({ model: "scripted-model", max_tokens: 200, system, messages: [{ role: "user", content: "the real question" }] });
    expect(real.usage.cache_read_input_tokens).toBe(warm.usage.cache_creation_input_tokens);
  });

  it("/v1/models serves the model table: each model's context window and output limit", async () => {
    const client = sdk();
    for (const spec of MODEL_TABLE) {
      const m = await client.models.retrieve(spec.id);
      expect(m.max_input_tokens).toBe(spec.contextWindow);
      expect(m.max_tokens).toBe(spec.maxOutput);
    }
    // And the table is what requests are held to: one token over a model's limit is refused.
    const haiku = findModel("claude-haiku-4-5")!;
    // (Raw, as curl would: the SDK itself refuses a large max_tokens without streaming.)
    const res = await send({ name: "", body: base({ model: haiku.id, max_tokens: haiku.maxOutput + 1 }), status: 400 });
    expect(res.status).toBe(400);
    expect(((await res.json()) as { error: { message: string } }).error.message).toBe(
      `max_tokens: ${haiku.maxOutput + 1} > ${haiku.maxOutput}, which is the maximum allowed number of output tokens for ${haiku.id}`,
    );
  });

  it("models.list pages through every model (after_id), and retrieve finds one", async () => {
    const client = sdk();
    const served = MODELS.filter((m) => m.lifecycle !== "retired");
    const ids: string[] = [];
    for await (const m of client.models.list({ limit: 1 })) ids.push(m.id);
    expect(ids, "by default the list holds the active and deprecated models, newest first").toEqual(served.map((m) => m.id));
    const page = await client.models.list({ limit: 2 });
    expect(page.data.map((m) => m.id)).toEqual(served.slice(0, 2).map((m) => m.id));
    expect(page.has_more).toBe(true);
    const back = await client.models.list({ before_id: served[2]!.id, limit: 5 });
    expect(back.data.map((m) => m.id)).toEqual(served.slice(0, 2).map((m) => m.id));
    expect((await client.models.retrieve("scripted-model")).display_name).toMatch(/scripted/i);
    const retired = (await client.models.list({ lifecycle: ["retired"] })).data;
    expect(retired.map((m) => m.id)).toEqual(MODELS.filter((m) => m.lifecycle === "retired").map((m) => m.id));
    expect(retired.map((m) => m.id)).toContain("claude-sonnet-4-20250514");
    expect((await client.beta.models.list({ lifecycle: ["active"] })).data.map((m) => m.id)).toEqual(MODELS.filter((m) => m.lifecycle === "active").map((m) => m.id));
    await expect(client.models.retrieve("nope")).rejects.toBeInstanceOf(Anthropic.NotFoundError);
  });

  it("one entry per model: an alias is not listed, and retrieving it answers its dated id", async () => {
    const client = sdk();
    const all = (await client.models.list({ lifecycle: ["active", "deprecated", "retired"], limit: 1000 })).data.map((m) => m.id);
    expect(all).toContain("claude-sonnet-4-5-20250929");
    expect(all).not.toContain("claude-sonnet-4-5");
    expect(new Set(all).size).toBe(all.length);
    const alias = await client.models.retrieve("claude-sonnet-4-5");
    expect(alias.id).toBe("claude-sonnet-4-5-20250929");
    expect(alias.lifecycle).toBe("deprecated");
    expect(alias.retires_at).toBe("2026-11-30T00:00:00Z");
    const gone = await client.models.retrieve("claude-opus-4-1");
    expect([gone.id, gone.lifecycle]).toEqual(["claude-opus-4-1-20250805", "retired"]);
    // Every id of the SDK's own Model type that the API serves to every key is in the table
    // (the Mythos models are offered to approved organisations only).
    const sdkModels = readFileSync(join(process.cwd(), "node_modules/@anthropic-ai/sdk/resources/messages/messages.d.ts"), "utf8");
    const union = /export type Model = ([^;]+);/.exec(sdkModels)?.[1] ?? "";
    const named = [...union.matchAll(/'([^']+)'/g)].map((m) => m[1]!).filter((id) => !id.includes("mythos"));
    expect(named.length, "the SDK's Model type was not found: has the SDK moved it?").toBeGreaterThan(10);
    expect(named.filter((id) => !findModel(id))).toEqual([]);
  });

  it("an auth token (Authorization: Bearer) works as a key does; no key at all is a 401", async () => {
    const token = new Anthropic({ authToken: "offline", apiKey: null, baseURL: server.url, maxRetries: 0 });
    expect((await token.messages.create({ model: "scripted-model", max_tokens: 50, messages: [{ role: "user", content: "hi" }] })).type).toBe("message");
    const none = new Anthropic({ apiKey: null, authToken: null, baseURL: server.url, maxRetries: 0, defaultHeaders: { "x-stainless-helper": "test" } });
    // The SDK itself refuses to send without credentials; a raw request shows the server's answer.
    await expect(none.messages.create({ model: "scripted-model", max_tokens: 50, messages: [{ role: "user", content: "hi" }] })).rejects.toThrow();
    const raw = await send({ name: "", body: base(), headers: { "x-api-key": null }, status: 401 });
    expect(raw.status).toBe(401);
  });

  function zodTools(ws: ReturnType<typeof workspace>) {
    return [
      betaZodTool({ name: "list_files", description: "List files.", inputSchema: z.object({ path: z.string() }), run: () => ws.list() }),
      betaZodTool({ name: "read_file", description: "Read a file.", inputSchema: z.object({ path: z.string() }), run: ({ path }) => ws.read(path) }),
      betaZodTool({
        name: "edit_file",
        description: "Replace text in a file.",
        inputSchema: z.object({ path: z.string(), old_text: z.string(), new_text: z.string() }),
        run: ({ path, old_text, new_text }) => ws.edit(path, old_text, new_text),
      }),
      betaZodTool({ name: "bash", description: "Run a command.", inputSchema: z.object({ command: z.string() }), run: () => ws.bash() }),
    ];
  }

  it.each([
    ["its defaults (message threads: refused once, then it goes on without)", {}],
    ["thread: false", { thread: false as const }],
  ])("toolRunner with betaZodTool, %s, finishes a multi-step task", async (_name, extra) => {
    const ws = workspace();
    const before = s02.model.exchanges.length;
    const runner = sdk(s02.url).beta.messages.toolRunner({
      model: "scripted-model",
      max_tokens: 1000,
      messages: [{ role: "user", content: "Fix the greeting." }],
      tools: zodTools(ws),
      max_iterations: 12,
      ...extra,
    });
    const final = await runner.runUntilDone();
    expect(final.stop_reason).toBe("end_turn");
    expect(ws.files["src/greet.mjs"]).toContain("Hello,");
    const exchanges = s02.model.exchanges.slice(before);
    const refused = exchanges.filter((e) => e.error);
    if ("thread" in extra) expect(refused).toEqual([]);
    else {
      // Only the first request is refused, and the runner re-sends it without `thread`.
      expect(refused.map((e) => e.error?.message)).toEqual([THREADS_UNSUPPORTED]);
      expect(exchanges[0]!.error).toBeDefined();
      expect(exchanges.slice(1).every((e) => !("thread" in (e.request as Json)))).toBe(true);
    }
    expect(exchanges.filter((e) => e.response).length).toBeGreaterThanOrEqual(5);
  });
});

// ── A client that is not the SDK ────────────────────────────────────────────────────────────

describe("a client that is not the SDK (fetch, as curl would)", () => {
  const post = async (url: string, body: Json) => {
    const res = await fetch(`${url}/v1/messages`, { method: "POST", headers: HEADERS, body: JSON.stringify(body) });
    return { status: res.status, contentType: res.headers.get("content-type"), text: await res.text() };
  };

  it("a plain answer", async () => {
    const r = await post(server.url, base({ messages: [{ role: "user", content: "hello" }] }));
    expect(r.status).toBe(200);
    const m = JSON.parse(r.text) as Json & { content: Json[] };
    expect(shapeProblems(MessageSchema, m)).toEqual([]);
    expect(r.text).not.toContain("null,\"text\""); // no nulls ahead of the text
    expect(m.content.every((b) => !("citations" in b))).toBe(true);
  });

  it("a streamed answer, read from the raw SSE", async () => {
    const r = await post(server.url, base({ stream: true, messages: [{ role: "user", content: "hello" }] }));
    expect(r.contentType).toBe("text/event-stream");
    const events = readSse(r.text);
    let text = "";
    for (const e of events) {
      expect(shapeProblems(StreamEventSchema, e.data)).toEqual([]);
      const delta = e.data.delta as { type?: string; text?: string } | undefined;
      if (e.event === "content_block_delta" && delta?.type === "text_delta") text += delta.text;
    }
    expect(events[0]!.event).toBe("message_start");
    expect(events.at(-1)!.event).toBe("message_stop");
    expect(text).toMatch(/scripted model \(offline\)/);
  });

  it("a multi-step tool loop, streamed, tool input assembled from partial_json", async () => {
    const ws = workspace();
    const tools = ["list_files", "read_file", "edit_file", "bash"].map((name) => ({ name, input_schema: { type: "object" } }));
    const messages: Json[] = [{ role: "user", content: "Fix the greeting." }];
    let turns = 0;
    for (; turns < 10; turns++) {
      const r = await post(s02.url, { model: "scripted-model", max_tokens: 1000, stream: true, tools, messages });
      expect(r.status, r.text).toBe(200);
      // Rebuild the message from the events, as a hand-written client does.
      const blocks: Json[] = [];
      const partial: string[] = [];
      let stop = "";
      for (const { event, data } of readSse(r.text)) {
        expect(shapeProblems(StreamEventSchema, data)).toEqual([]);
        const i = data.index as number;
        if (event === "content_block_start") {
          blocks[i] = { ...(data.content_block as Json) };
          partial[i] = "";
        } else if (event === "content_block_delta") {
          const d = data.delta as { type: string; text?: string; partial_json?: string };
          if (d.type === "text_delta") blocks[i]!.text = `${blocks[i]!.text as string}${d.text}`;
          if (d.type === "input_json_delta") partial[i] = `${partial[i] ?? ""}${d.partial_json ?? ""}`;
        } else if (event === "content_block_stop" && blocks[i]!.type === "tool_use" && partial[i]) {
          blocks[i]!.input = JSON.parse(partial[i]!) as Json;
        } else if (event === "message_delta") stop = (data.delta as { stop_reason: string }).stop_reason;
      }
      messages.push({ role: "assistant", content: blocks });
      if (stop !== "tool_use") break;
      const results = blocks
        .filter((b) => b.type === "tool_use")
        .map((b) => {
          const input = b.input as Record<string, string>;
          const out =
            b.name === "list_files" ? ws.list()
            : b.name === "read_file" ? ws.read(input.path!)
            : b.name === "edit_file" ? ws.edit(input.path!, input.old_text!, input.new_text!)
            : b.name === "bash" ? ws.bash()
            : null;
          return out === null
            ? { type: "tool_result", tool_use_id: b.id, content: `unknown tool ${String(b.name)}`, is_error: true }
            : { type: "tool_result", tool_use_id: b.id, content: out };
        });
      messages.push({ role: "user", content: results });
    }
    expect(turns).toBeGreaterThanOrEqual(4);
    expect(ws.files["src/greet.mjs"]).toContain("Hello,");
    const last = messages.at(-1) as { role: string; content: Json[] };
    expect(last.role).toBe("assistant");
    expect(String(last.content.at(-1)?.text)).toMatch(/test passes/);
  });
});
