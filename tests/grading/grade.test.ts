/**
 * The grading itself: the rule catalog is whole in both languages and the docs show it; a check's
 * verdict leads with the cause and never shows the runner's own words; the content helpers and
 * the transcript rules accept every shape of the same transcript the API accepts (a property).
 * (That each lesson's check fails its broken loops and passes its valid ones is `npm run verify`,
 * from the patches in tests/mutants/ and tests/alternatives/.)
 */
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import type Anthropic from "@anthropic-ai/sdk";
import fc from "fast-check";
import { createMarkdownRenderer, resolveConfig } from "vitepress";
import { describe, expect, it } from "vitest";
import { findLesson } from "../../runtime/manifest.ts";
import { COURSE_LANGS, RULES, STAGES, courseLang, ruleEntry, ruleOfApiMessage, type RuleId } from "../../runtime/rules.ts";
import { checkTranscript } from "../../runtime/transcript.ts";
import { RuleError, assertProperty, messageTable, resultFor, resultsIn, textIn, userTexts } from "../../runtime/testing.ts";
import { explain, order, parseFailure, type Failure, type Grade } from "../../scripts/lib/grade.ts";
import { RAW_WORDS } from "../../scripts/lib/mutants.ts";
import { MARKER, PAGES, catalogBlock, withCatalog } from "../../scripts/lib/rules-doc.ts";
import { ROOT } from "../../scripts/lib/paths.ts";

const s01 = findLesson("s01")!;
const gradeOf = (failures: Failure[]): Grade => ({ ok: false, passed: 0, total: failures.length, failures, output: "" });

describe("the rule catalog", () => {
  it("every rule has what it says and what to do, in English and Chinese", () => {
    for (const [id, r] of Object.entries(RULES)) {
      expect(STAGES, `rule ${id}: its stage ${JSON.stringify(r.stage)} is none of STAGES: give it one of ${STAGES.join(", ")} (runtime/rules.ts or its course.json)`).toContain(r.stage);
      for (const lang of ["en", "zh"] as const) {
        expect(r[lang].what.trim().length, `rule ${id} says too little in ${lang} (what): write the rule in one sentence`).toBeGreaterThan(5);
        expect(r[lang].fix.trim().length, `rule ${id} says too little in ${lang} (fix): say what to do when it is broken`).toBeGreaterThan(5);
      }
      expect(r.zh.what, `rule ${id}: its zh words are not Chinese: translate what and fix into Chinese`).toMatch(/[\u4e00-\u9fff]/);
    }
  });

  it("each language's message-rules page shows the whole catalog where it holds the marker, as markdown the site can build", () => {
    for (const lang of COURSE_LANGS) {
      if (lang !== "en" && !existsSync(PAGES[lang])) continue; // not translated yet: the English page stands in
      const page = readFileSync(PAGES[lang], "utf8");
      expect(page.split(MARKER).length - 1, `${PAGES[lang]}: hold the line ${MARKER} once, where the rules table goes`).toBe(1);
      const shown = withCatalog(page, lang);
      // Every rule, the lesson's own from their course.json included, in the page's language when it has words in it.
      for (const id of Object.keys(RULES) as RuleId[]) {
        const entry = ruleEntry(id);
        expect(shown, `${PAGES[lang]} does not show the rule ${id}: keep the marker line ${MARKER} on the page`).toContain(`| \`${id}\` |`);
        const words = entry[lang];
        if (words) expect(shown, `${PAGES[lang]}: the rule ${id} is not shown in its ${lang} words`).toContain(words.what.split("\n")[0]!.replaceAll("|", "\\|").slice(0, 40));
      }
      // VitePress reads the page as a Vue template: a bare <word> outside code would open an element and fail the build.
      const prose = shown.replace(/<!--[\s\S]*?-->/g, "").replace(/`[^`\n]*`/g, "");
      expect(prose.match(/<\/?[A-Za-z][\w-]*>/g) ?? [], `${PAGES[lang]}: an angle-bracketed word outside a code span`).toEqual([]);
    }
  });

  it("the site's markdown (its config as docs:build loads it) puts the table of the page's language at the marker; a page without one has none", async () => {
    const config = await resolveConfig(join(ROOT, "docs"), "build", "production");
    const md = await createMarkdownRenderer(config.srcDir, config.markdown, config.site.base, config.logger);
    for (const lang of COURSE_LANGS) {
      const at = lang === "en" ? "guide/message-rules.md" : `${lang}/guide/message-rules.md`;
      const html = md.render(`# Rules\n\n${MARKER}\n\nAfter.\n`, { relativePath: at });
      expect(html, `${at}: the table is rendered at the marker`).toMatch(/<table[\s>]/);
      expect(html, `${at}: in the page's language`).toContain(catalogBlock(lang).split("\n")[2]!.split("|")[1]!.trim());
      expect((html.match(/<tr>/g) ?? []).length, `${at}: a row per rule and the head`).toBe(Object.keys(RULES).length + 1);
      expect(html, `${at}: the text after the marker stays`).toContain("<p>After.</p>");
    }
    expect(md.render("# No table\n", { relativePath: "guide/other.md" }), "a page without the marker").not.toMatch(/<table[\s>]/);
  }, 60_000);

  it("the language follows COURSE_LANG, then the locale", () => {
    expect(courseLang({ COURSE_LANG: "zh" }), "COURSE_LANG=zh must choose Chinese: courseLang reads COURSE_LANG first").toBe("zh");
    expect(courseLang({ LANG: "zh_CN.UTF-8" }), "with no COURSE_LANG, a Chinese locale (LANG=zh_CN.UTF-8) must choose Chinese: courseLang reads the locale next").toBe("zh");
    expect(courseLang({ COURSE_LANG: "en", LANG: "zh_CN.UTF-8" }), "COURSE_LANG=en must win over a Chinese locale: courseLang reads COURSE_LANG before LANG").toBe("en");
    expect(courseLang({}), "with neither COURSE_LANG nor a locale, the language must be English").toBe("en");
  });

  it("an API refusal names its pairing rule", () => {
    expect(ruleOfApiMessage("messages.1: `tool_use` ids were found without `tool_result` blocks immediately after: toolu_1."), "this API refusal must be read as the rule unanswered-tool-use: check the patterns of ruleOfApiMessage (runtime/rules.ts)").toBe("unanswered-tool-use");
    expect(ruleOfApiMessage("messages.2.content.0: unexpected `tool_use_id` found in `tool_result` blocks: toolu_9."), "this API refusal must be read as the rule orphan-result: check the patterns of ruleOfApiMessage (runtime/rules.ts)").toBe("orphan-result");
    expect(ruleOfApiMessage("messages.3: all messages must have non-empty content except for the optional final assistant message"), "this API refusal must be read as the rule empty-message: check the patterns of ruleOfApiMessage (runtime/rules.ts)").toBe("empty-message");
    // A field the API does not take is about the field, even in a thinking block.
    expect(ruleOfApiMessage("messages.1.content.0.thinking.index: Extra inputs are not permitted"), "this API refusal must be read as the rule api-rejected: check the patterns of ruleOfApiMessage (runtime/rules.ts)").toBe("api-rejected");
    expect(ruleOfApiMessage("messages.2.content.0.tool_result.is_error: Input should be a valid boolean"), "this API refusal must be read as the rule api-rejected: check the patterns of ruleOfApiMessage (runtime/rules.ts)").toBe("api-rejected");
    expect(ruleOfApiMessage("messages.1.content.0.thinking.signature: Field required"), "this API refusal must be read as the rule not-verbatim: check the patterns of ruleOfApiMessage (runtime/rules.ts)").toBe("not-verbatim");
  });
});

