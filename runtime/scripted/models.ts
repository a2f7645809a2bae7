/**
 * The model table: every model id the Claude API serves (and the retired ones it still lists), with
 * the facts a loop meets online: context window, output limit, which `thinking.type` values it
 * takes, whether it takes `output_config.effort`, a prefilled answer, sampling parameters, a forced
 * tool call, and the interleaved-thinking beta. A request naming an id outside the table, or a
 * retired model, gets the API's 404 `not_found_error` (`model: <id>`, the API's words).
 *
 * GET /v1/models and GET /v1/models/{id} serve the same table as the API does: newest first, one
 * entry per model under its canonical id (an alias such as `claude-sonnet-4-5` resolves to
 * `claude-sonnet-4-5-20250929`), active and deprecated models unless `lifecycle` asks for retired
 * ones, paged by `limit` (1–1000, default 20), `after_id` / `before_id`.
 *
 * Sources (read December 2026): each model's overview page on platform.claude.com ("Context window
 * · Max output", lifecycle, release date), the model deprecations page (lifecycle and dates), the
 * thinking troubleshooting page ("Claude 4.7 and later models do not support [extended thinking]
 * and reject requests that use it"; 4.5 and earlier take extended thinking only), each newer
 * model's migration notes (4.6: prefill refused; Opus 4.7 and later: sampling parameters refused;
 * Sonnet 5.5: `between_tools` turns thinking off, forced tool use refused; Fable 5.1 and 5.2:
 * thinking always on, forced tool use refused), Haiku 4.5's migration notes (`temperature` or
 * `top_p`, not both), and public reports of the API's 404 for retired ids. `not confirmed` in a
 * model's note (scripts/lib/model-notes.ts) marks a fact read in third-party material only. docs/guide/compatibility.md shows this
 * table (generated from it by scripts/lib/models-doc.ts).
 */
import type { ApiError } from "./validate.ts";

/** The thinking types of SDK 1.14's ThinkingConfigParam. */
export const THINKING_TYPES = ["enabled", "disabled", "adaptive", "between_tools"] as const;
export type ThinkingType = (typeof THINKING_TYPES)[number];
/** The effort levels of SDK 1.14's OutputConfig. */
export const EFFORT_LEVELS = ["low", "medium", "high", "xhigh", "max"] as const;
export type EffortLevel = (typeof EFFORT_LEVELS)[number];
/** The effort a request has when it names none (the effort docs: `high`). */
export const DEFAULT_EFFORT: EffortLevel = "high";
/** The beta that lets `budget_tokens` exceed `max_tokens` (the budget then spans the whole turn). */
export const INTERLEAVED_BETA = "interleaved-thinking-2025-05-14";

export type Lifecycle = "active" | "deprecated" | "retired";
type Line = "haiku" | "sonnet" | "opus" | "fable" | "mythos";

/** What a model accepts and how far it goes: the per-model rules the validator applies. */
export interface ModelSpec {
  /** The canonical id, as GET /v1/models lists it. */
  id: string;
  /** Other ids that name this model (an undated alias, or the dated snapshot of an alias). */
  aliases: readonly string[];
  display_name: string;
  created_at: string;
  lifecycle: Lifecycle;
  deprecated_at: string | null;
  retires_at: string | null;
  line: Line | null;
  /** Input tokens the model reads at most (the scripted model's option `contextWindow` wins). */
  contextWindow: number;
  /** A larger window with a beta header (Sonnet 4.5's 1M with `context-1m-2025-08-07`). */
  longContext?: { beta: string; tokens: number };
  /** The largest `max_tokens` the model takes. */
  maxOutput: number;
  /** The `thinking.type` values the model takes. */
  thinking: readonly ThinkingType[];
  /** The `output_config.effort` levels it takes (none: it does not take the parameter). */
  effort: readonly EffortLevel[];
  /** A thinking type the model takes only at some effort levels (Opus 5's `disabled`, Sonnet 5.5's `between_tools`: high or below). */
  thinkingEffort?: Partial<Record<ThinkingType, readonly EffortLevel[]>>;
  /** Does it accept a final assistant message (a prefilled answer)? */
  prefill: boolean;
  /**
   * Sampling parameters under API version 2023-06-01: `any` (each within its range), `one`
   * (`temperature` or `top_p`, not both), `defaults` (only at their defaults: temperature 1, top_p 1,
   * no top_k), `none` (refused at any value, defaults too).
   */
  sampling: "any" | "one" | "defaults" | "none";
  /** Does it take `tool_choice` `any` / `tool` (a forced call)? */
  forcedToolChoice: boolean;
  /** With the interleaved-thinking beta, may `budget_tokens` exceed `max_tokens`? */
  interleaved: boolean;
}

