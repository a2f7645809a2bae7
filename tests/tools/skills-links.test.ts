/**
 * Skill files are opened without following links, confined to their folder (s16's loadSkills over
 * runtime/tools/read-confined.ts): a skills folder a tool could write must not pull a file from
 * elsewhere (a key, another project's text) into the next run's system prompt.
 */
import { linkSync, mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { loadSkills } from "../../solutions/s16_skills/skills.ts";

const dir = mkdtempSync(join(tmpdir(), "skills-links-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const skill = (name: string, secret = "") => `---\nname: ${name}\ndescription: does ${name}\n---\nBody of ${name}. ${secret}\n`;

describe("skills are read from real files in their own folder only", () => {
  it("a linked folder, a linked SKILL.md (symbolic or hard) are left out with a reason; a real one loads", () => {
    const skills = join(dir, "skills");
    const outside = join(dir, "outside");
    mkdirSync(join(outside, "evil"), { recursive: true });
    writeFileSync(join(outside, "evil", "SKILL.md"), skill("evil-folder", "SECRET-OUTSIDE"));
    writeFileSync(join(outside, "key.md"), skill("evil-file", "SECRET-OUTSIDE"));
    writeFileSync(join(outside, "hard.md"), skill("evil-hard", "SECRET-OUTSIDE"));
    for (const f of ["good", "file-link", "hard-link"]) mkdirSync(join(skills, f), { recursive: true });
    writeFileSync(join(skills, "good", "SKILL.md"), skill("good"));
    symlinkSync(join(outside, "evil"), join(skills, "folder-link"));
    symlinkSync(join(outside, "key.md"), join(skills, "file-link", "SKILL.md"));
    linkSync(join(outside, "hard.md"), join(skills, "hard-link", "SKILL.md"));
    const loaded = loadSkills(skills);
    expect(loaded.skills.map((s) => s.name)).toEqual(["good"]);
    expect(JSON.stringify(loaded.skills)).not.toContain("SECRET-OUTSIDE");
    expect(loaded.problems.join("\n")).toMatch(/folder-link: a symbolic link/);
    expect(loaded.problems.join("\n")).toMatch(/file-link\/SKILL\.md: it is a symbolic link/);
    expect(loaded.problems.join("\n")).toMatch(/hard-link\/SKILL\.md: it has more than one name/);
  });
});
