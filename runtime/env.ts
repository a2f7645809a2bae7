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
  const lines = text.split(/\r?\n/);
  const binary = lines.findIndex((l) => l.includes("\u0000") || l.includes("\uFFFD"));
  if (binary >= 0) return `.env line ${binary + 1} is not text (.env must be a plain UTF-8 text file of KEY=value lines)`;
  let inQuote: string | null = null;
  let quoteLine = 0;
  for (let n = 0; n < lines.length; n++) {
    const line = lines[n]!;
    if (inQuote) {
      if (line.includes(inQuote)) inQuote = null;
      continue;
    }
    if (line.trim() === "" || line.trim().startsWith("#")) continue;
    // The line itself is never quoted back: it may hold a key.
    if (!LINE.test(line)) return `.env line ${n + 1} is not a KEY=value line (nor a # comment)`;
    const value = line.slice(line.indexOf("=") + 1).trim();
    const q = value[0];
    if ((q === '"' || q === "'" || q === "`") && value.indexOf(q, 1) < 0) {
      inQuote = q;
      quoteLine = n + 1;
    }
  }
  if (inQuote) return `.env line ${quoteLine} opens a quote (${inQuote}) that is never closed`;
  return null;
}

const loaded = new Set<string>();

/** Loads `.env` from the current directory once (values already in the environment win). */
export function loadEnv(path = resolve(process.cwd(), ".env")): void {
  if (loaded.has(path)) return;
  if (!existsSync(path)) return;
  const problem = envFileProblem(readFileSync(path, "utf8"));
  if (problem) throw new CourseError(`${problem}. Fix it (see .env.example) or delete .env to run offline.`);
  dotenv.config({ path, quiet: true });
  loaded.add(path);
}
