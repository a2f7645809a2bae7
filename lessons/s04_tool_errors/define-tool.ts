/**
 * s04_tool_errors: errors are observations. Unlike s02's registry, which answered only an
 * unknown tool and a `ToolError` and let every other exception escape, this dispatch ALWAYS
 * answers the call: input that does not match the tool's schema, a tool that throws, a tool that
 * hangs past its timeout, each becomes a `tool_result` with `is_error: true` and a message the
 * model can act on. The loop never crashes on a tool.
 *
 * Each tool's input is a zod schema: the same schema checks the input at run time and, through
 * `z.toJSONSchema`, is the `input_schema` the API shows the model, so the two cannot drift.
 */
import type Anthropic from "@anthropic-ai/sdk";
import { z } from "zod";
import { ToolRegistry, type ToolContext, type ToolSpec } from "../../solutions/s02_tool_dispatch/registry.ts";
import { todo } from "../../runtime/lesson.ts";
import { ToolError } from "../../runtime/tools/files.ts";

/** How long a tool may run when its definition does not say, in ms. */
export const DEFAULT_TOOL_TIMEOUT_MS = 30_000;

/** What a checked tool's `run` receives besides its input: a signal that is always there. */
export type CheckedContext = ToolContext & { signal: AbortSignal };

// #region define-tool
/** A ToolSpec that knows its zod schema and its time limit. */
export interface CheckedTool extends ToolSpec {
  /** Checks the input at run time; `input_schema` was made from it. */
  schema: z.ZodObject;
  /** The tool is stopped (its signal aborted) and answered with an error after this many ms. */
  timeoutMs: number;
}

export interface ToolDefinition<S extends z.ZodObject> {
  name: string;
  description: string;
  /** The input's schema. Fields it does not name are refused (the schema is made strict). */
  input: S;
  readOnly?: boolean;
  timeoutMs?: number;
  /** Gets the input already checked and typed; should stop when `ctx.signal` aborts. */
  run(input: z.infer<S>, ctx: CheckedContext): Promise<string> | string;
}

/** One schema, two uses: the JSON schema sent to the API, and the check of every input. */
export function defineTool<S extends z.ZodObject>(def: ToolDefinition<S>): CheckedTool {
  const schema = def.input.strict();
  const { $schema: _ignored, ...json } = z.toJSONSchema(schema, { io: "input" });
  return {
    name: def.name,
    description: def.description,
    input_schema: json as Anthropic.Tool.InputSchema,
    ...(def.readOnly ? { readOnly: true } : {}),
    schema,
    timeoutMs: def.timeoutMs ?? DEFAULT_TOOL_TIMEOUT_MS,
    run: (input, ctx) => def.run(schema.parse(input) as z.infer<S>, { ...ctx, signal: ctx.signal ?? new AbortController().signal }),
  };
}
// #endregion define-tool

const isChecked = (tool: ToolSpec): tool is CheckedTool => "schema" in tool && tool.schema instanceof z.ZodObject;

/** The fields a schema accepts, the way the model should read them: `path (string), limit? (integer)`. */
export function describeFields(tool: ToolSpec): string {
  const props = (tool.input_schema.properties ?? {}) as Record<string, { type?: unknown }>;
  const required = new Set(tool.input_schema.required ?? []);
  const fields = Object.entries(props).map(([k, v]) => `${k}${required.has(k) ? "" : "?"} (${String(v.type ?? "any")})`);
  return fields.length > 0 ? fields.join(", ") : "no fields";
}

/**
 * Why an input does not fit the tool's schema, written for the model, or null when it fits.
 * Tools without a zod schema (plain ToolSpecs) are not checked here.
 */
export function inputProblem(tool: ToolSpec, input: unknown): string | null {
  if (!isChecked(tool)) return null;
  const checked = tool.schema.safeParse(input);
  if (checked.success) return null;
  const lines = checked.error.issues.map((issue) => {
    if (issue.code === "unrecognized_keys") return `- unknown field${issue.keys.length > 1 ? "s" : ""} ${issue.keys.map((k) => `"${k}"`).join(", ")}: leave ${issue.keys.length > 1 ? "them" : "it"} out`;
    const at = issue.path.length > 0 ? issue.path.join(".") : "input";
    const given = typeof input === "object" && input !== null ? (input as Record<string, unknown>) : {};
    if (issue.code === "invalid_type" && issue.path.length > 0 && given[String(issue.path[0])] === undefined)
      return `- ${at}: missing (expected ${issue.expected})`;
    return `- ${at}: ${issue.message}`;
  });
  return `Invalid input for ${tool.name}; it was not run.\n${lines.join("\n")}\n${tool.name} takes: ${describeFields(tool)}. Call it again with a corrected input.`;
}

/** The tool ran past its time limit. */
export class ToolTimeoutError extends Error {
  override name = "ToolTimeoutError";
  constructor(readonly ms: number) {
    super(`did not finish within ${ms / 1000} s`);
  }
}

