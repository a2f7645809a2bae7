/**
 * s21_checkpoints: every user turn a checkpoint, a rewind of the code, the conversation or both.
 * Grades lessons/ or solutions/ (COURSE_TREE). The runs are real (scripted model, the file tools of
 * the earlier lessons on a scratch workspace); each test then rewinds and reads the workspace and
 * the history: the files as they were at the checkpoint, the history cut just before its prompt and
 * still sendable, what bash did named and never claimed restored.
 */
import { existsSync, lstatSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type Anthropic from "@anthropic-ai/sdk";
import { describe, expect, it } from "vitest";
import { call, text, thinking } from "../runtime/scripted/scenarios/script.ts";
import type { Reply, Scenario, TurnContext } from "../runtime/scripted/types.ts";
import { SAMPLE_REPOSITORY, lessonTask } from "../runtime/tasks.ts";
import { driveLoop, loadLesson, rule, scripted, textIn, transcriptProblems } from "../runtime/testing.ts";
import { scratchCopy, scratchWorkspace } from "../runtime/tools/files.ts";
import { expectExit, quietLessonFile, show } from "./support.ts";

type Agent = typeof import("../solutions/s21_checkpoints/agent.ts");
type Program = typeof import("../solutions/s21_checkpoints/program.ts");
type Options = NonNullable<Parameters<Agent["runAgent"]>[2]>;
const lesson = await loadLesson<Agent>("s21_checkpoints");
const program = await loadLesson<Program>("s21_checkpoints", "program.ts");
const keep = quietLessonFile();
const [TASK, SECOND, THIRD] = ["task", "second", "third"].map((n) => lessonTask("s21_checkpoints", n)) as [string, string, string];

type Block = ReturnType<typeof call>;
/** A scenario that answers each prompt with its turns (one assistant message each), then "done". */
function script(turns: Record<string, Block[][]>): Scenario {
  return {
    id: "s21_test",
    title: "per-prompt turns",
    reply: (ctx: TurnContext): Reply => {
      const mine = turns[ctx.prompt.trim()] ?? [];
      const thought = thinking(`step ${ctx.step} of "${ctx.prompt}"`);
      return ctx.step < mine.length ? { content: [thought, text("Next."), ...mine[ctx.step]!] } : { content: [thought, text(`done: ${ctx.prompt}`)] };
    },
  };
}

/** One conversation on a scratch workspace: ask(prompt) runs one user turn through the learner's loop. */
async function conversation(scenario: Scenario, files: Record<string, string> = { "a.txt": "A0\n", "b.txt": "B0\n" }, opts: Partial<Options> = {}) {
  const root = keep(await scratchWorkspace(files));
  const userDir = keep(mkdtempSync(join(tmpdir(), "s21-user-")));
  const llm = scripted({ scenario });
  const history: Anthropic.MessageParam[] = [];
  const notes: string[] = [];
  const ask = async (prompt: string) => {
    history.push({ role: "user", content: prompt });
    await driveLoop(llm, history, () => lesson.runAgent(llm, history, { root, userConfigDir: userDir, approve: async () => ({ approved: true }), onHookProblem: () => {}, onUntracked: (n) => notes.push(n), ...opts }), { timeoutMs: 60_000 });
  };
  const read = (p: string) => (existsSync(join(root, p)) ? readFileSync(join(root, p), "utf8") : "(no file)");
  return { root, llm, history, ask, notes, read, id: () => lesson.runIdOf(history) };
}

const write = (path: string, content: string) => call("write_file", { path, content });
const edit = (path: string, old_text: string, new_text: string) => call("edit_file", { path, old_text, new_text });

describe("s21 the default task: a fix, a second change, a rewind of both, a third question", () => {
  it("after rewind(runId, 2) the second change is gone from the files and from the conversation, and the history is sendable", async () => {
    const root = keep(await scratchCopy(SAMPLE_REPOSITORY));
    const llm = scripted();
    const history: Anthropic.MessageParam[] = [];
    const opts: Options = { root, approve: async () => ({ approved: false, why: "the test said no" }), userConfigDir: root, permissionMode: "acceptEdits", onHookProblem: () => {}, onUntracked: () => {} };
    for (const prompt of [TASK, SECOND, THIRD]) {
      if (prompt === THIRD) {
        lesson.rewind(lesson.runIdOf(history), 2, "both");
        rule(history.length === 4 && history.at(-1)?.role === "assistant", "checkpoint-conversation", () => `rewound to checkpoint 2, the history should be turn 1's 4 messages, ending with its answer; it has ${history.length}, the last ${JSON.stringify(history.at(-1)).slice(0, 160)}: cut it at the prompt's message (checkpoint.at), not after it.`);
      }
      history.push({ role: "user", content: prompt });
      await driveLoop(llm, history, () => lesson.runAgent(llm, history, opts), { timeoutMs: 120_000 });
    }
    const login = readFileSync(join(root, "src", "login.js"), "utf8");
    rule(!existsSync(join(root, "CHANGELOG.md")), "checkpoint-record", "turn 2 created CHANGELOG.md; rewound to checkpoint 2, it must be gone: a file that did not exist at the checkpoint is kept as null, and a rewind removes it.");
    rule(/attempts >= MAX_FAILED_ATTEMPTS\) locked\.add/.test(login) && !/login locked/.test(login), "checkpoint-record", () => `src/login.js should be as turn 1 left it (the fix, without turn 2's log line); it reads:\n${login.slice(0, 900)}`);
    const asked = history.filter((m) => m.role === "user" && typeof m.content === "string").map((m) => m.content);
    rule(JSON.stringify(asked) === JSON.stringify([TASK, THIRD]), "checkpoint-conversation", () => `rewound to checkpoint 2, the conversation holds the prompts ${JSON.stringify(asked)}: it should hold the first and the third only (cut just before the second's prompt).`);
    rule(/changed src\/login\.js\. The workspace holds no CHANGELOG/.test(textIn(history.at(-1)?.content)), "checkpoint-conversation", () => `the third answer reads the conversation and the workspace: ${JSON.stringify(textIn(history.at(-1)?.content).slice(0, 200))}`);
  });
});

