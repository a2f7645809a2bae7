/**
 * What a vitest run's JSON report (`--reporter=json --outputFile.json=…`) says failed, one line per
 * failing test: test:all says them again at its very end (scripts/test-all.ts), where a log read
 * from its tail still shows them.
 */
import { existsSync, readFileSync } from "node:fs";
import { relative } from "node:path";
import { ROOT } from "./paths.ts";

/** One line per failing test of a vitest JSON report: its file, its name, the first line of why. */
export function failingTests(project: string, report: string, root = ROOT): string[] {
  if (!existsSync(report)) return [`${project}: vitest left no report (${relative(root, report)}): it stopped before its tests ran; its own output above says why`];
  let json: { testResults?: { name: string; message?: string; assertionResults?: { fullName: string; status: string; failureMessages?: string[] }[] }[] };
  try {
    json = JSON.parse(readFileSync(report, "utf8")) as typeof json;
  } catch (e) {
    return [`${project}: vitest's report ${relative(root, report)} cannot be read (${(e as Error).message}): its own output above says what failed`];
  }
  const lines: string[] = [];
  for (const file of json.testResults ?? []) {
    const where = relative(root, file.name);
    const failed = (file.assertionResults ?? []).filter((a) => a.status === "failed");
    for (const a of failed) lines.push(`${project}: ${where} › ${a.fullName}: ${firstLine(a.failureMessages?.[0])}`);
    // A file that failed as a whole (it did not load, a hook threw) has no failing test of its own.
    if (failed.length === 0 && file.message) lines.push(`${project}: ${where}: ${firstLine(file.message)}`);
  }
  return lines.length ? lines : [`${project}: vitest failed, and its report names no failing test: its own output above says why`];
}

const firstLine = (text = "") => text.split("\n").find((l) => l.trim())?.trim().slice(0, 300) ?? "(no message)";
