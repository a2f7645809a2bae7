import { readFileSync } from "node:fs";

/** The client's settings; `retries` defaults to 0 when the file has none. */
export function clientConfig(file = new URL("../config/client.json", import.meta.url)) {
  const config = JSON.parse(readFileSync(file, "utf8"));
  return { retries: 0, ...config };
}
