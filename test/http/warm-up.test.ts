/**
 * The modules' warm-up (ServiceModule.warmUp) runs once the API listens,
 * after WARM_UP_DELAY_MS, and never in a process that does not listen (a
 * `vigil worker`): the Zcash key tables (~300 ms of CPU, issue 22's start-up
 * and issue 25's cold derive-viewkey) are built off the start-up path, and
 * only where derive-viewkey is served.
 */
import { afterAll, describe, expect, it } from "vitest";
import { createApp, WARM_UP_DELAY_MS, type App } from "../../src/app.js";
import { loadConfig } from "../../src/config.js";
import { zcashKeysWarm } from "../../src/chains/zcash/derive.js";
import { openTestDatabase, type TestDatabase } from "../helpers/db.js";
import { silentLog, tempDir } from "../helpers/app.js";

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe("warm-up after listening", () => {
  let db: TestDatabase | undefined;
  let app: App | undefined;
  afterAll(async () => {
    await app?.close();
    await db?.close();
  });

  it("is not run by building the app (a worker), and runs once the API listens", async () => {
    db = await openTestDatabase();
    const config = loadConfig({ DEVNET: "off", DATA_DIR: tempDir(), PORT: "0", HOST: "127.0.0.1", LOG_LEVEL: "silent" });
    app = await createApp(config, { log: silentLog, database: db });
    // Count the watch module's warm-up calls (the tables themselves are per process, and another test
    // file in the same process may have built them already).
    const watch = app.modules.find((m) => m.name === "watch")!;
    const own = watch.warmUp!;
    const calls: number[] = [];
    watch.warmUp = () => {
      calls.push(Date.now());
      own();
    };
    // A worker builds the app and never listens: past the delay, nothing has run.
    await sleep(WARM_UP_DELAY_MS + 500);
    expect(calls).toEqual([]);

    const listenedAt = Date.now();
    await app.listen();
    expect(calls).toEqual([]);
    const deadline = Date.now() + 30_000;
    while (calls.length === 0 && Date.now() < deadline) await sleep(50);
    expect(calls).toHaveLength(1);
    expect(zcashKeysWarm()).toBe(true);
    // Node may fire a timer a millisecond before its time.
    expect(calls[0]! - listenedAt).toBeGreaterThanOrEqual(WARM_UP_DELAY_MS - 5);
    await sleep(WARM_UP_DELAY_MS);
    expect(calls).toHaveLength(1);
  }, 60_000);
});
