/**
 * watch's warm type checker (scripts/lib/warm-types.ts): every save is checked afresh on the warm
 * program (an error a save brings is reported, its undoing is clean again), and where the child
 * is gone or slow, the check still answers, from a fresh type check.
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { WarmTypes } from "../../scripts/lib/warm-types.ts";

let dir: string;
let types: WarmTypes;
const file = () => join(dir, "agent.ts");
const CLEAN = `export function double(n: number): number {\n  return n * 2;\n}\n`;
const BROKEN = `${CLEAN}export const oops: number = double("2");\n`;

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), "course-warm-types-"));
  writeFileSync(join(dir, "package.json"), JSON.stringify({ type: "module" })); // as the course's own
  writeFileSync(file(), CLEAN);
  types = new WarmTypes();
  types.start(dir);
});
afterAll(() => {
  types?.close();
  rmSync(dir, { recursive: true, force: true });
});

describe("watch's warm type checker", () => {
  it("checks each save afresh: clean, then the error a save brings, then clean again", async () => {
    expect(await types.check(dir, 60_000)).toEqual([]);
    writeFileSync(file(), BROKEN);
    const found = await types.check(dir, 60_000);
    expect(found).toHaveLength(1);
    expect(found[0]!.where).toMatch(/agent\.ts:4:36$/);
    expect(found[0]!.message).toMatch(/not assignable to parameter of type 'number'.*\(TS2345\)$/);
    writeFileSync(file(), CLEAN);
    expect(await types.check(dir, 60_000)).toEqual([]);
  }, 120_000);

  it("still answers when its child is gone (it starts again) or gives no answer in time (a fresh check)", async () => {
    writeFileSync(file(), BROKEN);
    types.close();
    expect((await types.check(dir, 60_000)).map((p) => p.where)).toEqual([expect.stringMatching(/agent\.ts:4:36$/)]);
    const slow = new WarmTypes(); // not started: its first answer cannot come within 1 ms
    try {
      expect((await slow.check(dir, 1)).map((p) => p.where)).toEqual([expect.stringMatching(/agent\.ts:4:36$/)]);
    } finally {
      slow.close();
    }
  }, 120_000);
});
