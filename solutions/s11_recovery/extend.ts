/**
 * The places where a later lesson changes s11's loop without writing it again (Parts II and III).
 *
 * A lesson passes its change as an Extension: a function the loop calls once per run, with the
 * run's guards, that returns the hooks it needs. Each hook is one step of the loop, handed what
 * the step would have used, returning what it uses instead; a loop with no extension is s11's,
 * exactly. Several extensions apply in order, each one given what the one before returned.
 *
 * Two things keep any order safe. A `tools` hook that adds a tool wraps the registry it is given
 * (withTools below): the calls it does not own go to that registry's own dispatch, so a wrapper
 * applied before it (s17's MCP servers, s18's permission gate) still runs. And `request` returns
 * only the fields it changes, any field of the request (a tool_choice, a max_tokens), which the
 * loop lays over what it would have sent.
 *
 * One hook is not a position in that chain: `dispatch` (s18's gate, s19's hooks) wraps the
 * registry once every extension's `tools` has run, so every call passes it whichever extension
 * added the tool, and a subagent's tools pass it too (Run.gated).
 */
import type Anthropic from "@anthropic-ai/sdk";
import type { ToolContext, ToolRegistry, ToolSpec } from "../../solutions/s02_tool_dispatch/registry.ts";
import { SafeToolRegistry } from "../../solutions/s04_tool_errors/define-tool.ts";
import type { RunGuards } from "../../solutions/s06_guards/guards.ts";

// #region hooks
/** What each request sends again every turn: the part a later lesson may send changed (as a copy). */
export type Prompt = Required<Pick<Anthropic.MessageCreateParams, "system" | "tools" | "messages">>;

/** One turn's whole request as the loop sends it (all but the stream flag): model, max_tokens, the prompt, … */
export type TurnRequest = Omit<Anthropic.MessageStreamParams, "stream"> & Prompt;

/** One lesson's change to the loop: only the hooks it needs. */
export interface LoopHooks {
  /** The run's tools: add some, or wrap them (s14 todo, s15 task, s16 load_skill, s17 MCP). */
  tools?(tools: ToolRegistry): ToolRegistry;
  /** Every call, at dispatch: wraps the registry after EVERY extension's `tools` (s18's gate, s19's hooks); the first extension's wrapper is the outermost, the first to see a call. */
  dispatch?(tools: ToolRegistry): ToolRegistry;
  /** The system prompt: add to it (s16 lists the skills). */
  system?(text: string): string;
  /** This turn's request: return the fields it changes, as copies, any field (s13 cache breakpoints, a tool_choice); the history itself is never changed. */
  request?(request: TurnRequest): Partial<TurnRequest>;
  /** Each response, once the guards have counted it (s15 passes a child's tokens up to its parent). */
  counted?(response: Anthropic.Message): void;
  /** The user message that answers the turn: its tool_result blocks first, then what goes with them (s14 a reminder). */
  answer?(content: Anthropic.ContentBlockParam[], calls: readonly Anthropic.ToolUseBlock[]): Anthropic.ContentBlockParam[];
}

/** What an extension is given when a run starts: the run's guards (its turns, its budget) and workspace. */
export interface Run {
  guard: RunGuards;
  root: string;
  /** The run's `dispatch` wrappers around another registry: a subagent's tools (s15) pass the same gate. */
  gated(tools: ToolRegistry): ToolRegistry;
}

/** A lesson's change, made once per run. */
export type Extension = (run: Run) => LoopHooks;
// #endregion hooks

/** The extensions of one run, made when it starts; each step applies them in order. */
export class Extensions implements Required<LoopHooks> {
  private readonly hooks: LoopHooks[];

  constructor(extensions: readonly Extension[] = [], run: Omit<Run, "gated">) {
    this.hooks = extensions.map((make) => make({ ...run, gated: (t) => this.dispatch(t) }));
  }

  /** Every `tools` hook in order, then the `dispatch` wrappers around the result. */
  tools(tools: ToolRegistry): ToolRegistry {
    return this.dispatch(this.hooks.reduce((t, h) => h.tools?.(t) ?? t, tools));
  }

  dispatch(tools: ToolRegistry): ToolRegistry {
    return this.hooks.reduceRight((t, h) => h.dispatch?.(t) ?? t, tools);
  }

  system(text: string): string {
    return this.hooks.reduce((s, h) => h.system?.(s) ?? s, text);
  }

  request(request: TurnRequest): TurnRequest {
    return this.hooks.reduce((r, h) => (h.request ? { ...r, ...h.request(r) } : r), request);
  }

  counted(response: Anthropic.Message): void {
    for (const h of this.hooks) h.counted?.(response);
  }

  answer(content: Anthropic.ContentBlockParam[], calls: readonly Anthropic.ToolUseBlock[]): Anthropic.ContentBlockParam[] {
    return this.hooks.reduce((c, h) => h.answer?.(c, calls) ?? c, content);
  }
}

// #region layered
/**
 * `base`'s tools plus `added` (a name `base` has already keeps base's tool). A call to an added
 * tool runs here; every other call goes to `base.dispatch`, so what `base` does around its calls
 * (an MCP server's dispatch, a permission gate, an observer) is kept whatever order the
 * extensions come in.
 */
export function withTools(base: ToolRegistry, ...added: ToolSpec[]): ToolRegistry {
  const fresh = added.filter((t) => !base.get(t.name));
  return fresh.length === 0 ? base : new LayeredRegistry(base, fresh);
}

class LayeredRegistry extends SafeToolRegistry {
  private readonly own: Set<string>;

  constructor(
    private readonly base: ToolRegistry,
    added: ToolSpec[],
  ) {
    super([...base.names().map((n) => base.get(n)!), ...added]);
    this.own = new Set(added.map((t) => t.name));
  }

  override dispatch(call: Anthropic.ToolUseBlock, ctx?: ToolContext): Promise<Anthropic.ToolResultBlockParam> {
    return this.own.has(call.name) ? super.dispatch(call, ctx) : this.base.dispatch(call, ctx);
  }
}
// #endregion layered