describe("s21 recording: the state before the turn's first change", () => {
  it("write_file twice, edit_file, a new file: a rewind of the code puts back each file as it was at the checkpoint", async () => {
    const c = await conversation(script({ change: [[write("a.txt", "A1\n")], [write("a.txt", "A2\n"), edit("b.txt", "B0", "B1")], [write("new/c.txt", "C1\n")]] }));
    await c.ask("change");
    rule(c.read("a.txt") === "A2\n" && c.read("b.txt") === "B1\n", "checkpoint-record", () => `the turn should have run its calls (a.txt "A2", b.txt "B1"); the files read ${JSON.stringify([c.read("a.txt"), c.read("b.txt")])}: pass every call on to this.inner.dispatch.`);
    const r = lesson.rewind(c.id(), 1, "code");
    rule(c.read("a.txt") === "A0\n", "checkpoint-record", () => `a.txt was "A0" at the checkpoint, written "A1" then "A2" in the turn; after the rewind it reads ${JSON.stringify(c.read("a.txt"))}: keep the state before the turn's FIRST change to a path (a later write must not replace it), taken before the call runs.`);
    rule(c.read("b.txt") === "B0\n", "checkpoint-record", () => `b.txt, changed by edit_file, reads ${JSON.stringify(c.read("b.txt"))} after the rewind: edit_file changes a file too; keep its state before it runs.`);
    rule(!existsSync(join(c.root, "new", "c.txt")), "checkpoint-record", "new/c.txt did not exist at the checkpoint and is still there after the rewind: keep a missing file's state as null (stateOf), so the rewind removes it.");
    expect(r.restored, "[checkpoint-restore] the rewind names the files it put back").toEqual(["a.txt", "b.txt", "new/c.txt"]);
    rule(c.notes.length === 0 && r.commands.length === 0, "checkpoint-untracked", () => `the turn ran only write_file and edit_file, no bash; yet the user was told ${JSON.stringify(c.notes)} and the rewind names the commands ${JSON.stringify(r.commands)}: note a call in checkpoint.commands only when it is bash.`);
    rule(textIn(c.history.at(-1)?.content).startsWith("done"), "checkpoint-conversation", "a rewind of the code alone leaves the conversation as it was.");
  });

  it("a path outside the workspace is not kept (the tool refuses it) and the run goes on", async () => {
    const c = await conversation(script({ out: [[write("../escape.txt", "x")], [write("a.txt", "A1\n")]] }));
    await c.ask("out");
    rule(c.read("a.txt") === "A1\n", "checkpoint-record", "a call to a path outside the workspace is refused by the tool; the next call must still run.");
    lesson.rewind(c.id(), 1);
    rule(c.read("a.txt") === "A0\n", "checkpoint-record", () => `after the rewind a.txt reads ${JSON.stringify(c.read("a.txt"))}, not "A0".`);
  });
});

