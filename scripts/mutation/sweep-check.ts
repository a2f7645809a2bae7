/**
 * Whether a sweep's results can be recorded at all. Stryker drops a mutant that does not
 * type-check (a learner's code always type-checks); when the error is in ANOTHER file than the
 * mutated one, the project itself did not type-check while the sweep ran (a file edited
 * mid-sweep, a half-finished change), every mutant would be dropped and the lesson would show a
 * score it never earned. Such a sweep records nothing.
 */

/** The sweep measured nothing it could record. */
export class SweepError extends Error {}

/** The type errors a compile-error reason names in files other than `own` (the mutated file). */
export function otherFileErrors(reason: string, own: string): string[] {
  return [...reason.matchAll(/^(\S+?\.[cm]?tsx?)\(\d+,\d+\): error (TS\d+)/gm)].filter((m) => m[1] !== own).map((m) => `${m[1]}: ${m[2]}`);
}
