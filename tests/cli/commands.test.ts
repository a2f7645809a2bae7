/**
 * The course command line, as a learner uses it, on a temporary copy of the repository:
 * for every lesson in the manifest, the pristine exercise fails and the solution passes
 * (`list` grades them all in one run), hints print, reset restores byte for byte (with git and
 * without) and keeps what it replaced (--undo brings it back), list answers from its cache until
 * a file changes; lesson s01 goes through `check` end to end; mistakes (an unknown id, flag or
 * argument) get a one-line message and a non-zero exit, never a stack trace.
 *
 * Commands run in this process (`copy.call`: the copy's own course.ts, imported), except where
 * the process itself is what is tested (an endless loop leaves no process behind, npm's own
 * handling of flags, a terminal's prompt): one process per scenario there.
 */
import { spawnSync } from "node:child_process";
import { appendFileSync, existsSync, readFileSync, readdirSync, readlinkSync, realpathSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { pathToFileURL } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Lesson } from "../../runtime/manifest.ts";
import { npmSwallowed } from "../../scripts/lib/args.ts";
import { hintLines } from "../../scripts/lib/views.ts";
import { STACK_FRAME, hasCommand, makeCopy, snapshot, solve, stripAnsi, type CourseCopy } from "./course-copy.ts";

const gitMissing = !hasCommand("git");

/** Processes whose working directory is inside `root` (Linux /proc; none known elsewhere). */
function processesIn(root: string): string[] {
  if (!existsSync("/proc")) return [];
  return readdirSync("/proc")
    .filter((p) => /^\d+$/.test(p))
    .filter((p) => {
      try {
        return readlinkSync(`/proc/${p}/cwd`).startsWith(root);
      } catch {
        return false;
      }
    })
    .map((p) => {
      try {
        return readFileSync(`/proc/${p}/cmdline`, "utf8").replaceAll("\0", " ");
      } catch {
        return p;
      }
    });
}

/** The text of the first todo("…") call in the exercise: what `check` must name. */
function firstTodo(source: string): string {
  const m = /todo\(\s*"((?:[^"\\]|\\.)*)"/.exec(source);
  if (!m) throw new Error("the exercise has no todo(\"…\") call");
  return JSON.parse(`"${m[1]}"`) as string;
}

/** "  ▶ current      s01  The agent loop" → { s01: "current" } */
function states(listOutput: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const line of listOutput.split("\n")) {
    const m = /^\s+\S+ (done|current|in progress|not started|missing)\s+(s\d+)\s/.exec(line);
    if (m) out[m[2]!] = m[1]!;
  }
  return out;
}

/**
 * Why each lesson the list did not call done failed its check: the failures its last check kept
 * (the copy's own loadState, .course/state.json there), so a red list in a log says which rule and
 * why, not only a name.
 */
async function whyNotDone(root: string, listOutput: string): Promise<string> {
  const { loadState } = (await import(pathToFileURL(join(root, "scripts/lib/state.ts")).href)) as typeof import("../../scripts/lib/state.ts");
  const { results } = loadState();
  return Object.entries(states(listOutput))
    .filter(([, s]) => s !== "done")
    .map(([id]) => `\n${id}'s last check: ${JSON.stringify(results[id]?.grade?.failures ?? "(none kept)").slice(0, 4000)}`)
    .join("");
}

