/**
 * s18's rules judge what a command would RUN, not how it is spelt (runtime/tools/shell-commands.ts
 * read by solutions/s18_permissions/permissions.ts): `bash(rm *)` denies rm however it is
 * written (compound commands, paths, backslashes, quotes, the programs that run another
 * command), a command the reader cannot follow is never allowed, ordinary commands stay allowed
 * by the rules that name them, and a file rule sees the path a link leads to.
 */
import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, realpathSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import fc from "fast-check";
import { afterAll, describe, expect, it } from "vitest";
import { mayMatch, mustMatch, readCommand, UNKNOWN, visible } from "../../runtime/tools/shell-commands.ts";
import { decide, parseRule, ruleMatches, type Mode, type Rule } from "../../solutions/s18_permissions/permissions.ts";

const dirs: string[] = [];
afterAll(() => dirs.forEach((d) => rmSync(d, { recursive: true, force: true })));
const scratch = (prefix: string) => {
  const d = realpathSync(mkdtempSync(join(tmpdir(), prefix)));
  dirs.push(d);
  return d;
};

const ROOT = "/w";
const rules = (spec: { allow?: string[]; ask?: string[]; deny?: string[] }): Rule[] => (["deny", "ask", "allow"] as const).flatMap((b) => (spec[b] ?? []).map((t) => parseRule(t, b, "the test's settings")));
const verdict = (command: string, rs: Rule[], mode: Mode = "default", root = ROOT) => decide("bash", { command }, rs, mode, { readOnly: false, root });

/** `bash(rm *)` denied; everything else allowed by the widest rules a project could write. */
const DENY_RM = rules({ deny: ["bash(rm *)"], allow: ["bash", "bash(*)"] });

/** Each deletes notes.txt when bash runs it (checked below), and each is denied by bash(rm *). */
const SPELLINGS = [
  "rm notes.txt",
  "if true; then rm notes.txt; fi",
  "if false; then :; else rm notes.txt; fi",
  "for f in notes.txt; do rm $f; done",
  "while true; do rm notes.txt; break; done",
  "until false; do rm notes.txt; break; done",
  "case x in x) rm notes.txt;; esac",
  "! rm notes.txt",
  "true && \\rm notes.txt",
  "false || rm notes.txt",
  "f() { rm notes.txt; }; f",
  "function g { rm notes.txt; }; g",
  "echo $(rm notes.txt)",
  "echo `rm notes.txt`",
  "(rm notes.txt)",
  "{ rm notes.txt; }",
  "cat <(rm notes.txt)",
  "x=$(rm notes.txt) true",
  "cat <<EOF\n$(rm notes.txt)\nEOF",
  "/bin/rm notes.txt",
  "/usr/bin/rm notes.txt",
  "\\rm notes.txt",
  "'rm' notes.txt",
  '"r"m notes.txt',
  "r\\m notes.txt",
  "$'\\x72m' notes.txt",
  "command rm notes.txt",
  "builtin command rm notes.txt",
  "exec rm notes.txt",
  "env rm notes.txt",
  "env -i FOO=1 rm notes.txt",
  "/usr/bin/env rm notes.txt",
  "nice -n 5 rm notes.txt",
  "nohup rm notes.txt",
  "timeout 10 rm notes.txt",
  "time rm notes.txt",
  "time -p rm notes.txt",
  "echo notes.txt | xargs rm",
  "echo notes.txt | xargs -I{} rm {}",
  "find . -name notes.txt -delete",
  "find . -name notes.txt -exec rm {} \\;",
  "find . -name notes.txt -execdir rm -f {} +",
  "bash -c 'rm notes.txt'",
  "sh -c 'rm notes.txt'",
  "dash -c \"true; rm notes.txt\"",
  "bash -lc 'for f in notes.txt; do rm \"$f\"; done'",
  "eval 'rm notes.txt'",
  "eval rm notes.txt",
  "trap 'rm notes.txt' EXIT",
  "echo rm notes.txt | bash",
  "X=rm; $X notes.txt",
  "bash <<'EOF'\nrm notes.txt\nEOF",
  // util-linux and friends: programs that run their words as a command, as nice and nohup do.
  "flock .lock rm notes.txt",
  "flock -w 5 .lock -c 'rm notes.txt'",
  "taskset -c 0 rm notes.txt",
  "chrt -o 0 rm notes.txt",
  "prlimit --nofile=64 rm notes.txt",
  "setpriv --reset-env rm notes.txt",
  "unshare -r rm notes.txt",
  "fakeroot -- rm notes.txt",
  "script -qc 'rm notes.txt' /dev/null",
  "source /dev/stdin <<< 'rm notes.txt'",
  ". /dev/fd/0 <<< 'rm notes.txt'",
  "mapfile -C 'rm notes.txt; :' -c 1 <<< x",
  // Programs that run a command named in one of their options.
  "tar -cf /dev/null notes.txt --checkpoint=1 --checkpoint-action=exec='rm notes.txt'",
  "tar -cf ../t.tar notes.txt && tar -xf ../t.tar --to-command='rm notes.txt'",
  "tar -cf /dev/null -I 'rm notes.txt' notes.txt",
  "tar -cvI 'rm notes.txt' -f /dev/null notes.txt",
  "rsync -e 'rm notes.txt' x h:y",
  "rsync -avze 'rm notes.txt' x h:y",
  "parallel rm ::: notes.txt",
];
/** Programs a machine may not have: their spellings are judged above, and run below only where installed. */
const OPTIONAL_PROGRAMS = ["rsync", "parallel"];

