/**
 * The boundary under the agent's tools: every process a tool starts (bash, run_tests, anything
 * later) is started by `spawnTool`, and nowhere else.
 *
 * Two things happen there, whatever the lesson's own checks decided:
 *
 * 1. The environment is built from an allow list (`toolEnv`): LANG/LC_*, TERM, TZ and a few
 *    display switches, a private TMPDIR and a HOME that belongs to the run, and a PATH of trusted
 *    system folders only (`trustedPath`), never the agent's own. The agent's own
 *    variables (ANTHROPIC_API_KEY, GITHUB_TOKEN, AWS_SECRET_ACCESS_KEY, …) are never copied.
 * 2. Where the machine can, the command runs inside an OS sandbox: bubblewrap on Linux. Inside,
 *    the workspace is read-write, the system folders read-only, and nothing else of the host is
 *    there (no home, no /run sockets, no parent of the workspace, no host name or addresses);
 *    secret files and folders and hard-linked files in the workspace are hidden (./secrets.ts),
 *    /tmp private, no network, its own PID namespace (the agent's /proc/<pid>/environ cannot be
 *    seen), no capabilities, limits on processes, memory, file size and open files, and nothing
 *    outlives the call (the eval suite's evals/ is hidden too when the workspace holds the course): killing the sandbox's first process ends the PID namespace, and the kernel
 *    kills every process left in it (`setsid`, daemons, double forks). bwrap itself is resolved
 *    once to an absolute path that the user cannot write (`trustedBwrap`).
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
import { accessSync, constants, existsSync, lstatSync, mkdtempSync, readdirSync, readFileSync, readlinkSync, realpathSync, rmSync, statSync, mkdirSync, writeFileSync } from "node:fs";
import { homedir, tmpdir } from "node:os";
import { dirname, isAbsolute, join, relative, resolve, sep } from "node:path";
import { SurveyError, surveyWorkspace } from "./secrets.ts";
import { COURSE_ROOT } from "../env.ts";
import { track } from "./live.ts";
import { plantedBinds } from "./planted.ts";
import { sweepOrphanScratchOnce } from "./files.ts";

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
  /** Variables the tool itself needs (checked like the others: no secret names; never PATH). */
  extra?: Record<string, string>;
  /** Folders put before the trusted PATH (run_tests' node_modules/.bin, inside the sandbox only). */
  pathFirst?: string[];
}

/**
 * The environment of a tool process, built from an allow list: never the agent's own. `base`
 * is where PATH, LANG… are read from (default: this process); HOME and TMPDIR are the run's.
 */
export function toolEnv(opts: ToolEnvOptions, base: NodeJS.ProcessEnv = process.env): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [name, value] of Object.entries(base)) if (value !== undefined && ALLOWED.test(name) && !SECRET.test(name)) env[name] = value;
  // PATH is never the agent's: under npm its first entry is the course's node_modules/.bin.
  env.PATH = [...(opts.pathFirst ?? []), trustedPath()].join(":");
  env.HOME = opts.home;
  env.TMPDIR = env.TMP = env.TEMP = opts.tmp;
  for (const [name, value] of Object.entries(opts.extra ?? {})) if (!SECRET.test(name) && name !== "PATH") env[name] = value;
  return env;
}

/** Is this variable name one that never reaches a tool? (For tests and docs.) */
export function isSecretName(name: string): boolean {
  return SECRET.test(name) || !ALLOWED.test(name);
}
// #endregion env

// #region trusted
/** The system folders a tool's PATH is built from (in this order), when the user cannot write them. */
const SYSTEM_BIN = ["/usr/local/sbin", "/usr/local/bin", "/usr/sbin", "/usr/bin", "/sbin", "/bin"];

/**
 * Why `path` is not a place the running user could have planted a program, or null when it is
 * trusted: the path itself (links resolved) and every folder above it belong to root and are not
 * writable by group or others, and (for a user other than root) not writable by this user. An
 * agent running as root owns everything: then only folders others can write are refused.
 */
export function untrusted(path: string): string | null {
  let at: string;
  try {
    at = realpathSync(path);
  } catch {
    return `${path} does not exist`;
  }
  const uid = process.getuid?.() ?? 0;
  for (let p = at; ; p = dirname(p)) {
    let st;
    try {
      st = statSync(p);
    } catch {
      return `${p} cannot be read`;
    }
    if (st.uid !== 0) return `${p} belongs to user ${st.uid}, not root`;
    // Sticky folders (/tmp) too: anyone may put a file there.
    if ((st.mode & 0o022) !== 0) return `${p} is writable by other users`;
    if (uid !== 0) {
      try {
        accessSync(p, constants.W_OK);
        return `${p} is writable by you`;
      } catch {
        // Not writable: good.
      }
    }
    if (dirname(p) === p) return null;
  }
}

