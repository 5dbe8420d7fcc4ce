/** The Zcash scan state: strict reading (anything odd starts over), roll-back, bounded folding. */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { addNote, foldSettled, freshState, readZcashState, rollBack, type StoredNote, type ZcashScanState } from "../../../src/chains/zcash/scan-state.js";
import { summarizeZcashWatch } from "../../../src/chains/zcash/snapshot.js";

const hash = (n: number) => n.toString(16).padStart(64, "0");
const note = (over: Partial<StoredNote> = {}): StoredNote => ({
  pool: "orchard",
  txid: hash(1),
  index: 0,
  value: "100",
  height: 10,
  scope: "external",
  di: "0",
  nf: "ab".repeat(32),
  spent: null,
  ...over,
});

function stateWith(notes: StoredNote[], scannedHeight = 20): ZcashScanState {
  const st = freshState(1);
  st.scannedHeight = scannedHeight;
  st.hashes = [hash(scannedHeight - 2), hash(scannedHeight - 1), hash(scannedHeight)];
  for (const n of notes) addNote(st, n);
  return st;
}

describe("Zcash scan state", () => {
  it("round-trips through JSON and refuses anything malformed (starts over)", () => {
    const st = stateWith([note(), note({ index: 1, memo: { text: "hi" }, spent: { height: 12, txid: hash(2) } }), note({ pool: "sapling", memo: null, nf: null })]);
    const back = readZcashState(JSON.parse(JSON.stringify(st)), 1);
    expect(back).toEqual(st);
    const bad: unknown[] = [
      { ...st, v: 2 },
      { ...st, hashes: ["xyz"] },
      { ...st, notes: [{ ...note(), pool: "sprout" }] },
      { ...st, notes: [{ ...note(), value: "-1" }] },
      { ...st, notes: [{ ...note(), memo: { text: 1 } }] },
      { ...st, settled: { receivedAtomic: "1" } },
      { ...st, tNext: -1 },
    ];
    for (const b of bad) expect(readZcashState(b as ZcashScanState, 7)).toEqual(freshState(7));
    fc.assert(fc.property(fc.jsonValue(), (j) => {
      const r = readZcashState({ scannedHeight: 0, ...(typeof j === "object" && j !== null && !Array.isArray(j) ? j : {}) } as ZcashScanState, 5);
      expect(Number.isInteger(r.scannedHeight)).toBe(true);
    }));
  });

  it("rollBack drops notes and spends above the fork and trims the hashes", () => {
    const st = stateWith([note({ height: 18 }), note({ index: 1, height: 19, spent: { height: 20, txid: hash(3) } }), note({ index: 2, height: 20 })]);
    rollBack(st, 19);
    expect(st.scannedHeight).toBe(19);
    expect(st.hashes).toEqual([hash(18), hash(19)]);
    expect(st.notes.map((n) => [n.index, n.spent])).toEqual([[0, null], [1, null]]);
  });

  it("folds only spent, final notes, keeping the totals; unspent notes are never folded", () => {
    const notes: StoredNote[] = [];
    for (let i = 0; i < 10; i++) notes.push(note({ index: i, height: 100 + i, value: String(i + 1), spent: i % 2 === 0 ? { height: 150, txid: hash(9) } : null }));
    const st = stateWith(notes, 300);
    const before = summarizeZcashWatch("w", JSON.parse(JSON.stringify(st)) as ZcashScanState, 300, [], { confirmations: 1, snapshotOutputs: 0 }).snapshot;
    foldSettled(st, 300, { maxStored: 3, foldDepth: 60 });
    expect(st.notes.length).toBe(5); // the 5 unspent ones stay
    expect(st.notes.every((n) => n.spent === null)).toBe(true);
    expect(st.settled.count).toBe(5);
    const after = summarizeZcashWatch("w", st, 300, [], { confirmations: 1, snapshotOutputs: 0 }).snapshot;
    for (const k of ["balanceAtomic", "pendingAtomic", "receivedAtomic", "spentAtomic", "outputCount"]) expect(after[k]).toEqual(before[k]);
    // A spend that is not yet final is kept.
    const young = stateWith([note({ spent: { height: 290, txid: hash(1) } }), note({ index: 1, spent: { height: 100, txid: hash(1) } })], 300);
    foldSettled(young, 300, { maxStored: 0, foldDepth: 60 });
    expect(young.notes.map((n) => n.index)).toEqual([0]);
  });

  it("a note is stored once however often its block is seen", () => {
    const st = freshState(1);
    expect(addNote(st, note())).toBe(true);
    expect(addNote(st, note())).toBe(false);
    expect(addNote(st, note({ pool: "ironwood" }))).toBe(true);
    expect(st.notes.length).toBe(2);
  });
});
