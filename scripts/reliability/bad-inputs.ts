/**
 * Bad input to the course itself: a corrupt .env, an unknown lesson id, a broken or missing
 * lesson file, a request to the scripted model that is not JSON (or not a request). Each must get
 * a clear message (the words that say what is wrong) and a non-zero exit (or a 4xx answer), never
 * a raw stack trace.
 *
 * The command-line cases run as real processes. Those that need a broken lesson run in a scratch
 * copy of the course (runtime/, scripts/, every solution and test, lesson s01; node_modules linked), so the
 * working tree is never touched.
 */
import { spawn } from "node:child_process";
import { cpSync, mkdirSync, mkdtempSync, realpathSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { ScriptedModel } from "../../runtime/scripted/model.ts";
import { startServer } from "../../runtime/scripted/server.ts";
import { ROOT } from "../../runtime/testing.ts";

export interface BadInput {
  id: string;
  what: string;
  /** Returns what happened: exit code (or HTTP status) and the text shown. */
  run(ctx: Scratch): Promise<{ code: number; text: string }>;
  /** The words a clear message must contain. */
  expect: RegExp;
}

export interface BadInputResult {
  id: string;
  what: string;
  handled: boolean;
  detail: string;
}

interface Scratch {
  /** A scratch copy of the course (for broken lessons). */
  course: string;
  /** An empty folder to run from (for .env cases). */
  cwd(name: string, env?: string | Buffer): string;
}

const TSX = pathToFileURL(join(ROOT, "node_modules/tsx/dist/loader.mjs")).href;
const STACK = /^\s+at .+(:\d+:\d+\)?|\(node:[^)]*\))$/m;

function exec(args: string[], opts: { cwd: string; env?: NodeJS.ProcessEnv; timeoutMs?: number }): Promise<{ code: number; text: string }> {
  return new Promise((resolve) => {
    const env: NodeJS.ProcessEnv = { ...process.env, NO_COLOR: "1", FORCE_COLOR: "0", ...opts.env };
    delete env.ANTHROPIC_API_KEY;
    delete env.ANTHROPIC_AUTH_TOKEN;
    delete env.ANTHROPIC_BASE_URL;
    delete env.DEBUG;
    // tsx by path: some cases run from a folder outside the course, where "tsx" would not resolve.
    const child = spawn(process.execPath, ["--import", TSX, ...args], { cwd: opts.cwd, env, stdio: ["ignore", "pipe", "pipe"] });
    let text = "";
    child.stdout.on("data", (d: Buffer) => (text += d.toString()));
    child.stderr.on("data", (d: Buffer) => (text += d.toString()));
    const timer = setTimeout(() => child.kill("SIGKILL"), opts.timeoutMs ?? 60_000);
    child.on("close", (code, signal) => {
      clearTimeout(timer);
      resolve({ code: code ?? (signal ? 128 : 1), text });
    });
  });
}

const course = (args: string[]) => (s: Scratch) => exec([join(s.course, "scripts/course.ts"), ...args], { cwd: s.course });
/**
 * A lesson run with a broken `.env`: the runtime reads the course checkout's `.env` (runtime/env.ts,
 * COURSE_ROOT), never the folder it runs from, so the file goes into the scratch course and its s01
 * runs from elsewhere. (A `.env` in the working folder would be read by no one: the case would pass
 * for the wrong reason, or fail as it did when the runtime stopped reading it.)
 */
const lessonFrom = (name: string, env: string | Buffer) => (s: Scratch) => {
  writeFileSync(join(s.course, ".env"), env);
  return exec([join(s.course, "solutions/s01_agent_loop/agent.ts")], { cwd: s.cwd(name) });
};

/** What every client sends, as SDK 1.14 sends it (the model answers 401/400 without them, as the API does). */
const API_HEADERS = { "content-type": "application/json", authorization: "Bearer offline", "anthropic-version": "2026-10-21" };

async function httpModel(body: string, headers: Record<string, string> = {}): Promise<{ code: number; text: string }> {
  const server = await startServer({ port: 0 });
  try {
    const r = await fetch(`${server.url}/v1/messages`, { method: "POST", headers: { ...API_HEADERS, ...headers }, body });
    return { code: r.status, text: await r.text() };
  } finally {
    await server.close();
  }
}

async function inProcessModel(body: string): Promise<{ code: number; text: string }> {
  const r = await new ScriptedModel().handle(new Request("http://scripted.localhost/v1/messages", { method: "POST", headers: API_HEADERS, body }));
  return { code: r.status, text: await r.text() };
}