describe("s21 restoring the code: every change since the checkpoint, in any later turn", () => {
  it("two turns change a.txt; rewind to 1 gives the first state, rewind to 2 the state between", async () => {
    const scenario = script({ one: [[write("a.txt", "A1\n")]], two: [[write("a.txt", "A2\n"), write("b.txt", "B2\n")]], three: [[write("a.txt", "A3\n"), write("c.txt", "C3\n")]] });
    const c = await conversation(scenario);
    for (const p of ["one", "two", "three"]) await c.ask(p);
    lesson.rewind(c.id(), 2, "code");
    rule(c.read("a.txt") === "A1\n" && c.read("b.txt") === "B0\n" && c.read("c.txt") === "(no file)", "checkpoint-restore", () => `rewound to checkpoint 2 (after turn 1), a.txt, b.txt and c.txt read ${JSON.stringify([c.read("a.txt"), c.read("b.txt"), c.read("c.txt")])}, not ["A1", "B0", "(no file)"]: restore what turns 2 AND 3 changed (turn 3 created c.txt), each file's earliest kept state.`);
    lesson.rewind(c.id(), 1, "code");
    rule(c.read("a.txt") === "A0\n", "checkpoint-restore", () => `rewound to checkpoint 1, a.txt reads ${JSON.stringify(c.read("a.txt"))}, not "A0".`);
  });
});

