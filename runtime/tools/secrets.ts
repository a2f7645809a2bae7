/**
 * What no tool may reach in ANY workspace, and the one walk that finds it.
 *
 * 1. Secret names: `.env*`, key and credential files (`*.pem`, `id_ed25519`, `.npmrc`,
 *    `credentials.json`, …) and folders (`.ssh`, `.aws`, …, and the course's own state `.course/`).
 *    The file tools refuse them when they open (whether the file existed at the start or was made
 *    during the run); the sandbox hides the ones that exist when each command starts.
 * 2. Files with more than one hard link: the same file as a name that may be outside the workspace.
 *    The file tools refuse them when they open; the sandbox covers each with /dev/null (unless
 *    every one of its names was found inside the workspace).
 *
 * The walk (`surveyWorkspace`) looks at EVERY entry, node_modules and .git included, and fails
 * closed: a workspace too large to check, or a folder it cannot read, is an error, never a
 * partial answer that lets the rest through.
 */
import { lstatSync, readdirSync, realpathSync } from "node:fs";
import { join, relative, resolve, sep } from "node:path";

/** A file (or folder) name that holds secrets, wherever it is in the workspace. */
export const SECRET_FILE =
  /^(\.env.*|\.netrc|\.npmrc|\.yarnrc\.yml|\.pypirc|\.pgpass|\.git-credentials|\.htpasswd|id_(rsa|dsa|ecdsa|ed25519)(_sk)?|.+\.(pem|key|p12|pfx|jks|keystore|ppk|kdbx|gpg)|credentials(\.json|\.ya?ml|\.toml)?|.*credentials.*\.json|.*service[-_]account.*\.json)$/i;
/** Folders that are secret whole: the user's keys and clouds, and the course's own state. */
export const SECRET_DIR = /^(\.course|\.ssh|\.aws|\.gnupg|\.docker|\.kube|\.azure|\.password-store|\.gcloud)$/;

/** The first part of a relative path that is secret, or null ("a/.env" → ".env"). */
export function secretPart(rel: string): string | null {
  for (const part of rel.split(/[\\/]/)) if (part !== "" && part !== "." && (SECRET_DIR.test(part) || SECRET_FILE.test(part))) return part;
  return null;
}

/** Is `abs` (a path under `root`) secret by its name, or by the name of a folder on its way? */
export function isSecretPath(root: string, abs: string): string | null {
  const rel = relative(root, abs);
  if (rel.startsWith(`..${sep}`) || rel === "..") return null;
  return secretPart(rel);
}

/** Past this many entries a workspace is not checked, and commands do not start (fail closed). */
export const SURVEY_MAX_ENTRIES = 400_000;

export class SurveyError extends Error {
  override name = "SurveyError";
}

export interface Survey {
  /** Regular files with more than one hard link (absolute paths). */
  hardLinks: string[];
  /** Secret files and folders by name (absolute paths; a secret folder is not walked into). */
  secrets: Array<{ path: string; dir: boolean }>;
  /** Entries looked at. */
  entries: number;
}

/**
 * Every entry under `root` (links are not followed): its hard-linked files and its secrets.
 * Throws a SurveyError, with what to do, when the workspace is too large or a folder cannot be
 * read: what was not looked at is never let through.
 */
export function surveyWorkspace(root: string, max = SURVEY_MAX_ENTRIES): Survey {
  const survey: Survey = { hardLinks: [], secrets: [], entries: 0 };
  const stack = [root];
  const linked: Array<{ path: string; id: string; nlink: number }> = [];
  while (stack.length > 0) {
    const dir = stack.pop()!;
    let entries;
    try {
      entries = readdirSync(dir, { withFileTypes: true });
    } catch (e) {
      throw new SurveyError(
        `the folder ${relative(root, dir) || "."} of the workspace cannot be read (${(e as NodeJS.ErrnoException).code ?? String(e)}), so it cannot be checked for hard links and secret files; fix its permissions or choose another workspace`,
      );
    }
    for (const e of entries) {
      if (++survey.entries > max)
        throw new SurveyError(`the workspace has more than ${max} entries: too many to check for hard links and secret files before each command; choose a smaller workspace`);
      const path = join(dir, e.name);
      const secret = SECRET_DIR.test(e.name) || SECRET_FILE.test(e.name);
      if (e.isDirectory()) {
        if (secret) survey.secrets.push({ path, dir: true });
        else stack.push(path);
      } else if (e.isFile()) {
        if (secret) survey.secrets.push({ path, dir: false });
        try {
          const st = lstatSync(path);
          if (st.nlink > 1) linked.push({ path, id: `${st.dev}:${st.ino}`, nlink: st.nlink });
        } catch {
          // Gone meanwhile: nothing to hide.
        }
      } else if (secret && !e.isSymbolicLink()) survey.secrets.push({ path, dir: false });
    }
  }
  // A file all of whose names are in the workspace is the workspace's own: only the others count.
  const names = new Map<string, number>();
  for (const l of linked) names.set(l.id, (names.get(l.id) ?? 0) + 1);
  survey.hardLinks = linked.filter((l) => names.get(l.id)! < l.nlink).map((l) => l.path);
  return survey;
}

/** How far a command's folder is walked to judge it without the sandbox (past it: not read-only). */
export const READ_WALK_MAX = 50_000;

function realOr(path: string): string | null {
  try {
    return realpathSync(path);
  } catch {
    return null;
  }
}

/** Is `abs` a secret, by its name or by its real location's (a link named notes.txt → .env)? */
export function namesSecret(root: string, abs: string): string | null {
  const byName = isSecretPath(root, abs);
  if (byName) return byName;
  const real = realOr(abs);
  return real === null ? null : isSecretPath(realOr(root) ?? root, real);
}

/** Programs of s07's read-only list that read the FILES under a folder named to them. */
const READS_UNDER: Record<string, (args: string[]) => boolean> = {
  grep: (args) => args.some((a) => a === "--recursive" || /^-[A-Za-z]*r/.test(a)),
  diff: () => true,
};

/**
 * Why a command that passed s07's read-only check would still read what no tool may read, or
 * null: a word that names a secret, or a folder read recursively (grep -r, diff of folders; grep
 * -r with no folder reads the current one) with a secret or a hard-linked file anywhere under it.
 * `stages` are the command's words per pipeline stage; `root` the workspace it runs in.
 */
export function unseenReads(stages: string[][], root: string): string | null {
  for (const [name = "", ...args] of stages) {
    const words = args.filter((a) => !a.startsWith("-"));
    for (const w of words) {
      const part = namesSecret(root, resolve(root, w));
      if (part) return `${w} is a secret file (${part}): keys, credentials, .env files and .course/ are out of reach of every tool`;
    }
    if (!READS_UNDER[name]?.(args)) continue;
    const folders = words.filter((w) => {
      try {
        return lstatSync(resolve(root, w)).isDirectory();
      } catch {
        return false;
      }
    });
    if (name === "grep" && folders.length === 0) folders.push(".");
    for (const f of folders) {
      let found: Survey;
      try {
        found = surveyWorkspace(resolve(root, f), READ_WALK_MAX);
      } catch (e) {
        return `${name} reads every file under ${f}, which could not all be checked (${(e as Error).message})`;
      }
      const secret = found.secrets[0];
      if (secret) return `${name} reads every file under ${f}, and ${relative(root, secret.path)} there is a secret file`;
      const linked = found.hardLinks[0];
      if (linked) return `${name} reads every file under ${f}, and ${relative(root, linked)} there has more than one hard link (it may be a file outside the workspace)`;
    }
  }
  return null;
}
