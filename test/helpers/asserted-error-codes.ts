/**
 * The error codes a test file asserts, read with the compiler's parser, so a
 * code in a comment, a message or a test's name never counts. A string literal
 * of a code counts when it stands where an expectation compares an error code:
 *
 *   - the argument of a matcher on a code: `expect(r.json.error.code).toBe("x")`,
 *     `expect(errorCode(res)).toBe("x")`;
 *   - the value of a `code` property in a matcher's argument:
 *     `toMatchObject({ error: { code: "x" } })`, `toThrow(expect.objectContaining({ code: "x" }))`;
 *   - the element facing a code in arrays compared element-wise:
 *     `expect([e.status, e.code]).toEqual([400, "x"])`;
 *
 * or when it reaches such a place through a helper's parameter
 * (`refusedBothWays(…, "x")`, whose body asserts `.toBe(code)`), a case table
 * looped over (`for (const [body, code] of bad) … .toBe(code)`,
 * `for (const c of cases) … .toBe(c.code)`) or a constant. A matcher under
 * `.not` asserts nothing. A file that makes a code itself (hands it to a
 * constructor or an error helper, or writes it as a property of an object it
 * does not assert: a stub server's answer, a client's failure code) does not
 * count for that code, since its expectation would read back its own writing.
 */
import fs from "node:fs";
import path from "node:path";
import ts from "typescript";

export interface AssertedCode {
  code: string;
  /** The test file, relative to the scanned root's parent, with forward slashes. */
  file: string;
  line: number;
}

/** How far a literal is followed through helpers, loops and constants. */
const MAX_HOPS = 6;

/** The expression under `(x)`, `x!`, `x as T`, `x satisfies T` and `await x`. */
function bare(e: ts.Expression): ts.Expression {
  while (ts.isParenthesizedExpression(e) || ts.isNonNullExpression(e) || ts.isAsExpression(e) || ts.isSatisfiesExpression(e) || ts.isAwaitExpression(e)) e = e.expression;
  return e;
}

/** An expression that reads an error code: `….code`, a variable `code`, or a call such as `errorCode(res)`. */
function readsCode(e: ts.Expression): boolean {
  const b = bare(e);
  if (ts.isPropertyAccessExpression(b)) return b.name.text === "code";
  if (ts.isIdentifier(b)) return b.text === "code";
  return ts.isCallExpression(b) && /code$/i.test(b.expression.getText());
}

/** The subject of a matcher call `expect(subject, …)[.rejects|.resolves].matcher(…)`; undefined for any other call, and under `.not`. */
function matcherSubject(call: ts.CallExpression): ts.Expression | undefined {
  if (!ts.isPropertyAccessExpression(call.expression)) return undefined;
  let e: ts.Expression = call.expression.expression;
  while (ts.isPropertyAccessExpression(e)) {
    if (e.name.text !== "rejects" && e.name.text !== "resolves") return undefined;
    e = e.expression;
  }
  return ts.isCallExpression(e) && ts.isIdentifier(e.expression) && e.expression.text === "expect" ? e.arguments[0] : undefined;
}

function propertyName(p: ts.ObjectLiteralElementLike): string | undefined {
  return p.name && (ts.isIdentifier(p.name) || ts.isStringLiteral(p.name)) ? p.name.text : undefined;
}

/** The `code` properties anywhere in an expected value (nested objects and arrays, `expect.objectContaining(…)`). */
function codeProperties(node: ts.Node, out: ts.Expression[]): void {
  if (ts.isPropertyAssignment(node) && propertyName(node) === "code") out.push(node.initializer);
  if (ts.isShorthandPropertyAssignment(node) && node.name.text === "code") out.push(node.name);
  if (!ts.isFunctionLike(node)) ts.forEachChild(node, (c) => codeProperties(c, out));
}

/** The expressions a matcher call compares with an error code. */
function codePlaces(call: ts.CallExpression, subject: ts.Expression): ts.Expression[] {
  const out: ts.Expression[] = [];
  for (const arg of call.arguments) {
    if (readsCode(subject)) out.push(arg);
    const [s, a] = [bare(subject), bare(arg)];
    if (ts.isArrayLiteralExpression(s) && ts.isArrayLiteralExpression(a)) {
      s.elements.forEach((el, i) => {
        if (readsCode(el) && a.elements[i]) out.push(a.elements[i]!);
      });
    }
    codeProperties(arg, out);
  }
  return out;
}

/** Follows an expression to the expressions it can stand for: a literal is itself; names and `x.p` are looked up. */
class Resolver {
  constructor(private readonly sf: ts.SourceFile) {}

  valuesOf(e: ts.Expression, hops = 0): ts.Expression[] {
    const b = bare(e);
    if (hops > MAX_HOPS) return [];
    if (ts.isIdentifier(b)) return this.bindingValues(b, hops + 1);
    if (ts.isPropertyAccessExpression(b)) {
      return this.valuesOf(b.expression, hops + 1)
        .flatMap((o) => this.property(o, b.name.text))
        .flatMap((v) => this.valuesOf(v, hops + 1));
    }
    return [b];
  }

  /** The values a name is bound to: a parameter (the arguments of the calls to its function), a loop variable (the table's rows) or a constant. */
  private bindingValues(id: ts.Identifier, hops: number): ts.Expression[] {
    for (let n: ts.Node = id; n.parent; n = n.parent) {
      const p = n.parent;
      if (ts.isFunctionLike(p)) {
        const k = p.parameters.findIndex((q) => ts.isIdentifier(q.name) && q.name.text === id.text);
        if (k >= 0) return this.argumentsOf(p, k).flatMap((a) => this.valuesOf(a, hops));
      }
      if (ts.isForOfStatement(p) && n === p.statement) {
        const rows = this.valuesOf(p.expression, hops).flatMap((t) => (ts.isArrayLiteralExpression(t) ? [...t.elements] : []));
        const bound = this.loopBinding(p, id.text, rows);
        if (bound) return bound.flatMap((v) => this.valuesOf(v, hops));
      }
      if (ts.isBlock(p) || ts.isSourceFile(p)) {
        const init = this.constantIn(p, id.text);
        if (init) return this.valuesOf(init, hops);
      }
    }
    return [];
  }

