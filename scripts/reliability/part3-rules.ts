/**
 * Part III, 2: s18's rules fuzzed. fast-check generates rule sets for the user's file and the
 * project's (tool names, tool globs, command and path patterns), a mode, and a call (compound
 * commands, commands inside $(…), backquotes and sub-shells, paths in many spellings), and checks
 * three properties against s18's own code:
 *
 *   user-deny-holds   the rules read from the two settings files (real files, loadRules): when a
 *                     rule of the user's file denies the call, the verdict is deny; when one asks
 *                     (and the mode is not bypassPermissions), the verdict is ask or deny. Nothing
 *                     in the project's file changes that, nor another spelling of the command
 *                     (if/for/!/&&, /bin/, \\, env, command, timeout, bash -c, eval, xargs): the
 *                     user's deny that matches the plain command holds against the spelt one.
 *   precedence        for every tool, any rule set in any order: a matching deny gives deny, else
 *                     (plan mode aside) a matching ask gives ask, else a matching allow gives allow;
 *                     the verdict names the rule that decided it
 *   denied-is-error   through s18's PermissionGate: a denied call is not run and is answered with an
 *                     is_error tool_result naming the rule and its file; an asked call the user
 *                     refuses is not run either
 *
 * A failure is shrunk by fast-check and printed as the rules and the call, as the fuzz part does.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type Anthropic from "@anthropic-ai/sdk";
import fc from "fast-check";
import { solution } from "./part3-common.ts";

type Perms = typeof import("../../solutions/s18_permissions/permissions.ts");
type Agent = typeof import("../../solutions/s18_permissions/agent.ts");
type Approval = typeof import("../../solutions/s07_safe_tools/approval.ts");
type Define = typeof import("../../solutions/s04_tool_errors/define-tool.ts");
type Rule = ReturnType<Perms["parseRule"]>;
type Mode = Perms["MODES"][number];
type Decide = Perms["decide"];
type Verdict = ReturnType<Decide>;

export const RULE_TOOLS = ["bash", "read_file", "write_file", "edit_file", "list_files", "run_tests", "bash_background", "mcp__notes__add"] as const;
const NAME_GLOBS = ["*", "*_file", "mcp__*", "mcp__notes__*", "bash*"];
const COMMAND_PATTERNS = ["rm *", "git *", "git push*", "node --test*", "npm *", "*", "echo *", "ls*"];
const PATH_PATTERNS = ["src/**", "**", "*.env", ".env", "test/**", "src/*.js", ".agent/**", "notes.txt"];
const PIECES = ["rm -rf build", "rm notes.txt", "git push origin main", "git status", "node --test", "npm run build", "ls -la", "echo hi", "cat notes.txt"];
const JOINS = [" && ", "; ", " | ", " || ", "\n"];
const WRAPS = [(c: string) => `echo $(${c})`, (c: string) => `echo \`${c}\``, (c: string) => `(${c})`, (c: string) => `{ ${c}; }`];
const PATHS = ["src/app.js", "./src/../src/app.js", "lib/../src/app.js", ".env", "test/a.test.js", "src//app.js", "notes.txt", ".agent/settings.json", "../outside.txt", "ROOT/src/app.js"];

/** The same simple command spelt otherwise (s18 judges what would run): a compound command, a path, a backslash, a wrapper, a shell. */
const SPELLINGS = [
  (c: string) => `if true; then ${c}; fi`,
  (c: string) => `for x in 1; do ${c}; done`,
  (c: string) => `! ${c}`,
  (c: string) => `true && \\${c}`,
  (c: string) => `/bin/${c}`,
  (c: string) => `env A=1 ${c}`,
  (c: string) => `command ${c}`,
  (c: string) => `timeout 5 ${c}`,
  (c: string) => `bash -c '${c}'`,
  (c: string) => `eval '${c}'`,
  (c: string) => `echo x | xargs ${c}`,
];

export interface GenCall {
  name: string;
  input: Record<string, unknown>;
  /** For a spelt command: the plain command it runs (a deny of the user's that matches it must hold). */
  runs?: string;
}

const PATH_NAMES = new Set(["read_file", "write_file", "edit_file", "list_files"]);

/** A rule's text: a tool name or glob, with a pattern that fits it (commands for bash, paths for the file tools). */
const ruleText = fc.oneof(
  fc.constantFrom(...RULE_TOOLS, ...NAME_GLOBS),
  fc.tuple(fc.constantFrom("bash", "bash*"), fc.constantFrom(...COMMAND_PATTERNS)).map(([n, p]) => `${n}(${p})`),
  fc.tuple(fc.constantFrom("read_file", "write_file", "edit_file", "list_files", "*_file"), fc.constantFrom(...PATH_PATTERNS)).map(([n, p]) => `${n}(${p})`),
);
const lists = fc.record({ allow: fc.array(ruleText, { maxLength: 4 }), ask: fc.array(ruleText, { maxLength: 3 }), deny: fc.array(ruleText, { maxLength: 3 }) });

