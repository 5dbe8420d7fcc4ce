/**
 * One raw transaction against one UFVK: the shielded notes it pays (trial
 * decryption of every Sapling output, Orchard action and Ironwood action with
 * the external and internal IVKs) and the transparent outputs paying the
 * UFVK's external P2PKH chain within the gap limit. Pure; used by
 * `vigil zcash scan-tx`.
 */
import { equalBytes } from "./bytes.js";
import { decodeMemo, decryptTransaction, scanKeysFromUfvk, type DecodedMemo, type KeyScope } from "./note-decrypt.js";
import { p2pkhHashesOfChain, publicChild } from "./transparent.js";
import type { ParsedTx } from "./tx-parse.js";
import type { UnifiedFullViewingKey } from "./zip316.js";

export const DEFAULT_TRANSPARENT_GAP_LIMIT = 20;

export interface ScannedNote {
  pool: "transparent" | "sapling" | "orchard" | "ironwood";
  outputIndex: number;
  scope: KeyScope;
  /** zatoshi */
  value: bigint;
  memo: DecodedMemo;
  /** Shielded: ZIP 32 diversifier index; transparent: the child index on the external chain. */
  diversifierIndex?: bigint;
  /** Orchard/Ironwood: the nullifier that will mark this note spent (in its own pool). */
  nullifier?: Uint8Array;
}

/** P2PKH script: OP_DUP OP_HASH160 <20> OP_EQUALVERIFY OP_CHECKSIG. */
function p2pkhHash(script: Uint8Array): Uint8Array | null {
  return script.length === 25 && script[0] === 0x76 && script[1] === 0xa9 && script[2] === 0x14 && script[23] === 0x88 && script[24] === 0xac ? script.subarray(3, 23) : null;
}

export function scanTransaction(tx: ParsedTx, ufvk: UnifiedFullViewingKey, opts: { height?: number; gapLimit?: number } = {}): ScannedNote[] {
  const notes: ScannedNote[] = [];
  if (ufvk.transparent && tx.vout.length > 0) {
    const chain = publicChild(ufvk.transparent, 0);
    const wanted = tx.vout.map((o, i) => ({ i, o, h: p2pkhHash(o.scriptPubKey) })).filter((x) => x.h !== null);
    if (chain && wanted.length > 0) {
      for (const { index, hash } of p2pkhHashesOfChain(chain, 0, opts.gapLimit ?? DEFAULT_TRANSPARENT_GAP_LIMIT)) {
        for (const w of wanted)
          if (equalBytes(w.h!, hash)) notes.push({ pool: "transparent", outputIndex: w.i, scope: "external", value: w.o.value, memo: null, diversifierIndex: BigInt(index) });
      }
    }
  }
  for (const n of decryptTransaction(tx, scanKeysFromUfvk(ufvk), opts.height)) {
    notes.push({
      pool: n.pool,
      outputIndex: n.outputIndex,
      scope: n.scope,
      value: n.value,
      memo: n.memo ? decodeMemo(n.memo) : null,
      ...(n.diversifierIndex !== undefined ? { diversifierIndex: n.diversifierIndex } : {}),
      ...(n.nullifier ? { nullifier: n.nullifier } : {}),
    });
  }
  const order = { transparent: 0, sapling: 1, orchard: 2, ironwood: 3 };
  return notes.sort((a, b) => order[a.pool] - order[b.pool] || a.outputIndex - b.outputIndex);
}
