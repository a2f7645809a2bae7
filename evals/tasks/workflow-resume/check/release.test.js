import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { test } from "node:test";
import { VERSION } from "../src/version.js";

const read = (f) => readFileSync(new URL(`../${f}`, import.meta.url), "utf8");

// Each step changes a file: a step run twice shows (a second bump, a second section, a second announcement).
test("the version was raised once: 2.4.1", () => assert.equal(VERSION, "2.4.1"));
test("the changelog has one new section, 2.4.1, above 2.4.0", () => {
  const headings = read("CHANGELOG.md").match(/^## .+$/gm);
  assert.deepEqual(headings, ["## 2.4.1", "## 2.4.0", "## 2.3.0"]);
});
test("2.4.1 was announced once, after 2.4.0", () => {
  const lines = read("ANNOUNCEMENTS.md").trim().split("\n").filter((l) => l.startsWith("Released"));
  assert.deepEqual(lines, ["Released 2.3.0.", "Released 2.4.0.", "Released 2.4.1."]);
});
