/**
 * s07 · what replaces the block list: read-only commands run freely, anything else asks first.
 *
 * "Read-only" is decided by parsing, conservatively: every pipeline stage must be a command on
 * the allow list in read-only.ts, with only the options on that command's exact list, and no path
 * out of the workspace.
 *
 * This is a policy, for clear answers to the model: the boundary is the OS sandbox underneath
 * (runtime/tools/sandbox.ts), which holds even when a check here is fooled.
 */
import { createInterface } from "node:readline/promises";
import { SCRIPTED_MODEL_ID } from "../../runtime/client.ts";
import { approvalQuestion, shownCommand } from "../../runtime/terminal-text.ts";
import { leavesWorkspace, words } from "./command-words.ts";
import { READ_ONLY } from "./read-only.ts";

export type Verdict = { readOnly: true } | { readOnly: false; reason: string };

// #region classify
/** Is `command`, run in the workspace `root`, read-only by this course's conservative rules? */
export function classify(command: string, root?: string): Verdict {
  const parsed = words(command);
  if ("reason" in parsed) return { readOnly: false, reason: parsed.reason };
  for (const [name = "", ...args] of parsed.stages) {
    const check = READ_ONLY[name];
    if (!check) return { readOnly: false, reason: `${name} is not on the read-only list` };
    const outside = args.find((a) => leavesWorkspace(a, root));
    if (outside !== undefined) return { readOnly: false, reason: `${outside} reaches outside the workspace` };
    const bad = check(args);
    if (bad) return { readOnly: false, reason: bad };
  }
  return { readOnly: true };
}
// #endregion classify

// #region approval
/** Asked before a command that is not read-only runs: yes, or why not. */
export type Decision = { approved: true } | { approved: false; why: string };
export type Approver = (request: { command: string; reason: string }) => Promise<Decision>;

/** For `--yes` (and tests): every command is approved. */
export const approveAll: Approver = async () => ({ approved: true });
/** Nothing but read-only commands. */
export const refuseAll: Approver = async () => ({ approved: false, why: "only read-only commands are allowed in this run" });

/**
 * For a lesson's demo (the recorded run its page shows): no person is there to ask. The offline
 * scripted model's calls are approved (its script is the course's own, run on a scratch copy); a
 * real model's are refused, since nobody gave that approval.
 */
export const demoApprover = (llm: { model: string }): Approver => (llm.model === SCRIPTED_MODEL_ID ? approveAll : refuseAll);

/** Commands the user approved in advance (exactly as written); anything else goes to `ask`. */
export function preApproved(commands: readonly string[], ask: Approver): Approver {
  return async (request) => (commands.includes(request.command.trim()) ? { approved: true } : ask(request));
}

export interface TerminalApproverOptions {
  /** --yes: approve without asking. */
  yes?: boolean;
  input?: NodeJS.ReadableStream & { isTTY?: boolean };
  output?: NodeJS.WritableStream;
  /** Ctrl-C at the question: after refusing, pass it on (default: the process gets its SIGINT). */
  onInterrupt?: () => void;
}

/** Asks y/n on the terminal; with no terminal to ask, refuses (unless --yes). */
export function terminalApprover(opts: TerminalApproverOptions = {}): Approver {
  const input = opts.input ?? process.stdin;
  const output = opts.output ?? process.stdout;
  const interrupt = opts.onInterrupt ?? (() => process.kill(process.pid, "SIGINT"));
  return async ({ command, reason }) => {
    if (opts.yes) {
      output.write(`\n(--yes) running without asking: ${shownCommand(command, reason)}\n`);
      return { approved: true };
    }
    // Only a person approves: a pipe (a script, another program, the model's own output) never does.
    if (!input.isTTY) return { approved: false, why: "there is no terminal to ask for approval (run with --yes to allow such commands)" };
    const rl = createInterface({ input, output });
    // subtle: while readline owns the terminal, Ctrl-C reaches it, not the process. Refuse, then
    // pass the Ctrl-C on, so the run stops as it would anywhere else.
    const asking = new AbortController();
    rl.on("SIGINT", () => asking.abort());
    try {
      const answer = await rl.question(`\n${approvalQuestion(command, reason)}`, { signal: asking.signal });
      return /^y(es)?$/i.test(answer.trim()) ? { approved: true } : { approved: false, why: "the user said no" };
    } catch (e) {
      if (!asking.signal.aborted) throw e;
      interrupt();
      return { approved: false, why: "the user pressed Ctrl-C" };
    } finally {
      rl.close();
    }
  };
}
// #endregion approval
