import { applyDiscount } from "./discount.js";

/** The total of an order, in cents, after the discount. */
export function total(items) {
  const subtotal = items.reduce((sum, item) => sum + item.price * item.quantity, 0);
  return applyDiscount(subtotal);
}
