/**
 * The transcript checker: one test per rule. Each asserts the rule's name, the message index
 * (and block, where one block is at fault), the tool_use id involved, and the plain words a
 * learner reads.
 */
import type Anthropic from "@anthropic-ai/sdk";
import { describe, expect, it } from "vitest";
import { assertTranscript, checkTranscript, formatViolations, TranscriptError, type Rule, type Violation } from "../../runtime/transcript.ts";

type M = Anthropic.MessageParam;
const use = (id: string, name = "bash"): Anthropic.ToolUseBlockParam => ({ type: "tool_use", id, name, input: { command: "ls" } });
const result = (id: string, content: Anthropic.ToolResultBlockParam["content"] = "ok", is_error?: boolean): Anthropic.ToolResultBlockParam => ({
  type: "tool_result",
  tool_use_id: id,
  content,
  ...(is_error === undefined ? {} : { is_error }),
});
const txt = (text: string): Anthropic.TextBlockParam => ({ type: "text", text });
const u = (...content: Anthropic.ContentBlockParam[]): M => ({ role: "user", content });
const a = (...content: Anthropic.ContentBlockParam[]): M => ({ role: "assistant", content });
const ask = u(txt("go"));

/** The only violation of `rule` (fails if there is none, or several). */
function only(messages: M[], rule: Rule, responses?: Anthropic.Message[]): Violation {
  const found = checkTranscript(messages, responses ? { responses } : {}).filter((v) => v.rule === rule);
  expect(found, `expected one "${rule}" in ${JSON.stringify(checkTranscript(messages, responses ? { responses } : {}))}`).toHaveLength(1);
  return found[0]!;
}

/** A response as the SDK returns it (citations: null and the rest), for the verbatim rule. */
function response(content: Anthropic.ContentBlock[]): Anthropic.Message {
  return {
    id: "msg_1",
    type: "message",
    role: "assistant",
    model: "scripted-model",
    content,
    stop_reason: content.some((b) => b.type === "tool_use") ? "tool_use" : "end_turn",
    stop_sequence: null,
    usage: { input_tokens: 1, output_tokens: 1 },
  } as Anthropic.Message;
}
const thinkingBlock = (thinking: string): Anthropic.ThinkingBlock => ({ type: "thinking", thinking, signature: `sig_${thinking.length}` });
const textBlock = (text: string): Anthropic.TextBlock => ({ type: "text", text, citations: null });
const useBlock = (id: string): Anthropic.ToolUseBlock => ({ type: "tool_use", id, name: "bash", input: { command: "ls" } }) as Anthropic.ToolUseBlock;

