/**
 * A test runner kept warm for `npm run watch`: one child process that holds vitest (its config,
 * its module graph, its transform cache) between checks, so a save re-runs only that lesson's
 * test file without starting vitest again. The learner's code still runs in vitest's workers,
 * never in the command line's own process; a loop that blocks them is caught by the same
 * heartbeat watchdog as a cold check, and the warm child is then thrown away and started afresh.
 *
 *   const runner = new WarmRunner();
 *   const result = await runner.run([testFileRel(lesson)], { signal, timeoutMs });  // the JSON report's shape
 *   runner.close();
 *
 * Run as a script (`node --import tsx scripts/lib/warm-runner.ts`), this file is the child.
 */
import { fork, type ChildProcess } from "node:child_process";
import { mkdtempSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { HangWatch } from "./hang.ts";
import { ROOT } from "./paths.ts";
import { WarmTypes } from "./warm-types.ts";
import { gradingEnv } from "./grading-env.ts";

/** One test file's results, in the shape of vitest's JSON reporter (what grade.ts reads). */
export interface FileReport {
  name: string;
  status: string;
  message?: string;
  assertionResults: { ancestorTitles: string[]; title: string; status: string; failureMessages: string[] }[];
}

export interface WarmResult {
  files: FileReport[];
  output: string;
  timedOut: boolean;
  aborted: boolean;
  hung?: string;
}

interface Request {
  id: number;
  files: string[];
}
interface Reply {
  id: number;
  files?: FileReport[];
  error?: string;
}

export class WarmRunner {
  private child: ChildProcess | undefined;
  private next = 0;
  private exitHook = false;
  private readonly dir = mkdtempSync(join(tmpdir(), "course-warm-"));
  private readonly heartbeat = join(this.dir, "heartbeat.json");
  /** The type checker kept warm beside the tests (its own process): a save re-checks one file. */
  readonly types = new WarmTypes();

  /**
   * Starts the child ahead of the first check (it loads vitest while the learner reads), and the
   * warm type checker, parsing the libraries on `warmUp` (a lesson folder) if given.
   */
  start(warmUp?: string): void {
    this.types.start(warmUp);
    if (this.child && this.child.exitCode === null) return;
    this.child = fork(fileURLToPath(import.meta.url), [], {
      cwd: ROOT,
      execArgv: ["--import", "tsx"],
      env: gradingEnv("lessons", this.dir, { COURSE_HEARTBEAT_FILE: this.heartbeat, NO_COLOR: "1", FORCE_COLOR: "0" }),
      stdio: ["ignore", "pipe", "pipe", "ipc"],
      detached: true,
    });
    if (!this.exitHook) {
      this.exitHook = true;
      process.on("exit", () => this.kill());
    }
    this.child.stdout?.resume();
    this.child.stderr?.resume();
  }

  /** Runs some test files on lessons/; a blocked or stopped run restarts the child. */
  async run(files: string[], opts: { signal?: AbortSignal; timeoutMs?: number } = {}): Promise<WarmResult> {
    this.start();
    const child = this.child!;
    const id = ++this.next;
    let output = "";
    const take = (d: Buffer) => (output += d.toString());
    child.stdout?.on("data", take);
    child.stderr?.on("data", take);
    return await new Promise<WarmResult>((resolve) => {
      let settled = false;
      const started = Date.now();
      const finish = (r: Omit<WarmResult, "output">, kill = false) => {
        if (settled) return;
        settled = true;
        clearInterval(watchdog);
        if (timer) clearTimeout(timer);
        opts.signal?.removeEventListener("abort", onAbort);
        child.off("message", onMessage);
        child.off("exit", onExit);
        child.stdout?.off("data", take);
        child.stderr?.off("data", take);
        if (kill) this.kill();
        resolve({ ...r, output });
      };
      const onMessage = (m: Reply) => {
        if (m.id !== id) return;
        if (m.error) output += `\n${m.error}`;
        finish({ files: m.files ?? [], timedOut: false, aborted: false });
      };
      const onExit = () => finish({ files: [], timedOut: false, aborted: false });
      const onAbort = () => finish({ files: [], timedOut: false, aborted: true }, true);
      const hang = new HangWatch({ heartbeatFile: this.heartbeat, runner: () => child.pid, since: started });
      const watchdog = setInterval(() => {
        const hung = hang.look();
        if (hung) finish({ files: [], timedOut: false, aborted: false, hung }, true);
      }, 1000);
      const timer = opts.timeoutMs ? setTimeout(() => finish({ files: [], timedOut: true, aborted: false }, true), opts.timeoutMs) : undefined;
      opts.signal?.addEventListener("abort", onAbort, { once: true });
      child.on("message", onMessage);
      child.once("exit", onExit);
      child.send({ id, files } satisfies Request);
    });
  }

  private kill(): void {
    const pid = this.child?.pid;
    if (pid !== undefined)
      try {
        process.kill(-pid, "SIGKILL");
      } catch {
        /* gone */
      }
    this.child = undefined;
  }

  close(): void {
    this.kill();
    this.types.close();
    rmSync(this.dir, { recursive: true, force: true });
  }
}

// ── the child ──────────────────────────────────────────────────────────────────────────────

async function child(): Promise<void> {
  const { createVitest } = await import("vitest/node");
  const vitest = await createVitest("test", { watch: false, reporters: [{ onInit() {} }] });
  process.on("message", async (m: Request) => {
    try {
      // The warm server does not watch files: drop every learner file it has transformed, so a
      // save is read afresh (without this a re-check grades the file as it was before the save).
      for (const f of readdirSync(join(ROOT, "lessons"), { recursive: true, encoding: "utf8" }))
        if (f.endsWith(".ts")) vitest.invalidateFile(join(ROOT, "lessons", f));
      const result = await vitest.runTestFiles(m.files.map((f) => join(ROOT, f)), false);
      const files: FileReport[] = result.testModules.map((mod) => {
        const tests = [...mod.children.allTests()].map((t) => {
          const r = t.result();
          const ancestors: string[] = [];
          for (let p = t.parent; p.type === "suite"; p = p.parent) ancestors.unshift(p.name);
          return {
            ancestorTitles: ancestors,
            title: t.name,
            status: r.state === "pending" ? "skipped" : r.state,
            failureMessages: (r.errors ?? []).map((e) => e.stack ?? `${e.name ?? "Error"}: ${e.message}`),
          };
        });
        const errors = mod.errors();
        const state = mod.state();
        return {
          name: mod.moduleId,
          status: state === "failed" || errors.length > 0 ? "failed" : tests.length > 0 && tests.every((t) => t.status !== "failed") ? "passed" : state,
          ...(errors.length > 0 ? { message: errors.map((e) => e.stack ?? e.message).join("\n") } : {}),
          assertionResults: tests,
        };
      });
      process.send?.({ id: m.id, files } satisfies Reply);
    } catch (e) {
      process.send?.({ id: m.id, error: e instanceof Error ? (e.stack ?? e.message) : String(e) } satisfies Reply);
    }
  });
  process.on("disconnect", () => void vitest.close().finally(() => process.exit(0)));
}

if (process.argv[1] && import.meta.url === new URL(`file://${process.argv[1]}`).href) void child();
