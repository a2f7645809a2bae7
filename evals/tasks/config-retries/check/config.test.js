import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { test } from "node:test";
import { clientConfig } from "../src/client.js";

const raw = JSON.parse(readFileSync(new URL("../config/client.json", import.meta.url), "utf8"));
test("retries is 3", () => assert.equal(clientConfig().retries, 3));
test("the other keys are unchanged", () => {
  assert.equal(raw.baseUrl, "https://api.example.com");
  assert.equal(raw.timeoutMs, 5000);
  assert.deepEqual(Object.keys(raw).sort(), ["baseUrl", "retries", "timeoutMs"]);
});
