/**
 * The type checker kept warm for `npm run watch`: one child process that holds TypeScript's
 * compiler API with the previous program and every source file it parsed (the SDK's and Node's
 * types), so a save costs the type check of the changed files only (a tenth of a second, against
 * one to two seconds for a fresh process). It runs beside the warm test runner, so the tests and
 * the type check of a save share the two cores instead of queuing.
 *
 * The child answers with `typeErrors` (typecheck.ts): the compiler API that `npm run typecheck`
 * runs, with the same words. Where the child is not up, has died or does not answer in time, the
 * check falls back to `typeErrorsFast` in the caller's process: a warm checker is a shortcut,
 * never the only way to an answer.
 *
 *   const types = new WarmTypes();
 *   types.start("lessons/s01_agent_loop");      // parses the libraries while the learner reads
 *   await types.check(dir)                       // → TypeProblem[]
 *   types.close();
 *
 * Run as a script (`node --import tsx scripts/lib/warm-types.ts`), this file is the child.
 */
import { fork, type ChildProcess } from "node:child_process";
import { fileURLToPath } from "node:url";
import { ROOT } from "./paths.ts";
import { typeErrors, typeErrorsFast, type TypeProblem } from "./typecheck.ts";

interface Request {
  id: number;
  dir: string;
}
interface Reply {
  id: number;
  problems?: TypeProblem[];
  error?: string;
}

export class WarmTypes {
  private child: ChildProcess | undefined;
  private next = 0;
  private exitHook = false;
  private readonly waiting = new Map<number, (r: Reply | undefined) => void>();

  /** Starts the child; with a folder, it type-checks that one at once (the libraries parsed). */
  start(warmUp?: string): void {
    if (this.child && this.child.exitCode === null && this.child.connected) return;
    const child = fork(fileURLToPath(import.meta.url), [], {
      cwd: ROOT,
      execArgv: ["--import", "tsx"],
      env: process.env,
      stdio: ["ignore", "ignore", "ignore", "ipc"],
      detached: true,
    });
    this.child = child;
    child.on("message", (m: Reply) => {
      const resolve = this.waiting.get(m.id);
      this.waiting.delete(m.id);
      resolve?.(m);
    });
    child.on("exit", () => {
      if (this.child === child) this.child = undefined;
      for (const resolve of this.waiting.values()) resolve(undefined);
      this.waiting.clear();
    });
    child.on("error", () => {
      /* reported as no answer */
    });
    if (!this.exitHook) {
      this.exitHook = true;
      process.on("exit", () => this.close());
    }
    if (warmUp) void this.ask(warmUp, 0);
  }

  /**
   * The type errors of a lesson folder, from the warm child; from a fresh check where the child
   * gives no answer within `timeoutMs` (its first answer can take a few seconds: the libraries).
   */
  async check(dir: string, timeoutMs = 15_000): Promise<TypeProblem[]> {
    this.start();
    const reply = await this.ask(dir, timeoutMs);
    if (reply?.problems) return reply.problems;
    return typeErrorsFast(dir);
  }

  private ask(dir: string, timeoutMs: number): Promise<Reply | undefined> {
    const child = this.child;
    if (!child?.connected) return Promise.resolve(undefined);
    const id = ++this.next;
    return new Promise((resolve) => {
      const timer = timeoutMs > 0 ? setTimeout(() => finish(undefined), timeoutMs) : undefined;
      const finish = (r: Reply | undefined) => {
        if (timer) clearTimeout(timer);
        this.waiting.delete(id);
        resolve(r);
      };
      this.waiting.set(id, finish);
      try {
        child.send({ id, dir } satisfies Request);
      } catch {
        finish(undefined);
      }
    });
  }

  close(): void {
    const pid = this.child?.pid;
    this.child = undefined;
    if (pid !== undefined)
      try {
        process.kill(-pid, "SIGKILL");
      } catch {
        /* gone */
      }
  }
}

// ── the child ──────────────────────────────────────────────────────────────────────────────

function child(): void {
  process.on("message", (m: Request) => {
    try {
      process.send?.({ id: m.id, problems: typeErrors(m.dir) } satisfies Reply);
    } catch (e) {
      process.send?.({ id: m.id, error: e instanceof Error ? e.message : String(e) } satisfies Reply);
    }
  });
  process.on("disconnect", () => process.exit(0));
}

if (process.argv[1] && import.meta.url === new URL(`file://${process.argv[1]}`).href) child();
