/**
 * s01_agent_loop: the raw call, then the loop. Grades lessons/ or solutions/ (COURSE_TREE).
 * Each test drives the lesson through the real SDK against the scripted model and checks the
 * transcript with the course's checker, then sends it again as the next request would. The
 * checks themselves live in s01_agent_loop.grading.ts, so the broken loops of tests/mutants/s01
 * can be graded by the very same checks (and must fail them).
 */
import { describe, it } from "vitest";
import { loadLesson } from "../runtime/testing.ts";
import { PART_ONE, PART_TWO, type S01Lesson } from "./s01_agent_loop.grading.ts";
import { differentialNet } from "./differential/net.ts";

const lesson = await loadLesson<S01Lesson>("s01_agent_loop");

describe("s01 part one: one raw call", () => {
  for (const check of PART_ONE) it(check.name, () => check.run(lesson));
});

describe("s01 part two: the loop", () => {
  for (const check of PART_TWO) it(check.name, () => check.run(lesson));
});

// The net under the rules: this loop beside the reference, on the lesson's task and generated answers.
differentialNet("s01");
