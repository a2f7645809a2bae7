/**
 * s19 · hooks as commands: where they are configured, how one runs, what its answer means.
 *
 * A settings file (the user's and the project's, as s18 reads them) may hold hooks beside its rules:
 *
 *   { "hooks": { "PreToolUse":  [{ "matcher": "bash", "command": "./check.sh" }],
 *                "PostToolUse": [{ "command": "…" }], "UserPromptSubmit": [ … ],
 *                "Stop":        [{ "command": "node --test >/dev/null 2>&1 || { echo 'the tests still fail' >&2; exit 2; }", "timeout": 60 }] } }
 *
 * A hook is a shell command run in the OS sandbox (s07's spawnTool) in the workspace, with a
 * timeout. It gets the event as JSON on stdin and answers with its exit code and stdout:
 *
 *   exit 0, stdout empty            nothing to say
 *   exit 0, stdout a JSON object    { "decision": "allow" | "deny" | "block", "reason": "…",
 *                                     "updatedInput": { … }, "additionalContext": "…" }
 *   exit 2                          block (deny the call, send the model back): stderr is the reason
 *   anything else                   the hook is broken (a crash, a hang, output that is not that JSON):
 *                                   reported, and the run goes on as if it had said nothing
 *
 * This file runs hooks and merges their answers; agent.ts calls them at the loop's steps.
 */
import { join } from "node:path";
import { z } from "zod";
import { readConfigFile } from "../../runtime/config-file.ts";
import { promptSafe } from "../../runtime/terminal-text.ts";
import { capOutput } from "../../runtime/tools/bash.ts";
import { spawnTool } from "../../runtime/tools/sandbox.ts";
import { SettingsError, projectSettings, userConfigDir } from "../../solutions/s18_permissions/permissions.ts";

export const EVENTS = ["PreToolUse", "PostToolUse", "UserPromptSubmit", "Stop"] as const;
export type HookEvent = (typeof EVENTS)[number];

/** How long a hook may run when its entry gives no "timeout" (seconds there). */
export const HOOK_TIMEOUT_MS = 30_000;
/** What a hook may print that is kept (a reason or a context longer than this is cut). */
export const HOOK_MAX_OUTPUT = 4_000;

export interface Hook {
  event: HookEvent;
  command: string;
  /** The tools it is for (PreToolUse, PostToolUse): a glob of tool names; none is every tool. */
  matcher?: RegExp;
  timeoutMs: number;
  /** The settings file it came from (a report names it). */
  source: string;
}

const Entry = z.strictObject({ command: z.string().min(1), matcher: z.string().min(1).optional(), timeout: z.number().positive().max(600).optional() });
const Settings = z.looseObject({ hooks: z.strictObject(Object.fromEntries(EVENTS.map((e) => [e, z.array(Entry).optional()])) as Record<HookEvent, z.ZodOptional<z.ZodArray<typeof Entry>>>).optional() });

/** The hooks of one settings file (none when it does not exist); a mistake is a SettingsError naming the file and field. */
export function readHooks(file: string, name = file): Hook[] {
  const expected = `{ "hooks": { "PreToolUse": [{ "command": "…", "matcher": "bash", "timeout": 30 }], … } } with the events ${EVENTS.join(", ")}`;
  const data = readConfigFile(file, Settings, expected, (m) => new SettingsError(m));
  if (!data) return [];
  const hooks = data.hooks ?? {};
  return EVENTS.flatMap((event) =>
    (hooks[event] ?? []).map((e) => ({ event, command: e.command, ...(e.matcher ? { matcher: toolGlob(e.matcher) } : {}), timeoutMs: (e.timeout ?? HOOK_TIMEOUT_MS / 1000) * 1000, source: name })),
  );
}

/** A tool-name glob ("bash", "mcp__*", "write_file|edit_file") as a RegExp. */
const toolGlob = (glob: string) => new RegExp(`^(?:${glob.replace(/[.+^${}()[\]\\]/g, "\\$&").replaceAll("*", ".*").replaceAll("?", ".")})$`);

/** The user's hooks, then the project's (.agent/settings.json), both run. */
export const loadHooks = (root: string, userDir = userConfigDir()): Hook[] => [...readHooks(join(userDir, "settings.json"), "the user's settings"), ...readHooks(projectSettings(root), ".agent/settings.json")];

// #region answer
/** What the hooks of one event said, merged: any block wins; the last updatedInput; every context. */
export interface HookAnswer {
  /** "block": deny the call (PreToolUse) or send the model back (Stop). "allow": no question asked (PreToolUse). */
  decision?: "allow" | "block";
  /** Why it blocked (or allowed): what the model is told. */
  reason?: string;
  /** PreToolUse: the input the call runs with instead. */
  updatedInput?: Record<string, unknown>;
  /** PostToolUse, UserPromptSubmit: text for the model. */
  context?: string;
}
// #endregion answer

/** A hook that did not answer as it should: reported to the person, never to the loop. */
export interface HookProblem {
  hook: Hook;
  problem: string;
}

const Reply = z.strictObject({
  decision: z.enum(["allow", "deny", "block", "approve"]).optional(),
  reason: z.string().optional(),
  updatedInput: z.record(z.string(), z.unknown()).optional(),
  additionalContext: z.string().optional(),
});

