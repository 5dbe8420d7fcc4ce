/**
 * Function lengths of the TypeScript under a folder, measured with the
 * compiler's own parser: every function (declaration, expression, arrow,
 * method, accessor, constructor) and the lines that are its own — its span
 * minus the spans of the functions nested in it that are five lines or more
 * (shorter nested functions, such as one-line callbacks, stay counted in
 * their parent).
 */
import fs from "node:fs";
import path from "node:path";
import ts from "typescript";

export interface FunctionLength {
  /** Path relative to the measured root's parent, with forward slashes. */
  file: string;
  /** The function's name: its declaration's, or the variable, property or call it is written in. */
  name: string;
  line: number;
  /** Lines of the whole span. */
  total: number;
  /** Lines that are its own (nested functions of five lines or more taken out). */
  own: number;
}

/** A nested function this long or longer is counted apart from its parent. */
export const NESTED_APART_LINES = 5;

function nameOf(node: ts.Node, sf: ts.SourceFile): string {
  const named = (node as { name?: ts.Node }).name;
  if (named) return named.getText(sf);
  const p = node.parent;
  if (ts.isVariableDeclaration(p) || ts.isPropertyAssignment(p) || ts.isPropertyDeclaration(p)) return p.name.getText(sf);
  if (ts.isCallExpression(p)) return `${p.expression.getText(sf).slice(0, 40)}(…)`;
  if (ts.isExportAssignment(p)) return "default";
  return "(anonymous)";
}

export function measureFunctions(root: string): FunctionLength[] {
  const out: FunctionLength[] = [];
  const base = path.dirname(root);
  const walk = (dir: string): string[] =>
    fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
      const p = path.join(dir, e.name);
      return e.isDirectory() ? walk(p) : e.name.endsWith(".ts") ? [p] : [];
    });
  for (const file of walk(root)) {
    const sf = ts.createSourceFile(file, fs.readFileSync(file, "utf8"), ts.ScriptTarget.Latest, true);
    const lineOf = (pos: number) => sf.getLineAndCharacterOfPosition(pos).line;
    const visit = (node: ts.Node): number => {
      // Returns the lines this node's subtree takes out of its enclosing function.
      if (ts.isFunctionLike(node) && (node as ts.FunctionLikeDeclaration).body) {
        const start = lineOf(node.getStart(sf));
        const total = lineOf(node.getEnd()) - start + 1;
        let nested = 0;
        ts.forEachChild(node, (c) => void (nested += visit(c)));
        out.push({ file: path.relative(base, file).split(path.sep).join("/"), name: nameOf(node, sf), line: start + 1, total, own: total - nested });
        return total >= NESTED_APART_LINES ? total : nested;
      }
      let nested = 0;
      ts.forEachChild(node, (c) => void (nested += visit(c)));
      return nested;
    };
    visit(sf);
  }
  return out;
}
