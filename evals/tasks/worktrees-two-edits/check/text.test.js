import assert from "node:assert/strict";
import { test } from "node:test";
import { titleCase, truncate, wordCount } from "../src/text.js";

// The first fix: extra spaces between words.
test("titleCase skips the empty words extra spaces leave", () => assert.equal(titleCase("hello  big world"), "Hello Big World"));
test("titleCase of a plain title", () => assert.equal(titleCase("the agent loop"), "The Agent Loop"));
// The second fix: a text exactly `max` long is not cut.
test("truncate keeps a text of exactly max characters", () => assert.equal(truncate("abcd", 4), "abcd"));
test("truncate still cuts a longer one", () => assert.equal(truncate("abcdef", 4), "abc…"));
test("the rest unchanged", () => assert.equal(wordCount("a b"), 2));
