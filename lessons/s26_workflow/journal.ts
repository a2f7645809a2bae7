/**
 * s26 · the journal: what a workflow run did, one JSON line per event, appended as it happens.
 *
 * Each line is one typed event (zod checks every line read back). A line is written with one
 * write(2) call on a file opened for appending: when the process dies, every line written before
 * is in the file, and at most the last one is torn (cut mid-write). Reading keeps the whole lines,
 * cuts the torn tail off the file (or the next event would be glued onto it), and refuses a
 * broken line anywhere else: that is not a crash, it is a file someone edited.
 */
import { closeSync, existsSync, mkdirSync, openSync, readFileSync, truncateSync, writeSync } from "node:fs";
import { dirname } from "node:path";
import { z } from "zod";
import { CourseError } from "../../runtime/env.ts";

/** What one agent run cost: every kind of token (input, output, cache writes and reads), and dollars. */
export const UsageSchema = z.object({ tokens: z.number().int().nonnegative(), costUsd: z.number().nonnegative() });
export type Usage = z.infer<typeof UsageSchema>;

// #region events
export const JournalEventSchema = z.discriminatedUnion("type", [
  /** A run of the workflow began (the first, or a resume). */
  z.object({ type: z.literal("run_started"), workflow: z.string() }),
  /** An agent step began: it counts as an agent run, finished or not. */
  z.object({ type: z.literal("step_started"), step: z.string() }),
  /** An agent step finished: its answer and usage, read back on resume instead of running it again. */
  z.object({ type: z.literal("step_done"), step: z.string(), answer: z.string(), usage: UsageSchema }),
  /** The run ended: done, or stopped (a cap, an abort, a step that did not finish), and why. */
  z.object({ type: z.literal("run_finished"), status: z.enum(["done", "stopped"]), reason: z.string().optional() }),
]);
export type JournalEvent = z.infer<typeof JournalEventSchema>;
// #endregion events

export class JournalError extends CourseError {}

/** The whole lines of a journal's text, parsed, and where the last whole line ends (a torn tail after it). */
export function parseJournal(text: string, file = "the journal"): { events: JournalEvent[]; wholeLength: number } {
  // subtle: a line is whole only when its newline was written; what follows the last one is a torn write.
  const whole = text.slice(0, text.lastIndexOf("\n") + 1);
  const events = whole
    .split("\n")
    .map((line, i) => ({ line, n: i + 1 }))
    .filter(({ line }) => line.trim() !== "")
    .map(({ line, n }) => {
      let json: unknown;
      try {
        json = JSON.parse(line);
      } catch {
        throw new JournalError(`${file}:${n} is not JSON: only the last line may be torn by a crash; fix or remove line ${n}`);
      }
      const parsed = JournalEventSchema.safeParse(json);
      if (!parsed.success) throw new JournalError(`${file}:${n} is not a journal event (${parsed.error.issues[0]?.message}): fix or remove line ${n}`);
      return parsed.data;
    });
  return { events, wholeLength: Buffer.byteLength(whole) };
}

/** A journal file open for appending, with the events it already held. */
export class Journal {
  private constructor(
    private readonly fd: number,
    readonly events: readonly JournalEvent[],
  ) {}

  /** Opens (or creates) the journal at `path`: reads its whole lines and cuts a torn last line off. */
  static open(path: string): Journal {
    mkdirSync(dirname(path), { recursive: true });
    const text = existsSync(path) ? readFileSync(path, "utf8") : "";
    const { events, wholeLength } = parseJournal(text, path);
    if (wholeLength < Buffer.byteLength(text)) truncateSync(path, wholeLength);
    return new Journal(openSync(path, "a"), events);
  }

  /** One event, one line, one write: in the file (the OS's cache) before this returns. */
  append(event: JournalEvent): void {
    writeSync(this.fd, `${JSON.stringify(JournalEventSchema.parse(event))}\n`);
  }

  close(): void {
    closeSync(this.fd);
  }
}
