import assert from "node:assert/strict";
import { test } from "node:test";
import { range } from "../src/range.js";

test("range(1, 3) is [1, 2, 3]", () => assert.deepEqual(range(1, 3), [1, 2, 3]));
test("range(5, 5) is [5]", () => assert.deepEqual(range(5, 5), [5]));
test("range(-2, 1) counts through zero", () => assert.deepEqual(range(-2, 1), [-2, -1, 0, 1]));
test("range(3, 1) is empty", () => assert.deepEqual(range(3, 1), []));
