/**
 * The boundary under the agent's tools: every process a tool starts (bash, run_tests, anything
 * later) is started by `spawnTool`, and nowhere else.
 *
 * Two things happen there, whatever the lesson's own checks decided:
 *
 * 1. The environment is built from an allow list (`toolEnv`): PATH, LANG/LC_*, TERM, TZ and a
 *    few display switches, a private TMPDIR and a HOME that belongs to the run. The agent's own
 *    variables (ANTHROPIC_API_KEY, GITHUB_TOKEN, AWS_SECRET_ACCESS_KEY, …) are never copied.
 * 2. Where the machine can, the command runs inside an OS sandbox: bubblewrap on Linux. Inside,
 *    the workspace is read-write, the rest of the file system read-only, the user's secrets
 *    (~/.ssh, ~/.aws, …, the course's .env and .course/, and evals/, where the eval suite keeps
 *    its hidden checks and reference solutions) not there at all, /tmp private, no
 *    network, its own PID namespace (the agent's /proc/<pid>/environ cannot be seen), no
 *    capabilities, and nothing outlives the call: killing the sandbox's first process ends the
 *    PID namespace, and the kernel kills every process left in it (`setsid`, daemons, double forks).
 *
 * Where no sandbox can start (macOS, Windows, a container that forbids user namespaces, or
 * COURSE_SANDBOX=off), the tools say so and the agent asks before anything not provably read-only
 * (see s07 and s12). Then a process that left the command's process group is looked for by a
 * marker in its environment and killed, and the result says how many were found.
 *
 * Why not @anthropic-ai/sandbox-runtime: it needs Node >= 22.12 (the course runs on Node 20) and
 * routes network access through proxies it starts; the course needs no network inside at all, so
 * driving `bwrap` directly is smaller and works offline.
 */
import { spawn, spawnSync, type ChildProcess, type ChildProcessByStdio } from "node:child_process";
import type { Readable } from "node:stream";
import { existsSync, lstatSync, mkdtempSync, readdirSync, readFileSync, realpathSync, rmSync, statSync, mkdirSync } from "node:fs";
import { homedir, tmpdir } from "node:os";
import { dirname, isAbsolute, join, relative, resolve, sep } from "node:path";
import { fileURLToPath } from "node:url";

/** The course repository (its .env and .course/ are hidden from every tool). */
const COURSE_ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "../..");

// #region env
/** The only variables a tool process may inherit (by name); everything else stays in the agent. */
const ALLOWED = /^(PATH|LANG|LANGUAGE|LC_[A-Z_]+|TERM|COLORTERM|TZ|NO_COLOR|FORCE_COLOR|CI)$/;
/** Even an allowed-looking name never passes when it looks like a secret. */
const SECRET = /(^ANTHROPIC_|KEY|TOKEN|SECRET|PASSWORD|PASSWD|CREDENTIAL|AUTH|COOKIE|SESSION|PRIVATE)/i;

export interface ToolEnvOptions {
  /** Where HOME points (a folder that belongs to this run, never the user's home). */
  home: string;
  /** The private temp folder (TMPDIR, TMP, TEMP). */
  tmp: string;
  /** Variables the tool itself needs (checked like the others: no secret names). */
  extra?: Record<string, string>;
}

/**
 * The environment of a tool process, built from an allow list: never the agent's own. `base`
 * is where PATH, LANG… are read from (default: this process); HOME and TMPDIR are the run's.
 */
export function toolEnv(opts: ToolEnvOptions, base: NodeJS.ProcessEnv = process.env): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [name, value] of Object.entries(base)) if (value !== undefined && ALLOWED.test(name) && !SECRET.test(name)) env[name] = value;
  env.PATH ??= "/usr/local/bin:/usr/bin:/bin";
  env.HOME = opts.home;
  env.TMPDIR = env.TMP = env.TEMP = opts.tmp;
  for (const [name, value] of Object.entries(opts.extra ?? {})) if (!SECRET.test(name)) env[name] = value;
  return env;
}

/** Is this variable name one that never reaches a tool? (For tests and docs.) */
export function isSecretName(name: string): boolean {
  return SECRET.test(name) || !ALLOWED.test(name);
}
// #endregion env

