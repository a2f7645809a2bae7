/**
 * Every course command of package.json (a script of ours run with tsx), given a flag it does not
 * know or --help, answers at once: a mistake is exit 2 with the usage, naming the flag; --help is
 * the usage. Never the command's whole job: `npm run mutation -- --help` once started a 95-minute
 * sweep, as `npm run reliability -- --hlep` would a 25-minute one. A command added to package.json
 * is held to it without being named here.
 */
import { spawnSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { ROOT } from "../../runtime/testing.ts";
import { HelpRequested, strictArgs, UsageError } from "../../scripts/lib/args.ts";

const scripts = (JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8")) as { scripts: Record<string, string> }).scripts;
/** Ours: a script file run with tsx (vitest, tsc, eslint and vitepress answer for their own flags; `a && b` passes flags to b). */
const ours = Object.entries(scripts).filter(([, command]) => /^(tsx|node --import tsx) (scripts|tests)\//.test(command) && !command.includes("&&")).map(([name]) => name);
const LIMIT_S = 60;

/** The environment a learner's shell has: not this test worker's (a vitest worker's variables make a script that imports vitest think it runs inside one). */
const learnerEnv = () => Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith("VITEST") && k !== "TEST"));

function npmRun(name: string, flag: string) {
  const r = spawnSync("npm", ["run", "-s", name, "--", flag], { cwd: ROOT, encoding: "utf8", input: "", timeout: LIMIT_S * 1000, killSignal: "SIGKILL", env: { ...learnerEnv(), NO_COLOR: "1", COURSE_OFFLINE: "1", ANTHROPIC_API_KEY: "" } });
  return { status: r.status, out: `${r.stdout}${r.stderr}`, timedOut: r.error !== undefined || r.signal !== null };
}

describe("every course command and a flag it does not know", () => {
  it("finds the course's commands in package.json", () => {
    for (const name of ["check", "verify", "lesson", "agent", "eval", "reliability", "bench", "mutation", "new-lesson", "docs:sync", "test:all"]) expect(ours, `package.json's ${name} is not found among the course's commands`).toContain(name);
  });

  it.each(ours)("npm run %s -- --frobnicate: exit 2, one short message naming the flag and the usage, nothing run", (name) => {
    const r = npmRun(name, "--frobnicate");
    expect(r.timedOut, `npm run ${name} -- --frobnicate ran for ${LIMIT_S} s instead of refusing the flag:\n${r.out.slice(-500)}`).toBe(false);
    expect(r.status, `npm run ${name} -- --frobnicate exited ${r.status}: a mistake on the command line is exit 2\n${r.out.slice(-500)}`).toBe(2);
    const lines = r.out.trim().split("\n");
    expect(lines.length, `npm run ${name} -- --frobnicate said ${lines.length} lines: one or two, the mistake and the usage`).toBeLessThanOrEqual(2);
    expect(r.out, `npm run ${name} -- --frobnicate does not name the flag`).toContain("--frobnicate");
    expect(r.out, `npm run ${name} -- --frobnicate does not give the usage`).toMatch(/usage/i);
  });

  it.each(ours)("npm run %s -- --help: the usage, at once", (name) => {
    const r = npmRun(name, "--help");
    expect(r.timedOut, `npm run ${name} -- --help ran for ${LIMIT_S} s instead of printing its usage:\n${r.out.slice(-500)}`).toBe(false);
    expect(r.status, `npm run ${name} -- --help exited ${r.status}: asking for help is not a mistake, exit 0\n${r.out.slice(-500)}`).toBe(0);
    expect(r.out, `npm run ${name} -- --help calls --help a mistake`).not.toMatch(/unknown flag/i);
    expect(r.out, `npm run ${name} -- --help does not give the usage`).toMatch(/usage/i);
  });
});

describe("strictArgs and --help", () => {
  const spec = { command: "npm run thing", usage: "[sNN] [-- --verbose]", options: { verbose: { type: "boolean" as const } }, positionals: { max: 1 } };
  it("answers --help or -h with the usage, as help and not as a mistake, for a command without a help of its own", () => {
    for (const argv of [["--help"], ["-h"], ["s01", "--help"], ["--verbose", "-h"]]) {
      let thrown: unknown;
      try {
        strictArgs(spec, argv);
      } catch (e) {
        thrown = e;
      }
      expect(thrown, `${argv.join(" ")}: help asked for`).toBeInstanceOf(HelpRequested);
      expect((thrown as Error).message, `${argv.join(" ")}: the usage line`).toMatch(/usage: npm run thing \[sNN\]/);
    }
  });
  it("leaves --help to a command that has its own, and takes it as a word after --", () => {
    const own = { ...spec, options: { ...spec.options, help: { type: "boolean" as const } } };
    expect(strictArgs(own, ["--help"]).values.help, "the command's own --help").toBe(true);
    expect(strictArgs(spec, ["--", "--help"]).positionals, "after --, a word like any other").toEqual(["--help"]);
    expect(() => strictArgs(spec, ["--frobnicate"]), "a flag it does not know is still a mistake").toThrow(UsageError);
    expect(() => strictArgs(spec, ["--frobnicate"]), "and not help").not.toThrow(HelpRequested);
  });
});
