/**
 * s21 · checkpoints: what a run's file tools changed, kept so that the user can take it back.
 *
 * A Timeline follows one conversation (one history array). Each user turn opens a Checkpoint:
 * where the prompt sits in the history, a fingerprint of every workspace file at that moment, and,
 * filled in as the turn goes, each file write_file or edit_file is about to change, with its
 * previous bytes (null: it did not exist). A rewind to checkpoint n restores the code (every file
 * a file tool changed since n, to its state at n), the conversation (the history cut back to just
 * before n's prompt), or both. What bash changed is not recorded: the rewind says which commands
 * ran and which files still differ from the checkpoint's fingerprint.
 */
import { createHash } from "node:crypto";
import { readFileSync, readdirSync } from "node:fs";
import { join } from "node:path";
import type Anthropic from "@anthropic-ai/sdk";
import { LIST_SKIP } from "../../runtime/tools/files.ts";
import { InsideError, readInside, removeInside, writeInside } from "../../runtime/tools/inside.ts";
import type { ToolContext, ToolRegistry } from "../../solutions/s02_tool_dispatch/registry.ts";
import { SafeToolRegistry } from "../../solutions/s04_tool_errors/define-tool.ts";
import { OutsideWorkspaceError, Workspace } from "../../solutions/s07_safe_tools/workspace.ts";

/** The tools whose changes are recorded (bash's are not: it may touch anything). */
export const FILE_TOOLS: ReadonlySet<string> = new Set(["write_file", "edit_file"]);
/** The fingerprint reads at most this many files (a huge workspace is fingerprinted in part, and says so). */
export const FINGERPRINT_MAX_FILES = 5000;

/** A file's state before a turn's first change to it: its bytes, or null when it did not exist. */
export type FileState = Buffer | null;

export interface Checkpoint {
  /** 1 for the conversation's first user turn, 2 for the next, … */
  readonly n: number;
  /** The prompt's message in the history, and how many blocks precede the prompt in it (the results of a cancelled turn). */
  at: number;
  before: number;
  /** The prompt's words (a rewind of the conversation hands them back). */
  prompt: string;
  /** Each file the file tools changed since this checkpoint (workspace-relative), with its state at the checkpoint. */
  readonly files: Map<string, FileState>;
  /** The bash commands run since this checkpoint: what they changed is not recorded. */
  readonly commands: string[];
  /** A hash of each workspace file at the checkpoint, to show what still differs after a rewind. */
  fingerprint: Map<string, string>;
  /** Its prompt was taken back by a rewind of the conversation: the next prompt reopens it. */
  open: boolean;
}

/** A path of the workspace, relative to its root, or null for one no file tool will touch. */
export function workspacePath(root: string, path: unknown): string | null {
  try {
    const rel = new Workspace(root).relative(path);
    return rel === "." ? null : rel;
  } catch (e) {
    if (e instanceof OutsideWorkspaceError) return null;
    throw e;
  }
}

/**
 * A file's bytes now, or null when there is no file. A command may have left links in the
 * workspace: a link (the file itself, or a folder on the way) is not followed (runtime/tools/inside.ts).
 */
export function stateOf(root: string, rel: string): FileState {
  try {
    return readInside(root, rel, Infinity)?.bytes ?? null;
  } catch (e) {
    if (e instanceof InsideError) return null;
    throw e;
  }
}

/**
 * Puts a file back as it was: its bytes, or no file at all. Never through a link a command made
 * (a rewind must not overwrite or delete a file outside the workspace): returns why it was not
 * put back, or null when it was.
 */
export function putBack(root: string, rel: string, state: FileState): string | null {
  try {
    if (state === null) removeInside(root, rel);
    else writeInside(root, rel, state);
    return null;
  } catch (e) {
    if (e instanceof InsideError) return e.message;
    throw e;
  }
}

/** A hash of every file under the root (node_modules and .git left out), at most FINGERPRINT_MAX_FILES. */
export function fingerprint(root: string): Map<string, string> {
  const out = new Map<string, string>();
  const walk = (rel: string) => {
    for (const e of readdirSync(join(root, rel), { withFileTypes: true }).sort((a, b) => a.name.localeCompare(b.name))) {
      if (out.size >= FINGERPRINT_MAX_FILES) return;
      const path = rel ? `${rel}/${e.name}` : e.name;
      if (e.isDirectory() && !LIST_SKIP.has(e.name)) walk(path);
      else if (e.isFile()) out.set(path, createHash("sha1").update(readFileSync(join(root, path))).digest("hex"));
    }
  };
  walk("");
  return out;
}

/** The files that differ between two fingerprints: changed, added or gone. */
export function differing(then: Map<string, string>, now: Map<string, string>): string[] {
  return [...new Set([...then.keys(), ...now.keys()])].filter((p) => then.get(p) !== now.get(p)).sort();
}

/** The prompt of a turn that starts here: the last message, a user message with text (results of a cancelled turn may precede it). */
export function promptAt(history: readonly Anthropic.MessageParam[]): { at: number; before: number; prompt: string } | null {
  const at = history.length - 1;
  const last = history[at];
  if (last?.role !== "user") return null;
  if (typeof last.content === "string") return { at, before: 0, prompt: last.content };
  const before = last.content.findIndex((b) => b.type !== "tool_result");
  if (before < 0) return null; // only results: the loop goes on, no one asked anything
  return { at, before, prompt: last.content.slice(before).flatMap((b) => (b.type === "text" ? [b.text] : [])).join("\n") };
}

// #region record
/** The run's tools, each write_file and edit_file call recorded before it runs, each bash call noted. */
export class CheckpointedTools extends SafeToolRegistry {
  constructor(
    private readonly inner: ToolRegistry,
    private readonly root: string,
    private readonly current: () => Checkpoint | undefined,
  ) {
    super(inner.names().map((n) => inner.get(n)!));
  }

  override async dispatch(call: Anthropic.ToolUseBlock, ctx?: ToolContext): Promise<Anthropic.ToolResultBlockParam> {
    const checkpoint = this.current();
    const input = call.input as { path?: unknown; command?: unknown };
    if (checkpoint && FILE_TOOLS.has(call.name)) {
      const path = workspacePath(this.root, input.path);
      // NEW: the state at the checkpoint is the one before the turn's FIRST change: a later write keeps it.
      if (path !== null && !checkpoint.files.has(path)) checkpoint.files.set(path, stateOf(this.root, path));
    }
    if (checkpoint && call.name === "bash") checkpoint.commands.push(String(input.command));
    return this.inner.dispatch(call, ctx);
  }
}
// #endregion record

// #region conversation
/**
 * The history as it was just before checkpoint's prompt: cut at the prompt's message, and when the
 * prompt shared that message with the results of a cancelled turn, those results stay (each
 * tool_use before keeps its tool_result). Messages before are kept whole: thinking blocks and all.
 */
export function conversationAt(history: Anthropic.MessageParam[], checkpoint: Checkpoint): void {
  const message = history[checkpoint.at];
  const results = message && typeof message.content !== "string" ? message.content.slice(0, checkpoint.before) : [];
  history.splice(checkpoint.at);
  if (results.length > 0) history.push({ role: "user", content: results });
}
// #endregion conversation
