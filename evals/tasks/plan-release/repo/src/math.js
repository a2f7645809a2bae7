/** The average of a list of numbers; 0 for an empty list. */
export function average(values) {
  return values.reduce((a, b) => a + b, 0) / values.length;
}

/** The largest number of a list; -Infinity for an empty list. */
export function largest(values) {
  return Math.min(...values);
}
