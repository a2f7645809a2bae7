/**
 * A JSON config file checked with a zod schema: the settings files of s18 and s19, the MCP
 * config of s17. One way to read them, so every mistake reads the same: the file, the field, what
 * is wrong, and what the file should look like.
 */
import { closeSync, constants, existsSync, fstatSync, openSync, readSync } from "node:fs";
import type { z } from "zod";

/** The largest config file read: its size is known before reading (a command may have made it). */
export const MAX_CONFIG_BYTES = 1_000_000;

/** The file's text; not a regular file (a FIFO would block), or larger than the cap: `fail`, before anything is read. */
function readText(file: string, fail: (message: string) => Error): string {
  // O_NONBLOCK: opening a FIFO with no writer returns at once (a plain read would wait forever).
  const fd = openSync(file, constants.O_RDONLY | constants.O_NONBLOCK);
  try {
    const st = fstatSync(fd);
    if (!st.isFile()) throw fail(`${file}: not a regular file (a FIFO, a device or a folder): remove it, or make it a JSON file`);
    if (st.size > MAX_CONFIG_BYTES) throw fail(`${file}: larger than ${MAX_CONFIG_BYTES} bytes (${st.size}): a settings file is a few rules; remove it or cut it down`);
    const buf = Buffer.alloc(st.size);
    let got = 0;
    while (got < buf.length) {
      const n = readSync(fd, buf, got, buf.length - got, got);
      if (n === 0) break;
      got += n;
    }
    return buf.subarray(0, got).toString("utf8");
  } finally {
    closeSync(fd);
  }
}

/**
 * The file's data as the schema reads it, or undefined when there is no such file. A file that is
 * not a regular file, is larger than MAX_CONFIG_BYTES, is not JSON, or does not fit, throws `fail(message)` (the caller's own error class): "<file>: <field>:
 * <what is wrong>. Expected <expected>".
 */
export function readConfigFile<S extends z.ZodType>(file: string, schema: S, expected: string, fail: (message: string) => Error): z.output<S> | undefined {
  if (!existsSync(file)) return undefined;
  const text = readText(file, fail);
  let raw: unknown;
  try {
    raw = JSON.parse(text);
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