const command: fc.Arbitrary<string> = fc.oneof(
  fc.constantFrom(...PIECES),
  fc.tuple(fc.constantFrom(...PIECES), fc.constantFrom(...JOINS), fc.constantFrom(...PIECES)).map(([a, j, b]) => `${a}${j}${b}`),
  fc.tuple(fc.constantFrom(...PIECES), fc.nat({ max: WRAPS.length - 1 })).map(([c, w]) => WRAPS[w]!(c)),
);

/** A call of any tool (the root's absolute spelling is filled in by the property). */
const spelt = fc.tuple(fc.constantFrom(...PIECES), fc.nat({ max: SPELLINGS.length - 1 })).map(([c, i]) => ({ command: SPELLINGS[i]!(c), runs: c }));

export const callArb: fc.Arbitrary<GenCall> = fc.constantFrom<string>(...RULE_TOOLS).chain((name): fc.Arbitrary<GenCall> =>
  name === "bash" || name === "bash_background"
    ? fc.oneof(
        command.map((c): GenCall => ({ name, input: { command: c } })),
        spelt.map(({ command: c, runs }): GenCall => ({ name, input: { command: c }, runs })),
      )
    : PATH_NAMES.has(name) ? fc.constantFrom(...PATHS).map((p): GenCall => ({ name, input: { path: p, content: "x" } })) : fc.constant<GenCall>({ name, input: {} }),
);

const modeArb = fc.constantFrom<Mode>("default", "acceptEdits", "plan", "bypassPermissions");
const ROOT = "/w/ws";
const withRoot = (c: GenCall, root: string): GenCall => (typeof c.input.path === "string" && c.input.path.startsWith("ROOT/") ? { ...c, input: { ...c.input, path: join(root, c.input.path.slice(5)) } } : c);

export interface RulesProperty {
  id: "user-deny-holds" | "precedence" | "denied-is-error";
  what: string;
  runs: number;
  violations: number;
  counterexample?: string;
}

export interface RulesDeps {
  perms: Perms;
  agent: Agent;
  approval: Approval;
  define: Define;
  /** The verdict function under test (a probe passes a broken one). */
  decide: Decide;
  /** The gate under test (a probe passes one with its protection removed). */
  gate: (inner: InstanceType<Define["SafeToolRegistry"]>, policy: InstanceType<Agent["Policy"]>) => { dispatch(call: Anthropic.ToolUseBlock): Promise<Anthropic.ToolResultBlockParam> };
}

export async function rulesDeps(): Promise<RulesDeps | null> {
  const perms = await solution<Perms>("s18_permissions", "permissions.ts");
  const agent = await solution<Agent>("s18_permissions");
  const approval = await solution<Approval>("s07_safe_tools", "approval.ts");
  const define = await solution<Define>("s04_tool_errors", "define-tool.ts");
  if (!perms || !agent || !approval || !define) return null;
  return { perms, agent, approval, define, decide: perms.decide, gate: (inner, policy) => new agent.PermissionGate(inner, policy) };
}

const readOnlyOf = (d: RulesDeps, c: GenCall, root: string) => (c.name === "bash" ? d.approval.classify(String(c.input.command), root).readOnly : c.name === "read_file" || c.name === "list_files");
const shownCall = (c: GenCall) => `${c.name} ${JSON.stringify(c.input)}`;

/** user-deny-holds: real settings files (in `dir`: ws/.agent/settings.json, user/settings.json), read by loadRules, decided by `decide`. */
export function userDenyHolds(d: RulesDeps, dir: string): fc.IProperty<[{ allow: string[]; ask: string[]; deny: string[] }, { allow: string[]; ask: string[]; deny: string[] }, Mode, GenCall]> {
  const root = join(dir, "ws");
  const user = join(dir, "user");
  mkdirSync(join(root, ".agent"), { recursive: true });
  mkdirSync(user, { recursive: true });
  return fc.property(lists, lists, modeArb, callArb, (userLists, projectLists, mode, generated) => {
    const c = withRoot(generated, root);
    writeFileSync(join(user, "settings.json"), JSON.stringify({ permissions: userLists }));
    writeFileSync(join(root, ".agent", "settings.json"), JSON.stringify({ permissions: projectLists }));
    const rules = d.perms.loadRules(root, user);
    const userRules = rules.filter((r) => r.source.startsWith("the user's"));
    const matching = (b: string) => userRules.find((r) => r.behavior === b && d.perms.ruleMatches(r, c.name, c.input, root));
    const v = d.decide(c.name, c.input, rules, mode, { readOnly: readOnlyOf(d, c, root), root });
    const deny = matching("deny");
    if (deny && v.behavior !== "deny") throw new Error(`the user's rule deny "${deny.text}" matches ${shownCall(c)}, and the verdict is ${v.behavior} (${v.reason}): the project's file widened the user's deny`);
    // A spelt command meets the deny rules its plain form meets.
    const plain = c.runs !== undefined ? userRules.find((r) => r.behavior === "deny" && d.perms.ruleMatches(r, c.name, { command: c.runs }, root)) : undefined;
    if (plain && v.behavior !== "deny") throw new Error(`the user's rule deny "${plain.text}" matches ${JSON.stringify(c.runs)}, which ${shownCall(c)} runs, and the verdict is ${v.behavior} (${v.reason}): a rule is judged on what runs, not how it is spelt`);
    const ask = matching("ask");
    if (!deny && ask && mode !== "bypassPermissions" && v.behavior === "allow") throw new Error(`the user's rule ask "${ask.text}" matches ${shownCall(c)}, and the verdict is allow (${v.reason}): the project's file widened the user's ask`);
    return true;
  });
}

