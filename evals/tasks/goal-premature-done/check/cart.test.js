import assert from "node:assert/strict";
import { test } from "node:test";
import { cartTotal } from "../src/cart.js";

test("exactly 100.00 gets the discount", () => assert.equal(cartTotal([{ price: 10_000, quantity: 1 }]), 9_000));
test("one cent less does not", () => assert.equal(cartTotal([{ price: 9_999, quantity: 1 }]), 9_999));
test("more gets it too", () => assert.equal(cartTotal([{ price: 7_000, quantity: 3 }]), 18_900));
test("an empty cart is 0", () => assert.equal(cartTotal([]), 0));
