import assert from "node:assert/strict";
import { readdirSync, readFileSync } from "node:fs";
import { test } from "node:test";
import * as cart from "../src/cart.js";
import { invoiceTotal } from "../src/invoice.js";

test("lineTotal is exported and computes a line", () => assert.equal(cart.lineTotal({ price: 250, quantity: 2 }), 500));
test("calc is gone from cart.js's exports", () => assert.equal("calc" in cart, false));
test("invoice total still right", () => assert.equal(invoiceTotal([{ price: 250, quantity: 2 }, { price: 100, quantity: 1 }]), 600));
test("no source file still names calc", () => {
  for (const f of readdirSync(new URL("../src/", import.meta.url))) {
    const text = readFileSync(new URL(`../src/${f}`, import.meta.url), "utf8");
    assert.doesNotMatch(text, /\bcalc\b/, `src/${f} still names calc`);
  }
});
