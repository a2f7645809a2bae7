/**
 * test:all says its failing tests again at the very end (scripts/lib/vitest-report.ts): the steps
 * after a vitest step print hundreds of lines, and a log read from its tail (CI's) must still name
 * the test that failed, where, and why. Checked on a report a real vitest run wrote.
 */
import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { ROOT } from "../../scripts/lib/paths.ts";
import { failingTests } from "../../scripts/lib/vitest-report.ts";

describe("test:all's recap of what failed", () => {
  const dir = mkdtempSync(join(tmpdir(), "recap-"));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it("names each failing test (file, name, the first line of its assertion) and a file that failed as it loaded, and no passing one", () => {
    writeFileSync(join(dir, "a.test.mjs"), `import { describe, expect, it } from "vitest";\ndescribe("group", () => {\n  it("fails here", () => expect(1, "one is not two: fix it").toBe(2));\n  it("passes", () => {});\n});\n`);
    writeFileSync(join(dir, "b.test.mjs"), `throw new Error("broken as it loads");\n`);
    const report = join(dir, "report.json");
    const r = spawnSync(process.execPath, [join(ROOT, "node_modules/vitest/vitest.mjs"), "run", "--root", dir, "--reporter=json", `--outputFile.json=${report}`], { cwd: ROOT, encoding: "utf8", env: { ...process.env, NODE_PATH: join(ROOT, "node_modules") } });
    expect(r.status, `the sample run must fail (it has a failing test): ${r.stderr.slice(0, 500)}`).toBe(1);
    const lines = failingTests("sample", report, dir);
    expect(lines, "one line for the failing test, one for the file that did not load").toHaveLength(2);
    expect(lines).toContainEqual(expect.stringMatching(/^sample: a\.test\.mjs › group fails here: AssertionError: one is not two: fix it/));
    expect(lines).toContainEqual("sample: b.test.mjs: broken as it loads");
    expect(lines.join("\n"), "a passing test is not a failure").not.toMatch(/passes/);
  });

  it("says so when vitest left no report, or one it cannot read, instead of crashing", () => {
    expect(failingTests("sample", join(dir, "none.json"), dir)[0]).toMatch(/vitest left no report \(none\.json\)/);
    writeFileSync(join(dir, "cut.json"), `{"testResults": [`);
    expect(failingTests("sample", join(dir, "cut.json"), dir)[0]).toMatch(/report cut\.json cannot be read/);
  });
});
