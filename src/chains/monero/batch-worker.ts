/**
 * worker_threads entry for MoneroScanPool: holds a slice of the watches and
 * scans whole blocks against them with the shared-work batch scanner.
 */
import { parentPort } from "node:worker_threads";
import { scanTxsForAccounts } from "./batch.js";
import type { ScanTx, ViewAccount } from "./types.js";

type Msg = { kind: "accounts"; id: number; accounts: ViewAccount[] } | { kind: "scan"; id: number; txs: ScanTx[] };

let accounts: ViewAccount[] = [];

parentPort?.on("message", (msg: Msg) => {
  try {
    if (msg.kind === "accounts") {
      accounts = msg.accounts;
      parentPort!.postMessage({ id: msg.id, ok: true });
    } else {
      parentPort!.postMessage({ id: msg.id, ok: true, results: scanTxsForAccounts(msg.txs, accounts) });
    }
  } catch (e) {
    parentPort!.postMessage({ id: msg.id, ok: false, error: e instanceof Error ? e.message : String(e) });
  }
});
