/**
 * The long commands' own failures in words (scripts/lib/failure.ts): a process past its time
 * limit, a program that is not installed, anything else; and COURSE_TIME_SCALE.
 */
import { spawnSync } from "node:child_process";
import { readFileSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { ROOT } from "../../runtime/testing.ts";
import { failureWords, timeScale, timeScaled } from "../../scripts/lib/failure.ts";

describe("a long command's failure, in words", () => {
  it("a process past its time limit: what, why, and what to do; never the raw error alone", () => {
    const r = spawnSync("/bin/sh", ["-c", "sleep 5"], { timeout: 50 });
    expect(r.error?.message, "the raw error this turns into words").toMatch(/spawnSync \/bin\/sh ETIMEDOUT/);
    const words = failureWords("npm run reliability", r.error);
    expect(words).toMatch(/^npm run reliability: \/bin\/sh -c sleep 5 did not finish within its time limit/);
    expect(words).toMatch(/COURSE_TIME_SCALE=3/);
  });

  it("a program that is not installed, and anything else", () => {
    const r = spawnSync("no-such-program-of-the-course", []);
    expect(failureWords("npm run eval", r.error)).toMatch(/^npm run eval: no-such-program-of-the-course is not installed/);
    expect(failureWords("npm run bench", new Error("first line\nsecond"))).toBe(
      "npm run bench stopped on an unexpected error: first line. Run it again; if it happens again, COURSE_DEBUG=1 shows where (the stack), to report.",
    );
  });

  it("every process a long command waits for (spawnSync, execFileSync, execSync) has a time limit, or is the person's own to see (stdio inherit)", () => {
    const unlimited: string[] = [];
    for (const dir of ["bench", "reliability", "eval", "mutation"])
      for (const f of readdirSync(join(ROOT, "scripts", dir), { recursive: true, encoding: "utf8" })) {
        if (!f.endsWith(".ts")) continue;
        const src = readFileSync(join(ROOT, "scripts", dir, f), "utf8");
        for (const m of src.matchAll(/\b(?:spawnSync|execFileSync|execSync)\(/g)) {
          let end = m.index + m[0].length - 1;
          for (let depth = 0; end < src.length; end++) if (src[end] === "(") depth++; else if (src[end] === ")" && --depth === 0) break;
          const call = src.slice(m.index, end + 1);
          if (!/\btimeout\b/.test(call) && !/stdio: "inherit"/.test(call)) unlimited.push(`scripts/${dir}/${f}:${src.slice(0, m.index).split("\n").length}: ${call.replace(/\s+/g, " ").slice(0, 100)}`);
        }
      }
    expect(unlimited, "a call that can wait forever: give it a timeout (timeScaled) and say its error in words (throw it: reportFailures does)").toEqual([]);
  });

  it("COURSE_TIME_SCALE multiplies the limits that depend on the machine's speed; nonsense is 1", () => {
    expect(timeScaled(30_000, { COURSE_TIME_SCALE: "3" })).toBe(90_000);
    expect(timeScale({})).toBe(1);
    expect(timeScale({ COURSE_TIME_SCALE: "0.1" })).toBe(1);
    expect(timeScale({ COURSE_TIME_SCALE: "fast" })).toBe(1);
  });
});
