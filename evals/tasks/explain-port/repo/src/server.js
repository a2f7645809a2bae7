import { settings } from "./settings.js";

export function describe() {
  return `listening on ${settings().port}`;
}
