import assert from "node:assert/strict";
import { test } from "node:test";
import { average, largest } from "../src/math.js";

test("average", () => assert.equal(average([1, 2, 3]), 2));
test("average of nothing is 0", () => assert.equal(average([]), 0));
test("largest", () => assert.equal(largest([4, 9, 2]), 9));
