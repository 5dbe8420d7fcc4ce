/**
 * Monero's block-wise base58 (src/common/base58.cpp): 8-byte blocks, each a
 * big-endian integer written as a fixed-width base58 number. Not Bitcoin's.
 */
const ALPHABET = "123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz";
const INDEX = new Map<string, number>([...ALPHABET].map((c, i) => [c, i]));
/** Encoded width of a block of n bytes, n = 0..8. */
const ENCODED_BLOCK_SIZES = [0, 2, 3, 5, 6, 7, 9, 10, 11];
const FULL_BLOCK = 8;
const FULL_ENCODED = 11;

function encodeBlock(block: Uint8Array): string {
  let v = 0n;
  for (const b of block) v = (v << 8n) | BigInt(b);
  const width = ENCODED_BLOCK_SIZES[block.length]!;
  const chars: string[] = new Array(width).fill(ALPHABET[0]);
  for (let i = width - 1; v > 0n; i--) {
    chars[i] = ALPHABET[Number(v % 58n)]!;
    v /= 58n;
  }
  return chars.join("");
}

export function base58Encode(data: Uint8Array): string {
  let out = "";
  for (let i = 0; i < data.length; i += FULL_BLOCK) out += encodeBlock(data.subarray(i, Math.min(i + FULL_BLOCK, data.length)));
  return out;
}

/** Null on any malformed input (bad length, bad character, block overflow). */
export function base58Decode(s: string): Uint8Array | null {
  if (typeof s !== "string") return null;
  const fullBlocks = Math.floor(s.length / FULL_ENCODED);
  const tailChars = s.length % FULL_ENCODED;
  const tailBytes = ENCODED_BLOCK_SIZES.indexOf(tailChars);
  if (tailBytes < 0) return null;
  const out = new Uint8Array(fullBlocks * FULL_BLOCK + tailBytes);
  const decodeBlock = (chunk: string, nBytes: number, offset: number): boolean => {
    let v = 0n;
    for (const c of chunk) {
      const d = INDEX.get(c);
      if (d === undefined) return false;
      v = v * 58n + BigInt(d);
    }
    if (v >= 1n << BigInt(8 * nBytes)) return false; // also catches 64-bit overflow of full blocks
    for (let i = nBytes - 1; i >= 0; i--) {
      out[offset + i] = Number(v & 0xffn);
      v >>= 8n;
    }
    return true;
  };
  for (let b = 0; b < fullBlocks; b++) {
    if (!decodeBlock(s.slice(b * FULL_ENCODED, (b + 1) * FULL_ENCODED), FULL_BLOCK, b * FULL_BLOCK)) return null;
  }
  if (tailChars > 0 && !decodeBlock(s.slice(fullBlocks * FULL_ENCODED), tailBytes, fullBlocks * FULL_BLOCK)) return null;
  return out;
}