/**
 * The PATH of every tool process: the trusted system folders, then node's own folder (so `node`
 * and `npm` are found; inside the sandbox it is read-only). Never the agent's own PATH, whose
 * first entry under npm is the course's node_modules/.bin.
 */
export function trustedPath(): string {
  const dirs = SYSTEM_BIN.filter((d) => existsSync(d) && untrusted(d) === null);
  const nodeBin = dirname(real(process.execPath));
  if (!dirs.some((d) => real(d) === nodeBin)) dirs.push(nodeBin);
  return dirs.join(":");
}

/** A program's absolute path, looked up in the trusted PATH only (undefined when it is not there). */
export function trustedProgram(name: string): string | undefined {
  if (name.includes("/")) return name;
  for (const dir of trustedPath().split(":")) {
    const path = join(dir, name);
    try {
      accessSync(path, constants.X_OK);
      if (statSync(path).isFile()) return path;
    } catch {
      // Not here.
    }
  }
  return undefined;
}

let bwrapPath: { path: string } | { why: string } | undefined;

/** bwrap, resolved ONCE to an absolute path the running user cannot write (checked), or why not. */
export function trustedBwrap(): { path: string } | { why: string } {
  if (bwrapPath) return bwrapPath;
  // COURSE_HIDE_BWRAP=1: act as a machine where bubblewrap is not installed (.ci/run's first
  // `npm test`, as on a fresh clone). Unlike COURSE_SANDBOX=off, a test that clears COURSE_SANDBOX
  // to reach the sandbox still finds none.
  if (/^(1|true|yes)$/i.test((process.env.COURSE_HIDE_BWRAP ?? "").trim())) {
    bwrapPath = { why: "bwrap is not installed (apt-get install -y bubblewrap)" };
    return bwrapPath;
  }
  for (const dir of SYSTEM_BIN) {
    const path = join(dir, "bwrap");
    if (!existsSync(path)) continue;
    const problem = untrusted(path);
    bwrapPath = problem === null ? { path: real(path) } : { why: `${path} cannot be trusted (${problem}): reinstall bubblewrap from the system's packages` };
    return bwrapPath;
  }
  bwrapPath = { why: "bwrap is not installed (apt-get install -y bubblewrap)" };
  return bwrapPath;
}
// #endregion trusted

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
  const bwrap = trustedBwrap();
  if ("why" in bwrap) {
    probed = { ok: false, why: bwrap.why };
    return probed;
  }
  const dir = mkdtempSync(join(tmpdir(), "course-sandbox-probe-"));
  try {
    const r = spawnSync(bwrap.path, [...bwrapArgs(dir, dir), "--", ...limited(["/bin/sh", "-c", "echo ok"])], { encoding: "utf8", timeout: 10_000, env: { PATH: trustedPath() } });
    if (r.error) probed = { ok: false, why: r.error.message };
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
 * or a machine where you want to be asked); it is read from the environment, which a program
 * fills once, from the course's .env, before its first line (nothing a tool writes is read later).
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
/** Files and folders of the user that no tool may see, relative to HOME (when the workspace holds HOME). */
const HOME_SECRETS = [".ssh", ".aws", ".gnupg", ".config", ".docker", ".kube", ".azure", ".netrc", ".npmrc", ".git-credentials", ".pgpass", ".password-store", ".local/share/keyrings"];
/** The system folders a tool sees, read-only (a link such as /bin → usr/bin stays a link). */
const SYSTEM_RO = ["/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32", "/etc"];
/** Under /etc: the machine's network details and the secrets only root may read (the agent may be root). */
const ETC_HIDDEN = ["/etc/hosts", "/etc/resolv.conf", "/etc/hostname", "/etc/machine-id", "/etc/shadow", "/etc/shadow-", "/etc/gshadow", "/etc/gshadow-", "/etc/ssh", "/etc/ssl/private", "/etc/sudoers", "/etc/sudoers.d", "/etc/netplan", "/etc/NetworkManager", "/etc/wireguard"];

/** The limits of every process inside (bash's ulimit, set hard so nothing inside can raise them). */
export const LIMITS = {
  /** Processes of the sandbox's user (not enforced by the kernel when the agent runs as root). */
  processes: 512,
  /** Data segment (heap) of each process, in KiB: 4 GiB. */
  dataKiB: 4 * 1024 * 1024,
  /** Largest file a process may write, in KiB: 1 GiB. */
  fileKiB: 1024 * 1024,
  /** Open files of each process. */
  openFiles: 4096,
};

