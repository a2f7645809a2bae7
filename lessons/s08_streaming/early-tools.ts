/**
 * s08 · tools started while the message is still streaming (seed 002: a production agent does
 * not wait for the end of the answer to run what is safe to run).
 *
 * A call is started early only when it is read-only AND every call before it in this message was
 * read-only too: then starting it sooner cannot change what any other call sees. Everything else
 * runs after the message ends, exactly as s03's runTools runs it; results stay in call order.
 */
import type Anthropic from "@anthropic-ai/sdk";
import type { ToolContext, ToolRegistry } from "../../solutions/s02_tool_dispatch/registry.ts";
import { runTools } from "../../solutions/s03_parallel_tools/run-tools.ts";
import type { StreamHandlers } from "./stream-turn.ts";
import { todo } from "../../runtime/lesson.ts";

// #region early
export class EarlyStart {
  private readonly started = new Map<string, { input: string; result: Promise<Anthropic.ToolResultBlockParam> }>();
  private onlyReadsSoFar = true;

  constructor(
    private readonly registry: ToolRegistry,
    private readonly ctx: ToolContext,
  ) {}

  /** Called by the stream for each complete tool call, in order. */
  notice(call: Anthropic.ToolUseBlock): void {
    // TODO: when the call's tool is read-only (this.registry.get(call.name)?.readOnly) and every call
    //       noticed before it was too (this.onlyReadsSoFar), start it NOW: store
    //       { input: JSON.stringify(call.input), result: this.registry.dispatch(call, this.ctx) }
    //       in this.started under call.id. Otherwise set this.onlyReadsSoFar = false: from here on,
    //       nothing in this message starts early.
    void call;
    todo("s08 EarlyStart.notice: start read-only calls while the message is still streaming");
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

  /** When the turn ends without running its tools (a stop, an abort): let the early ones finish. */
  async settle(): Promise<void> {
    await Promise.allSettled([...this.started.values()].map((s) => s.result));
  }
}
// #endregion early