describe("bash(rm *) denies rm however it is spelt", () => {
  it.each(SPELLINGS)("%j is denied, in every mode", (command) => {
    for (const mode of ["default", "acceptEdits", "bypassPermissions"] as const) {
      const v = verdict(command, DENY_RM, mode);
      expect(v.behavior, `${JSON.stringify(command)} in ${mode} with deny bash(rm *) and allow bash(*): ${v.behavior} (${v.reason}); the rm it runs must meet the deny rule`).toBe("deny");
    }
  });

  it("each spelling in the table really deletes the file when bash runs it (the table is not made of strawmen)", () => {
    if (spawnSync("bash", ["--version"]).status !== 0) return;
    // One bash for all (each in a sub-shell of its own, in a folder of its own): a spawn is slow on a busy machine.
    const dir = scratch("spelling-");
    // sudo needs a password, unshare -r user namespaces, fakeroot may not be installed: the others run anywhere.
    const missing = OPTIONAL_PROGRAMS.filter((p) => spawnSync("sh", ["-c", `command -v ${p}`]).status !== 0);
    const spellings = SPELLINGS.filter((c) => !/sudo|unshare|fakeroot/.test(c) && !missing.some((p) => c.startsWith(`${p} `)));
    const script = spellings.map((command, i) => {
      mkdirSync(join(dir, String(i)));
      writeFileSync(join(dir, String(i), "notes.txt"), "keep me\n");
      return `(\ncd ${i} || exit 1\n${command}\n)`;
    });
    spawnSync("bash", ["-c", script.join("\n")], { cwd: dir, env: { PATH: process.env.PATH ?? "/usr/bin:/bin" }, stdio: "ignore" });
    const left = spellings.filter((_, i) => existsSync(join(dir, String(i), "notes.txt")));
    expect(left, "these spellings left notes.txt when bash ran them: the table must list spellings that really run rm").toEqual([]);
  });

  // Wrappers that run their words as a command, then constructs that run what they hold.
  const shq = (c: string) => `'${c.replaceAll("'", `'\\''`)}'`;
  const ARGV_WRAPPERS = ["command", "exec", "env", "env -i A=1", "nice -n 5", "nohup", "timeout 10", "time", "sudo", "sudo -u root", "stdbuf -o0", "setsid", "busybox", "/usr/bin/env", "xargs", "flock .lock", "taskset 1", "chrt -o 0", "prlimit --nofile=64", "setpriv", "unshare -r", "fakeroot --", "nsenter -t 1"];
  const BASES = ["rm notes.txt", "rm -rf build", "\\rm notes.txt", "/bin/rm notes.txt", "'rm' x", "r\\m x", "$'\\x72m' x", '"/usr/bin/rm" x'];
  const COMPOUND: Array<(c: string) => string> = [
    (c) => `if true; then ${c}; fi`,
    (c) => `if ${c}; then :; fi`,
    (c) => `if false; then :; elif true; then ${c}; else :; fi`,
    (c) => `for f in a b; do ${c}; done`,
    (c) => `for ((i=0; i<1; i++)); do ${c}; done`,
    (c) => `while true; do ${c}; break; done`,
    (c) => `until ${c}; do :; done`,
    (c) => `case x in a|b) :;; *) ${c};; esac`,
    (c) => `! ${c}`,
    (c) => `true && ${c}`,
    (c) => `false || ${c}`,
    (c) => `${c} & wait`,
    (c) => `ls | ${c}`,
    (c) => `echo ok\n${c}`,
    (c) => `( ${c} )`,
    (c) => `{ ${c}; }`,
    (c) => `f() { ${c}; }; f`,
    (c) => `function g { ${c}; }`,
    (c) => `echo $( ${c} )`,
    (c) => `echo \`${c.replace(/[\\`$]/g, (m) => `\\${m}`)}\``,
    (c) => `cat <( ${c} )`,
    (c) => `echo x > >( ${c} )`,
    (c) => `[[ -n $( ${c} ) ]]`,
    (c) => `bash -c ${shq(c)}`,
    (c) => `sh -c ${shq(c)}`,
    (c) => `eval ${shq(c)}`,
    (c) => `env A=1 bash -c ${shq(c)}`,
    // A here-document's end must be alone on its line: a group around it ends on the next.
    (c) => `{ cat <<EOF${c.length}\n$( ${c} )\nEOF${c.length}\n}`,
    (c) => `{ ${c}; } 2>/dev/null`,
  ];
  const wrapped = fc
    .tuple(fc.constantFrom(...BASES), fc.array(fc.constantFrom(...ARGV_WRAPPERS), { maxLength: 3 }), fc.array(fc.nat({ max: COMPOUND.length - 1 }), { maxLength: 4 }))
    .map(([base, wrappers, compounds]) => compounds.reduce((c, i) => COMPOUND[i]!(c), [...wrappers, base].join(" ")));

  it("property: rm wrapped in random wrappers and compound commands is never allowed (denied even where nothing is asked)", () => {
    fc.assert(
      fc.property(wrapped, fc.constantFrom<Mode>("default", "acceptEdits", "bypassPermissions"), (command, mode) => {
        const v = verdict(command, DENY_RM, mode);
        if (v.behavior !== "deny") throw new Error(`${JSON.stringify(command)} in ${mode}: ${v.behavior} (${v.reason}), with deny bash(rm *) and allow bash(*): the rm it runs must meet the deny rule`);
      }),
      { numRuns: 400 },
    );
  });

  it("the generated commands are ones bash can read (bash -n), so the property is about real commands", () => {
    if (spawnSync("bash", ["--version"]).status !== 0) return;
    const samples = fc.sample(wrapped, { numRuns: 200, seed: 31 });
    // One bash -n for all: each in a sub-shell of its own, so one's syntax cannot lean on another's.
    const r = spawnSync("bash", ["-n", "-c", samples.map((c) => `(\n${c}\n)`).join("\n")], { encoding: "utf8" });
    expect(r.status, `bash -n refuses a generated command: ${r.stderr}`).toBe(0);
  });
});