describe("s21 restoring the conversation: cut just before the prompt, every pair kept", () => {
  it("rewind(…, 2, \"conversation\") leaves turn 1 exactly as it was (thinking blocks too), the files as they are, and the next question works", async () => {
    const c = await conversation(script({ one: [[write("a.txt", "A1\n")]], two: [[write("a.txt", "A2\n")]] }));
    await c.ask("one");
    const turnOne = JSON.stringify(c.history);
    await c.ask("two");
    lesson.rewind(c.id(), 2, "conversation");
    rule(JSON.stringify(c.history) === turnOne, "checkpoint-conversation", () => `rewound to checkpoint 2, the history should be exactly turn 1's ${JSON.parse(turnOne).length} messages, unchanged; it has ${c.history.length} (last: ${JSON.stringify(c.history.at(-1)).slice(0, 200)}).`);
    rule(c.read("a.txt") === "A2\n", "checkpoint-conversation", "a rewind of the conversation alone leaves the files as they are.");
    const problems = await transcriptProblems(c.llm, c.history);
    rule(problems === null, "checkpoint-conversation", () => `after the rewind the history cannot be sent: ${problems}`);
    // The same rewind again (a second /rewind 2): the prompt is gone already, so nothing more is cut.
    let again: unknown;
    try {
      lesson.rewind(c.id(), 2, "conversation");
    } catch (e) {
      again = e;
    }
    rule(again === undefined && JSON.stringify(c.history) === turnOne, "checkpoint-conversation", () => `rewinding the conversation to checkpoint 2 a second time should change nothing (its prompt is already gone); it ${again === undefined ? `left ${c.history.length} messages, not ${JSON.parse(turnOne).length}` : `threw ${String(again)}`}: the history has no message at checkpoint.at any more, so there is nothing to keep from it.`);
    await c.ask("three");
    lesson.rewind(c.id(), 2, "code");
    rule(c.read("a.txt") === "A1\n", "checkpoint-restore", () => `the conversation was rewound to 2 and asked again; a rewind of the code to 2 must still restore what the taken-back turn changed: a.txt reads ${JSON.stringify(c.read("a.txt"))}, not "A1".`);
  });

  it("a prompt that shares its message with a cancelled turn's results: the results stay, every tool_use answered", async () => {
    const c = await conversation(script({ one: [[call("read_file", { path: "a.txt" })]] }));
    await c.ask("one");
    // A cancelled turn (s10's REPL): the tool_use answered by a "cancelled" result, the next question in the same message.
    c.history.push({ role: "user", content: "two" });
    c.history.push({ role: "assistant", content: [{ type: "tool_use", id: "toolu_cancelled01", name: "read_file", input: { path: "b.txt" } }] });
    c.history.push({ role: "user", content: [{ type: "tool_result", tool_use_id: "toolu_cancelled01", content: "Not run: the user cancelled this turn (Ctrl-C).", is_error: true }, { type: "text", text: "three" }] });
    const before = c.history.length;
    await driveLoop(c.llm, c.history, () => lesson.runAgent(c.llm, c.history, { root: c.root, userConfigDir: c.root, approve: async () => ({ approved: true }) }), { timeoutMs: 60_000 });
    lesson.rewind(c.id(), 2, "conversation");
    const last = c.history.at(-1);
    const kept = JSON.stringify(last?.content);
    rule(c.history.length === before && Array.isArray(last?.content) && last.content.length === 1 && last.content[0]!.type === "tool_result", "checkpoint-conversation", () => `rewound to the prompt "three", the history should end with the cancelled turn's tool_result alone (${before} messages); it has ${c.history.length}, the last ${kept?.slice(0, 200)}: keep the blocks before the prompt, drop the prompt and what follows.`);
    const problems = await transcriptProblems(c.llm, c.history);
    rule(problems === null, "checkpoint-conversation", () => `after the rewind the history cannot be sent: ${problems}`);
  });
});

describe("s21 checkpoints are user turns", () => {
  it("one checkpoint per prompt; a Stop hook's note and the loop's own results are not turns", async () => {
    const c = await conversation(script({ one: [[write("a.txt", "A1\n")]], two: [] }));
    mkdirSync(join(c.root, ".agent"));
    writeFileSync(join(c.root, ".agent", "settings.json"), JSON.stringify({ hooks: { Stop: [{ command: `grep -q '"stop_hook_active":true' || { echo 'once more' >&2; exit 2; }` }] } }));
    await c.ask("one");
    await c.ask("two");
    const prompts = lesson.timelineOf(c.id())?.checkpoints.map((k) => k.prompt);
    rule(JSON.stringify(prompts) === JSON.stringify(["one", "two"]), "checkpoint-turns", () => `two prompts should make two checkpoints; the timeline holds ${JSON.stringify(prompts)}.`);
    expect(() => lesson.rewind(c.id(), 3), "[checkpoint-turns] a checkpoint that does not exist is a clear error").toThrow(/no checkpoint 3: this conversation has 2/);
    expect(() => lesson.rewind("no-such-run", 1), "[checkpoint-turns] a run that does not exist is a clear error").toThrow(/no run "no-such-run"/);
  });
});

