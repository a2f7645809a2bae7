// Lint: the recommended rules of eslint and typescript-eslint, plus "no any" in lesson code.
import js from "@eslint/js";
import tseslint from "typescript-eslint";

export default tseslint.config(
  { ignores: ["node_modules/", "docs/.vitepress/cache/", "docs/.vitepress/dist/", "docs/public/", ".course/", "coverage/"] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: { globals: { process: "readonly", console: "readonly", URL: "readonly" } },
    rules: {
      "@typescript-eslint/no-explicit-any": "error",
      "@typescript-eslint/no-unused-vars": ["error", { argsIgnorePattern: "^_", varsIgnorePattern: "^_" }],
      "no-constant-condition": ["error", { checkLoops: false }],
    },
  },
  {
    // Exercises import what the learner will need before they use it, and declare with `let`
    // what the learner's code will reassign.
    files: ["lessons/**/*.ts"],
    rules: { "@typescript-eslint/no-unused-vars": "off", "prefer-const": "off" },
  },
);
