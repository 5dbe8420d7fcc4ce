/**
 * bench:lookahead — what a Monero watch's subaddress look-ahead costs: the time
 * to build its spend-key table (the cold start of a watch in a worker), the
 * memory the cached account keeps, the time to grow it when an invoice
 * subaddress is handed out past it, and the time to scan a transaction with
 * it. The baseline, measured in the same run, is the server's default look-ahead
 * (accounts 0–1 × minors 0–49).
 *
 *   npm run bench:lookahead [-- --rounds=5 --accounts=20]
 *
 * Memory: N accounts of one look-ahead are built and kept, and the heap after a
 * forced GC is compared with the heap before (needs --expose-gc, which the npm
 * script passes); the figure is the heap per account.
 */
import { cpus, loadavg } from "node:os";
import { makeViewAccount } from "../src/chains/monero/keys.js";
import { encodeAddress } from "../src/chains/monero/address.js";
import { mulBase, scalarToBytes } from "../src/chains/monero/crypto.js";
import { bytesToHex } from "../src/chains/monero/encoding.js";
import { scanTx } from "../src/chains/monero/scan.js";
import { deriveSubaddress } from "../src/chains/monero/subaddress.js";
import { parseTransactionBlob } from "../src/chains/monero/tx-binary.js";
import type { SubaddressLookahead, ViewAccount } from "../src/chains/monero/types.js";
import { ViewAccountCache } from "../src/chains/monero/view-accounts.js";
import { buildTransfer, randomScalar, seededRng } from "../devnet/monero-sender.js";

const args = new Map(process.argv.slice(2).map((a) => a.replace(/^--/, "").split("=") as [string, string]));
const ROUNDS = Number(args.get("rounds") ?? 5);
/** Accounts kept at once for the memory figure (fewer for the largest tables). */
const KEEP = Number(args.get("accounts") ?? 20);

const log = (s: string) => process.stdout.write(`${s}\n`);
const fmt = (n: number, digits = 0) => n.toLocaleString("en-US", { maximumFractionDigits: digits, minimumFractionDigits: digits });
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const gc = (globalThis as { gc?: () => void }).gc;

const CASES: { name: string; lookahead: SubaddressLookahead }[] = [
  { name: "server default, 2 × 50 (baseline)", lookahead: { accounts: 2, minors: 50 } },
  { name: "2 × 200", lookahead: { accounts: 2, minors: 200 } },
  { name: "accounts 0–5, 6 × 200", lookahead: { accounts: 6, minors: 200 } },
  { name: "a wallet's own, 50 × 200", lookahead: { accounts: 50, minors: 200 } },
  { name: "default + 1,000 invoice subaddresses", lookahead: { accounts: 2, minors: 50, issued: [{ major: 0, minors: 1_000 }] } },
  { name: "default + 10,000 invoice subaddresses", lookahead: { accounts: 2, minors: 50, issued: [{ major: 0, minors: 10_000 }] } },
  { name: "default + 100,000 invoice subaddresses (the cap)", lookahead: { accounts: 2, minors: 50, issued: [{ major: 0, minors: 100_000 }] } },
];

log(`bench:lookahead — Node ${process.version}, ${cpus()[0]?.model.trim() ?? "cpu"} × ${cpus().length}, load average ${loadavg().map((l) => l.toFixed(2)).join(" ")}`);
if (!gc) log("(no --expose-gc: memory figures are left out)");

const rng = seededRng("vigil-bench-lookahead");
function wallet(): { address: string; viewKey: string; viewSecret: Uint8Array; spendPublic: Uint8Array } {
  const a = randomScalar(rng);
  const spendPublic = mulBase(randomScalar(rng)).toBytes();
  const viewSecret = scalarToBytes(a);
  return { address: encodeAddress("mainnet", "standard", spendPublic, mulBase(a).toBytes()), viewKey: bytesToHex(viewSecret), viewSecret, spendPublic };
}

