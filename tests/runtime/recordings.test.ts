/**
 * The recorded transcripts the docs show (scripts/docs/record-transcripts.ts writes them to
 * docs/public/transcripts/<lesson>.json when the site is built) hold the scripted model's answers:
 * every assistant block and every turn's usage must be what the API sends. One lesson is recorded
 * here the way the recorder does it; recordings already on disk (after `npm run docs:build`) are
 * checked too.
 */
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import type Anthropic from "@anthropic-ai/sdk";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { matchResponses, type RecordedTranscript } from "../../docs/.vitepress/theme/transcript.ts";
import { scriptedLlm } from "../../runtime/client.ts";
import { ContentBlock, KNOWN_STOP_REASONS, Message, Usage, shapeProblems } from "../../runtime/scripted/schema.ts";
import { quietOutput, ROOT } from "../../runtime/testing.ts";
import { transcriptOf } from "../../scripts/docs/record-transcripts.ts";

/** What in a recording is not what the API sends, one line per problem. */
function recordingProblems(rec: Pick<RecordedTranscript, "messages" | "turns">): string[] {
  const problems: string[] = [];
  for (const turn of rec.turns) {
    const m = rec.messages[turn.index];
    if (m?.role !== "assistant") {
      problems.push(`turn at message ${turn.index} is not an assistant message`);
      continue;
    }
    const blocks = typeof m.content === "string" ? [{ type: "text", text: m.content }] : m.content;
    blocks.forEach((b, j) => problems.push(...shapeProblems(ContentBlock, b).map((p) => `messages.${turn.index}.content.${j}: ${p}`)));
    if (turn.usage) problems.push(...shapeProblems(Usage, turn.usage).map((p) => `messages.${turn.index} usage: ${p}`));
    if (turn.stop_reason !== null && !/^[a-z][a-z0-9_]*$/.test(turn.stop_reason))
      problems.push(`messages.${turn.index}: stop_reason ${turn.stop_reason}`);
  }
  return problems;
}

let restore: () => void;
beforeAll(() => {
  restore = quietOutput();
});
afterAll(() => restore());

describe("recorded transcripts hold answers as the API sends them", () => {
  it("s01, recorded as the recorder does it: every answer and every kept block matches the API's shape", async () => {
    const { demo } = (await import("../../solutions/s01_agent_loop/agent.ts")) as { demo: (llm: unknown) => Promise<unknown> };
    const llm = scriptedLlm({ maxRequests: 20 });
    const messages = transcriptOf(await demo(llm));
    expect(messages, "s01's demo(llm) returns its transcript").not.toBeNull();
    const responses = llm.scripted.responses;
    expect(responses.length).toBeGreaterThan(1);
    for (const r of responses) expect(shapeProblems(Message, r), `response ${r.id}`).toEqual([]);
    const { turns } = matchResponses(messages!, responses);
    expect(turns.length).toBe(responses.length);
    expect(turns.map((t) => t.stop_reason).every((s) => (KNOWN_STOP_REASONS as readonly (string | null)[]).includes(s))).toBe(true);
    expect(recordingProblems({ messages: messages!, turns })).toEqual([]);
  });

  it("s05, recorded as the recorder does it: a pause_turn answer joined with its continuation keeps the API's usage shape, with summed counts", async () => {
    const { demo } = (await import("../../solutions/s05_stop_reasons/agent.ts")) as { demo: (llm: unknown) => Promise<unknown> };
    const llm = scriptedLlm({ maxRequests: 20 });
    const messages = transcriptOf(await demo(llm));
    expect(messages, "s05's demo(llm) returns its transcript").not.toBeNull();
    const { turns } = matchResponses(messages!, llm.scripted.responses);
    const joined = turns.find((t) => t.merged && t.merged.length > 1);
    expect(joined, "s05's run joins a pause_turn answer with its continuation").toBeDefined();
    const parts = llm.scripted.responses.filter((r) => joined!.merged!.includes(r.stop_reason)).slice(-joined!.merged!.length);
    expect(joined!.usage?.output_tokens).toBe(parts.reduce((n, r) => n + r.usage.output_tokens, 0));
    expect(recordingProblems({ messages: messages!, turns })).toEqual([]);
  });

  it("the check finds a key the API never sends (citations: null) and a usage with nulls", () => {
    const messages: Anthropic.MessageParam[] = [
      { role: "user", content: "hi" },
      { role: "assistant", content: [{ type: "text", text: "hello", citations: null }] },
    ];
    const usage = { input_tokens: 1, output_tokens: 1, cache_creation_input_tokens: 0, cache_read_input_tokens: 0, server_tool_use: null };
    const problems = recordingProblems({ messages, turns: [{ index: 1, stop_reason: "end_turn", usage: usage as unknown as Anthropic.Usage }] });
    expect(problems.some((p) => p.startsWith("messages.1.content.0: citations"))).toBe(true);
    expect(problems.some((p) => p.includes("usage"))).toBe(true);
  });

  const dir = join(ROOT, "docs/public/transcripts");
  const files = existsSync(dir) ? readdirSync(dir).filter((f) => f.endsWith(".json")) : [];
  it.skipIf(files.length === 0).each(files)("docs/public/transcripts/%s (from the last docs build)", (file) => {
    const rec = JSON.parse(readFileSync(join(dir, file), "utf8")) as RecordedTranscript | { type: "failed" };
    if (rec.type !== "recorded") return; // a lesson that could not be recorded says why; e2e fails on it
    expect(recordingProblems(rec)).toEqual([]);
  });
});
