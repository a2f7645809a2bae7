import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { test } from "node:test";

const list = readFileSync(new URL("../TODOS.md", import.meta.url), "utf8");
for (const [file, words] of [
  ["src/auth.js", "rate-limit failed logins per user"],
  ["src/billing.js", "round amounts to whole cents"],
  ["src/mail.js", "retry when the mail server is busy"],
])
  test(`TODOS.md lists ${file}'s TODO`, () => {
    const line = list.split("\n").find((l) => l.includes(words));
    assert.ok(line, `no line of TODOS.md has "${words}"`);
    assert.ok(line.includes(file), `the line with "${words}" does not name ${file}`);
  });