/** Build time of one account, median of ROUNDS fresh wallets (ms). */
function buildMs(lookahead: SubaddressLookahead): number {
  const times: number[] = [];
  for (let i = 0; i < ROUNDS; i++) {
    const w = wallet();
    const t = performance.now();
    makeViewAccount(w.address, w.viewKey, { lookahead });
    times.push(performance.now() - t);
  }
  return median(times);
}

/** Heap kept per account (bytes), from `count` accounts held at once. */
function heapPerAccount(lookahead: SubaddressLookahead, count: number): number | null {
  if (!gc) return null;
  const wallets = Array.from({ length: count }, wallet);
  gc();
  const before = process.memoryUsage().heapUsed;
  const kept: ViewAccount[] = wallets.map((w) => makeViewAccount(w.address, w.viewKey, { lookahead }));
  gc();
  const after = process.memoryUsage().heapUsed;
  if (kept.length !== count) throw new Error("unreachable");
  return (after - before) / count;
}

/** µs to scan one 2-output transaction paying the last subaddress of the look-ahead, median of 200. */
function scanUs(lookahead: SubaddressLookahead): number {
  const w = wallet();
  const account = makeViewAccount(w.address, w.viewKey, { lookahead });
  const last = lookahead.issued?.length ? { major: lookahead.issued[0]!.major, minor: lookahead.issued[0]!.minors - 1 } : { major: lookahead.accounts - 1, minor: lookahead.minors - 1 };
  const built = buildTransfer({ destinations: [{ address: deriveSubaddress("mainnet", w.viewSecret, w.spendPublic, last), amount: 5n }], rng });
  const parsed = parseTransactionBlob(built.blob);
  if (!parsed.ok) throw new Error(parsed.error);
  if (scanTx(parsed.value, account).length !== 1) throw new Error("the scan missed the payment");
  const times: number[] = [];
  for (let i = 0; i < 200; i++) {
    const t = performance.now();
    scanTx(parsed.value, account);
    times.push((performance.now() - t) * 1000);
  }
  return median(times);
}

/** ms to hand out one more subaddress past the look-ahead: the cache grows the account (copy + one derivation). */
function growMs(lookahead: SubaddressLookahead): number {
  const w = wallet();
  const cache = new ViewAccountCache(lookahead, undefined, 4);
  // From ROUNDS below the case's size, so the last grow reaches it (and never passes the cap).
  const top = lookahead.issued?.[0] ?? { major: 0, minors: lookahead.minors + ROUNDS };
  const issued = { major: top.major, minors: top.minors - ROUNDS };
  cache.get(w.address, w.viewKey, { ...lookahead, issued: [issued] });
  const times: number[] = [];
  for (let i = 1; i <= ROUNDS; i++) {
    const next = { ...lookahead, issued: [{ major: issued.major, minors: issued.minors + i }] };
    const t = performance.now();
    cache.get(w.address, w.viewKey, next);
    times.push(performance.now() - t);
  }
  return median(times);
}

log("");
log("| look-ahead | keys | build ms | vs baseline | heap per account | grow by one invoice, ms | scan a tx, µs |");
log("|---|---:|---:|---:|---:|---:|---:|");
let baseline = 0;
for (const c of CASES) {
  const probe = wallet();
  const size = makeViewAccount(probe.address, probe.viewKey, { lookahead: c.lookahead }).spendKeys.size;
  const b = buildMs(c.lookahead);
  if (baseline === 0) baseline = b;
  const heap = heapPerAccount(c.lookahead, size > 20_000 ? Math.max(2, Math.floor(KEEP / 10)) : KEEP);
  log(
    `| ${c.name} | ${fmt(size)} | ${fmt(b, 1)} | ${fmt(b / baseline, 1)}× | ${heap === null ? "—" : `${fmt(heap / 1024, 0)} KiB`} | ${fmt(growMs(c.lookahead), 2)} | ${fmt(scanUs(c.lookahead), 0)} |`,
  );
}
log("");
log(`at the end: load average ${loadavg().map((l) => l.toFixed(2)).join(" ")}`);
