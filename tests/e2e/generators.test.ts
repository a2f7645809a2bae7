/**
 * The docs' build-time generators and the viewer's file reading, without a browser (fast; part of
 * `npm test`): the lesson diff, the lesson-page rewriting, the missing-page check, and how the
 * transcript viewer reads a learner's JSONL or JSON.
 */
import { existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import type Anthropic from "@anthropic-ai/sdk";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Lesson } from "../../runtime/manifest.ts";
import { diffFile, diffMarkdown, lessonDiff } from "../../scripts/docs/diff.ts";
import { givenMarkProblems } from "./given.ts";
import { expandLessonPage, missingLessonPages, rewriteImports, wrappableLineNumbers } from "../../scripts/docs/pages.ts";
import { answerLines, isAnswer, parseImport, todoRegions } from "../../scripts/docs/regions.ts";
import { messageTableHtml, parseMessageTable, renderMessageBlocks } from "../../scripts/docs/message-table.ts";
import { benchBlock, benchFiguresOf, renderBench } from "../../scripts/bench/report.ts";
import {
  contextEditingBlock,
  contextEditingFiguresOf,
  contextEditingSummary,
  HOOK_SETS,
  hookCostBlock,
  hookCostFiguresOf,
  hookCostSummary,
  renderContextEditing,
  renderHookCost,
} from "../../scripts/bench/part3-report.ts";
import { attackWords, figuresOf, reliabilityBlock, renderReliability, replaceBlock } from "../../scripts/reliability/report.ts";
import { FAULT_CASES } from "../../scripts/reliability/faults.ts";
import { BAD_INPUTS } from "../../scripts/reliability/bad-inputs.ts";
import { diffLessons, splitRows, type Snapshot } from "../../docs/.vitepress/theme/diffmodel.ts";
import { DIAGRAMS, diagramFor } from "../../docs/.vitepress/theme/diagrams.ts";
import { registrationOf } from "../../runtime/registrations.ts";
import { playerSteps, rowsOf, short } from "../../docs/.vitepress/theme/player.ts";
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
  write("docs/ja/lessons/s01_first.md", "# s01\n");
  write("docs/ru/lessons/s01_first.md", "# s01\n");
  write("docs/lessons/s02_second.md", "# s02\n");
  write("docs/ja/lessons/s02_second.md", "# s02\n");
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

  it("places the diff view, says where the diff comes from, and keeps it out of the search index", () => {
    const md = diffMarkdown(lessonDiff(root, LESSONS, "s02_second"), "en");
    expect(md).toContain("`solutions/s01_first/` → `solutions/s02_second/`");
    expect(md).toContain('<LessonDiffView lesson="s02_second" />');
    expect(md.indexOf("<!-- search:skip -->")).toBeLessThan(md.indexOf("<LessonDiffView"));
    expect(md.indexOf("<!-- /search:skip -->")).toBeGreaterThan(md.indexOf("<LessonDiffView"));
    expect(md).not.toContain("no file changed");
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
    expect(out).toContain('<LessonDiffView lesson="s02_second" />');
    expect(out).toContain('<LessonPlayer lesson="s02_second" />');
    expect(out).toContain('<TranscriptViewer lesson="s02_second" />');
    const zh = expandLessonPage("# s02\n", "zh/lessons/s02_second.md", root, LESSONS);
    expect(zh).toContain("## 与 s01 相比的变化");
    // Every language of the site: its own headings and words, never the English ones.
    const ja = expandLessonPage("# s02\n", "ja/lessons/s02_second.md", root, LESSONS);
    expect(ja).toContain("## s01 からの変更 {#what-changed}");
    expect(ja).toContain("## 記録された実行 {#recorded-run}");
    expect(ja).toContain("から自動生成");
    const ru = expandLessonPage("# s02\n", "ru/lessons/s02_second.md", root, LESSONS);
    expect(ru).toContain("## Что изменилось после s01 {#what-changed}");
    expect(ru).toContain("## Записанный запуск {#recorded-run}");
    for (const [lang, text] of [["ja", ja], ["ru", ru]] as const) {
      expect(text, `${lang}: no English heading`).not.toMatch(/What changed|A recorded run/);
      expect(text, `${lang}: the player and the viewer are placed`).toContain('<LessonPlayer lesson="s02_second" />');
    }
    // A language folder that is not one of the site's is no lesson page.
    expect(expandLessonPage("# s02\n", "de/lessons/s02_second.md", root, LESSONS)).toBe("# s02\n");
  });

  it("replaces a <LessonDiff /> line in place, but not inside a code fence, and keeps a placed viewer", () => {
    const src = '# s02\n\n<LessonDiff id="s02" />\n\n```md\n<LessonDiff id="s02" />\n```\n\n<TranscriptViewer lesson="s02_second" />\n';
    const out = expandLessonPage(src, "lessons/s02_second.md", root, LESSONS);
    expect(out).not.toContain("{#what-changed}");
    expect(out.match(/<LessonDiffView /g)).toHaveLength(1);
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
      "docs/ru/lessons/s02_second.md",
      "docs/lessons/s03_third.md",
      "docs/zh/lessons/s03_third.md",
      "docs/ja/lessons/s03_third.md",
      "docs/ru/lessons/s03_third.md",
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

describe("answers folded until asked (regions.ts, the page rewriter)", () => {
  // Its own s02 files, put back after: the lesson diff's tests read the fixture's, in any order.
  let saved: (readonly [string, string | null])[] = [];
  afterAll(() => {
    for (const [f, text] of saved) if (text === null) rmSync(join(root, f), { force: true });
    else writeFileSync(join(root, f), text);
  });
  beforeAll(() => {
    saved = ["lessons/s02_second/agent.ts", "solutions/s02_second/agent.ts"].map((f) => [f, existsSync(join(root, f)) ? readFileSync(join(root, f), "utf8") : null] as const);
    write("lessons/s02_second/agent.ts", "// #region loop\nwhile (true) {\n  // TODO: call step() and guard()\n  todo(\"s02\");\n}\n// #endregion loop\n// #region given\nconst given = 1;\n// #endregion given\n");
    write("solutions/s02_second/agent.ts", "const a = 1;\n// #region loop\nwhile (true) {\n  step();\n  guardTheLoopCarefully();\n}\n// #endregion loop\n// #region given\nconst given = 1;\n// #endregion given\n");
  });

  it("knows a region with a TODO in the learner's copy is an answer, and which lines only the answer has", () => {
    const loop = parseImport("<<< @/../solutions/s02_second/agent.ts#loop")!;
    const given = parseImport("<<< @/../solutions/s02_second/agent.ts#given")!;
    expect(isAnswer(root, loop)).toBe(true);
    expect(isAnswer(root, given)).toBe(false);
    expect(todoRegions(root, "s02_second").map((r) => r.region)).toEqual(["loop"]);
    expect(answerLines(root, loop, 8)).toEqual(["guardTheLoopCarefully();"]);
  });

  it("shows the learner's copy in place and folds the answer, titled in the page's language, after Your turn", () => {
    const src = "# s02\n\nText.\n\n<<< @/../solutions/s02_second/agent.ts#loop\n\n<<< @/../solutions/s02_second/agent.ts#given\n\n## Your turn\n\nDo it.\n\n## Later\n";
    const out = rewriteImports(src, root, "en", true);
    const yourTurn = out.indexOf("## Your turn {#your-turn}");
    const folded = out.indexOf("::: details Show the reference solution");
    expect(yourTurn).toBeGreaterThan(0);
    expect(folded).toBeGreaterThan(yourTurn);
    expect(folded).toBeLessThan(out.indexOf("## Later"));
    expect(out.slice(0, yourTurn)).toContain("<<< @/../lessons/s02_second/agent.ts#loop{ts:line-numbers=2}");
    expect(out.slice(0, yourTurn)).not.toContain("solutions/s02_second/agent.ts#loop");
    expect(out.slice(folded)).toContain("<<< @/../solutions/s02_second/agent.ts#loop{ts:line-numbers=3}");
    expect(out).toContain("<<< @/../solutions/s02_second/agent.ts#given{ts:line-numbers=9}");
    const zh = rewriteImports(src.replace("## Your turn", "## 动手"), root, "zh", true);
    expect(zh).toContain("::: details 查看参考答案");
    expect(zh).toContain("## 动手 {#your-turn}");
    // Japanese and Russian: their own "Your turn" heading is found, the fold titled in the language.
    const ja = rewriteImports(src.replace("## Your turn", "## やってみよう"), root, "ja", true);
    expect(ja).toContain("::: details 参考解答を見る");
    expect(ja.indexOf("::: details")).toBeGreaterThan(ja.indexOf("## やってみよう {#your-turn}"));
    expect(ja.indexOf("::: details"), "ja: the answer is folded inside the page's own section, before the next one").toBeLessThan(ja.indexOf("## Later"));
    const ru = rewriteImports(src.replace("## Your turn", "## Ваша очередь"), root, "ru", true);
    expect(ru).toContain("::: details Показать эталонное решение");
    expect(ru.indexOf("::: details")).toBeGreaterThan(ru.indexOf("## Ваша очередь {#your-turn}"));
    expect(ru.indexOf("::: details"), "ru: the answer is folded inside the page's own section, before the next one").toBeLessThan(ru.indexOf("## Later"));
    // A page without the section gets one; a guide page folds the answer where it stands.
    expect(rewriteImports("# s02\n\n<<< @/../solutions/s02_second/agent.ts#loop\n", root, "en", true)).toMatch(/## Your turn \{#your-turn\}[\s\S]*Show the reference solution/);
    expect(rewriteImports("# Guide\n\n<<< @/../solutions/s02_second/agent.ts#loop\n", root, "en", false)).toMatch(/^# Guide\n\n[\s\S]*::: details Show the reference solution/);
  });
});

describe("the step-through player's steps", () => {
  const use = (id: string): Anthropic.ContentBlockParam => ({ type: "tool_use", id, name: "bash", input: {} });
  const result = (id: string): Anthropic.ContentBlockParam => ({ type: "tool_result", tool_use_id: id, content: "ok" });

  it("walks the loop request by request: task, call, append, check, tools, results … done", () => {
    const messages: Anthropic.MessageParam[] = [
      { role: "user", content: "go" },
      { role: "assistant", content: [use("a"), use("b")] },
      { role: "user", content: [result("a"), result("b")] },
      { role: "assistant", content: [{ type: "text", text: "done" }] },
    ];
    const steps = playerSteps(messages, [{ index: 1, stop_reason: "tool_use" }, { index: 3, stop_reason: "end_turn" }]);
    expect(steps.map((s) => s.stage)).toEqual(["task", "call", "append", "check", "tools", "results", "call", "append", "check", "done"]);
    expect(steps.map((s) => s.shown)).toEqual([1, 1, 2, 2, 2, 3, 3, 4, 4, 4]);
    expect(steps[4]!.tools).toEqual(["bash", "bash"]);
    expect(steps.at(-1)!.request).toBe(2);
    const rows = rowsOf(messages, []);
    expect(rows[1]!.blocks.map((b) => b.colour)).toEqual(rows[2]!.blocks.map((b) => b.colour));
  });

  it("ends a run the loop stopped itself (a guard after the results) on a done step, and reads stop_reason from the blocks when the file has none", () => {
    const messages: Anthropic.MessageParam[] = [
      { role: "user", content: "go" },
      { role: "assistant", content: [use("a")] },
      { role: "user", content: [result("a")] },
    ];
    const steps = playerSteps(messages, []);
    expect(steps[3]!.stop).toBe("tool_use");
    expect(steps.at(-1)).toMatchObject({ stage: "done", shown: 3, halted: true });
  });

  it("cuts a long text at a word, with one ellipsis", () => {
    expect(short("The directory has 14 entries: README.md, docs, package.json, more", 41)).toBe("The directory has 14 entries: README.md …");
  });
});

describe("a lesson's picture: one lookup (diagramFor) for the page generator, the translation sync and the site", () => {
  it("takes the picture drawn in diagrams.ts first, else the one the lesson's course.json registers, else none", () => {
    const registered = registrationOf("s22_background")?.diagram;
    expect(registered, "a check of this test itself: s22 registers its picture in solutions/s22_background/course.json").toBeDefined();
    expect(diagramFor("s01_agent_loop", registered), "diagramFor (docs/.vitepress/theme/diagrams.ts): a lesson drawn in diagrams.ts shows that picture, whatever a registration brings").toBe(DIAGRAMS.s01_agent_loop);
    expect(diagramFor("s22_background", registered), "diagramFor: a lesson with no picture in diagrams.ts shows the one its course.json registers").toBe(registered);
    expect(diagramFor("s02_second", undefined), "diagramFor: a lesson with neither has no picture").toBeUndefined();
  });

  it("places the picture on a lesson page only when the lesson has one", () => {
    const page = (dir: string) => expandLessonPage("# sNN\n\nThe idea.\n", `lessons/${dir}.md`, root, [...LESSONS, { ...L3, id: "s22", dir: "s22_background" }]);
    expect(page("s22_background"), "scripts/docs/pages.ts: a registered lesson's page (s22) gets its picture: ask diagramFor with the registration's diagram").toContain('<IdeaDiagram lesson="s22_background" />');
    expect(page("s02_second"), "scripts/docs/pages.ts: a lesson with no picture gets no <IdeaDiagram> (it would draw nothing): ask diagramFor").not.toContain("<IdeaDiagram");
  });
});

describe("the diff view's model", () => {
  const snap = (dir: string, files: Record<string, string>): Snapshot => ({ dir, id: dir.slice(0, 3), entry: "agent.ts", files });

  it("leads with the loop's change, then the new mechanism; folds comment, import and rename-only hunks", () => {
    const filler = Array.from({ length: 12 }, (_, i) => `const f${i} = ${i};`).join("\n");
    const before = `import { a } from "./a.ts";\n// old comment\n${filler}\nconst task = "s01 task";\n${filler}\n// #region loop\nwhile (true) {\n  step();\n}\n// #endregion loop\n`;
    const after = `import { a, b } from "./b.ts";\n// new comment\n${filler}\nconst task = "s02 task";\n${filler}\n// #region loop\nwhile (true) {\n  step();\n  guard();\n}\n// #endregion loop\n`;
    const m = diffLessons(snap("s01_x", { "agent.ts": before }), snap("s02_y", { "agent.ts": after, "guards.ts": "export function guard() {}\n" }));
    expect(m.files.map((f) => f.path)).toEqual(["agent.ts", "guards.ts"]);
    const kinds = m.files[0]!.hunks.map((h) => h.kind);
    expect(kinds[0]).toBe("loop");
    expect(kinds.slice(1).every((k) => k === "cosmetic")).toBe(true);
    expect(m.files[1]!.hunks[0]!.kind).toBe("new");
    expect(m.summary.exportsAdded).toEqual(["guard"]);
    expect(m.summary.filesAdded).toEqual(["guards.ts"]);
    const loop = m.files[0]!.hunks[0]!;
    const added = loop.lines.find((l) => l.type === "+")!;
    expect(added.text).toBe("  guard();");
    expect(after.split("\n")[added.new! - 1]).toBe("  guard();");
    const rows = splitRows(loop);
    expect(rows.some((r) => r.left === undefined && r.right?.type === "+")).toBe(true);
  });

  it("shows the exercise's files before the given ones (a program around the loop), each marked", () => {
    const files = { "agent.ts": "export function loop() {}\n", "program.ts": "export function run() {}\n", "team.ts": "export const team = 1;\n", "verdict.ts": "export function readVerdict() {}\n" };
    const m = diffLessons(snap("s22_x", {}), { ...snap("s27_y", files), given: ["program.ts", "team.ts"] });
    expect(m.files.map((f) => [f.path, f.given]), "the diff view's model (diffLessons, docs/.vitepress/theme/diffmodel.ts): the exercise's files (agent.ts, verdict.ts) come first, each unmarked, then the files the lesson gives (program.ts, team.ts), each marked given; sort by the snapshot's given list, then by the loop first").toEqual([["agent.ts", false], ["verdict.ts", false], ["program.ts", true], ["team.ts", true]]);
  });
});

describe("one glossary (docs/guide/glossary.md) on the Chinese pages", () => {
  it("uses the glossary's word for agent, guard and Your turn everywhere (the pages and the check's, hint's and command line's Chinese words)", () => {
    const repo = join(dirname(fileURLToPath(import.meta.url)), "../..");
    const pages: string[] = [];
    const walk = (d: string) => {
      for (const name of readdirSync(d)) {
        const p = join(d, name);
        if (statSync(p).isDirectory()) walk(p);
        else if (name.endsWith(".md")) pages.push(p);
      }
    };
    walk(join(repo, "docs/zh"));
    expect(pages.length).toBeGreaterThan(10);
    // What a learner reads in Chinese outside the site: the hints and the command line's words
    // (runtime/i18n/*.zh.json), the check's rules (their zh texts in runtime/rules.ts).
    const words = readdirSync(join(repo, "runtime/i18n")).filter((n) => n.endsWith(".zh.json"));
    expect(words.sort(), "runtime/i18n holds the Chinese words of the hints and the command line").toEqual(["cli.zh.json", "hints.zh.json"]);
    pages.push(...words.map((n) => join(repo, "runtime/i18n", n)), join(repo, "runtime/rules.ts"));
    const avoid: [RegExp, string][] = [
      [/智能体/, "agent"],
      [/护栏/, "防护"],
      [/^##\s+(动手|动手做|你来试)\s*$/m, "## 轮到你了"],
    ];
    const found = pages.flatMap((p) =>
      avoid.filter(([re]) => re.test(readFileSync(p, "utf8"))).map(([re, use]) => `${p.slice(repo.length + 1)}: ${re.source} (the glossary says ${use})`),
    );
    expect(found).toEqual([]);
  });
});

describe("line numbers that survive wrapping", () => {
  it("replaces VitePress's number column with a counter that starts at the block's first number", () => {
    const html =
      '<div class="language-ts vp-adaptive-theme line-numbers-mode"><pre><code><span class="line">a</span>\n<span class="line">b</span></code></pre>' +
      '<div class="line-numbers-wrapper" aria-hidden="true"><span class="line-number">27</span><br><span class="line-number">28</span><br></div></div>';
    const md = { renderer: { rules: { fence: (() => html) as (...args: unknown[]) => string } as Record<string, ((...args: unknown[]) => string) | undefined> } };
    wrappableLineNumbers(md);
    const out = md.renderer.rules.fence!();
    expect(out).not.toContain("line-numbers-wrapper");
    expect(out).toContain('class="language-ts vp-adaptive-theme numbered"');
    expect(out).toContain('<code style="counter-reset: code-line 26">');
    const plain = '<div class="language-sh"><pre><code>ls</code></pre></div>';
    const md2 = { renderer: { rules: { fence: (() => plain) as (...args: unknown[]) => string } as Record<string, ((...args: unknown[]) => string) | undefined> } };
    wrappableLineNumbers(md2);
    expect(md2.renderer.rules.fence!()).toBe(plain);
  });
});

describe("message tables (message-table.ts): hand-written and recorded, one table", () => {
  it("reads a hand-written messages block: rows, blocks, ids paired by colour, is_error, stop_reason, notes", () => {
    const rows = parseMessageTable(
      [
        '[0] user | "Fix the test."',
        "[1] assistant | text + tool_use#A read_file a.js + tool_use#B bash: run it | tool_use | two calls",
        '[2] user | tool_result#A + tool_result#B is_error: "exit 1" | | ONE message',
        "+ text a note after the results | and more",
        "[3] assistant | 'Done.' | end_turn",
      ].join("\n"),
    );
    expect(rows.map((r) => [r.index, r.role, r.stop])).toEqual([[0, "user", undefined], [1, "assistant", "tool_use"], [2, "user", undefined], [3, "assistant", "end_turn"]]);
    expect(rows[0]!.blocks).toEqual([{ kind: "text", label: "Fix the test." }]);
    const [text, a, b] = rows[1]!.blocks;
    expect(text).toEqual({ kind: "text", label: "" });
    expect(a).toMatchObject({ kind: "tool_use", id: "A", label: "read_file a.js" });
    expect(b).toMatchObject({ kind: "tool_use", id: "B", label: "bash: run it" });
    expect(a!.colour).not.toBe(b!.colour);
    expect(rows[2]!.blocks[0]!.colour).toBe(a!.colour);
    expect(rows[2]!.blocks[1]).toMatchObject({ kind: "tool_result", id: "B", isError: true, label: '"exit 1"', colour: b!.colour });
    expect(rows[2]!.blocks[2]).toMatchObject({ kind: "text", label: "a note after the results" });
    expect(rows[2]!.last).toBe("ONE message and more");
    expect(() => parseMessageTable("user: hello")).toThrow(/\[index\] user/);
  });

  it("draws the same HTML table as the recorded run, with the page's language in the heads", () => {
    const rows = parseMessageTable("[0] user | \"Hi <b>\"\n[1] assistant | \"Hello\" | end_turn | done");
    const en = messageTableHtml(rows, "en", { last: "note" });
    expect(en).toMatch(/^<table class="lp-table run-table msg-table" v-pre>/);
    expect(en).toContain("<th class=\"lp-c-role\">role</th>");
    expect(en).toContain("“Hi &lt;b&gt;”");
    expect(en).toContain("<code>end_turn</code>");
    expect(en).toContain('data-label="note">done</td>');
    const zh = messageTableHtml(rows, "zh", { last: "note" });
    expect(zh).toContain("<th class=\"lp-c-role\">角色</th>");
    expect(zh).toContain('data-label="说明"');
    expect(messageTableHtml(rows, "ja", { last: "note" })).toContain("<th class=\"lp-c-role\">ロール</th>");
    expect(messageTableHtml(rows, "ru", { last: "note" })).toContain('data-label="примечание"');
    // No note anywhere: no empty column.
    expect(messageTableHtml(parseMessageTable("[0] user | \"Hi\""), "en", { last: "note" })).not.toContain("lp-c-note");
  });

  it("replaces each ```messages block of a page, and only those", () => {
    const src = "Intro\n\n```messages\n[0] user | \"Hi\"\n```\n\n```text\n[0] user  hi\n```\n";
    const out = renderMessageBlocks(src, "zh");
    expect(out).toContain('<table class="lp-table run-table msg-table"');
    expect(out).not.toContain("```messages");
    expect(out).toContain("```text\n[0] user  hi\n```");
  });
});

describe("the generated report blocks (scripts/bench/report.ts, scripts/reliability/report.ts)", () => {
  const repo = join(dirname(fileURLToPath(import.meta.url)), "../..");
  const page = (p: string) => readFileSync(join(repo, p), "utf8");
  const body = (lines: string[]) => lines.join("\n");
  /** Lines of the block outside code (code spans and fences are what a tool printed, word for word). */
  const prose = (text: string) => text.replace(/```[\s\S]*?```/g, "").replace(/`[^`]*`/g, "");

  it("draws the reliability report from the figures its page keeps, in English and in Chinese", () => {
    const figures = figuresOf(page("docs/guide/reliability.md"));
    expect(figures, "docs/guide/reliability.md keeps its figures in the block").not.toBeNull();
    const en = body(renderReliability(figures!, "en"));
    const zh = body(renderReliability(figures!, "zh"));
    for (const c of FAULT_CASES) expect(en).toContain(c.what);
    expect(en).toMatch(/recovered \/ clear stop/);
    expect(en).toMatch(/^Summary: /m);
    // The Chinese block: no fault case, verdict, input or heading in English.
    const zhText = prose(zh);
    for (const c of FAULT_CASES) expect(zhText).not.toContain(c.what);
    // Each row of the bad-input and fault tables is described in Chinese.
    const firstCells = (heading: RegExp) => {
      const at = zh.split("\n").findIndex((l) => heading.test(l));
      return zh.split("\n").slice(at + 4).filter((l, i, all) => all.slice(0, i + 1).every((x) => x.startsWith("|"))).map((l) => l.split(" | ")[0]!.slice(2).trim());
    };
    const bad = firstCells(/^### 课程收到的错误输入/);
    expect(bad).toHaveLength(BAD_INPUTS.length);
    expect(bad.filter((c) => !/[\u4e00-\u9fff]/.test(c))).toEqual([]);
    const faults = firstCells(/^### 故障注入/);
    expect(faults).toHaveLength(FAULT_CASES.length);
    expect(faults.filter((c) => !/[\u4e00-\u9fff]/.test(c))).toEqual([]);
    expect(zhText).not.toMatch(/\b(recovered|clear stop|stopped|escapes|not claimed|Summary|Lessons tested|Fault injection|Attack corpus)\b/);
    expect(zh).toMatch(/^### 故障注入/m);
    expect(zh).toMatch(/^汇总：/m);
    // What the learner sees stays word for word, as code.
    expect(zh).toContain("`2: no lesson \"s99\"");
    // Every attack on the page has its words in Chinese.
    for (const lang of ["zh", "ja", "ru"] as const) {
      const untranslated = (figures!.attacks?.rows ?? []).filter((r) => !attackWords(r.what, lang).translated).map((r) => r.what);
      expect(untranslated, `${lang}: attacks on the page with no words (scripts/reliability/words-${lang}.ts, or report.ts for zh)`).toEqual([]);
    }
    // No table's column is named in English alone (the browser test's check, here without a browser):
    // a head row is the line above a |---| line.
    const lines = zh.split("\n");
    const heads = lines.flatMap((l, i) => (/^\|\s*-{3}/.test(lines[i + 1] ?? "") ? l.split("|").map((c) => c.trim()).filter(Boolean) : []));
    const english = heads.filter((t) => /^[a-z][a-z /,]+$/i.test(t) && !/^(s\d+|n\/a)$/.test(t));
    expect(english, `the zh report has columns named in English: ${[...new Set(english)].join(" | ")}`).toEqual([]);
    expect(heads.filter((t) => /\bprogram\b/.test(t)), "the zh report names every toolset in Chinese").toEqual([]);
    // A glob such as src/** outside a code span shows as raw asterisks on the page (the browser test's check).
    for (const text of [en, zh]) {
      const stars = text.split("\n").filter((l) => !l.startsWith("  ") && /\\?\*\\?\*/.test(l.replace(/`[^`]*`/g, "")));
      expect(stars.map((l) => l.slice(0, 80)), "no ** outside a code span in the report: put globs and rules in backticks").toEqual([]);
    }
  });

  it("has Chinese words for every attack, group and note of the current corpus (the next run's report)", async () => {
    const { ATTACKS, BOUNDARY_ATTACKS, s07Cases } = await import("../../scripts/reliability/attacks.ts");
    const all = [...ATTACKS, ...BOUNDARY_ATTACKS, ...(await s07Cases())];
    expect(all.length).toBeGreaterThan(50);
    for (const lang of ["zh", "ja", "ru"] as const) expect(all.filter((a) => !attackWords(a.what, lang).translated).map((a) => a.what), `${lang}: attacks of the corpus with no words`).toEqual([]);
    const figures = figuresOf(page("docs/guide/reliability.md"))!;
    const zh = body(
      renderReliability(
        {
          ...figures,
          attacks: {
            ...figures.attacks!,
            rows: all.map((a) => ({ what: a.what, group: a.group, cells: ["stopped"] })),
            notes: all.flatMap((a) => (a.note ? [{ what: a.what, note: a.note }] : [])),
          },
        },
        "zh",
      ),
    );
    const rows = zh.split("\n").filter((l) => l.startsWith("| ") && l.includes("| 已拦截"));
    const groups = rows.map((l) => l.split(" | ")[1]!.trim()).filter((g) => !/[\u4e00-\u9fff]/.test(g));
    expect([...new Set(groups)]).toEqual([]);
    const notes = zh.split("\n").filter((l) => l.startsWith("- ") && !l.includes("使用")).filter((l) => /[a-z]{3,} [a-z]{3,} [a-z]{3,}/i.test(l.split("：").slice(-1)[0]!));
    expect(notes).toEqual([]);
  });

  it("keeps the figures in the block it writes, so the page can be drawn again", () => {
    const figures = figuresOf(page("docs/guide/reliability.md"))!;
    const block = reliabilityBlock(figures, "zh");
    expect(block).toMatch(/^<!-- reliability:latest:start -->/);
    // An HTML comment must not hold "--": the figures' JSON escapes it.
    expect(/<!-- reliability:figures (.*) -->/.exec(block)![1]).not.toContain("--");
    expect(figuresOf(block)).toEqual(figures);
    expect(replaceBlock("a\n<!-- reliability:latest:start -->old<!-- reliability:latest:end -->\nb", block, "reliability")).toBe(`a\n${block}\nb`);
    expect(replaceBlock("no markers", block, "reliability")).toBe("no markers");
  });

  it("draws the benchmark report from the figures its page keeps, in English and in Chinese", () => {
    const figures = benchFiguresOf(page("docs/guide/benchmarks.md"));
    expect(figures, "docs/guide/benchmarks.md keeps its figures in the block").not.toBeNull();
    const en = body(renderBench(figures!, "en"));
    const zh = body(renderBench(figures!, "zh"));
    expect(en).toContain("### Parallel tools");
    expect(en).toMatch(/parallel_over_one_tool = [\d.]+ \(goal ≤ 1\.3\)/);
    expect(zh).toContain("### 并行工具");
    expect(zh).toMatch(/parallel_over_one_tool = [\d.]+（目标 ≤ 1\.3）/);
    expect(prose(zh)).not.toMatch(/\b(goal|calls? of|turns|wall time|no output cap|reported, not judged|Lessons present|Machine)\b/);
    expect(benchFiguresOf(benchBlock(figures!, "en"))).toEqual(figures);
  });

  it("draws the reports' headings and column names in Japanese and Russian, never in Chinese (rows: English until written)", () => {
    const bench = benchFiguresOf(page("docs/guide/benchmarks.md"))!;
    const rel = figuresOf(page("docs/guide/reliability.md"))!;
    for (const [lang, parallel, badHead, script] of [["ja", "### 並列ツール", "### コースへの不正な入力", /[\u3040-\u30ff]/], ["ru", "### Параллельные инструменты", "### Неверный ввод в курс", /[\u0400-\u04ff]/]] as const) {
      const b = body(renderBench(bench, lang));
      expect(b, lang).toContain(parallel);
      const r = body(renderReliability(rel, lang));
      if (rel.bad) expect(r, lang).toContain(badHead);
      const heads = [...b.split("\n"), ...r.split("\n")].filter((l) => /^#{3,4} /.test(l));
      expect(heads.filter((h) => !script.test(h)), `${lang}: headings not in the language`).toEqual([]);
      expect(`${b}\n${r}`, `${lang}: no Chinese words (the zh table is not a fallback)`).not.toMatch(/并行工具|故障注入|测试的课|汇总/);
    }
  });

  it("says n/a in the page's language when a lesson a figure needs is not there", () => {
    const figures = benchFiguresOf(page("docs/guide/benchmarks.md"))!;
    const none = { ...figures, parallel: null, streaming: null, summary: { ...figures.summary, parallel_tools: null, streaming: null, cost: null, skills: null } };
    expect(body(renderBench(none, "en"))).toContain("n/a (lesson not present) (s03)");
    const zh = body(renderBench(none, "zh"));
    expect(zh).toContain("不适用（这一课尚未加入）");
    expect(zh).not.toContain("n/a");
  });

  it("draws Part III's context editing block from the figures both pages keep: off, then one row per budget, with its ratios", () => {
    const figures = contextEditingFiguresOf(page("docs/guide/benchmarks.md"));
    expect(figures, "docs/guide/benchmarks.md keeps the context editing figures (npm run bench -- --only context_editing --update-docs)").not.toBeNull();
    expect(contextEditingFiguresOf(page("docs/zh/guide/benchmarks.md")), "the zh page keeps the same figures").toEqual(figures);
    const f = figures!;
    expect(f.agent).toMatch(/^s\d\d$/);
    expect(f.runs[0]?.policy, "the first run is with context editing off").toBeNull();
    expect(f.runs.slice(1).length).toBeGreaterThan(0);
    expect(f.runs.every((r) => r.requests === f.turns + 1), "every session made one request a turn and one for its answer").toBe(true);
    const summary = contextEditingSummary(f)!;
    expect(summary.budgets.map((b) => b.budget)).toEqual(f.runs.slice(1).map((r) => r.policy!.budget));
    for (const b of summary.budgets) for (const k of ["last_over_off", "total_over_off", "cache_write_over_off", "cost_over_off"] as const) expect(b[k], k).toBeGreaterThan(0);
    const en = body(renderContextEditing(f, "en"));
    const zh = body(renderContextEditing(f, "zh"));
    expect(en).toMatch(/^### Context editing \(s\d\d: \d+ turns/m);
    const rows = (text: string) => text.split("\n").filter((l) => l.startsWith("| ") && !l.startsWith("| -")).slice(1);
    expect(rows(en)).toHaveLength(f.runs.length);
    expect(en.match(/last_over_off = [\d.]+ · total_over_off = [\d.]+ · cost_over_off = [\d.]+/g)).toHaveLength(f.runs.length - 1);
    expect(zh).toMatch(/^### 上下文编辑（/m);
    expect(rows(zh)).toHaveLength(f.runs.length);
    expect(prose(zh)).not.toMatch(/\b(turns|budget|keep|requests|cache reads|cache writes|cost|cleared|context editing off|input price|list prices)\b/);
    const block = contextEditingBlock(f, "zh");
    expect(/<!-- context_editing:figures (.*) -->/.exec(block)![1]).not.toContain("--");
    expect(contextEditingFiguresOf(block)).toEqual(f);
    expect(replaceBlock("a\n<!-- context_editing:latest:start -->old<!-- context_editing:latest:end -->\nb", block, "context_editing")).toBe(`a\n${block}\nb`);
  });

  it("draws Part III's hook cost block from the figures both pages keep: each set of hooks with the sandbox and without", () => {
    const figures = hookCostFiguresOf(page("docs/guide/benchmarks.md"));
    expect(figures, "docs/guide/benchmarks.md keeps the hook cost figures (npm run bench -- --only hook_cost --update-docs)").not.toBeNull();
    expect(hookCostFiguresOf(page("docs/zh/guide/benchmarks.md")), "the zh page keeps the same figures").toEqual(figures);
    const f = figures!;
    const sandboxes = f.no_sandbox_why === null ? ["bubblewrap", "none"] : ["none"];
    expect(f.rows.map((r) => `${r.hooks}/${r.sandbox}`).sort()).toEqual(sandboxes.flatMap((s) => HOOK_SETS.map((h) => `${h}/${s}`)).sort());
    expect(f.rows.every((r) => r.samples === f.calls), "each row is the median over the same number of calls").toBe(true);
    expect(f.problems, "every hook ran once per call, and none failed").toEqual([]);
    const summary = hookCostSummary(f)!;
    expect(summary.calls).toBe(f.calls);
    expect(summary.added_ms_pre_no_sandbox).toEqual(expect.any(Number));
    if (f.no_sandbox_why === null) expect(summary.sandbox_over_no_sandbox).toEqual(expect.any(Number));
    const en = body(renderHookCost(f, "en"));
    const zh = body(renderHookCost(f, "zh"));
    expect(en).toMatch(new RegExp(`^### Hook cost \\(s\\d\\d: ${f.calls} tool calls per row`, "m"));
    expect(en.match(/[+-][\d.]+ ms +\|/g)).toHaveLength(f.rows.filter((r) => r.hooks !== "none").length);
    expect(zh).toMatch(/^### 钩子的开销（/m);
    expect(prose(zh)).not.toMatch(/\b(tool calls|per row|hooks|sandbox|none|median|added per call|reported, not judged)\b/);
    const block = hookCostBlock(f, "en");
    expect(hookCostFiguresOf(block)).toEqual(f);
    expect(replaceBlock("a\n<!-- hook_cost:latest:start -->old<!-- hook_cost:latest:end -->\nb", block, "hook_cost")).toBe(`a\n${block}\nb`);
  });

  it("says n/a for Part III's figures in the page's language when s19 or s20 is not there, and names a kept figure of the wrong shape", () => {
    const ce = contextEditingFiguresOf(page("docs/guide/benchmarks.md"))!;
    const hc = hookCostFiguresOf(page("docs/guide/benchmarks.md"))!;
    const noCe = { ...ce, agent: null, runs: [] };
    const noHc = { ...hc, agent: null, rows: [] };
    expect(contextEditingSummary(noCe)).toBeNull();
    expect(hookCostSummary(noHc)).toBeNull();
    expect(body(renderContextEditing(noCe, "en"))).toContain("n/a (lesson not present) (s20)");
    expect(body(renderHookCost(noHc, "en"))).toContain("n/a (lesson not present) (s19)");
    expect(body(renderContextEditing(noCe, "zh"))).toContain("不适用（这一课尚未加入）（s20）");
    expect(body(renderHookCost(noHc, "zh"))).not.toContain("n/a");
    const wrong = contextEditingBlock(ce, "en").replace(/"last":\d+/, '"last":"many"');
    expect(() => contextEditingFiguresOf(wrong)).toThrow(/last/);
  });
});

describe("the diff view's given files, judged from what the browser reads (tests/e2e/given.ts)", () => {
  const given = ["program.ts", "team.ts"];
  const right = {
    given,
    files: [
      { path: "agent.ts", marked: false },
      { path: "verdict.ts", marked: false },
      { path: "program.ts", marked: true },
      { path: "team.ts", marked: true },
    ],
    listed: ["team.ts", "program.ts"],
  };
  const mark = (path: string, marked: boolean) => right.files.map((f) => (f.path === path ? { ...f, marked } : f));

  it("a view that marks and lists exactly the given files, the exercise's first, passes", () => {
    expect(givenMarkProblems("s27", right)).toEqual([]);
  });

  it.each([
    ["a given file not marked", { ...right, files: mark("team.ts", false) }, /team\.ts not marked, but given whole/],
    ["an exercise file marked", { ...right, files: mark("agent.ts", true) }, /agent\.ts marked, but the exercise differs/],
    ["nothing marked", { ...right, files: right.files.map((f) => ({ ...f, marked: false })) }, /not marked, but given whole/],
    ["the card lists one given file too few", { ...right, listed: ["program.ts"] }, /the diff card lists as given \["program\.ts"\]/],
    ["the card lists an exercise file", { ...right, listed: ["program.ts", "team.ts", "agent.ts"] }, /the diff card lists as given/],
    ["an exercise file after a given one", { ...right, files: [right.files[0]!, right.files[2]!, right.files[1]!, right.files[3]!] }, /an exercise file comes after a given one/],
    ["no given file shown", { ...right, files: right.files.slice(0, 2), listed: [] }, /shows none of its given files/],
    ["only given files shown", { ...right, files: right.files.slice(2) }, /no exercise file of s27/],
  ])("%s: named", (_what, view, named) => {
    const problems = givenMarkProblems("s27", view);
    expect(problems.join("\n")).toMatch(named);
  });
});
