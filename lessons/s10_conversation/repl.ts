/**
 * The REPL: the outer loop around the agent loop, over ONE history. Each line is either a command (`/exit`,
 * `/reset`, `/save [name]`, `/load name`, `/sessions`, `/help`) or a question that becomes the
 * next user turn of the same conversation. The session is saved after every turn.
 *
 * Ctrl-C cancels the turn in flight (an AbortSignal), not the session. Subtle: a cancelled turn
 * can leave a `tool_use` with no `tool_result`, or a question with no answer; sent as they are,
 * the NEXT question would fail with a 400. `settleTurn` leaves the history sendable again.
 *
 * Nothing here touches a terminal: the REPL takes lines and a cancel() call, so tests drive it
 * directly and `attachTerminal` (terminal.ts) wires it to readline and Ctrl-C. The commands
 * themselves are parsed in commands.ts.
 */
import { existsSync } from "node:fs";
import type Anthropic from "@anthropic-ai/sdk";
import { todo } from "../../runtime/lesson.ts";
import { dim, say, yellow } from "../../runtime/print.ts";
import { HELP, parseCommand } from "./commands.ts";
import { SessionError, checkName, listSessions, loadSession, newSessionName, removeSession, saveSession, sessionPath } from "./session.ts";


// #region settle
export const CANCELLED_RESULT = "Not run: the user cancelled this turn (Ctrl-C).";

/**
 * After a turn ends in any way (answered, stopped, cancelled, failed), make the history
 * sendable again. `turnStart` is the history length before the question was added.
 */
export function settleTurn(history: Anthropic.MessageParam[], turnStart: number): void {
  // TODO: leave `history` sendable after a turn that may have been cancelled half-way:
  //       - if nothing came back (history is only the question added at `turnStart`), take the question back;
  //       - never keep an assistant message with empty content;
  //       - if the last assistant message has tool_use blocks with no answer, push ONE user message that
  //         answers each of them ({ type: "tool_result", tool_use_id, content: CANCELLED_RESULT, is_error: true }).
  void history;
  void turnStart;
  todo("s10 settleTurn: make the history sendable after a cancelled turn");
}

/** The next question joins the history as a user turn (after any results left by a cancelled turn). */
export function addQuestion(history: Anthropic.MessageParam[], text: string): void {
  // TODO: push { role: "user", content: text }, unless the history already ends with a user message
  //       (the results of a cancelled turn): then add the text as a block at the END of that message,
  //       so roles still alternate and the results stay first.
  void history;
  void text;
  todo("s10 addQuestion: the question becomes the next user turn");
}
// #endregion settle

/** Runs one turn of the agent over the history, stopping when the signal aborts. */
export type TurnRunner = (history: Anthropic.MessageParam[], signal: AbortSignal) => Promise<unknown>;

export interface ReplOptions {
  runTurn: TurnRunner;
  /** Where sessions are saved (default .course/sessions). */
  dir?: string;
  /** The session to continue or create. */
  name?: string;
  history?: Anthropic.MessageParam[];
  /** Recorded in the session file. */
  model?: string;
  /** Save after every turn (default true). */
  autosave?: boolean;
  /** Called with what the turn returned (or threw), to print it. */
  onTurnEnd?: (result: { value?: unknown; error?: unknown; cancelled: boolean }) => void;
}

// #region repl
export class Repl {
  history: Anthropic.MessageParam[];
  name: string;
  private turn: AbortController | null = null;
  /** Names this REPL wrote only by autosave (a fresh session's clock name). */
  private readonly autosavedOnly = new Set<string>();

  constructor(private readonly opts: ReplOptions) {
    this.history = opts.history ?? [];
    this.name = checkName(opts.name ?? newSessionName());
  }

  get busy(): boolean {
    return this.turn !== null;
  }

  /** Ctrl-C: cancels the turn in flight. Returns false when there is none. */
  cancel(): boolean {
    if (!this.turn) return false;
    this.turn.abort(new Error("cancelled by the user"));
    return true;
  }

  /** Handles one line; resolves "exit" when the REPL should end. */
  async handle(line: string): Promise<"continue" | "exit"> {
    const command = parseCommand(line);
    try {
      switch (command.kind) {
        case "exit":
          return "exit";
        case "empty":
          return "continue";
        case "help":
          say(HELP);
          return "continue";
        case "reset":
          this.history = [];
          this.name = newSessionName();
          say(dim(`(new conversation: ${this.name})`));
          return "continue";
        case "save": {
          const before = this.name;
          if (command.name) this.name = checkName(command.name);
          say(dim(`(saved to ${this.save()})`));
          // A session only autosaved under its clock name is renamed, not copied.
          if (before !== this.name && this.autosavedOnly.has(before)) removeSession(before, this.dirOpt());
          this.autosavedOnly.clear();
          return "continue";
        }
        case "load": {
          const session = loadSession(command.name, this.dirOpt());
          this.history = session.messages;
          this.name = session.name;
          say(dim(`(resumed "${session.name}": ${session.messages.length} messages, saved ${session.savedAt})`));
          return "continue";
        }
        case "sessions": {
          const all = listSessions(this.opts.dir);
          say(all.length ? all.map((s) => `  ${s.name}`).join("\n") : dim("(no saved sessions)"));
          return "continue";
        }
        case "unknown":
          say(yellow(`unknown command ${command.word}; /help lists them`));
          return "continue";
        case "ask":
          await this.ask(command.text);
          return "continue";
      }
    } catch (e) {
      if (e instanceof SessionError) {
        say(yellow(e.message));
        return "continue";
      }
      throw e;
    }
  }

  /** One question: a whole agent run over the shared history, cancellable, always settled. */
  private async ask(text: string): Promise<void> {
    const turnStart = this.history.length;
    addQuestion(this.history, text);
    const controller = new AbortController();
    this.turn = controller;
    let result: { value?: unknown; error?: unknown; cancelled: boolean };
    try {
      result = { value: await this.opts.runTurn(this.history, controller.signal), cancelled: controller.signal.aborted };
    } catch (error) {
      result = { error, cancelled: controller.signal.aborted };
    } finally {
      this.turn = null;
    }
    settleTurn(this.history, turnStart);
    if (this.opts.autosave !== false && this.history.length > 0) {
      if (!this.opts.name && !existsSync(sessionPath(this.name, this.opts.dir))) this.autosavedOnly.add(this.name);
      this.save();
    }
    this.opts.onTurnEnd?.(result);
  }

  save(): string {
    return saveSession(this.name, this.history, { ...this.dirOpt(), model: this.opts.model ?? "" });
  }

  private dirOpt(): { dir?: string } {
    return this.opts.dir ? { dir: this.opts.dir } : {};
  }
}
// #endregion repl

export { HELP, parseCommand, type Command } from "./commands.ts";
export { askOn, attachTerminal, runRepl, terminalLines } from "./terminal.ts";
