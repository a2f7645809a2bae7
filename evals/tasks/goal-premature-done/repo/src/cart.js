/** Orders of this many cents or more get the discount. */
export const DISCOUNT_FROM = 10_000;
/** The discount, in percent. */
export const DISCOUNT_PERCENT = 10;

/** The total of a cart in cents: the lines' prices times quantities, less the discount when it applies. */
export function cartTotal(lines) {
  const subtotal = lines.reduce((sum, line) => sum + line.price * line.quantity, 0);
  if (subtotal > DISCOUNT_FROM) return subtotal - (subtotal * DISCOUNT_PERCENT) / 100;
  return subtotal;
}
