/**
 * Reading `.env` and the environment. A missing key is not an error (it means offline); a
 * `.env` that cannot be read as KEY=value lines is, with the line that is wrong.
 */
import { existsSync, readFileSync, realpathSync } from "node:fs";
import { dirname, isAbsolute, relative, resolve, sep } from "node:path";
import { fileURLToPath } from "node:url";
import dotenv from "dotenv";

/** The course checkout: its .env is the one configuration file, read once, before a run's first line. */
export const COURSE_ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "..");

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

/**
 * Loads the course's `.env` once (values already in the environment win). Never a workspace's:
 * the file is in the course checkout, which is never a workspace, hidden from the sandbox and out
 * of reach of the file tools, so a tool cannot write the configuration of a later run.
 */
export function loadEnv(path = resolve(COURSE_ROOT, ".env")): void {
  if (loaded.has(path)) return;
  if (!existsSync(path)) return;
  const problem = envFileProblem(readFileSync(path, "utf8"));
  if (problem) throw new CourseError(`${problem}. Fix it (see .env.example) or delete .env to run offline.`);
  dotenv.config({ path, quiet: true });
  loaded.add(path);
}

/**
 * Why `workspace` may not be an agent's workspace, or null: the course checkout itself, or a
 * folder that holds it (its .env holds the key, .course/ the runs and sessions, node_modules/.bin
 * the programs npm puts first in PATH). `given` says whether --workspace named it.
 */
export function courseWorkspaceProblem(workspace: string, given: boolean): string | null {
  // Real paths on both sides: a link to the course is the course.
  const real = (p: string) => {
    try {
      return realpathSync(p);
    } catch {
      return resolve(p);
    }
  };
  const rel = relative(real(workspace), real(COURSE_ROOT));
  const holdsCourse = rel === "" || (rel !== ".." && !rel.startsWith(`..${sep}`) && !isAbsolute(rel));
  if (!holdsCourse) return null;
  const what = rel === "" ? "the course checkout itself" : `a folder that holds the course checkout (${COURSE_ROOT})`;
  const why = "its .env holds your key and .course/ your runs and sessions, so it is never an agent's workspace";
  const how = "Choose one with --workspace, e.g. a copy of an example: cp -r examples/login-service /tmp/login && npm run agent -- --workspace /tmp/login";
  return given ? `--workspace ${workspace} is ${what}: ${why}. ${how}` : `no --workspace, and the current folder is ${what}: ${why}. ${how}`;
}
