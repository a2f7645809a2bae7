import assert from "node:assert/strict";
import { test } from "node:test";
import { initials } from "../src/names.js";

test("two words", () => assert.equal(initials("Ada Lovelace"), "AL"));
test("extra spaces are ignored", () => assert.equal(initials("  grace   hopper "), "GH"));
test("the empty name", () => assert.equal(initials(""), ""));
test("one word", () => assert.equal(initials("linus"), "L"));
