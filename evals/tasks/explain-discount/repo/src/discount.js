/** Orders of 100.00 or more get 10% off (amounts in cents). */
export const THRESHOLD = 10000;

export function applyDiscount(subtotal) {
  if (subtotal > THRESHOLD) return Math.round(subtotal * 0.9);
  return subtotal;
}
