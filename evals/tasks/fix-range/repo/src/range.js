/** The whole numbers from `from` to `to`, both included: range(1, 3) is [1, 2, 3]. */
export function range(from, to) {
  const out = [];
  for (let i = from; i < to; i++) out.push(i);
  return out;
}
