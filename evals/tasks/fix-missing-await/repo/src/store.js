import { setTimeout as sleep } from "node:timers/promises";

/** A tiny async key-value store. */
export class Store {
  #data = new Map();
  async get(key) {
    await sleep(1);
    return this.#data.get(key);
  }
  async set(key, value) {
    await sleep(1);
    this.#data.set(key, value);
  }
}

/** Adds `by` to the counter stored at `key` (0 when missing) and returns the new value. */
export async function increment(store, key, by = 1) {
  const current = store.get(key);
  const next = (current ?? 0) + by;
  await store.set(key, next);
  return next;
}