const K = 1000;
const M = 1_000_000;
const at = (day: string) => `${day}T00:00:00Z`;
const named = (name: string) => `${name} (answered by the scripted model, offline)`;

const ALL_EFFORT = EFFORT_LEVELS;
/** Up to `high`: Opus 4.5's levels, and the levels at which Opus 5 may turn thinking off. */
const UP_TO_HIGH = ["low", "medium", "high"] as const;
/** Models of the Claude 4.7 generation and later: adaptive thinking, every effort level, no sampling parameters, no prefill. */
const adaptive = { effort: ALL_EFFORT, prefill: false, sampling: "none", forcedToolChoice: true, interleaved: false } as const;
/** Claude 4.5 and earlier: extended thinking (a budget) only, prefill accepted, no effort (Opus 4.5 excepted). */
const extended = { thinking: ["enabled", "disabled"], effort: [], prefill: true, forcedToolChoice: true, interleaved: true } as const;
/** A retired Claude 3 model: listed by GET /v1/models?lifecycle[]=retired, refused by the Messages API (404). */
const claude3 = { thinking: [], effort: [], prefill: true, sampling: "any", forcedToolChoice: true, interleaved: false, lifecycle: "retired", contextWindow: 200 * K } as const;
const live = { lifecycle: "active", deprecated_at: null, retires_at: null } as const;
const retired = (deprecated: string, gone: string) => ({ lifecycle: "retired", deprecated_at: at(deprecated), retires_at: at(gone) }) as const;

/**
 * Newest first, as the API lists them. `scripted-model` is this model's own id: the course's
 * lessons use it offline; it takes every thinking type the SDK's types list, and a prefill (the
 * course's s05 sends a paused turn back as the final message).
 */