describe("s21 what bash changed is not recorded, and the user is told", () => {
  it("a turn that ran bash says so; the rewind names the command and lists the files that still differ", async () => {
    const c = await conversation(script({ build: [[write("a.txt", "A1\n"), call("bash", { command: "echo made > made.txt" })]] }));
    await c.ask("build");
    rule(c.notes.length === 1 && /echo made/.test(c.notes[0]!), "checkpoint-untracked", () => `the turn ran bash; the user should be told once that its changes are not recorded (onUntracked), naming the command; told: ${JSON.stringify(c.notes)}. Push each bash command to checkpoint.commands.`);
    const r = lesson.rewind(c.id(), 1);
    rule(r.commands.some((x) => /echo made/.test(x)) && r.differ.includes("made.txt") && !r.differ.includes("a.txt"), "checkpoint-untracked", () => `the rewind should name the bash command and list made.txt (made by bash, still there) as differing, a.txt (put back) not: ${JSON.stringify(r)}.`);
    expect(lesson.describeRewind(r), "[checkpoint-untracked] the rewind's words say what was not restored").toMatch(/not restored[\s\S]*made\.txt/);
  });

  it("a command or a write the gate refused is never listed as run: checkpoints record what passed s18's gate and s19's hooks", async () => {
    const denied = { permissions: { deny: ["bash(rm *)", "write_file(b.txt)"] } };
    const c = await conversation(script({ tidy: [[call("bash", { command: "rm a.txt" }), write("b.txt", "B1\n")]] }), { "a.txt": "A0\n", "b.txt": "B0\n", ".agent/settings.json": JSON.stringify(denied) });
    await c.ask("tidy");
    const checkpoint = lesson.timelineOf(c.id())?.checkpoints[0];
    rule(c.notes.length === 0 && checkpoint?.commands.length === 0, "checkpoint-untracked", () => `"rm a.txt" was denied by the rule bash(rm *) and never ran, yet the user was told ${JSON.stringify(c.notes)} (commands ${JSON.stringify(checkpoint?.commands)}): record a call where it runs, inside the gate (s21's recorder is a tools hook; the gate sits at dispatch, outside it).`);
    rule(checkpoint !== undefined && !checkpoint.files.has("b.txt") && c.read("a.txt") === "A0\n", "checkpoint-record", () => `the denied write_file b.txt was kept as a change (${JSON.stringify([...(checkpoint?.files.keys() ?? [])])}): only calls that ran are recorded.`);
  });
});

describe("s21 /rewind in the conversation", () => {
  it("/rewind lists the checkpoints; /rewind 2 takes back the second question and its change; a bad argument is a clear line", async () => {
    const root = keep(await scratchWorkspace({ "a.txt": "A0\n" }));
    const dir = keep(mkdtempSync(join(tmpdir(), "s21-sessions-")));
    const llm = scripted({ scenario: script({ one: [[write("a.txt", "A1\n")]], two: [[write("a.txt", "A2\n")]] }) });
    const repl = program.createRepl(llm, { dir, agent: { root, userConfigDir: root, approve: async () => ({ approved: true }), onHookProblem: () => {}, onUntracked: () => {} } });
    await repl.handle("one");
    const turnOne = JSON.stringify(repl.history);
    await repl.handle("two");
    expect(program.rewindCommand(repl.history, "").text, "[checkpoint-turns] /rewind lists one checkpoint per question").toMatch(/1 {2}"one"[\s\S]*2 {2}"two"/);
    expect(program.rewindCommand(repl.history, "2 sideways").text, "[checkpoint-turns] /rewind with a mode it does not know says how to use it").toMatch(/usage: \/rewind/);
    const handled = await repl.handle("/rewind 2");
    rule(handled === "continue", "checkpoint-restore", () => `the REPL answered "/rewind 2" with ${show(handled)}: /rewind is a command of the REPL (it goes on: "continue"), not a question for the model.`);
    rule(readFileSync(join(root, "a.txt"), "utf8") === "A1\n" && JSON.stringify(repl.history) === turnOne, "checkpoint-restore", () => `after /rewind 2 the file should read "A1" and the conversation be turn one's; they are ${JSON.stringify(readFileSync(join(root, "a.txt"), "utf8"))} and ${repl.history.length} messages.`);
    const problems = await transcriptProblems(llm, repl.history);
    rule(problems === null, "checkpoint-conversation", () => `after /rewind the history cannot be sent: ${problems}`);
  });
});

