/**
 * s09 · one typed event per step of the loop (THINK / ACT / OBSERVE, and the stop).
 *
 * The loop does not print or log anything itself any more: it emits events, and whoever listens
 * decides (a terminal logger, a JSONL file, a test). The union's `type` field tells TypeScript
 * which fields an event has, so a `switch` over it is checked to handle every kind.
 */
import type Anthropic from "@anthropic-ai/sdk";
import type { ToolContext, ToolRegistry } from "../../solutions/s02_tool_dispatch/registry.ts";
import { SafeToolRegistry } from "../../solutions/s04_tool_errors/define-tool.ts";
import type { Outcome } from "../../solutions/s05_stop_reasons/outcome.ts";
import { addTurn, emptyTotals, turnUsage, type Totals, type TurnUsage } from "./usage.ts";

// #region events
export type AgentEvent =
  /** THINK: the model answered (one response = one turn), with what it cost. */
  | { type: "think"; turn: number; message: Anthropic.Message; usage: TurnUsage; ms: number }
  /** ACT: a tool call is about to run. */
  | { type: "act"; turn: number; call: Anthropic.ToolUseBlock }
  /** OBSERVE: its result came back. */
  | { type: "observe"; turn: number; call: Anthropic.ToolUseBlock; result: Anthropic.ToolResultBlockParam; ms: number }
  /** STOP: the run is over, however it ended, with the run's totals. */
  | { type: "stop"; turn: number; outcome: Outcome<string>; totals: Totals; ms: number };

/** Where events go. */
export type EventSink = (event: AgentEvent) => void;

/** One event of a given kind, derived from the union rather than written again. */
export type EventOf<T extends AgentEvent["type"]> = Extract<AgentEvent, { type: T }>;
// #endregion events

/** Several sinks as one. */
export function fanOut(...sinks: Array<EventSink | undefined>): EventSink {
  return (event) => {
    for (const sink of sinks) sink?.(event);
  };
}

// #region observed
/**
 * The same tools, watched: every dispatch emits ACT when the call starts and OBSERVE when its
 * result is back, with the time it took. The loop's tool running (s03, s08) is untouched.
 */
export class ObservedRegistry extends SafeToolRegistry {
  constructor(
    private readonly inner: ToolRegistry,
    private readonly emit: EventSink,
    private readonly turn: () => number,
  ) {
    super(inner.names().map((name) => inner.get(name)!));
  }

  override async dispatch(call: Anthropic.ToolUseBlock, ctx?: ToolContext): Promise<Anthropic.ToolResultBlockParam> {
    const turn = this.turn();
    this.emit({ type: "act", turn, call });
    const started = Date.now();
    const result = await this.inner.dispatch(call, ctx);
    this.emit({ type: "observe", turn, call, result, ms: Date.now() - started });
    return result;
  }
}
// #endregion observed

// #region run-events
/** The events of one run, for the loop to call: THINK per response, STOP however it ends, tools observed. */
export class RunEvents {
  readonly emit: EventSink;
  /** What the run has cost so far. */
  totals = emptyTotals();
  private readonly startedAt = Date.now();

  constructor(
    private readonly model: string,
    sink: EventSink | undefined,
    /** The turn the run is at (for the events' `turn`). */
    private readonly turn: () => number,
  ) {
    this.emit = sink ?? (() => {});
  }

  /** The same tools, watched: every call, early or not, reports ACT before it runs and OBSERVE after. */
  observe(tools: ToolRegistry): ObservedRegistry {
    return new ObservedRegistry(tools, this.emit, this.turn);
  }

  /** THINK: the response, what it cost, how long since it was `asked` for; the run's totals grow by it. */
  think(message: Anthropic.Message, asked: number): void {
    const usage = turnUsage(this.model, message.usage);
    this.totals = addTurn(this.totals, usage);
    this.emit({ type: "think", turn: this.turn(), message, usage, ms: Date.now() - asked });
  }

  /** STOP: every way out of the loop goes through here, so the last event always says how it ended. */
  stop<O extends Outcome<string>>(outcome: O): O {
    this.emit({ type: "stop", turn: this.turn(), outcome, totals: this.totals, ms: Date.now() - this.startedAt });
    return outcome;
  }
}
// #endregion run-events
