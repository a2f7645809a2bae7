/**
 * s14 · a plan the loop owns.
 *
 * The model keeps a to-do list with the `todo` tool: each call sends the WHOLE list again
 * (rewriting is simpler for a model than patching), and the loop checks it before it replaces the
 * old one. The state lives in the loop, not in the model's memory: the tool result shows it back,
 * the loop prints the progress, and when the model has not touched the plan for a few turns the
 * loop reminds it, in a short text block after that turn's tool results.
 */
import { z } from "zod";
import { todo } from "../../runtime/lesson.ts";
import { ToolError } from "../../runtime/tools/files.ts";
import { defineTool, type CheckedTool } from "../../solutions/s04_tool_errors/define-tool.ts";

export const STATUSES = ["pending", "in_progress", "completed"] as const;
export type Status = (typeof STATUSES)[number];

export interface TodoItem {
  content: string;
  status: Status;
}

/** The most items a plan may hold: a plan longer than this is not a plan. */
export const MAX_ITEMS = 20;

// #region plan
export class Plan {
  private list: TodoItem[] = [];
  /** The turn in which the model last wrote the plan (0: never). */
  touchedAt = 0;
  /** The turn in which the loop last reminded the model of it (0: never). */
  remindedAt = 0;

  get items(): readonly TodoItem[] {
    return this.list;
  }

  /** Items not yet completed. */
  get open(): number {
    return this.list.filter((i) => i.status !== "completed").length;
  }

  /**
   * The model's new list replaces the old one, if it keeps the rules: at most ONE item in
   * progress (one thing at a time), no empty or duplicate items. Otherwise a ToolError says which
   * rule, and the old plan stays as it was.
   */
  update(items: readonly TodoItem[], turn: number): string {
    // TODO: at most ONE item may be in_progress. When more are, throw a ToolError that names them
    //       and says the plan was not changed (the model reads it as an is_error result).
    const seen = new Set<string>();
    for (const item of items) {
      const content = item.content.trim();
      if (!content) throw new ToolError("an item has no content: say what the step is. The plan was not changed.");
      if (seen.has(content)) throw new ToolError(`the item ${JSON.stringify(content)} is listed twice. The plan was not changed.`);
      seen.add(content);
    }
    // TODO: the list is good: it replaces the old one (contents trimmed), the plan was touched in
    //       `turn`, and the model gets the plan back as render() shows it.
    return todo(`s14 Plan.update: check the ${items.length} item(s) (one in progress at most) and keep them (turn ${turn})`);
  }

  /** The plan as the model and the person read it: one line per item, and the progress. */
  render(): string {
    if (this.list.length === 0) return "The plan is empty.";
    const mark: Record<Status, string> = { pending: "[ ]", in_progress: "[>]", completed: "[x]" };
    const done = this.list.length - this.open;
    return [`Plan: ${done}/${this.list.length} done`, ...this.list.map((i) => `${mark[i.status]} ${i.content}`)].join("\n");
  }
}
// #endregion plan

// #region reminder
/**
 * The reminder for this turn, or null: when the plan still has open items and the model has not
 * written it for `after` turns (nor been reminded in that time). The loop adds it as a text block
 * AFTER the turn's tool results, never before them.
 */
export function staleReminder(plan: Plan, turn: number, after: number): string | null {
  // TODO: null when the plan has no open item, or when fewer than `after` turns have passed since
  //       the plan was written (touchedAt) or last recalled (remindedAt), whichever came later.
  //       Otherwise note remindedAt = turn and return a short text that starts "<reminder>", says
  //       how many turns the plan has been left alone, and shows plan.render().
  return todo(`s14 staleReminder: is the plan stale at turn ${turn} (after ${after} turns, last written in turn ${plan.touchedAt})?`);
}

// #endregion reminder

/** The `todo` tool: the model rewrites the whole plan; `turn()` says which turn it is. */
export function todoTool(plan: Plan, turn: () => number): CheckedTool {
  return defineTool({
    name: "todo",
    description:
      "Write your plan for the task as a to-do list. Send the WHOLE list every time (it replaces the old one), " +
      "each item with a status: pending, in_progress or completed. Exactly one item is in_progress while you work. " +
      "Update it as you finish steps.",
    input: z.object({
      items: z
        .array(z.object({ content: z.string().describe("The step, in a few words"), status: z.enum(STATUSES) }))
        .max(MAX_ITEMS)
        .describe("The whole plan, in order"),
    }),
    readOnly: false,
    run: ({ items }) => plan.update(items, turn()),
  });
}
