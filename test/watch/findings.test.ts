/**
 * The findings diff: what subscribers are told a scan found (new, newly
 * confirmed, reorged) must follow from the two output lists alone, be stable
 * when nothing changed, and survive the round trip through the jsonb memory.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import type { ReceivedOutput } from "../../src/chains/scanner.js";
import { diffOutputs, FINAL_CONFIRMATIONS, readKnownOutputs, type KnownOutput } from "../../src/watch/findings.js";

const key = (o: { txid: string; index: string }) => `${o.txid}:${o.index}`;
const keys = (list: readonly { txid: string; index: string }[]) => list.map(key).sort();

/** One scan and its outputs, the tip low enough that no output (lowest height 0) reaches FINAL_CONFIRMATIONS and is forgotten. */
const scanArb = (maxTip = FINAL_CONFIRMATIONS - 2) =>
  fc.integer({ min: 1, max: maxTip }).chain((tip) =>
    fc
      .uniqueArray(
        fc.record({
          txid: fc.constantFrom("aa", "bb", "cc", "dd", "ee"),
          index: fc.constantFrom("0", "1", "2"),
          amountAtomic: fc.bigInt({ min: 1n, max: 10n ** 15n }).map(String),
          height: fc.option(fc.integer({ min: Math.max(0, tip - 15), max: tip }), { nil: null }),
          subaddress: fc.option(fc.record({ major: fc.nat(3), minor: fc.nat(50) }), { nil: undefined }),
        }),
        { selector: key, maxLength: 10 },
      )
      .map((outs) => ({
        tip,
        outputs: outs.map(({ subaddress, ...o }): ReceivedOutput => ({
          ...o,
          confirmations: o.height === null ? 0 : tip - o.height + 1,
          ...(subaddress ? { subaddress } : {}),
        })),
      })),
  );
const depthArb = fc.integer({ min: 1, max: 12 });
const confirmedAt = (o: ReceivedOutput, depth: number) => o.height !== null && o.confirmations >= depth;
/** The memory as it comes back from a jsonb column. */
const stored = (known: KnownOutput[]) => readKnownOutputs(JSON.parse(JSON.stringify(known)));

