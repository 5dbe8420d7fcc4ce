/**
 * npm run bench:signer-recovery — the cost of checking an x402 payment's signature, on one core:
 *
 *   baseline   viem's recoverAddress, what @x402/evm's verify calls (the @noble/curves 1.x viem pins)
 *   recovery   src/x402/signer-recovery.ts for a payer not seen before (@noble/curves 2)
 *   no table   a returning payer, confirmed against its remembered key
 *   table      a returning payer with its precomputed table (the local facilitator's window 4)
 *   build      building one table, and the heap it holds
 *
 * and the local facilitator's whole verify of a good payment, the quick way and the official way,
 * against a devnet chain in this process (its CPU included: the same for both).
 * Each figure is the median of five rounds (ms per call; lower is better). Distinct digests and
 * signatures every call, from 32 payers, as a paying agent's calls come.
 */
import { randomBytes } from "node:crypto";
import os from "node:os";
import { type Address, type Hex, bytesToHex, recoverAddress } from "viem";
import { generatePrivateKey, privateKeyToAccount, type PrivateKeyAccount } from "viem/accounts";
import { secp256k1 } from "@noble/curves/secp256k1.js";
import type { PaymentPayload } from "@x402/core/types";
import { signerRecovery, splitSignature } from "../src/x402/signer-recovery.js";
import { createLocalFacilitator } from "../src/x402/local-facilitator.js";
import { startDevnetEvm } from "../devnet/evm.js";
import { machineLine } from "./support.js";
import { sepoliaUsdcRequirements, signAuthorization } from "../test/helpers/x402-sign.js";

const ROUNDS = 5;
const CALLS = Number(process.env.CALLS ?? 200);
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

/** Median over ROUNDS of the ms per call of `fn(i)` (after a warm-up round). */
async function msPerCall(calls: number, fn: (i: number) => unknown): Promise<number> {
  const rounds: number[] = [];
  for (let round = -1; round < ROUNDS; round++) {
    const t0 = process.hrtime.bigint();
    for (let i = 0; i < calls; i++) await fn(i);
    if (round >= 0) rounds.push(Number(process.hrtime.bigint() - t0) / 1e6 / calls);
  }
  return median(rounds);
}

const payerKeys: Hex[] = Array.from({ length: 32 }, () => generatePrivateKey());
const payers: PrivateKeyAccount[] = payerKeys.map((k) => privateKeyToAccount(k));
const signed = await Promise.all(
  Array.from({ length: CALLS }, async (_, i) => {
    const hash = bytesToHex(randomBytes(32));
    const payer = payers[i % payers.length]!;
    return { hash, payer: payer.address, signature: await payer.sign({ hash }) };
  }),
);
const fresh = await Promise.all(
  Array.from({ length: CALLS }, async () => {
    const payer = privateKeyToAccount(generatePrivateKey());
    const hash = bytesToHex(randomBytes(32));
    return { hash, payer: payer.address, signature: await payer.sign({ hash }) };
  }),
);

const check = (got: Address, want: Address) => {
  if (got !== want) throw new Error(`recovered ${got}, expected ${want}`);
};

const log = (s: string) => process.stdout.write(`${s}\n`);
log(machineLine("signer recovery"));
log(`${CALLS} signatures per round, ${ROUNDS} rounds, median ms per call (lower is better)`);
log("");

const viem = await msPerCall(CALLS, async (i) => check(await recoverAddress({ hash: signed[i]!.hash, signature: signed[i]!.signature }), signed[i]!.payer));
// A new recoverer per round for new payers: every call recovers in full.
const recovery = await msPerCall(CALLS, (i) => {
  const f = fresh[i]!;
  check(signerRecovery({ maxKeys: 4, maxTables: 1, tableWindow: 4, tableAfter: Infinity })(f.hash, splitSignature(f.signature), [f.payer]), f.payer);
});
const untabled = signerRecovery({ maxKeys: 64, maxTables: 64, tableWindow: 4, tableAfter: Infinity });
const tabled = signerRecovery({ maxKeys: 64, maxTables: 64, tableWindow: 4, tableAfter: 1 });
for (const s of signed.slice(0, payers.length)) for (const r of [untabled, tabled]) r(s.hash, splitSignature(s.signature), [s.payer]);
const noTable = await msPerCall(CALLS, (i) => check(untabled(signed[i]!.hash, splitSignature(signed[i]!.signature), [signed[i]!.payer]), signed[i]!.payer));
const withTable = await msPerCall(CALLS, (i) => check(tabled(signed[i]!.hash, splitSignature(signed[i]!.signature), [signed[i]!.payer]), signed[i]!.payer));

const point = () => secp256k1.Point.fromBytes(secp256k1.getPublicKey(secp256k1.utils.randomSecretKey(), false));
const build = await msPerCall(20, () => point().precompute(4, false));
const gc = (globalThis as { gc?: () => void }).gc;
let heapKb: number | undefined;
if (gc) {
  const keep: unknown[] = [];
  gc();
  const before = process.memoryUsage().heapUsed;
  for (let i = 0; i < 50; i++) keep.push(point().precompute(4, false));
  gc();
  heapKb = (process.memoryUsage().heapUsed - before) / 50 / 1024;
}

// The whole verify of a good payment, on a devnet chain in this process.
const dev = await startDevnetEvm({ accounts: 4 });
const req = sepoliaUsdcRequirements(dev.accounts[1]!.address, { amount: "1000" });
for (const p of payers) dev.mintUsdc(p.address, 10n ** 12n);
const payments: PaymentPayload[] = await Promise.all(
  Array.from({ length: CALLS }, (_, i) => signAuthorization(payerKeys[i % payerKeys.length]!, req, { validBefore: BigInt(Math.floor(Date.now() / 1000) + 3600) })),
);
const at = { rpcUrl: dev.url, network: "eip155:84532" as const, privateKey: dev.accounts[0]!.privateKey };
const verifyWith = async (quickVerify: boolean) => {
  const f = createLocalFacilitator({ ...at, quickVerify });
  return msPerCall(CALLS, async (i) => {
    const r = await f.verify(payments[i]!, req);
    if (!r.isValid) throw new Error(`payment ${i} refused: ${r.invalidReason}`);
  });
};
const officialVerify = await verifyWith(false);
const quickVerify = await verifyWith(true);
await dev.close();

const rows: [string, number, string][] = [
  ["viem recoverAddress (baseline: @x402/evm's check)", viem, ""],
  ["recovery, a payer not seen before", recovery, `${(viem / recovery).toFixed(1)}× faster`],
  ["a returning payer, no table", noTable, `${(viem / noTable).toFixed(1)}× faster`],
  ["a returning payer, window-4 table", withTable, `${(viem / withTable).toFixed(1)}× faster`],
  ["building one window-4 table", build, heapKb === undefined ? "(heap: run with node --expose-gc)" : `${heapKb.toFixed(0)} kB of heap each`],
  ["whole verify, official (baseline)", officialVerify, ""],
  ["whole verify, quick", quickVerify, `${(officialVerify - quickVerify).toFixed(2)} ms less`],
];
for (const [name, v, note] of rows) log(`${name.padEnd(52)}${v.toFixed(3).padStart(9)} ms  ${note}`);
log("");
log(`load average at the end: ${os.loadavg().map((l) => l.toFixed(2)).join(" ")}`);
