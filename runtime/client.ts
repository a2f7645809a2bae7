/**
 * Model selection, the same for every lesson, printed on the first line of every run:
 *
 *   ANTHROPIC_API_KEY or ANTHROPIC_AUTH_TOKEN  → the real API (or ANTHROPIC_BASE_URL's server)
 *   ANTHROPIC_BASE_URL alone                   → that Anthropic-compatible endpoint (e.g. Ollama)
 *   none of them (or COURSE_OFFLINE=1)         → the built-in scripted model, offline
 *   MODEL_ID                                   → the model online (default below); offline,
 *                                                the lessons ask for scripted-model (the scripted
 *                                                model answers only the ids of its model table)
 *
 * A key is never printed.
 */
import Anthropic from "@anthropic-ai/sdk";
import { CourseError, loadEnv } from "./env.ts";
import { word } from "./words.ts";
import { ScriptedModel, type ScriptedModelOptions } from "./scripted/model.ts";

/** Faults the scripted model can play on demand (429, 529, a cut stream, latency…), for lessons that show recovery. */
export type { FaultPlan } from "./scripted/types.ts";

/** What a lesson needs to call a model: the SDK client and the model id to ask for. */
export interface Llm {
  client: Anthropic;
  model: string;
}

export interface Selection extends Llm {
  offline: boolean;
  /** The first line a lesson prints. */
  banner: string;
  /** The scripted model, when offline (tests and lessons can inspect what it received). */
  scripted?: ScriptedModel;
}

/** A current model (the SDK warns on every request to a deprecated one, e.g. claude-sonnet-4-5). */
export const DEFAULT_MODEL = "claude-sonnet-4-6";
export const SCRIPTED_MODEL_ID = "scripted-model";
const OFFLINE_BASE_URL = "http://scripted-model.localhost";
/** The placeholder key the offline client sends (the scripted model checks that there is one, not its value). */
export const OFFLINE_API_KEY = "scripted-offline";

export interface SelectOptions {
  /** Options for the scripted model when offline (scenario, faults, pace). */
  scripted?: ScriptedModelOptions;
  /** Passed to the SDK client (retries and timeouts are taught in s11). */
  maxRetries?: number;
  timeout?: number;
  env?: NodeJS.ProcessEnv;
}

/** A client wired to a scripted model in-process (no network). */
export function scriptedLlm(options: ScriptedModelOptions = {}, client: { maxRetries?: number; timeout?: number } = {}) {
  const scripted = new ScriptedModel(options);
  // The scripted model refuses what the API refuses, a request without a key or an
  // anthropic-version header included: the SDK sends this placeholder key and its version.
  const sdk = new Anthropic({
    apiKey: OFFLINE_API_KEY,
    baseURL: OFFLINE_BASE_URL,
    fetch: scripted.fetch,
    maxRetries: client.maxRetries ?? 2,
    ...(client.timeout !== undefined ? { timeout: client.timeout } : {}),
  });
  return { client: sdk, model: SCRIPTED_MODEL_ID, scripted };
}

export function selectModel(opts: SelectOptions = {}): Selection {
  if (!opts.env) loadEnv();
  const env = opts.env ?? process.env;
  const key = env.ANTHROPIC_API_KEY?.trim() || undefined;
  const token = env.ANTHROPIC_AUTH_TOKEN?.trim() || undefined;
  const baseURL = env.ANTHROPIC_BASE_URL?.trim() || undefined;
  const forcedOffline = env.COURSE_OFFLINE === "1" || env.COURSE_OFFLINE === "true";

  if (forcedOffline || (!key && !token && !baseURL)) {
    const s = scriptedLlm(opts.scripted, opts);
    return {
      ...s,
      // MODEL_ID names a model of the endpoint a key opens (or of ANTHROPIC_BASE_URL's server);
      // offline it is not read, so a .env kept for a compatible endpoint does not get a 404 here.
      model: SCRIPTED_MODEL_ID,
      offline: true,
      banner: word("run.offline-banner"),
    };
  }
  if (baseURL && !/^https?:$/.test(safeProtocol(baseURL)))
    throw new CourseError(
      `ANTHROPIC_BASE_URL is not an http(s) URL: ${printableUrl(baseURL)}. Use e.g. http://localhost:11434 (without /v1), or remove it to use the Anthropic API.`,
    );
  const model = env.MODEL_ID?.trim() || DEFAULT_MODEL;
  const client = new Anthropic({
    // An endpoint without auth (a local Ollama) still needs some key for the SDK to send.
    // The SDK takes one credential: with both set, the key wins (as the SDK itself does with env vars).
    apiKey: key ?? (token ? null : "no-key"),
    authToken: key ? null : (token ?? null),
    ...(baseURL ? { baseURL } : {}),
    // The SDK sends the key as a bearer token; some compatible endpoints read only x-api-key.
    ...(baseURL && key ? { defaultHeaders: { "x-api-key": key } } : {}),
    ...(opts.maxRetries !== undefined ? { maxRetries: opts.maxRetries } : {}),
    ...(opts.timeout !== undefined ? { timeout: opts.timeout } : {}),
  });
  const where = baseURL ? printableUrl(baseURL) : "the Anthropic API";
  const auth = key ? (token ? "ANTHROPIC_API_KEY; ANTHROPIC_AUTH_TOKEN ignored" : "ANTHROPIC_API_KEY") : token ? "ANTHROPIC_AUTH_TOKEN" : "no key";
  return { client, model, offline: false, banner: `model: ${model} via ${where} (${auth})` };
}

/** A base URL fit to print: any user:password and query string (where keys hide) left out. */
export function printableUrl(url: string): string {
  try {
    const u = new URL(url);
    const auth = u.username || u.password ? "***@" : "";
    const query = u.search ? "?…" : "";
    return `${u.protocol}//${auth}${u.host}${u.pathname === "/" ? "" : u.pathname}${query}`;
  } catch {
    return "(ANTHROPIC_BASE_URL, not a valid URL)";
  }
}

function safeProtocol(url: string): string {
  try {
    return new URL(url).protocol;
  } catch {
    return "";
  }
}
