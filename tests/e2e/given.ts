/**
 * What the diff view must show of a lesson that gives some files whole (s27: its program and team
 * are given, the exercise is in agent.ts and verdict.ts), judged from what the browser read:
 * each given file, and only those, marked on its header and listed in the card; the exercise's
 * files first. Pure, so that a test can hand it broken views (tests/e2e/generators.test.ts) and
 * see each mistake named; tests/e2e/run.ts reads the real view and calls it.
 */
export interface DiffViewFiles {
  /** The files the lesson gives whole (its solution's files the exercise folder holds as they are). */
  given: string[];
  /** The diff's files, in the order shown, each with whether its header carries the given marker. */
  files: Array<{ path: string; marked: boolean }>;
  /** The files the card lists under its "given" heading. */
  listed: string[];
}

/** Every way the view gets the given files wrong, one sentence each; empty when it is right. */
export function givenMarkProblems(lesson: string, { given, files, listed }: DiffViewFiles): string[] {
  const problems: string[] = [];
  const shownGiven = files.filter((f) => given.includes(f.path)).map((f) => f.path);
  if (shownGiven.length === 0) problems.push(`the diff against ${lesson}'s base shows none of its given files (${given.join(", ")}): shown ${files.map((f) => f.path).join(", ")}`);
  if (!files.some((f) => !given.includes(f.path))) problems.push(`the diff shows no exercise file of ${lesson}, only given ones`);
  const wrong = files.filter((f) => f.marked !== given.includes(f.path));
  if (wrong.length > 0)
    problems.push(`the diff view marks the wrong files as given: ${wrong.map((f) => `${f.path} ${f.marked ? "marked, but the exercise differs" : "not marked, but given whole"}`).join("; ")} (LessonDiffView.vue: .ldv-given on a file whose model says given)`);
  if (JSON.stringify([...listed].sort()) !== JSON.stringify([...shownGiven].sort()))
    problems.push(`the diff card lists as given ${JSON.stringify(listed)}, not the given files it shows ${JSON.stringify(shownGiven)}`);
  const firstGiven = files.findIndex((f) => f.marked);
  const late = firstGiven < 0 ? [] : files.slice(firstGiven).filter((f) => !f.marked);
  if (late.length > 0) problems.push(`an exercise file comes after a given one in the diff (${files.map((f) => `${f.path}${f.marked ? " (given)" : ""}`).join(", ")}): the exercise's files come first (diffmodel.ts)`);
  return problems;
}