describe("s21 the program", () => {
  it("its --help says how a rewind works and keeps s19's flags; the default task runs offline, exit 0", async () => {
    expect(program.CHECKPOINTS_USAGE, "[final-agent] --help says how rewind works, beside s18's --permission-mode and s19's hooks").toMatch(/--permission-mode[\s\S]*PreToolUse[\s\S]*rewind\(runId, n/);
    const dir = keep(await scratchCopy(SAMPLE_REPOSITORY));
    expectExit(await program.run(["--workspace", dir, "--permission-mode", "acceptEdits", TASK], { llm: scripted() }), 0, "the default task with --permission-mode acceptEdits");
    expect(readFileSync(join(dir, "src", "login.js"), "utf8"), "[final-agent] the default task fixes the lockout").toMatch(/attempts >= MAX_FAILED_ATTEMPTS/);
  });
});

describe("s21 recording: a new file written twice, one file by several spellings, a command that fails", () => {
  it("a new file written twice in one turn: the rewind removes it (its state at the checkpoint is no file), it does not bring back the first write", async () => {
    const c = await conversation(script({ twice: [[write("fresh.txt", "first\n")], [write("fresh.txt", "second\n")]] }));
    await c.ask("twice");
    rule(c.read("fresh.txt") === "second\n", "checkpoint-record", () => `the turn wrote fresh.txt twice ("first", then "second"); it reads ${JSON.stringify(c.read("fresh.txt"))}: pass every call on to this.inner.dispatch.`);
    const r = lesson.rewind(c.id(), 1, "code");
    rule(c.read("fresh.txt") === "(no file)", "checkpoint-record", () => `fresh.txt did not exist at the checkpoint; written "first" then "second" in the turn, after the rewind it reads ${JSON.stringify(c.read("fresh.txt"))}: its state at the checkpoint is null (no file), kept at the first write; the second write must not replace it. Ask checkpoint.files.has(path): a null state is falsy, so a test of the value itself (get(path) or ??) takes null for "not kept yet".`);
    rule(JSON.stringify(r.restored) === JSON.stringify(["fresh.txt"]), "checkpoint-restore", () => `the rewind should name fresh.txt once as put back; it names ${JSON.stringify(r.restored)}.`);
  });

  it("one file by four spellings (a.txt, ./a.txt, sub/../a.txt, its absolute path): one entry, the state before the first write", async () => {
    const files = { "a.txt": "A0\n", "sub/keep.txt": "k\n" };
    const root = { path: "" };
    const scenario = script({ spell: [[write("./a.txt", "A1\n")], [write("a.txt", "A2\n")], [write("sub/../a.txt", "A3\n")], [call("write_file", { path: "(absolute)", content: "A4\n" })]] });
    // The absolute spelling names the scratch workspace, known only once it exists: the scenario's call is rewritten then.
    const spelled: Scenario = { ...scenario, reply: (ctx) => JSON.parse(JSON.stringify(scenario.reply(ctx)).replace("(absolute)", join(root.path, "a.txt"))) as Reply };
    const c = await conversation(spelled, files);
    root.path = c.root;
    await c.ask("spell");
    rule(c.read("a.txt") === "A4\n", "checkpoint-record", () => `the four writes should all reach a.txt, the last "A4"; it reads ${JSON.stringify(c.read("a.txt"))}.`);
    const kept = [...(lesson.timelineOf(c.id())?.checkpoints[0]?.files.keys() ?? [])];
    rule(JSON.stringify(kept) === JSON.stringify(["a.txt"]), "checkpoint-record", () => `a.txt was written as "./a.txt", "a.txt", "sub/../a.txt" and by its absolute path: one file, so checkpoint.files should hold one entry, "a.txt"; it holds ${JSON.stringify(kept)}. Key the map by workspacePath(this.root, input.path), the path relative to the workspace, never by the words of the call.`);
    lesson.rewind(c.id(), 1, "code");
    rule(c.read("a.txt") === "A0\n", "checkpoint-record", () => `after the rewind a.txt reads ${JSON.stringify(c.read("a.txt"))}, not "A0" (its state at the checkpoint): every spelling of a path is one file, kept once, before its first write.`);
  });

  it("a file first written by its absolute path, or by sub/../b.txt: the bytes kept are the file's, and the rewind puts them back", async () => {
    const root = { path: "" };
    const scenario = script({ spell: [[call("write_file", { path: "(absolute)", content: "A1\n" }), write("sub/../b.txt", "B1\n")]] });
    const spelled: Scenario = { ...scenario, reply: (ctx) => JSON.parse(JSON.stringify(scenario.reply(ctx)).replace("(absolute)", join(root.path, "a.txt"))) as Reply };
    const c = await conversation(spelled, { "a.txt": "A0\n", "b.txt": "B0\n", "sub/keep.txt": "k\n" });
    root.path = c.root;
    await c.ask("spell");
    const kept = lesson.timelineOf(c.id())?.checkpoints[0]?.files;
    const shownKept = JSON.stringify([...(kept ?? [])].map(([p, v]) => [p, v === null ? null : v.toString("utf8")]));
    lesson.rewind(c.id(), 1, "code");
    rule(c.read("a.txt") === "A0\n" && c.read("b.txt") === "B0\n", "checkpoint-record", () => `a.txt ("A0") was first written by its absolute path and b.txt ("B0") as sub/../b.txt; the checkpoint kept ${shownKept} and after the rewind they read ${JSON.stringify(c.read("a.txt"))} and ${JSON.stringify(c.read("b.txt"))}. Read the state at the workspace path: stateOf(this.root, path) with path = workspacePath(this.root, input.path), never at the words of the call.`);
  });

  it("a file the turn only reads (read_file) is not kept: what bash then did to it is not undone by the rewind, and is listed as still differing", async () => {
    const c = await conversation(script({ look: [[call("read_file", { path: "a.txt" })], [call("bash", { command: "echo more >> a.txt" })]] }));
    await c.ask("look");
    rule(c.read("a.txt") === "A0\nmore\n", "checkpoint-untracked", () => `the turn read a.txt, then "echo more >> a.txt" ran; a.txt reads ${JSON.stringify(c.read("a.txt"))}: pass every call on to this.inner.dispatch.`);
    const kept = [...(lesson.timelineOf(c.id())?.checkpoints[0]?.files.keys() ?? [])];
    rule(kept.length === 0, "checkpoint-record", () => `the turn read a.txt (read_file) and changed it only with bash, yet the checkpoint keeps ${JSON.stringify(kept)}: keep a file's state only for a write_file or edit_file call (FILE_TOOLS); what bash changes is noted, not recorded.`);
    const r = lesson.rewind(c.id(), 1, "code");
    rule(c.read("a.txt") === "A0\nmore\n" && r.restored.length === 0 && r.differ.includes("a.txt"), "checkpoint-untracked", () => `after the rewind a.txt reads ${JSON.stringify(c.read("a.txt"))} (restored ${JSON.stringify(r.restored)}, differing ${JSON.stringify(r.differ)}): bash's change is not recorded, so the rewind leaves it and lists a.txt as still differing. Only write_file and edit_file calls are kept.`);
  });

  it("a bash command that fails (non-zero exit) is noted like any other: what it changed before failing is not restored, and the user is told", async () => {
    const c = await conversation(script({ broken: [[write("a.txt", "A1\n"), call("bash", { command: "echo half > half.txt; exit 3" })]] }));
    await c.ask("broken");
    rule(existsSync(join(c.root, "half.txt")), "checkpoint-untracked", "the command \"echo half > half.txt; exit 3\" should have run (and written half.txt) before it failed: pass the call on to this.inner.dispatch.");
    rule(c.notes.length === 1 && /exit 3/.test(c.notes[0]!), "checkpoint-untracked", () => `the command failed (exit code 3) after writing half.txt: a failed command changes files too, so the user should be told it is not recorded; told ${JSON.stringify(c.notes)}. Note every bash call, before it runs, whatever its result.`);
    const r = lesson.rewind(c.id(), 1);
    rule(r.commands.some((x) => /exit 3/.test(x)) && r.differ.includes("half.txt") && c.read("a.txt") === "A0\n", "checkpoint-untracked", () => `the rewind should put a.txt back, name the failed command and list half.txt as still differing: ${JSON.stringify(r)}, a.txt reads ${JSON.stringify(c.read("a.txt"))}.`);
  });
});

// The net under the rules: this lesson's loop beside the reference, on its own task and on
// generated model answers (tests/differential/net.ts).
import { differentialNet } from "./differential/net.ts";
differentialNet("s21");

describe("s21 a rewind never follows a link a command made (issue 31)", () => {
  it("b.txt, a.txt and the folder d/ swapped for links outside: the rewind neither overwrites nor deletes the files outside, and says what it did not put back", async () => {
    const c = await conversation(script({ change: [[edit("b.txt", "B0", "B1"), write("a.txt", "A1\n"), write("d/x.txt", "X1\n")]] }), { "b.txt": "B0\n" });
    await c.ask("change");
    rule(c.read("b.txt") === "B1\n" && c.read("d/x.txt") === "X1\n", "checkpoint-record", () => `the turn should have run its calls; b.txt and d/x.txt read ${JSON.stringify([c.read("b.txt"), c.read("d/x.txt")])}.`);
    // What a command could leave (bash runs in the workspace): links in place of a file and of a folder.
    const out = keep(mkdtempSync(join(tmpdir(), "s21-outside-")));
    mkdirSync(join(out, "dir"));
    for (const [f, t] of [["victim.txt", "victim\n"], ["kept.txt", "kept\n"], ["dir/x.txt", "outside x\n"]]) writeFileSync(join(out, f!), t!);
    for (const p of ["b.txt", "a.txt"]) rmSync(join(c.root, p));
    rmSync(join(c.root, "d"), { recursive: true });
    symlinkSync(join(out, "victim.txt"), join(c.root, "b.txt"));
    symlinkSync(join(out, "kept.txt"), join(c.root, "a.txt"));
    symlinkSync(join(out, "dir"), join(c.root, "d"));
    const r = lesson.rewind(c.id(), 1, "code");
    const outside = ["victim.txt", "kept.txt", "dir/x.txt"].map((f) => (existsSync(join(out, f)) ? readFileSync(join(out, f), "utf8") : "(deleted)"));
    rule(JSON.stringify(outside) === JSON.stringify(["victim\n", "kept\n", "outside x\n"]), "checkpoint-links", () => `the rewind reached outside the workspace through links a command made: the files outside read ${JSON.stringify(outside)} (expected "victim", "kept", "outside x"). putBack and stateOf go through runtime/tools/inside.ts (lstat on every folder, O_NOFOLLOW): keep them as given.`);
    rule(lstatSync(join(c.root, "d")).isSymbolicLink() && r.refused.some((x) => x.startsWith("b.txt:")) && r.refused.some((x) => x.startsWith("d/x.txt:")) && !r.restored.includes("b.txt"), "checkpoint-links", () => `the rewind should say which files it did not put back (b.txt, d/x.txt: links) and not name them as restored; it returned ${JSON.stringify({ restored: r.restored, refused: r.refused })}.`);
    expect(lesson.describeRewind(r), "[checkpoint-links] the rewind's words name what was not put back").toMatch(/not put back: b\.txt/);
  });
});
