/**
 * Nothing planted for later. The sandbox bounds what a command does NOW; some files make code run
 * LATER, outside any sandbox, when the user (or their tools) next touches the project:
 *
 *   .git/config, .git/hooks, .git/info   git runs hooks, fsmonitor, filters, pagers on the next git command
 *   package.json                         npm runs its scripts on npm install / test / start
 *   .npmrc, .yarnrc*, .pnpmfile.cjs      npm/yarn/pnpm configuration (script shell, node options, install hooks)
 *   .envrc                               direnv runs it on cd
 *   .vscode/, .husky/, .claude/          editor tasks, git hooks by husky, an agent's hooks and skills
 *   .agent/, AGENTS.md, CLAUDE.md        this agent's settings, hooks and memory; the instruction files (s18–s20)
 *   .mcp.json, the --mcp-config file     the next run starts the commands it names…
 *   …and the sources it starts, --skills  …and reads skills into its prompt
 *
 * Three layers, for every write a tool makes:
 *
 * 1. The file tools (s07's write_file, edit_file): a write to such a path asks first (`guardPlanted`
 *    in safe-tools.ts), named for what it is; refused, nothing is written.
 * 2. In the sandbox, such paths that exist are bound read-only (`plantedBinds`, used by
 *    sandbox.ts; a .git folder whole: git commands that only read still work, a commit does not):
 *    the kernel refuses the write, whatever the command.
 * 3. After every command that is not read-only (sandbox or not), the planted paths are compared
 *    with a snapshot taken before it (`snapshot`/`changes`): a file created or changed there is
 *    named and asked about, and put back as it was when refused.
 *
 * Every decision goes into the run's journal, listed at the end of the run (`takeJournal`).
 * Limits: the walk looks `MAX_DEPTH` folders deep and at `MAX_ENTRIES` entries (node_modules
 * skipped); a source an MCP server imports (not named in its config) is not known here.
 */
