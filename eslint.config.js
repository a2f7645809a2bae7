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
    // Lessons talk to a model, never to the fake one: its default task comes from runtime/tasks.ts,
    // tokens from runtime/tokens.ts, text from runtime/transcript.ts, faults' types from runtime/client.ts.
    files: ["lessons/**/*.ts", "solutions/**/*.ts"],
    rules: {
      "no-restricted-imports": [
        "error",
        {
          patterns: [
            {
              group: ["**/runtime/scripted", "**/runtime/scripted/**"],
              message:
                "A lesson imports the runtime's public surface only (client, lesson, print, transcript, tools, tasks, tokens), never the scripted model's internals.",
            },
          ],
        },
      ],
    },
  },
  {
    // Exercises import what the learner will need before they use it, and declare with `let`
    // what the learner's code will reassign.
    files: ["lessons/**/*.ts"],
    rules: { "@typescript-eslint/no-unused-vars": "off", "prefer-const": "off" },
  },
);
