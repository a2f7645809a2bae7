/**
 * The lesson harness (runtime/lesson.ts): what every lesson file hands its loop to. A run prints
 * the banner, the workspace, the answer, how it ended and whether the transcript can be sent
 * again; the default task runs in a fresh scratch workspace, a task of one's own in the current
 * directory; `transcriptOf` is a lesson's demo in one line.
 */
import { existsSync, readFileSync, rmSync } from "node:fs";
import { join } from "node:path";
import type Anthropic from "@anthropic-ai/sdk";
import { afterEach, describe, expect, it } from "vitest";
import { LessonUsageError, runLesson, scratchFor, transcriptOf, type LessonContext, type LessonSpec } from "../../runtime/lesson.ts";
import { output } from "../../runtime/print.ts";

const offline = { env: { COURSE_OFFLINE: "1" } };
/** A final response with one text block (only what the harness reads of it). */
const done = (text: string) => ({ role: "assistant", content: [{ type: "text", text }], stop_reason: "end_turn" }) as unknown as Anthropic.Message;

/** Runs a lesson spec and returns every line it printed, and what its run was handed. */
async function capture<R>(spec: LessonSpec<R>, argv: string[] = []) {
  const lines: string[] = [];
  const original = output.write;
  output.write = (line) => void lines.push(line);
  try {
    await runLesson(spec, argv);
  } finally {
    output.write = original;
  }
  return lines.join("\n");
}

const roots: string[] = [];
afterEach(() => {
  for (const r of roots.splice(0)) rmSync(r, { recursive: true, force: true });
});

describe("runLesson", () => {
  it("refuses a flag no lesson takes, in one line with the usage, before anything runs", async () => {
    let ran = false;
    const spec = { task: "t", model: offline, run: async () => void (ran = true) };
    for (const bad of ["--verbos", "--frobnicate", "--yes=no"]) {
      const e = await capture(spec, [bad]).catch((x: unknown) => x);
      expect(e, bad).toBeInstanceOf(LessonUsageError);
      expect((e as Error).message, bad).toBe(`unknown flag ${bad}. usage: npm run lesson sNN -- [--yes] [--verbose] [--trace] [--keep] [--max-requests=N] [task…]`);
    }
    expect(ran, "nothing ran").toBe(false);
    await capture(spec, ["--verbose", "a", "task"]);
    expect(ran, "a known flag and a task run").toBe(true);
  });

  it("--help (or -h) prints how to run a lesson and what each flag does, and runs nothing: help is never a mistake", async () => {
    let ran = false;
    const spec = { task: "t", model: offline, run: async () => void (ran = true) };
    for (const argv of [["--help"], ["-h"], ["--verbose", "--help"], ["--help", "--verbos"]]) {
      const out = await capture(spec, argv);
      expect(out, argv.join(" ")).toMatch(/^usage: npm run lesson sNN -- \[--yes\]/);
      for (const flag of ["--yes", "--verbose", "--trace", "--keep", "--max-requests=N"]) expect(out, `${argv.join(" ")}: ${flag} explained`).toMatch(new RegExp(`^  ${flag.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")} +\\S`, "m"));
    }
    expect(ran, "--help ran the lesson").toBe(false);
  });

  it("the default task: banner, a scratch workspace with the lesson's files, the answer, the outcome, the transcript's state", async () => {
    let seen: LessonContext | undefined;
    const out = await capture({
      task: "the default task",
      workspace: { "notes/a.txt": "hello\n" },
      model: offline,
      run: async (ctx) => {
        seen = ctx;
        roots.push(ctx.root);
        expect(readFileSync(join(ctx.root, "notes/a.txt"), "utf8")).toBe("hello\n");
        ctx.history.push({ role: "assistant", content: [{ type: "text", text: "the answer" }] });
        return { status: "done" as const, message: done("the answer"), turns: 1 };
      },
      describe: (o) => `done after ${o.turns} turn`,
    });
    expect(seen?.isDefault).toBe(true);
    expect(seen?.task).toBe("the default task");
    expect(seen?.history[0]).toEqual({ role: "user", content: "the default task" });
    expect(seen?.root).not.toBe(process.cwd());
    expect(out).toMatch(/^model: scripted \(offline\)/);
    expect(out).toContain(`workspace: ${seen?.root}`);
    expect(out, "every run says which OS sandbox its tools get").toMatch(/^sandbox: (bubblewrap \(workspace rw, no network\)|none, tools run as your user \(.+\))$/m);
    expect(out).toMatch(/Answer:.*the answer/);
    expect(out).toMatch(/Outcome:.*done after 1 turn/);
    expect(out).toMatch(/2 messages, every tool_use answered: can be sent again/);
  });

  it("the scratch workspace is removed when the run ends, failed or not; --keep keeps it and says where", async () => {
    let root = "";
    const spec = (fail: boolean) => ({
      task: "the default task",
      workspace: { "a.txt": "x" },
      model: offline,
      run: async (ctx: LessonContext) => {
        root = ctx.root;
        expect(existsSync(join(root, "a.txt"))).toBe(true);
        if (fail) throw new Error("the loop broke");
        return done("ok");
      },
    });
    const out = await capture(spec(false));
    expect(out).toContain("removed when the run ends; --keep keeps it");
    expect(existsSync(root), "removed after a run").toBe(false);
    await expect(capture(spec(true))).rejects.toThrow("the loop broke");
    expect(existsSync(root), "removed after a run that failed").toBe(false);
    const kept = await capture(spec(false), ["--keep"]);
    roots.push(root);
    expect(existsSync(join(root, "a.txt")), "kept with --keep").toBe(true);
    expect(kept).toContain(`workspace kept: ${root}`);
  });

  it("a task of your own runs in the current directory, and flags are not part of the task", async () => {
    let seen: LessonContext | undefined;
    await capture(
      {
        task: "the default task",
        workspace: { "a.txt": "x" },
        model: offline,
        run: async (ctx) => {
          seen = ctx;
          return done("ok");
        },
      },
      ["--yes", "count", "the", "files"],
    );
    expect(seen?.task).toBe("count the files");
    expect(seen?.isDefault).toBe(false);
    expect(seen?.root).toBe(process.cwd());
    expect(seen?.flag("yes")).toBe(true);
    expect(seen?.flag("trace")).toBe(false);
  });

  it("a stopped outcome prints no answer, and a transcript left with an unanswered tool_use says so", async () => {
    const out = await capture({
      task: "t",
      model: offline,
      run: async ({ history }) => {
        history.push({ role: "assistant", content: [{ type: "tool_use", id: "toolu_1", name: "bash", input: {} }] });
        return { status: "stopped" as const, reason: "max_turns", detail: "d", turns: 1 };
      },
    });
    expect(out).not.toMatch(/Answer:/);
    expect(out).not.toMatch(/can be sent again/);
    expect(out).toMatch(/toolu_1/);
  });

  it("before, heading and after run in that order around the run; printAnswer: false leaves the answer out", async () => {
    const order: string[] = [];
    const out = await capture({
      task: "t",
      model: offline,
      before: () => void order.push("before"),
      heading: "Part two",
      run: async () => {
        order.push("run");
        return done("streamed already");
      },
      printAnswer: false,
      after: () => void order.push("after"),
    });
    expect(order).toEqual(["before", "run", "after"]);
    expect(out).toMatch(/── Part two ──/);
    expect(out).not.toMatch(/streamed already/);
  });
});

