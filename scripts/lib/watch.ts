/**
 * Watch mode: the session logic (what happens on a save or a key), separate from the terminal
 * and the file watcher, so tests can drive it with plain calls and fake checks.
 *
 *   save in lessons/<dir>/   → check that lesson (a newer save stops the check in flight);
 *                              when it passes, move on to the first lesson not done and check it
 *   h  hint (press again for the stronger one)     r  run the lesson's script
 *   l  list the lessons                            c / Enter  check again
 *   q  quit (Ctrl-C too)
 */
import { readdirSync, statSync, watch as fsWatch, type FSWatcher } from "node:fs";
import { join, relative } from "node:path";
import type { Lesson } from "../../runtime/manifest.ts";
import type { Grade } from "./grade.ts";
import { lessonTitle, word, CLI_WORDS } from "../../runtime/words.ts";
import { nextLine } from "./views.ts";

export interface WatchDeps {
  lessons: () => Lesson[];
  /** Grades a lesson's exercise; must stop when the signal aborts. */
  check: (lesson: Lesson, signal: AbortSignal) => Promise<Grade>;
  /** Known to pass (from the result cache), without running anything. */
  isDone: (lesson: Lesson) => boolean;
  /** The last check's verdict when the lesson's files have not changed since (the result cache). */
  cached?: (lesson: Lesson) => Grade | undefined;
  /** The lines printed for a failed check. */
  report: (lesson: Lesson, grade: Grade) => string[];
  hint: (lesson: Lesson, level: 1 | 2) => string[];
  list: () => Promise<string[]>;
  runLesson: (lesson: Lesson) => Promise<void>;
  print: (line: string) => void;
  /** Quiet time after a save before checking (editors write in bursts). */
  debounceMs?: number;
}

/** The keys, in English; \`keysHelp()\` says them in the learner's language. */
export const KEYS_HELP = CLI_WORDS["watch.keys"];
export const keysHelp = () => word("watch.keys");

export class WatchSession {
  current: Lesson | undefined;
  /** Checks started so far (tests count reruns with it). */
  checks = 0;
  private hintLevel = 0;
  private inFlight: { controller: AbortController; done: Promise<void> } | undefined;
  private runningScript = false;
  private timer: ReturnType<typeof setTimeout> | undefined;
  private pending = new Set<string>();
  private quitResolve!: () => void;
  /** Resolves when the learner quits. */
  readonly finished = new Promise<void>((r) => (this.quitResolve = r));
  private stopped = false;

  constructor(private readonly deps: WatchDeps) {}

  /** Picks the first lesson not known to be done and checks it. */
  async start(): Promise<void> {
    this.current = this.firstNotDone();
    if (!this.current) return this.allDone();
    this.deps.print(word("watch.watching", { id: this.current.id, title: lessonTitle(this.current) }));
    // Nothing changed since the last check: its verdict at once, no test run (save to re-check).
    const known = this.deps.cached?.(this.current);
    if (known && !known.ok) {
      for (const line of this.deps.report(this.current, known)) this.deps.print(line);
      this.deps.print(word("watch.cached"));
      this.deps.print(keysHelp());
      return;
    }
    await this.check(this.current);
  }

  private firstNotDone(): Lesson | undefined {
    return this.deps.lessons().find((l) => !this.deps.isDone(l));
  }

  /** A file under lessons/ changed (path relative to lessons/, e.g. "s01_agent_loop/agent.ts"). */
  fileChanged(relPath: string): void {
    if (this.stopped) return;
    const dir = relPath.split(/[\\/]/)[0];
    const lesson = this.deps.lessons().find((l) => l.dir === dir);
    if (!lesson) return;
    this.pending.add(lesson.id);
    if (this.timer) clearTimeout(this.timer);
    this.timer = setTimeout(() => void this.flush(), this.deps.debounceMs ?? 120);
  }

  private async flush(): Promise<void> {
    this.timer = undefined;
    if (this.runningScript) return; // checked when the script ends
    const ids = [...this.pending];
    this.pending.clear();
    // Several lessons saved at once: the one last saved is the one being worked on.
    const lesson = this.deps.lessons().find((l) => l.id === ids[ids.length - 1]);
    if (!lesson) return;
    if (lesson.id !== this.current?.id) this.hintLevel = 0;
    this.current = lesson;
    await this.check(lesson);
  }

  /** Checks `lesson` (stopping any check in flight); moves on when it passes. */
  async check(lesson: Lesson): Promise<void> {
    if (this.stopped) return;
    this.inFlight?.controller.abort();
    const controller = new AbortController();
    this.checks++;
    const run = async () => {
      this.deps.print(`\n${word("watch.checking", { id: lesson.id, title: lessonTitle(lesson) })}`);
      const grade = await this.deps.check(lesson, controller.signal);
      if (controller.signal.aborted || this.stopped) return;
      if (!grade.ok) {
        for (const line of this.deps.report(lesson, grade)) this.deps.print(line);
        this.deps.print(keysHelp());
        return;
      }
      this.deps.print(word("watch.passes", { id: lesson.id, passed: grade.passed, total: grade.total }));
      const next = this.firstNotDone();
      if (!next) return this.allDone();
      this.current = next;
      this.hintLevel = 0;
      this.deps.print(nextLine(next));
      // The next lesson is checked in a fresh run, which becomes the one in flight.
      void this.check(next);
    };
    const done = run();
    this.inFlight = { controller, done };
    await done;
  }

