/**
 * The words of the reliability report's rows in a language other than English: the cells, the
 * fault cases, the bad inputs, the attacks (phrase by phrase: the command or path stays as it is),
 * Part III's checks. report.ts renders a page with its language's table; English is the figures'
 * own words. Chinese is assembled in report.ts from the tables it had first; Japanese and Russian
 * are words-ja.ts and words-ru.ts. tests/reliability/row-words.test.ts checks that every language
 * has a word for every key and every pattern the Chinese table has.
 */
import type { AttackCell, ClaimKey, FaultCell } from "./report.ts";

export interface RowWords {
  /** Between the items of a list in one cell (the claims a lesson's fuzzing checked). */
  listSep: string;
  /** After a tool's name, before its argument ("read_file: x"). */
  colon: string;
  /** "bash (approved)" as VERBS writes it (without the colon after it). */
  approvedBash: string;
  claims: Record<ClaimKey, string>;
  /** Fault cases by id (faults.ts). */
  faults: Record<string, string>;
  faultCell: Record<FaultCell, string>;
  attackCell: Record<AttackCell, string>;
  /** Bad inputs by id (bad-inputs.ts). */
  bad: Record<string, string>;
  /** The attack corpus's groups, by their English name. */
  groups: Record<string, string>;
  /** The toolsets named in the attack table's columns. */
  toolsets: Record<string, string>;
  /** A sandbox mode alone as a column's name. */
  modes: Record<string, string>;
  /** The notes under the attack table: an English pattern and its words. */
  notes: Array<[RegExp, string]>;
  /** The name after a tool ("read_file: parent directory"): s07's case names, sizes. */
  attackPhrases: Array<[RegExp, string]>;
  /** Whole descriptions (the house attacks) and the notes in parentheses around a command. */
  attackNotes: Array<[RegExp, string]>;
  /** The verb an attack starts with (read, write, edit, bash (approved)). */
  verbs: Array<[RegExp, string]>;
  /** Part III's cells. */
  p3Cell: Record<string, string>;
  hookBehaviours: Record<string, string>;
  hookKinds: Record<string, string>;
  jobKinds: Record<string, string>;
  runEnds: Record<string, string>;
  rewindParts: Record<string, string>;
  rulesProperties: Record<string, string>;
  p3Groups: Record<string, string>;
  p3Attacks: Record<string, string>;
  p3Notes: Record<string, string>;
}
