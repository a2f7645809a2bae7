/**
 * A JSON config file checked with a zod schema: the settings files of s18 and s19, the MCP
 * config of s17. One way to read them, so every mistake reads the same: the file, the field, what
 * is wrong, and what the file should look like.
 */
import { existsSync, readFileSync } from "node:fs";
import type { z } from "zod";

/**
 * The file's data as the schema reads it, or undefined when there is no such file. A file that is
 * not JSON, or does not fit, throws `fail(message)` (the caller's own error class): "<file>: <field>:
 * <what is wrong>. Expected <expected>".
 */
export function readConfigFile<S extends z.ZodType>(file: string, schema: S, expected: string, fail: (message: string) => Error): z.output<S> | undefined {
  if (!existsSync(file)) return undefined;
  let raw: unknown;
  try {
    raw = JSON.parse(readFileSync(file, "utf8"));
  } catch (e) {
    throw fail(`${file}: not valid JSON (${(e as Error).message})`);
  }
  const parsed = schema.safeParse(raw);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    throw fail(`${file}: ${issue.path.join(".") || "(the file)"}: ${issue.message}. Expected ${expected}`);
  }
  return parsed.data;
}
