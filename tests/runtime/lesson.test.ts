/**
 * explainError: every error a learner can cause or meet gets a short explanation (runMain prints
 * it instead of a stack trace). The errors are the real ones, produced by the SDK against the
 * scripted model with its faults; what no one can explain stays null (runMain then says so).
 */
import Anthropic from "@anthropic-ai/sdk";
import { describe, expect, it } from "vitest";
import { scriptedLlm } from "../../runtime/client.ts";
import { CourseError } from "../../runtime/env.ts";
import { explainError, taskFromArgs, todo, TodoError } from "../../runtime/lesson.ts";
import type { Fault } from "../../runtime/scripted/types.ts";
import { checkTranscript, TranscriptError } from "../../runtime/transcript.ts";

async function errorFrom(fault: Fault | null, opts: { stream?: boolean; messages?: Anthropic.MessageParam[] } = {}): Promise<unknown> {
  const { client } = scriptedLlm({ faults: [fault] }, { maxRetries: 0 });
  const params = { model: "scripted-model", max_tokens: 100, messages: opts.messages ?? [{ role: "user" as const, content: "hello there" }] };
  return (opts.stream ? client.messages.stream(params).finalMessage() : client.messages.create(params)).then(
    () => {
      throw new Error("expected the request to fail");
    },
    (e: unknown) => e,
  );
}

describe("explainError", () => {
  it("a TODO left names the task and the way on", () => {
    const e = (() => {
      try {
        todo("answer every tool_use");
      } catch (x) {
        return x;
      }
    })();
    expect(e).toBeInstanceOf(TodoError);
    expect(explainError(e)).toBe('TODO left: answer every tool_use\n  Fill it in (look for "// TODO:" in the file), then check it with `npm run check`.');
  });

  it("a CourseError and a TranscriptError speak for themselves", () => {
    expect(explainError(new CourseError(".env line 3 is not a KEY=value line"))).toBe(".env line 3 is not a KEY=value line");
    const t = new TranscriptError(checkTranscript([{ role: "assistant", content: "hi" }]));
    expect(explainError(t)).toMatch(/^1 broken rule in the transcript:\n {2}- \[first-message-user\]/);
  });

  it("a 400 quotes the API and points at the message rules", async () => {
    const e = await errorFrom(null, { messages: [{ role: "user", content: [{ type: "text", text: "" }] }] });
    expect(e).toBeInstanceOf(Anthropic.BadRequestError);
    expect(explainError(e)).toBe(
      "The API rejected the request (400): messages: text content blocks must be non-empty\n  If it names messages.N, your loop broke a message rule; `npm run check` shows which.",
    );
  });

  it("429, 500 and 529 after the SDK's retries", async () => {
    expect(explainError(await errorFrom({ kind: "rate_limit", retryAfterSeconds: 1 }))).toMatch(/^Rate limited \(429\) even after the SDK's retries/);
    expect(explainError(await errorFrom({ kind: "server_error" }))).toMatch(/^The model's server failed \(500\) even after retries: Internal server error/);
    expect(explainError(await errorFrom({ kind: "overloaded" }))).toMatch(/^The model's server failed \(529\) even after retries: Overloaded/);
  });

  it("an error event mid-stream and a cut stream", async () => {
    const event = await errorFrom({ kind: "stream_error", afterEvents: 3 }, { stream: true });
    expect(explainError(event)).toBe(
      "The model's server broke off its answer mid-stream (overloaded_error): Overloaded. Run again; lesson s11 shows how a loop recovers.",
    );
    const cut = await errorFrom({ kind: "stream_cut", afterEvents: 3 }, { stream: true });
    expect(explainError(cut)).toMatch(/^The connection to the model's server broke mid-answer \(.*terminated.*\)\./);
  });

  it("an abort and a timeout", async () => {
    const { client } = scriptedLlm({ latencyMs: 2000 }, { maxRetries: 0, timeout: 50 });
    const timeout = await client.messages.create({ model: "scripted-model", max_tokens: 10, messages: [{ role: "user", content: "x" }] }).catch((e: unknown) => e);
    expect(explainError(timeout)).toMatch(/^The request timed out/);
    const ac = new AbortController();
    ac.abort();
    const aborted = await client.messages
      .create({ model: "scripted-model", max_tokens: 10, messages: [{ role: "user", content: "x" }] }, { signal: ac.signal })
      .catch((e: unknown) => e);
    expect(explainError(aborted)).toBe("Stopped: the request was aborted.");
  });

  it("an error nobody can explain is left to runMain (null)", () => {
    expect(explainError(new Error("boom"))).toBeNull();
    expect(explainError("a string")).toBeNull();
  });
});

describe("taskFromArgs", () => {
  it("joins the words of the command line, skips flags, else the default task", () => {
    expect(taskFromArgs("default", ["list", "the", "files", "--solution"])).toBe("list the files");
    expect(taskFromArgs("default", ["--verbose"])).toBe("default");
    expect(taskFromArgs("default", [])).toBe("default");
  });
});