describe("a verdict in words, the cause first", () => {
  const raw: Array<[string, string]> = [
    ["a bare assertion", "AssertionError: expected true to be false // Object.is equality\n    at /x/tests/s01_agent_loop.test.ts:3:4"],
    ["a numeric comparison", "AssertionError: expected 4171.75 to be greater than or equal to 4202.74"],
    ["a length", "AssertionError: expected [] to have a length of 1 but got +0"],
    ["a property", "Error: Property failed after 3 tests\n{ seed: 1, path: \"2\", endOnFailure: true }\nCounterexample: [[{\"role\":\"user\"}]]\nShrunk 4 time(s)\nGot AssertionError: expected 1 to be 2"],
    ["a worker lost", "Error: [vitest-worker]: Timeout calling \"onTaskUpdate\"\nSTACK_TRACE_ERROR"],
    ["a time-out", "Error: Test timed out in 20000ms.\nIf this is a long-running test, pass a timeout value as the last argument"],
  ];
  for (const [what, text] of raw)
    it(`never shows the runner's words: ${what}`, () => {
      const f = parseFailure(s01, "s01 part two › stops at end_turn", text);
      const verdict = explain(s01, gradeOf([f]), "en").join("\n");
      expect(verdict, `the verdict on ${what} shows the test runner's own words: explain (scripts/lib/grade.ts) must say the cause in words instead`).not.toMatch(RAW_WORDS);
      expect(f.rule, `${what} was given no rule: parseFailure must name one (the verdict was: ${verdict})`).toBeDefined();
    });

  it("a 429 or 5xx the SDK gave up on is a retry to configure, never a request the API rejected", () => {
    const s11 = findLesson("s11")!;
    for (const [status, type] of [[429, "rate_limit_error"], [529, "overloaded_error"], [500, "api_error"]] as const) {
      const text = `${status === 429 ? "RateLimitError" : "InternalServerError"}: ${status} {"type":"error","error":{"type":"${type}","message":"try later"}}`;
      const late = parseFailure(s11, "a › b", text);
      const verdict = explain(s11, gradeOf([late]), "en").join("\n");
      expect(late.rule, `a ${status} the SDK gave up on must be the rule recovery, not a request the API rejected (the verdict was: ${verdict}): check parseFailure`).toBe("recovery");
      expect(verdict, "the verdict on a retried error must say the SDK gave up").toMatch(/gave up/);
      expect(verdict, "the verdict on a retried error must say what to configure (maxRetries)").toMatch(/maxRetries/);
      expect(verdict, "a retried error is no request the API rejected: the verdict must not say so, nor point at messages.N").not.toMatch(/rejected a request|messages\.N/);
      expect(parseFailure(s01, "a › b", text).rule, "before s11 teaches retries, an API error that escapes the loop must be loop-threw").toBe("loop-threw");
    }
    const refused = parseFailure(s01, "a › b", `BadRequestError: 400 {"type":"error","error":{"type":"invalid_request_error","message":"messages.1: \`tool_result\` blocks can only be in \`user\` messages"}}`);
    expect(refused.rule, "a 400 about tool_result blocks in a non-user message must be the rule wrong-role-block: check ruleOfApiMessage's patterns").toBe("wrong-role-block");
    expect(refused.message, "a 400 must be said as the API having rejected a request the loop sent").toMatch(/rejected a request/);
  });

  it("a time-out is the loop not returning", () => {
    expect(parseFailure(s01, "a › b", "Error: Test timed out in 20000ms.").rule, "a test time-out must be read as loop-did-not-return: check parseFailure").toBe("loop-did-not-return");
  });

  it("a rule's sentence comes through whole, without the runner's tail", () => {
    const long = "the tool_result for toolu_1 does not carry the command's output ".repeat(6).trim();
    const f = parseFailure(s01, "a › b", `AssertionError: [result-is-output] ${long}: expected false to be true // Object.is equality`);
    expect(f.rule, "the [rule-id] prefix of an assertion must become the finding's rule: check parseFailure").toBe("result-is-output");
    expect(f.message, "a rule's long sentence must come through whole, with the runner's tail (: expected false to be true …) cut off: check parseFailure").toBe(long);
    const thrown = parseFailure(s01, "a › b", `RuleError: ${new RuleError("history-not-grown", "the history did not grow.").message}\n    at x (/a/b.ts:1:1)`);
    expect(thrown, "a thrown RuleError must be read as its rule and sentence, without the stack: check parseFailure").toMatchObject({ rule: "history-not-grown", message: "the history did not grow." });
  });

  it("the words a check gave come through; the runner's comparison does not", () => {
    const f = parseFailure(s01, "s03 › runs three at once", "AssertionError: three 200 ms read-only calls took 612 ms: did they run one after another?: expected 612 to be less than 450");
    expect(f.message, "the words a check gave must come through in the finding: check parseFailure").toContain("did they run one after another?");
    expect(f.message, "the runner's comparison (expected 612 to be less than 450) must be cut from the finding: check parseFailure").not.toMatch(RAW_WORDS);
  });

  it("orders the findings: type error, then a hang, then growth, then pairing, then the lesson's rules", () => {
    const f = (rule: RuleId, kind: Failure["kind"] = "rule"): Failure => ({ test: rule, kind, rule, message: rule });
    const got = order([f("guard-repeat"), f("results-first"), f("history-not-grown"), f("loop-did-not-return", "hang"), f("type-error", "types")]);
    expect(got.map((x) => x.rule), "findings must be ordered by stage (type error, hang, growth, pairing, the lesson's rules): check order() and STAGES").toEqual(["type-error", "loop-did-not-return", "history-not-grown", "results-first", "guard-repeat"]);
  });

  it("a failing property names its rule and shows the smallest case as a message table", () => {
    const history: Anthropic.MessageParam[] = [
      { role: "user", content: "go" },
      { role: "assistant", content: [{ type: "tool_use", id: "toolu_1", name: "bash", input: {} }] },
    ];
    let thrown: unknown;
    try {
      assertProperty(
        fc.property(fc.constant(history), (h) => {
          if (checkTranscript(h).length > 0) throw new RuleError("unanswered-tool-use", "a call is left unanswered");
        }),
        {},
        "lesson-rule",
      );
    } catch (e) {
      thrown = e;
    }
    expect(thrown, "a failing property must throw a RuleError: assertProperty (runtime/testing.ts) must turn fast-check's failure into one").toBeInstanceOf(RuleError);
    const message = (thrown as RuleError).message;
    expect(message, "a failing property's error must open with its rule and the sentence of the check that failed").toMatch(/^\[unanswered-tool-use\] a call is left unanswered/);
    expect(message, "a failing property's error must show the smallest case as a message table (messageTable)").toContain(messageTable(history));
    expect(message, "a failing property's error shows fast-check's own words (seed, path, Counterexample): assertProperty must leave them out").not.toMatch(RAW_WORDS);
  });

  it("a property whose check returns false fails in the words it was given (says), under its rule; an error it throws keeps its own words", () => {
    const caught = (f: () => void) => {
      try {
        f();
      } catch (e) {
        return e;
      }
      return undefined;
    };
    const returned = caught(() => assertProperty(fc.property(fc.integer(), (n) => n < 0), {}, "workspace", "the path resolved outside the workspace"));
    expect(returned, "a property returning false must throw a RuleError").toBeInstanceOf(RuleError);
    expect((returned as RuleError).message, "a false return is told with the property's own sentence, under its rule").toMatch(/^\[workspace\] the path resolved outside the workspace\n/);
    const thrown = caught(() => assertProperty(fc.property(fc.integer(), () => { throw new Error("the tool crashed: ENOENT"); }), {}, "workspace", "the path resolved outside the workspace"));
    expect((thrown as RuleError).message, "an error the check throws keeps its own words (says is for a false return)").toMatch(/^\[workspace\] the tool crashed: ENOENT/);
  });

  it("the verdict ends with the rule and what to do, in the learner's language", () => {
    const g = gradeOf([{ test: "t", kind: "rule", rule: "results-first", message: "messages[2].content[0] is a text block" }]);
    expect(explain(s01, g, "en").join("\n"), "the English verdict must end with the rule's fix in English: check explain").toContain(RULES["results-first"].en.fix);
    expect(explain(s01, g, "zh").join("\n"), "the Chinese verdict must end with the rule's fix in Chinese: check explain").toContain(RULES["results-first"].zh.fix);
  });
});

