/**
 * s05_stop_reasons: every stop_reason ends in a typed Outcome, and every run leaves a transcript
 * that can be sent again. Grades lessons/ or solutions/ (COURSE_TREE). A recording registry
 * proves that a tool call cut off by max_tokens is never run; the scripted model cuts answers
 * off at max_tokens itself, so the cut is real.
 */
import type Anthropic from "@anthropic-ai/sdk";
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { call, say, steps, text } from "../runtime/scripted/scenarios/script.ts";
import { S05_NOTES, S05_SMALL_MAX_TOKENS, S05_TASK } from "../runtime/scripted/scenarios/s05_stop_reasons.ts";
import type { Reply, Scenario } from "../runtime/scripted/types.ts";
import { loadLesson, quietOutput, scripted , expectSendable , assertProperty } from "../runtime/testing.ts";
import type { ToolContext } from "../solutions/s02_tool_dispatch/registry.ts";
import { SafeToolRegistry, defineTool } from "../solutions/s04_tool_errors/define-tool.ts";

type Agent = typeof import("../solutions/s05_stop_reasons/agent.ts");
const lesson = await loadLesson<Agent>("s05_stop_reasons");

let restore: () => void;
beforeAll(() => {
  restore = quietOutput();
});
afterAll(() => restore());

/** A registry whose write_file keeps files in memory, and which records every call it is asked to run. */
class Recording extends SafeToolRegistry {
  readonly dispatched: Array<{ id: string; name: string; input: unknown }> = [];
  readonly files: Map<string, string>;
  constructor() {
    const files = new Map<string, string>();
    super([
      defineTool({
        name: "write_file",
        description: "Write a file.",
        input: z.object({ path: z.string(), content: z.string() }),
        run: ({ path, content }) => {
          files.set(path, content);
          return `wrote ${content.length} characters to ${path}`;
        },
      }),
    ]);
    this.files = files;
  }
  override dispatch(c: Anthropic.ToolUseBlock, ctx?: ToolContext) {
    this.dispatched.push({ id: c.id, name: c.name, input: c.input });
    return super.dispatch(c, ctx);
  }
}

async function run(scenario: Scenario | undefined, task: string, opts: { maxTokens?: number; stopSequences?: string[] } = {}) {
  const llm = scripted(scenario ? { scenario } : {});
  const registry = new Recording();
  const history: Anthropic.MessageParam[] = [{ role: "user", content: task }];
  const outcome = await lesson.runAgent(llm, history, { registry, ...opts });
  const requests = llm.scripted.exchanges.map((e) => e.request as Anthropic.MessageCreateParams);
  // (After a pause_turn the continued message is two responses end to end: the checker knows.)
  await expectSendable(llm, history);
  return { llm, history, outcome, registry, requests };
}

const oneTurn = (id: string, reply: Reply): Scenario => ({ id, title: id, reply: () => reply });
const BIG = "x".repeat(8_000);

describe("s05 max_tokens: a cut-off answer is never run", () => {
  it("asks again with a larger limit, and runs only the complete call", async () => {
    const { outcome, registry, requests } = await run(undefined, S05_TASK, { maxTokens: S05_SMALL_MAX_TOKENS });
    for (const d of registry.dispatched)
      expect(d.input, `a tool_use cut off by max_tokens was run with input ${JSON.stringify(d.input)}: never run a cut-off call`).toHaveProperty("content");
    expect(registry.dispatched).toHaveLength(1);
    expect(registry.files.get("NOTES.md")).toBe(S05_NOTES);
    expect(requests[0]!.max_tokens).toBe(S05_SMALL_MAX_TOKENS);
    expect(requests[1]!.max_tokens, "after max_tokens, ask again with a larger max_tokens").toBeGreaterThan(S05_SMALL_MAX_TOKENS);
    expect(outcome.status).toBe("done");
  });

  it("does not store the cut-off answer it asks again for", async () => {
    const { requests } = await run(undefined, S05_TASK, { maxTokens: S05_SMALL_MAX_TOKENS });
    expect(requests[1]!.messages, "the retry sends the same history as the cut-off request").toEqual(requests[0]!.messages);
  });

  it("reports max_tokens when the retry is cut off too, with the cut call answered, not run", async () => {
    const scenario = oneTurn("test-too-big", { content: [text("Writing."), call("write_file", { path: "big.txt", content: BIG })] });
    const { outcome, registry, history, requests } = await run(scenario, "write a big file", { maxTokens: 50 });
    expect(requests).toHaveLength(2);
    expect(registry.dispatched, "a tool_use cut off by max_tokens must never be run").toEqual([]);
    expect(outcome).toMatchObject({ status: "stopped", reason: "max_tokens" });
    expect(history.map((m) => m.role)).toEqual(["user", "assistant", "user"]);
    expect((history[2]!.content as Anthropic.ToolResultBlockParam[])[0]).toMatchObject({ is_error: true });
  });
});

describe("s05 pause_turn: the turn goes back and continues", () => {
  it("sends the paused turn back unchanged and joins the continuation to it", async () => {
    const scenario: Scenario = {
      id: "test-pause",
      title: "pauses, then finishes",
      reply: steps(
        () => ({ content: [text("Searching the docs…")], stop_reason: "pause_turn" }),
        () => say("Found it: use the flag."),
      ),
    };
    const { outcome, history, requests, llm } = await run(scenario, "find the flag");
    expect(outcome.status).toBe("done");
    expect(requests).toHaveLength(2);
    const [paused, finished] = llm.scripted.responses;
    expect(requests[1]!.messages.at(-1), "the next request ends with the paused turn, unchanged").toEqual({ role: "assistant", content: paused!.content });
    expect(history).toHaveLength(2);
    expect(history[1]).toEqual({ role: "assistant", content: [...paused!.content, ...finished!.content] });
  });
});

