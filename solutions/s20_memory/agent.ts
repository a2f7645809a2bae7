/**
 * s20_memory: the project tells the agent its ways.
 *
 * Unlike s19, whose agent knew of a project only what it read during the run, the project (and
 * its user) now speak first: the instruction files AGENTS.md and CLAUDE.md, found from the
 * workspace up to the repository root and in the user's config folder, layered (the nearest
 * last), capped, go into the system prompt, where s13's cache breakpoint covers them
 * (instructions.ts). The agent keeps notes across runs with a memory tool confined to a folder
 * of the workspace (memory.ts). And a long run stays lean: past a budget, old tool results leave
 * the request for a short placeholder, the newest kept, every pair intact, the history untouched,
 * what it saves and what it costs the cache measured (context.ts).
 * All three reach s19's loop through s11's extend.ts: `system`, `tools` and `request`.
 *
 * Run: npx tsx solutions/s20_memory/agent.ts ["your task"]   (examples/login-service/AGENTS.md)
 */
import { join } from "node:path";
import type Anthropic from "@anthropic-ai/sdk";
import type { Llm } from "../../runtime/client.ts";
import { lesson, transcriptOf } from "../../runtime/lesson.ts";
import { dim, say } from "../../runtime/print.ts";
import { lessonTask, SAMPLE_REPOSITORY } from "../../runtime/tasks.ts";
import { refuseAll, terminalApprover, type Approver } from "../../solutions/s07_safe_tools/approval.ts";
import { createLogger } from "../../solutions/s09_observability/log.ts";
import { withTools, type Extension } from "../../solutions/s11_recovery/extend.ts";
import { userConfigDir } from "../../solutions/s18_permissions/permissions.ts";
import { runAgent as previousLoop, DEFAULT_MAX_TOKENS, system, type RecoveredOutcome, type RunOptions as HookedOptions } from "../../solutions/s19_hooks/agent.ts";
import { ContextEditor, DEFAULT_POLICY, describeClearing, type ClearPolicy } from "./context.ts";
import { instructionsPrompt, loadInstructions, type Layer } from "./instructions.ts";
import { memoryPrompt, memoryTool } from "./memory.ts";

export { system, DEFAULT_MAX_TOKENS, type RecoveredOutcome };

export const TASK = lessonTask("s20_memory");

export interface RunOptions extends HookedOptions {
  /** The instruction files (default: those found for the workspace and the user's config folder). */
  instructions?: readonly Layer[];
  /** When old tool results are cleared (default DEFAULT_POLICY); false: never. */
  contextEditing?: ClearPolicy | false;
  /** The run's context editor, to read what it cleared (default: a new one per run). */
  contextEditor?: ContextEditor;
  /** Add the memory tool and list the notes (default true). */
  memory?: boolean;
}

// #region loop
/** NEW: the instructions and the notes in the system prompt, the memory tool, old results cleared from each request. */
export const remembering =
  (instructions: string, opts: RunOptions): Extension =>
  ({ root }) => {
    const editor = opts.contextEditing === false ? null : (opts.contextEditor ?? new ContextEditor(opts.contextEditing ?? DEFAULT_POLICY));
    const memory = opts.memory !== false;
    // The notes are listed once, when the run starts: a note written during the run must not change the cached prefix.
    const notes = memory ? memoryPrompt(root) : "";
    // A note's change is asked of the person in every mode: the next run reads it (memory.ts).
    const approveNotes = opts.approve ?? terminalApprover();
    return {
      // The system prompt, not a message: s13 marks its last block, so the cache covers the instructions.
      system: (text) => text + instructions + notes,
      tools: (tools) => (memory ? withTools(tools, memoryTool(root, approveNotes)) : tools),
      // A copy for this request only: the history keeps every result in full.
      request: (request) => (editor ? { messages: editor.edit(request.messages) } : {}),
    };
  };

/** s19's loop, with the project's instructions, a memory and context editing. `history` grows in place. */
export function runAgent(llm: Llm, history: Anthropic.MessageParam[], opts: RunOptions = {}): Promise<RecoveredOutcome> {
  const root = opts.root ?? process.cwd();
  const userDir = opts.userConfigDir ?? userConfigDir();
  const instructions = instructionsPrompt(opts.instructions ?? loadInstructions(root, userDir), root, userDir);
  return previousLoop(llm, history, { ...opts, root, extensions: [remembering(instructions, opts), ...(opts.extensions ?? [])] });
}
// #endregion loop

/** The demo's budget: small, so the sample repository's few files are enough to see a clearing. */
export const DEMO_POLICY: ClearPolicy = { budget: 1_500, keep: 1 };

/** The demo's user: says yes to the memory tool's notes, no to anything else it is asked. */
const notesOnly: Approver = async (q) => (q.command.startsWith("memory ") ? { approved: true } : refuseAll(q));

/** The default task on a scratch copy of the sample repository: its AGENTS.md, an empty memory, a small budget, no user folder. */
export const demo = (llm: Llm, task = TASK) =>
  transcriptOf(task, SAMPLE_REPOSITORY, (history, root) =>
    runAgent(llm, history, { root, approve: notesOnly, userConfigDir: join(root, ".no-user-config"), permissionMode: "acceptEdits", onHookProblem: () => {}, contextEditing: DEMO_POLICY }),
  );

const editor = new ContextEditor(DEMO_POLICY);
lesson(import.meta.url, {
  task: TASK,
  workspace: SAMPLE_REPOSITORY,
  before: () => say(dim(`instructions: examples/login-service/AGENTS.md; memory: .agent/memory/; old tool results cleared past ${DEMO_POLICY.budget} characters`)),
  run: ({ llm, history, root, signal, flag }) => runAgent(llm, history, { root, signal, permissionMode: "acceptEdits", contextEditor: editor, onEvent: createLogger({ verbose: flag("verbose") }) }),
  after: () => say(dim(describeClearing(editor.stats))),
  printAnswer: false,
});
