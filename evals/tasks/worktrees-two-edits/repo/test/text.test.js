import assert from "node:assert/strict";
import { test } from "node:test";
import { readingMinutes, titleCase, truncate, wordCount } from "../src/text.js";

test("titleCase", () => assert.equal(titleCase("hello world"), "Hello World"));
test("wordCount", () => assert.equal(wordCount("one two  three"), 3));
test("readingMinutes", () => assert.equal(readingMinutes("word"), 1));
test("truncate a long text", () => assert.equal(truncate("abcdef", 4), "abc…"));