describe("diffOutputs", () => {
  it("new = now \\ before, reorged = before \\ now, confirmed = crossed the depth since before", () => {
    fc.assert(
      fc.property(scanArb(), scanArb(), depthArb, (a, b, depth) => {
        const before = stored(diffOutputs([], a.outputs, { depth, scannedHeight: a.tip }).known);
        const { findings } = diffOutputs(before, b.outputs, { depth, scannedHeight: b.tip });
        const inA = new Map(a.outputs.map((o) => [key(o), o]));
        const inB = new Set(keys(b.outputs));
        expect(keys(findings.new)).toEqual(keys(b.outputs.filter((o) => !inA.has(key(o)))));
        expect(keys(findings.reorged)).toEqual(keys(a.outputs.filter((o) => !inB.has(key(o)))));
        const crossed = b.outputs.filter((o) => confirmedAt(o, depth) && !(inA.has(key(o)) && confirmedAt(inA.get(key(o))!, depth)));
        expect(keys(findings.confirmed)).toEqual(keys(crossed));
        for (const r of findings.reorged) expect(r).toMatchObject({ ...inA.get(key(r))!, confirmations: 0 });
      }),
    );
  });

  it("reports nothing and asks for no write when the same scan comes again", () => {
    fc.assert(
      fc.property(scanArb(), depthArb, (a, depth) => {
        const first = diffOutputs([], a.outputs, { depth, scannedHeight: a.tip });
        const again = diffOutputs(stored(first.known), a.outputs, { depth, scannedHeight: a.tip });
        expect(again.findings).toEqual({ new: [], confirmed: [], reorged: [] });
        expect(again.changed).toBe(false);
        expect(first.changed).toBe(a.outputs.length > 0);
      }),
    );
  });

  it("over any sequence of scans, an output is new once per appearance and reorged once per disappearance", () => {
    fc.assert(
      fc.property(fc.array(scanArb(), { minLength: 1, maxLength: 8 }), depthArb, (scans, depth) => {
        let known: KnownOutput[] = [];
        const present = new Set<string>();
        const toldConfirmed = new Set<string>();
        for (const s of scans) {
          const d = diffOutputs(known, s.outputs, { depth, scannedHeight: s.tip });
          for (const k of keys(d.findings.new)) {
            expect(present.has(k)).toBe(false);
            present.add(k);
          }
          for (const k of keys(d.findings.reorged)) {
            expect(present.delete(k)).toBe(true);
            toldConfirmed.delete(k);
          }
          for (const k of keys(d.findings.confirmed)) toldConfirmed.add(k);
          expect([...present].sort()).toEqual(keys(s.outputs));
          // Every output confirmed now was reported confirmed at some tick since it last appeared.
          for (const o of s.outputs) if (confirmedAt(o, depth)) expect(toldConfirmed.has(key(o))).toBe(true);
          known = stored(d.known);
        }
      }),
    );
  });

  it("an output that arrives already past the depth is both new and confirmed", () => {
    const o: ReceivedOutput = { txid: "aa", index: "0", amountAtomic: "5", height: 90, confirmations: 11 };
    const d = diffOutputs([], [o], { depth: 10, scannedHeight: 100 });
    expect(d.findings).toEqual({ new: [o], confirmed: [o], reorged: [] });
  });

  it("an output mined from the pool is neither new nor reorged; crossing the depth later is reported once", () => {
    const pool: ReceivedOutput = { txid: "aa", index: "1", amountAtomic: "7", height: null, confirmations: 0, subaddress: { major: 0, minor: 3 } };
    const t0 = diffOutputs([], [pool], { depth: 2, scannedHeight: 100 });
    expect(t0.findings.new).toEqual([pool]);
    const mined = { ...pool, height: 101, confirmations: 1 };
    const t1 = diffOutputs(stored(t0.known), [mined], { depth: 2, scannedHeight: 101 });
    expect(t1.findings).toEqual({ new: [], confirmed: [], reorged: [] });
    expect(t1.changed).toBe(true); // the height moved: the memory is written
    const deeper = { ...pool, height: 101, confirmations: 2 };
    const t2 = diffOutputs(stored(t1.known), [deeper], { depth: 2, scannedHeight: 102 });
    expect(t2.findings).toEqual({ new: [], confirmed: [deeper], reorged: [] });
    const t3 = diffOutputs(stored(t2.known), [{ ...deeper, confirmations: 3 }], { depth: 2, scannedHeight: 103 });
    expect(t3.findings).toEqual({ new: [], confirmed: [], reorged: [] });
    expect(t3.changed).toBe(false);
  });

  it("an output the scanner forgot at FINAL_CONFIRMATIONS or deeper is not reorged; one shallower is", () => {
    const old: ReceivedOutput = { txid: "aa", index: "0", amountAtomic: "1", height: 100, confirmations: 10 };
    const fresh: ReceivedOutput = { txid: "bb", index: "0", amountAtomic: "2", height: 150, confirmations: 10 };
    const before = stored(diffOutputs([], [old, fresh], { depth: 1, scannedHeight: 159 }).known);
    const tip = 100 + FINAL_CONFIRMATIONS - 1;
    // `old` is exactly FINAL_CONFIRMATIONS deep at the tip the remaining output shows.
    const kept = { ...fresh, confirmations: tip - 150 + 1 };
    const d = diffOutputs(before, [kept], { depth: 1, scannedHeight: tip });
    expect(d.findings.reorged).toEqual([]);
    expect(d.changed).toBe(true);
    const shallow = diffOutputs(before, [kept], { depth: 1, scannedHeight: tip - 1 });
    expect(shallow.findings.reorged).toEqual([]); // the output's own depth shows the tip
    const gone = diffOutputs(before, [], { depth: 1, scannedHeight: tip - 1 });
    expect(keys(gone.findings.reorged)).toEqual(["aa:0", "bb:0"]);
  });

  it("reads an unrecognised memory as nothing known", () => {
    expect(readKnownOutputs(null)).toEqual([]);
    expect(readKnownOutputs({ outputs: [] })).toEqual([]);
    expect(readKnownOutputs([{ txid: "aa" }, 3, null])).toEqual([]);
  });
});