  private allDone(): void {
    this.current = undefined;
    this.deps.print(word("watch.all-done"));
  }

  /** Waits until no check is running (tests use it after a save or a key). */
  async idle(): Promise<void> {
    while (this.timer || this.inFlight) {
      if (this.timer) await new Promise((r) => setTimeout(r, 5));
      const f = this.inFlight;
      if (f) {
        await f.done;
        if (this.inFlight === f) this.inFlight = undefined;
      }
    }
  }

  /** One key press. Returns true when the session ends. */
  async key(k: string): Promise<boolean> {
    if (this.stopped) return true;
    if (this.runningScript) return false;
    switch (k) {
      case "q":
      case "\x03": // Ctrl-C
      case "\x04": // Ctrl-D
        this.quit();
        return true;
      case "h": {
        if (!this.current) return this.say(word("hint.none-needed"));
        this.hintLevel = Math.min(this.hintLevel + 1, 2);
        for (const line of this.deps.hint(this.current, this.hintLevel as 1 | 2)) this.deps.print(line);
        return false;
      }
      case "l":
        for (const line of await this.deps.list()) this.deps.print(line);
        return false;
      case "r": {
        if (!this.current) return this.say(word("watch.nothing-to-run"));
        this.runningScript = true;
        try {
          await this.deps.runLesson(this.current);
        } finally {
          this.runningScript = false;
        }
        this.deps.print(keysHelp());
        if (this.pending.size > 0) await this.flush();
        return false;
      }
      case "c":
      case "\r":
        if (this.current) await this.check(this.current);
        return false;
      default:
        return this.say(keysHelp());
    }
  }

  private say(line: string): false {
    this.deps.print(line);
    return false;
  }

  quit(): void {
    if (this.stopped) return;
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    this.inFlight?.controller.abort();
    this.deps.print(word("watch.bye"));
    this.quitResolve();
  }
}

/** The terminal side: keys from stdin (raw mode on a TTY), saves from fs.watch on lessons/. */
export function attachTerminal(
  session: WatchSession,
  { lessonsDir, stdin = process.stdin }: { lessonsDir: string; stdin?: NodeJS.ReadStream },
): { pauseKeys: () => void; resumeKeys: () => void; close: () => void } {
  let watcher: FSWatcher | undefined;
  // fs.watch can miss a save (a recursive watch on Linux is built from inotify watches, which a
  // busy machine can run out of; an error ends it quietly): a slow scan of the files' times
  // catches what it missed. A save both see is one check (fileChanged waits for the saves to stop).
  const poll = pollChanges(lessonsDir, (rel) => session.fileChanged(rel));
  try {
    watcher = fsWatch(lessonsDir, { recursive: true }, (_event, filename) => {
      if (filename) session.fileChanged(filename.toString());
    });
    watcher.on("error", () => {});
  } catch {
    console.error(word("watch.no-fs-watch", { dir: lessonsDir }));
  }
  const onData = (chunk: Buffer | string) => {
    for (const ch of chunk.toString()) if (ch !== "\n") void session.key(ch);
  };
  const resumeKeys = () => {
    if (stdin.isTTY) stdin.setRawMode(true);
    stdin.on("data", onData);
    stdin.resume();
  };
  const pauseKeys = () => {
    stdin.off("data", onData);
    if (stdin.isTTY) stdin.setRawMode(false);
    stdin.pause();
  };
  resumeKeys();
  return {
    pauseKeys,
    resumeKeys,
    close: () => {
      watcher?.close();
      poll.stop();
      pauseKeys();
    },
  };
}

/**
 * Calls `changed` with the path (relative to `dir`) of each file under `dir` whose size or
 * modification time differs from the scan before, every `everyMs`; a file that appears counts,
 * one that goes does too. The first scan only notes what is there.
 */
export function pollChanges(dir: string, changed: (rel: string) => void, everyMs = 1_000): { stop: () => void } {
  const scan = (): Map<string, string> => {
    const seen = new Map<string, string>();
    const walk = (d: string) => {
      let entries;
      try {
        entries = readdirSync(d, { withFileTypes: true });
      } catch {
        return;
      }
      for (const e of entries) {
        const path = join(d, e.name);
        if (e.isDirectory()) walk(path);
        else if (e.isFile())
          try {
            const st = statSync(path);
            seen.set(relative(dir, path), `${st.size}:${st.mtimeMs}`);
          } catch {
            // Gone meanwhile: the next scan sees it gone.
          }
      }
    };
    walk(dir);
    return seen;
  };
  let last = scan();
  const timer = setInterval(() => {
    const now = scan();
    for (const [rel, stamp] of now) if (last.get(rel) !== stamp) changed(rel);
    for (const rel of last.keys()) if (!now.has(rel)) changed(rel);
    last = now;
  }, everyMs);
  timer.unref();
  return { stop: () => clearInterval(timer) };
}
