/**
 * Records every lesson's reference solution against its scripted scenario, for the docs'
 * transcript viewer: `demo(llm)` of solutions/<dir>/<entry> runs with the offline scripted model
 * and its transcript, with stop_reason and usage per assistant turn, is written to
 * docs/public/transcripts/<dir>.json. `npm run docs:build` runs this first, so the recordings are
 * never stale (they are git-ignored).
 *
 * Each lesson runs in its own process, inside its own scratch copy of the repository (two at a
 * time; RECORD_JOBS sets how many, RECORD_TIMEOUT_MS how long one may take): a demo whose
 * tools write files cannot touch the real working tree. A lesson that cannot be recorded (no
 * `demo` export, a demo that throws or hangs) does not stop the build, since lessons land while
 * others are written: its file says why (`type: "failed"`), the viewer shows that reason, the
 * recorder warns, and `npm run test:e2e` (run by CI) fails naming the lesson.
 *
 *   npx tsx scripts/docs/record-transcripts.ts [s01 s02 …]
 */
import { spawn } from "node:child_process";
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, realpathSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import type Anthropic from "@anthropic-ai/sdk";
import { LESSONS, findLesson, type Lesson } from "../../runtime/manifest.ts";
import { listFiles } from "./diff.ts";
import { matchResponses, type FailedRecording, type RecordedTranscript } from "../../docs/.vitepress/theme/transcript.ts";

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "../..");
const OUT_DIR = join(ROOT, "docs/public/transcripts");
const TIMEOUT_MS = Number(process.env.RECORD_TIMEOUT_MS ?? 60_000);
/** Lessons recorded at the same time (each in its own process and scratch copy). */
const JOBS = Number(process.env.RECORD_JOBS ?? 2);
/** What a recorded path to the scratch copy is shown as. */
const SHOWN_ROOT = "~/agent-loop-course";
const SKIP = new Set(["node_modules", ".git", ".course", "coverage"]);

/** The transcript a demo returned: an array of messages, or an object holding one. */
export function transcriptOf(value: unknown): Anthropic.MessageParam[] | null {
  if (Array.isArray(value)) return value as Anthropic.MessageParam[];
  if (typeof value === "object" && value !== null) {
    for (const key of ["messages", "history", "transcript"]) {
      const v = (value as Record<string, unknown>)[key];
      if (Array.isArray(v)) return v as Anthropic.MessageParam[];
    }
  }
  return null;
}

/** Child process: record one lesson (cwd is the scratch copy). */
async function recordOne(dir: string, outFile: string): Promise<void> {
  const lesson = LESSONS.find((l) => l.dir === dir);
  if (!lesson) throw new Error(`${dir} is not in runtime/manifest.ts`);
  const { output } = await import("../../runtime/print.ts");
  output.write = () => {}; // the lesson's own printing is not part of the recording
  const { scriptedLlm } = await import("../../runtime/client.ts");
  const file = join(ROOT, "solutions", lesson.dir, lesson.entry);
  if (!existsSync(file)) throw new Error(`solutions/${lesson.dir}/${lesson.entry} is missing`);
  const mod = (await import(pathToFileURL(file).href)) as { demo?: unknown };
  if (typeof mod.demo !== "function")
    throw new Error(`solutions/${lesson.dir}/${lesson.entry} exports no demo(llm) (docs/guide/contributing.md, "The lesson module")`);
  const llm = scriptedLlm({ maxRequests: 200 });
  const value: unknown = await (mod.demo as (llm: unknown) => Promise<unknown>)(llm);
  const messages = transcriptOf(value);
  if (!messages) throw new Error(`demo(llm) of ${lesson.dir} returned no transcript (an array of messages)`);
  const responses = llm.scripted.responses;
  const { turns, unmatched } = matchResponses(messages, responses);
  const recorded: RecordedTranscript = {
    type: "recorded",
    lesson: lesson.dir,
    id: lesson.id,
    title: lesson.title,
    model: "scripted model (offline)",
    messages,
    turns,
    unkept: unmatched.length,
    unkeptStops: unmatched.map((i) => responses[i]!.stop_reason),
  };
  writeFileSync(outFile, JSON.stringify(recorded, null, 1));
}

/** A scratch copy of the repository with node_modules linked, so demos run as in the real one. */
function scratchCopy(): string {
  const tmp = realpathSync(mkdtempSync(join(tmpdir(), "course-record-")));
  for (const name of readdirSync(ROOT)) {
    if (SKIP.has(name)) continue;
    cpSync(join(ROOT, name), join(tmp, name), {
      recursive: true,
      filter: (src) => !/[\\/]docs[\\/](\.vitepress[\\/](cache|dist)|public[\\/]transcripts)([\\/]|$)/.test(src),
    });
  }
  symlinkSync(join(ROOT, "node_modules"), join(tmp, "node_modules"), "dir");
  return tmp;
}

function childEnv(): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env, COURSE_OFFLINE: "1", NO_COLOR: "1", FORCE_COLOR: "0" };
  for (const k of ["ANTHROPIC_API_KEY", "ANTHROPIC_AUTH_TOKEN", "ANTHROPIC_BASE_URL", "MODEL_ID"]) delete env[k];
  return env;
}