export const MODEL_TABLE: readonly ModelSpec[] = [
  {
    id: "scripted-model", aliases: [], display_name: "Scripted model (offline)", created_at: at("2026-11-01"), ...live, line: null,
    contextWindow: 200 * K, maxOutput: 128 * K, thinking: THINKING_TYPES, effort: ALL_EFFORT, prefill: true, sampling: "any", forcedToolChoice: true, interleaved: true,
  },
  { id: "claude-fable-5-2", aliases: [], display_name: named("Claude Fable 5.2"), created_at: at("2026-11-09"), ...live, line: "fable", contextWindow: M, maxOutput: 128 * K, thinking: ["adaptive"], ...adaptive, forcedToolChoice: false },
  { id: "claude-haiku-5-5", aliases: [], display_name: named("Claude Haiku 5.5"), created_at: at("2026-10-07"), ...live, line: "haiku", contextWindow: M, maxOutput: 128 * K, thinking: ["adaptive", "disabled"], ...adaptive, sampling: "defaults" },
  { id: "claude-sonnet-5-5", aliases: [], display_name: named("Claude Sonnet 5.5"), created_at: at("2026-09-28"), ...live, line: "sonnet", contextWindow: M, maxOutput: 128 * K, thinking: ["adaptive", "between_tools"], ...adaptive, sampling: "defaults", forcedToolChoice: false, thinkingEffort: { between_tools: UP_TO_HIGH } },
  { id: "claude-opus-5-5", aliases: [], display_name: named("Claude Opus 5.5"), created_at: at("2026-09-24"), ...live, line: "opus", contextWindow: M, maxOutput: 128 * K, thinking: ["adaptive"], ...adaptive, forcedToolChoice: false },
  { id: "claude-fable-5-1", aliases: [], display_name: named("Claude Fable 5.1"), created_at: at("2026-09-01"), ...live, line: "fable", contextWindow: M, maxOutput: 128 * K, thinking: ["adaptive"], ...adaptive, forcedToolChoice: false },
  { id: "claude-opus-5", aliases: [], display_name: named("Claude Opus 5"), created_at: at("2026-07-24"), ...live, line: "opus", contextWindow: M, maxOutput: 128 * K, thinking: ["adaptive", "disabled"], ...adaptive, thinkingEffort: { disabled: UP_TO_HIGH } },
  { id: "claude-sonnet-5", aliases: [], display_name: named("Claude Sonnet 5"), created_at: at("2026-06-30"), ...live, line: "sonnet", contextWindow: M, maxOutput: 128 * K, thinking: ["adaptive", "disabled"], ...adaptive, sampling: "defaults" },
  { id: "claude-fable-5", aliases: [], display_name: named("Claude Fable 5"), created_at: at("2026-06-09"), ...live, line: "fable", contextWindow: M, maxOutput: 128 * K, thinking: ["adaptive"], ...adaptive },
  { id: "claude-mythos-5", aliases: [], display_name: named("Claude Mythos 5"), created_at: at("2026-06-09"), ...live, line: "mythos", contextWindow: M, maxOutput: 128 * K, thinking: ["adaptive"], ...adaptive },
  { id: "claude-opus-4-8", aliases: [], display_name: named("Claude Opus 4.8"), created_at: at("2026-05-28"), ...live, line: "opus", contextWindow: M, maxOutput: 128 * K, thinking: ["adaptive", "disabled"], ...adaptive },
  { id: "claude-opus-4-7", aliases: [], display_name: named("Claude Opus 4.7"), created_at: at("2026-04-16"), ...live, line: "opus", contextWindow: M, maxOutput: 128 * K, thinking: ["adaptive", "disabled"], ...adaptive },
  {
    id: "claude-sonnet-4-6", aliases: [], display_name: named("Claude Sonnet 4.6"), created_at: at("2026-02-17"), ...live, line: "sonnet",
    contextWindow: M, maxOutput: 128 * K, thinking: ["enabled", "disabled", "adaptive"], effort: ["low", "medium", "high", "max"], prefill: false, sampling: "one", forcedToolChoice: true, interleaved: true,
  },
  {
    id: "claude-opus-4-6", aliases: [], display_name: named("Claude Opus 4.6"), created_at: at("2026-02-05"), ...live, line: "opus",
    contextWindow: M, maxOutput: 128 * K, thinking: ["enabled", "disabled", "adaptive"], effort: ["low", "medium", "high", "max"], prefill: false, sampling: "one", forcedToolChoice: true, interleaved: true,
  },
  {
    id: "claude-opus-4-5-20251101", aliases: ["claude-opus-4-5"], display_name: named("Claude Opus 4.5"), created_at: at("2025-11-24"),
    lifecycle: "deprecated", deprecated_at: at("2026-11-23"), retires_at: at("2027-01-22"), line: "opus",
    contextWindow: 200 * K, maxOutput: 64 * K, ...extended, effort: UP_TO_HIGH, sampling: "one",
  },
  {
    id: "claude-haiku-4-5-20251001", aliases: ["claude-haiku-4-5"], display_name: named("Claude Haiku 4.5"), created_at: at("2025-10-15"), ...live, line: "haiku",
    contextWindow: 200 * K, maxOutput: 64 * K, ...extended, sampling: "one",
  },
  {
    id: "claude-sonnet-4-5-20250929", aliases: ["claude-sonnet-4-5"], display_name: named("Claude Sonnet 4.5"), created_at: at("2025-09-29"),
    lifecycle: "deprecated", deprecated_at: at("2026-09-29"), retires_at: at("2026-11-30"), line: "sonnet",
    contextWindow: 200 * K, longContext: { beta: "context-1m-2025-08-07", tokens: M }, maxOutput: 64 * K, ...extended, sampling: "one",
  },
  { id: "claude-opus-4-1-20250805", aliases: ["claude-opus-4-1"], display_name: named("Claude Opus 4.1"), created_at: at("2025-08-05"), ...retired("2026-06-05", "2026-08-05"), line: "opus", contextWindow: 200 * K, maxOutput: 32 * K, ...extended, sampling: "one" },
  { id: "claude-opus-4-20250514", aliases: ["claude-opus-4-0"], display_name: named("Claude Opus 4"), created_at: at("2025-05-22"), ...retired("2026-04-14", "2026-06-15"), line: "opus", contextWindow: 200 * K, maxOutput: 32 * K, ...extended, sampling: "one" },
  { id: "claude-sonnet-4-20250514", aliases: ["claude-sonnet-4-0"], display_name: named("Claude Sonnet 4"), created_at: at("2025-05-22"), ...retired("2026-04-14", "2026-06-15"), line: "sonnet", contextWindow: 200 * K, maxOutput: 64 * K, ...extended, sampling: "one" },
  { id: "claude-3-7-sonnet-20250219", aliases: ["claude-3-7-sonnet-latest"], display_name: named("Claude Sonnet 3.7"), created_at: at("2025-02-24"), ...retired("2025-10-28", "2026-02-19"), line: "sonnet", contextWindow: 200 * K, maxOutput: 64 * K, ...extended, interleaved: false, sampling: "any" },
  { id: "claude-3-5-haiku-20241022", aliases: ["claude-3-5-haiku-latest"], display_name: named("Claude Haiku 3.5"), created_at: at("2024-10-22"), deprecated_at: at("2025-10-28"), retires_at: at("2026-02-19"), line: "haiku", maxOutput: 8192, ...claude3 },
  { id: "claude-3-haiku-20240307", aliases: [], display_name: named("Claude Haiku 3"), created_at: at("2024-03-07"), deprecated_at: at("2026-02-18"), retires_at: at("2026-04-19"), line: "haiku", maxOutput: 4096, ...claude3 },
  { id: "claude-3-opus-20240229", aliases: ["claude-3-opus-latest"], display_name: named("Claude Opus 3"), created_at: at("2024-02-29"), deprecated_at: at("2025-06-30"), retires_at: at("2026-01-05"), line: "opus", maxOutput: 4096, ...claude3 },
];