/**
 * `argv` started under the limits (bash sets them, then execs the command in its place). The
 * process limit only inside the sandbox: outside, it would count every process of the user.
 */
function limited(argv: string[], processes = true): string[] {
  const limits: Array<[string, number]> = [...(processes ? [["u", LIMITS.processes] as [string, number]] : []), ["d", LIMITS.dataKiB], ["f", LIMITS.fileKiB], ["n", LIMITS.openFiles], ["c", 0]];
  // Each limit is lowered to ours unless it is lower already; one that cannot be set stops the command.
  const set = limits.map(([o, v]) => `h=$(ulimit -H -${o}); if [ "$h" = unlimited ] || [ "$h" -gt ${v} ]; then ulimit -S -H -${o} ${v} || exit 126; else ulimit -S -${o} "$h"; fi`).join("; ");
  return [trustedProgram("bash") ?? "/bin/bash", "-c", `${set}; exec "$@"`, "limits", ...argv];
}

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

/** A file the sandbox's /etc/hosts is (only localhost: the host's names and addresses are not shown). */
let hostsFile: string | undefined;
function sandboxHosts(): string {
  if (hostsFile && existsSync(hostsFile)) return hostsFile;
  // Made once per process and removed when it exits: a run leaves nothing in the temp folder. A
  // process killed before its exit handler ran leaves it; its name carries the pid, so the next
  // process removes it (sweepOrphanScratch).
  sweepOrphanScratchOnce();
  const dir = mkdtempSync(join(tmpdir(), `course-sandbox-etc.scratch.${process.pid}.`));
  process.once("exit", () => rmSync(dir, { recursive: true, force: true }));
  hostsFile = join(dir, "hosts");
  writeFileSync(hostsFile, "127.0.0.1 localhost\n::1 localhost\n", { mode: 0o444 });
  return hostsFile;
}

/** The sandbox's HOME and TMPDIR (a tmpfs, so nothing written there survives the call). */
export const SANDBOX_TMP = "/tmp";
export const SANDBOX_HOME = "/tmp/home";
/**
 * At most this many files and folders are covered one by one (bwrap takes at most 9 000
 * arguments); past it, the folders that hold them are hidden whole, deepest first.
 */
export const MAX_HIDDEN = 256;

/**
 * What to cover so that none of `files` can be read: the files themselves, or, when there are more
 * than `max`, the folders that hold them (an empty tmpfs), deepest first, never the workspace itself.
 */
export function coverHidden(ws: string, files: string[], max = MAX_HIDDEN): Array<{ path: string; dir: boolean }> {
  if (files.length <= max) return files.map((path) => ({ path, dir: false }));
  const parts = files.map((f) => f.split(sep));
  const top = ws.split(sep).length; // a path with top + 1 parts is a child of the workspace
  const deepest = Math.max(...parts.map((p) => p.length));
  // The deepest level at which hiding the folders there (and the files above it) fits in `max`.
  for (let level = deepest - 1; level >= top + 1; level--) {
    const cover = new Map<string, { path: string; dir: boolean }>();
    for (const p of parts) {
      const dir = p.length > level;
      const path = (dir ? p.slice(0, level) : p).join(sep);
      cover.set(path, { path, dir });
      if (cover.size > max) break;
    }
    if (cover.size <= max) return [...cover.values()];
  }
  throw new SurveyError(`the workspace has ${files.length} files with more than one hard link, in too many places to hide: make a copy without links (cp -r, or git clone --no-local) and use it`);
}

/**
 * bwrap's arguments for a sandbox around `workspace` (read-write), starting in `cwd`. Nothing of
 * the host is there but the system folders (read-only, a few files of /etc hidden), node, and the
 * workspace: no /home, /root, /run, /var, /srv, /mnt, /sys, and no parent of the workspace (only
 * the empty folders on the way to it). The order matters: later mounts cover earlier ones. Throws
 * a SurveyError when the workspace cannot be checked for hard links and secrets (fail closed).
 */
