import assert from "node:assert/strict";
import { readdirSync, readFileSync } from "node:fs";
import { test } from "node:test";
import { capitalize, slugify } from "../src/text.js";

test("slugify lowers and joins words with -", () => assert.equal(slugify("Hello World"), "hello-world"));
test("slugify drops punctuation and extra spaces", () => assert.equal(slugify("  Agents, Loops & Tools! "), "agents-loops-tools"));
test("slugify keeps digits", () => assert.equal(slugify("Part 2"), "part-2"));
test("capitalize still works", () => assert.equal(capitalize("hello"), "Hello"));
test("the workspace's own tests cover slugify", () => {
  const tests = readdirSync(new URL("../test/", import.meta.url)).map((f) => readFileSync(new URL(`../test/${f}`, import.meta.url), "utf8"));
  assert.ok(tests.some((t) => /slugify\(/.test(t)), "no test in test/ calls slugify");
});
