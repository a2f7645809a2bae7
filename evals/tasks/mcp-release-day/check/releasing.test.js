import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { test } from "node:test";

const text = readFileSync(new URL("../RELEASING.md", import.meta.url), "utf8");
test("RELEASING.md names the release day from the team's notes", () => assert.match(text, /^Release day: Tuesday\.?$/im));
test("the steps are still there", () => {
  assert.match(text, /1\. Run the tests\./);
  assert.match(text, /2\. Tag the release\./);
});
