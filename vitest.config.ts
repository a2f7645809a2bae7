import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: ["tests/**/*.test.ts"],
    // Lessons print as they run; show that output only for tests that fail.
    silent: "passed-only",
    testTimeout: 20_000,
    hookTimeout: 20_000,
  },
});