/** Runs one hook with `event` on stdin: its answer, or the problem (a crash, a hang, garbage). */
export function runHook(hook: Hook, event: Record<string, unknown>, root: string, signal?: AbortSignal): Promise<HookAnswer | HookProblem> {
  return new Promise((resolve) => {
    if (signal?.aborted) return resolve({ hook, problem: "was not run: the run was stopped (--timeout or Ctrl-C)" });
    const proc = spawnTool(["bash", "-c", hook.command], { workspace: root, stdin: JSON.stringify({ hook_event_name: hook.event, cwd: root, ...event }) });
    let out = "";
    let err = "";
    proc.child.stdout.on("data", (c: Buffer) => void (out.length < HOOK_MAX_OUTPUT * 4 && (out += c.toString("utf8"))));
    proc.child.stderr.on("data", (c: Buffer) => void (err.length < HOOK_MAX_OUTPUT * 4 && (err += c.toString("utf8"))));
    const broken = (problem: string) => resolve({ hook, problem });
    // The hook is done when its shell is: what it left running (`cmd &`, setsid) goes with it, as
    // s07's bash does (the sandbox takes it along; without one, killAll finds it by the run's marker).
    proc.child.on("exit", () => void proc.killAll());
    // Its own timeout, or the run's (--timeout, Ctrl-C): a hook that hangs is stopped either way.
    const stop = (why: string) => {
      clearTimeout(timer);
      signal?.removeEventListener("abort", onAbort);
      const { note } = proc.killAll();
      proc.child.stdout.destroy();
      proc.child.stderr.destroy();
      proc.cleanup();
      broken(`${why} and was stopped (${note})`);
    };
    const timer = setTimeout(() => stop(`did not answer within ${hook.timeoutMs / 1000} s`), hook.timeoutMs);
    const onAbort = () => stop("was still running when the run was stopped (--timeout or Ctrl-C)");
    signal?.addEventListener("abort", onAbort, { once: true });
    proc.child.on("error", (e) => {
      clearTimeout(timer);
      signal?.removeEventListener("abort", onAbort);
      proc.cleanup();
      broken(`could not start: ${e.message}`);
    });
    proc.child.on("close", (code) => {
      clearTimeout(timer);
      signal?.removeEventListener("abort", onAbort);
      proc.killAll();
      proc.cleanup();
      // What the model will read: control and invisible characters written out (promptSafe).
      const said = promptSafe(capOutput(err.trim(), HOOK_MAX_OUTPUT));
      if (code === 2) return resolve({ decision: "block", reason: said || `a ${hook.event} hook blocked it (${hook.command})` });
      if (code !== 0) return broken(`exited with code ${code ?? "none (killed)"}${said ? `: ${said}` : ""}`);
      if (out.trim() === "") return resolve({});
      let json: unknown;
      try {
        json = JSON.parse(out);
      } catch {
        return broken(`printed what is not JSON: ${JSON.stringify(capOutput(out.trim(), 200))}`);
      }
      const reply = Reply.safeParse(json);
      if (!reply.success) return broken(`answered ${JSON.stringify(capOutput(out.trim(), 200))}: ${reply.error.issues[0]!.path.join(".") || "(the answer)"}: ${reply.error.issues[0]!.message}`);
      const r = reply.data;
      const decision = r.decision === "deny" || r.decision === "block" ? "block" : r.decision ? "allow" : undefined;
      resolve({
        ...(decision ? { decision } : {}),
        ...(r.reason ? { reason: promptSafe(capOutput(r.reason, HOOK_MAX_OUTPUT)) } : {}),
        ...(r.updatedInput ? { updatedInput: r.updatedInput } : {}),
        ...(r.additionalContext ? { context: promptSafe(capOutput(r.additionalContext, HOOK_MAX_OUTPUT)) } : {}),
      });
    });
  });
}

/** The run's hooks: runs those of an event (for a tool, those whose matcher fits) and merges their answers. */
export class Hooks {
  constructor(
    readonly list: readonly Hook[],
    readonly root: string,
    /** Each broken hook, as it is found (the program prints it; tests collect it). */
    readonly onProblem: (p: HookProblem) => void = () => {},
    /** The run's signal (--timeout, Ctrl-C): a hook still running is stopped, none is started after. */
    readonly signal?: AbortSignal,
  ) {}

  has(event: HookEvent): boolean {
    return this.list.some((h) => h.event === event);
  }

  async run(event: HookEvent, payload: Record<string, unknown>, tool?: string): Promise<HookAnswer> {
    const merged: HookAnswer = {};
    const reasons: string[] = [];
    const contexts: string[] = [];
    for (const hook of this.list.filter((h) => h.event === event && (!h.matcher || (tool !== undefined && h.matcher.test(tool))))) {
      // The run was stopped: no more hooks, and a tool call their answer was for does not run.
      if (this.signal?.aborted) return event === "PreToolUse" ? { decision: "block", reason: "the run was stopped (--timeout or Ctrl-C) before the hooks answered" } : {};
      const a = await runHook(hook, payload, this.root, this.signal);
      if ("problem" in a) {
        this.onProblem(a);
        continue;
      }
      if (a.decision === "block" || (a.decision === "allow" && merged.decision !== "block")) merged.decision = a.decision;
      if (a.reason) reasons.push(a.reason);
      if (a.updatedInput) merged.updatedInput = a.updatedInput;
      if (a.context) contexts.push(a.context);
    }
    if (this.signal?.aborted && event === "PreToolUse") return { decision: "block", reason: "the run was stopped (--timeout or Ctrl-C) while the hooks ran" };
    if (reasons.length) merged.reason = reasons.join("; ");
    if (contexts.length) merged.context = contexts.join("\n");
    return merged;
  }
}

/** One line for the person about a broken hook. */
export const describeProblem = ({ hook, problem }: HookProblem) => `the ${hook.event} hook "${hook.command}" of ${hook.source} ${problem}; it was ignored`;
