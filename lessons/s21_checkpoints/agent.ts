/**
 * s21_checkpoints: take it back.
 *
 * Unlike s19, where what the agent did stayed done, every user turn is now a checkpoint: before
 * write_file or edit_file changes a file, its previous bytes are kept (checkpoints.ts), and
 * `rewind(runId, n, what)` restores the code (every file the file tools changed since checkpoint
 * n, created files removed), the conversation (the history cut back to just before n's prompt,
 * every earlier message whole, every tool_use still answered), or both. What bash changed is not
 * recorded: a turn that ran a command says so, and a rewind lists the files that still differ from
 * the checkpoint. The recording reaches s20's loop (s19's, with the project's memory) through one hook of s11's extend.ts, `tools`
 * (a wrapper around every tool, s18's gate and s19's hooks included); the checkpoint is taken
 * when a run starts, as s19 runs its UserPromptSubmit hooks.
 *
 * Run: npm run lesson s21 ["your task"]    Check: npm run check s21
 * Your work is in checkpoints.ts: CheckpointedTools.dispatch (recording) and conversationAt (the conversation's rewind).
 */
import type Anthropic from "@anthropic-ai/sdk";
import type { Llm } from "../../runtime/client.ts";
import { lesson, transcriptOf } from "../../runtime/lesson.ts";
import { dim, say, yellow } from "../../runtime/print.ts";
import { lessonTask, SAMPLE_REPOSITORY } from "../../runtime/tasks.ts";
import { refuseAll } from "../../solutions/s07_safe_tools/approval.ts";
import { createLogger } from "../../solutions/s09_observability/log.ts";
import type { Extension } from "../../solutions/s11_recovery/extend.ts";
import { runAgent as previousLoop, DEFAULT_MAX_TOKENS, system, type RecoveredOutcome, type RunOptions as PreviousOptions } from "../../solutions/s20_memory/agent.ts";
import { CheckpointedTools, conversationAt, differing, fingerprint, promptAt, putBack, type Checkpoint } from "./checkpoints.ts";

export { system, DEFAULT_MAX_TOKENS, type RecoveredOutcome };

export const TASK = lessonTask("s21_checkpoints");
/** The demo's second turn (taken back) and third (asked after the rewind). */
export const SECOND = lessonTask("s21_checkpoints", "second");
export const THIRD = lessonTask("s21_checkpoints", "third");

export interface RunOptions extends PreviousOptions {
  /** The conversation's id for rewind() (default: one per history array, runIdOf(history)). */
  runId?: string;
  /** Told when a turn ran bash commands, whose changes a rewind cannot restore (default: a line on the terminal). */
  onUntracked?: (note: string) => void;
}

/** A rewind that cannot be done: no such run, no such checkpoint. */
export class RewindError extends Error {}

/** One conversation's checkpoints, over its history (the same array the loop grows). */
export class Timeline {
  readonly checkpoints: Checkpoint[] = [];

  constructor(
    readonly id: string,
    public root: string,
    readonly history: Anthropic.MessageParam[],
  ) {}

  get current(): Checkpoint | undefined {
    return this.checkpoints.at(-1);
  }

  /** A user turn starts: a checkpoint where its prompt is (or the one a rewind of the conversation reopened). */
  begin(): void {
    const prompt = promptAt(this.history);
    const last = this.current;
    if (!prompt || (last && !last.open && last.at === prompt.at)) return; // no new prompt: the turn goes on
    if (last?.open) {
      Object.assign(last, prompt, { open: false });
      if (last.files.size === 0) last.fingerprint = fingerprint(this.root);
      return;
    }
    this.checkpoints.push({ n: this.checkpoints.length + 1, ...prompt, files: new Map(), commands: [], fingerprint: fingerprint(this.root), open: false });
  }
}

const timelines = new Map<string, Timeline>();
const ids = new WeakMap<Anthropic.MessageParam[], string>();
let runs = 0;

/** The id of the conversation held in `history` (the same array keeps its id). */
export function runIdOf(history: Anthropic.MessageParam[]): string {
  let id = ids.get(history);
  if (!id) ids.set(history, (id = `run-${++runs}`));
  return id;
}

/** The timeline of a run id (what /rewind lists), if it has one. */
export const timelineOf = (runId: string): Timeline | undefined => timelines.get(runId);

// #region loop
/** NEW: every tool behind the recorder: a file's state is kept before a file tool changes it. */
export const checkpointing =
  (timeline: Timeline): Extension =>
  ({ root }) => ({ tools: (tools) => new CheckpointedTools(tools, root, () => timeline.current) });

/** s20's loop, with a checkpoint at each user turn. `history` grows in place; returns how the run ended. */
export async function runAgent(llm: Llm, history: Anthropic.MessageParam[], opts: RunOptions = {}): Promise<RecoveredOutcome> {
  const root = opts.root ?? process.cwd();
  const id = opts.runId ?? runIdOf(history);
  const timeline = timelines.get(id)?.history === history ? timelines.get(id)! : new Timeline(id, root, history);
  timelines.set(id, timeline);
  timeline.root = root;
  timeline.begin();
  const outcome = await previousLoop(llm, history, { ...opts, root, extensions: [checkpointing(timeline), ...(opts.extensions ?? [])] });
  const ran = timeline.current?.commands ?? [];
  if (ran.length > 0) (opts.onUntracked ?? ((n) => say(yellow(`  ${n}`))))(untrackedNote(timeline.current!.n, ran));
  return outcome;
}
// #endregion loop