describe("what the reader cannot follow is never allowed", () => {
  const ALLOW_ALL = rules({ allow: ["bash", "bash(*)"] });
  const ALLOW_PATTERN = rules({ allow: ["bash(*)"] });
  it.each([
    "$X notes.txt",
    "${CMD:-rm} notes.txt",
    "$(echo rm) notes.txt",
    "echo 'never closed",
    'eval "$CMD"',
    "echo rm notes.txt | sh",
    "alias x=rm; x notes.txt",
    "sh -c \"$CMD\"",
    "source <(echo rm notes.txt)",
    "node -e \"require('fs').rmSync('notes.txt')\"",
    "python3 -c \"import os; os.remove('notes.txt')\"",
    "PATH=.:$PATH ls",
    "ls > notes.txt",
    "source /dev/stdin",
    "script -q /dev/null",
    "unshare -r",
    "chroot /",
    // A command carried in a program's own script, configuration or environment.
    "sed -n '1e rm notes.txt' notes.txt",
    "sed -n 's/.*/rm notes.txt/e' notes.txt",
    "sed -ne '$e rm notes.txt' notes.txt",
    "git -c alias.x='!rm notes.txt' x",
    "git -c core.pager='rm notes.txt' log",
    "git --config-env=core.pager=CMD log",
    "GIT_PAGER='rm notes.txt' git log",
    "EDITOR='rm notes.txt' git commit",
    "export PATH=.:$PATH; ls",
    "declare -x LD_PRELOAD=./x.so; ls",
    "vim -es -c '!rm notes.txt' -c q",
  ])("%j: an allow rule bash(*) does not allow it (asked in default mode)", (command) => {
    const v = verdict(command, ALLOW_PATTERN);
    expect(v.behavior, `${JSON.stringify(command)} with allow bash(*): ${v.behavior} (${v.reason}); what the rules cannot read, or a write by redirection, is asked`).toBe("ask");
    // A rule with no pattern names every call of the tool: that one the user chose.
    expect(verdict(command, ALLOW_ALL).behavior).toBe("allow");
  });

  it("a name only known when it runs meets the deny rules: bash(rm *) refuses $X notes.txt (it could be rm)", () => {
    for (const command of ["$X notes.txt", "eval \"$CMD\"", "echo rm notes.txt | bash", "echo 'never closed"]) expect(verdict(command, DENY_RM, "bypassPermissions").behavior, command).toBe("deny");
  });

  it("inline code is asked about, not denied: node -e with bash(rm *) denied and bash(node *) allowed", () => {
    const v = verdict("node -e \"console.log(1)\"", rules({ deny: ["bash(rm *)"], allow: ["bash(node *)"] }));
    expect(v.behavior, v.reason).toBe("ask");
  });
});

