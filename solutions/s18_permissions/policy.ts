/**
 * s18 · the run's policy: its rules, its mode, who is asked. The gate (agent.ts) asks it for a
 * verdict on each call; permissions.ts decides.
 */
import type Anthropic from "@anthropic-ai/sdk";
import type { ToolSpec } from "../../solutions/s02_tool_dispatch/registry.ts";
import { classify, type Approver } from "../../solutions/s07_safe_tools/approval.ts";
import { decide, type Mode, type Rule, type Verdict } from "./permissions.ts";

/** What runs between the verdict and the question: refuse the call, change its input, or spare the question. */
export type Screen = (call: Anthropic.ToolUseBlock) => Promise<{ refused?: string; input?: Record<string, unknown>; allow?: boolean }>;

/** The run's permissions: its rules, its mode (plan mode ends when a plan is approved) and who is asked. */
export class Policy {
  /** Commands the gate let through: s07's own question about one of them is already answered. */
  private readonly passed = new Set<string>();

  constructor(
    public mode: Mode,
    readonly rules: readonly Rule[],
    readonly approve: Approver,
    readonly root: string,
    readonly onVerdict?: (call: Anthropic.ToolUseBlock, verdict: Verdict) => void,
    readonly screen?: Screen,
  ) {}

  /** The verdict on a call of `tool` (s07 classifies a bash command); a tool that runs a command meets bash's rules too. */
  verdict(call: Anthropic.ToolUseBlock, tool: ToolSpec | undefined): Verdict {
    const input = inputOf(call);
    const command = commandOf(call);
    const readOnly = call.name === "bash" && command !== undefined ? classify(command, this.root).readOnly : tool?.readOnly === true;
    let verdict = decide(call.name, input, this.rules, this.mode, { readOnly, root: this.root });
    // Its own rules and bash's together: a deny of either, else an ask rule of either, else an allow rule.
    if (command !== undefined && call.name !== "bash") {
      const asBash = decide("bash", { command }, this.rules, this.mode, { readOnly, root: this.root });
      if (weight(asBash) > weight(verdict)) verdict = asBash;
    }
    this.onVerdict?.(call, verdict);
    return verdict;
  }

  /** The base tools' questions: s07's about a command the gate let through is answered; the others (planted files, tests with no sandbox) are the person's. */
  readonly toolApprover: Approver = async (q) => {
    const v = classify(q.command, this.root);
    if (!v.readOnly && v.reason === q.reason && this.passed.delete(q.command)) return { approved: true };
    return this.approve(q);
  };

  /** The gate let this command run (s07's bash will not ask about it again). */
  let(command: string | undefined): void {
    if (command !== undefined) this.passed.add(command);
  }
}

/** Which of two verdicts on the same call wins: a deny, then a rule's ask, then a rule's allow, then the mode's. */
const weight = (v: Verdict) => (v.behavior === "deny" ? 3 : !v.rule ? 0 : v.behavior === "ask" ? 2 : 1);

/** The shell command a call runs, when its tool is bash or a `bash_…` tool (bash_background): bash's rules and hooks cover it. */
export const commandOf = (call: Anthropic.ToolUseBlock): string | undefined => {
  const command = inputOf(call).command;
  return (call.name === "bash" || call.name.startsWith("bash_")) && typeof command === "string" ? command : undefined;
};

const inputOf = (call: Anthropic.ToolUseBlock): Record<string, unknown> =>
  typeof call.input === "object" && call.input !== null && !Array.isArray(call.input) ? (call.input as Record<string, unknown>) : {};

/** One line for the person asked: the call as the model made it. */
export const describeCall = (call: Anthropic.ToolUseBlock) => `${call.name} ${JSON.stringify(call.input)}`;
