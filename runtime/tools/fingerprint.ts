/**
 * What the workspace IS, not what the tools say they did: a fingerprint of every entry under it
 * (node_modules and .git included; links not followed), and the one the user last trusted.
 *
 * Without a sandbox, s12's run_tests runs the workspace's code with the user's permissions. It
 * runs without asking only while the workspace is exactly as it was when first seen, or as the
 * user last approved it: whatever changed it since (write_file, an approved command, an MCP tool,
 * an earlier question or an earlier run, a process outside the agent) makes it ask again.
 *
 * The fingerprint hashes each entry's path, type, mode, size, inode and change time (ctime).
 * ctime is set by the kernel on every change of content or metadata and cannot be set back by a
 * program, so a file rewritten with the same size and an old mtime still changes the fingerprint.
 * The trusted fingerprint is kept in the course's .course/trust/ (out of reach of every tool).
 */
import { createHash } from "node:crypto";
import { lstatSync, mkdirSync, readdirSync, readFileSync, realpathSync, renameSync, writeFileSync } from "node:fs";
import { join, relative } from "node:path";
import { COURSE_ROOT } from "../env.ts";

/** Past this many entries the workspace is not fingerprinted: it always counts as changed (fail closed). */
export const FINGERPRINT_MAX_ENTRIES = 400_000;

/** The fingerprint of everything under `root`, or null when it cannot be taken whole (too large, unreadable). */
export function workspaceFingerprint(root: string, max = FINGERPRINT_MAX_ENTRIES): string | null {
  const hash = createHash("sha256");
  let seen = 0;
  const stack = [root];
  while (stack.length > 0) {
    const dir = stack.pop()!;
    let names: string[];
    try {
      names = readdirSync(dir).sort();
    } catch {
      return null;
    }
    for (const name of names) {
      if (++seen > max) return null;
      const path = join(dir, name);
      let st;
      try {
        st = lstatSync(path, { bigint: true });
      } catch {
        return null; // changing while we look: not a state anyone approved
      }
      hash.update(`${relative(root, path)}\0${st.mode}\0${st.size}\0${st.ino}\0${st.ctimeNs}\0${st.mtimeNs}\n`);
      if (st.isDirectory()) stack.push(path);
    }
  }
  return hash.digest("hex");
}

/**
 * Where the trusted fingerprint of a workspace is kept: the course's .course/trust/, or
 * COURSE_TRUST_DIR (the test suite's own temporary folder). Read once, from the agent's own
 * environment, which no tool can change.
 */
export const TRUST_DIR = process.env.COURSE_TRUST_DIR?.trim() || join(COURSE_ROOT, ".course", "trust");

/**
 * The state of one workspace the user trusts: the one first seen (before any tool ran in it,
 * in any run), then each one the user approved. Shared by every run through the file in `dir`.
 */
export class WorkspaceTrust {
  private readonly file: string;
  private trusted: string | null;

  constructor(
    readonly root: string,
    dir: string = TRUST_DIR,
  ) {
    let real = root;
    try {
      real = realpathSync(root);
    } catch {
      // Judged by its name then.
    }
    this.file = join(dir, `${createHash("sha256").update(real).digest("hex").slice(0, 32)}.json`);
    this.trusted = this.read();
    // First sight of this workspace: as the user brought it, it is theirs.
    if (this.trusted === null) this.approve(workspaceFingerprint(root));
  }

  private read(): string | null {
    try {
      const saved = JSON.parse(readFileSync(this.file, "utf8")) as { fingerprint?: unknown };
      return typeof saved.fingerprint === "string" ? saved.fingerprint : null;
    } catch {
      return null;
    }
  }

  /** The fingerprint now, and whether it differs from the trusted one (a workspace too large always does). */
  check(): { differs: boolean; now: string | null } {
    const now = workspaceFingerprint(this.root);
    // Another run may have recorded an approval meanwhile: the file is the truth.
    this.trusted = this.read() ?? this.trusted;
    return { differs: now === null || now !== this.trusted, now };
  }

  /** The user approved this state (a fingerprint from `check`): it is trusted from now on, in every run. */
  approve(fingerprint: string | null): void {
    if (fingerprint === null) return;
    this.trusted = fingerprint;
    try {
      mkdirSync(join(this.file, ".."), { recursive: true });
      const tmp = `${this.file}.${process.pid}.tmp`;
      writeFileSync(tmp, JSON.stringify({ root: this.root, fingerprint, at: new Date().toISOString() }));
      renameSync(tmp, this.file);
    } catch {
      // Kept in memory for this run at least.
    }
  }
}
