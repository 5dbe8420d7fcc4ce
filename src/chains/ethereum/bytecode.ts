/**
 * A static look at EVM bytecode (pure): walks the opcodes (PUSH data
 * skipped), and reports the 4-byte selectors pushed, which opcodes occur, and
 * a few patterns the puzzle classifier needs. No execution, no CFG: what it
 * cannot decide it leaves to the classifier's "indeterminate".
 */
export const OP = {
  SHA3: 0x20,
  ORIGIN: 0x32,
  CALLER: 0x33,
  CALLVALUE: 0x34,
  CALLDATALOAD: 0x35,
  CALLDATACOPY: 0x37,
  SLOAD: 0x54,
  EQ: 0x14,
  CALL: 0xf1,
  CALLCODE: 0xf2,
  DELEGATECALL: 0xf4,
  SELFDESTRUCT: 0xff,
  PUSH1: 0x60,
  PUSH4: 0x63,
  PUSH32: 0x7f,
} as const;

export interface BytecodeFacts {
  bytes: number;
  selectors: Set<string>;
  ops: Set<number>;
  /** CALLER compared (EQ) with a stored value within a few instructions: an owner gate. */
  callerGate: boolean;
  /** EIP-1167 minimal proxy or an EIP-7702 delegation designator. */
  proxy: boolean;
}

/** Walks the code; `code` is 0x-hex. */
export function analyseBytecode(code: string): BytecodeFacts {
  const hex = code.startsWith("0x") ? code.slice(2) : code;
  const b = Buffer.from(hex, "hex");
  const selectors = new Set<string>();
  const ops = new Set<number>();
  const seq: number[] = [];
  for (let i = 0; i < b.length; i++) {
    const op = b[i]!;
    ops.add(op);
    seq.push(op);
    if (op >= OP.PUSH1 && op <= OP.PUSH32) {
      const n = op - OP.PUSH1 + 1;
      if (op === OP.PUSH4 && i + 4 < b.length + 1) selectors.add(`0x${b.subarray(i + 1, i + 5).toString("hex")}`);
      i += n;
    }
  }
  // An owner gate: CALLER and SLOAD within 6 opcodes of each other, followed by EQ.
  let callerGate = false;
  for (let k = 0; k < seq.length && !callerGate; k++) {
    if (seq[k] !== OP.CALLER) continue;
    const win = seq.slice(Math.max(0, k - 6), k + 7);
    if (win.includes(OP.SLOAD) && win.includes(OP.EQ)) callerGate = true;
  }
  const lower = hex.toLowerCase();
  const proxy = lower.startsWith("ef0100") || /^363d3d373d3d3d363d73[0-9a-f]{40}5af43d82803e903d91602b57fd5bf3$/.test(lower);
  return { bytes: b.length, selectors, ops, callerGate, proxy };
}
