/**
 * s10 · the REPL on a terminal: readline for the lines, Ctrl-C to cancel a turn, approval
 * questions (s07) asked on the same readline, and the whole conversation program that s10, s11
 * (--chat) and s12 (no task) run: written once, handed the loop's REPL.
 */
import { createInterface, type Interface } from "node:readline";
import type Anthropic from "@anthropic-ai/sdk";
import type { Selection } from "../../runtime/client.ts";
import { dim, say, yellow } from "../../runtime/print.ts";
import { approvalQuestion } from "../../runtime/terminal-text.ts";
import { S10_FOLLOW_UP, S10_TASK } from "../../runtime/tasks.ts";
import type { Approver } from "../../solutions/s07_safe_tools/approval.ts";
import type { Repl } from "./repl.ts";
import { loadSession } from "./session.ts";

/** Feeds lines to the REPL until /exit or the end of input. */
export async function runRepl(repl: Repl, lines: AsyncIterable<string>): Promise<void> {
  for await (const line of lines) if ((await repl.handle(line)) === "exit") return;
}

/** A readline on the terminal, for the REPL (and for questions asked during a turn, see s12). */
export function terminalLines(): Interface {
  return createInterface({ input: process.stdin, output: process.stdout, terminal: Boolean(process.stdin.isTTY) });
}

/**
 * Approval questions (s07) asked on the REPL's own readline: a second readline on the same
 * terminal would take the REPL's input. Ctrl-C while asked answers no (and cancels the turn).
 * Only a person answers: when the readline is not a terminal (questions piped in by a script,
 * or by another program), every approval is refused, whatever the next line says.
 */
export function askOn(rl: Interface, yes = false): Approver {
  return ({ command, reason }) => {
    if (yes) return Promise.resolve({ approved: true });
    if (!rl.terminal) return Promise.resolve({ approved: false, why: "there is no terminal to ask for approval (the input is not a terminal; run with --yes to allow such commands)" });
    return new Promise((resolve) => {
      const asked = new AbortController();
      const onCtrlC = () => asked.abort();
      rl.once("SIGINT", onCtrlC);
      asked.signal.addEventListener("abort", () => resolve({ approved: false, why: "the user cancelled" }), { once: true });
      rl.question(approvalQuestion(command, reason), { signal: asked.signal }, (answer) => {
        rl.off("SIGINT", onCtrlC);
        resolve(/^y(es)?$/i.test(answer.trim()) ? { approved: true } : { approved: false, why: "the user said no" });
      });
    });
  };
}

/** The terminal: readline for lines, Ctrl-C cancels the turn (twice at an idle prompt: leave). */
export async function attachTerminal(repl: Repl, prompt = "> ", rl: Interface = terminalLines()): Promise<void> {
  let armed = false;
  rl.on("SIGINT", () => {
    if (repl.cancel()) {
      say(yellow("\n(cancelling the turn…)"));
      return;
    }
    if (armed) return rl.close();
    armed = true;
    say(dim("\n(Ctrl-C again or /exit to leave)"));
    rl.prompt();
  });
  rl.setPrompt(prompt);
  rl.prompt();
  for await (const line of rl) {
    armed = false;
    if ((await repl.handle(line)) === "exit") break;
    rl.prompt();
  }
  rl.close();
}

/**
 * A conversation on this terminal: one readline for the questions and for the approvals asked
 * during a turn (`open` builds the REPL with that approver); `first` is asked before the prompt.
 */
export async function converse(
  open: (approve: Approver) => Repl,
  { first, yes = false, resumeWith = "--resume" }: { first?: string; yes?: boolean; resumeWith?: string } = {},
): Promise<Repl> {
  const rl = terminalLines();
  const repl = open(askOn(rl, yes));
  if (first && (await repl.handle(first)) === "exit") {
    rl.close();
    return repl;
  }
  await attachTerminal(repl, "> ", rl);
  if (repl.history.length > 0) say(dim(`(saved as "${repl.name}": resume with ${resumeWith} ${repl.name})`));
  return repl;
}

/** What a conversation program opens: a saved session to go on with, or a new one. */
export type OpenRepl = (opts: { name?: string; history?: Anthropic.MessageParam[]; agent: { approve: Approver } }) => Repl;

/** The conversation program of s10 (and s11 --chat): resume a session or start one, then talk. */
export async function conversation(open: OpenRepl, llm: Selection, { resume, first }: { resume?: string; first?: string }): Promise<void> {
  const session = resume ? loadSession(resume) : undefined;
  await converse(
    (approve) => {
      const repl = open(session ? { name: session.name, history: session.messages, agent: { approve } } : { agent: { approve } });
      say(dim(session ? `resumed "${session.name}" (${session.messages.length} messages)` : `session "${repl.name}" · /help for commands · Ctrl-C cancels an answer`));
      if (llm.offline && !session) say(dim(`offline: try "${S10_TASK}", then "${S10_FOLLOW_UP}"`));
      return repl;
    },
    first ? { first } : {},
  );
}
