/**
 * The Private Watch module with real collaborators and no HTTP app: a test
 * database, a webhook receiver on loopback that records every signed
 * delivery, a secret box, the real webhook sender and the chain scanners a
 * test gives; `poll()` moves a ManualClock past the next poll and runs one
 * tick. Shared by the chains' watch-through-the-module tests.
 */
import http from "node:http";
import { randomBytes } from "node:crypto";
import type { AddressInfo } from "node:net";
import pino from "pino";
import type { ChainId, ChainScanner } from "../../src/chains/scanner.js";
import { ManualClock } from "../../src/core/clock.js";
import { SecretBox } from "../../src/core/secretbox.js";
import { createWebhookSender } from "../../src/webhooks/deliver.js";
import type { WatchDeps } from "../../src/watch/deps.js";
import { runWatchTick } from "../../src/watch/tick.js";
import { openTestDatabase, type TestDatabase } from "./db.js";

export interface ReceivedHook {
  headers: http.IncomingHttpHeaders;
  raw: string;
  body: {
    event: string;
    watchId: string;
    previous: Record<string, unknown>;
    current: Record<string, unknown> & { outputs: Record<string, unknown>[] };
    delta: { balance_atomic: string; before_atomic: string; after_atomic: string; pending_atomic?: string };
  };
}

export interface WatchHarness {
  db: TestDatabase;
  deps: WatchDeps;
  clock: ManualClock;
  receiverUrl: string;
  /** Every delivery received, in order. */
  received: ReceivedHook[];
  /** One poll: moves time past the next poll and runs the tick; returns the deliveries it made. */
  poll(): Promise<ReceivedHook[]>;
  close(): Promise<void>;
}

export async function startWatchHarness(scanners: (clock: ManualClock) => Partial<Record<ChainId, ChainScanner>>): Promise<WatchHarness> {
  const clock = new ManualClock(Date.now());
  const db = await openTestDatabase();
  const received: ReceivedHook[] = [];
  const receiver = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      const raw = Buffer.concat(chunks).toString("utf8");
      received.push({ headers: req.headers, raw, body: JSON.parse(raw) as ReceivedHook["body"] });
      res.writeHead(200).end("ok");
    });
  });
  await new Promise<void>((r) => receiver.listen(0, "127.0.0.1", () => r()));
  const policy = { allowHttp: true, allowPrivate: true };
  const deps: WatchDeps = {
    db: db.db,
    clock,
    log: pino({ level: "silent" }),
    scanners: scanners(clock),
    secretBox: new SecretBox(randomBytes(32).toString("hex")),
    sender: createWebhookSender({ policy, clock }),
    urlPolicy: policy,
    pollSeconds: 180,
    subaddressDefault: { accounts: 2, minors: 50 },
  };
  return {
    db,
    deps,
    clock,
    receiverUrl: `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`,
    received,
    poll: async () => {
      clock.advance(200_000);
      const before = received.length;
      await runWatchTick(deps, { owner: "test-worker", batchSize: 100 });
      return received.slice(before);
    },
    close: async () => {
      await deps.sender.close();
      await db.close();
      receiver.closeAllConnections();
      await new Promise<void>((r) => receiver.close(() => r()));
    },
  };
}