export const BAD_INPUTS: BadInput[] = [
  { id: "env-not-key-value", what: ".env with a line that is not KEY=value", run: lessonFrom("env1", "ANTHROPIC_API_KEY sk-no-equals-sign\n"), expect: /\.env line 1 .*KEY=value/ },
  { id: "env-unclosed-quote", what: ".env with a quote never closed", run: lessonFrom("env2", 'MODEL_ID="claude\nOTHER=1\n'), expect: /\.env .*quote.*never closed/ },
  { id: "env-binary", what: ".env that is not text (NUL bytes)", run: lessonFrom("env3", Buffer.from([0x41, 0x3d, 0x00, 0x01, 0xff, 0x0a])), expect: /\.env .*not (a )?text/ },
  { id: "unknown-lesson-run", what: "npm run lesson s99", run: course(["lesson", "s99"]), expect: /no lesson "s99"/ },
  { id: "unknown-lesson-check", what: "npm run check banana", run: course(["check", "banana"]), expect: /no lesson "banana"/ },
  { id: "unknown-lesson-hint", what: "npm run hint s42", run: course(["hint", "s42"]), expect: /no lesson "s42"/ },
  { id: "no-lesson-id", what: "npm run lesson (no id)", run: course(["lesson"]), expect: /which lesson\?/ },
  { id: "unknown-command", what: "tsx scripts/course.ts frobnicate", run: course(["frobnicate"]), expect: /usage:/ },
  {
    id: "broken-lesson-run", what: "npm run lesson s01 with a syntax error in the exercise",
    run: async (s) => {
      writeFileSync(join(s.course, "lessons/s01_agent_loop/agent.ts"), "export const broken = ;\n");
      return course(["lesson", "s01"])(s);
    },
    expect: /agent\.ts/,
  },
  {
    id: "broken-lesson-check", what: "npm run check s01 with a syntax error in the exercise",
    run: async (s) => {
      writeFileSync(join(s.course, "lessons/s01_agent_loop/agent.ts"), "export async function agentLoop( {\n");
      return course(["check", "s01"])(s);
    },
    expect: /does not parse[\s\S]*agent\.ts:\d+/,
  },
  {
    id: "missing-lesson-file", what: "npm run lesson s01 with the exercise deleted",
    run: async (s) => {
      rmSync(join(s.course, "lessons/s01_agent_loop/agent.ts"));
      return course(["lesson", "s01"])(s);
    },
    expect: /missing/,
  },
  { id: "model-not-json-http", what: "POST /v1/messages with a body that is not JSON (HTTP server)", run: () => httpModel("{model: scripted, max_tokens"), expect: /not valid JSON/ },
  { id: "model-not-json", what: "a request body that is not JSON (in-process)", run: () => inProcessModel("hello?"), expect: /not valid JSON/ },
  { id: "model-json-array", what: "a request body that is JSON but not an object", run: () => inProcessModel("[1,2,3]"), expect: /valid dictionary/ },
  { id: "model-no-messages", what: "a request without messages", run: () => inProcessModel('{"model":"scripted-model","max_tokens":10}'), expect: /messages/ },
  {
    id: "model-unknown-fault", what: "an unknown x-scripted-fault header",
    run: () => httpModel('{"model":"scripted-model","max_tokens":10,"messages":[{"role":"user","content":"hi"}]}', { "x-scripted-fault": "explode" }),
    expect: /unknown fault \\"explode\\"/,
  },
  { id: "offline-model-bad-port", what: "npm run offline-model -- --port banana", run: () => exec([join(ROOT, "scripts/offline-model.ts"), "--port", "banana"], { cwd: ROOT }), expect: /--port must be a number/ },
];

function makeScratch(): { scratch: Scratch; dispose(): void } {
  const dir = realpathSync(mkdtempSync(join(tmpdir(), "course-bad-input-")));
  const copy = join(dir, "course");
  mkdirSync(copy);
  // Every lesson's solution: the runtime reads later lessons' course.json files as it loads (their
  // scripted scenarios and tasks; s23's plays an eval task's script), so a copy with s01's alone fails
  // before s01's first line. The tests whole: s01's imports the differential
  // net (which imports scripts/reliability/fuzz.ts) and the setup files.
  for (const p of ["runtime", "scripts", "lessons/s01_agent_loop", "solutions", "evals", "tests", "package.json", "tsconfig.json", "vitest.config.ts"])
    cpSync(join(ROOT, p), join(copy, p), { recursive: true });
  symlinkSync(join(ROOT, "node_modules"), join(copy, "node_modules"), "dir");
  return {
    scratch: {
      course: copy,
      cwd(name, env) {
        const d = join(dir, name);
        mkdirSync(d, { recursive: true });
        if (env !== undefined) writeFileSync(join(d, ".env"), env);
        return d;
      },
    },
    dispose: () => rmSync(dir, { recursive: true, force: true }),
  };
}

export async function runBadInput(b: BadInput): Promise<BadInputResult> {
  // Each case gets its own scratch copy: some break it.
  const { scratch, dispose } = makeScratch();
  try {
    const { code, text } = await b.run(scratch);
    const failedClearly = code !== 0 && code !== 200;
    const clear = b.expect.test(text);
    const stack = STACK.test(text);
    const handled = failedClearly && clear && !stack;
    const why = !failedClearly ? "exit 0 (or 200): the mistake was not reported as one" : !clear ? `the message does not say ${b.expect}` : stack ? "a raw stack trace was shown" : "";
    const first = text.trim().split("\n").find((l) => l.trim().length > 0) ?? "";
    return { id: b.id, what: b.what, handled, detail: `${code}: ${first.slice(0, 140)}${why ? `  ← ${why}` : ""}` };
  } catch (e) {
    return { id: b.id, what: b.what, handled: false, detail: `the check itself failed: ${(e as Error).message}` };
  } finally {
    dispose();
  }
}

export async function runBadInputs(cases = BAD_INPUTS, parallel = 3): Promise<BadInputResult[]> {
  const results: BadInputResult[] = new Array(cases.length);
  let next = 0;
  const worker = async () => {
    while (next < cases.length) {
      const i = next++;
      results[i] = await runBadInput(cases[i]!);
    }
  };
  await Promise.all(Array.from({ length: parallel }, worker));
  return results;
}
