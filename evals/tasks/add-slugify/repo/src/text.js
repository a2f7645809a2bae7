/** The first letter in upper case: "hello" gives "Hello". */
export function capitalize(word) {
  return word.length === 0 ? word : word[0].toUpperCase() + word.slice(1);
}
