/**
 * s23_evals: the lesson's default task is the eval suite's fix-range, in the lesson's own words
 * (solutions/s23_evals/course.json), on a copy of evals/tasks/fix-range/repo.
 *
 * The script is the suite's own for fix-range (./evals.ts): run the tests, read the source, fix
 * the off-by-one, run the tests again, answer from what they really printed. So the recorded run
 * is one run of the eval the lesson teaches to grade; the eval itself sends each task's
 * instruction.md, which routes to the suite's scenarios directly.
 */
import { lessonTask } from "../../tasks.ts";
import type { Scenario } from "../types.ts";
import { EVAL_SCENARIOS } from "./evals.ts";

const fixRange = EVAL_SCENARIOS.find((s) => s.id === "eval_fix-range");
if (!fixRange) throw new Error("evals/tasks/fix-range is missing: s23's scenario plays its script");

export const s23Evals: Scenario = { ...fixRange, id: "s23_evals", title: "s23: one run of the eval task fix-range", task: lessonTask("s23_evals") };
