/** Small builders for scenario scripts, so each lesson's scenario reads like the conversation. */
import type { Reply, ReplyBlock, TurnContext } from "../types.ts";

export const text = (t: string): ReplyBlock => ({ type: "text", text: t });
export const thinking = (t: string): ReplyBlock => ({ type: "thinking", thinking: t });
export const call = (name: string, input: Record<string, unknown>): ReplyBlock => ({ type: "tool_use", name, input });
export const say = (t: string): Reply => ({ content: [text(t)], stop_reason: "end_turn" });

/**
 * A script of steps: step 0 answers the task, step 1 answers the first tool results, and so on.
 * Past the last step, the last step is repeated (a scenario never runs out of answers).
 */
export function steps(...script: Array<(ctx: TurnContext) => Reply>): (ctx: TurnContext) => Reply {
  return (ctx) => script[Math.min(ctx.step, script.length - 1)]!(ctx);
}

/** The first lines of a tool result, for answers that quote what a tool returned. */
export function firstLines(s: string, n = 5): string {
  const lines = s.split("\n").filter((l) => l.trim().length > 0);
  return lines.slice(0, n).join("\n") + (lines.length > n ? `\n… (${lines.length - n} more lines)` : "");
}
