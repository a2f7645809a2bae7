import assert from "node:assert/strict";
import { test } from "node:test";
import { Store, increment } from "../src/store.js";

test("increment counts up from 0", async () => {
  const store = new Store();
  assert.equal(await increment(store, "visits"), 1);
  assert.equal(await increment(store, "visits"), 2);
});
test("increment by 5 keeps the sum", async () => {
  const store = new Store();
  await store.set("n", 10);
  assert.equal(await increment(store, "n", 5), 15);
  assert.equal(await store.get("n"), 15);
});
