/**
 * Reading `.env` and the environment. A missing key is not an error (it means offline); a
 * `.env` that cannot be read as KEY=value lines is, with the line that is wrong.
 */
import { existsSync, readFileSync } from "node:fs";
import { resolve } from "node:path";
import dotenv from "dotenv";

export class CourseError extends Error {
  override name = "CourseError";
}

const LINE = /^\s*(export\s+)?[A-Za-z_][A-Za-z0-9_.-]*\s*=.*$/;

/** Checks `.env` line by line; returns the first problem, or null. */
export function envFileProblem(text: string): string | null {
  if (text.includes("\u0000")) return ".env is not a text file (it contains NUL bytes)";
  const lines = text.split(/\r?\n/);
  let inQuote: string | null = null;
  for (let n = 0; n < lines.length; n++) {
    const line = lines[n]!;
    if (inQuote) {
      if (line.includes(inQuote)) inQuote = null;
      continue;
    }
    if (line.trim() === "" || line.trim().startsWith("#")) continue;
    if (!LINE.test(line)) return `.env line ${n + 1} is not KEY=value: ${JSON.stringify(line.slice(0, 60))}`;
    const value = line.slice(line.indexOf("=") + 1).trim();
    const q = value[0];
    if ((q === '"' || q === "'" || q === "`") && value.indexOf(q, 1) < 0) inQuote = q;
  }
  if (inQuote) return `.env has a quote (${inQuote}) that is never closed`;
  return null;
}

let loaded = false;

/** Loads `.env` from the current directory once (values already in the environment win). */
export function loadEnv(path = resolve(process.cwd(), ".env")): void {
  if (loaded) return;
  loaded = true;
  if (!existsSync(path)) return;
  const problem = envFileProblem(readFileSync(path, "utf8"));
  if (problem) throw new CourseError(`${problem}. Fix it (see .env.example) or delete .env to run offline.`);
  dotenv.config({ path, quiet: true });
}
