cat > src/names.js <<'JS'
/** The initials of a full name: "Ada Lovelace" gives "AL"; extra spaces are ignored; "" gives "". */
export function initials(name) {
  return name
    .split(" ")
    .filter((word) => word.length > 0)
    .map((word) => word[0].toUpperCase())
    .join("");
}
JS
