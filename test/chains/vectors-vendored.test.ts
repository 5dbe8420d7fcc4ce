/** The official vectors live in the repository: a fresh clone runs every vector test, none is skipped for want of data. */
import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { VECTOR_DIR as MONERO_DIR, vectorsPresent as moneroPresent } from "./monero/vectors.js";
import { VECTOR_DIR as ZCASH_DIR, vectorsPresent as zcashPresent } from "./zcash/vectors.js";

const root = path.resolve(import.meta.dirname, "..", "..");

describe("vendored test vectors", () => {
  it("are read from test/vectors inside the repository", () => {
    expect(moneroPresent).toBe(true);
    expect(path.relative(root, MONERO_DIR)).toBe(path.join("test", "vectors", "monero"));
    if (!process.env.ZCASH_VECTOR_DIR) {
      expect(zcashPresent).toBe(true);
      expect(path.relative(root, ZCASH_DIR)).toBe(path.join("test", "vectors", "zcash"));
    }
  });

  it("each vendored file is named, with its source, in test/vectors/README.md, and each test's file is vendored", () => {
    const readme = fs.readFileSync(path.join(root, "test", "vectors", "README.md"), "utf8");
    const tests = [path.join(root, "test", "chains", "monero"), path.join(root, "test", "chains", "zcash")]
      .flatMap((d) => fs.readdirSync(d, { recursive: true, encoding: "utf8" }).map((f) => path.join(d, f)))
      .filter((f) => f.endsWith(".ts"))
      .map((f) => fs.readFileSync(f, "utf8"))
      .join("\n");
    for (const chain of ["monero", "zcash"]) {
      for (const f of fs.readdirSync(path.join(root, "test", "vectors", chain))) {
        expect(readme, `${chain}/${f} in the README`).toContain(`\`${f}\``);
        expect(tests, `${chain}/${f} used by a test`).toContain(f);
      }
    }
  });
});
