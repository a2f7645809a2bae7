/**
 * The compatibility page's model table is generated from the scripted model's MODEL_TABLE
 * (scripts/lib/models-doc.ts): the page in each language must say what the table holds.
 */
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { MODEL_PAGES, modelPageLangs, modelTableBlock, withModelTable } from "../../scripts/lib/models-doc.ts";
import { MODEL_TABLE, findModel } from "../../runtime/scripted/models.ts";
import { MODEL_NOTES } from "../../scripts/lib/model-notes.ts";

describe("the compatibility page's model table (docs/guide/compatibility.md, and each language's)", () => {
  // Every language of the site whose page exists (after the translations land: all of them).
  for (const lang of modelPageLangs()) {
    it(`${lang}: the page holds the table generated from MODEL_TABLE`, () => {
      const page = readFileSync(MODEL_PAGES[lang], "utf8");
      expect(page, `${MODEL_PAGES[lang]} has no <!-- model-table:start --> … end markers`).toContain("<!-- model-table:start -->");
      expect(withModelTable(page, lang), `${MODEL_PAGES[lang]} is out of date: run npx tsx scripts/lib/models-doc.ts`).toBe(page);
    });
  }

  it("each note (scripts/lib/model-notes.ts) names a model of the table by its canonical id, and every language has its words", () => {
    for (const [id, note] of Object.entries(MODEL_NOTES)) {
      expect(findModel(id)?.id, `model-notes.ts has a note for ${id}, which MODEL_TABLE does not hold under that id: use the model's canonical id, or drop the note`).toBe(id);
      for (const lang of modelPageLangs()) expect(note[lang]?.trim(), `${id}'s note has no ${lang} words: translate it (the page would show English)`).toBeTruthy();
    }
    for (const lang of modelPageLangs())
      expect(modelTableBlock(lang).split("\n").filter((l) => l.startsWith("- `")), `${lang}: one note line per note`).toHaveLength(Object.keys(MODEL_NOTES).length);
  });

  it("speaks each language of the site in its heads and verdicts", () => {
    for (const [lang, words] of [["zh", "生命周期"], ["ja", "ライフサイクル"], ["ru", "жизненный цикл"]] as const) {
      const block = modelTableBlock(lang);
      const head = block.split("\n").find((l) => l.startsWith("| ") && !l.startsWith("| `")) ?? "";
      expect(head, `${lang}: the heads are in the language`).toContain(words);
      expect(head, `${lang}: no English head`).not.toMatch(/lifecycle|context window|accepted|refused/);
      expect(block.split("\n").filter((l) => l.startsWith("| `")), lang).toHaveLength(MODEL_TABLE.length);
    }
  });

  it("has one row per model, naming every id and alias with its output limit", () => {
    const block = modelTableBlock("en");
    const rows = block.split("\n").filter((l) => l.startsWith("| `"));
    expect(rows).toHaveLength(MODEL_TABLE.length);
    for (const [i, m] of MODEL_TABLE.entries()) {
      for (const id of [m.id, ...m.aliases]) expect(rows[i]).toContain(`\`${id}\``);
      expect(rows[i]).toContain(String(m.maxOutput).replace(/\B(?=(\d{3})+(?!\d))/g, " "));
    }
  });

  it("a page whose table a person edited by hand is caught", () => {
    const page = readFileSync(MODEL_PAGES.en, "utf8");
    const edited = page.replace("| `claude-opus-4-7` | active | 1 000 000 | 128 000 |", "| `claude-opus-4-7` | active | 1 000 000 | 64 000 |");
    expect(edited).not.toBe(page);
    expect(withModelTable(edited, "en")).toBe(page);
  });
});