/** What the user is told about bash: its changes are outside the checkpoints. */
export const untrackedNote = (n: number, commands: readonly string[]) =>
  `checkpoint ${n}: bash ran ${commands.map((c) => JSON.stringify(c.slice(0, 60))).join(", ")}; what a command changed is not recorded, and a rewind will not restore it`;

export type RewindWhat = "code" | "conversation" | "both";

/** What a rewind did, for the user. */
export interface Rewound {
  checkpoint: number;
  prompt: string;
  /** The files put back as they were at the checkpoint (workspace-relative), when the code was rewound. */
  restored: string[];
  /** The files not put back, and why (a link a command made is never followed out of the workspace). */ refused: string[];
  /** The bash commands run since the checkpoint: their changes were not restored. */
  commands: string[];
  /** The files that differ from the checkpoint after the rewind. */
  differ: string[];
  code: boolean;
  conversation: boolean;
}

// #region rewind
/**
 * Back to checkpoint n of a run: the code, the conversation, or both. Every checkpoint after n
 * folds into n first (for each file the earliest state kept wins: its state at n).
 */
export function rewind(runId: string, n: number, what: RewindWhat = "both"): Rewound {
  const timeline = timelines.get(runId);
  if (!timeline) throw new RewindError(`no run "${runId}" to rewind: runIdOf(history) names the conversation a run grew`);
  const checkpoint = Number.isInteger(n) ? timeline.checkpoints[n - 1] : undefined;
  if (!checkpoint) throw new RewindError(`no checkpoint ${n}: this conversation has ${timeline.checkpoints.length} (1 to ${timeline.checkpoints.length})`);
  for (const later of timeline.checkpoints.splice(n)) {
    for (const [path, state] of later.files) if (!checkpoint.files.has(path)) checkpoint.files.set(path, state);
    checkpoint.commands.push(...later.commands);
  }
  const code = what !== "conversation";
  const [restored, refused, commands] = [[] as string[], [] as string[], [...checkpoint.commands]];
  if (code) {
    for (const [path, state] of [...checkpoint.files].sort(([a], [b]) => a.localeCompare(b))) {
      const why = putBack(timeline.root, path, state); // null: put back; else why not (a link is never followed)
      if (why === null) restored.push(path);
      else refused.push(`${path}: ${why}`);
    }
    checkpoint.files.clear(); checkpoint.commands.length = 0;
  }
  if (what !== "code") {
    conversationAt(timeline.history, checkpoint);
    checkpoint.open = true;
  }
  return { checkpoint: n, prompt: checkpoint.prompt, restored, refused, commands, differ: differing(checkpoint.fingerprint, fingerprint(timeline.root)), code, conversation: what !== "code" };
}
// #endregion rewind

/** A rewind, told: what was put back, what was not, and which files still differ from the checkpoint. */
export function describeRewind(r: Rewound): string {
  const lines = [`rewound to checkpoint ${r.checkpoint} (before "${r.prompt.slice(0, 80)}")`];
  if (r.code) lines.push(r.restored.length ? `  code: put back ${r.restored.join(", ")}` : "  code: no file tool changed anything since");
  for (const why of r.refused) lines.push(`  not put back: ${why}`);
  if (r.conversation) lines.push("  conversation: back to just before that prompt");
  if (r.commands.length) lines.push(`  not restored: bash ran ${r.commands.map((c) => JSON.stringify(c.slice(0, 60))).join(", ")}; its changes are not recorded`);
  lines.push(r.differ.length ? `  files that differ from the checkpoint: ${r.differ.join(", ")}` : "  every file is as it was at the checkpoint");
  return lines.join("\n");
}

/**
 * Three turns on a scratch copy of the sample repository: the fix, a second change, a rewind of
 * both to checkpoint 2 (the second change gone, from the files and from the conversation), then a
 * third question, asked over the conversation as it was.
 */
export const demo = (llm: Llm, task = TASK) =>
  transcriptOf(task, SAMPLE_REPOSITORY, async (history, root) => {
    const opts: RunOptions = { root, approve: refuseAll, userConfigDir: root, permissionMode: "acceptEdits", onHookProblem: () => {}, onUntracked: () => {} };
    await runAgent(llm, history, opts);
    for (const prompt of [SECOND, THIRD]) {
      if (prompt === THIRD) rewind(runIdOf(history), 2, "both");
      history.push({ role: "user", content: prompt });
      await runAgent(llm, history, opts);
    }
  });

lesson(import.meta.url, {
  task: TASK,
  workspace: SAMPLE_REPOSITORY,
  before: () => say(dim("checkpoints: each user turn; file edits accepted")),
  run: async ({ llm, history, root, signal, flag }) => {
    const outcome = await runAgent(llm, history, { root, signal, permissionMode: "acceptEdits", onEvent: createLogger({ verbose: flag("verbose") }) });
    const checkpoint = timelineOf(runIdOf(history))?.checkpoints[0];
    const changed = checkpoint ? [...checkpoint.files.keys()] : [];
    say(dim(`checkpoint 1: rewind(runId, 1) would put back ${changed.length ? changed.join(", ") : "nothing (no file tool changed a file)"}`));
    return outcome;
  },
  printAnswer: false,
});
