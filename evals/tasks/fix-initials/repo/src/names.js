/** The initials of a full name: "Ada Lovelace" gives "AL"; extra spaces are ignored; "" gives "". */
export function initials(name) {
  return name
    .split(" ")
    .map((word) => word[0].toUpperCase())
    .join("");
}
