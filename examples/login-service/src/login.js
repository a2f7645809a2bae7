// The login module: checks passwords and locks an account after too many failures in a row.
import { appendFileSync } from "node:fs";

export const MAX_FAILED_ATTEMPTS = 3;

/**
 * users: { [name]: password }. log: where each attempt is written (a function, for the tests).
 * Returns login(name, password) → { ok: true } | { ok: false, reason: "wrong_password" | "locked" | "unknown_user" }.
 */
export function createLoginService(users, log = (line) => appendFileSync("logs/auth.log", line + "\n")) {
  const failed = new Map();
  const locked = new Set();

  return function login(name, password) {
    if (!(name in users)) {
      log(`WARN login unknown_user user=${name}`);
      return { ok: false, reason: "unknown_user" };
    }
    if (locked.has(name)) {
      log(`WARN login refused user=${name} reason=locked`);
      return { ok: false, reason: "locked" };
    }
    if (users[name] === password) {
      failed.set(name, 0);
      log(`INFO login ok user=${name}`);
      return { ok: true };
    }
    const attempts = (failed.get(name) ?? 0) + 1;
    failed.set(name, attempts);
    if (attempts > MAX_FAILED_ATTEMPTS) locked.add(name);
    log(`WARN login failed user=${name} attempts=${attempts} locked=${locked.has(name)}`);
    return { ok: false, reason: "wrong_password" };
  };
}