describe("transcript checker: one rule at a time", () => {
  it("a valid transcript has no violations (and assertTranscript is quiet)", () => {
    const m = [ask, a(txt("Let me look."), use("toolu_a"), use("toolu_b")), u(result("toolu_b"), result("toolu_a"), txt("also")), a(txt("Done."))];
    expect(checkTranscript(m)).toEqual([]);
    expect(() => assertTranscript(m)).not.toThrow();
    expect(formatViolations([])).toBe("the transcript keeps every rule");
  });

  it("first-message-user", () => {
    const v = only([a(txt("hi")), ask], "first-message-user");
    expect(v.index).toBe(0);
    expect(v.message).toBe("messages[0] is from the assistant: a conversation must start with a user message.");
  });

  it("roles-alternate: two user messages in a row", () => {
    const v = only([ask, u(txt("again"))], "roles-alternate");
    expect(v.index).toBe(1);
    expect(v.message).toMatch(/^messages\[0\] and messages\[1\] are both user messages: roles must alternate\. Put all the tool results of one turn/);
  });

  it("roles-alternate: two assistant messages in a row", () => {
    const v = only([ask, a(txt("one")), a(txt("two"))], "roles-alternate");
    expect(v.index).toBe(2);
    expect(v.message).toMatch(/^messages\[1\] and messages\[2\] are both assistant messages: roles must alternate\. Append each response once/);
  });

  it("empty-message: an empty assistant message before the end", () => {
    const v = only([ask, a(), u(txt("well?"))], "empty-message");
    expect(v.index).toBe(1);
    expect(v.message).toMatch(/^messages\[1\] is an assistant message with no content: do not store an empty response/);
  });

  it("empty-message: an empty user message", () => {
    const v = only([{ role: "user", content: "" }], "empty-message");
    expect(v.message).toMatch(/^messages\[0\] is a user message with no content/);
    // An empty FINAL assistant message is allowed (the API accepts it as a prefill).
    expect(checkTranscript([ask, a()])).toEqual([]);
  });

  it("empty-message: an empty transcript", () => {
    expect(only([], "empty-message").message).toMatch(/the transcript is empty/);
  });

  it("empty-text: an empty or whitespace text block, with its block index", () => {
    const v = only([u(txt("go"), txt("  "))], "empty-text");
    expect(v).toMatchObject({ index: 0, block: 1 });
    expect(v.message).toBe("messages[0].content[1] is an empty text block: the API rejects empty text; leave the block out.");
  });

  it("empty-text: an empty text block inside a tool_result's content", () => {
    const v = only([ask, a(use("toolu_a")), u(result("toolu_a", [txt("")]))], "empty-text");
    expect(v).toMatchObject({ index: 2, block: 0 });
    expect(v.message).toMatch(/messages\[2\]\.content\[0\] .*toolu_a.*empty text block/);
  });

  it("wrong-role-block: a tool_use in a user message, a tool_result in an assistant message", () => {
    const v = only([u(txt("go"), use("toolu_a"))], "wrong-role-block");
    expect(v).toMatchObject({ index: 0, block: 1 });
    expect(v.message).toBe("messages[0].content[1] is a tool_use block in a user message: it belongs to the assistant's turn.");
    const w = checkTranscript([ask, a(result("toolu_a"))]).find((x) => x.rule === "wrong-role-block")!;
    expect(w.message).toBe("messages[1].content[0] is a tool_result in an assistant message: results go in the next USER message.");
  });

  it("unanswered-tool-use: the transcript ends with an unanswered call", () => {
    const v = only([ask, a(txt("Let me run it."), use("toolu_end"))], "unanswered-tool-use");
    expect(v.index).toBe(1);
    expect(v.message).toMatch(/^messages\[1\] asks for toolu_end \(bash\) and nothing answers: .*cannot be sent again\. Answer every tool_use/);
  });

  it("unanswered-tool-use: the next user message has no result for it", () => {
    const v = only([ask, a(use("toolu_a"), use("toolu_b", "read_file")), u(result("toolu_a"))], "unanswered-tool-use");
    expect(v.index).toBe(2);
    expect(v.message).toBe(
      "messages[1] asks for toolu_b (read_file), but messages[2] has no tool_result for it: every tool_use needs a tool_result with the same id in the very next user message.",
    );
  });

  it("results-split: the results of one turn spread over two user messages", () => {
    const m = [ask, a(use("toolu_a"), use("toolu_b")), u(result("toolu_a")), u(result("toolu_b"))];
    const v = only(m, "results-split");
    expect(v.index).toBe(2);
    expect(v.message).toBe(
      "messages[1] asks for toolu_b (bash), but messages[2] does not answer it (messages[3] does, too late): all the results of one turn go in ONE user message, right after it.",
    );
  });

  it("results-first: text before the results", () => {
    const v = only([ask, a(use("toolu_a")), u(txt("Here you go:"), result("toolu_a"))], "results-first");
    expect(v).toMatchObject({ index: 2, block: 0 });
    expect(v.message).toBe(
      "messages[2].content[0] is a text block before the tool_result for toolu_a: tool_result blocks must come first in the user message.",
    );
  });

  it("orphan-result: a result nobody asked for (the message from the brief)", () => {
    const v = only([ask, a(txt("no tools")), u(txt("hm")), a(use("toolu_a")), u(result("toolu_a"), result("toolu_x"))], "orphan-result");
    expect(v).toMatchObject({ index: 4, block: 1 });
    expect(v.message).toBe(
      "messages[4] answers toolu_x, which messages[3] never asked for: a tool_result must answer a tool_use of the message right before it.",
    );
  });

  it("orphan-result: a stale result, answering an earlier turn", () => {
    const m = [ask, a(use("toolu_old")), u(result("toolu_old")), a(use("toolu_new")), u(result("toolu_new"), result("toolu_old"))];
    const v = only(m, "orphan-result");
    expect(v.message).toMatch(/^messages\[4\] answers toolu_old, which messages\[3\] never asked for/);
  });

  it("orphan-result: a result in the first message", () => {
    const v = only([u(result("toolu_x"))], "orphan-result");
    expect(v.message).toBe("messages[0] answers toolu_x, but no assistant message came before it.");
  });

  it("duplicate-result: one call answered twice", () => {
    const v = only([ask, a(use("toolu_a")), u(result("toolu_a"), result("toolu_a", "again"))], "duplicate-result");
    expect(v).toMatchObject({ index: 2, block: 1 });
    expect(v.message).toBe("messages[2] answers toolu_a twice: each tool_use gets exactly one tool_result.");
  });

  it("duplicate-tool-use-id: one id in two turns", () => {
    const m = [ask, a(use("toolu_same")), u(result("toolu_same")), a(use("toolu_same")), u(result("toolu_same"))];
    const v = only(m, "duplicate-tool-use-id");
    expect(v).toMatchObject({ index: 3, block: 0 });
    expect(v.message).toBe("toolu_same is used by messages[1] and messages[3]: tool_use ids must be unique.");
  });

  it("error-result-empty: is_error with nothing said", () => {
    const v = only([ask, a(use("toolu_a")), u(result("toolu_a", "", true))], "error-result-empty");
    expect(v).toMatchObject({ index: 2, block: 0 });
    expect(v.message).toMatch(/^messages\[2\]\.content\[0\] is an error result \(is_error: true\) with no content: say what went wrong/);
    expect(checkTranscript([ask, a(use("toolu_a")), u(result("toolu_a", "boom", true))])).toEqual([]);
  });

  describe("api-rejected: fields the API does not take", () => {
    it("is_error that is not a boolean", () => {
      const bad = { ...result("toolu_a"), is_error: "true" } as unknown as Anthropic.ToolResultBlockParam;
      const v = only([ask, a(use("toolu_a")), u(bad)], "api-rejected");
      expect(v).toMatchObject({ index: 2, block: 0 });
      expect(v.message).toMatch(/is_error is "true" \(a string\); the API takes only a boolean/);
      expect(checkTranscript([ask, a(use("toolu_a")), u(result("toolu_a", "ok", false))])).toEqual([]);
    });

    it("a tool_result with a field of its own, or content that is neither a string nor a list", () => {
      const extra = { ...result("toolu_a"), output: "ok" } as unknown as Anthropic.ToolResultBlockParam;
      expect(only([ask, a(use("toolu_a")), u(extra)], "api-rejected").message).toMatch(/has `output`: a tool_result has only type, tool_use_id, content and is_error/);
      const object = { ...result("toolu_a"), content: { text: "ok" } } as unknown as Anthropic.ToolResultBlockParam;
      expect(only([ask, a(use("toolu_a")), u(object)], "api-rejected").message).toMatch(/content is an object; it must be a string or a list of blocks/);
    });

    it("the whole Message pushed as a history entry", () => {
      const whole = { ...response([textBlock("hi")]) } as unknown as M;
      const v = only([ask, whole], "api-rejected");
      expect(v).toMatchObject({ index: 1 });
      expect(v.message).toMatch(/is the whole Message the API returned .*Push \{ role: "assistant", content: response\.content \}/);
    });

    it("a hole in content (undefined, null) is reported, not a crash", () => {
      const holes = { role: "user", content: [result("toolu_a"), undefined, null] } as unknown as M;
      const found = checkTranscript([ask, a(use("toolu_a")), holes]).filter((x) => x.rule === "api-rejected");
      expect(found.map((x) => x.block)).toEqual([1, 2]);
      expect(found[0]!.message).toMatch(/^messages\[2\]\.content\[1\] is undefined, not a block/);
    });
  });

  describe("not-verbatim: the assistant turn must be the response as sent", () => {
    const sent = response([thinkingBlock("I will list."), textBlock("Listing."), useBlock("toolu_v")]);
    const after = u(result("toolu_v"));

    it("accepts response.content as it came (SDK extras like citations: null do not matter)", () => {
      expect(checkTranscript([ask, { role: "assistant", content: sent.content }, after], { responses: [sent] })).toEqual([]);
      const plain = a({ type: "thinking", thinking: "I will list.", signature: "sig_12" }, txt("Listing."), use("toolu_v"));
      expect(checkTranscript([ask, plain, after], { responses: [sent] })).toEqual([]);
    });

    it("accepts a paused turn with its continuation appended, also after a dropped cut-off answer that began the same way", () => {
      // max_tokens (dropped, asked again), then a paused turn, then its continuation: the history
      // holds the last two laid end to end, and the dropped one starts with the same block.
      const cut = { ...response([thinkingBlock("Same thought.")]), stop_reason: "max_tokens" as const };
      const paused = { ...response([thinkingBlock("Same thought."), textBlock("Looking.")]), stop_reason: "pause_turn" as const };
      const rest = response([textBlock("All done.")]);
      const kept = { role: "assistant" as const, content: [...paused.content, ...rest.content] };
      expect(checkTranscript([ask, kept], { responses: [cut, paused, rest] })).toEqual([]);
      // A block no response holds is still named.
      const forged = { role: "assistant" as const, content: [...paused.content, textBlock("Not said.")] };
      expect(only([ask, forged], "not-verbatim", [cut, paused, rest]).message).toMatch(/content\[2\] \(text\) was not in the response/);
    });

    it("a dropped thinking block", () => {
      const v = only([ask, a(txt("Listing."), use("toolu_v")), after], "not-verbatim", [sent]);
      expect(v.index).toBe(1);
      expect(v.message).toBe(
        "messages[1] is not the model's response as it was sent: its thinking block was dropped. Append response.content unchanged (thinking blocks and their signatures included, in order).",
      );
    });

    it("an edited thinking block", () => {
      const v = only([ask, a({ type: "thinking", thinking: "I will list!", signature: "sig_12" }, txt("Listing."), use("toolu_v")), after], "not-verbatim", [sent]);
      expect(v.message).toMatch(/^messages\[1\] is not the model's response as it was sent: its thinking block was changed\./);
    });

    it("a dropped text block, an added block, reordered blocks", () => {
      const t = sent.content[0] as Anthropic.ThinkingBlock;
      const dropped = only([ask, a(t, use("toolu_v")), after], "not-verbatim", [sent]);
      expect(dropped.message).toMatch(/its text block at content\[1\] was dropped/);
      const added = only([ask, a(t, txt("Listing."), txt("Extra."), use("toolu_v")), after], "not-verbatim", [sent]);
      expect(added.message).toMatch(/content\[2\] \(text\) was not in the response/);
      const reordered = only([ask, a(txt("Listing."), t, use("toolu_v")), after], "not-verbatim", [sent]);
      expect(reordered.message).toMatch(/its blocks are in a different order/);
    });

    it("a final text answer found by its text", () => {
      const final = response([thinkingBlock("Done thinking."), textBlock("All done.")]);
      const v = only([ask, a(txt("All done."))], "not-verbatim", [final]);
      expect(v.message).toMatch(/^messages\[1\] .*its thinking block was dropped/);
    });
  });

  it("reports several broken rules at once, each on its own line, and TranscriptError carries them", () => {
    const m = [ask, a(use("toolu_a"), use("toolu_b")), u(txt("first"), result("toolu_a"))];
    const vs = checkTranscript(m);
    expect(vs.map((x) => x.rule).sort()).toEqual(["results-first", "unanswered-tool-use"]);
    const e = (() => {
      try {
        assertTranscript(m);
      } catch (x) {
        return x;
      }
    })();
    expect(e).toBeInstanceOf(TranscriptError);
    expect((e as TranscriptError).violations).toEqual(vs);
    expect((e as TranscriptError).message).toBe(
      `2 broken rules in the transcript:\n${vs.map((x) => `  - [${x.rule}] ${x.message}`).join("\n")}`,
    );
  });
});

describe("transcript checker: the cause before its symptom", () => {
  it("results in an assistant message: wrong-role-block leads, not the two assistant messages in a row it makes", () => {
    const messages: Anthropic.MessageParam[] = [
      { role: "user", content: "list the files" },
      { role: "assistant", content: [{ type: "tool_use", id: "toolu_1", name: "bash", input: { command: "ls" } }] },
      { role: "assistant", content: [{ type: "tool_result", tool_use_id: "toolu_1", content: "a.txt" }] },
    ];
    const rules = checkTranscript(messages).map((v) => v.rule);
    expect(rules[0]).toBe("wrong-role-block");
    expect(rules).toContain("roles-alternate");
  });
});
