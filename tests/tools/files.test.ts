/**
 * The file tools (runtime/tools/files.ts): read, write, edit, list, relative to a root; clear
 * ToolErrors for what the model can fix; edit_file replaces exactly one exact occurrence.
 */
import { spawnSync } from "node:child_process";
import { existsSync } from "node:fs";
import { readFile as fsReadFile, link, mkdtemp, symlink, writeFile as fsWriteFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { scratchWorkspaces } from "../support.ts";
import {
  READ_MAX_CHARS,
  ToolError,
  countOccurrences,
  editFile,
  globToRegExp,
  listFiles,
  readFile,
  scratchCopy,
  writeFile,
} from "../../runtime/tools/files.ts";

const { ws, keep } = scratchWorkspaces("files-test-");

describe("readFile", () => {
  it("reads a file relative to the root", async () => {
    const root = await ws({ "src/a.txt": "hello\n" });
    expect(await readFile(root, "src/a.txt")).toBe("hello\n");
    expect(await readFile(root, "./src/../src/a.txt")).toBe("hello\n");
  });

  it("fails with a ToolError naming the path when the file is missing or is a folder", async () => {
    const root = await ws({ "src/a.txt": "x" });
    await expect(readFile(root, "src/nope.txt")).rejects.toThrow(ToolError);
    await expect(readFile(root, "src/nope.txt")).rejects.toThrow(/no file at src\/nope\.txt/);
    await expect(readFile(root, "src")).rejects.toThrow(/is a folder/);
    await expect(readFile(root, "")).rejects.toThrow(/path is empty/);
  });

  it("cuts long files and says how much was left out", async () => {
    const root = await ws({ "big.txt": "y".repeat(READ_MAX_CHARS + 10) });
    const out = await readFile(root, "big.txt");
    expect(out.startsWith("y".repeat(READ_MAX_CHARS))).toBe(true);
    expect(out).toContain("10 of");
    expect(await readFile(root, "big.txt", 5)).toMatch(/^yyyyy\n… \[cut: /);
  });
});

describe("writeFile", () => {
  it("creates folders and replaces a whole file", async () => {
    const root = await ws();
    expect(await writeFile(root, "deep/er/x.txt", "one")).toContain("deep/er/x.txt");
    await writeFile(root, "deep/er/x.txt", "two");
    expect(await fsReadFile(join(root, "deep/er/x.txt"), "utf8")).toBe("two");
  });
});

describe("editFile", () => {
  it("replaces the one exact occurrence and leaves the rest alone", async () => {
    const root = await ws({ "a.js": "const a = 1;\nconst b = 2;\n" });
    expect(await editFile(root, "a.js", "b = 2", "b = 3")).toContain("replaced 1");
    expect(await fsReadFile(join(root, "a.js"), "utf8")).toBe("const a = 1;\nconst b = 3;\n");
  });

  it("fails clearly, writing nothing, when the old text is missing", async () => {
    const root = await ws({ "a.js": "const a = 1;\n" });
    await expect(editFile(root, "a.js", "const  a", "x")).rejects.toThrow(/old_text was not found in a\.js/);
    expect(await fsReadFile(join(root, "a.js"), "utf8")).toBe("const a = 1;\n");
  });

  it("fails clearly, writing nothing, when the old text is not unique", async () => {
    const root = await ws({ "a.js": "x = 1;\nx = 1;\nx = 1;\n" });
    await expect(editFile(root, "a.js", "x = 1;", "x = 2;")).rejects.toThrow(/occurs 3 times in a\.js/);
    expect(await fsReadFile(join(root, "a.js"), "utf8")).toBe("x = 1;\nx = 1;\nx = 1;\n");
  });

  it("refuses an empty old text and a missing file with a ToolError", async () => {
    const root = await ws({ "a.js": "a" });
    await expect(editFile(root, "a.js", "", "b")).rejects.toThrow(ToolError);
    await expect(editFile(root, "missing.js", "a", "b")).rejects.toThrow(/no file at missing\.js/);
  });

  it("property: an edit succeeds exactly when old text occurs once, and then changes only that occurrence", async () => {
    const root = await ws();
    const piece = fc.constantFrom("a", "b", "ab", "\n", " ", "$&", "x");
    await fc.assert(
      fc.asyncProperty(fc.array(piece, { maxLength: 12 }), fc.array(piece, { minLength: 1, maxLength: 3 }), fc.string({ maxLength: 5 }), async (parts, old, replacement) => {
        const before = parts.join("");
        const oldText = old.join("");
        await writeFile(root, "p.txt", before);
        const count = countOccurrences(before, oldText);
        let threw: unknown = null;
        try {
          await editFile(root, "p.txt", oldText, replacement);
        } catch (e) {
          threw = e;
        }
        const after = await fsReadFile(join(root, "p.txt"), "utf8");
        if (count === 1) {
          expect(threw).toBeNull();
          const at = before.indexOf(oldText);
          expect(after).toBe(before.slice(0, at) + replacement + before.slice(at + oldText.length));
        } else {
          expect(threw).toBeInstanceOf(ToolError);
          expect(after).toBe(before);
        }
      }),
      { numRuns: 150 },
    );
  });
});

describe("listFiles and globs", () => {
  it("lists files recursively, sorted, relative to the root, skipping node_modules and .git", async () => {
    const root = await ws({ "b.txt": "", "src/a.ts": "", "src/lib/c.ts": "", "node_modules/x/i.js": "", ".git/HEAD": "" });
    expect((await listFiles(root)).split("\n")).toEqual(["b.txt", "src/a.ts", "src/lib/c.ts"]);
    expect((await listFiles(root, "src")).split("\n")).toEqual(["src/a.ts", "src/lib/c.ts"]);
  });

  it("filters with a glob, and says so when nothing matches", async () => {
    const root = await ws({ "b.txt": "", "src/a.ts": "", "src/lib/c.ts": "" });
    expect((await listFiles(root, ".", "*.ts")).split("\n")).toEqual(["src/a.ts", "src/lib/c.ts"]);
    expect((await listFiles(root, ".", "src/*.ts")).split("\n")).toEqual(["src/a.ts"]);
    expect((await listFiles(root, ".", "src/**/*.ts")).split("\n")).toEqual(["src/a.ts", "src/lib/c.ts"]);
    expect(await listFiles(root, ".", "*.md")).toBe("(no files match *.md)");
  });

  it("caps a long listing and says how many were left out", async () => {
    const files = Object.fromEntries(Array.from({ length: 12 }, (_, i) => [`f${String(i).padStart(2, "0")}.txt`, ""]));
    const out = await listFiles(await ws(files), ".", undefined, 10);
    expect(out.split("\n").slice(0, 10)).toHaveLength(10);
    expect(out).toContain("2 more files not shown");
  });

  it("fails with a ToolError for a folder that does not exist", async () => {
    await expect(listFiles(await ws(), "nope")).rejects.toThrow(/no folder at nope/);
  });

  it("globToRegExp: * stays in one folder, ** crosses folders, ? is one character, dots are literal", () => {
    expect(globToRegExp("src/*.ts").test("src/a.ts")).toBe(true);
    expect(globToRegExp("src/*.ts").test("src/x/a.ts")).toBe(false);
    expect(globToRegExp("src/**/*.ts").test("src/x/y/a.ts")).toBe(true);
    expect(globToRegExp("?.md").test("a.md")).toBe(true);
    expect(globToRegExp("?.md").test("ab.md")).toBe(false);
    expect(globToRegExp("*.ts").test("axts")).toBe(false);
  });
});

describe("scratch workspaces", () => {
  it("scratchCopy copies a folder without node_modules, and the copy is independent", async () => {
    const src = await ws({ "a.txt": "original", "node_modules/m/i.js": "" });
    const copy = await scratchCopy(src, "files-test-copy-");
    keep(copy);
    expect(copy).not.toBe(src);
    expect(await listFiles(copy)).not.toContain("node_modules");
    await writeFile(copy, "a.txt", "changed");
    expect(await readFile(src, "a.txt")).toBe("original");
  });
});

describe("every open is checked on the opened file, not on the path string", () => {
  const execFileSync = (cmd: string, args: string[]) => spawnSync(cmd, args, { stdio: "ignore" });
  async function outside(): Promise<string> {
    const dir = await mkdtemp(join(tmpdir(), "files-outside-"));
    keep(dir);
    await fsWriteFile(join(dir, "secret.txt"), "SECRET-OUTSIDE\n");
    return dir;
  }

  it("a FIFO (or four) is refused at once, and later file operations still work", async () => {
    const root = await ws({ "a.txt": "alpha" });
    for (const n of [1, 2, 3, 4]) execFileSync("mkfifo", [join(root, `fifo${n}`)]);
    for (const n of [1, 2, 3, 4]) {
      await expect(readFile(root, `fifo${n}`)).rejects.toThrow(/not a regular file/);
      await expect(writeFile(root, `fifo${n}`, "x")).rejects.toThrow(/not a regular file/);
      await expect(editFile(root, `fifo${n}`, "a", "b")).rejects.toThrow(/not a regular file/);
    }
    expect(await readFile(root, "a.txt")).toBe("alpha");
  });

  it("a file with a second hard link is refused (it may be a file outside), and is not changed", async () => {
    const out = await outside();
    const root = await ws({});
    await link(join(out, "secret.txt"), join(root, "hard.txt"));
    await expect(readFile(root, "hard.txt")).rejects.toThrow(/hard links/);
    await expect(writeFile(root, "hard.txt", "pwned")).rejects.toThrow(/hard links/);
    await expect(editFile(root, "hard.txt", "SECRET", "pwned")).rejects.toThrow(/hard links/);
    expect(await fsReadFile(join(out, "secret.txt"), "utf8")).toBe("SECRET-OUTSIDE\n");
  });

  it("a symbolic link as the file is not followed; a linked folder on the way is caught by the real path of the opened file", async () => {
    const out = await outside();
    const root = await ws({});
    await symlink(join(out, "secret.txt"), join(root, "link.txt"));
    await symlink(out, join(root, "dir"));
    await expect(readFile(root, "link.txt")).rejects.toThrow(/symbolic link/);
    await expect(writeFile(root, "link.txt", "pwned")).rejects.toThrow(/symbolic link/);
    // As if the folder had been swapped for a link after a path check: the opened file is outside.
    await expect(readFile(root, "dir/secret.txt")).rejects.toThrow(/outside the workspace/);
    await expect(editFile(root, "dir/secret.txt", "SECRET", "pwned")).rejects.toThrow(/outside the workspace/);
    await expect(writeFile(root, "dir/new.txt", "pwned")).rejects.toThrow(/outside the workspace/);
    await expect(writeFile(root, "dir/deeper/new.txt", "pwned")).rejects.toThrow(/outside the workspace/);
    await expect(listFiles(root, "dir")).rejects.toThrow(/symbolic link/);
    expect(await fsReadFile(join(out, "secret.txt"), "utf8")).toBe("SECRET-OUTSIDE\n");
    expect(existsSync(join(out, "new.txt")) || existsSync(join(out, "deeper"))).toBe(false);
  });
});
