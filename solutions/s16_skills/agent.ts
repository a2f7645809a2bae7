/**
 * s16_skills: knowledge loaded on demand.
 *
 * Unlike s15, the loop takes skills (skills.ts): folders with a SKILL.md, front matter and a
 * body. The system prompt lists only each skill's name and description; the `load_skill` tool
 * returns a body when the model asks for it. The prompt stays small however many skills there are,
 * and the knowledge arrives as a tool result, in the turn that needs it. Both reach s15's loop as
 * hooks (s11's extend.ts): `system` lists the skills, `tools` adds load_skill.
 *
 * Run: npm run lesson s16 -- --solution ["your task"]   (the skills of examples/skills; `npm run agent -- --skills DIR` takes yours)
 */
import type Anthropic from "@anthropic-ai/sdk";
import type { Llm } from "../../runtime/client.ts";
import { lesson, transcriptOf } from "../../runtime/lesson.ts";
import { dim, say, yellow } from "../../runtime/print.ts";
import { S16_TASK, SAMPLE_REPOSITORY, SKILLS_EXAMPLE } from "../../runtime/tasks.ts";
import { refuseAll } from "../../solutions/s07_safe_tools/approval.ts";
import { createLogger } from "../../solutions/s09_observability/log.ts";
import type { Extension } from "../../solutions/s11_recovery/extend.ts";
import { withTool } from "../../solutions/s14_planning/agent.ts";
import { runAgent as delegatingLoop, DEFAULT_MAX_TOKENS, system, type RecoveredOutcome, type RunOptions as DelegatingOptions } from "../../solutions/s15_subagents/agent.ts";
import { loadSkillTool, loadSkills, skillsPrompt, type Skill } from "./skills.ts";

export { system, DEFAULT_MAX_TOKENS, type RecoveredOutcome };

export interface RunOptions extends DelegatingOptions {
  /** The skills the model may load (loadSkills(dir)); none by default. */
  skills?: readonly Skill[];
}

// #region loop
/** NEW: the skills' names and descriptions go into the system prompt; load_skill returns a body. */
export const withSkills =
  (skills: readonly Skill[]): Extension =>
  () => ({
    system: (text) => text + skillsPrompt(skills),
    tools: (tools) => (skills.length > 0 ? withTool(tools, loadSkillTool(skills)) : tools),
  });

/** s15's loop, with skills. `history` grows in place; returns how the run ended. */
export function runAgent(llm: Llm, history: Anthropic.MessageParam[], opts: RunOptions = {}): Promise<RecoveredOutcome> {
  return delegatingLoop(llm, history, { ...opts, extensions: [withSkills(opts.skills ?? []), ...(opts.extensions ?? [])] });
}
// #endregion loop

/** The default task on a scratch copy of the sample repository, with the example skills. */
export const demo = (llm: Llm, task = S16_TASK) =>
  transcriptOf(task, SAMPLE_REPOSITORY, (history, root) => runAgent(llm, history, { root, approve: refuseAll, skills: loadSkills(SKILLS_EXAMPLE).skills }));

lesson(import.meta.url, {
  task: S16_TASK,
  // The run's requests include its subagents' (the harness's net counts them all).
  requestLimit: 200,
  workspace: SAMPLE_REPOSITORY,
  run: ({ llm, history, root, signal, flag }) => {
    const { skills, problems } = loadSkills(SKILLS_EXAMPLE);
    for (const p of problems) say(yellow(`skipped: ${p}`));
    say(dim(`skills (examples/skills): ${skills.map((s) => s.name).join(", ") || "none"}`));
    return runAgent(llm, history, { root, signal, skills, onEvent: createLogger({ verbose: flag("verbose") }) });
  },
  printAnswer: false,
});
