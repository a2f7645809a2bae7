import assert from "node:assert/strict";
import { test } from "node:test";
import { Store, increment } from "../src/store.js";

test("increment counts up from 0", async () => {
  const store = new Store();
  assert.equal(await increment(store, "visits"), 1);
  assert.equal(await increment(store, "visits"), 2);
});
