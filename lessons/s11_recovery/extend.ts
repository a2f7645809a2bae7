/**
 * The places where a later lesson changes s11's loop without writing it again (Part II, s13–s17).
 *
 * A lesson passes its change as an Extension: a function the loop calls once per run, with the
 * run's guards, that returns the hooks it needs. Each hook is one step of the loop, handed what
 * the step would have used, returning what it uses instead; a loop with no extension is s11's,
 * exactly. Several extensions apply in order, each one given what the one before returned.
 */
import type Anthropic from "@anthropic-ai/sdk";
import type { ToolRegistry } from "../../solutions/s02_tool_dispatch/registry.ts";
import type { RunGuards } from "../../solutions/s06_guards/guards.ts";

// #region hooks
/** What each request sends again every turn: the part a later lesson may send changed (as a copy). */
export type Prompt = Required<Pick<Anthropic.MessageCreateParams, "system" | "tools" | "messages">>;

/** One lesson's change to the loop: only the hooks it needs. */
export interface LoopHooks {
  /** The run's tools: add some, or wrap them (s14 todo, s15 task, s16 load_skill, s17 MCP). */
  tools?(tools: ToolRegistry): ToolRegistry;
  /** The system prompt: add to it (s16 lists the skills). */
  system?(text: string): string;
  /** What this turn's request sends: return a copy; the history itself is never changed (s13 cache breakpoints). */
  request?(prompt: Prompt): Prompt;
  /** Each response, once the guards have counted it (s15 passes a child's tokens up to its parent). */
  counted?(response: Anthropic.Message): void;
  /** The user message that answers the turn: its tool_result blocks first, then what goes with them (s14 a reminder). */
  answer?(content: Anthropic.ContentBlockParam[], calls: readonly Anthropic.ToolUseBlock[]): Anthropic.ContentBlockParam[];
}

/** What an extension is given when a run starts: the run's guards (its turns, its budget) and workspace. */
export interface Run {
  guard: RunGuards;
  root: string;
}

/** A lesson's change, made once per run. */
export type Extension = (run: Run) => LoopHooks;
// #endregion hooks

/** The extensions of one run, made when it starts; each step applies them in order. */
export class Extensions implements Required<LoopHooks> {
  private readonly hooks: LoopHooks[];

  constructor(extensions: readonly Extension[] = [], run: Run) {
    this.hooks = extensions.map((make) => make(run));
  }

  tools(tools: ToolRegistry): ToolRegistry {
    return this.hooks.reduce((t, h) => h.tools?.(t) ?? t, tools);
  }

  system(text: string): string {
    return this.hooks.reduce((s, h) => h.system?.(s) ?? s, text);
  }

  request(prompt: Prompt): Prompt {
    return this.hooks.reduce((p, h) => h.request?.(p) ?? p, prompt);
  }

  counted(response: Anthropic.Message): void {
    for (const h of this.hooks) h.counted?.(response);
  }

  answer(content: Anthropic.ContentBlockParam[], calls: readonly Anthropic.ToolUseBlock[]): Anthropic.ContentBlockParam[] {
    return this.hooks.reduce((c, h) => h.answer?.(c, calls) ?? c, content);
  }
}
