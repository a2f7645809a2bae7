/**
 * s18 · who may do what: permission modes and rules as data.
 *
 * A rule names a tool, and for bash a command pattern, for the file tools a path pattern:
 *
 *   "read_file"            every call of read_file
 *   "bash(node --test*)"   bash commands that match (`*` is any text), judged on what would RUN:
 *                          every command the shell would start (runtime/tools/shell-commands.ts
 *                          reads if/for/while/case, $(…), sh -c, env, xargs, find -exec, /bin/rm,
 *                          \rm …); an allow needs every one to match, a deny or an ask any one;
 *                          a command it cannot read is never allowed, and a deny for commands
 *                          holds against it (it could be hiding what the rule denies)
 *   "write_file(test/**)"  a file tool on a path of the workspace, as written and as it resolves
 *                          through links (s07's globs: `*` within a folder, `**` across them; a
 *                          pattern without "/" at any depth)
 *   "mcp__notes__*"        a tool name may be a glob too
 *
 * Rules come from two settings files, the user's (their config folder) and the project's
 * (`.agent/settings.json` in the workspace), each `{ "permissions": { "allow": [], "ask": [], "deny": [] } }`.
 * Their precedence: deny beats ask beats allow, whichever file a rule is in; so the project's file
 * can narrow what the user allows but never widen what the user denies or asks about.
 *
 * A mode says what happens to a call no rule decides: `default` asks for anything that is not
 * read-only; `acceptEdits` also lets the file tools write in the workspace; `plan` allows
 * read-only tools only, until the user approves a plan; `bypassPermissions` never asks (deny
 * rules still hold), and only where the OS sandbox is on. These are policy, in the agent's own
 * process: the boundary that holds whatever they decide is s07's sandbox.
 */
import { homedir } from "node:os";
import { isAbsolute, join, posix, relative, resolve } from "node:path";
import { z } from "zod";
import { readConfigFile } from "../../runtime/config-file.ts";
import { CourseError } from "../../runtime/env.ts";
import { todo } from "../../runtime/lesson.ts";
import { globToRegExp } from "../../runtime/tools/files.ts";
import { mayMatch, mustMatch, readCommand } from "../../runtime/tools/shell-commands.ts";
import { realLocation } from "../../solutions/s07_safe_tools/workspace.ts";

export const MODES = ["default", "acceptEdits", "plan", "bypassPermissions"] as const;
export type Mode = (typeof MODES)[number];

export type Behavior = "allow" | "ask" | "deny";

/** One rule, with the file it came from (a denial names both). */
export interface Rule {
  behavior: Behavior;
  /** As written: "bash(rm *)". */
  text: string;
  tool: RegExp;
  /** The pattern in brackets, if any. */
  pattern?: string;
  source: string;
}

/** What the gate does with one call, and why (the model reads `reason` when it is refused). */
export interface Verdict {
  behavior: Behavior;
  reason: string;
  rule?: Rule;
}

/** The tools whose input names a path of the workspace (`path`). */
export const PATH_TOOLS = new Set(["read_file", "write_file", "edit_file", "list_files"]);
/** The tools that change files in the workspace: acceptEdits lets them through. */
export const EDIT_TOOLS = new Set(["write_file", "edit_file"]);
/** The tool that ends plan mode, once the user approves the plan it carries. */
export const EXIT_PLAN = "exit_plan_mode";

/** A settings file, or a rule in it, that cannot be read: the file, the rule, what is wrong. */
export class SettingsError extends CourseError {}

const Settings = z.looseObject({
  permissions: z.strictObject({ allow: z.array(z.string()).default([]), ask: z.array(z.string()).default([]), deny: z.array(z.string()).default([]) }).optional(),
});

const RULE = /^([A-Za-z0-9_*?-]+)(?:\((.*)\))?$/s;

/** "bash(rm *)" as a Rule; a rule that cannot be read is a SettingsError naming it. */
export function parseRule(text: string, behavior: Behavior, source: string): Rule {
  const m = RULE.exec(text.trim());
  if (!m) throw new SettingsError(`${source}: the rule ${JSON.stringify(text)} is not "tool" or "tool(pattern)"`);
  const [, name, pattern] = m;
  if (pattern !== undefined && pattern.trim() === "") throw new SettingsError(`${source}: the rule ${JSON.stringify(text)} has an empty pattern: write "${name}" for every call`);
  const tool = new RegExp(`^${name!.replace(/[.+^${}()|[\]\\]/g, "\\$&").replaceAll("*", ".*").replaceAll("?", ".")}$`);
  return { behavior, text: text.trim(), tool, ...(pattern !== undefined ? { pattern: pattern.trim() } : {}), source };
}

/** The rules of one settings file (none when it does not exist); `name` is how a denial names the file. */
export function readSettings(file: string, name = file): Rule[] {
  const data = readConfigFile(file, Settings, '{ "permissions": { "allow": [], "ask": [], "deny": [] } }', (m) => new SettingsError(m));
  if (!data) return [];
  const p = data.permissions;
  if (!p) return [];
  return (["deny", "ask", "allow"] as const).flatMap((b) => p[b].map((t) => parseRule(t, b, name)));
}

