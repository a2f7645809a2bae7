/**
 * The compatibility page's model table is generated from the scripted model's MODEL_TABLE
 * (scripts/lib/models-doc.ts): the page in each language must say what the table holds.
 */
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { MODEL_PAGES, modelTableBlock, withModelTable } from "../../scripts/lib/models-doc.ts";
import { MODEL_TABLE } from "../../runtime/scripted/models.ts";

describe("the compatibility page's model table (docs/guide/compatibility.md, zh too)", () => {
  for (const lang of ["en", "zh"] as const) {
    it(`${lang}: the page holds the table generated from MODEL_TABLE`, () => {
      const page = readFileSync(MODEL_PAGES[lang], "utf8");
      expect(page, `${MODEL_PAGES[lang]} has no <!-- model-table:start --> … end markers`).toContain("<!-- model-table:start -->");
      expect(withModelTable(page, lang), `${MODEL_PAGES[lang]} is out of date: run npx tsx scripts/lib/models-doc.ts`).toBe(page);
    });
  }

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
