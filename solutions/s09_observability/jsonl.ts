/**
 * s09 · every run written down: one JSON object per line under .course/runs/ (git-ignored).
 *
 *   {"type":"run","lesson":"s09_observability","model":"…","task":"…","started":"2026-…"}
 *   {"type":"think","turn":1,"ms":12,"usage":{…},"message":{…the Message…}}
 *   {"type":"act","turn":1,"call":{…tool_use…}}
 *   {"type":"observe","turn":1,"ms":3,"call":{…},"result":{…tool_result…}}
 *   {"type":"stop","turn":3,"ms":40,"outcome":{…},"totals":{…}}
 *   {"type":"transcript","messages":[…the whole history, ready to send again…]}
 *
 * Lines are appended as they happen, so a run that crashes still leaves what it did. The last
 * line is the transcript: the docs' transcript viewer opens such a file.
 */
import { appendFileSync, mkdirSync, readFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import type Anthropic from "@anthropic-ai/sdk";
import { z } from "zod";
import type { AgentEvent, EventSink } from "./events.ts";

/** .course/runs at the top of the course repository, or COURSE_RUNS_DIR (the test suite's own temporary folder). */
export const RUNS_DIR = process.env.COURSE_RUNS_DIR?.trim() || resolve(dirname(fileURLToPath(import.meta.url)), "../../.course/runs");

// #region run-log
export class RunLog {
  readonly path: string;

  constructor(meta: { lesson: string; model: string; task: string }, dir = RUNS_DIR) {
    mkdirSync(dir, { recursive: true });
    const stamp = new Date().toISOString().replace(/[:.]/g, "-");
    this.path = join(dir, `${stamp}-${meta.lesson}-${process.pid}.jsonl`);
    this.line({ type: "run", ...meta, started: new Date().toISOString() });
  }

  /** The sink to give the loop: every event becomes a line. */
  readonly sink: EventSink = (event: AgentEvent) => this.line(event);

  /** The last line: the transcript as it stands (call it however the run ended). */
  transcript(messages: readonly Anthropic.MessageParam[]): void {
    this.line({ type: "transcript", messages });
  }

  private line(value: { type: string } & Record<string, unknown>): void {
    appendFileSync(this.path, `${JSON.stringify(value)}\n`);
  }
}
// #endregion run-log

/** The shape every line has; the transcript line has its messages. */
export const RunLine = z.union([
  z.object({ type: z.literal("transcript"), messages: z.array(z.object({ role: z.enum(["user", "assistant"]), content: z.unknown() })) }),
  z.looseObject({ type: z.enum(["run", "think", "act", "observe", "stop"]) }),
]);
export type RunLine = z.infer<typeof RunLine>;

/** Reads a run file back, checking every line; says which line is wrong. */
export function readRun(path: string): RunLine[] {
  return readFileSync(path, "utf8")
    .split("\n")
    .filter((l) => l.trim() !== "")
    .map((l, i) => {
      const parsed = RunLine.safeParse(JSON.parse(l));
      if (!parsed.success) throw new Error(`${path} line ${i + 1} is not a run line: ${parsed.error.message}`);
      return parsed.data;
    });
}
