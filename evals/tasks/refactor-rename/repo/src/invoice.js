import { calc } from "./cart.js";

/** The invoice's total: the sum of its lines. */
export function invoiceTotal(lines) {
  return lines.reduce((sum, line) => sum + calc(line), 0);
}
