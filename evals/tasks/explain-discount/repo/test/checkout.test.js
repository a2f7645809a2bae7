import assert from "node:assert/strict";
import { test } from "node:test";
import { total } from "../src/checkout.js";

test("small orders pay full price", () => assert.equal(total([{ price: 500, quantity: 2 }]), 1000));
test("an order of exactly 100.00 gets 10% off", () => assert.equal(total([{ price: 5000, quantity: 2 }]), 9000));