// #region detect
export type SandboxKind = "bubblewrap" | "none";

export interface SandboxInfo {
  kind: SandboxKind;
  /** The run's first line: what protects the machine from the agent's commands. */
  line: string;
  /** Why there is no sandbox (when kind is "none"). */
  why?: string;
}

let probed: { ok: true } | { ok: false; why: string } | undefined;

/** Starts bwrap once, with the same kind of sandbox the tools get; the answer is kept. */
function probeBwrap(): { ok: true } | { ok: false; why: string } {
  if (probed) return probed;
  if (process.platform !== "linux") {
    probed = { ok: false, why: process.platform === "darwin" ? "macOS: the course has no sandbox-exec profile it can test" : `no sandbox for ${process.platform}` };
    return probed;
  }
  const dir = mkdtempSync(join(tmpdir(), "course-sandbox-probe-"));
  try {
    const r = spawnSync("bwrap", [...bwrapArgs(dir, dir), "--", "/bin/sh", "-c", "echo ok"], { encoding: "utf8", timeout: 10_000, env: { PATH: "/usr/bin:/bin" } });
    if (r.error) probed = { ok: false, why: (r.error as NodeJS.ErrnoException).code === "ENOENT" ? "bwrap is not installed (apt-get install -y bubblewrap)" : r.error.message };
    else if (r.status !== 0 || r.stdout.trim() !== "ok")
      probed = { ok: false, why: `bwrap cannot start here (${(r.stderr || `exit ${r.status}`).trim().split("\n")[0]})` };
    else probed = { ok: true };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  return probed;
}

/**
 * Which sandbox the tools run in. COURSE_SANDBOX=off forces none (tests of the no-sandbox path,
 * or a machine where you want to be asked); it is read on every call, the probe only once.
 */
export function sandboxInfo(env: NodeJS.ProcessEnv = process.env): SandboxInfo {
  const setting = (env.COURSE_SANDBOX ?? "").trim().toLowerCase();
  if (["off", "none", "0", "false", "no"].includes(setting)) return none("COURSE_SANDBOX=off");
  const probe = probeBwrap();
  if (!probe.ok) return none(probe.why);
  return { kind: "bubblewrap", line: "sandbox: bubblewrap (workspace rw, no network)" };
}

function none(why: string): SandboxInfo {
  return { kind: "none", line: `sandbox: none — commands ask first (${why})`, why };
}
// #endregion detect

// #region bwrap
/** Files and folders of the user that no tool may see, relative to HOME. */
const HOME_SECRETS = [".ssh", ".aws", ".gnupg", ".config", ".docker", ".kube", ".azure", ".netrc", ".npmrc", ".git-credentials", ".pgpass", ".password-store"];

function inside(parent: string, child: string): boolean {
  const rel = relative(parent, child);
  return rel === "" || (rel !== ".." && !rel.startsWith(`..${sep}`) && !isAbsolute(rel));
}

function real(path: string): string {
  try {
    return realpathSync(path);
  } catch {
    return resolve(path);
  }
}

/** A mount that hides `path`: an empty tmpfs over a folder, /dev/null over a file. */
function hide(path: string): string[] {
  try {
    return statSync(path).isDirectory() ? ["--tmpfs", path] : ["--ro-bind", "/dev/null", path];
  } catch {
    return [];
  }
}

/** The sandbox's HOME and TMPDIR (a tmpfs, so nothing written there survives the call). */
export const SANDBOX_TMP = "/tmp";
export const SANDBOX_HOME = "/tmp/home";

/**
 * bwrap's arguments for a sandbox around `workspace` (read-write), starting in `cwd`. The order
 * matters: later mounts cover earlier ones.
 */
export function bwrapArgs(workspace: string, cwd: string = workspace): string[] {
  const ws = real(workspace);
  const home = real(homedir());
  const nodeDir = dirname(dirname(real(process.execPath)));
  const secrets = [...HOME_SECRETS.map((s) => join(home, s)), join(COURSE_ROOT, ".env"), join(COURSE_ROOT, ".course"), join(COURSE_ROOT, "evals")].map(real);
  const args = [
    "--unshare-all", // user, PID, network (only lo), IPC, UTS, cgroup namespaces
    "--die-with-parent",
    "--new-session",
    "--cap-drop", "ALL",
    "--ro-bind", "/", "/",
    "--dev", "/dev",
    "--proc", "/proc", // the new PID namespace's own /proc: the agent's processes are not in it
    "--tmpfs", "/tmp",
    ...(existsSync("/var/tmp") ? ["--tmpfs", "/var/tmp"] : []),
    ...(existsSync("/dev/shm") ? ["--tmpfs", "/dev/shm"] : []),
  ];
  // The user's home is hidden whole, unless the workspace is the home or above it.
  if (home !== "/" && !inside(home, "/") && !inside(ws, home)) {
    args.push("--tmpfs", home);
    // Node may be installed under HOME (nvm, volta): run_tests needs it, read-only.
    if (inside(home, nodeDir)) args.push("--ro-bind", nodeDir, nodeDir);
  }
  // Secrets that contain the workspace are hidden before it is mounted, the rest after it.
  for (const s of secrets) if (inside(s, ws)) args.push(...hide(s));
  args.push("--bind", ws, ws);
  for (const s of secrets) if (!inside(s, ws) && (inside(ws, s) || !inside(home, s) || inside(nodeDir, s))) args.push(...hide(s));
  // A hard link in the workspace is the same file as its name outside: covered by /dev/null.
  for (const file of hardLinkedFiles(ws)) args.push("--ro-bind", "/dev/null", file);
  args.push("--dir", SANDBOX_HOME, "--chdir", real(cwd));
  return args;
}

/** How many entries of the workspace are looked at for hard links (node_modules and .git skipped). */
const HARD_LINK_SCAN = 20_000;

/** Regular files under `root` with more than one hard link (they may be a file outside too). */
export function hardLinkedFiles(root: string, limit = HARD_LINK_SCAN): string[] {
  const found: string[] = [];
  let seen = 0;
  const walk = (dir: string) => {
    let entries;
    try {
      entries = readdirSync(dir, { withFileTypes: true });
    } catch {
      return;
    }
    for (const e of entries) {
      if (++seen > limit) return;
      const path = join(dir, e.name);
      if (e.isDirectory()) {
        if (e.name !== "node_modules" && e.name !== ".git") walk(path);
      } else if (e.isFile()) {
        try {
          if (lstatSync(path).nlink > 1) found.push(path);
        } catch {
          // Gone meanwhile.
        }
      }
    }
  };
  walk(root);
  return found;
}
// #endregion bwrap

// #region spawn
export interface ToolSpawnOptions {
  /** The workspace: the one folder the process may change. */
  workspace: string;
  /** Where it starts (default: the workspace). */
  cwd?: string;
  /** Where the allowed variables are read from (default: this process's environment). */
  env?: NodeJS.ProcessEnv;
  /** Variables the tool itself needs. */
  extraEnv?: Record<string, string>;
  /** Text written to the process's stdin, which is then closed (default: no stdin; s19's hooks read their event here). */
  stdin?: string;
}

export interface ToolProcess {
  child: ChildProcessByStdio<null, Readable, Readable>;
  sandbox: SandboxKind;
  /**
   * Kills everything the command started. In the sandbox: the sandbox itself (its PID namespace
   * dies with it). Without: the process group, then every process that still carries this
   * run's marker. Returns what it can say truthfully about what was stopped.
   */
  killAll(): KillReport;
  /** Removes the run's private temp folder (call once the process is gone). */
  cleanup(): void;
}

export interface KillReport {
  /** Processes found and killed outside the process group (no sandbox only). */
  strays: number;
  /** One sentence for the model: what was killed and what is guaranteed. */
  note: string;
}

/**
 * Starts `argv` for a tool: with the allow-listed environment, in its own process group, inside
 * the sandbox where there is one. The one place a tool process is started.
 */
export function spawnTool(argv: string[], opts: ToolSpawnOptions): ToolProcess {
  const info = sandboxInfo();
  const marker = `run-${process.pid}-${Date.now()}-${Math.random().toString(36).slice(2)}`;
  const workspace = real(opts.workspace);
  const cwd = opts.cwd ?? workspace;
  let child: ChildProcessByStdio<null, Readable, Readable>;
  let privateTmp: string | undefined;
  const stdinMode = opts.stdin === undefined ? "ignore" : "pipe";
  if (info.kind === "bubblewrap") {
    const env = toolEnv({ home: SANDBOX_HOME, tmp: SANDBOX_TMP, ...(opts.extraEnv ? { extra: opts.extraEnv } : {}) }, opts.env);
    child = withStdin(spawn("bwrap", [...bwrapArgs(workspace, cwd), "--", ...argv], { env, detached: true, stdio: [stdinMode, "pipe", "pipe"] }), opts.stdin);
  } else {
    privateTmp = mkdtempSync(join(tmpdir(), "course-tool-"));
    const home = join(privateTmp, "home");
    mkdirSync(home);
    const env = toolEnv({ home, tmp: privateTmp, extra: { ...opts.extraEnv, COURSE_TOOL_RUN: marker } }, opts.env);
    child = withStdin(spawn(argv[0]!, argv.slice(1), { cwd, env, detached: true, stdio: [stdinMode, "pipe", "pipe"] }), opts.stdin);
  }
  const strayPids = new Set<number>();
  const killGroup = () => {
    try {
      if (child.pid !== undefined) process.kill(-child.pid, "SIGKILL");
    } catch {
      // The group is already gone.
    }
  };
  return {
    child,
    sandbox: info.kind,
    killAll(): KillReport {
      killGroup();
      const strays = info.kind === "bubblewrap" ? 0 : killMarked(marker, child.pid, strayPids);
      return { strays, note: killNote(info.kind, strays) };
    },
    cleanup() {
      if (privateTmp) rmSync(privateTmp, { recursive: true, force: true });
    },
  };
}

/** Writes `input` to a piped stdin and closes it (a process that exits without reading it is no error). */
function withStdin(child: ChildProcess, input: string | undefined): ChildProcessByStdio<null, Readable, Readable> {
  if (input !== undefined && child.stdin) {
    child.stdin.on("error", () => {}); // EPIPE: the process did not read its input
    child.stdin.end(input);
  }
  return child as ChildProcessByStdio<null, Readable, Readable>;
}

/** What a kill stopped, said truthfully for the sandbox kind (`strays`: found outside the group). */
export function killNote(kind: SandboxKind, strays: number): string {
  if (kind === "bubblewrap") return "the sandbox was killed, and with it every process inside (its own PID namespace)";
  const more = strays > 0 ? `, and ${strays} process${strays === 1 ? "" : "es"} that had left the group` : "";
  return `its process group was killed${more} (no sandbox: a process that left the group and cleared its environment cannot be found)`;
}

/**
 * Kills every process whose environment carries `COURSE_TOOL_RUN=marker` (Linux: /proc) and that
 * is not in the process group `group` (that one was killed already); returns how many were new
 * (`killed` remembers the ones of earlier calls, which may not be reaped yet).
 */
export function killMarked(marker: string, group?: number, killed = new Set<number>()): number {
  if (process.platform !== "linux") return 0;
  const needle = `COURSE_TOOL_RUN=${marker}`;
  const before = killed.size;
  // A process may fork while we look: a few passes catch the children of the ones just killed.
  for (let pass = 0; pass < 3; pass++) {
    let found = 0;
    for (const name of readdirSync("/proc")) {
      if (!/^\d+$/.test(name) || Number(name) === process.pid || killed.has(Number(name))) continue;
      let environ: string;
      try {
        environ = readFileSync(`/proc/${name}/environ`, "latin1");
      } catch {
        continue;
      }
      if (!environ.split("\0").includes(needle)) continue;
      if (group !== undefined && processGroup(name) === group) continue;
      try {
        process.kill(Number(name), "SIGKILL");
        killed.add(Number(name));
        found++;
      } catch {
        // Gone already.
      }
    }
    if (found === 0) break;
  }
  return killed.size - before;
}
function processGroup(pid: string): number | undefined {
  try {
    // /proc/<pid>/stat: "pid (comm) state ppid pgrp …"; comm may hold spaces and parentheses.
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    return Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[2]);
  } catch {
    return undefined;
  }
}
// #endregion spawn