/** The model an id names (its canonical id or an alias), retired ones included. */
export function findModel(id: string, table: readonly ModelSpec[] = MODEL_TABLE): ModelSpec | undefined {
  return table.find((m) => m.id === id || m.aliases.includes(id));
}

/** A model a request may name: in the table and not retired. */
export function servedModel(id: string, table: readonly ModelSpec[] = MODEL_TABLE): ModelSpec | undefined {
  const m = findModel(id, table);
  return m && m.lifecycle !== "retired" ? m : undefined;
}

/** The input tokens a request to this model may hold: its window, or the larger one its beta opens. */
export function contextWindowOf(model: ModelSpec, betas: readonly string[]): number {
  return model.longContext && betas.includes(model.longContext.beta) ? model.longContext.tokens : model.contextWindow;
}

/**
 * The API's 404 for a model it does not serve, in its words (`model: <id>`, as public reports
 * quote it for unknown and for retired ids alike). What the scripted model knows is for the
 * lesson runner's hint and GET /v1/models to say, not the error.
 */
export function unknownModel(id: string): ApiError {
  return { status: 404, type: "not_found_error", message: `model: ${id}` };
}

/**
 * A model as the API describes it: every key is always there, null where it does not apply.
 * The scripted model reports no capabilities object (null, as the SDK's type allows): the table's
 * thinking types and limits are the rules it applies.
 */