describe("transcriptOf and scratchFor", () => {
  it("runs the task in a fresh workspace each time and returns the history the run grew", async () => {
    const seen: string[] = [];
    const history = await transcriptOf("task", { "f.txt": "1" }, async (h, root) => {
      seen.push(root);
      roots.push(root);
      h.push({ role: "assistant", content: "done" });
    });
    await transcriptOf("task", { "f.txt": "1" }, async (_h, root) => void (seen.push(root), roots.push(root)));
    expect(history).toEqual([
      { role: "user", content: "task" },
      { role: "assistant", content: "done" },
    ]);
    expect(seen[0]).not.toBe(seen[1]);
    expect(seen.filter((r) => existsSync(r)), "each workspace is removed once its run is recorded").toEqual([]);
  });

  it("a folder is copied, not used in place", async () => {
    const copy = await scratchFor(join(process.cwd(), "examples", "login-service"));
    roots.push(copy);
    expect(copy).not.toContain(join("examples", "login-service"));
    expect(existsSync(join(copy, "package.json"))).toBe(true);
  });
});

describe("lessons import the runtime's public surface, never the scripted model", () => {
  const ROOT = join(import.meta.dirname, "..", "..");

  it("no file under lessons/ or solutions/ imports runtime/scripted/", async () => {
    const { readdirSync } = await import("node:fs");
    const files = ["lessons", "solutions"].flatMap((tree) =>
      readdirSync(join(ROOT, tree), { recursive: true, encoding: "utf8" })
        .filter((f) => f.endsWith(".ts"))
        .map((f) => join(tree, f)),
    );
    expect(files.length).toBeGreaterThan(20);
    const offenders = files.filter((f) => /from\s+["'][^"']*runtime\/scripted\b/.test(readFileSync(join(ROOT, f), "utf8")));
    expect(offenders, "import the task from runtime/tasks.ts, textOf from runtime/transcript.ts, estimateTokens from runtime/tokens.ts").toEqual([]);
  });

  it("ESLint refuses such an import in a lesson file (no-restricted-imports), and allows it elsewhere", async () => {
    const { ESLint } = await import("eslint");
    const eslint = new ESLint({ cwd: ROOT });
    const code = 'import { textOf } from "../../runtime/scripted/conversation.ts";\nexport const x = textOf("");\n';
    const [inLesson] = await eslint.lintText(code, { filePath: join(ROOT, "solutions/s01_agent_loop/probe.ts") });
    const [inScript] = await eslint.lintText(code, { filePath: join(ROOT, "scripts/lib/probe.ts") });
    expect(inLesson?.messages.map((m) => m.ruleId)).toContain("no-restricted-imports");
    expect(inScript?.messages.map((m) => m.ruleId)).not.toContain("no-restricted-imports");
  }, 30_000);
});
