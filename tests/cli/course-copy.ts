/**
 * Test support for the course command line: a temporary copy of the repository to run it in
 * (lessons/ of the real repository is never touched), and a way to run a command there.
 */
import { spawn, spawnSync, type ChildProcessWithoutNullStreams } from "node:child_process";
import { cpSync, mkdtempSync, readFileSync, readdirSync, rmSync, symlinkSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { format } from "node:util";
import type { Lesson } from "../../runtime/manifest.ts";
import { ROOT, filesUnder } from "../../scripts/lib/paths.ts";

/**
 * What is copied: lessons/, solutions/, tests/, runtime/, scripts/, package.json, the configs,
 * and any other top-level folder a lesson or its tests may read (examples/, docs/ without the
 * built site); node_modules is linked.
 */
const NOT_COPIED = new Set(["node_modules", ".git", ".course", "coverage", ".env", "dist", "cache"]);
const copied = () => readdirSync(ROOT).filter((e) => !NOT_COPIED.has(e) && !e.endsWith(".log"));

export interface CourseCopy {
  root: string;
  /** Runs `tsx scripts/course.ts <args>` in the copy, as a process; output without colours. */
  run: (args: string[], opts?: { input?: string; env?: NodeJS.ProcessEnv }) => Promise<{ code: number; out: string }>;
  /**
   * The same command in this process: the copy's own scripts/course.ts, imported, called with
   * `args` (its paths are the copy's); what it prints is captured. Much faster than a process;
   * the checks it runs are still test-runner processes, as for a learner.
   */
  call: (args: string[], opts?: { env?: NodeJS.ProcessEnv }) => Promise<{ code: number; out: string }>;
  /** `npm <args>` in the copy, as a learner types it. */
  npm: (args: string[]) => Promise<{ code: number; out: string }>;
  read: (rel: string) => Buffer;
  /** The copy's own manifest (other lessons may have been added since this test file loaded). */
  lessons: () => Promise<Lesson[]>;
  /** Starts `course.ts <args>` in a pseudo-terminal (`script`), or with piped stdin when pty is false. */
  terminal: (args: string[], opts: { pty: boolean }) => Terminal;
  remove: () => void;
}

// eslint-disable-next-line no-control-regex
export const stripAnsi = (s: string) => s.replace(/\x1b\[[0-9;?]*[A-Za-z]/g, "");

export function hasCommand(cmd: string): boolean {
  return spawnSync("sh", ["-c", `command -v ${cmd}`]).status === 0;
}

/** A learner's environment: offline, no colours, nothing of the test runner running this file. */
export function courseEnv(): NodeJS.ProcessEnv {
  // The course speaks English here whatever the machine's locale (LANG=ja_JP.UTF-8 would make it Japanese): the tests read English.
  const env: NodeJS.ProcessEnv = { NO_COLOR: "1", FORCE_COLOR: "0", COURSE_OFFLINE: "1", COURSE_LANG: "en" };
  for (const [k, v] of Object.entries(process.env))
    if (!/^(VITEST|COURSE_|DEBUG$|NODE_ENV$|TEST$|FORCE_COLOR$|NO_COLOR$|ANTHROPIC_|MODEL_ID$)/.test(k)) env[k] = v;
  return env;
}

export function makeCopy({ git }: { git: boolean }): CourseCopy {
  const root = mkdtempSync(join(tmpdir(), "course-cli-"));
  for (const entry of copied())
    cpSync(join(ROOT, entry), join(root, entry), { recursive: true, filter: (src) => !/[\\/]docs[\\/]\.vitepress[\\/](dist|cache)$/.test(src) });
  symlinkSync(join(ROOT, "node_modules"), join(root, "node_modules"), "dir");
  if (git) {
    const g = (...args: string[]) => {
      const r = spawnSync("git", ["-c", "user.name=course", "-c", "user.email=course@example.invalid", ...args], { cwd: root });
      if (r.status !== 0) throw new Error(`git ${args.join(" ")}: ${r.stderr}`);
    };
    g("init", "-q");
    g("add", "-A");
    g("commit", "-q", "-m", "course");
  }
  const env = courseEnv();
  return {
    root,
    run: (args, opts = {}) =>
      new Promise((resolve) => {
        const child = spawn(process.execPath, ["--import", "tsx", join(root, "scripts/course.ts"), ...args], { cwd: root, env: { ...env, ...opts.env } });
        let out = "";
        child.stdout.on("data", (c: Buffer) => (out += c.toString()));
        child.stderr.on("data", (c: Buffer) => (out += c.toString()));
        child.stdin.end(opts.input ?? "");
        child.on("close", (code) => resolve({ code: code ?? -1, out: stripAnsi(out) }));
      }),
    call: (args, opts = {}) => callInProcess(root, args, { ...env, ...opts.env }),
    npm: (args) =>
      new Promise((resolve) => {
        const child = spawn(process.platform === "win32" ? "npm.cmd" : "npm", args, { cwd: root, env });
        let out = "";
        child.stdout.on("data", (c: Buffer) => (out += c.toString()));
        child.stderr.on("data", (c: Buffer) => (out += c.toString()));
        child.on("close", (code) => resolve({ code: code ?? -1, out: stripAnsi(out) }));
      }),
    read: (rel) => readFileSync(join(root, rel)),
    lessons: async () => ((await import(pathToFileURL(join(root, "runtime/manifest.ts")).href)) as { LESSONS: Lesson[] }).LESSONS,
    terminal: (args, { pty }) => {
      const cmd = [process.execPath, "--import", "tsx", "scripts/course.ts", ...args].map((a) => `'${a}'`).join(" ");
      const child = pty
        ? spawn("script", ["-q", "-e", "-c", cmd, "/dev/null"], { cwd: root, env })
        : spawn(process.execPath, ["--import", "tsx", "scripts/course.ts", ...args], { cwd: root, env });
      return new Terminal(child);
    },
    remove: () => rmSync(root, { recursive: true, force: true }),
  };
}

/** One call at a time: the console and the environment are this process's own. */
let queue: Promise<unknown> = Promise.resolve();

async function callInProcess(root: string, args: string[], env: NodeJS.ProcessEnv): Promise<{ code: number; out: string }> {
  const turn = queue.then(async () => {
    const mod = (await import(pathToFileURL(join(root, "scripts/course.ts")).href)) as { runCourse: (argv: string[]) => Promise<number> };
    const saved = { env: process.env, log: console.log, error: console.error, warn: console.warn, write: process.stdout.write };
    let out = "";
    const take = (...parts: unknown[]) => void (out += `${format(...parts)}\n`);
    console.log = take;
    console.error = take;
    console.warn = take;
    process.stdout.write = ((chunk: string | Uint8Array) => ((out += chunk.toString()), true)) as typeof process.stdout.write;
    // The learner's environment, as for a process (nothing of this test runner's); put back after.
    process.env = { ...env };
    try {
      const code = await mod.runCourse(args);
      return { code, out: stripAnsi(out) };
    } finally {
      process.env = saved.env;
      console.log = saved.log;
      console.error = saved.error;
      console.warn = saved.warn;
      process.stdout.write = saved.write;
    }
  });
  queue = turn.catch(() => {});
  return turn;
}

/** Every file of a folder of the copy, as { relative path → bytes }. */
export function snapshot(dir: string): Map<string, Buffer> {
  return new Map(filesUnder(dir).map((f) => [f, readFileSync(join(dir, f))]));
}

/** Copies the reference solution over the exercise, as a learner who solved it would have it. */
export function solve(root: string, lessonDir: string): void {
  cpSync(join(root, "solutions", lessonDir), join(root, "lessons", lessonDir), { recursive: true });
}

/** A stack frame of the command line itself would look like this. */
export const STACK_FRAME = /\n\s+at .+\(?(\/|file:).+:\d+:\d+\)?/;

/** A running command: what it printed so far (colours and \r removed), keys to send. */
export class Terminal {
  private text = "";
  private from = 0;
  readonly exited: Promise<number>;
  constructor(private readonly child: ChildProcessWithoutNullStreams) {
    const take = (c: Buffer) => (this.text += stripAnsi(c.toString()).replace(/\r/g, ""));
    child.stdout.on("data", take);
    child.stderr.on("data", take);
    this.exited = new Promise((r) => child.on("close", (code) => r(code ?? -1)));
  }
  /** Waits for `pattern` in the output that came after the previous wait. */
  async waitFor(pattern: RegExp | string, ms = 150_000): Promise<string> {
    const deadline = Date.now() + ms;
    for (;;) {
      const rest = this.text.slice(this.from);
      const i = typeof pattern === "string" ? rest.indexOf(pattern) : rest.search(pattern);
      if (i >= 0) {
        const seen = rest.slice(0, i + 1);
        this.from += i + 1;
        return seen;
      }
      if (Date.now() > deadline) throw new Error(`waited ${ms} ms for ${String(pattern)}; the terminal shows:\n${this.text.slice(-3000)}`);
      await new Promise((r) => setTimeout(r, 50));
    }
  }
  press(key: string): void {
    this.child.stdin.write(key);
  }
  kill(): void {
    this.child.kill("SIGKILL");
  }
}
