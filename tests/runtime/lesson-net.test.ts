/**
 * The harness's net under a loop that never stops (runtime/net.ts), on the lessons without
 * guards of their own (s01–s05): their reference loop with its stop check taken out is run as a
 * learner runs it, offline, and must end on its own, non-zero, saying in plain words what the
 * loop did, what to check and how to raise the limit. Then the net itself, on a fake client.
 */
import { execFile } from "node:child_process";
import { cpSync, mkdtempSync, readFileSync, readdirSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type Anthropic from "@anthropic-ai/sdk";
import { afterAll, describe, expect, it } from "vitest";
import { LESSONS } from "../../runtime/manifest.ts";
import { DEFAULT_REQUEST_LIMIT, DONE_ANSWERS, RUNAWAY_REPEATS, RunawayError, requestLimit, withRequestNet } from "../../runtime/net.ts";

const ROOT = join(import.meta.dirname, "../..");
const tmp = mkdtempSync(join(tmpdir(), "course-net-test-"));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

/** A copy of solutions/ (runtime/ and node_modules/ linked) with one file's text replaced. */
function brokenCopy(name: string, file: string, from: string | RegExp, to: string): string {
  const dir = join(tmp, name);
  cpSync(join(ROOT, "solutions"), join(dir, "solutions"), { recursive: true, dereference: true });
  for (const entry of ["runtime", "node_modules", "package.json", "examples", "tsconfig.json"]) symlinkSync(join(ROOT, entry), join(dir, entry));
  const path = join(dir, "solutions", file);
  const text = readFileSync(path, "utf8");
  const changed = text.replace(from, to);
  if (changed === text) throw new Error(`the test's edit no longer applies to solutions/${file}: update it to the current stop check`);
  writeFileSync(path, changed);
  return dir;
}

/**
 * Runs a lesson's entry file in that copy, offline, the way `npm run lesson` does, with a temp
 * folder of its own; returns what it printed, its exit code and what it left in that folder.
 */
function run(dir: string, id: string, args: string[] = []): Promise<{ code: number | null; out: string; left: string[] }> {
  const lesson = LESSONS.find((l) => l.id === id)!;
  const own = mkdtempSync(join(tmp, "tmpdir-"));
  const env = { ...process.env, COURSE_OFFLINE: "1", NO_COLOR: "1", COURSE_MAX_REQUESTS: "", TMPDIR: own };
  return new Promise((resolve) => {
    const child = execFile(process.execPath, ["--import", "tsx", join("solutions", lesson.dir, lesson.entry), ...args], { cwd: dir, env, timeout: 120_000 }, (_e, stdout, stderr) =>
      // tsx's compile cache (tsx-<uid>) is not the run's.
      resolve({ code: child.exitCode, out: `${stdout}\n${stderr}`, left: readdirSync(own).filter((f) => !/^tsx-\d+$/.test(f)) }),
    );
  });
}

const STOP_CHECK = 'if (response.stop_reason !== "tool_use") return response;';
/** The classic mistake of lessons s01–s03 (s04 runs s03's loop): the model is done, the loop asks again. */
const GOES_ON = 'if (response.stop_reason !== "tool_use") { history.push({ role: "user", content: "Go on." }); continue; }';

describe("a loop with no stop check ends, in plain words, non-zero (s01–s05)", () => {
  const cases = [
    { id: "s01", file: "s01_agent_loop/agent.ts" },
    { id: "s02", file: "s02_tool_dispatch/agent.ts" },
    { id: "s03", file: "s03_parallel_tools/agent.ts" },
    { id: "s04", file: "s03_parallel_tools/agent.ts" },
  ];
  it.for(cases)("$id: goes on after every end_turn, with a new user line each time: stopped as a runaway", async ({ id, file }) => {
    const { code, out, left } = await run(brokenCopy(`${id}-goes-on`, file, STOP_CHECK, GOES_ON), id);
    expect(left, "the run's scratch workspace is removed, stopped or not").toEqual([]);
    expect(out, `${id}'s loop without its stop check must be stopped by the harness, in plain words`).toContain(
      `${DONE_ANSWERS} times in this run, and each time your loop went on. Does your loop return when stop_reason is not "tool_use"?`,
    );
    expect(out, "the message says how to turn the check off").toContain("--max-requests=0");
    expect(out, "no stack trace for a mistake the learner can fix").not.toMatch(/\n\s+at /);
    expect(code, "the run exits non-zero").not.toBe(0);
  });

  it("s01: asks again with nothing new after end_turn: stopped at once as a runaway, whatever the limit", async () => {
    const dir = brokenCopy("s01-spins", "s01_agent_loop/agent.ts", STOP_CHECK, "");
    // Without the stop check, an empty tool_result message would be refused by the API: this loop skips it.
    writeFileSync(
      join(dir, "solutions/s01_agent_loop/agent.ts"),
      readFileSync(join(dir, "solutions/s01_agent_loop/agent.ts"), "utf8").replace(
        'history.push({ role: "user", content: results });',
        'if (results.length > 0) history.push({ role: "user", content: results });',
      ),
    );
    const { code, out } = await run(dir, "s01", ["--max-requests=1000"]);
    expect(out, "asking again with nothing new after end_turn is a runaway").toContain(
      `your loop asked it again, ${RUNAWAY_REPEATS} times in a row`,
    );
    expect(out).toContain('Does your loop return when stop_reason is not "tool_use"?');
    expect(code).not.toBe(0);
  });

  it("s05: an end_turn that does not end the run is stopped as a runaway", async () => {
    const dir = brokenCopy("s05-spins", "s05_stop_reasons/agent.ts", /case "end_turn":\n\s*return \{ status: "done", message: response, turns \};/, 'case "end_turn":\n        continue;');
    const { code, out } = await run(dir, "s05");
    expect(out).toContain(`your loop asked it again, ${RUNAWAY_REPEATS} times in a row`);
    expect(code).not.toBe(0);
  });

  it("the reference s05 on its default task (and its tour): ends, exit 0, and leaves nothing in the temp folder; --keep keeps the workspace and says where", async () => {
    const dir = join(tmp, "s05-reference");
    cpSync(join(ROOT, "solutions"), join(dir, "solutions"), { recursive: true, dereference: true });
    for (const entry of ["runtime", "node_modules", "package.json", "examples", "tsconfig.json"]) symlinkSync(join(ROOT, entry), join(dir, entry));
    const plain = await run(dir, "s05");
    expect(plain.code, plain.out).toBe(0);
    expect(plain.out).not.toContain("Stopped:");
    expect(plain.left).toEqual([]);
    const kept = await run(dir, "s05", ["--keep"]);
    expect(kept.code, kept.out).toBe(0);
    expect(kept.left).toHaveLength(1);
    expect(kept.out).toContain(`workspace kept: `);
  });

  it("s02 with --max-requests=3: the limit the learner gives is the one used, and the message says how to raise it", async () => {
    const { code, out } = await run(brokenCopy("s02-limit", "s02_tool_dispatch/agent.ts", STOP_CHECK, GOES_ON), "s02", ["--max-requests=3"]);
    expect(out).toContain('Stopped: your loop made 3 requests in one run and never returned. Does it stop when stop_reason is not "tool_use"?');
    expect(out).toContain("To allow more, run again with --max-requests=N");
    expect(code).not.toBe(0);
  });
});

/** A fake client: `messages.create` answers with the next stop_reason of the list (the last one repeats). */
function fake(stops: string[]) {
  let calls = 0;
  const client = {
    messages: {
      create: (params: Anthropic.MessageCreateParams) => {
        void params;
        const stop = stops[Math.min(calls++, stops.length - 1)];
        return Promise.resolve({ role: "assistant", content: [], stop_reason: stop } as unknown as Anthropic.Message);
      },
    },
  } as unknown as Anthropic;
  return { client, calls: () => calls };
}

describe("withRequestNet", () => {
  const ask = (c: Anthropic, messages: Anthropic.MessageParam[]) => c.messages.create({ model: "scripted-model", max_tokens: 10, messages });
  const user = (content: Anthropic.MessageParam["content"]): Anthropic.MessageParam => ({ role: "user", content });
  const result: Anthropic.ToolResultBlockParam = { type: "tool_result", tool_use_id: "t", content: "ok" };

  it("a loop that keeps calling tools is stopped after the limit, before request limit+1 is sent", async () => {
    const f = fake(["tool_use"]);
    const net = withRequestNet(f.client, 4);
    const history: Anthropic.MessageParam[] = [user("task")];
    for (let i = 0; i < 4; i++) {
      await ask(net, history);
      history.push({ role: "assistant", content: [] }, user([result]));
    }
    await expect(ask(net, history)).rejects.toThrow(RunawayError);
    expect(f.calls(), "the request over the limit is not sent").toBe(4);
    await expect(ask(net, history), "once tripped, it stays tripped").rejects.toThrow(/made 4 requests/);
  });

  it("asking again after end_turn with nothing new trips it; with a new question from the user it does not", async () => {
    const f = fake(["end_turn"]);
    const net = withRequestNet(f.client, 100);
    const history: Anthropic.MessageParam[] = [user("q1")];
    for (let i = 0; i < DONE_ANSWERS; i++) {
      await ask(net, history);
      history.push({ role: "assistant", content: [] }, user(`q${i + 2}`));
    }
    expect(f.calls(), "a few new questions after the model's answers are not a runaway").toBe(DONE_ANSWERS);
    await expect(ask(net, history), `going on after ${DONE_ANSWERS} answers that said done is`).rejects.toThrow(/5 times in this run, and each time your loop went on/);

    const g = fake(["end_turn"]);
    const spin = withRequestNet(g.client, 100);
    const h: Anthropic.MessageParam[] = [user("q")];
    const tries = async () => {
      for (let i = 0; i < 10; i++) {
        await ask(spin, h);
        h.push({ role: "assistant", content: [{ type: "text", text: "done" }] }, user([]));
      }
    };
    await expect(tries()).rejects.toThrow(/asked it again, 3 times in a row/);
    expect(g.calls(), "the first answer and two asks again are sent; the third is stopped before it goes").toBe(RUNAWAY_REPEATS);
  });

  it("a lesson raises the count of done answers (course.json doneAnswers): the net goes on that many times, then trips", async () => {
    const raised = DONE_ANSWERS + 3;
    const f = fake(["end_turn"]);
    const net = withRequestNet(f.client, 100, raised);
    const history: Anthropic.MessageParam[] = [user("q1")];
    for (let i = 0; i < raised; i++) {
      await ask(net, history);
      history.push({ role: "assistant", content: [] }, user(`q${i + 2}`));
    }
    expect(f.calls(), `a lesson that raised doneAnswers to ${raised} may go on ${raised} times`).toBe(raised);
    await expect(ask(net, history), `going on after ${raised} answers that said done is still`).rejects.toThrow(new RegExp(`${raised} times in this run`));
  });

  it("conversations are told apart by their first message: subagents that each end done do not trip their parent", async () => {
    // Answers: the parent asks for a tool (task) each time, every child is done at once.
    let calls = 0;
    const client = {
      messages: {
        create: (params: Anthropic.MessageCreateParams) => {
          calls++;
          const child = typeof params.messages[0]?.content === "string" && params.messages[0].content.startsWith("child");
          return Promise.resolve({ role: "assistant", content: [], stop_reason: child ? "end_turn" : "tool_use" } as unknown as Anthropic.Message);
        },
      },
    } as unknown as Anthropic;
    const net = withRequestNet(client, 100);
    const parent: Anthropic.MessageParam[] = [user("the task")];
    for (let i = 0; i < DONE_ANSWERS * 2; i++) {
      await ask(net, parent);
      await ask(net, [user(`child ${i}`)]);
      parent.push({ role: "assistant", content: [] }, user([result]));
    }
    expect(calls, "ten subagents, each done once, and the parent going on: no runaway").toBe(DONE_ANSWERS * 4);
  });

  it("pause_turn or tool_use sent back as is is not a runaway; limit 0 turns the net off", async () => {
    const f = fake(["pause_turn"]);
    const net = withRequestNet(f.client, 100);
    for (let i = 0; i < 20; i++) await ask(net, [user("q")]);
    expect(f.calls()).toBe(20);
    const g = fake(["end_turn"]);
    expect(withRequestNet(g.client, 0)).toBe(g.client);
  });

  it("the limit: --max-requests=N first, then COURSE_MAX_REQUESTS, then the lesson's; anything else is a clear error", () => {
    expect(requestLimit([], undefined, {})).toBe(DEFAULT_REQUEST_LIMIT);
    expect(requestLimit([], 80, {})).toBe(80);
    expect(requestLimit([], 80, { COURSE_MAX_REQUESTS: "200" })).toBe(200);
    expect(requestLimit(["--max-requests=7"], 80, { COURSE_MAX_REQUESTS: "200" })).toBe(7);
    expect(requestLimit(["--max-requests=0"], 80, {})).toBe(0);
    expect(() => requestLimit(["--max-requests=lots"], 80, {})).toThrow('--max-requests must be a whole number (0 for no limit), not "lots".');
    expect(() => requestLimit([], 80, { COURSE_MAX_REQUESTS: "-1" })).toThrow(/COURSE_MAX_REQUESTS must be a whole number/);
  });
});
