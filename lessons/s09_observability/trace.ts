/**
 * s09 · the message table: the transcript, one line per message, showing exactly
 * what each request re-sends. `--trace` prints it after a run.
 *
 *   [0] user       "Run the login module's tests and find out why one fails."
 *   [1] assistant  text + tool_use(id=toolu_…, bash)                       stop_reason: tool_use
 *   [2] user       tool_result(tool_use_id=toolu_…)
 */
import type Anthropic from "@anthropic-ai/sdk";

type Block = Anthropic.ContentBlockParam | Anthropic.ContentBlock;

function quote(s: string, max = 60): string {
  const one = s.replace(/\s+/g, " ").trim();
  return JSON.stringify(one.length > max ? `${one.slice(0, max - 1)}…` : one);
}

/** One block, the way the message table writes it. */
export function describeBlock(b: Block, alone: boolean): string {
  switch (b.type) {
    case "text":
      return alone ? `text(${quote(b.text)})` : "text";
    case "thinking":
    case "redacted_thinking":
      return b.type;
    case "tool_use":
      return `tool_use(id=${b.id}, ${b.name})`;
    case "tool_result":
      return `tool_result(tool_use_id=${b.tool_use_id}${b.is_error ? ", is_error" : ""})`;
    default:
      return b.type;
  }
}

// #region table
/**
 * The table. `responses` (the model's answers, in order) add each assistant line's stop_reason.
 */
export function messageTable(messages: readonly Anthropic.MessageParam[], responses: readonly Anthropic.Message[] = []): string[] {
  return messages.map((m, i) => {
    const head = `[${i}] ${m.role.padEnd(10)} `;
    if (typeof m.content === "string") return head + quote(m.content);
    const blocks = m.content as Block[];
    const body =
      m.role === "user" && blocks.length === 1 && blocks[0]!.type === "text"
        ? quote(blocks[0]!.text)
        : blocks.map((b) => describeBlock(b, blocks.length === 1)).join(" + ");
    // The latest response with this content: one cut off and asked again may have the same content.
    const response = m.role === "assistant" ? responses.findLast((r) => r.content === m.content || sameContent(r.content, blocks)) : undefined;
    const stop = response ? `stop_reason: ${response.stop_reason}` : "";
    return stop ? `${(head + body).padEnd(72)} ${stop}` : head + body;
  });
}
// #endregion table

/** The same blocks: same types, texts and tool ids (key order and SDK extras do not matter). */
function sameContent(a: readonly Block[], b: readonly Block[]): boolean {
  const key = (blocks: readonly Block[]) => blocks.map((x) => (x.type === "tool_use" ? x.id : x.type === "text" ? x.text : x.type)).join("\u0000");
  return a.length === b.length && key(a) === key(b);
}
