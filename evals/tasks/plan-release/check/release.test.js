import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { test } from "node:test";
import { average, largest } from "../src/math.js";
import { VERSION } from "../src/version.js";

test("average of nothing is 0", () => assert.equal(average([]), 0));
test("average still right", () => assert.equal(average([1, 2, 3]), 2));
test("largest returns the maximum", () => assert.equal(largest([4, 9, 2]), 9));
test("largest of nothing is -Infinity", () => assert.equal(largest([]), -Infinity));
test("the version is 1.3.1", () => assert.equal(VERSION, "1.3.1"));
test("the changelog has a 1.3.1 section above 1.3.0", () => {
  const log = readFileSync(new URL("../CHANGELOG.md", import.meta.url), "utf8");
  assert.ok(log.includes("## 1.3.1"), "no ## 1.3.1 heading");
  assert.ok(log.indexOf("## 1.3.1") < log.indexOf("## 1.3.0"), "1.3.1 is not above 1.3.0");
});