// ── every shape of the same transcript ─────────────────────────────────────────────────────

interface Turn {
  question: string;
  calls: Array<{ name: string; out: string; err: boolean }>;
  answer: string;
}
const word = fc.stringMatching(/^[a-z][a-z ]{0,11}[a-z]$/);
const turnArb: fc.Arbitrary<Turn> = fc.record({
  question: word,
  calls: fc.array(fc.record({ name: fc.constantFrom("bash", "read_file"), out: word, err: fc.boolean() }), { maxLength: 3 }),
  answer: word,
});

/** One transcript, in one of the shapes the API takes: strings or text blocks, results in any order. */
function build(turns: Turn[], shape: { blocks: boolean; resultBlocks: boolean; reverse: boolean }): Anthropic.MessageParam[] {
  const out: Anthropic.MessageParam[] = [];
  let id = 0;
  const say = (t: string) => (shape.blocks ? [{ type: "text" as const, text: t }] : t);
  for (const t of turns) {
    out.push({ role: "user", content: say(t.question) });
    if (t.calls.length > 0) {
      const uses = t.calls.map((c) => ({ type: "tool_use" as const, id: `toolu_${id++}`, name: c.name, input: { q: c.out } }));
      out.push({ role: "assistant", content: [{ type: "text", text: "working" }, ...uses] });
      const results = t.calls.map((c, i) => ({
        type: "tool_result" as const,
        tool_use_id: uses[i]!.id,
        content: shape.resultBlocks ? [{ type: "text" as const, text: c.out }] : c.out,
        ...(c.err ? { is_error: true } : {}),
      }));
      out.push({ role: "user", content: shape.reverse ? results.reverse() : results });
    }
    out.push({ role: "assistant", content: [{ type: "text", text: t.answer }] });
  }
  return out;
}

describe("every shape of the same transcript is read the same", () => {
  it("property: strings or text blocks, results in any order: the same rules hold, the same texts and results are read", () => {
    const shapes = fc.record({ blocks: fc.boolean(), resultBlocks: fc.boolean(), reverse: fc.boolean() });
    assertProperty(
      fc.property(fc.array(turnArb, { minLength: 1, maxLength: 4 }), shapes, (turns, shape) => {
        const plain = build(turns, { blocks: false, resultBlocks: false, reverse: false });
        const other = build(turns, shape);
        if (checkTranscript(other).length > 0) throw new RuleError("sendable-again", `a valid shape was refused: ${checkTranscript(other)[0]!.message}`);
        if (JSON.stringify(userTexts(plain)) !== JSON.stringify(userTexts(other))) throw new RuleError("lesson-rule", "user texts read differently by shape");
        for (const m of plain)
          for (const r of resultsIn(m)) {
            const same = resultFor(other, r.tool_use_id);
            if (!same || textIn(same.content) !== textIn(r.content)) throw new RuleError("result-by-id", `the result for ${r.tool_use_id} reads differently by shape`);
          }
      }),
      { numRuns: 200 },
      "sendable-again",
    );
  });
});