describe("ordinary commands stay allowed by the rules that name them", () => {
  // One allow rule covers a compound command when it matches every command in it (rules do not combine).
  const SAMPLE = rules({ deny: ["bash(rm *)", "bash(git push*)"], allow: ["bash(npm test*)", "bash(git *)", "bash(ls*)", "bash(node --test*)", "bash(cat*)", "bash(grep *)", "bash(echo *)", "bash(wc *)", "bash(sed *)", "bash(tar *)", "bash(export *)"] });
  it.each([
    "npm test",
    "npm test -- --reporter=dot",
    "git status",
    "git status --short",
    "ls -la",
    "ls",
    "node --test",
    "node --test test/*.test.js",
    "ls -la && ls src",
    "grep keep notes.txt | grep -c keep",
    "git diff --stat; git status",
    "git log --oneline -5 | git status",
    "for f in a b; do echo $f; done",
    "if ls src; then ls -la; fi",
    "cat 'my notes.txt'",
    'grep -rn "TODO" src',
    "npm test 2>&1",
    "npm test >/dev/null 2>&1",
    "echo \"rm is not run here\"",
    "grep -c rm notes.txt",
    "cat <<'EOF'\n$(rm notes.txt)\nEOF",
    "echo '$(rm notes.txt)'",
    "wc -l src/*.js",
    "sed -n 's/keep/kept/p' notes.txt",
    "sed -e '/^e$/d' -e 's/a/e/' notes.txt",
    "sed -i.bak 's/x/y/g' notes.txt",
    "git -c user.name=me -c user.email=me@example.com commit -m 'save'",
    "git log -c --oneline",
    "tar -czf out.tgz src",
    "tar -xzvf out.tgz",
    "export NAME=value",
  ])("%j is allowed", (command) => {
    const v = verdict(command, SAMPLE);
    expect(v.behavior, `${JSON.stringify(command)}: ${v.behavior} (${v.reason}); every command it runs is allowed by a rule, so it runs unasked`).toBe("allow");
  });

  it.each(["git push origin main", "git status && git push", "npm test; rm -rf build", "ls && /bin/rm x"])("%j is still denied", (command) => {
    expect(verdict(command, SAMPLE).behavior).toBe("deny");
  });
});

describe("file rules see where a path lands through the workspace's links", () => {
  it("t -> test: write_file t/a.js meets deny write_file(test/**), and allow write_file(t/**) does not cover it", () => {
    const root = scratch("links-");
    mkdirSync(join(root, "test"));
    symlinkSync("test", join(root, "t"));
    mkdirSync(join(root, "src"));
    symlinkSync(join(root, "test", "a.js"), join(root, "src", "alias.js"));
    for (const path of ["t/a.js", "t/new/deep.js", join(root, "t", "a.js"), "src/alias.js"]) {
      const input = { path, content: "x" };
      const v = decide("write_file", input, rules({ deny: ["write_file(test/**)"], allow: ["write_file"] }), "acceptEdits", { readOnly: false, root });
      expect(v.behavior, `write_file ${path} (t -> test): ${v.behavior} (${v.reason}); the rule matches where the path lands`).toBe("deny");
    }
    const allowT = decide("write_file", { path: "t/a.js", content: "x" }, rules({ allow: ["write_file(t/**)"] }), "default", { readOnly: false, root });
    expect(allowT.behavior, "allow write_file(t/**) covers t/a.js only if it lands under t/ too").toBe("ask");
    // A plain path is matched as before.
    expect(ruleMatches(parseRule("write_file(src/**)", "allow", "x"), "write_file", { path: "src/app.js" }, root)).toBe(true);
  });
});