/** precedence: any rules, any order, every tool. */
export function precedence(d: RulesDeps): fc.IProperty<[Array<{ text: string; behavior: "allow" | "ask" | "deny"; user: boolean }>, Mode, GenCall, number]> {
  const ruleArb = fc.record({ text: ruleText, behavior: fc.constantFrom<"allow" | "ask" | "deny">("allow", "ask", "deny"), user: fc.boolean() });
  return fc.property(fc.array(ruleArb, { maxLength: 8 }), modeArb, callArb, fc.nat(), (specs, mode, generated, seed) => {
    const c = withRoot(generated, ROOT);
    const rules: Rule[] = specs.map((s) => d.perms.parseRule(s.text, s.behavior, s.user ? "the user's settings.json" : "the project's .agent/settings.json"));
    const readOnly = readOnlyOf(d, c, ROOT);
    const matches = (b: string) => rules.some((r) => r.behavior === b && d.perms.ruleMatches(r, c.name, c.input, ROOT));
    const want = matches("deny")
      ? "deny"
      : mode === "plan" && !readOnly && c.name !== d.perms.EXIT_PLAN
        ? "deny"
        : matches("ask")
          ? mode === "bypassPermissions"
            ? "allow"
            : "ask"
          : matches("allow")
            ? "allow"
            : undefined;
    // The same rules in another order give the same verdict.
    const shuffled = [...rules].sort((a, b) => ((a.text.length * 31 + seed) % 7) - ((b.text.length * 31 + seed) % 7));
    const v = d.decide(c.name, c.input, rules, mode, { readOnly, root: ROOT });
    const w = d.decide(c.name, c.input, shuffled, mode, { readOnly, root: ROOT });
    if (want && v.behavior !== want) throw new Error(`${shownCall(c)} in ${mode}: the verdict is ${v.behavior} (${v.reason}), not ${want}: deny beats ask beats allow`);
    if (v.behavior !== w.behavior) throw new Error(`${shownCall(c)} in ${mode}: the verdict depends on the rules' order (${v.behavior}, then ${w.behavior})`);
    // The rule that decided it: a matching rule of the kind that won (plan mode's deny has none).
    const kind = matches("deny") ? "deny" : mode === "plan" && !readOnly && c.name !== d.perms.EXIT_PLAN ? null : matches("ask") ? "ask" : matches("allow") ? "allow" : null;
    if (kind && !(v.rule && v.rule.behavior === kind && d.perms.ruleMatches(v.rule, c.name, c.input, ROOT))) throw new Error(`${shownCall(c)} in ${mode}: a ${kind} rule decided it, and the verdict names ${v.rule ? `"${v.rule.text}" (${v.rule.behavior})` : "no rule"}`);
    return true;
  });
}

/**
 * The verdict the gate owes a call, as s18's page states it: the call's own rules and mode; a tool
 * that runs a shell command (bash_background) meets bash's rules too, and of the two verdicts a deny
 * wins, then an ask a rule made, then an allow a rule made, then the tool's own (the mode's).
 * Written here from the page, not taken from the gate's Policy, so a gate that merges them wrongly fails.
 */
function expectedVerdict(d: RulesDeps, c: GenCall, rules: Rule[], mode: Mode): Verdict {
  const facts = { readOnly: readOnlyOf(d, c, ROOT), root: ROOT };
  const own = d.perms.decide(c.name, c.input, rules, mode, facts);
  const command = c.input.command;
  if (c.name === "bash" || !d.perms.COMMAND_TOOLS.has(c.name) || typeof command !== "string") return own;
  const asBash = d.perms.decide("bash", { command }, rules, mode, facts);
  const rank = (v: Verdict) => (v.behavior === "deny" ? 3 : !v.rule ? 0 : v.behavior === "ask" ? 2 : 1);
  return rank(asBash) > rank(own) ? asBash : own;
}