/** Runs one lesson's demo in a child process inside its own scratch copy; the recording, or why it failed. */
function recordInChild(lesson: Lesson): Promise<{ ok: true; text: string } | { ok: false; why: string }> {
  const tmp = scratchCopy();
  const out = join(tmp, `${lesson.dir}.recorded.json`);
  return new Promise((done) => {
    const child = spawn(
      process.execPath,
      [join(ROOT, "node_modules/tsx/dist/cli.mjs"), join(tmp, "scripts/docs/record-transcripts.ts"), "--one", lesson.dir, out],
      { cwd: tmp, env: childEnv(), stdio: ["ignore", "pipe", "pipe"] },
    );
    let output = "";
    child.stdout.on("data", (d: Buffer) => (output += d.toString()));
    child.stderr.on("data", (d: Buffer) => (output += d.toString()));
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      child.kill("SIGKILL");
    }, TIMEOUT_MS);
    child.on("close", (code) => {
      clearTimeout(timer);
      try {
        // Paths of the scratch copy read as the course's own.
        if (code === 0 && existsSync(out)) done({ ok: true, text: readFileSync(out, "utf8").split(tmp).join(SHOWN_ROOT) });
        else
          done({
            ok: false,
            why: timedOut
              ? `did not finish in ${TIMEOUT_MS / 1000} s (does its demo wait for input or loop forever?)`
              : (output || `exit ${code}`).trim().split("\n").slice(-6).join("\n    ").split(tmp).join(SHOWN_ROOT),
          });
      } finally {
        rmSync(tmp, { recursive: true, force: true });
      }
    });
  });
}

async function recordAll(lessons: Lesson[]): Promise<number> {
  mkdirSync(OUT_DIR, { recursive: true });
  const wanted = new Set(LESSONS.map((l) => `${l.dir}.json`));
  for (const f of readdirSync(OUT_DIR)) if (f.endsWith(".json") && !wanted.has(f)) rmSync(join(OUT_DIR, f)); // lessons gone from the manifest

  const failures: string[] = [];
  const queue = [...lessons];
  const worker = async () => {
    for (let lesson = queue.shift(); lesson; lesson = queue.shift()) {
      const started = Date.now();
      const r = await recordInChild(lesson);
      if (!r.ok) {
        failures.push(`${lesson.id} (${lesson.dir}): ${r.why}`);
        const failed: FailedRecording = { type: "failed", lesson: lesson.dir, id: lesson.id, title: lesson.title, error: r.why };
        writeFileSync(join(OUT_DIR, `${lesson.dir}.json`), JSON.stringify(failed, null, 1));
        continue;
      }
      writeFileSync(join(OUT_DIR, `${lesson.dir}.json`), r.text);
      const rec = JSON.parse(r.text) as RecordedTranscript;
      console.log(`  recorded ${lesson.id}: ${rec.messages.length} messages, ${rec.turns.length} turns (${Date.now() - started} ms)`);
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, JOBS) }, worker));
  if (failures.length > 0) {
    console.warn(`docs: WARNING: could not record ${failures.length} lesson transcript(s) for the viewer:\n  ${failures.sort().join("\n  ")}`);
    console.warn("Each lesson's solution exports demo(llm) returning its transcript (docs/guide/contributing.md).");
    console.warn("The site still builds; the viewer shows the reason and `npm run test:e2e` fails until it is fixed.");
  }
  return failures.length;
}

/**
 * Every lesson's reference solution as one JSON file (docs/public/solutions/<dir>.json: its text
 * files by path), for the diff view, which compares any two lessons in the browser. Git-ignored,
 * rewritten on every build like the recordings.
 */
export function writeSnapshots(lessons: Lesson[] = LESSONS): number {
  const out = join(ROOT, "docs/public/solutions");
  mkdirSync(out, { recursive: true });
  const wanted = new Set(lessons.map((l) => `${l.dir}.json`));
  for (const f of readdirSync(out)) if (f.endsWith(".json") && !wanted.has(f)) rmSync(join(out, f));
  let n = 0;
  for (const l of lessons) {
    const dir = join(ROOT, "solutions", l.dir);
    if (!existsSync(dir)) continue;
    const files: Record<string, string> = {};
    for (const f of listFiles(dir)) {
      const text = readFileSync(join(dir, f), "utf8");
      if (!text.includes("\u0000")) files[f] = text;
    }
    // Given code: the exercise's folder holds the file as the solution does (the diff view shows it last).
    const given = Object.keys(files).filter((f) => f !== l.entry && existsSync(join(ROOT, "lessons", l.dir, f)) && readFileSync(join(ROOT, "lessons", l.dir, f), "utf8") === files[f]);
    writeFileSync(join(out, `${l.dir}.json`), JSON.stringify({ dir: l.dir, id: l.id, entry: l.entry, files, given }));
    n++;
  }
  return n;
}

async function main(): Promise<void> {
  const args = process.argv.slice(2);
  if (args[0] === "--one") {
    await recordOne(args[1] ?? "", args[2] ?? "");
    process.exit(0);
  }
  const keys = args.filter((a) => !a.startsWith("--"));
  const lessons = keys.length === 0 ? LESSONS : keys.map((a) => findLesson(a) ?? a);
  const unknown = lessons.filter((l): l is string => typeof l === "string");
  if (unknown.length > 0) {
    console.error(`no lesson ${unknown.join(", ")}; the lessons are ${LESSONS.map((l) => l.id).join(", ")}`);
    process.exit(1);
  }
  console.log(`docs: ${writeSnapshots()} solution snapshot(s) for the diff view`);
  console.log(`docs: recording ${lessons.length} lesson transcript(s) with the scripted model`);
  const failed = await recordAll(lessons as Lesson[]);
  // --strict: a lesson that cannot be recorded fails this command too.
  if (failed > 0 && process.argv.includes("--strict")) process.exitCode = 1;
}

const isMain = process.argv[1] !== undefined && realpathSync(process.argv[1]) === realpathSync(fileURLToPath(import.meta.url));
if (isMain)
  main().catch((e: unknown) => {
    console.error(`docs: ${e instanceof Error ? e.message : String(e)}`);
    process.exit(1);
  });
