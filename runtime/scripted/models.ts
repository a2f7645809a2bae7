/**
 * GET /v1/models and GET /v1/models/{id}, paged as the API pages them: newest first, `limit`
 * (1–1000, default 20), `after_id` / `before_id` cursors, and `data`, `has_more`, `first_id`,
 * `last_id` in the answer. Clients that list models before they ask one (many do) find the
 * scripted model's own id and the ids the course uses; whatever id a request names, the
 * scripted model answers it (it echoes the id back), so the list is a courtesy, not a limit.
 */
import type { ApiError } from "./validate.ts";

/**
 * A model as the API describes it: every key is always there, null where it does not apply.
 * The scripted model has no capabilities to report (null) and no output limit (max_tokens null);
 * its context window is the one it enforces.
 */
export interface ModelInfo {
  type: "model";
  id: string;
  display_name: string;
  created_at: string;
  capabilities: null;
  max_input_tokens: number;
  max_tokens: null;
  lifecycle: "active" | "deprecated" | "retired";
  line: null;
  deprecated_at: null;
  retires_at: null;
}

const LIFECYCLES = ["active", "deprecated", "retired"] as const;

const model = (id: string, display_name: string, created_at: string): ModelInfo => ({
  type: "model",
  id,
  display_name,
  created_at,
  capabilities: null,
  max_input_tokens: 200_000,
  max_tokens: null,
  lifecycle: "active",
  line: null,
  deprecated_at: null,
  retires_at: null,
});

/** Newest first, as the API lists them. */
export const MODELS: readonly ModelInfo[] = [
  model("scripted-model", "Scripted model (offline)", "2026-11-01T00:00:00Z"),
  model("claude-sonnet-4-6", "claude-sonnet-4-6 (answered by the scripted model, offline)", "2026-02-17T00:00:00Z"),
  model("claude-opus-4-6", "claude-opus-4-6 (answered by the scripted model, offline)", "2026-02-05T00:00:00Z"),
  model("claude-haiku-4-5", "claude-haiku-4-5 (answered by the scripted model, offline)", "2025-10-15T00:00:00Z"),
];

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
  return model ? { body: model } : { error: { status: 404, type: "not_found_error", message: `model: ${id}` } };
}
