/** The price of a cart line, in cents. */
export function calc(line) {
  return line.price * line.quantity;
}
