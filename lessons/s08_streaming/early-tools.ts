/**
 * s08 · tools started while the message is still streaming (as a production agent does: it does
 * not wait for the end of the answer to run what is safe to run).
 *
 * A call is started early only when it is read-only AND every call before it in this message was
 * read-only too: then starting it sooner cannot change what any other call sees. Everything else
 * runs after the message ends, exactly as s03's runTools runs it; results stay in call order.
 *
 * subtle: a call starts before the turn's stop_reason is known (message_delta comes after the last
 * block). Only a turn that ends with tool_use runs its calls (s05). When it ends with anything else
 * (refusal, max_tokens, a reason the loop does not know, …), the loop calls `settle()`: the early
 * calls are stopped, awaited, and their results thrown away; the loop answers each call "not run".
 * That is why only read-only calls may start early: stopping them undoes nothing.
 */
import type Anthropic from "@anthropic-ai/sdk";
import type { ToolContext, ToolRegistry } from "../../solutions/s02_tool_dispatch/registry.ts";
import { runTools } from "../../solutions/s03_parallel_tools/run-tools.ts";
import type { StreamHandlers } from "./stream-turn.ts";

// #region early
export class EarlyStart {
  private readonly started = new Map<string, { input: string; result: Promise<Anthropic.ToolResultBlockParam> }>();
  private onlyReadsSoFar = true;
  /** Aborted by settle(): stops the early calls whose results will not be used. */
  private readonly stop = new AbortController();
  /** The tools' context, with a signal that aborts when the run's does or when settle() is called. */
  private readonly ctx: ToolContext;

  constructor(
    private readonly registry: ToolRegistry,
    ctx: ToolContext,
  ) {
    this.ctx = { ...ctx, signal: ctx.signal ? AbortSignal.any([ctx.signal, this.stop.signal]) : this.stop.signal };
  }

  /** Called by the stream for each complete tool call, in order. */
  notice(call: Anthropic.ToolUseBlock): void {
    if (this.onlyReadsSoFar && this.registry.get(call.name)?.readOnly)
      this.started.set(call.id, { input: JSON.stringify(call.input), result: this.registry.dispatch(call, this.ctx) });
    else this.onlyReadsSoFar = false;
  }

  /** The stream's handlers: the caller's own, and every complete call noticed here as well. */
  listening(handlers: StreamHandlers = {}): StreamHandlers {
    return {
      onText: (delta) => handlers.onText?.(delta),
      onToolUse: (call) => {
        handlers.onToolUse?.(call);
        this.notice(call);
      },
    };
  }

  /** How many calls were started before the message ended. */
  get count(): number {
    return this.started.size;
  }

  /** The results of all the calls, in order: early ones awaited, the rest run now. */
  async results(calls: Anthropic.ToolUseBlock[]): Promise<Anthropic.ToolResultBlockParam[]> {
    // The early ones are a prefix of the calls (and must be the very calls the message holds).
    let n = 0;
    while (n < calls.length && this.started.get(calls[n]!.id)?.input === JSON.stringify(calls[n]!.input)) n++;
    const early = await Promise.all(calls.slice(0, n).map((c) => this.started.get(c.id)!.result));
    const rest = await runTools(this.registry, calls.slice(n), this.ctx);
    return [...early, ...rest];
  }

  /**
   * When the turn's calls will not run (it did not end with tool_use, a guard stopped the run, the
   * stream broke): stops the early calls and waits until each has ended. Their results are
   * thrown away, so the loop never returns while a tool it started still runs.
   */
  async settle(): Promise<void> {
    this.stop.abort(new Error("the turn's calls are not run"));
    await Promise.allSettled([...this.started.values()].map((s) => s.result));
  }
}
// #endregion early