  /** What a `for (const … of rows)` binds to `name`: the whole row, a tuple's element, or an object's property. */
  private loopBinding(loop: ts.ForOfStatement, name: string, rows: ts.Expression[]): ts.Expression[] | undefined {
    const list = loop.initializer;
    const target = ts.isVariableDeclarationList(list) ? list.declarations[0]?.name : undefined;
    if (!target) return undefined;
    if (ts.isIdentifier(target)) return target.text === name ? rows : undefined;
    if (ts.isArrayBindingPattern(target)) {
      const k = target.elements.findIndex((el) => ts.isBindingElement(el) && ts.isIdentifier(el.name) && el.name.text === name);
      if (k < 0) return undefined;
      return rows.flatMap((r) => {
        const row = bare(r);
        return ts.isArrayLiteralExpression(row) && row.elements[k] ? [row.elements[k]!] : [];
      });
    }
    const el = target.elements.find((x) => ts.isIdentifier(x.name) && x.name.text === name);
    const key = el && (el.propertyName && ts.isIdentifier(el.propertyName) ? el.propertyName.text : name);
    return key === undefined ? undefined : rows.flatMap((r) => this.property(r, key));
  }

  /** The value of property `key` in an object literal (nothing for anything else). */
  private property(o: ts.Expression, key: string): ts.Expression[] {
    const b = bare(o);
    if (!ts.isObjectLiteralExpression(b)) return [];
    return b.properties.flatMap((p) => (ts.isPropertyAssignment(p) && propertyName(p) === key ? [p.initializer] : ts.isShorthandPropertyAssignment(p) && p.name.text === key ? [p.name] : []));
  }

  /** The initialiser of `const name = …` among a block's own statements. */
  private constantIn(block: ts.Block | ts.SourceFile, name: string): ts.Expression | undefined {
    for (const st of block.statements) {
      if (!ts.isVariableStatement(st) || !(st.declarationList.flags & ts.NodeFlags.Const)) continue;
      const d = st.declarationList.declarations.find((x) => ts.isIdentifier(x.name) && x.name.text === name);
      if (d?.initializer) return d.initializer;
    }
    return undefined;
  }

  /** The k-th argument of every call, in this file, of a named function (a declaration, or a function held by a variable). */
  private argumentsOf(fn: ts.SignatureDeclaration, k: number): ts.Expression[] {
    const name = fn.name && ts.isIdentifier(fn.name) ? fn.name.text : ts.isVariableDeclaration(fn.parent) && ts.isIdentifier(fn.parent.name) ? fn.parent.name.text : undefined;
    if (!name) return [];
    const args: ts.Expression[] = [];
    const visit = (n: ts.Node): void => {
      if (ts.isCallExpression(n) && ts.isIdentifier(n.expression) && n.expression.text === name && n.arguments[k]) args.push(n.arguments[k]!);
      ts.forEachChild(n, visit);
    };
    visit(this.sf);
    return args;
  }
}

/** A literal the file writes itself: an argument of a call or constructor, or a property's value. */
function madeHere(lit: ts.StringLiteralLike): boolean {
  const p = lit.parent;
  return ts.isCallExpression(p) || ts.isNewExpression(p) || (ts.isPropertyAssignment(p) && p.initializer === lit);
}

/** The codes of `codes` one file's expectations assert (see the module comment), each at its literal's line. */
export function assertedCodesIn(file: string, text: string, codes: ReadonlySet<string>): AssertedCode[] {
  const sf = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true);
  const resolver = new Resolver(sf);
  const literals: ts.StringLiteralLike[] = [];
  const places: ts.Expression[] = [];
  const visit = (n: ts.Node): void => {
    if (ts.isStringLiteralLike(n) && codes.has(n.text)) literals.push(n);
    if (ts.isCallExpression(n)) {
      const subject = matcherSubject(n);
      if (subject) places.push(...codePlaces(n, subject));
    }
    ts.forEachChild(n, visit);
  };
  visit(sf);
  const asserted = new Set(places.flatMap((p) => resolver.valuesOf(p)).filter((v): v is ts.StringLiteralLike => ts.isStringLiteralLike(v)));
  const made = new Set(literals.filter((l) => !asserted.has(l) && madeHere(l)).map((l) => l.text));
  return [...asserted]
    .filter((l) => codes.has(l.text) && !made.has(l.text))
    .map((l) => ({ code: l.text, file, line: sf.getLineAndCharacterOfPosition(l.getStart(sf)).line + 1 }));
}

/** Every test file under `root` (`*.ts`), but those `skip` names (given paths relative to root's parent, with forward slashes). */
export function assertedCodesUnder(root: string, codes: ReadonlySet<string>, skip: (file: string) => boolean): AssertedCode[] {
  const base = path.dirname(root);
  const walk = (dir: string): string[] =>
    fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
      const p = path.join(dir, e.name);
      return e.isDirectory() ? walk(p) : e.name.endsWith(".ts") ? [p] : [];
    });
  return walk(root)
    .map((p) => path.relative(base, p).split(path.sep).join("/"))
    .filter((file) => !skip(file))
    .flatMap((file) => assertedCodesIn(file, fs.readFileSync(path.join(base, file), "utf8"), codes));
}
