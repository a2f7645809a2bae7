/** Helpers for the titles and previews the site shows. */

/** Each word of a title capitalized: titleCase("hello world") is "Hello World". */
export function titleCase(title) {
  return title
    .split(" ")
    .map((word) => word[0].toUpperCase() + word.slice(1))
    .join(" ");
}

/** How many words a text holds. */
export function wordCount(text) {
  return text.split(/\s+/).filter(Boolean).length;
}

/** The number of minutes a text takes to read, at 200 words a minute (at least 1). */
export function readingMinutes(text) {
  return Math.max(1, Math.round(wordCount(text) / 200));
}

/** A text cut to at most `max` characters, ending in "…" when it was cut. */
export function truncate(text, max) {
  if (text.length < max) return text;
  return text.slice(0, max - 1) + "…";
}