export interface ModelInfo {
  type: "model";
  id: string;
  display_name: string;
  created_at: string;
  capabilities: null;
  max_input_tokens: number;
  max_tokens: number;
  lifecycle: Lifecycle;
  line: Line | null;
  deprecated_at: string | null;
  retires_at: string | null;
}

const LIFECYCLES = ["active", "deprecated", "retired"] as const;

export const modelInfo = (m: ModelSpec): ModelInfo => ({
  type: "model",
  id: m.id,
  display_name: m.display_name,
  created_at: m.created_at,
  capabilities: null,
  max_input_tokens: m.contextWindow,
  max_tokens: m.maxOutput,
  lifecycle: m.lifecycle,
  line: m.line,
  deprecated_at: m.deprecated_at,
  retires_at: m.retires_at,
});

/** The table as /v1/models serves it. */
export const MODELS: readonly ModelInfo[] = MODEL_TABLE.map(modelInfo);

type Answer = { body: unknown } | { error: ApiError };

const bad = (message: string): { error: ApiError } => ({ error: { status: 400, type: "invalid_request_error", message } });

export function listModels(query: URLSearchParams, all: readonly ModelInfo[] = MODELS): Answer {
  // `lifecycle` filters (the SDK sends lifecycle[]=…); without it, active and deprecated models.
  const stages = [...query.getAll("lifecycle"), ...query.getAll("lifecycle[]")].flatMap((v) => v.split(","));
  const odd = stages.findIndex((v) => !(LIFECYCLES as readonly string[]).includes(v));
  if (odd >= 0) return bad(`lifecycle.${odd}: Input should be 'active', 'deprecated' or 'retired'`);
  const wanted = stages.length > 0 ? stages : ["active", "deprecated"];
  const models = all.filter((m) => wanted.includes(m.lifecycle));
  let limit = 20;
  const rawLimit = query.get("limit");
  if (rawLimit !== null) {
    if (!/^-?\d+$/.test(rawLimit)) return bad("limit: Input should be a valid integer, unable to parse string as an integer");
    limit = Number(rawLimit);
    if (limit < 1) return bad("limit: Input should be greater than or equal to 1");
    if (limit > 1000) return bad("limit: Input should be less than or equal to 1000");
  }
  const after = query.get("after_id");
  const before = query.get("before_id");
  if (after !== null && before !== null) return bad("Only one of after_id or before_id may be provided.");
  let page: readonly ModelInfo[];
  let hasMore: boolean;
  if (before !== null) {
    const at = models.findIndex((m) => m.id === before);
    if (at < 0) return bad(`before_id: no model with id '${before}'`);
    const from = Math.max(0, at - limit);
    page = models.slice(from, at);
    hasMore = from > 0;
  } else {
    const at = after === null ? 0 : models.findIndex((m) => m.id === after) + 1;
    if (after !== null && at === 0) return bad(`after_id: no model with id '${after}'`);
    page = models.slice(at, at + limit);
    hasMore = at + limit < models.length;
  }
  return {
    body: { data: page, has_more: hasMore, first_id: page[0]?.id ?? null, last_id: page[page.length - 1]?.id ?? null },
  };
}

/** One model by its id or an alias (the API resolves an alias to its model), retired ones included. */
export function retrieveModel(id: string, table: readonly ModelSpec[] = MODEL_TABLE): Answer {
  const model = findModel(id, table);
  return model ? { body: modelInfo(model) } : { error: unknownModel(id) };
}
