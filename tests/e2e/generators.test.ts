/**
 * The docs' build-time generators and the viewer's file reading, without a browser (fast; part of
 * `npm test`): the lesson diff, the lesson-page rewriting, the missing-page check, and how the
 * transcript viewer reads a learner's JSONL or JSON.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import type Anthropic from "@anthropic-ai/sdk";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Lesson } from "../../runtime/manifest.ts";
import { diffFile, diffMarkdown, lessonDiff } from "../../scripts/docs/diff.ts";
import { expandLessonPage, missingLessonPages } from "../../scripts/docs/pages.ts";
import { transcriptOf } from "../../scripts/docs/record-transcripts.ts";
import { linkTools, matchResponses, matchTurns, parseTranscriptText, TranscriptFileError } from "../../docs/.vitepress/theme/transcript.ts";

const lesson = (n: number, slug: string): Lesson => ({
  id: `s0${n}`,
  dir: `s0${n}_${slug}`,
  title: slug,
  idea: slug,
  entry: "agent.ts",
  hints: ["q?", "a."],
});
const L1 = lesson(1, "first");
const L2 = lesson(2, "second");
const L3 = lesson(3, "third");
const LESSONS = [L1, L2, L3];

let root: string;
function write(path: string, text: string) {
  mkdirSync(dirname(join(root, path)), { recursive: true });
  writeFileSync(join(root, path), text);
}

beforeAll(() => {
  root = mkdtempSync(join(tmpdir(), "docs-gen-"));
  write("solutions/s01_first/agent.ts", "const a = 1;\nwhile (true) {\n  step();\n}\n");
  write("solutions/s01_first/old.ts", "export const gone = true;\n");
  write("solutions/s01_first/same.ts", "export const same = 1;\n");
  write("solutions/s02_second/agent.ts", "const a = 1;\nwhile (true) {\n  step();\n  guard();\n}\n");
  write("solutions/s02_second/guards.ts", "export const limit = 3;\n");
  write("solutions/s02_second/same.ts", "export const same = 1;\n");
  write("docs/lessons/s01_first.md", "# s01\n");
  write("docs/zh/lessons/s01_first.md", "# s01\n");
  write("docs/lessons/s02_second.md", "# s02\n");
});
afterAll(() => rmSync(root, { recursive: true, force: true }));

describe("lesson diff", () => {
  it("diffs one file: status, counts, and a unified diff without the library's preamble", () => {
    const d = diffFile("a/x.ts", "b/x.ts", "one\ntwo\n", "one\nTWO\nthree\n", "x.ts");
    expect(d.status).toBe("changed");
    expect([d.added, d.removed]).toEqual([2, 1]);
    expect(d.patch.split("\n").slice(0, 2)).toEqual(["--- a/x.ts", "+++ b/x.ts"]);
    expect(d.patch).toContain("-two\n+TWO\n+three");
    expect(d.patch).not.toMatch(/^Index:|^====/m);
    expect(diffFile("a", "b", "same\n", "same\n", "x").status).toBe("unchanged");
  });

  it("compares a lesson's solution with the previous one: agent.ts first, new, removed and unchanged files", () => {
    const d = lessonDiff(root, LESSONS, "s02_second");
    expect(d.previous?.id).toBe("s01");
    expect(d.files.map((f) => [f.path, f.status])).toEqual([
      ["agent.ts", "changed"],
      ["guards.ts", "added"],
      ["old.ts", "removed"],
      ["same.ts", "unchanged"],
    ]);
    const agent = d.files[0]!;
    expect([agent.added, agent.removed]).toEqual([1, 0]);
    expect(agent.patch).toContain("+  guard();");
  });

  it("renders one ```diff tab per changed file, with stats, and names the unchanged ones", () => {
    const md = diffMarkdown(lessonDiff(root, LESSONS, "s02_second"), "en");
    expect(md).toContain("::: code-group");
    expect(md).toContain("```diff [agent.ts]");
    expect(md).toContain("```diff [guards.ts]");
    expect(md).not.toContain("```diff [same.ts]");
    expect(md).toMatch(/Unchanged: `same.ts`/);
    // old.ts stays in s01's folder (later lessons import from there): named, not shown as deleted.
    expect(md).not.toContain("```diff [old.ts]");
    expect(md).toMatch(/Only in `solutions\/s01_first\/`.*: `old.ts`/);
    expect(md).toContain('<span class="add">+1</span>');
  });

  it("says the first lesson has nothing to compare with, and names a missing solution folder", () => {
    expect(diffMarkdown(lessonDiff(root, LESSONS, "s01_first"), "en")).toMatch(/starts the course/);
    expect(() => lessonDiff(root, LESSONS, "s03_third")).toThrow(/solutions\/s03_third\/ is missing/);
  });
});

describe("lesson pages", () => {
  it("appends the generated diff and the recorded run to a lesson page that does not place them", () => {
    const out = expandLessonPage("# s02\n\nText.\n", "lessons/s02_second.md", root, LESSONS);
    expect(out).toContain("## What changed since s01 {#what-changed}");
    expect(out).toContain("```diff [agent.ts]");
    expect(out).toContain('<TranscriptViewer lesson="s02_second" />');
    const zh = expandLessonPage("# s02\n", "zh/lessons/s02_second.md", root, LESSONS);
    expect(zh).toContain("## 与 s01 相比的变化");
  });

  it("replaces a <LessonDiff /> line in place, but not inside a code fence, and keeps a placed viewer", () => {
    const src = '# s02\n\n<LessonDiff id="s02" />\n\n```md\n<LessonDiff id="s02" />\n```\n\n<TranscriptViewer lesson="s02_second" />\n';
    const out = expandLessonPage(src, "lessons/s02_second.md", root, LESSONS);
    expect(out).not.toContain("{#what-changed}");
    expect(out.match(/```diff \[agent.ts\]/g)).toHaveLength(1);
    expect(out).toContain('```md\n<LessonDiff id="s02" />\n```');
    expect(out.match(/<TranscriptViewer/g)).toHaveLength(1);
  });

  it("leaves other pages alone and turns a diff it cannot make yet into a visible note, not a broken build", () => {
    expect(expandLessonPage("# Guide\n", "guide/x.md", root, LESSONS)).toBe("# Guide\n");
    const out = expandLessonPage('<LessonDiff id="s09" />\n', "lessons/s09_later.md", root, LESSONS);
    expect(out).toContain("::: warning");
    expect(out).toContain("s09 is not in runtime/manifest.ts yet");
  });

  it("names every lesson page the manifest needs and the docs lack", () => {
    expect(missingLessonPages(root, LESSONS)).toEqual([
      "docs/zh/lessons/s02_second.md",
      "docs/lessons/s03_third.md",
      "docs/zh/lessons/s03_third.md",
    ]);
  });
});

const messages: Anthropic.MessageParam[] = [
  { role: "user", content: "task" },
  {
    role: "assistant",
    content: [
      { type: "tool_use", id: "toolu_a", name: "bash", input: { command: "ls" } },
      { type: "tool_use", id: "toolu_b", name: "bash", input: { command: "pwd" } },
    ],
  },
  {
    role: "user",
    content: [
      { type: "tool_result", tool_use_id: "toolu_b", content: "/x" },
      { type: "tool_result", tool_use_id: "toolu_a", content: "boom", is_error: true },
    ],
  },
  { role: "assistant", content: [{ type: "text", text: "done" }] },
];

describe("transcript viewer: reading files", () => {
  it("reads the JSONL of a lesson run: messages from the transcript line, stop_reason and usage from the responses", () => {
    const jsonl = [
      { type: "think", response: { stop_reason: "tool_use", usage: { input_tokens: 5, output_tokens: 2 }, content: messages[1]!.content } },
      { type: "observe", id: "toolu_a" },
      { type: "think", response: { stop_reason: "end_turn", usage: { input_tokens: 9, output_tokens: 1 }, content: messages[3]!.content } },
      { type: "transcript", messages },
    ].map((x) => JSON.stringify(x)).join("\n");
    const t = parseTranscriptText(jsonl);
    expect(t.format).toBe("jsonl");
    expect(t.messages).toEqual(messages);
    expect(t.turns.map((x) => [x.index, x.stop_reason, x.usage?.input_tokens])).toEqual([
      [1, "tool_use", 5],
      [3, "end_turn", 9],
    ]);
  });

  it("reads a plain JSON array of messages and a recorded file", () => {
    expect(parseTranscriptText(JSON.stringify(messages)).messages).toHaveLength(4);
    const rec = parseTranscriptText(JSON.stringify({ type: "recorded", messages, turns: [{ index: 3, stop_reason: "end_turn" }] }));
    expect(rec.format).toBe("recorded");
    expect(rec.turns).toEqual([{ index: 3, stop_reason: "end_turn" }]);
  });

  it("explains what is wrong with a file it cannot read", () => {
    const fails = (text: string) => {
      try {
        parseTranscriptText(text);
      } catch (e) {
        expect(e).toBeInstanceOf(TranscriptFileError);
        return (e as Error).message;
      }
      throw new Error("expected the file to be refused");
    };
    expect(fails("")).toMatch(/empty/);
    expect(fails('{"type":"think"}\nnot json')).toMatch(/line 2 is not JSON/);
    expect(fails('{"type":"think"}\n{"type":"observe"}')).toMatch(/no \{"type":"transcript"/);
    expect(fails('[{"role":"user","content":"x"},{"role":"robot"}]')).toMatch(/the file\[1\] is not a message/);
  });

  it("links each tool_use to its result, one colour per pair, results in any order", () => {
    const l = linkTools(messages);
    expect(l.useAt.get("toolu_a")).toBe(1);
    expect(l.resultAt.get("toolu_a")).toBe(2);
    expect(l.colour.get("toolu_a")).not.toBe(l.colour.get("toolu_b"));
    expect(linkTools([messages[0]!, messages[1]!]).resultAt.size).toBe(0);
  });

  it("matches responses to assistant turns by content, skipping a response the loop did not keep", () => {
    const dropped = { stop_reason: "max_tokens", content: [{ type: "text", text: "cut" }] };
    const turns = matchTurns(messages, [
      dropped,
      { stop_reason: "tool_use", content: messages[1]!.content },
      { stop_reason: "end_turn", content: messages[3]!.content },
    ]);
    expect(turns.map((x) => [x.index, x.stop_reason])).toEqual([
      [1, "tool_use"],
      [3, "end_turn"],
    ]);
  });

  it("matches a streamed message to its response whatever the order of the keys", () => {
    const streamed: Anthropic.MessageParam[] = [
      { role: "user", content: "task" },
      { role: "assistant", content: [{ type: "tool_use", name: "bash", input: { command: "ls" }, id: "toolu_s" }] },
    ];
    const turns = matchTurns(streamed, [{ stop_reason: "tool_use", content: [{ type: "tool_use", id: "toolu_s", input: { command: "ls" }, name: "bash" }] }]);
    expect(turns.map((x) => x.index)).toEqual([1]);
  });

  it("matches a message the loop joined from consecutive responses (pause_turn) to all of them", () => {
    const joined: Anthropic.MessageParam[] = [
      { role: "user", content: "task" },
      { role: "assistant", content: [{ type: "text", text: "part one" }, { type: "text", text: "part two" }] },
    ];
    const { turns, unmatched } = matchResponses(joined, [
      { stop_reason: "max_tokens", content: [{ type: "text", text: "cut" }] },
      { stop_reason: "pause_turn", content: [{ type: "text", text: "part one" }], usage: { input_tokens: 3, output_tokens: 1 } },
      { stop_reason: "end_turn", content: [{ type: "text", text: "part two" }], usage: { input_tokens: 5, output_tokens: 2 } },
    ]);
    expect(turns).toEqual([
      { index: 1, stop_reason: "end_turn", merged: ["pause_turn", "end_turn"], usage: expect.objectContaining({ input_tokens: 8, output_tokens: 3 }) },
    ]);
    expect(unmatched).toEqual([0]);
  });

  it("takes a demo's transcript as an array or inside an object", () => {
    expect(transcriptOf(messages)).toBe(messages);
    expect(transcriptOf({ history: messages })).toBe(messages);
    expect(transcriptOf({ outcome: "done" })).toBeNull();
  });
});
