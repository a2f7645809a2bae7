/**
 * What the Part III checks share (part3-*.ts, run by `npm run reliability -- --only part3`): the
 * lessons' own modules (s18–s22's reference solutions, loaded only when present), the sandbox
 * modes, a scratch workspace with a user's config folder beside it, the course's terminal lines
 * captured (what the user is told), and processes found by a token in their command line.
 *
 * A process to look for is started with `exec -a TOKEN …`: its command line is the token, in the
 * sandbox's PID namespace too (the host's /proc shows every process of every namespace).
 */
import { AsyncLocalStorage } from "node:async_hooks";
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { output } from "../../runtime/print.ts";
import { ROOT } from "../../runtime/testing.ts";
import { sandboxInfo } from "../../runtime/tools/sandbox.ts";

/** Where a check runs: the OS sandbox on (approvals as the check says, or every one yes), or off. */
export type P3Mode = "bubblewrap" | "bubblewrap --yes" | "none";

/** The modes this machine has, without "--yes" unless asked (only the attacks use it). */
export function p3Modes(withYes = false): P3Mode[] {
  const saved = process.env.COURSE_SANDBOX;
  delete process.env.COURSE_SANDBOX;
  const kind = sandboxInfo().kind;
  if (saved !== undefined) process.env.COURSE_SANDBOX = saved;
  if (kind !== "bubblewrap") return ["none"];
  return withYes ? ["bubblewrap", "bubblewrap --yes", "none"] : ["bubblewrap", "none"];
}

/** Runs `work` with COURSE_SANDBOX set for `mode` (read by spawnTool at each start), then puts it back. */
export async function inMode<T>(mode: P3Mode, work: () => Promise<T>): Promise<T> {
  const saved = process.env.COURSE_SANDBOX;
  if (mode === "none") process.env.COURSE_SANDBOX = "off";
  else delete process.env.COURSE_SANDBOX;
  try {
    return await work();
  } finally {
    if (saved === undefined) delete process.env.COURSE_SANDBOX;
    else process.env.COURSE_SANDBOX = saved;
  }
}

/** A lesson's reference module, or null when the lesson is not there yet. */
export async function solution<T>(dir: string, file = "agent.ts"): Promise<T | null> {
  const path = join(ROOT, "solutions", dir, file);
  return existsSync(path) ? ((await import(pathToFileURL(path).href)) as T) : null;
}

/** A scratch layout: ws/ (the workspace, with its files and .agent/settings.json), user/ (the user's config folder), out/ (outside). */
export interface Scratch {
  dir: string;
  ws: string;
  user: string;
  out: string;
  remove(): void;
}

export const OUTSIDE_CANARY = "CANARY-PART3-OUTSIDE-3b8e";

export function scratch(files: Record<string, string> = {}, settings?: { project?: object; user?: object }): Scratch {
  const dir = realpathSync(mkdtempSync(join(tmpdir(), "part3-")));
  const ws = join(dir, "ws");
  const user = join(dir, "user");
  const out = join(dir, "out");
  for (const d of [ws, user, out, join(out, "victim")]) mkdirSync(d, { recursive: true });
  writeFileSync(join(out, "secret.txt"), `TOP SECRET ${OUTSIDE_CANARY}\n`);
  writeFileSync(join(out, "victim", "file.txt"), "victim\n");
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(join(ws, path, ".."), { recursive: true });
    writeFileSync(join(ws, path), text);
  }
  if (settings?.project) {
    mkdirSync(join(ws, ".agent"), { recursive: true });
    writeFileSync(join(ws, ".agent", "settings.json"), JSON.stringify(settings.project));
  }
  if (settings?.user) writeFileSync(join(user, "settings.json"), JSON.stringify(settings.user));
  return { dir, ws, user, out, remove: () => rmSync(dir, { recursive: true, force: true }) };
}

/** The state of the folder outside (names and bytes), to see whether anything there changed. */
export function outsideState(out: string): string {
  const walk = (d: string): string[] => readdirSync(d, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? walk(join(d, e.name)) : [`${join(d, e.name)}=${readFileSync(join(d, e.name), "utf8")}`]));
  return walk(out).sort().join("\n");
}

/** The capture each line belongs to: the run that printed it (runs go side by side, `pool`). */
const captures = new AsyncLocalStorage<string[]>();
let capturingRuns = 0;
let restoreWrite: ((line: string) => void) | undefined;

/** Runs `work` with the course's terminal lines kept (what the user is told) instead of printed; side-by-side runs each keep their own. */
export async function capturing<T>(work: () => Promise<T>): Promise<{ value?: T; error?: unknown; lines: string[] }> {
  const lines: string[] = [];
  if (capturingRuns++ === 0) {
    restoreWrite = output.write;
    output.write = (line: string) => void captures.getStore()?.push(line);
  }
  try {
    return { value: await captures.run(lines, work), lines };
  } catch (error) {
    return { error, lines };
  } finally {
    if (--capturingRuns === 0 && restoreWrite) output.write = restoreWrite;
  }
}

/** A token no other process has: put it in a command line with `exec -a`. */
export const newToken = (what: string) => `p3-${what.replace(/\W+/g, "-")}-${process.pid}-${Date.now().toString(36)}-${Math.random().toString(36).slice(2, 7)}`;

export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
/** How long a check lets the kernel take away what a run killed before it counts what is alive (a loaded machine is slow to reap). */
export const GRACE_MS = 3_000;

/** The first line of an error, for a verdict's detail. */
export const errorLine = (e: unknown) => (e instanceof Error ? `${e.constructor.name}: ${e.message.split("\n")[0]}` : String(e));

/** How a run ended, in a few words: "done", "stopped (max_turns)". */
export const outcomeLine = (o: { status: string }) => `${o.status}${"reason" in o && typeof o.reason === "string" ? ` (${o.reason})` : ""}`;

/** Runs jobs `width` at a time, keeping their order in the results. */
export async function pool<T>(jobs: Array<() => Promise<T>>, width = 2): Promise<T[]> {
  const results: T[] = new Array(jobs.length);
  let next = 0;
  const worker = async () => {
    while (next < jobs.length) {
      const i = next++;
      results[i] = await jobs[i]!();
    }
  };
  await Promise.all(Array.from({ length: Math.min(width, jobs.length) }, worker));
  return results;
}
