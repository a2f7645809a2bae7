/**
 * s10 · the REPL's commands: a line that starts with "/" is one of them, anything else is a
 * question for the model.
 */
// #region commands
export type Command =
  | { kind: "ask"; text: string }
  | { kind: "exit" }
  | { kind: "reset" }
  | { kind: "save"; name?: string }
  | { kind: "load"; name: string }
  | { kind: "sessions" }
  | { kind: "help" }
  | { kind: "empty" }
  | { kind: "unknown"; word: string };

export const HELP = [
  "/exit            leave (the session is already saved)",
  "/reset           start a new conversation (the old one stays saved)",
  "/save [name]     save the conversation under a name",
  "/load name       resume a saved conversation",
  "/sessions        list the saved conversations",
  "Ctrl-C           cancel the answer in progress (twice at the prompt: leave)",
].join("\n");

/** One line of input → what to do. Anything not starting with "/" is a question. */
export function parseCommand(line: string): Command {
  const text = line.trim();
  if (text === "") return { kind: "empty" };
  if (!text.startsWith("/")) return { kind: "ask", text };
  const [word = "", ...rest] = text.slice(1).split(/\s+/);
  const arg = rest.join(" ").trim();
  switch (word.toLowerCase()) {
    case "exit":
    case "quit":
      return { kind: "exit" };
    case "reset":
    case "clear":
      return { kind: "reset" };
    case "save":
      return arg ? { kind: "save", name: arg } : { kind: "save" };
    case "load":
    case "resume":
      return arg ? { kind: "load", name: arg } : { kind: "unknown", word: "/load needs a name (see /sessions)" };
    case "sessions":
      return { kind: "sessions" };
    case "help":
    case "?":
      return { kind: "help" };
    default:
      return { kind: "unknown", word: `/${word}` };
  }
}
// #endregion commands
