import assert from "node:assert/strict";
import { test } from "node:test";
import { invoiceTotal } from "../src/invoice.js";

test("invoice total", () => assert.equal(invoiceTotal([{ price: 250, quantity: 2 }, { price: 100, quantity: 1 }]), 600));