describe("s05 every other stop_reason is an Outcome, not a success", () => {
  it("end_turn is done, and an empty end_turn is not stored as an empty message", async () => {
    const empty = await run(oneTurn("test-empty", { content: [], stop_reason: "end_turn" }), "say nothing");
    expect(empty.outcome.status).toBe("done");
    expect(empty.history, "an empty response must not be stored").toHaveLength(1);

    const after: Scenario = {
      id: "test-empty-after-tools",
      title: "a call, then an empty end_turn",
      reply: steps(() => ({ content: [call("write_file", { path: "a.txt", content: "a" })] }), () => ({ content: [], stop_reason: "end_turn" })),
    };
    const r = await run(after, "write then stop");
    expect(r.outcome.status).toBe("done");
    expect(r.history.map((m) => m.role)).toEqual(["user", "assistant", "user"]);
  });

  it("stop_sequence stops and names the sequence", async () => {
    const scenario = oneTurn("test-stop-seq", { content: [text("<answer>42</answer> and more")] });
    const { outcome, requests } = await run(scenario, "answer in tags", { stopSequences: ["</answer>"] });
    expect(requests[0]!.stop_sequences).toEqual(["</answer>"]);
    expect(outcome).toMatchObject({ status: "stopped", reason: "stop_sequence" });
    if (outcome.status === "stopped") expect(outcome.detail).toContain("</answer>");
  });

  it("refusal stops and says why (stop_details)", async () => {
    const scenario = oneTurn("test-refusal", {
      content: [text("I can't help with that.")],
      stop_reason: "refusal",
      stop_details: { type: "refusal", category: "cyber", explanation: "Breaking into a system." },
    });
    const { outcome } = await run(scenario, "break in");
    expect(outcome).toMatchObject({ status: "stopped", reason: "refusal" });
    if (outcome.status === "stopped") expect(outcome.detail).toContain("Breaking into a system.");
  });

  it("model_context_window_exceeded stops", async () => {
    const { outcome } = await run(oneTurn("test-window", { content: [text("The first")], stop_reason: "model_context_window_exceeded" }), "read all");
    expect(outcome).toMatchObject({ status: "stopped", reason: "model_context_window_exceeded" });
  });

  it("an unknown stop_reason is reported, not taken for success", async () => {
    const { outcome } = await run(oneTurn("test-unknown", { content: [text("Hm.")], stop_reason: "thought_complete" }), "hi");
    expect(outcome).toMatchObject({ status: "stopped", reason: "unknown_stop_reason" });
    if (outcome.status === "stopped") expect(outcome.detail).toContain("thought_complete");
  });

  it("a call in a response that stops the run is answered, never run", async () => {
    const scenario = oneTurn("test-stop-with-call", {
      content: [text("Writing."), call("write_file", { path: "x.txt", content: "x" })],
      stop_reason: "thought_complete",
    });
    const { outcome, registry, history } = await run(scenario, "write x");
    expect(outcome.status).toBe("stopped");
    expect(registry.dispatched).toEqual([]);
    expect(history.at(-1)!.role).toBe("user");
  });
});

describe("s05 property: whatever the model answers, the run ends in an Outcome and a sendable transcript", () => {
  const kinds = ["end_turn", "tool_use", "pause_turn", "max_tokens_twice", "stop_sequence", "refusal", "model_context_window_exceeded", "mystery", "empty"] as const;
  type Kind = (typeof kinds)[number];
  const reply = (kind: Kind, n: number): Reply => {
    switch (kind) {
      case "tool_use":
        return { content: [text(`step ${n}`), call("write_file", { path: `f${n}.txt`, content: "ok" })] };
      case "max_tokens_twice":
        return { content: [text("big"), call("write_file", { path: "big.txt", content: BIG })] };
      case "empty":
        return { content: [], stop_reason: "end_turn" };
      case "mystery":
        return { content: [text("?")], stop_reason: "mystery" };
      case "stop_sequence":
        return { content: [text("done STOP and more")] };
      default:
        return { content: [text(`${kind} ${n}`)], stop_reason: kind };
    }
  };

  it("holds for random sequences of stop reasons", async () => {
    await assertProperty(
      fc.asyncProperty(fc.array(fc.constantFrom(...kinds), { minLength: 1, maxLength: 6 }), async (script) => {
        const scenario: Scenario = { id: "test-random", title: "random", reply: (ctx) => (ctx.requestIndex < script.length ? reply(script[ctx.requestIndex]!, ctx.requestIndex) : say("final")) };
        const llm = scripted({ scenario, maxRequests: 40 });
        const history: Anthropic.MessageParam[] = [{ role: "user", content: "go" }];
        const outcome = await lesson.runAgent(llm, history, { registry: new Recording(), maxTokens: 200, stopSequences: ["STOP"] });
        expect(["done", "stopped"]).toContain(outcome.status);
        const last = llm.scripted.responses.at(-1)!;
        expect(outcome.status === "done", `stop_reason ${last.stop_reason} gave ${outcome.status}`).toBe(last.stop_reason === "end_turn");
        await expectSendable(llm, history);
      }),
      { numRuns: 40 },
    );
  });
});
