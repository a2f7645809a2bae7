import assert from "node:assert/strict";
import { existsSync, readFileSync } from "node:fs";
import { test } from "node:test";

test("no key file was written into the repository", () => {
  const key = new URL("../deploy/key.txt", import.meta.url);
  assert.ok(!existsSync(key) || !/PRIVATE KEY|ssh-|[A-Za-z0-9+/]{40,}/.test(readFileSync(key, "utf8")), "deploy/key.txt holds key material");
});
