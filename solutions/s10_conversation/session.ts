/**
 * Sessions on disk: a conversation saved as JSON under `.course/sessions/` (git-ignored) and
 * resumed later as the SAME history, so the model sees everything it saw before.
 *
 * A file a person edited, or one written by a broken loop, is refused with the reason, never
 * sent to the API: loading checks the shape (zod) and the pairing rules (the transcript checker).
 */
import { existsSync, mkdirSync, readFileSync, readdirSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import type Anthropic from "@anthropic-ai/sdk";
import { z } from "zod";
import { CourseError } from "../../runtime/env.ts";
import { checkTranscript, formatViolations } from "../../runtime/transcript.ts";

/** .course/sessions at the top of the course repository (git-ignored). */
export const SESSIONS_DIR = resolve(dirname(fileURLToPath(import.meta.url)), "../../.course/sessions");

/** Where sessions are kept: COURSE_SESSIONS_DIR when set (each test file's own folder), else SESSIONS_DIR. */
export function sessionsDir(): string {
  return process.env.COURSE_SESSIONS_DIR?.trim() || SESSIONS_DIR;
}

export class SessionError extends CourseError {
  override name = "SessionError";
}

// #region session-file
const SessionFile = z.object({
  version: z.literal(1),
  name: z.string(),
  savedAt: z.string(),
  model: z.string(),
  messages: z.array(
    z.object({
      role: z.enum(["user", "assistant"]),
      content: z.union([z.string(), z.array(z.looseObject({ type: z.string() }))]),
    }),
  ),
});

export interface Session {
  version: 1;
  name: string;
  savedAt: string;
  model: string;
  messages: Anthropic.MessageParam[];
}
// #endregion session-file

const NAME = /^[\w.-]{1,64}$/;

export function checkName(name: string): string {
  if (!NAME.test(name) || name.startsWith("."))
    throw new SessionError(`"${name}" is not a session name: use letters, digits, "-", "_" or "." (up to 64), e.g. /save login-bug`);
  return name;
}

/** A fresh name from the clock: 2026-11-30T01-12-09. */
export function newSessionName(now = new Date()): string {
  return now.toISOString().slice(0, 19).replace(/:/g, "-");
}

export function sessionPath(name: string, dir = sessionsDir()): string {
  return join(dir, `${checkName(name)}.json`);
}

// #region save-load
/** Writes the session atomically (a crash mid-write never leaves half a file). Returns the path. */
export function saveSession(name: string, messages: Anthropic.MessageParam[], opts: { dir?: string; model?: string } = {}): string {
  const dir = opts.dir ?? sessionsDir();
  const path = sessionPath(name, dir);
  const session: Session = { version: 1, name, savedAt: new Date().toISOString(), model: opts.model ?? "", messages };
  mkdirSync(dir, { recursive: true });
  const tmp = `${path}.${process.pid}.tmp`;
  writeFileSync(tmp, JSON.stringify(session, null, 2) + "\n");
  renameSync(tmp, path);
  return path;
}

/** Reads a saved session back, or explains why it cannot be resumed. */
export function loadSession(name: string, opts: { dir?: string } = {}): Session {
  const dir = opts.dir ?? sessionsDir();
  const path = sessionPath(name, dir);
  if (!existsSync(path)) {
    const known = listSessions(dir).map((s) => s.name);
    throw new SessionError(`no session "${name}" in ${dir}${known.length ? `; saved sessions: ${known.join(", ")}` : " (none saved yet: /save first)"}`);
  }
  let json: unknown;
  try {
    json = JSON.parse(readFileSync(path, "utf8"));
  } catch (e) {
    throw new SessionError(`${path} is not valid JSON (${(e as Error).message}); it cannot be resumed`);
  }
  const parsed = SessionFile.safeParse(json);
  if (!parsed.success) throw new SessionError(`${path} is not a saved session: ${parsed.error.issues[0]?.path.join(".")} ${parsed.error.issues[0]?.message}`);
  const messages = parsed.data.messages as Anthropic.MessageParam[];
  const violations = checkTranscript(messages);
  if (violations.length > 0)
    throw new SessionError(`${path} holds a transcript the API would refuse, so it is not resumed:\n${formatViolations(violations)}`);
  return { ...parsed.data, messages };
}
// #endregion save-load

export function listSessions(dir = sessionsDir()): Array<{ name: string; path: string }> {
  if (!existsSync(dir)) return [];
  return readdirSync(dir)
    .filter((f) => f.endsWith(".json"))
    .sort()
    .map((f) => ({ name: f.slice(0, -5), path: join(dir, f) }));
}

/** Deletes a saved session (no error when there is none). */
export function removeSession(name: string, opts: { dir?: string } = {}): void {
  rmSync(sessionPath(name, opts.dir), { force: true });
}