describe("the reader and the matchers", () => {
  it("mustMatch: UNKNOWN is only absorbed by the pattern's *; mayMatch: two globs share a string", () => {
    expect(mustMatch("node --test*", `node --test test/${UNKNOWN}.js`)).toBe(true);
    expect(mustMatch("git status*", `git ${UNKNOWN}`)).toBe(false);
    expect(mayMatch("git push*", `git ${UNKNOWN}`)).toBe(true);
    expect(mayMatch("rm *", `rm ${UNKNOWN}`)).toBe(true);
    expect(mayMatch("rm -rf *", `rm ${UNKNOWN}`)).toBe(true);
    expect(mayMatch("rm *", "ls -la")).toBe(false);
    expect(mayMatch("a*b", `${UNKNOWN}c`)).toBe(false);
    expect(mayMatch("*b", `a${UNKNOWN}`)).toBe(true);
  });

  it("property: mayMatch agrees with trying texts for UNKNOWN; mustMatch with every one of them", () => {
    const alphabet = fc.constantFrom("a", "b", " ");
    const texts = ["", "a", "b", " ", "ab", "ba", "a b", "aab", "bb a"];
    fc.assert(
      fc.property(fc.array(fc.oneof(alphabet, fc.constant("*")), { maxLength: 5 }), fc.array(fc.oneof(alphabet, fc.constant(UNKNOWN)), { maxLength: 5 }), (p, s) => {
        const pattern = p.join("");
        const subject = s.join("");
        const re = new RegExp(`^${pattern.replaceAll("*", ".*")}$`, "s");
        const holes = subject.split(UNKNOWN).length - 1;
        const fills = holes === 0 ? [[]] : holes === 1 ? texts.map((t) => [t]) : texts.flatMap((t) => texts.map((u) => [t, u, t]));
        const filled = fills.map((f) => subject.split(UNKNOWN).reduce((acc, part, i) => acc + (i > 0 ? f[(i - 1) % f.length] : "") + part, ""));
        if (filled.some((t) => re.test(t)) && !mayMatch(pattern, subject)) throw new Error(`mayMatch(${JSON.stringify(pattern)}, ${JSON.stringify(visible(subject))}) is false, yet a filling matches`);
        if (mustMatch(pattern, subject) && !filled.every((t) => re.test(t))) throw new Error(`mustMatch(${JSON.stringify(pattern)}, ${JSON.stringify(visible(subject))}) is true, yet a filling does not match`);
      }),
      { numRuns: 500 },
    );
  });

  it("reads what runs, and nothing else: a quoted or commented rm is not a command; a function's body is", () => {
    const names = (c: string) => readCommand(c).commands.map((x) => x.name);
    expect(names("echo 'rm x' # rm y")).toEqual(["echo"]);
    expect(names("f() { rm x; }")).toEqual(["rm"]);
    expect(names("sudo -u root env A=1 nice rm x")).toEqual(["sudo", "env", "nice", "rm"]);
    expect(names("git commit -m \"$(cat msg.txt)\"")).toEqual(["cat", "git"]);
    expect(readCommand("'if' true").commands.map((x) => x.name)).toEqual(["if"]);
    expect(readCommand("echo ok; ;; x").doubts.length).toBe(1);
    // Nesting past what the reader follows is a doubt, never a crash (a stack overflow would throw).
    for (const deep of ["$(".repeat(25_000), "f() ".repeat(10_000), "if ".repeat(10_000), "(".repeat(50_000), "/bin/r[" + "a".repeat(70) + "m] x", `{${"a".repeat(70)},rm} x`])
      expect(readCommand(deep).doubts.length, `${deep.slice(0, 20)}…`).toBeGreaterThan(0);
  });

  it("property: any text at all is read without throwing, in bounded time", () => {
    fc.assert(
      fc.property(fc.string({ unit: fc.constantFrom(..."ab $()`'\"\\;&|<>{}[]*?!#~=\n\t-cEOFif then fi do done case esac".split("")), maxLength: 60 }), (text) => {
        readCommand(text);
      }),
      { numRuns: 1000 },
    );
  });
});
