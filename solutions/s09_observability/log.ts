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
  const write = opts.write ?? say;
  return (e: AgentEvent) => {
    switch (e.type) {
      case "think": {
        if (opts.verbose)
          write(dim(`turn ${e.turn} · stop_reason ${e.message.stop_reason} · ${formatUsage(e.usage)} · ${e.ms} ms`));
        const said = e.message.content.flatMap((b) => (b.type === "text" ? [b.text] : [])).join("\n");
        if (said) write(said);
        break;
      }
      case "act":
        write(`${yellow("→")} ${e.call.name} ${JSON.stringify(e.call.input)}`);
        break;
      case "observe": {
        const text = textOf(e.result.content);
        const first = text.split("\n").find((l) => l.trim() !== "") ?? "(no output)";
        if (opts.verbose) write((e.result.is_error ? red : dim)(clip(text.trimEnd(), 1500).split("\n").map((l) => `    ${l}`).join("\n")));
        else write(e.result.is_error ? red(`  ✗ ${first}`) : dim(`  ✓ ${text.length} characters, ${e.ms} ms`));
        break;
      }
      case "stop":
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