/** The run was cancelled from outside (the loop's own signal aborted). */
export class ToolCancelledError extends Error {
  override name = "ToolCancelledError";
}

// #region deadline
/**
 * Runs `work` with a deadline. Its signal aborts when the time is up or when `outer` aborts;
 * either way we stop waiting at once, even for a tool that ignores its signal. (Given: timer and
 * listener plumbing. The lesson's part is what the model is told when it fires: timeoutMessage.)
 */
export async function runWithDeadline<T>(ms: number, outer: AbortSignal | undefined, work: (signal: AbortSignal) => Promise<T> | T): Promise<T> {
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(new ToolTimeoutError(ms)), ms);
  const cancel = () => controller.abort(new ToolCancelledError("the run was cancelled before the tool finished"));
  if (outer?.aborted) cancel();
  outer?.addEventListener("abort", cancel, { once: true });
  try {
    return await new Promise<T>((resolve, reject) => {
      if (controller.signal.aborted) return reject(controller.signal.reason);
      controller.signal.addEventListener("abort", () => reject(controller.signal.reason), { once: true });
      // subtle: a tool may throw before it returns a promise; .then() turns that into a rejection too.
      Promise.resolve()
        .then(() => work(controller.signal))
        .then(resolve, reject);
    });
  } finally {
    clearTimeout(timer);
    outer?.removeEventListener("abort", cancel);
  }
}
// #endregion deadline

// #region timeout-message
/**
 * What the model reads when a tool ran past its time limit. The tool was stopped (its signal
 * aborted) and it will return nothing. This text is all the model learns: it cannot see the
 * clock, so without the tool's name, the limit and what to do now, it may well make the same
 * call again and wait as long again.
 */
export function timeoutMessage(name: string, ms: number): string {
  // TODO: return what the model sees when the tool `name` was stopped at its limit of `ms` ms.
  //       Say which tool, that it ran out of time and was stopped, after how long (in seconds:
  //       ms / 1000), and what to do instead: not the same call again, but a smaller input or
  //       another way. safeDispatch answers a timeout with this text, as an is_error result.
  void [name, ms]; // (delete this line when you use them)
  return todo("s04 timeoutMessage: tell the model which tool ran out of time, after how long, and what to do instead");
}
// #endregion timeout-message

/** What went wrong, for the model: what happened and what it can do about it. */
export function describeFailure(name: string, e: unknown): string {
  if (e instanceof ToolTimeoutError) return timeoutMessage(name, e.ms);
  if (e instanceof ToolCancelledError) return `${name} was stopped: ${e.message}.`;
  if (e instanceof ToolError) return `Error: ${e.message}`;
  const err = e instanceof Error ? e : new Error(String(e));
  return `${name} failed with ${err.name}: ${err.message}\nThe input was valid: the tool itself failed. Try another way to get what you need.`;
}

export function errorResult(call: Anthropic.ToolUseBlock, message: string): Anthropic.ToolResultBlockParam {
  // An error result must say something: the API refuses is_error with empty content.
  return { type: "tool_result", tool_use_id: call.id, is_error: true, content: message.trim() || `${call.name} failed` };
}

// #region safe-dispatch
/** Answers a call whatever happens: never throws, never hangs past the tool's timeout. */
export async function safeDispatch(
  registry: ToolRegistry,
  call: Anthropic.ToolUseBlock,
  ctx: ToolContext = { root: process.cwd() },
): Promise<Anthropic.ToolResultBlockParam> {
  const tool = registry.get(call.name);
  if (!tool) return errorResult(call, `Unknown tool "${call.name}". The tools you can call are: ${registry.names().join(", ")}.`);

  // TODO: 1. check call.input with inputProblem(tool, call.input). If it does not fit, answer
  //          with errorResult(call, problem): the tool does not run, and the model learns why.
  // TODO: 2. run the tool through runWithDeadline(timeout, ctx.signal, (signal) => tool.run(input,
  //          { ...ctx, signal })). The timeout is tool.timeoutMs for a CheckedTool (isChecked),
  //          else DEFAULT_TOOL_TIMEOUT_MS. Answer its output (non-empty: "(no output)" if blank).
  // TODO: 3. catch whatever the tool throws (or the deadline) and answer
  //          errorResult(call, describeFailure(call.name, e)): the loop must never see an exception.
  //          (For a timeout, describeFailure answers with your timeoutMessage.)
  return todo("s04 safeDispatch: check the input, run with a deadline, turn every failure into an is_error result");
}
// #endregion safe-dispatch

/** s02's registry, whose dispatch now answers every call (s03's runTools uses it unchanged). */
export class SafeToolRegistry extends ToolRegistry {
  override dispatch(call: Anthropic.ToolUseBlock, ctx?: ToolContext): Promise<Anthropic.ToolResultBlockParam> {
    return safeDispatch(this, call, ctx);
  }
}
