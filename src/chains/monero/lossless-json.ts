/**
 * JSON for monerod, whose answers carry u64 values beyond 2^53 (amounts,
 * difficulties) that Node 20's JSON.parse would round: integer literals
 * outside the safe range are read as exact bigint, and bigint is written
 * back as a bare JSON integer. Fractions and exponents stay numbers
 * (monerod sends none on money paths). Keys are always own properties,
 * "__proto__" included.
 */

/** A JSON value where integers beyond Number.MAX_SAFE_INTEGER are bigint. */
export type LosslessJson = null | boolean | number | bigint | string | LosslessJson[] | { [k: string]: LosslessJson };

class JsonSyntaxError extends Error {}

/**
 * JSON.parse, except that integer literals that are not safe JS integers are
 * returned as bigint (exactly), never rounded. Fractions and exponents stay
 * numbers (monerod sends none on money paths).
 */
export function parseJsonLossless(text: string): LosslessJson {
  let i = 0;
  const n = text.length;
  const ws = () => {
    while (i < n) {
      const c = text.charCodeAt(i);
      if (c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09) i++;
      else break;
    }
  };
  const fail = (what: string): never => {
    throw new JsonSyntaxError(`invalid JSON at offset ${i}: ${what}`);
  };
  const parseString = (): string => {
    // Fast path: no escapes.
    const start = ++i;
    let j = start;
    while (j < n) {
      const c = text.charCodeAt(j);
      if (c === 0x22) {
        i = j + 1;
        return text.slice(start, j);
      }
      if (c === 0x5c || c < 0x20) break;
      j++;
    }
    // Slow path with escapes: let JSON.parse handle the literal.
    j = start;
    while (j < n) {
      const c = text.charCodeAt(j);
      if (c === 0x5c) j += 2;
      else if (c === 0x22) break;
      else j++;
    }
    if (j >= n) fail("unterminated string");
    const lit = text.slice(start - 1, j + 1);
    i = j + 1;
    try {
      return JSON.parse(lit) as string;
    } catch {
      return fail("bad string escape");
    }
  };
  const parseNumber = (): number | bigint => {
    const start = i;
    if (text[i] === "-") i++;
    const digitsStart = i;
    while (i < n && text.charCodeAt(i) >= 0x30 && text.charCodeAt(i) <= 0x39) i++;
    if (i === digitsStart) fail("bad number");
    let integer = true;
    if (text[i] === ".") {
      integer = false;
      i++;
      while (i < n && text.charCodeAt(i) >= 0x30 && text.charCodeAt(i) <= 0x39) i++;
    }
    if (text[i] === "e" || text[i] === "E") {
      integer = false;
      i++;
      if (text[i] === "+" || text[i] === "-") i++;
      while (i < n && text.charCodeAt(i) >= 0x30 && text.charCodeAt(i) <= 0x39) i++;
    }
    const lit = text.slice(start, i);
    if (integer) {
      const v = Number(lit);
      if (Number.isSafeInteger(v)) return v;
      return BigInt(lit);
    }
    const v = Number(lit);
    if (!Number.isFinite(v)) fail("bad number");
    return v;
  };
  const parseValue = (depth: number): LosslessJson => {
    if (depth > 512) fail("nesting too deep");
    ws();
    const c = text[i];
    if (c === "{") {
      i++;
      const obj: { [k: string]: LosslessJson } = {};
      ws();
      if (text[i] === "}") {
        i++;
        return obj;
      }
      for (;;) {
        ws();
        if (text[i] !== '"') fail("expected key");
        const key = parseString();
        ws();
        if (text[i] !== ":") fail("expected ':'");
        i++;
        const value = parseValue(depth + 1);
        // Own property even for "__proto__".
        Object.defineProperty(obj, key, { value, enumerable: true, writable: true, configurable: true });
        ws();
        if (text[i] === ",") {
          i++;
          continue;
        }
        if (text[i] === "}") {
          i++;
          return obj;
        }
        fail("expected ',' or '}'");
      }
    }
    if (c === "[") {
      i++;
      const arr: LosslessJson[] = [];
      ws();
      if (text[i] === "]") {
        i++;
        return arr;
      }
      for (;;) {
        arr.push(parseValue(depth + 1));
        ws();
        if (text[i] === ",") {
          i++;
          continue;
        }
        if (text[i] === "]") {
          i++;
          return arr;
        }
        fail("expected ',' or ']'");
      }
    }
    if (c === '"') return parseString();
    if (c === "t" && text.startsWith("true", i)) {
      i += 4;
      return true;
    }
    if (c === "f" && text.startsWith("false", i)) {
      i += 5;
      return false;
    }
    if (c === "n" && text.startsWith("null", i)) {
      i += 4;
      return null;
    }
    if (c === "-" || (c !== undefined && c >= "0" && c <= "9")) return parseNumber();
    return fail("unexpected character");
  };
  const value = parseValue(0);
  ws();
  if (i !== n) fail("trailing characters");
  return value;
}

/** JSON.stringify that writes bigint as a bare JSON integer (as monerod does). */
export function stringifyJsonLossless(value: unknown): string {
  const marks: string[] = [];
  const text = JSON.stringify(value, (_k, v: unknown) => {
    if (typeof v === "bigint") {
      marks.push(v.toString());
      return `\u0000big${marks.length - 1}\u0000`;
    }
    return v;
  });
  if (marks.length === 0) return text;
  return text.replace(/"\\u0000big(\d+)\\u0000"/g, (_m, idx: string) => marks[Number(idx)]!);
}
