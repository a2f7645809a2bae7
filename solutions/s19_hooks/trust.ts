/**
 * s19 · which of the project's hooks may run: the ones the person has seen.
 *
 * A hook is a command that runs at every step of every later run. The project's hooks live in the
 * workspace (.agent/settings.json), and the workspace is what the model writes: a hook it planted
 * or changed in one run would run in the next, in the sandbox or, without one, as you. So the
 * program (`npm run agent`) shows each project hook it has not run before, and asks:
 *
 *   hook: .agent/settings.json has a Stop hook you have not approved (new, or changed since you did)
 *   Run `node --test …` at every Stop from now on? (y/N)
 *
 * The answer goes through the run's approver (the terminal's question; --yes answers yes; with no
 * terminal and no --yes the hook is not run, and the line says how to approve it). A yes is kept in
 * the user's config folder (trusted-hooks.json: per workspace, a hash of each approved hook's
 * event, matcher, command and timeout), never in the workspace: a hook changed in any way is new
 * again. The user's own hooks (their settings.json) are theirs: they run without a question.
 * The lessons' own runs (`npm run lesson s19`) take the hooks as they are: a scratch copy of the
 * course's sample repository, not a workspace the model wrote in an earlier run.
 */
import { createHash } from "node:crypto";
import { existsSync, mkdirSync, readFileSync, realpathSync, renameSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import type { Approver } from "../../solutions/s07_safe_tools/approval.ts";
import { projectSettings } from "../../solutions/s18_permissions/permissions.ts";
import { promptSafe } from "../../runtime/terminal-text.ts";
import { readHooks, type Hook } from "./hooks.ts";

/** The record of approved project hooks, in the user's config folder. */
export const TRUST_FILE = "trusted-hooks.json";

/** What identifies a hook for the record: any change to it makes it a hook not yet approved. */
export const hookId = (h: Hook): string => createHash("sha256").update(JSON.stringify([h.event, h.matcher?.source ?? null, h.command, h.timeoutMs])).digest("hex");

const workspaceKey = (root: string) => {
  try {
    return realpathSync(root);
  } catch {
    return resolve(root);
  }
};

/** The approved hooks' ids per workspace (an unreadable record is an empty one: every project hook is asked about again). */
export function readTrust(userDir: string): Record<string, string[]> {
  const file = join(userDir, TRUST_FILE);
  if (!existsSync(file)) return {};
  try {
    const data = JSON.parse(readFileSync(file, "utf8")) as unknown;
    if (typeof data !== "object" || data === null || Array.isArray(data)) return {};
    return Object.fromEntries(Object.entries(data).filter(([, ids]) => Array.isArray(ids)).map(([k, ids]) => [k, (ids as unknown[]).filter((i): i is string => typeof i === "string")]));
  } catch {
    return {};
  }
}

/** Records `ids` as approved for the workspace `root` (the person said yes to them). */
export function recordTrust(userDir: string, root: string, ids: string[]): void {
  const all = readTrust(userDir);
  all[workspaceKey(root)] = [...new Set([...(all[workspaceKey(root)] ?? []), ...ids])];
  mkdirSync(userDir, { recursive: true });
  const file = join(userDir, TRUST_FILE);
  // Written whole, then moved into place: a run stopped halfway never leaves half a record.
  writeFileSync(`${file}.tmp`, `${JSON.stringify(all, null, 2)}\n`, { mode: 0o600 });
  renameSync(`${file}.tmp`, file);
}

/** Records every hook of the workspace's settings as approved: what a person's yes to each of them leaves. */
export const approveWorkspaceHooks = (root: string, userDir: string) => recordTrust(userDir, root, readHooks(projectSettings(root)).map(hookId));

/** One line naming a hook for the person: its event, its matcher, its command (control characters shown, not obeyed). */
export const describeHook = (h: Hook) => `${h.event}${h.matcher ? ` (tools ${h.matcher.source.slice(4, -2)})` : ""} hook \`${promptSafe(h.command)}\``;

/**
 * The hooks a program's run may use: the user's, and the project's that the person approved (now
 * or before). `say` gets a line for each project hook that will not run, with how to approve it.
 */
export async function reviewedHooks(root: string, userDir: string, approve: Approver, say: (line: string) => void): Promise<Hook[]> {
  const user = readHooks(join(userDir, "settings.json"), "the user's settings");
  const project = readHooks(projectSettings(root), ".agent/settings.json");
  const trusted = new Set(readTrust(userDir)[workspaceKey(root)] ?? []);
  const kept: Hook[] = [];
  const approved: string[] = [];
  for (const hook of project) {
    const id = hookId(hook);
    if (trusted.has(id)) {
      kept.push(hook);
      continue;
    }
    const decision = await approve({
      command: hook.command,
      reason: `a ${hook.event} hook of the workspace's .agent/settings.json that you have not approved (new, or changed since you did): it runs at every ${hook.event} from now on`,
    });
    if (decision.approved) {
      kept.push(hook);
      approved.push(id);
    } else say(`hook not run: ${describeHook(hook)} of .agent/settings.json is not approved (${decision.why}); run the agent in a terminal to be asked, or with --yes`);
  }
  if (approved.length > 0) recordTrust(userDir, root, approved);
  return [...user, ...kept];
}

/** For a program: each workspace's hooks reviewed once per run of the program (a conversation is not asked again each turn). */
export function hookReview(say: (line: string) => void): (opts: { root?: string; userConfigDir?: string; approve?: Approver }, defaults: { userDir: string; approve: Approver }) => Promise<Hook[]> {
  const done = new Map<string, Promise<Hook[]>>();
  return (opts, defaults) => {
    const root = opts.root ?? process.cwd();
    const userDir = opts.userConfigDir ?? defaults.userDir;
    const key = `${workspaceKey(root)}\0${userDir}`;
    if (!done.has(key)) done.set(key, reviewedHooks(root, userDir, opts.approve ?? defaults.approve, say));
    return done.get(key)!;
  };
}
