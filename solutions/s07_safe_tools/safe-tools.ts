/**
 * s07 · the tools of the earlier lessons, made safe: every file path goes through the
 * workspace, and bash goes through the read-only check, the approval gate and runSafeBash.
 * The tool implementations themselves are not copied: they are wrapped.
 */
import { z } from "zod";
import { ToolError } from "../../runtime/tools/files.ts";
import { guardPlantedBash, guardPlantedWrite } from "../../runtime/tools/planted.ts";
import type { ToolSpec } from "../s02_tool_dispatch/registry.ts";
import { defineTool, type CheckedTool } from "../s04_tool_errors/define-tool.ts";
import { checkedTools } from "../s04_tool_errors/tools.ts";
import { unseenReads } from "../../runtime/tools/secrets.ts";
import { classify as classifyWords, terminalApprover, type Approver, type Verdict } from "./approval.ts";
import { words } from "./command-words.ts";
import { SAFE_BASH_TIMEOUT_MS, runSafeBash } from "./safe-bash.ts";
import { OutsideWorkspaceError, Workspace } from "./workspace.ts";

export interface SafetyOptions {
  /** The folder the agent may touch (default: the current directory). */
  workspace?: string;
  /** Asked before a command that is not read-only (default: y/n on the terminal, refused without one). */
  approve?: Approver;
  /** bash limits (defaults: 120 s, 50 000 characters). */
  timeoutMs?: number;
  maxOutput?: number;
  /**
   * Called after a tool may have changed the workspace: a file written or edited, a command
   * that is not read-only run. (s12's run_tests asks first after one, when there is no sandbox.)
   */
  onChange?: (what: string) => void;
}

/** The file tools that change the workspace. */
const WRITES = new Set(["write_file", "edit_file"]);

/**
 * classify (approval.ts), then what a command's words do not show: read-only by its words, but
 * naming a secret (.env, a key, .course/), or reading every file under a folder (grep -r) where a
 * secret or a hard link hides, it asks too (without the sandbox, nothing else would stop it).
 */
function classify(command: string, root: string): Verdict {
  const verdict = classifyWords(command, root);
  if (!verdict.readOnly) return verdict;
  const parsed = words(command);
  const unseen = "stages" in parsed ? unseenReads(parsed.stages, root) : null;
  return unseen ? { readOnly: false, reason: unseen } : verdict;
}

// #region confine
/** A file tool whose `path` must resolve inside the workspace; anything else is an error result. */
export function confine<T extends ToolSpec>(tool: T, workspace: Workspace, onChange?: (what: string) => void): T {
  const properties = tool.input_schema.properties as Record<string, unknown> | undefined;
  if (!properties || !("path" in properties)) return tool;
  return {
    ...tool,
    run: (input, ctx) => {
      let path = input.path;
      if (path !== undefined) {
        try {
          path = workspace.relative(path);
        } catch (e) {
          if (e instanceof OutsideWorkspaceError) throw new ToolError(e.message);
          throw e;
        }
      }
      // Counted before it runs: a write that fails half-way may still have changed something.
      if (WRITES.has(tool.name)) onChange?.(`${tool.name} ${String(path)}`);
      return tool.run(path === undefined ? input : { ...input, path }, { ...ctx, root: workspace.root });
    },
  };
}
// #endregion confine

// #region bash-tool
export function safeBashTool(opts: SafetyOptions, workspace: Workspace): CheckedTool {
  const approve = opts.approve ?? terminalApprover();
  const timeoutMs = opts.timeoutMs ?? SAFE_BASH_TIMEOUT_MS;
  return defineTool({
    name: "bash",
    description:
      "Run a shell command in the workspace. Read-only commands (ls, cat, head, grep, find, wc…) run at once; " +
      "any other command needs the user's approval first.",
    input: z.object({ command: z.string().min(1).describe("The shell command to run") }),
    // The approval question may wait for a person: the tool's deadline must not cut it short.
    timeoutMs: 24 * 3600_000,
    run: async ({ command }, ctx) => {
      const verdict = classify(command, workspace.root);
      if (!verdict.readOnly) {
        const decision = await approve({ command, reason: verdict.reason });
        if (!decision.approved)
          throw new ToolError(
            `not run: this command is not read-only (${verdict.reason}) and ${decision.why}. ` +
              "Read-only commands such as ls, cat, grep or find run without asking.",
          );
      }
      if (!verdict.readOnly) opts.onChange?.(`bash ${command}`);
      const run = await runSafeBash(command, {
        cwd: workspace.root,
        signal: ctx.signal,
        timeoutMs,
        ...(opts.maxOutput !== undefined ? { maxOutput: opts.maxOutput } : {}),
      });
      if (run.timedOut) throw new ToolError(run.text);
      return run.text;
    },
  });
}
// #endregion bash-tool

/**
 * The earlier lessons' tools (s04's checked ones), confined to the workspace, with the safe bash.
 * Writes that would make code run later outside the sandbox (git hooks, package.json scripts…)
 * ask first, and bash's are checked after each command (runtime/tools/planted.ts).
 */
export function safeTools(opts: SafetyOptions = {}, base: CheckedTool[] = checkedTools()): CheckedTool[] {
  const workspace = new Workspace(opts.workspace ?? process.cwd());
  const approve = opts.approve ?? terminalApprover();
  return base.map((tool) => {
    if (tool.name === "bash") return guardPlantedBash(safeBashTool(opts, workspace), workspace.root, approve);
    const confined = confine(tool, workspace, opts.onChange);
    return WRITES.has(tool.name) ? guardPlantedWrite(confined, workspace.root, (p) => workspace.relative(p), approve) : confined;
  });
}
