// Tests of the login module. Run them with `node --test` (or `npm test`) in this folder.
import assert from "node:assert/strict";
import { test } from "node:test";
import { MAX_FAILED_ATTEMPTS, createLoginService } from "../src/login.js";

const quiet = () => {};

test("login ok: the right password is accepted", () => {
  const login = createLoginService({ alice: "s3cret" }, quiet);
  assert.deepEqual(login("alice", "s3cret"), { ok: true });
});

test("login wrong password: rejected, account still open", () => {
  const login = createLoginService({ alice: "s3cret" }, quiet);
  assert.deepEqual(login("alice", "guess"), { ok: false, reason: "wrong_password" });
  assert.deepEqual(login("alice", "s3cret"), { ok: true });
});

test("login lockout: the account locks after MAX_FAILED_ATTEMPTS failures", () => {
  const login = createLoginService({ alice: "s3cret" }, quiet);
  for (let i = 0; i < MAX_FAILED_ATTEMPTS; i++) login("alice", "guess");
  assert.deepEqual(login("alice", "s3cret"), { ok: false, reason: "locked" }, "the right password must be refused once the account is locked");
});
