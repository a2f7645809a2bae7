/**
 * How an MCP server (s17) is started: inside the same rules as a tool's process
 * (runtime/tools/sandbox.ts), because a server is code the agent runs for the model.
 *
 * - Its environment is built from the tools' allow list (PATH, LANG…, a private HOME and TMPDIR),
 *   never the agent's own: the API key is not in it, nor readable in its /proc/<pid>/environ. The
 *   config's own `env` is added (it is the user's grant to that server), except a name starting
 *   with ANTHROPIC_ or a value that is one of the agent's ANTHROPIC_* values.
 * - Where bubblewrap can start, a local server runs inside the sandbox: the workspace read-write,
 *   its own folder and the node_modules above it read-only (so it cannot rewrite its own source),
 *   no network, its own PID namespace. A server that needs more (the network, files elsewhere) is
 *   started outside only when its config says `"sandbox": false`, with a warning.
 * - While it runs it is registered in live.ts, so the agent's end (a signal) kills it and all it
 *   started: its sandbox, or without one the processes that carry its marker.
 */
import { existsSync, mkdirSync, mkdtempSync, readdirSync, realpathSync, rmSync, statSync } from "node:fs";
import { homedir, tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { track } from "./live.ts";
import { SANDBOX_HOME, SANDBOX_TMP, bwrapArgs, killMarked, sandboxInfo, toolEnv, trustedBwrap, type SandboxKind } from "./sandbox.ts";

export interface ServerCommand {
  command: string;
  args: string[];
  env: Record<string, string>;
  cwd?: string;
  /** false: started outside the sandbox (a warning says so). Default true. */
  sandbox?: boolean;
}

export interface ServerLaunch {
  command: string;
  args: string[];
  env: Record<string, string>;
  cwd?: string;
  sandbox: SandboxKind;
  /** Warnings for the user: outside the sandbox, config variables left out. */
  warnings: string[];
  /** Registers the started process (its pid, when known) for killEverything; returns the stop call. */
  watch(pid: () => number | undefined): () => void;
  /** Removes the private temp folder (after the process is gone). */
  cleanup(): void;
}

/** The agent's own credentials: never handed to a server, whatever its config says. */
function agentSecrets(env: NodeJS.ProcessEnv): Set<string> {
  return new Set(Object.entries(env).flatMap(([name, value]) => (/^ANTHROPIC_/.test(name) && value && value.length >= 8 ? [value] : [])));
}

/** Files right in `dir` that hold secrets (.env, .env.local…, the course's state): hidden again over a read-only bind. */
function secretsIn(dir: string): string[] {
  try {
    return readdirSync(dir)
      .filter((n) => /^\.env(\..*)?$/.test(n) || n === ".course")
      .map((n) => join(dir, n));
  } catch {
    return [];
  }
}

/** node_modules folders from `dir` up to the file system's root (what `node --import tsx` resolves from). */
function modulesAbove(dir: string): string[] {
  const found: string[] = [];
  for (let d = resolve(dir); ; d = dirname(d)) {
    if (existsSync(join(d, "node_modules"))) found.push(join(d, "node_modules"));
    if (dirname(d) === d) return found;
  }
}

function realOr(path: string): string {
  try {
    return realpathSync(path);
  } catch {
    return path;
  }
}

/** package.json files from `dir` up: node reads the nearest one for a module's type (ESM or CJS). */
function packageFilesAbove(dir: string): string[] {
  const found: string[] = [];
  for (let d = resolve(dir); ; d = dirname(d)) {
    if (existsSync(join(d, "package.json"))) found.push(join(d, "package.json"));
    if (dirname(d) === d) return found;
  }
}

/**
 * The command line, environment and life of one server. `workspace`: the folder the server may
 * change (the agent's), `name`: for the warnings.
 */
export function launchServer(name: string, config: ServerCommand, workspace: string, base: NodeJS.ProcessEnv = process.env): ServerLaunch {
  const warnings: string[] = [];
  const keys = agentSecrets(base);
  const given: Record<string, string> = {};
  for (const [k, v] of Object.entries(config.env)) {
    if (/^ANTHROPIC_/i.test(k) || keys.has(v)) warnings.push(`MCP server "${name}": its config's env ${k} is left out (the agent's own key never reaches a server)`);
    else given[k] = v;
  }
  const info = sandboxInfo(base);
  const inSandbox = info.kind === "bubblewrap" && config.sandbox !== false;
  const cwd = config.cwd ?? process.cwd();
  const marker = `mcp-${process.pid}-${Date.now()}-${Math.random().toString(36).slice(2)}`;
  let privateTmp: string | undefined;
  let launch: Pick<ServerLaunch, "command" | "args" | "env" | "sandbox">;
  if (inSandbox) {
    // (A node_modules that holds the workspace is not bound again: it would cover the workspace's write access.)
    const ws = resolve(workspace);
    // (Its folder is not bound back when it holds the home folder, or is /: that would show what the sandbox hides.)
    const home = resolve(homedir());
    const holdsHome = `${home}/`.startsWith(`${resolve(cwd)}/`) || resolve(cwd) === "/";
    const outsideWs = (p: string) => !`${ws}/`.startsWith(`${p}/`) && !`${p}/`.startsWith(`${ws}/`);
    const readOnly = [...(holdsHome ? [] : [cwd]), ...modulesAbove(cwd).filter((m) => !`${ws}/`.startsWith(`${m}/`)), ...packageFilesAbove(cwd).filter(outsideWs)];
    // A linked folder (node_modules linked from another checkout) is bound where it really is too:
    // node resolves a module by its real path.
    // (A link is no place to mount on: its real folder is bound, and outside the workspace the link
    // is made again beside it.)
    const inWs = (p: string) => `${p}/`.startsWith(`${ws}/`);
    const binds = [...new Set(readOnly)].flatMap((p) => {
      const real = realOr(p);
      if (real === p) return ["--ro-bind", p, p];
      return [...(inWs(p) ? [] : ["--symlink", real, p]), "--ro-bind", real, real];
    });
    const hidden = secretsIn(cwd).flatMap((p) => (statSync(p).isDirectory() ? ["--tmpfs", p] : ["--ro-bind", "/dev/null", p]));
    // The server's folder comes back read-only over the hidden home (bwrap applies --chdir last).
    const args = [...bwrapArgs(workspace, workspace), ...binds, ...hidden, "--chdir", cwd, "--", config.command, ...config.args];
    // bwrap by its trusted absolute path (sandboxInfo said bubblewrap, so it was found and checked).
    const bwrap = trustedBwrap();
    launch = { command: "path" in bwrap ? bwrap.path : "/usr/bin/bwrap", args, env: { ...toolEnv({ home: SANDBOX_HOME, tmp: SANDBOX_TMP }, base), ...given }, sandbox: "bubblewrap" };
  } else {
    privateTmp = mkdtempSync(join(tmpdir(), "course-mcp-"));
    const home = join(privateTmp, "home");
    mkdirSync(home);
    launch = { command: config.command, args: config.args, env: { ...toolEnv({ home, tmp: privateTmp }, base), ...given, COURSE_TOOL_RUN: marker }, sandbox: "none" };
    warnings.push(
      config.sandbox === false && info.kind === "bubblewrap"
        ? `MCP server "${name}" runs OUTSIDE the sandbox ("sandbox": false in its config): it can read and change everything you can, and reach the network`
        : `MCP server "${name}" runs without a sandbox (${info.why ?? "none on this machine"}): it can read and change everything you can`,
    );
  }
  return {
    ...launch,
    cwd,
    warnings,
    watch(pid) {
      return track(() => {
        const p = pid();
        if (p !== undefined) {
          try {
            // In the sandbox, bwrap's death ends its PID namespace and everything in it.
            process.kill(p, "SIGKILL");
          } catch {
            // Gone already.
          }
        }
        if (!inSandbox) killMarked(marker);
      });
    },
    cleanup() {
      if (!inSandbox) killMarked(marker);
      if (privateTmp) rmSync(privateTmp, { recursive: true, force: true });
    },
  };
}