export function bwrapArgs(workspace: string, cwd: string = workspace): string[] {
  const ws = real(workspace);
  const home = real(homedir());
  const nodeDir = dirname(dirname(real(process.execPath)));
  const args = [
    "--unshare-all", // user, PID, network (only lo), IPC, UTS, cgroup namespaces
    "--die-with-parent",
    "--new-session",
    "--cap-drop", "ALL",
    "--hostname", "sandbox",
  ];
  for (const dir of SYSTEM_RO) {
    let st;
    try {
      st = lstatSync(dir);
    } catch {
      continue;
    }
    if (st.isSymbolicLink()) args.push("--symlink", readlinkSync(dir), dir);
    else args.push("--ro-bind", dir, dir);
  }
  for (const p of ETC_HIDDEN) args.push(...hide(p));
  if (existsSync("/etc/hosts")) args.push("--ro-bind", sandboxHosts(), "/etc/hosts");
  args.push("--dev", "/dev", "--proc", "/proc", "--tmpfs", "/tmp", "--tmpfs", "/var/tmp");
  // Node outside the system folders (nvm, volta, …): run_tests needs it, read-only.
  if (!SYSTEM_RO.some((d) => inside(real(d), nodeDir))) args.push("--ro-bind", nodeDir, nodeDir);
  args.push("--bind", ws, ws);
  // Files that make code run later, outside the sandbox (git config and hooks, package.json…):
  // read-only. Before the hiding below, so a secret or a hard link under them stays hidden.
  args.push(...plantedBinds(ws));
  // The workspace holds the user's home (or is it): the home's secrets are not there.
  if (inside(ws, home)) for (const s of HOME_SECRETS) args.push(...hide(join(home, s)));
  // The workspace holds the course (a lesson's bash runs in the checkout): the eval suite's hidden
  // checks and reference solutions are not there.
  const evals = real(join(COURSE_ROOT, "evals"));
  if (inside(ws, evals)) args.push(...hide(evals));
  // Every entry is looked at: secret names hidden, hard-linked files covered by /dev/null.
  const survey = surveyWorkspace(ws);
  for (const h of [...survey.secrets, ...coverHidden(ws, survey.hardLinks, MAX_HIDDEN - survey.secrets.length)])
    args.push(...(h.dir ? ["--tmpfs", h.path] : ["--ro-bind", "/dev/null", h.path]));
  args.push("--dir", SANDBOX_HOME, "--chdir", real(cwd));
  return args;
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
  /**
   * The command is the project's own (run_tests): inside the sandbox, the workspace's
   * node_modules/.bin comes first in its PATH. Never without the sandbox, never for bash.
   */
  projectBin?: boolean;
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
  // The program itself is looked up in the trusted system folders only, never in the workspace.
  const program = trustedProgram(argv[0]!);
  if (program === undefined) throw new SurveyError(`${argv[0]} is not in the trusted system folders (${trustedPath()})`);
  if (info.kind === "bubblewrap") {
    const bwrap = trustedBwrap();
    if ("why" in bwrap) throw new SurveyError(bwrap.why);
    const pathFirst = opts.projectBin ? [join(workspace, "node_modules", ".bin")] : [];
    // The marker rides in bwrap's own environment (and so in the sandbox's): killAll finds by it the
    // sandbox's init should it have left the group before --die-with-parent took hold (below).
    const env = toolEnv({ home: SANDBOX_HOME, tmp: SANDBOX_TMP, pathFirst, extra: { ...opts.extraEnv, COURSE_TOOL_RUN: marker } }, opts.env);
    child = withStdin(spawn(bwrap.path, [...bwrapArgs(workspace, cwd), "--", ...limited([program, ...argv.slice(1)])], { env, detached: true, stdio: [stdinMode, "pipe", "pipe"] }), opts.stdin);
  } else {
    privateTmp = mkdtempSync(join(tmpdir(), "course-tool-"));
    const home = join(privateTmp, "home");
    mkdirSync(home);
    const env = toolEnv({ home, tmp: privateTmp, extra: { ...opts.extraEnv, COURSE_TOOL_RUN: marker } }, opts.env);
    const [first, ...rest] = limited([program, ...argv.slice(1)], false);
    child = withStdin(spawn(first!, rest, { cwd, env, detached: true, stdio: [stdinMode, "pipe", "pipe"] }), opts.stdin);
  }
  const strayPids = new Set<number>();
  const killGroup = () => {
    try {
      if (child.pid !== undefined) process.kill(-child.pid, "SIGKILL");
    } catch {
      // The group is already gone.
    }
  };
  const killAll = (): KillReport => {
    killGroup();
    // In the sandbox, killing bwrap's group kills the sandbox's init (its PID namespace goes with
    // it) through --die-with-parent; but bwrap sets that up in the init after it starts, so a kill
    // that lands first, on a loaded machine, leaves the init running in a session of its own, with
    // the command inside. It carries the marker: the sweep kills it, and the namespace dies.
    const strays = killMarked(marker, child.pid, strayPids);
    return { strays: info.kind === "bubblewrap" ? 0 : strays, note: killNote(info.kind, strays) };
  };
  // Until it has exited, the agent's own end (a signal, see live.ts) kills it too. (Without a
  // sandbox, what it left running in the background is the caller's killAll, after the exit.)
  const untrack = track(() => void killAll());
  child.on("close", untrack);
  return {
    child,
    sandbox: info.kind,
    killAll,
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