describe.skipIf(gitMissing)("the course command line on a fresh clone (git)", () => {
  let copy: CourseCopy;
  let pristine: Map<string, Map<string, Buffer>>;
  let LESSONS: Lesson[];
  let s01: Lesson;

  beforeAll(async () => {
    copy = makeCopy({ git: true });
    LESSONS = await copy.lessons();
    s01 = LESSONS[0]!;
    pristine = new Map(LESSONS.map((l) => [l.id, snapshot(join(copy.root, "lessons", l.dir))]));
  }, 60_000);
  afterAll(() => copy?.remove());

  it("check s01 on the pristine exercise fails, and its first lines name the TODO that is left and where", async () => {
    const { code, out } = await copy.call(["check", "s01"]);
    expect(code).toBe(1);
    const head = out.split("\n").slice(0, 6).join("\n");
    expect(head).toContain(`✗ ${s01.id}`);
    expect(head).toContain(firstTodo(copy.read(`lessons/${s01.dir}/${s01.entry}`).toString()));
    expect(head).toMatch(new RegExp(`lessons/${s01.dir}/${s01.entry.replace(".", "\\.")}:\\d+`));
    expect(out).toContain(`npm run hint ${s01.id}`);
    expect(out).not.toMatch(STACK_FRAME);
  }, 180_000);

  it("list: every pristine exercise fails its check, so the first lesson is current and the others not started", async () => {
    const { code, out } = await copy.call(["list"]);
    expect(code).toBe(0);
    const expected = Object.fromEntries(LESSONS.map((l, i) => [l.id, i === 0 ? "current" : "not started"]));
    expect(states(out)).toEqual(expected);
    expect(out).toContain(`0 of ${LESSONS.length} lessons done`);
    for (const l of LESSONS) expect(out).toContain(l.title);
    expect(out, "an untouched exercise is not started without running its check (a fresh clone's list is fast)").not.toMatch(/Checking s\d\d/);
  }, 180_000);

  it("hint prints the guiding questions first, the stronger hint on a second call or with --more", async () => {
    const first = await copy.call(["hint", "s01"]);
    expect(first.code).toBe(0);
    expect(first.out).toContain(s01.hints[0]);
    expect(first.out).not.toContain(s01.hints[1]);
    const second = await copy.call(["hint", "s01"]);
    expect(second.out).toContain(s01.hints[1]);
    // The last lesson through the command line; every lesson through the same view it prints.
    const last = LESSONS[LESSONS.length - 1]!;
    const more = await copy.call(["hint", last.id, "--more"]);
    expect(more.code).toBe(0);
    expect(more.out).toContain(last.hints[0]);
    expect(more.out).toContain(last.hints[1]);
    for (const l of LESSONS) {
      const text = stripAnsi(hintLines(l, 2).join("\n"));
      expect(l.hints.every((h) => h.trim().length > 0)).toBe(true);
      expect(text).toContain(l.hints[0]);
      expect(text).toContain(l.hints[1]);
    }
  }, 180_000);

  it("solution shows the reference only when asked: the diff from the exercise to the solution", async () => {
    const { code, out } = await copy.call(["solution", "s01"]);
    expect(code).toBe(0);
    expect(out).toContain(`--- lessons/${s01.dir}/${s01.entry}`);
    expect(out).toContain(`+++ solutions/${s01.dir}/${s01.entry}`);
    expect(out).toMatch(/^\+.*history\.push/m);
    const full = await copy.call(["solution", "s01", "--full"]);
    expect(full.out).toContain(copy.read(`solutions/${s01.dir}/${s01.entry}`).toString().split("\n")[1]!);
  }, 180_000);

  it("a syntax error in the learner's file: a message with the line, exit 1, no stack trace", async () => {
    const file = join(copy.root, "lessons", s01.dir, s01.entry);
    appendFileSync(file, "\nconst broken = ;\n");
    const lines = copy.read(`lessons/${s01.dir}/${s01.entry}`).toString().split("\n").length;
    const { code, out } = await copy.call(["check", "s01"]);
    expect(code).toBe(1);
    expect(out).toContain("does not parse");
    expect(out).toMatch(new RegExp(`${s01.entry.replace(".", "\\.")}:${lines - 1}`));
    expect(out).not.toMatch(STACK_FRAME);
  }, 180_000);

  it("an endless loop in the learner's file: the check gives up with a message, and leaves no process behind", async () => {
    solve(copy.root, s01.dir);
    const file = join(copy.root, "lessons", s01.dir, s01.entry);
    appendFileSync(file, "\nwhile (Date.now() > 0) { /* endless */ }\n");
    const { code, out } = await copy.run(["check", "s01"], { env: { COURSE_CHECK_TIMEOUT_MS: "6000" } });
    expect(code).toBe(1);
    expect(out).toContain("did not finish in 6 s");
    expect(out).not.toMatch(STACK_FRAME);
    await new Promise((r) => setTimeout(r, 500));
    expect(processesIn(copy.root)).toEqual([]);
  }, 180_000);

  it("reset without --yes and without a terminal refuses and changes nothing", async () => {
    const before = snapshot(join(copy.root, "lessons", s01.dir));
    const { code, out } = await copy.call(["reset", "s01"]);
    expect(code).toBe(2);
    expect(out).toContain("--yes");
    expect(snapshot(join(copy.root, "lessons", s01.dir))).toEqual(before);
  }, 180_000);

  it.skipIf(!hasCommand("script"))("on a terminal, reset asks first: n keeps your work, y restores the exercise", async () => {
    const dir = join(copy.root, "lessons", s01.dir);
    const before = snapshot(dir);
    expect(before).not.toEqual(pristine.get("s01"));
    const no = copy.terminal(["reset", "s01"], { pty: true });
    await no.waitFor("[y/N]");
    no.press("n\r");
    expect(await no.exited).toBe(1);
    expect(snapshot(dir)).toEqual(before);
    const yes = copy.terminal(["reset", "s01"], { pty: true });
    await yes.waitFor("[y/N]");
    yes.press("y\r");
    expect(await yes.exited).toBe(0);
    expect(snapshot(dir)).toEqual(pristine.get("s01"));
  }, 180_000);

  it("reset --yes restores every exercise byte for byte (an added file removed, a deleted one back)", async () => {
    const resetOne = async (l: Lesson) => {
      const dir = join(copy.root, "lessons", l.dir);
      if (l === s01) rmSync(dir, { recursive: true });
      else {
        writeFileSync(join(dir, l.entry), "// my own attempt\n");
        writeFileSync(join(dir, "notes.txt"), "scratch");
      }
      const { code, out } = await copy.call(["reset", l.id, "--yes"]);
      expect(code, out).toBe(0);
      expect(snapshot(dir), l.id).toEqual(pristine.get(l.id));
    };
    // Each reset touches only its own folder: a few at a time keeps the suite short.
    for (let i = 0; i < LESSONS.length; i += 4) await Promise.all(LESSONS.slice(i, i + 4).map(resetOne));
  }, 180_000);

  it("reset keeps what it replaced in .course/backups/ and says where; --undo brings it back byte for byte", async () => {
    const dir = join(copy.root, "lessons", s01.dir);
    solve(copy.root, s01.dir);
    writeFileSync(join(dir, "notes.md"), "my notes\n");
    const mine = snapshot(dir);
    const reset = await copy.call(["reset", "s01", "--yes"]);
    expect(reset.code, reset.out).toBe(0);
    const kept = /Your files as they were are in (\.course\/backups\/[^\s/]+)\//.exec(reset.out)?.[1];
    expect(kept, `reset must say where your files went:\n${reset.out}`).toMatch(new RegExp(`^\\.course/backups/${s01.id}-\\d{4}-\\d\\d-\\d\\dT`));
    expect(snapshot(join(copy.root, kept!)), "the backup holds every file as it was, byte for byte").toEqual(mine);
    expect(snapshot(dir)).toEqual(pristine.get("s01"));
    expect(reset.out).toContain(`npm run reset ${s01.id} -- --undo`);

    // Work goes on after the reset; --undo brings the backup back and keeps what it replaces.
    appendFileSync(join(dir, s01.entry), "\n// a fresh start\n");
    const fresh = snapshot(dir);
    const undo = await copy.call(["reset", "s01", "--undo"]);
    expect(undo.code, undo.out).toBe(0);
    expect(snapshot(dir), "--undo restores the files of the last backup exactly").toEqual(mine);
    expect(existsSync(join(copy.root, kept!)), "the backup put back is not kept twice").toBe(false);
    const replaced = /The files it replaced are in (\.course\/backups\/[^\s/]+)\//.exec(undo.out)?.[1];
    expect(replaced, `--undo must say where the files it replaced went:\n${undo.out}`).toBeDefined();
    expect(snapshot(join(copy.root, replaced!))).toEqual(fresh);
    // …so --undo again swaps back: nothing is ever lost.
    expect((await copy.call(["reset", "s01", "--undo"])).code).toBe(0);
    expect(snapshot(dir)).toEqual(fresh);
    // --undo takes no --ref, and says so.
    const both = await copy.call(["reset", "s01", "--undo", "--ref", "HEAD"]);
    expect(both.code).toBe(2);
    expect(snapshot(dir)).toEqual(fresh);
  }, 180_000);

  it("an unknown flag or an extra argument, to any command: one line naming it and the usage, exit 2, nothing changed", async () => {
    const before = snapshot(join(copy.root, "lessons"));
    const cases: [string[], string][] = [
      [["check", "s01", "--verbos"], "unknown flag --verbos"],
      [["check", "s01", "s02"], 'unexpected argument "s02"'],
      [["reset", "s01", "--frobnicate"], "unknown flag --frobnicate"],
      [["reset", "s01", "--yes", "--ref"], "--ref needs a value"],
      [["reset", "s01", "--yes=no"], "--yes takes no value"],
      [["hint", "s01", "--mor"], "unknown flag --mor"],
      [["list", "--all"], "unknown flag --all"],
      [["list", "s01"], 'unexpected argument "s01"'],
      [["solution", "s01", "--ful"], "unknown flag --ful"],
      [["watch", "--fast"], "unknown flag --fast"],
      [["verify", "--quick"], "unknown flag --quick"],
      [["lesson", "--frobnicate", "s01"], 'the lesson id comes first, not "--frobnicate"'],
    ];
    for (const [args, named] of cases) {
      const { code, out } = await copy.call(args);
      const what = `npm run ${args.join(" ")}`;
      expect(code, `${what}:\n${out}`).toBe(2);
      const lines = out.trim().split("\n");
      expect(lines, `${what}: one line`).toHaveLength(1);
      expect(lines[0], what).toContain(named);
      expect(lines[0], `${what}: the usage`).toContain(`usage: npm run ${args[0]}`);
    }
    expect(snapshot(join(copy.root, "lessons")), "a refused command changes nothing").toEqual(before);
  }, 180_000);

  // These check every lesson (17 of them, some twice): the limit is far above what they need, so a
  // busy machine makes them slower, never red.
  it("with every solution copied in, every check passes: list says done for all, check s01 and check pass", async () => {
    for (const l of LESSONS) solve(copy.root, l.dir);
    const list = await copy.call(["list"]);
    expect(states(list.out), `npm run list printed:\n${list.out}${await whyNotDone(copy.root, list.out)}`).toEqual(Object.fromEntries(LESSONS.map((l) => [l.id, "done"])));
    const one = await copy.call(["check", "s01"]);
    expect(one.code).toBe(0);
    expect(one.out).toContain(`✓ ${s01.id}`);
    const current = await copy.call(["check"]);
    expect(current.code).toBe(0);
    expect(current.out).toContain(`All ${LESSONS.length} lessons pass`);
  }, 900_000);

  it("list answers from its cache while no file changed, and checks again only the lesson whose file did", async () => {
    const again = await copy.call(["list"]);
    expect(again.out, "nothing changed since the last list: nothing to check").not.toMatch(/Checking s\d\d/);
    expect(states(again.out), `npm run list printed:\n${again.out}${await whyNotDone(copy.root, again.out)}`).toEqual(Object.fromEntries(LESSONS.map((l) => [l.id, "done"])));
    const l = LESSONS[1] ?? LESSONS[0]!;
    appendFileSync(join(copy.root, "lessons", l.dir, l.entry), "\n// a comment changes the file's hash\n");
    const after = await copy.call(["list"]);
    expect(after.out).toContain(`Checking ${l.id} (changed since its last check)`);
    expect(states(after.out)[l.id]).toBe("done");
    expect((await copy.call(["list"])).out).not.toMatch(/Checking s\d\d/);
  }, 900_000);

  it("progress follows the files, not a flag: after a reset the lesson is current again; an edited later one is in progress", async () => {
    await copy.call(["reset", "s01", "--yes"]);
    if (LESSONS.length > 2) {
      const l = LESSONS[2]!;
      await copy.call(["reset", l.id, "--yes"]);
      appendFileSync(join(copy.root, "lessons", l.dir, l.entry), "\n// started\n");
    }
    const { out } = await copy.call(["list"]);
    const s = states(out);
    expect(s.s01).toBe("current");
    if (LESSONS.length > 1) expect(s[LESSONS[1]!.id]).toBe("done");
    if (LESSONS.length > 2) {
      const l = LESSONS[2]!;
      expect(s[l.id]).toBe("in progress");
      // Where it stands: its tests passing of all, and the first that fails (the exercise's TODO).
      const line = out.split("\n").find((x) => x.includes(`  ${l.id}  `)) ?? "";
      expect(line, `npm run list: a lesson begun and not done shows "passed/total · ✗ <the first failing test>" (scripts/lib/views.ts listLines), here:\n${out}`).toMatch(/ \d+\/\d+ · ✗ \S/);
      expect(line, "npm run list: the lesson's line shows the tests that pass out of all, fewer than all").not.toMatch(/ (\d+)\/\1 /);
    }
    const check = await copy.call(["check"]);
    expect(check.code).toBe(1);
    expect(check.out).toContain(`Current lesson: ${s01.id}`);
  }, 900_000);

  it("an unknown id, a deleted lesson folder: a clear message, exit 2, no stack trace", async () => {
    for (const cmd of ["check", "hint", "reset", "lesson", "solution"]) {
      const { code, out } = await copy.call([cmd, "s99"]);
      expect(code, cmd).toBe(2);
      expect(out).toContain('no lesson "s99"');
      expect(out).not.toMatch(STACK_FRAME);
    }
    const dir = join(copy.root, "lessons", s01.dir);
    renameSync(dir, `${dir}.away`);
    try {
      for (const args of [["check", "s01"], ["lesson", "s01"]]) {
        const { code, out } = await copy.call(args);
        expect(code, args.join(" ")).toBe(2);
        expect(out).toContain(`npm run reset ${s01.id}`);
        expect(out).not.toMatch(STACK_FRAME);
      }
      const list = await copy.call(["list"]);
      expect(states(list.out).s01).toBe("missing");
    } finally {
      renameSync(`${dir}.away`, dir);
    }
  }, 180_000);
});

