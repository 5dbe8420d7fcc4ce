/**
 * The unrolled Keccak-f, BLAKE2b compression and field code is reviewed as
 * the generators that write it: every committed BEGIN/END GENERATED section must be exactly what
 * its generator prints today.
 */
import { execFile } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { promisify } from "node:util";
import { describe, expect, it } from "vitest";
import { blake2bIV, blake2bSections, SIGMA } from "../../../src/chains/monero/tools/gen-blake2b.js";
import { field25519Sections, FOLD } from "../../../src/chains/monero/tools/gen-field25519.js";
import { keccakSections, rhoOffsets, roundConstants } from "../../../src/chains/monero/tools/gen-keccak.js";
import { MONERO_DIR, readSection, replaceSection } from "../../../src/chains/monero/tools/generated-section.js";

const sections = [...keccakSections(), ...field25519Sections(), ...blake2bSections()];

describe("generated sections of the hand-tuned Monero code", () => {
  for (const s of sections) {
    it(`${s.file} [${s.name}] is exactly what its generator prints`, () => {
      const committed = readSection(fs.readFileSync(path.join(MONERO_DIR, s.file), "utf8"), s.name);
      expect(committed, "markers missing").not.toBeNull();
      expect(committed).toBe(s.text);
    });
  }

  it("the Keccak generator starts from the published ρ offsets and round constants (FIPS 202)", () => {
    // Lane x + 5y, as in the Keccak reference's table of rotation offsets.
    expect(rhoOffsets()).toEqual([0, 1, 62, 28, 27, 36, 44, 6, 55, 20, 3, 10, 43, 25, 39, 41, 45, 15, 21, 8, 18, 2, 61, 56, 14]);
    const rc = roundConstants();
    expect(rc).toHaveLength(24);
    expect([rc[0], rc[1], rc[2], rc[23]]).toEqual([0x1n, 0x8082n, 0x800000000000808an, 0x8000000080008008n]);
  });

  it("the BLAKE2b generator starts from the SHA-512 IV and a message schedule of permutations (RFC 7693 §2.6, §2.7)", () => {
    expect(blake2bIV()).toEqual([
      0x6a09e667f3bcc908n, 0xbb67ae8584caa73bn, 0x3c6ef372fe94f82bn, 0xa54ff53a5f1d36f1n,
      0x510e527fade682d1n, 0x9b05688c2b3e6c1fn, 0x1f83d9abfb41bd6bn, 0x5be0cd19137e2179n,
    ]);
    expect(SIGMA).toHaveLength(10);
    for (const row of SIGMA) expect([...row].sort((a, b) => a - b)).toEqual(Array.from({ length: 16 }, (_, i) => i));
    expect(SIGMA[9]).toEqual([10, 2, 8, 4, 7, 6, 1, 5, 15, 11, 9, 14, 3, 12, 13, 0]);
  });

  it("the field generator folds with 2^264 mod (2^255 − 19)", () => {
    expect(BigInt(FOLD)).toBe((1n << 264n) % ((1n << 255n) - 19n));
  });

  it("replaceSection swaps only the body between the markers; readSection finds nothing without them", () => {
    const file = "a\n// BEGIN GENERATED x (tools/g.ts): edit the generator, not this section\nold\n// END GENERATED x\nz\n";
    const next = replaceSection(file, { file: "f.ts", name: "x", text: "new 1\nnew 2\n" }, "tools/g.ts");
    expect(next).toBe("a\n// BEGIN GENERATED x (tools/g.ts): edit the generator, not this section\nnew 1\nnew 2\n// END GENERATED x\nz\n");
    expect(readSection(next, "x")).toBe("new 1\nnew 2\n");
    expect(readSection("// END GENERATED x\n// BEGIN GENERATED x (g)\n", "x")).toBeNull();
    expect(readSection(file, "y")).toBeNull();
  });

  it("a generator run from the command line checks the committed files (exit 0 when up to date)", async () => {
    const tsx = path.resolve("node_modules/.bin/tsx");
    const { stdout } = await promisify(execFile)(tsx, [path.join(MONERO_DIR, "tools/gen-keccak.ts"), "--check"]);
    expect(stdout).toBe("keccak.ts [round constants]: up to date\nkeccak.ts [permutation]: up to date\n");
  }, 60_000);
});
