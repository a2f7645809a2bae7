/**
 * The long commands (reliability, verify, mutation, eval, bench) report their own failures in
 * words, with what to do: never a raw Node error such as `spawnSync /bin/sh ETIMEDOUT` after ten
 * minutes. `reportFailures` catches what nothing else caught; `failureWords` says it.
 *
 * Limits that depend on the machine's speed are multiplied by COURSE_TIME_SCALE (default 1):
 * `timeScaled(ms)`. On a busy or slow machine, COURSE_TIME_SCALE=3 gives every such limit three
 * times as long.
 */
import { word } from "../../runtime/words.ts";

/** COURSE_TIME_SCALE (a number from 1 to 100; anything else is 1). */
export function timeScale(env: NodeJS.ProcessEnv = process.env): number {
  const n = Number(env.COURSE_TIME_SCALE);
  return Number.isFinite(n) && n >= 1 && n <= 100 ? n : 1;
}

/** A time limit as this machine needs it. */
export function timeScaled(ms: number, env: NodeJS.ProcessEnv = process.env): number {
  return Math.round(ms * timeScale(env));
}

type SpawnError = Error & { code?: string; syscall?: string; path?: string; spawnargs?: string[] };

/** One paragraph for a person: what failed, and what to do. */
export function failureWords(command: string, e: unknown): string {
  const err = (e instanceof Error ? e : new Error(String(e))) as SpawnError;
  const started = err.path ? `${err.path}${err.spawnargs?.length ? ` ${err.spawnargs.join(" ").slice(0, 120)}` : ""}` : "a process it started";
  if (err.code === "ETIMEDOUT")
    return word("fail.timeout", { command, started, error: err.message });
  if (err.code === "ENOENT" && err.syscall?.startsWith("spawn"))
    return word("fail.not-installed", { command, program: err.path ?? word("fail.a-program"), error: err.message });
  if (err.code === "ENOSPC") return word("fail.disk-full", { command, error: err.message });
  if (err.code === "EMFILE" || err.code === "EAGAIN")
    return word("fail.out-of-files", { command, error: err.message });
  const first = (err.message || String(e)).split("\n")[0];
  return word("fail.unexpected", { command, error: first ?? "" });
}

/** Anything thrown and not caught ends `command` with failureWords and exit 1 (the stack only with COURSE_DEBUG=1). */
export function reportFailures(command: string): void {
  const handle = (e: unknown) => {
    console.error(failureWords(command, e));
    if (process.env.COURSE_DEBUG && e instanceof Error && e.stack) console.error(e.stack);
    process.exit(1);
  };
  process.on("uncaughtException", handle);
  process.on("unhandledRejection", handle);
}
