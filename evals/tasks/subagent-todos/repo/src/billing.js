export function invoice(amount) {
  // TODO: round amounts to whole cents
  return { amount };
}
