/**
 * s16 · skills: knowledge the model loads when it needs it.
 *
 * A skill is a folder with a SKILL.md: YAML front matter (`name`, `description`) between two
 * `---` lines, then a body of instructions in Markdown. The system prompt lists only each skill's
 * name and description; the body comes back from the `load_skill` tool when the model asks for it
 * (progressive disclosure). So fifty skills cost the prompt fifty short lines, not fifty bodies.
 * The front matter is read with the `yaml` library; a broken SKILL.md is reported in plain words
 * and left out, the other skills still load.
 */
import { existsSync, lstatSync, readdirSync, statSync } from "node:fs";
import { join } from "node:path";
import { parse } from "yaml";
import { z } from "zod";
import { promptSafe } from "../../runtime/terminal-text.ts";
import { ToolError } from "../../runtime/tools/files.ts";
import { ConfinedReadError, readConfined } from "../../runtime/tools/read-confined.ts";
import { defineTool, type CheckedTool } from "../../solutions/s04_tool_errors/define-tool.ts";

export interface Skill {
  name: string;
  description: string;
  /** The instructions, loaded into the conversation only when the model asks. */
  body: string;
  /** The SKILL.md it came from. */
  file: string;
}

/** What the front matter must hold (the same limits as Claude's own skills). */
const FrontMatter = z.object({
  name: z.string().regex(/^[a-z0-9][a-z0-9-]{0,63}$/, "lowercase letters, digits and hyphens, at most 64"),
  description: z.string().trim().min(1).max(1024),
});

export class SkillError extends Error {
  override name = "SkillError";
}

// #region parse
/** One SKILL.md: its front matter checked, its body kept. Throws a SkillError that says what to fix. */
export function parseSkill(text: string, file: string): Skill {
  const m = /^---\r?\n([\s\S]*?)\r?\n---\r?\n?([\s\S]*)$/.exec(text);
  if (!m) throw new SkillError(`${file}: no front matter; start the file with a "---" line, then name: and description:, then "---"`);
  let data: unknown;
  try {
    data = parse(m[1]!);
  } catch (e) {
    throw new SkillError(`${file}: the front matter is not valid YAML (${(e as Error).message.split("\n")[0]})`);
  }
  const checked = FrontMatter.safeParse(data);
  if (!checked.success) {
    const issue = checked.error.issues[0]!;
    throw new SkillError(`${file}: front matter field "${issue.path.join(".") || "(all)"}": ${issue.message}`);
  }
  return { name: checked.data.name, description: checked.data.description, body: m[2]!.trim(), file };
}
// #endregion parse

/**
 * Every `<dir>/<folder>/SKILL.md`, parsed; the broken ones (and duplicate names) as problems. A
 * skill's text enters the system prompt, and its folder may be one a tool can write: a folder or a
 * SKILL.md that is a link (or a hard link, or outside the folder) is left out, never followed.
 */
export function loadSkills(dir: string): { skills: Skill[]; problems: string[] } {
  if (!existsSync(dir) || !statSync(dir).isDirectory()) return { skills: [], problems: [`${dir}: no such folder of skills`] };
  const skills: Skill[] = [];
  const problems: string[] = [];
  for (const entry of readdirSync(dir).sort()) {
    const folder = join(dir, entry);
    const file = join(folder, "SKILL.md");
    if (!existsSync(file)) continue;
    try {
      if (lstatSync(folder).isSymbolicLink()) throw new SkillError(`${folder}: a symbolic link; skills are read from real folders only, left out`);
      let text: string;
      try {
        text = readConfined(file, folder);
      } catch (e) {
        if (!(e instanceof ConfinedReadError)) throw e;
        throw new SkillError(`${file}: ${e.message}; left out`);
      }
      const skill = parseSkill(text, file);
      if (skills.some((s) => s.name === skill.name)) problems.push(`${file}: the name "${skill.name}" is taken by another skill; left out`);
      else skills.push(skill);
    } catch (e) {
      if (!(e instanceof SkillError)) throw e;
      problems.push(e.message);
    }
  }
  return { skills, problems };
}

// #region prompt
/** The part of the system prompt that lists the skills: names and descriptions, never bodies. */
export function skillsPrompt(skills: readonly Skill[]): string {
  if (skills.length === 0) return "";
  return [
    "",
    "Skills: instructions you can load with the load_skill tool when a task needs one. Load a skill before you do its kind of work.",
    // One line each: a description's new lines and invisible characters cannot start a line of the prompt.
    ...skills.map((s) => `- ${s.name}: ${promptSafe(s.description.replace(/\s*\n\s*/g, " "), true)}`),
  ].join("\n");
}
// #endregion prompt

// #region load-skill
/** `load_skill`: the body of one skill, by name. */
export function loadSkillTool(skills: readonly Skill[]): CheckedTool {
  return defineTool({
    name: "load_skill",
    description: "Load the instructions of one of the skills listed in the system prompt, by its name.",
    input: z.object({ name: z.string().describe("The skill's name, as listed") }),
    readOnly: true,
    run: ({ name }) => {
      const skill = skills.find((s) => s.name === name);
      if (!skill) throw new ToolError(`no skill is named "${name}"; the skills are: ${skills.map((s) => s.name).join(", ") || "(none)"}`);
      return `# Skill: ${skill.name}\n\n${skill.body}`;
    },
  });
}
// #endregion load-skill
