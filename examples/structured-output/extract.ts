/**
 * Appendix: structured output with `tool_choice`. A tool is declared for its input schema only,
 * and `tool_choice: {type: "tool", name}` makes the model answer with one call to it: the call's
 * input is the structured answer. Nothing runs the tool; the input is checked with the same zod
 * schema the tool's `input_schema` was made from.
 *
 * Run: npx tsx examples/structured-output/extract.ts ["text to review"]
 */
import type Anthropic from "@anthropic-ai/sdk";
import { z } from "zod";
import { selectModel, type Llm } from "../../runtime/client.ts";
import { runMain, taskFromArgs } from "../../runtime/lesson.ts";
import { bold, dim, heading, say } from "../../runtime/print.ts";

export const SAMPLE = `function add(a, b) {\n  return a - b;\n}`;

// #region schema
/** The answer's shape: one zod schema for the tool's input_schema and for checking the answer. */
export const Review = z.object({
  verdict: z.enum(["approve", "request_changes"]).describe("Whether the code can be merged as it is."),
  score: z.int().min(1).max(5).describe("Quality from 1 (poor) to 5 (excellent)."),
  summary: z.string().min(1).max(400).describe("One or two sentences."),
  issues: z.array(z.object({ line: z.int().min(1), note: z.string() })).describe("Each problem, by line."),
});
export type Review = z.infer<typeof Review>;

export const RECORD_REVIEW: Anthropic.Tool = {
  name: "record_review",
  description: "Record the review of a piece of code. Call it once, with the whole review.",
  input_schema: z.toJSONSchema(Review) as Anthropic.Tool.InputSchema,
};
// #endregion schema

// #region extract
export type Extracted = { ok: true; review: Review; message: Anthropic.Message } | { ok: false; problem: string; message?: Anthropic.Message };

/** Asks for a review as structured data: one forced call, its input checked, no tool run. */
export async function review({ client, model }: Llm, code: string): Promise<Extracted> {
  const message = await client.messages.create({
    model,
    max_tokens: 1024,
    tools: [RECORD_REVIEW],
    // Forced: the answer is a call to record_review, with no text before it.
    tool_choice: { type: "tool", name: RECORD_REVIEW.name },
    messages: [{ role: "user", content: `Review this code:\n\n${code}` }],
  });
  // max_tokens can cut the call short (its input then arrives as {}): never take a cut-off call.
  if (message.stop_reason !== "tool_use")
    return { ok: false, problem: `the answer stopped with "${message.stop_reason}", not with the forced call`, message };
  const call = message.content.find((b): b is Anthropic.ToolUseBlock => b.type === "tool_use" && b.name === RECORD_REVIEW.name);
  if (!call) return { ok: false, problem: `the answer has no ${RECORD_REVIEW.name} call`, message };
  // The schema was a request, not a guarantee: check the input before trusting it.
  const parsed = Review.safeParse(call.input);
  if (!parsed.success) return { ok: false, problem: `the ${RECORD_REVIEW.name} input does not fit the schema: ${z.prettifyError(parsed.error)}`, message };
  return { ok: true, review: parsed.data, message };
}
// #endregion extract

async function main(): Promise<void> {
  const llm = selectModel();
  say(dim(llm.banner));
  const code = taskFromArgs(SAMPLE);
  heading("Structured output: one forced call to record_review");
  const result = await review(llm, code);
  if (!result.ok) {
    say(`${bold("no review")}: ${result.problem}`);
    process.exitCode = 1;
    return;
  }
  say(JSON.stringify(result.review, null, 2));
  if (llm.offline) say(dim("Offline, the scripted model fills the schema with the first values it allows: the shape is real, the review is not."));
}

runMain(import.meta.url, main);
