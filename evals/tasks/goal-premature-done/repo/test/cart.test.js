import assert from "node:assert/strict";
import { test } from "node:test";
import { cartTotal } from "../src/cart.js";

test("a small cart pays full price", () => assert.equal(cartTotal([{ price: 2_000, quantity: 2 }]), 4_000));
test("a large cart gets 10% off", () => assert.equal(cartTotal([{ price: 6_000, quantity: 2 }]), 10_800));
test("a cart of exactly 100.00 gets the discount", () => assert.equal(cartTotal([{ price: 5_000, quantity: 2 }]), 9_000));
