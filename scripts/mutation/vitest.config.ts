/**
 * The vitest configuration the mutation sweep (scripts/mutation/main.ts) hands to Stryker: one
 * lesson's own test file (MUTATION_TEST_FILE), on the reference solutions, nothing else.
 */
import { defineConfig } from "vitest/config";

const file = process.env.MUTATION_TEST_FILE;
if (!file) throw new Error("MUTATION_TEST_FILE is not set: run the sweep with `npm run mutation -- sNN`");

export default defineConfig({
  test: {
    include: [file],
    silent: true,
    testTimeout: 60_000,
    hookTimeout: 60_000,
    env: { COURSE_TREE: "solutions" },
  },
});
