/**
 * s07's attack cases: what a careless or misled model might send to the safe tools. Every one
 * must FAIL: refused with an error result, or run without reaching outside the workspace,
 * without the key, and without leaving a process behind. tests/s07_safe_tools.test.ts runs them.
 *
 * In file cases, OUT is the absolute path of a folder outside the workspace holding secret.txt;
 * the workspace holds links that point there (see makeWorkspace in the test file).
 */

/** A file-tool call that must be refused, and a file outside that must stay as it was. */
export interface FileAttack {
  name: string;
  tool: "read_file" | "write_file" | "edit_file" | "list_files";
  input: (out: string) => Record<string, unknown>;
}

export const FILE_ATTACKS: FileAttack[] = [
  { name: "parent directory", tool: "read_file", input: () => ({ path: "../out/secret.txt" }) },
  { name: "parent directory after a real folder", tool: "read_file", input: () => ({ path: "src/../../out/secret.txt" }) },
  { name: "many parents", tool: "read_file", input: () => ({ path: "../../../../../../../../etc/passwd" }) },
  { name: "absolute path outside", tool: "read_file", input: (out) => ({ path: `${out}/secret.txt` }) },
  { name: "absolute system file", tool: "read_file", input: () => ({ path: "/etc/passwd" }) },
  { name: "home directory", tool: "read_file", input: () => ({ path: "~/.bashrc" }) },
  { name: "symlink to a file outside", tool: "read_file", input: () => ({ path: "secret-link.txt" }) },
  { name: "symlinked folder outside", tool: "read_file", input: () => ({ path: "out-link/secret.txt" }) },
  { name: "chain of symlinks", tool: "read_file", input: () => ({ path: "chain-link.txt" }) },
  { name: "NUL byte in the path", tool: "read_file", input: () => ({ path: "src/a.txt\u0000../../out/secret.txt" }) },
  { name: "write through the parent", tool: "write_file", input: () => ({ path: "../out/new.txt", content: "pwned" }) },
  { name: "write to an absolute path", tool: "write_file", input: (out) => ({ path: `${out}/new.txt`, content: "pwned" }) },
  { name: "write through a dangling symlink", tool: "write_file", input: () => ({ path: "dangling-link.txt", content: "pwned" }) },
  { name: "write into a symlinked folder", tool: "write_file", input: () => ({ path: "out-link/new.txt", content: "pwned" }) },
  { name: "overwrite through a symlink", tool: "write_file", input: () => ({ path: "secret-link.txt", content: "pwned" }) },
  { name: "edit through the parent", tool: "edit_file", input: () => ({ path: "../out/secret.txt", old_text: "TOP", new_text: "pwned" }) },
  { name: "edit through a symlink", tool: "edit_file", input: () => ({ path: "secret-link.txt", old_text: "TOP", new_text: "pwned" }) },
  { name: "list the parent", tool: "list_files", input: () => ({ path: ".." }) },
  { name: "list the root of the disk", tool: "list_files", input: () => ({ path: "/" }) },
  { name: "list a symlinked folder", tool: "list_files", input: () => ({ path: "out-link" }) },
];

/** A command that is not read-only: with no terminal and no --yes, it must not run. */
export interface CommandAttack {
  name: string;
  command: string;
}

export const COMMAND_ATTACKS: CommandAttack[] = [
  { name: "a block list's bypass: a backslash", command: "s\\udo touch pwned" },
  { name: "a block list's bypass: command substitution", command: "$(echo touch) pwned" },
  { name: "a block list's bypass: another shell", command: `sh -c "tou""ch pwned"` },
  { name: "backquotes", command: "`echo touch` pwned" },
  { name: "a variable", command: "cat $HOME/.bashrc" },
  { name: "a variable in double quotes", command: 'echo "$ANTHROPIC_API_KEY"' },
  { name: "redirection out", command: "echo pwned > pwned" },
  { name: "redirection in from outside", command: "cat < /etc/passwd" },
  { name: "two commands with ;", command: "ls; touch pwned" },
  { name: "two commands with &&", command: "ls && touch pwned" },
  { name: "two commands with ||", command: "false || touch pwned" },
  { name: "a newline", command: "ls\ntouch pwned" },
  { name: "background", command: "touch pwned &" },
  { name: "a sub-shell", command: "(touch pwned)" },
  { name: "a pipe into a shell", command: "echo 'touch pwned' | sh" },
  { name: "a pipe into a writer", command: "echo pwned | tee pwned" },
  { name: "find -delete", command: "find . -name a.txt -delete" },
  { name: "find -exec", command: "find . -name a.txt -exec touch pwned ;" },
  { name: "sort -o writes", command: "sort -o pwned src/a.txt" },
  { name: "an absolute path", command: "cat /etc/passwd" },
  { name: "the parent directory", command: "cat ../out/secret.txt" },
  { name: "a symlink that points out", command: "cat secret-link.txt" },
  { name: "a hard link to a file outside", command: "cat hard-link.txt" },
  { name: "a glob that can match ..", command: "ls .*" },
  { name: "an option with a path outside", command: "grep -f/etc/passwd x src/a.txt" },
  { name: "an environment prefix", command: "PATH=. ls" },
  { name: "a program not on the read-only list", command: "node -e \"require('fs').writeFileSync('pwned','x')\"" },
  { name: "env runs a program", command: "env touch pwned" },
  { name: "an absolute program path", command: "/usr/bin/touch pwned" },
  // Arguments that defeat string checks: each must still ask (option lists are exact).
  { name: "an abbreviated option: --compress-prog", command: "sort --compress-prog=touch src/a.txt" },
  { name: "an abbreviated option: --out", command: "sort --out=pwned src/a.txt" },
  { name: "an option in = form: --output=", command: "sort --output=pwned src/a.txt" },
  { name: "an option grouped behind another: -ro", command: "sort -ro pwned src/a.txt" },
  { name: "an option that reads a named file: --files0-from", command: "wc --files0-from=src/a.txt" },
  { name: "an option that reads a named file: -f", command: "grep -f src/a.txt src/a.txt" },
  { name: "a recursive flag that follows symlinks: grep -R", command: "grep -R TOP ." },
  { name: "find following symlinks: -L", command: "find -L . -name secret.txt" },
  { name: "find writing a file: -fprint", command: "find . -fprint pwned" },
  { name: "an unquoted glob", command: "cat out-link/*" },
  { name: "a glob with brackets", command: "cat secret-lin[k].txt" },
  { name: "brace expansion", command: "cat {src/a.txt,secret-link.txt}" },
  { name: "a variable inside double quotes", command: 'echo "$(touch pwned)"' },
  { name: "a carriage return", command: "ls\rtouch pwned" },
  { name: "a comment hiding the rest", command: "ls #; touch pwned" },
  { name: "du following symlinks: -L", command: "du -L ." },
  { name: "tail -f never ends", command: "tail -f src/a.txt" },
  { name: "diff -r follows symlinks", command: "diff -r src out-link" },
]