import { chmodSync, lstatSync, mkdirSync, readdirSync, readFileSync, readlinkSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { dirname, isAbsolute, join, relative, resolve, sep } from "node:path";
import { realpathSync } from "node:fs";
import { ToolError } from "./files.ts";

/** What a path of the workspace `root` is, when writing it plants code that runs later; undefined otherwise. */
export function plantedKind(relPath: string, root?: string): string | undefined {
  const rel = relPath.split(sep).join("/").replace(/^\.\//, "");
  const parts = rel.split("/");
  const name = parts[parts.length - 1] ?? "";
  if (root !== undefined) for (const p of protectedPaths) if (inside(p.abs, resolve(root, rel))) return p.kind;
  if (parts.includes("node_modules")) return undefined;
  if (parts.includes(".git")) return "git configuration or hook (git runs it on your next git command)";
  if (name === "package.json") return "package.json (npm runs its scripts on install, test, start)";
  if ([".npmrc", ".yarnrc", ".yarnrc.yml", ".pnpmfile.cjs"].includes(name)) return "package manager configuration (it can run code on install)";
  if (name === ".envrc") return "direnv script (it runs when you enter the folder)";
  if (name === ".mcp.json") return "MCP configuration (the next run starts the commands it names)";
  if (parts.includes(".vscode")) return "editor tasks and settings (they may run when the folder is opened)";
  if (parts.includes(".husky")) return "git hook (husky)";
  if (parts.includes(".claude")) return "agent hooks and skills (they run or enter the prompt in the next session)";
  if (parts.includes(".agent")) return "the agent's own settings, hooks or memory (rules and hooks take effect, notes enter the prompt, in the next run)";
  if (["AGENTS.md", "CLAUDE.md", "AGENTS.override.md", "CLAUDE.local.md"].includes(name)) return "instruction file (it enters the next run's system prompt)";
  return undefined;
}

// #region protected
/** Paths the program itself will run or read later (the MCP config, its sources, the skills). */
const protectedPaths: Array<{ abs: string; kind: string }> = [];

function inside(parent: string, child: string): boolean {
  const rel = relative(parent, child);
  return rel === "" || (rel !== ".." && !rel.startsWith(`..${sep}`) && !isAbsolute(rel));
}

/** Protects `path` (a file or a folder) as `kind`: in whatever workspace it lies, a write to it is planting. */
export function protectPath(path: string, kind: string): void {
  let abs = resolve(path);
  try {
    abs = realpathSync(abs);
  } catch {
    // Not there yet: its name is protected.
  }
  if (!protectedPaths.some((p) => p.abs === abs)) protectedPaths.push({ abs, kind });
}

/** Forgets the protected paths (tests). */
export function clearProtected(): void {
  protectedPaths.length = 0;
}
// #endregion protected

// #region journal
export interface PlantedEntry {
  path: string;
  kind: string;
  /** How the write was met. */
  outcome: "refused" | "approved" | "blocked" | "reverted" | "kept";
  /** The tool call that tried it. */
  by: string;
}

const journal: PlantedEntry[] = [];

export function note(entry: PlantedEntry): void {
  journal.push(entry);
}

/** Where the journal is now: `keptSince(mark)` reads what was let through after it. */
export const journalMark = (): number => journal.length;

/** The paths a person let change (approved, kept) since `mark`. */
export const keptSince = (mark: number): Set<string> => new Set(journal.slice(mark).filter((e) => e.outcome === "approved" || e.outcome === "kept").map((e) => e.path));

/** The run's entries so far, and a fresh journal. */
export function takeJournal(): PlantedEntry[] {
  return journal.splice(0, journal.length);
}

/** Lines for the end of the run: every write that would have made code run later, and what became of it. */
export function journalLines(entries: readonly PlantedEntry[]): string[] {
  if (entries.length === 0) return [];
  return [
    `Writes that would make code run later, outside the sandbox (${entries.length}):`,
    ...entries.map((e) => `  ${e.outcome.padEnd(8)} ${e.path}: ${e.kind} (by ${e.by})`),
  ];
}
// #endregion journal

// #region walk
const MAX_DEPTH = 6;
const MAX_ENTRIES = 50_000;

/**
 * Planted-kind paths that exist under `root`, relative: files, folders such as .vscode/, and for
 * each .git folder its config, hooks and info (`whole`: the .git folder itself, for the sandbox's
 * read-only bind, so that it cannot be moved away and rebuilt either).
 */
export function plantedUnder(root: string, whole = false): string[] {
  const found: string[] = [];
  let seen = 0;
  const walk = (dir: string, depth: number) => {
    let entries;
    try {
      entries = readdirSync(join(root, dir), { withFileTypes: true });
    } catch {
      return;
    }
    for (const e of entries) {
      if (++seen > MAX_ENTRIES) return;
      const rel = dir ? `${dir}/${e.name}` : e.name;
      if (e.name === "node_modules") continue;
      if (e.name === ".git" && e.isDirectory()) {
        // Inside .git only what runs code: its config, hooks, info (not the objects).
        if (whole) found.push(rel);
        else for (const inner of ["config", "config.worktree", "hooks", "info"]) found.push(`${rel}/${inner}`);
        continue;
      }
      if (plantedKind(rel, root) !== undefined) found.push(rel);
      else if (e.isDirectory() && depth < MAX_DEPTH) walk(rel, depth + 1);
    }
  };
  walk("", 0);
  const real = (() => {
    try {
      return realpathSync(root);
    } catch {
      return resolve(root);
    }
  })();
  for (const p of protectedPaths) {
    const rel = relative(real, p.abs).split(sep).join("/");
    if (inside(real, p.abs) && rel !== "" && !found.includes(rel)) found.push(rel);
  }
  return found;
}

/** bwrap arguments binding every planted path that exists under `workspace` read-only (after the workspace's own bind). */
export function plantedBinds(workspace: string): string[] {
  return plantedUnder(workspace, true).flatMap((rel) => {
    const abs = join(workspace, rel);
    try {
      // A symbolic link is not bound (bwrap would follow it, and a dangling one would stop every
      // command): the check after each command names it instead.
      if (lstatSync(abs).isSymbolicLink()) return [];
    } catch {
      return [];
    }
    return ["--ro-bind", abs, abs];
  });
}
// #endregion walk

// #region snapshot
type Entry = { kind: "file"; data: Buffer; mode: number } | { kind: "link"; target: string } | { kind: "other" };
export type Snapshot = Map<string, Entry>;

/** Every planted file under `root` (folders walked), with its content: what `changes` compares to. */
export function snapshot(root: string): Snapshot {
  const snap: Snapshot = new Map();
  const add = (rel: string, depth = 0) => {
    const abs = join(root, rel);
    let st;
    try {
      st = lstatSync(abs);
    } catch {
      return;
    }
    if (st.isSymbolicLink()) snap.set(rel, { kind: "link", target: readlinkSync(abs) });
    else if (st.isFile()) snap.set(rel, st.size <= 1_000_000 ? { kind: "file", data: readFileSync(abs), mode: st.mode & 0o7777 } : { kind: "other" });
    else if (st.isDirectory()) {
      if (depth < 4) for (const name of readdirSync(abs)) add(`${rel}/${name}`, depth + 1);
    }
    // A FIFO, a socket, a device: nothing to keep, but made where a planted file goes it is a change
    // (a FIFO at .agent/settings.json would make every later run wait for it forever).
    else snap.set(rel, { kind: "other" });
  };
  for (const rel of plantedUnder(root)) add(rel);
  return snap;
}

export interface PlantedChange {
  path: string;
  kind: string;
  what: "created" | "changed";
}

/** Planted files created or changed since `before` (deletions plant nothing). */
export function changes(root: string, before: Snapshot, after: Snapshot = snapshot(root)): PlantedChange[] {
  const out: PlantedChange[] = [];
  for (const [rel, now] of after) {
    const old = before.get(rel);
    const same =
      old !== undefined &&
      old.kind === now.kind &&
      (now.kind === "file" ? old.kind === "file" && old.mode === now.mode && old.data.equals(now.data) : now.kind === "link" ? old.kind === "link" && old.target === now.target : true);
    if (!same) out.push({ path: rel, kind: plantedKind(rel, root) ?? "planted path", what: old ? "changed" : "created" });
  }
  return out;
}

/** Puts `path` back as it was in `before` (removed when it did not exist). */
export function revert(root: string, path: string, before: Snapshot): void {
  const abs = join(root, path);
  const old = before.get(path);
  rmSync(abs, { force: true, recursive: true });
  if (!old || old.kind === "other") return;
  mkdirSync(dirname(abs), { recursive: true });
  if (old.kind === "link") symlinkSync(old.target, abs);
  else {
    writeFileSync(abs, old.data);
    chmodSync(abs, old.mode);
  }
}
// #endregion snapshot

// #region guards
type Approve = (request: { command: string; reason: string }) => Promise<{ approved: true } | { approved: false; why: string }>;
interface Runnable {
  name: string;
  run: (input: Record<string, unknown>, ctx: never) => unknown;
}

/**
 * A file tool that writes (write_file, edit_file) asks before a write to a planted path; refused,
 * nothing is written. `relativeOf` is the workspace's own check (it throws for a path outside:
 * the tool underneath then says why).
 */
export function guardPlantedWrite<T extends Runnable>(tool: T, root: string, relativeOf: (path: unknown) => string, approve: Approve): T {
  return {
    ...tool,
    run: async (input: Record<string, unknown>, ctx: never) => {
      let rel: string | undefined;
      try {
        rel = relativeOf(input.path);
      } catch {
        rel = undefined;
      }
      const kind = rel === undefined ? undefined : plantedKind(rel, root);
      if (rel !== undefined && kind !== undefined) {
        const decision = await approve({ command: `${tool.name} ${rel}`, reason: `${rel} (${kind}): what is written there runs later, outside the sandbox` });
        note({ path: rel, kind, outcome: decision.approved ? "approved" : "refused", by: tool.name });
        if (!decision.approved)
          throw new ToolError(`not written: ${rel} (${kind}). Code written there runs later, outside the sandbox, so it needs the user's approval, and ${decision.why}. Tell the user what you wanted to change there and why.`);
      }
      return tool.run(input, ctx);
    },
  };
}

/**
 * bash, checked after every command: a planted file it created or changed is named and asked
 * about, and put back as it was when refused (the sandbox has bound the existing ones read-only
 * already; this catches new ones, and everything when there is no sandbox).
 */
export function guardPlantedBash<T extends Runnable>(tool: T, root: string, approve: Approve): T {
  return {
    ...tool,
    run: async (input: Record<string, unknown>, ctx: never) => {
      const before = snapshot(root);
      let result: unknown;
      let failure: unknown;
      try {
        result = await tool.run(input, ctx);
      } catch (e) {
        failure = e;
      }
      const found = changes(root, before);
      let said = "";
      if (found.length > 0) {
        const list = found.map((c) => `${c.path} (${c.what}: ${c.kind})`).join("; ");
        const command = String(input.command ?? "");
        const decision = await approve({ command: `keep what ${command ? "this command" : tool.name} wrote to ${found.map((c) => c.path).join(", ")}`, reason: `code there runs later, outside the sandbox: ${list}` });
        for (const c of found) {
          if (!decision.approved) revert(root, c.path, before);
          note({ path: c.path, kind: c.kind, outcome: decision.approved ? "kept" : "reverted", by: command ? `bash ${command.length > 60 ? `${command.slice(0, 60)}…` : command}` : tool.name });
        }
        said = decision.approved
          ? `\n[kept, approved by the user: ${list}]`
          : `\n[put back as it was: ${list}. Code there runs later, outside the sandbox, and ${decision.why}. Tell the user what you wanted to change there and why.]`;
      }
      if (failure !== undefined) {
        if (failure instanceof Error && said) failure.message += said;
        throw failure;
      }
      return typeof result === "string" ? result + said : result;
    },
  };
}
// #endregion guards

/** Protects what an MCP config makes the next run start: the config file, and every file its command line names. */
export function protectMcpConfig(file: string, servers: Record<string, { command: string; args?: string[]; cwd?: string }>): void {
  protectPath(file, "MCP configuration (the next run starts the commands it names)");
  for (const [name, s] of Object.entries(servers)) {
    const cwd = s.cwd ?? dirname(resolve(file));
    for (const word of [s.command, ...(s.args ?? [])]) {
      if (word.startsWith("-")) continue;
      const path = resolve(cwd, word);
      try {
        if (lstatSync(path).isFile()) protectPath(path, `source of the MCP server "${name}" (the next run starts it)`);
      } catch {
        // Not a file: a program on PATH, an option's value.
      }
    }
  }
}
