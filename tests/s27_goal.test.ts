/**
 * s27_goal: Goal loop. Grades lessons/ or solutions/ (COURSE_TREE). WRITE: what the tests hold,
 * one rule per test, each through the learner's loop. The stub checks the stub idea.
 */
import type Anthropic from "@anthropic-ai/sdk";
import { describe, it } from "vitest";
import { SAMPLE_REPOSITORY, lessonTask } from "../runtime/tasks.ts";
import { driveLoop, loadLesson, rule, scripted, textIn, transcriptProblems } from "../runtime/testing.ts";
import { scratchCopy } from "../runtime/tools/files.ts";
import { approveAll } from "../solutions/s07_safe_tools/approval.ts";
import { differentialNet } from "./differential/net.ts";
import { quietLessonFile } from "./support.ts";

type Agent = typeof import("../solutions/s27_goal/agent.ts");
const lesson = await loadLesson<Agent>("s27_goal");
const keep = quietLessonFile();
const TASK = lessonTask("s27_goal");
const LOOP = "(runAgent in lessons/s27_goal/agent.ts)";

describe("s27 Goal loop", () => {
  it("the default task: every request's system prompt carries the lesson's note, and the transcript can be sent again", async () => {
    const root = keep(await scratchCopy(SAMPLE_REPOSITORY));
    const llm = scripted();
    const history: Anthropic.MessageParam[] = [{ role: "user", content: TASK }];
    // The loop's own requests (driveLoop sends the transcript once more after it, to check it).
    let sent: unknown[] = [];
    await driveLoop(llm, history, async () => {
      const outcome = await lesson.runAgent(llm, history, { root, approve: approveAll, userConfigDir: root, hooks: [] });
      sent = llm.scripted.exchanges.map((e) => e.request);
      return outcome;
    });
    const systems = sent.map((request) => textIn((request as { system?: unknown }).system ?? ""));
    const without = systems.findIndex((s) => !s.trimEnd().endsWith(lesson.NOTE));
    rule(systems.length > 0 && without === -1, "goal-idea", `request ${without} went out with a system prompt that does not end with the lesson's note: return the prompt with NOTE after it in the idea's system hook ${LOOP}.`);
    const problems = await transcriptProblems(llm, history);
    rule(problems === null, "goal-idea", () => `the transcript cannot be sent again: ${problems}`);
  });
});

differentialNet("s27");
