/**
 * Every check of a lesson's tests speaks to the learner: each `expect(value, "[rule-id] …")` in
 * tests/sNN_*.ts carries a rule id of the catalog (runtime/rules.ts) and a sentence, so a failure
 * never reaches `npm run check` as the runner's own words ("expected true to be false").
 * `rule(ok, "rule-id", …)` calls name a catalog rule too, and so does every `assertProperty(…)`;
 * a property whose check only returns true or false gives the sentence a false means (its fourth
 * argument), so the learner never reads "a case breaks this check" alone. Read with TypeScript's parser.
 */
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import ts from "typescript";
import { describe, expect, it } from "vitest";
import { isRuleId } from "../../runtime/rules.ts";

const TESTS = join(import.meta.dirname, "..");
const files = readdirSync(TESTS).filter((f) => /^s\d\d_.+\.ts$/.test(f));

/** The unworded or unknown-rule checks of one file, as "file:line: what". */
function problems(file: string, text = readFileSync(join(TESTS, file), "utf8")): string[] {
  const sf = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true);
  const out: string[] = [];
  const at = (n: ts.Node) => `${file}:${sf.getLineAndCharacterOfPosition(n.getStart()).line + 1}`;
  const literal = (n: ts.Node | undefined) => (n && (ts.isStringLiteral(n) || ts.isNoSubstitutionTemplateLiteral(n)) ? n.text : n && ts.isTemplateExpression(n) ? n.head.text : undefined);
  const visit = (n: ts.Node): void => {
    if (ts.isCallExpression(n) && ts.isIdentifier(n.expression)) {
      if (n.expression.text === "expect") {
        const words = literal(n.arguments[1]);
        const id = words && /^\[([a-z][a-z0-9-]*)\] /.exec(words)?.[1];
        if (!id) out.push(`${at(n)}: expect(…) without "[rule-id] sentence" words: ${n.getText().slice(0, 80)}`);
        else if (!isRuleId(id)) out.push(`${at(n)}: [${id}] is not a rule of runtime/rules.ts`);
      }
      if (n.expression.text === "assertProperty") {
        // A property names its rule; one whose check only returns true or false says in words what a false means.
        const id = literal(n.arguments[2]);
        if (id === undefined || !isRuleId(id)) out.push(`${at(n)}: assertProperty(…) without a catalog rule id as its third argument`);
        const worded = /\b(expect|rule|expect[A-Z]\w*)\(|RuleError\(|Error\(`\[|Error\("\[/.test(n.arguments[0]?.getText() ?? "");
        if (!worded && !literal(n.arguments[3])) out.push(`${at(n)}: assertProperty(…) whose check only returns true or false, without a sentence (its fourth argument) saying what a false means`);
      }
      if (n.expression.text === "rule" && n.arguments.length >= 3) {
        const arg = n.arguments[1]!;
        const id = ts.isTemplateExpression(arg) ? undefined : literal(arg); // a rule chosen at run time is checked where it runs
        if (id !== undefined && !isRuleId(id)) out.push(`${at(n)}: rule(…, "${id}") is not a rule of runtime/rules.ts`);
      }
    }
    ts.forEachChild(n, visit);
  };
  visit(sf);
  return out;
}

describe("the lessons' tests", () => {
  it("are there to read", () => expect(files.length, "[lesson-rule] tests/sNN_*.ts files exist").toBeGreaterThanOrEqual(17));
  it.each(files)("%s: every expect names its rule and says it in words", (file) => {
    expect(problems(file), "[lesson-rule] a check a learner can reach must carry a catalog rule id and a sentence").toEqual([]);
  });
  it("the reader finds an unworded check and an unknown rule (so it can fail)", () => {
    const found = problems("probe.ts", 'expect(x).toBe(1); expect(y, "[no-such-rule] words").toBe(2); expect(z, "[loop-threw] words").toBe(3); rule(ok, "nope", "w");');
    expect(found.length, `[lesson-rule] the probe has three bad checks and one good one: ${found.join("; ")}`).toBe(3);
    const properties = problems("probe.ts", 'assertProperty(fc.property(a, (x) => x > 0)); assertProperty(fc.property(a, (x) => x > 0), {}, "workspace"); assertProperty(fc.property(a, (x) => x > 0), {}, "workspace", "words"); assertProperty(fc.property(a, (x) => rule(x > 0, "workspace", "w")), {}, "workspace");');
    expect(properties.length, `[lesson-rule] the probe has a property with no rule and no words (2 problems), one with a rule and no words (1), and two good ones: ${properties.join("; ")}`).toBe(3);
  });
});
