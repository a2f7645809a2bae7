/**
 * runtime/tools/inside.ts: the files the course reads, writes and deletes FOR the model (s21's
 * rewind, s23's grader) in a folder its commands can change. A link a command made, as the file
 * or as a folder on the way, is never followed; a hard link is refused; a read is capped before it
 * starts. Each case names a file outside that must stay as it was.
 */
import { existsSync, linkSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, truncateSync, writeFileSync, lstatSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { InsideError, readInside, removeInside, writeInside } from "../../runtime/tools/inside.ts";

const made: string[] = [];
afterEach(() => {
  for (const d of made.splice(0)) rmSync(d, { recursive: true, force: true });
});
function layout() {
  const dir = mkdtempSync(join(tmpdir(), "inside-"));
  made.push(dir);
  const ws = join(dir, "ws");
  const out = join(dir, "out");
  mkdirSync(ws);
  mkdirSync(out);
  writeFileSync(join(out, "victim.txt"), "victim\n");
  symlinkSync(join(out, "victim.txt"), join(ws, "file-link"));
  symlinkSync(out, join(ws, "dir-link"));
  return { ws, out, victim: () => readFileSync(join(out, "victim.txt"), "utf8") };
}

describe("inside.ts: no link a command made is followed out of the folder", () => {
  it("writeInside refuses a link as the file and as a folder on the way; the file outside is unchanged", () => {
    const { ws, out, victim } = layout();
    expect(() => writeInside(ws, "file-link", "pwned"), "a link as the file").toThrow(InsideError);
    expect(() => writeInside(ws, "dir-link/victim.txt", "pwned"), "a link as a folder on the way").toThrow(/dir-link is a symbolic link/);
    expect(() => writeInside(ws, "dir-link/new.txt", "pwned"), "a new file under a linked folder").toThrow(InsideError);
    expect(victim()).toBe("victim\n");
    expect(existsSync(join(out, "new.txt"))).toBe(false);
    writeInside(ws, "a/b/c.txt", "fine");
    expect(readFileSync(join(ws, "a/b/c.txt"), "utf8"), "a plain path inside, its folders made").toBe("fine");
  });

  it("writeInside refuses a file with a second name (a hard link may be a file outside)", () => {
    const { ws, victim, out } = layout();
    linkSync(join(out, "victim.txt"), join(ws, "hard.txt"));
    expect(() => writeInside(ws, "hard.txt", "pwned")).toThrow(/hard links/);
    expect(victim()).toBe("victim\n");
  });

  it("removeInside removes a link itself, never what it points to, and refuses a linked folder on the way", () => {
    const { ws, victim } = layout();
    expect(() => removeInside(ws, "dir-link/victim.txt")).toThrow(InsideError);
    expect(victim()).toBe("victim\n");
    removeInside(ws, "file-link");
    expect(lstatSync(join(ws, "file-link"), { throwIfNoEntry: false }), "the link itself is gone").toBeUndefined();
    expect(victim()).toBe("victim\n");
    expect(() => removeInside(ws, "missing/nothing.txt"), "nothing there: nothing to do").not.toThrow();
  });

  it("readInside does not read through a link, and reads a huge file only up to its cap, saying so", () => {
    const { ws } = layout();
    expect(() => readInside(ws, "file-link")).toThrow(InsideError);
    expect(() => readInside(ws, "dir-link/victim.txt")).toThrow(InsideError);
    expect(readInside(ws, "no-such.txt")).toBeNull();
    writeFileSync(join(ws, "huge.txt"), "start");
    truncateSync(join(ws, "huge.txt"), 600_000_000);
    const r = readInside(ws, "huge.txt", 1024)!;
    expect([r.bytes.length, r.size, r.cut, r.bytes.subarray(0, 5).toString()]).toEqual([1024, 600_000_000, true, "start"]);
    expect(() => readInside(ws, "../out/victim.txt"), "a path that leaves the folder").toThrow(InsideError);
  });
});
