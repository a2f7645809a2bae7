/**
 * The learner's test files share a worker's modules and its process (vitest.config.ts: isolate:
 * false), so what one file leaves in process.env would be the next file's: a file that sets
 * COURSE_SANDBOX=off as it loads would turn the sandbox off for every file after it, and their
 * sandbox tests would be skipped, silently. Each file's environment is put back as it found it when
 * the file ends (registered first, so it runs after every other file-end hook).
 */
import { afterAll } from "vitest";

const found = { ...process.env };
afterAll(() => {
  for (const name of Object.keys(process.env)) if (!(name in found)) delete process.env[name];
  for (const [name, value] of Object.entries(found)) if (process.env[name] !== value) process.env[name] = value;
});
