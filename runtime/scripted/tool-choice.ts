/**
 * What the request asks of the answer, applied to every scenario's reply the way the API applies
 * it to the model's (the API reference's `tool_choice`, and the tool-use docs):
 *
 * - `{type: "none"}`: no tool_use at all; the answer is text (`end_turn`).
 * - `{type: "any"}`: some tool is called. The API prefills the turn to force a call, so no text or
 *   thinking comes before it: the answer is tool_use blocks only (`tool_use`).
 * - `{type: "tool", name}`: that tool is called, with input that fits its `input_schema`.
 * - `disable_parallel_tool_use: true` (on auto, any or tool): at most one tool_use.
 * - thinking `enabled`: the answer starts with a thinking block, as the API's always does.
 * - `output_config.format` (json_schema): a final answer's text is JSON that fits the schema.
 *
 * A scenario's own call is kept when it fits; when the scenario did not call what is forced, the
 * call is made here, with input built from the tool's schema (every property it declares, each
 * value the first the schema allows). A refusal stays a refusal.
 */
import type Anthropic from "@anthropic-ai/sdk";
import type { Reply, ReplyBlock, ScriptedRequest } from "./types.ts";

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => typeof v === "object" && v !== null && !Array.isArray(v);

/** What the model says when tool_choice none keeps it from the call its script wanted. */
export const NO_TOOLS_TEXT = "(scripted model, offline) tool_choice is none, so this answer calls no tool.";
/** The thinking block a request with thinking enabled gets first, when the script has none. */
export const THINKING_TEXT = "(scripted model, offline) No real reasoning here: this block stands where the model's thinking would be.";

/** The client tools of a request (a name and an input_schema): the ones this model can call. */
function clientTools(request: ScriptedRequest): Array<{ name: string; input_schema: Obj }> {
  return (request.tools ?? []).flatMap((t) => {
    const tool = t as unknown as Obj;
    return typeof tool.name === "string" && isObj(tool.input_schema) ? [{ name: tool.name, input_schema: tool.input_schema }] : [];
  });
}

export function obeyRequest(reply: Reply, request: ScriptedRequest): Reply {
  let out = obeyOutputFormat(obeyToolChoice(reply, request), request);
  const thinking = request.thinking as { type?: string } | undefined;
  if (thinking?.type === "enabled" && out.content[0]?.type !== "thinking" && out.content[0]?.type !== "redacted_thinking")
    out = { ...out, content: [{ type: "thinking", thinking: THINKING_TEXT }, ...out.content] };
  return out;
}

/**
 * `output_config.format` (structured outputs, `{type: "json_schema", schema}`): a final answer's
 * text is JSON that fits the schema, so `client.messages.parse()` gets its `parsed_output`. A turn
 * that calls tools, a refusal or a scripted cut-off is left as it is.
 */
export function obeyOutputFormat(reply: Reply, request: ScriptedRequest): Reply {
  const config = (request as { output_config?: unknown }).output_config;
  const format = isObj(config) ? config.format : undefined;
  if (!isObj(format) || format.type !== "json_schema" || !isObj(format.schema)) return reply;
  if (reply.content.some((b) => b.type === "tool_use")) return reply;
  if (reply.stop_reason !== undefined && reply.stop_reason !== "end_turn") return reply;
  const kept = reply.content.filter((b) => b.type === "thinking" || b.type === "redacted_thinking");
  return { ...reply, content: [...kept, { type: "text", text: JSON.stringify(sample(format.schema, format.schema, "answer", 0)) }] };
}

export function obeyToolChoice(reply: Reply, request: ScriptedRequest): Reply {
  const choice = request.tool_choice as Anthropic.ToolChoice | undefined | null;
  if (!choice || reply.stop_reason === "refusal") return reply;
  const single = "disable_parallel_tool_use" in choice && choice.disable_parallel_tool_use === true;
  const isCall = (b: ReplyBlock): b is Extract<ReplyBlock, { type: "tool_use" }> => b.type === "tool_use";

  if (choice.type === "none") {
    if (!reply.content.some(isCall)) return reply;
    const content = reply.content.filter((b) => !isCall(b));
    if (!content.some((b) => b.type === "text")) content.push({ type: "text", text: NO_TOOLS_TEXT });
    return { ...reply, content, stop_reason: reply.stop_reason === undefined || reply.stop_reason === "tool_use" ? "end_turn" : reply.stop_reason };
  }

  if (choice.type === "auto") {
    if (!single) return reply;
    let seen = false;
    return { ...reply, content: reply.content.filter((b) => !isCall(b) || (!seen && (seen = true))) };
  }

  // any / tool: a tool call, and nothing before it.
  const tools = clientTools(request);
  const wanted = choice.type === "tool" ? tools.filter((t) => t.name === choice.name) : tools;
  if (wanted.length === 0) return reply; // a server tool forced: this model never calls those
  let calls = reply.content.filter(isCall).filter((c) => wanted.some((t) => t.name === c.name));
  if (calls.length === 0) {
    const tool = wanted[0]!;
    calls = [{ type: "tool_use", name: tool.name, input: inputFor(tool.input_schema) }];
  }
  if (single) calls = calls.slice(0, 1);
  return { content: calls, stop_reason: "tool_use" };
}

