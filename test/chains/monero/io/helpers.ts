/** Shared set-up for the Monero I/O tests: a simulated monerod in a temp data dir. */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { startDevnetMonerod, type DevnetMonerod } from "../../../../devnet/monerod.js";

export function tempDataDir(prefix = "vigil-xmr-"): string {
  return fs.mkdtempSync(path.join(os.tmpdir(), prefix));
}

export async function startTestMonerod(
  opts: { initialBlocks?: number; dataDir?: string; blockSeconds?: number; persistChain?: boolean; carrotForkHeight?: number } = {},
): Promise<
  DevnetMonerod & { dataDir: string }
> {
  const dataDir = opts.dataDir ?? tempDataDir();
  const d = await startDevnetMonerod({
    host: "127.0.0.1",
    port: 0,
    dataDir,
    blockSeconds: opts.blockSeconds ?? 0,
    initialBlocks: opts.initialBlocks ?? 3,
    persistChain: opts.persistChain ?? false,
    ...(opts.carrotForkHeight !== undefined ? { carrotForkHeight: opts.carrotForkHeight } : {}),
  });
  return Object.assign(d, { dataDir });
}

/** Small look-ahead so tests build view accounts quickly: majors 0..1 × minors 0..4. */
export const TEST_LOOKAHEAD = { accounts: 2, minors: 5 };
