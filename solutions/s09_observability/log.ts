/**
 * s09 · a logger: one EventSink that prints events for a person, at two levels.
 *
 *   normal     what the model says, each tool call and a one-line result, how the run ended, totals
 *   --verbose  also each turn (stop_reason, tokens, cost, time) and every tool's output
 */
import { bold, clip, dim, green, red, say, yellow } from "../../runtime/print.ts";
import { textOf } from "../../runtime/transcript.ts";
import { describeOutcome } from "../../solutions/s05_stop_reasons/outcome.ts";
import type { AgentEvent, EventSink } from "./events.ts";
import { formatUsage } from "./usage.ts";

export interface LoggerOptions {
  verbose?: boolean;
  /** Where lines go (default: the lessons' output). */
  write?: (line: string) => void;
}

// #region logger
export function createLogger(opts: LoggerOptions = {}): EventSink {
  const sayLine = opts.write ?? say;
  // A read-only call may start (act, observe) while its answer is still streaming, before the
  // answer's think event: its lines wait for the think that announces the call, so the text that
  // says what the calls are for comes first.
  const announced = new Set<string>();
  let held: Array<{ id: string; line: string }> = [];
  const write = (line: string, id?: string) => (id === undefined || announced.has(id) ? sayLine(line) : held.push({ id, line }));
  const flush = (all: boolean) => {
    const ready = held.filter((h) => all || announced.has(h.id));
    held = held.filter((h) => !ready.includes(h));
    for (const h of ready) sayLine(h.line);
  };
  return (e: AgentEvent) => {
    switch (e.type) {
      case "think": {
        if (opts.verbose)
          write(dim(`turn ${e.turn} · stop_reason ${e.message.stop_reason} · ${formatUsage(e.usage)} · ${e.ms} ms`));
        const said = e.message.content.flatMap((b) => (b.type === "text" ? [b.text] : [])).join("\n");
        if (said) write(said);
        for (const b of e.message.content) if (b.type === "tool_use") announced.add(b.id);
        flush(false);
        break;
      }
      case "act":
        write(`${yellow("→")} ${e.call.name} ${JSON.stringify(e.call.input)}`, e.call.id);
        break;
      case "observe": {
        const text = textOf(e.result.content);
        const first = text.split("\n").find((l) => l.trim() !== "") ?? "(no output)";
        if (opts.verbose) write((e.result.is_error ? red : dim)(clip(text.trimEnd(), 1500).split("\n").map((l) => `    ${l}`).join("\n")), e.call.id);
        else write(e.result.is_error ? red(`  ✗ ${first}`) : dim(`  ✓ ${text.length} characters, ${e.ms} ms`), e.call.id);
        break;
      }
      case "stop":
        // Calls of an answer that never completed (a stream cut, the deadline) are shown as they ran.
        flush(true);
        write(
          `${e.outcome.status === "done" ? green("■") : red("■")} ${bold(describeOutcome(e.outcome))} ${dim(
            `· ${e.totals.turns} turn(s), ${formatUsage(e.totals)} · ${e.ms} ms`,
          )}`,
        );
        break;
    }
  };
}
// #endregion logger
