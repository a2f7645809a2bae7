/**
 * A syntax check of a learner's files before they are run, so `npm run lesson` answers a typo
 * with the file, the line and what is wrong — not with the transpiler's stack trace.
 */
import { readFileSync, readdirSync } from "node:fs";
import { join, relative } from "node:path";
import ts from "typescript";

/** The first syntax error in the .ts files of `dir`, as "path:line:col  message", or null. */
export function firstSyntaxError(dir: string, root: string): string | null {
  const files = readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((d) => d.isFile() && d.name.endsWith(".ts"))
    .map((d) => join(d.parentPath, d.name))
    .sort();
  for (const file of files) {
    const source = readFileSync(file, "utf8");
    const out = ts.transpileModule(source, {
      fileName: file,
      reportDiagnostics: true,
      compilerOptions: { module: ts.ModuleKind.ESNext, target: ts.ScriptTarget.ES2022 },
    });
    const d = out.diagnostics?.find((x) => x.category === ts.DiagnosticCategory.Error);
    if (!d) continue;
    const where =
      d.file && d.start !== undefined ? d.file.getLineAndCharacterOfPosition(d.start) : { line: 0, character: 0 };
    return `${relative(root, file)}:${where.line + 1}:${where.character + 1}  ${ts.flattenDiagnosticMessageText(d.messageText, "\n")}`;
  }
  return null;
}