/** denied-is-error: through the gate, with tools that record whether they ran. */
export function deniedIsError(d: RulesDeps): fc.IAsyncProperty<[Array<{ text: string; behavior: "allow" | "ask" | "deny"; user: boolean }>, Mode, GenCall]> {
  const ruleArb = fc.record({ text: ruleText, behavior: fc.constantFrom<"allow" | "ask" | "deny">("allow", "ask", "deny"), user: fc.boolean() });
  return fc.asyncProperty(fc.array(ruleArb, { maxLength: 6 }), modeArb, callArb, async (specs, mode, generated) => {
    const c = withRoot(generated, ROOT);
    const rules: Rule[] = specs.map((s) => d.perms.parseRule(s.text, s.behavior, s.user ? "the user's settings.json" : "the project's .agent/settings.json"));
    const ran: string[] = [];
    const inner = new d.define.SafeToolRegistry(RULE_TOOLS.map((name) => ({ name, description: `a stand-in for ${name}`, input_schema: { type: "object" as const }, readOnly: name === "read_file" || name === "list_files", run: () => (ran.push(name), "ran") })));
    const policy = new d.agent.Policy(mode, rules, d.approval.refuseAll, ROOT);
    const gate = d.gate(inner, policy);
    const id = "toolu_part3_rules";
    const result = await gate.dispatch({ type: "tool_use", id, name: c.name, input: c.input } as Anthropic.ToolUseBlock);
    const v = expectedVerdict(d, c, rules, mode);
    const content = typeof result.content === "string" ? result.content : JSON.stringify(result.content);
    if (result.tool_use_id !== id) throw new Error(`${shownCall(c)}: the result answers ${result.tool_use_id}, not the call`);
    if (v.behavior === "deny") {
      if (ran.length > 0) throw new Error(`${shownCall(c)} was denied (${v.reason}) and ran anyway`);
      if (result.is_error !== true) throw new Error(`${shownCall(c)} was denied, and its result is not is_error: ${content.slice(0, 120)}`);
      if (v.rule && !(content.includes(v.rule.text) && content.includes(v.rule.source))) throw new Error(`${shownCall(c)} was denied by "${v.rule.text}" of ${v.rule.source}; the result does not name them: ${content.slice(0, 160)}`);
    } else if (v.behavior === "ask") {
      if (ran.length > 0 || result.is_error !== true) throw new Error(`${shownCall(c)} was asked about, the user said no, and it ${ran.length ? "ran" : "was not answered is_error"}`);
    } else if (ran.length !== 1) throw new Error(`${shownCall(c)} was allowed (${v.reason}) and did not run: ${content.slice(0, 120)}`);
    return true;
  });
}

const WHAT: Record<RulesProperty["id"], string> = {
  "user-deny-holds": "a deny (or ask) in the user's file is never widened by the project's file (both read from disk)",
  precedence: "deny beats ask beats allow, for every tool, in any order; the verdict names its rule",
  "denied-is-error": "a denied call is not run, answered is_error naming the rule and its file",
};

/** Runs the three properties `runs` times each; a failure keeps its shrunk counterexample. */
export async function runRulesPart(runs: number, seed?: number, deps?: RulesDeps): Promise<RulesProperty[] | null> {
  const d = deps ?? (await rulesDeps());
  if (!d) return null;
  const params = { numRuns: runs, ...(seed !== undefined ? { seed } : {}), endOnFailure: false };
  const out: RulesProperty[] = [];
  const record = (id: RulesProperty["id"], r: fc.RunDetails<unknown[]>) => {
    const row: RulesProperty = { id, what: WHAT[id], runs: r.numRuns, violations: r.failed ? 1 : 0 };
    if (r.failed && r.counterexample) {
      const why = r.errorInstance instanceof Error ? r.errorInstance.message : String(r.errorInstance);
      row.counterexample = `${id} (seed ${r.seed}, shrunk after ${r.numShrinks} steps): ${why}\n  input: ${fc.stringify(r.counterexample)}`;
    }
    out.push(row);
  };
  const dir = mkdtempSync(join(tmpdir(), "part3-rules-"));
  try {
    record("user-deny-holds", fc.check(userDenyHolds(d, dir), params) as unknown as fc.RunDetails<unknown[]>);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  record("precedence", fc.check(precedence(d), params) as unknown as fc.RunDetails<unknown[]>);
  record("denied-is-error", (await fc.check(deniedIsError(d), params)) as unknown as fc.RunDetails<unknown[]>);
  return out;
}