/** The user's config folder: AGENT_CONFIG_DIR, else ~/.config/agent-loop-course. */
export function userConfigDir(env: NodeJS.ProcessEnv = process.env): string {
  return env.AGENT_CONFIG_DIR?.trim() || join(homedir(), ".config", "agent-loop-course");
}

/** The project's settings file in a workspace. */
export const projectSettings = (root: string) => join(root, ".agent", "settings.json");

/** Every rule of the user's file and the project's (order does not matter: precedence does). */
export function loadRules(root: string, userDir = userConfigDir()): Rule[] {
  const user = join(userDir, "settings.json");
  return [...readSettings(user, `the user's ${user}`), ...readSettings(projectSettings(root), "the project's .agent/settings.json")];
}

/** The tools whose input is a shell command (`command`). */
export const COMMAND_TOOLS = new Set(["bash", "bash_background"]);

/** A path of the input as the rules see it: relative to the workspace, "/" separated, normalized. */
export function rulePath(path: string, root: string): string {
  const p = isAbsolute(path) ? relative(root, path) : path;
  return posix.normalize(p.split("\\").join("/")).replace(/^\.\//, "");
}

/** The same path where it lands: through the workspace's links (t -> test makes t/a.js test/a.js). */
export function landingPath(path: string, root: string): string {
  return rulePath(relative(realLocation(root), realLocation(resolve(root, path))) || ".", ".");
}

/** Does a command pattern match the command? Deny and ask: any command it would run; allow: every one, and all of them read. */
export function commandMatches(pattern: string, command: string, behavior: Behavior): boolean {
  const reading = readCommand(command);
  const subject = (c: (typeof reading.commands)[number], named: boolean) => [named ? c.name : c.words[0], ...c.words.slice(1)].join(" ");
  if (behavior === "allow")
    return reading.doubts.length === 0 && reading.unsure.length === 0 && reading.commands.length > 0 && reading.commands.every((c) => !c.writes && mustMatch(pattern, subject(c, !c.pathed)));
  // What cannot be read could be anything, the denied command too.
  if (reading.doubts.length > 0 || mustMatch(pattern, command.trim())) return true;
  return reading.commands.some((c) => mayMatch(pattern, subject(c, true)) || mayMatch(pattern, subject(c, false)));
}

/** Does `rule` apply to this call? A deny or an ask needs one part to match; an allow, every part. */
export function ruleMatches(rule: Rule, name: string, input: Record<string, unknown>, root: string): boolean {
  if (!rule.tool.test(name)) return false;
  if (rule.pattern === undefined) return true;
  if (COMMAND_TOOLS.has(name) && typeof input.command === "string") return commandMatches(rule.pattern, input.command, rule.behavior);
  if (!PATH_TOOLS.has(name)) return false;
  const path = typeof input.path === "string" ? input.path : ".";
  const paths = [rulePath(path, root), landingPath(path, root)];
  const glob = globToRegExp(rule.pattern);
  return rule.behavior === "allow" ? paths.every((p) => glob.test(p)) : paths.some((p) => glob.test(p));
}

/** What the gate knows about a call besides its name and input. */
export interface CallFacts {
  /** The tool only reads (s03's flag; s07 classifies bash commands). */
  readOnly: boolean;
  root: string;
}

// #region decide
/** The verdict on one call: the rules first (deny, then ask, then allow), then the mode. */
export function decide(name: string, input: Record<string, unknown>, rules: readonly Rule[], mode: Mode, facts: CallFacts): Verdict {
  // The first rule of a kind that applies to this call (from either file), or undefined.
  const first = (b: Behavior) => rules.find((r) => r.behavior === b && ruleMatches(r, name, input, facts.root));
  // TODO: the rules first, in this order, whichever file each came from (the project cannot widen the user's):
  //       - a deny rule → { behavior: "deny", rule, reason: `denied by the rule "${rule.text}" of ${rule.source}` };
  //       - plan mode and a call that is not read-only → deny, with a reason that says to call EXIT_PLAN with the plan
  //         (EXIT_PLAN itself passes, though it is not read-only: it is how the plan gets approved);
  //       - an ask rule → ask, naming the rule and its file (in bypassPermissions: allow, the reason naming bypassPermissions);
  //       - an allow rule → allow, naming the rule and its file.
  // TODO: then the mode: read-only → allow ("read-only"); acceptEdits and one of EDIT_TOOLS → allow (naming acceptEdits);
  //       bypassPermissions → allow (naming it); anything else → ask, saying the tool (by name) is not read-only.
  //       Every verdict's reason is what the person reads: "permission: bash → allow (<reason>)".
  void [first, EXIT_PLAN, EDIT_TOOLS, mode]; // (delete this line when you use them)
  return todo(`s18 decide: the verdict on a ${name} call (mode ${mode}, ${rules.length} rule(s), ${facts.readOnly ? "read-only" : "not read-only"})`);
}
// #endregion decide
