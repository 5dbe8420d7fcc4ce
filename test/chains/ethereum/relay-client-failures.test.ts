/**
 * One MEV-Boost relay's data API client over real loopback HTTP (the devnet's
 * simulated relays, and a port nobody listens on): a relay that answers 503,
 * answers garbage or cannot be reached fails with 502 relay_failed, which the
 * poller records as that relay being down (test/oracle/relay-poller.test.ts).
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parseRelayUrls, RelayClient } from "../../../src/chains/ethereum/relays.js";
import { startDevnetRelays, type DevnetRelays } from "../../../devnet/relays.js";
import { freePort } from "../../helpers/ports.js";

describe("a relay's data API that fails", () => {
  let sim: DevnetRelays;
  let client: RelayClient;

  beforeAll(async () => {
    sim = await startDevnetRelays({ historySlots: 10 });
    client = new RelayClient(parseRelayUrls(sim.relayUrls).find((e) => e.id === "relay:sim-aestus")!, { timeoutMs: 10_000, attempts: 1 });
  });
  afterAll(async () => {
    await client?.close();
    await sim?.close();
  });

  it("answers when it is up", async () => {
    expect(Array.isArray(await client.delivered({ limit: 5 }))).toBe(true);
  });

  it("answering 503 or garbage is a 502 relay_failed naming the call; garbage names the relay", async () => {
    try {
      sim.setMode("sim-aestus", "fail");
      await expect(client.delivered({ limit: 5 })).rejects.toMatchObject({ status: 502, code: "relay_failed" });
      await expect(client.received(sim.currentSlot())).rejects.toMatchObject({ status: 502, code: "relay_failed" });
      sim.setMode("sim-aestus", "garbage");
      await expect(client.delivered({ limit: 5 })).rejects.toMatchObject({ status: 502, code: "relay_failed", details: { relay: "relay:sim-aestus" } });
    } finally {
      sim.setMode("sim-aestus", "ok");
    }
  });

  it("a relay nobody listens on is a 502 relay_failed", async () => {
    const [endpoint] = parseRelayUrls(`nobody=http://127.0.0.1:${await freePort()}`);
    const gone = new RelayClient(endpoint!, { timeoutMs: 5_000, attempts: 1 });
    try {
      await expect(gone.delivered({})).rejects.toMatchObject({ status: 502, code: "relay_failed" });
    } finally {
      await gone.close();
    }
  });
});