describe.skipIf(!hasCommand("npm"))("flags npm keeps for itself", () => {
  let copy: CourseCopy;
  beforeAll(() => {
    copy = makeCopy({ git: true });
  }, 60_000);
  afterAll(() => copy?.remove());

  it("`npm run reset s01 --frobnicate` (no `--`): refused, exit 2, naming the flag and how to pass it", async () => {
    const dir = join(copy.root, "lessons", "s01_agent_loop");
    writeFileSync(join(dir, "mine.ts"), "export {};\n");
    const before = snapshot(dir);
    const r = await copy.npm(["run", "reset", "s01", "--frobnicate"]);
    expect(r.code, r.out).toBe(2);
    expect(r.out).toMatch(/npm run reset: unknown flag --frobnicate \(npm kept it for itself: flags for the course go after `--`/);
    expect(snapshot(dir)).toEqual(before);
  }, 180_000);

  it("npmSwallowed: bare flags npm does not know, not npm's own settings nor configured values", () => {
    const execpath = realpathSync(spawnSync("sh", ["-c", "command -v npm"], { encoding: "utf8" }).stdout.trim());
    const cli = join(dirname(execpath), "npm-cli.js");
    const env = {
      npm_lifecycle_event: "reset",
      npm_execpath: existsSync(cli) ? cli : execpath,
      npm_config_frobnicate: "true",
      npm_config_yes: "true", // npm's own setting
      npm_config_python: "/usr/bin/python3", // a configured value (node-gyp's), not a flag
      npm_config_local_prefix: "/somewhere",
    };
    expect(npmSwallowed(env)).toEqual(["--frobnicate"]);
    expect(npmSwallowed({ ...env, npm_lifecycle_event: undefined }), "not run by npm: nothing to find").toEqual([]);
  });
});

describe("reset without git: the pristine snapshot under .course/", () => {
  let copy: CourseCopy;
  let s01: Lesson;
  beforeAll(async () => {
    copy = makeCopy({ git: false });
    s01 = (await copy.lessons())[0]!;
  }, 60_000);
  afterAll(() => copy?.remove());

  it("--undo before any reset: nothing to undo, exit 1, a message", async () => {
    const none = await copy.call(["reset", "s01", "--undo"]);
    expect(none.code).toBe(1);
    expect(none.out).toContain("nothing to undo");
    expect(none.out).not.toMatch(STACK_FRAME);
  }, 180_000);

  it("the first command takes the snapshot; reset --yes brings the exercise back byte for byte", async () => {
    const dir = join(copy.root, "lessons", s01.dir);
    const before = snapshot(dir);
    expect((await copy.call(["hint", "s01"])).code).toBe(0);
    expect(snapshot(join(copy.root, ".course", "pristine", s01.dir))).toEqual(before);
    solve(copy.root, s01.dir);
    writeFileSync(join(dir, "extra.ts"), "export {};\n");
    expect(snapshot(dir)).not.toEqual(before);
    const { code, out } = await copy.call(["reset", "s01", "--yes"]);
    expect(code, out).toBe(0);
    expect(out).toContain(".course/pristine");
    expect(snapshot(dir)).toEqual(before);
  }, 180_000);
});
