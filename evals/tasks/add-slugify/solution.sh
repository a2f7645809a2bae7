cat >> src/text.js <<'JS'

/** A title as a URL slug: "Hello World" gives "hello-world". */
export function slugify(title) {
  return title
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, "-")
    .replace(/^-+|-+$/g, "");
}
JS
cat > test/text.test.js <<'JS'
import assert from "node:assert/strict";
import { test } from "node:test";
import { capitalize, slugify } from "../src/text.js";

test("capitalize", () => assert.equal(capitalize("hello"), "Hello"));
test("slugify", () => assert.equal(slugify("Hello World"), "hello-world"));
JS
