/**
 * The model table: every model id the scripted model answers, with the facts a loop meets online
 * (context window, output limit, which thinking types it takes, whether it accepts a prefilled
 * assistant answer, whether it takes `temperature` together with `top_p`). A request naming any
 * other id gets the API's 404 `not_found_error`, with the known ids and how to add one.
 *
 * GET /v1/models and GET /v1/models/{id} serve the same table, paged as the API pages them: newest
 * first, `limit` (1–1000, default 20), `after_id` / `before_id` cursors, and `data`, `has_more`,
 * `first_id`, `last_id` in the answer.
 *
 * Sources (each model's overview page on platform.claude.com, "Context window · Max output", and
 * the Claude 4.6 migration notes: "Prefilling assistant messages returns a 400 error on Claude 4.6
 * models"; Haiku 4.5's migration guide: "Use only temperature OR top_p, not both"; adaptive
 * thinking came with the 4.6 models).
 */
import type { ApiError } from "./validate.ts";

/** The thinking types of SDK 1.14's ThinkingConfigParam. */
export const THINKING_TYPES = ["enabled", "disabled", "adaptive", "between_tools"] as const;
export type ThinkingType = (typeof THINKING_TYPES)[number];

/** What a model accepts and how far it goes: the per-model rules the validator applies. */
export interface ModelSpec {
  id: string;
  display_name: string;
  created_at: string;
  /** Input tokens the model reads at most (the scripted model's option `contextWindow` wins). */
  contextWindow: number;
  /** The largest `max_tokens` the model takes. */
  maxOutput: number;
  /** The `thinking.type` values the model takes. */
  thinking: readonly ThinkingType[];
  /** Does it accept a final assistant message (a prefilled answer)? */
  prefill: boolean;
  /** Does it accept `temperature` and `top_p` in one request (under API version 2023-06-01)? */
  temperatureWithTopP: boolean;
}

/**
 * Newest first, as the API lists them. `scripted-model` is this model's own id: the course's
 * lessons use it offline; it takes every thinking type the SDK's types list, and a prefill (the
 * course's s05 sends a paused turn back as the final message).
 */
export const MODEL_TABLE: readonly ModelSpec[] = [
  {
    id: "scripted-model",
    display_name: "Scripted model (offline)",
    created_at: "2026-11-01T00:00:00Z",
    contextWindow: 200_000,
    maxOutput: 128_000,
    thinking: THINKING_TYPES,
    prefill: true,
    temperatureWithTopP: true,
  },
  {
    id: "claude-sonnet-4-6",
    display_name: "claude-sonnet-4-6 (answered by the scripted model, offline)",
    created_at: "2026-02-17T00:00:00Z",
    contextWindow: 1_000_000,
    maxOutput: 128_000,
    thinking: ["enabled", "disabled", "adaptive"],
    prefill: false,
    temperatureWithTopP: false,
  },
  {
    id: "claude-opus-4-6",
    display_name: "claude-opus-4-6 (answered by the scripted model, offline)",
    created_at: "2026-02-05T00:00:00Z",
    contextWindow: 1_000_000,
    maxOutput: 128_000,
    thinking: ["enabled", "disabled", "adaptive"],
    prefill: false,
    temperatureWithTopP: false,
  },
  {
    id: "claude-haiku-4-5-20251001",
    display_name: "claude-haiku-4-5-20251001 (answered by the scripted model, offline)",
    created_at: "2025-10-15T00:00:00Z",
    contextWindow: 200_000,
    maxOutput: 64_000,
    thinking: ["enabled", "disabled"],
    prefill: true,
    temperatureWithTopP: false,
  },
  {
    id: "claude-haiku-4-5",
    display_name: "claude-haiku-4-5 (answered by the scripted model, offline)",
    created_at: "2025-10-15T00:00:00Z",
    contextWindow: 200_000,
    maxOutput: 64_000,
    thinking: ["enabled", "disabled"],
    prefill: true,
    temperatureWithTopP: false,
  },
];

export function findModel(id: string, table: readonly ModelSpec[] = MODEL_TABLE): ModelSpec | undefined {
  return table.find((m) => m.id === id);
}

/**
 * The API's 404 for a model it does not have (`model: <id>`), with what the scripted model
 * knows and how to add one, so the learner can act on it.
 */
export function unknownModel(id: string, table: readonly ModelSpec[] = MODEL_TABLE): ApiError {
  return {
    status: 404,
    type: "not_found_error",
    message: `model: ${id}. The scripted model (offline) knows: ${table.map((m) => m.id).join(", ")}. Ask for one of them (a lesson pointed here with ANTHROPIC_BASE_URL asks for MODEL_ID: set it to one of them, or leave it unset), or add the id to MODEL_TABLE in runtime/scripted/models.ts.`,
  };
}

/**
 * A model as the API describes it: every key is always there, null where it does not apply.
 * The scripted model has no capabilities to report (null).
 */
export interface ModelInfo {
  type: "model";
  id: string;
  display_name: string;
  created_at: string;
  capabilities: null;
  max_input_tokens: number;
  max_tokens: number;
  lifecycle: "active" | "deprecated" | "retired";
  line: null;
  deprecated_at: null;
  retires_at: null;
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
  lifecycle: "active",
  line: null,
  deprecated_at: null,
  retires_at: null,
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

export function retrieveModel(id: string, models: readonly ModelInfo[] = MODELS): Answer {
  const model = models.find((m) => m.id === id);
  return model ? { body: model } : { error: unknownModel(id) };
}