/**
 * An input that fits a JSON Schema (draft 2020-12, as tools declare them): each property the
 * schema declares, with the first value it allows (const, enum, default, else a value of its
 * type within its bounds). Strings say where they come from.
 */
export function inputFor(schema: Obj): Record<string, unknown> {
  const value = sample(schema, schema, "input", 0);
  return isObj(value) ? value : {};
}

function resolve(schema: Obj, root: Obj): Obj {
  const ref = schema.$ref;
  if (typeof ref !== "string" || !ref.startsWith("#/")) return schema;
  let at: unknown = root;
  for (const part of ref.slice(2).split("/")) at = isObj(at) ? at[part.replace(/~1/g, "/").replace(/~0/g, "~")] : undefined;
  return isObj(at) ? { ...at, ...Object.fromEntries(Object.entries(schema).filter(([k]) => k !== "$ref")) } : {};
}

function sample(raw: unknown, root: Obj, name: string, depth: number): unknown {
  if (!isObj(raw) || depth > 16) return null;
  const schema = resolve(raw, root);
  if ("const" in schema) return schema.const;
  if (Array.isArray(schema.enum) && schema.enum.length > 0) return schema.enum[0];
  if ("default" in schema) return schema.default;
  for (const key of ["anyOf", "oneOf"]) {
    const options = schema[key];
    if (Array.isArray(options) && options.length > 0) {
      const nonNull = options.find((o) => !(isObj(o) && o.type === "null")) ?? options[0];
      return sample({ ...schema, [key]: undefined, ...(isObj(nonNull) ? nonNull : {}) }, root, name, depth + 1);
    }
  }
  if (Array.isArray(schema.allOf))
    return sample(Object.assign({}, ...schema.allOf.filter(isObj), { ...schema, allOf: undefined }), root, name, depth + 1);
  const types = Array.isArray(schema.type) ? (schema.type as unknown[]) : [schema.type];
  const type = types.find((t) => t !== "null") ?? (schema.properties ? "object" : types[0]);
  switch (type) {
    case "object": {
      const props = isObj(schema.properties) ? schema.properties : {};
      return Object.fromEntries(Object.entries(props).map(([k, s]) => [k, sample(s, root, k, depth + 1)]));
    }
    case "array": {
      const n = typeof schema.minItems === "number" ? schema.minItems : 1;
      const max = typeof schema.maxItems === "number" ? schema.maxItems : n;
      return Array.from({ length: Math.min(n, max) }, (_, i) => sample(schema.items ?? {}, root, `${name}[${i}]`, depth + 1));
    }
    case "integer":
    case "number": {
      const min = typeof schema.minimum === "number" ? schema.minimum : typeof schema.exclusiveMinimum === "number" ? schema.exclusiveMinimum + 1 : 0;
      const max = typeof schema.maximum === "number" ? schema.maximum : typeof schema.exclusiveMaximum === "number" ? schema.exclusiveMaximum - 1 : min;
      const n = Math.min(Math.max(0, min), max);
      return type === "integer" ? Math.ceil(n) : n;
    }
    case "boolean":
      return false;
    case "null":
      return null;
    case "string":
      return stringFor(schema, name);
    default:
      return null;
  }
}

function stringFor(schema: Obj, name: string): string {
  switch (schema.format) {
    case "date-time":
      return "2026-01-01T00:00:00Z";
    case "date":
      return "2026-01-01";
    case "time":
      return "00:00:00Z";
    case "email":
      return "scripted@example.com";
    case "uri":
    case "url":
      return "https://example.com/scripted";
    case "uuid":
      return "00000000-0000-4000-8000-000000000000";
  }
  let s = `scripted ${name}`;
  const min = typeof schema.minLength === "number" ? schema.minLength : 0;
  const max = typeof schema.maxLength === "number" ? schema.maxLength : Infinity;
  while (s.length < min) s += ".";
  return s.slice(0, max);
}
