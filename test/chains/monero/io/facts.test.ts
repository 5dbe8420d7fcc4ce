import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ManualClock } from "../../../../src/core/clock.js";
import { ServiceError } from "../../../../src/core/errors.js";
import { MoneroDaemonClient, createMoneroDaemon } from "../../../../src/chains/monero/daemon-client.js";
import {
  formatXmr,
  moneroFeeEstimateFacts,
  moneroFeeFacts,
  moneroHealth,
  moneroHeightFacts,
  moneroLastBlockFacts,
  moneroMempoolFacts,
  parseXmr,
  quantizedFee,
} from "../../../../src/chains/monero/facts.js";
import { moneroQuestions } from "../../../../src/oracle/questions/monero.js";
import type { QuestionDef } from "../../../../src/oracle/question.js";
import { startTestMonerod } from "./helpers.js";

type Monerod = Awaited<ReturnType<typeof startTestMonerod>>;

describe("Monero oracle facts against the simulated monerod", () => {
  let d: Monerod;
  let client: MoneroDaemonClient;
  const clock = new ManualClock();
  let q: Map<string, QuestionDef>;

  beforeAll(async () => {
    d = await startTestMonerod({ initialBlocks: 6 });
    client = new MoneroDaemonClient({ url: d.url, attempts: 1 });
    q = new Map(moneroQuestions({ daemon: client, clock }).map((x) => [x.path, x]));
  });
  afterAll(async () => {
    await client.close();
    await d.close();
  });

  const ask = async (path: string) => {
    const def = q.get(path)!;
    const answer = await def.answerQuestion({});
    expect(def.answer.strict().parse(answer)).toEqual(answer); // the declared schema describes the whole real answer
    return answer;
  };

  it("declares the five xmr questions, all sourced from monero", () => {
    expect([...q.keys()].sort()).toEqual(["xmr/fee", "xmr/fee-estimate", "xmr/height", "xmr/last-block", "xmr/mempool"]);
    for (const def of q.values()) {
      expect(def.source).toBe("monero");
      expect(def.params).toEqual([]);
      expect(def.available()).toBe(true);
    }
  });

  it("xmr/height: top height, block count, synchronized", async () => {
    const a = await ask("xmr/height");
    expect(a).toMatchObject({ height: d.height(), block_count: d.height() + 1, target_height: d.height(), synchronized: true, blocks_behind: 0, network: "testnet" });
  });

  it("xmr/mempool: counts pool transactions", async () => {
    expect(await ask("xmr/mempool")).toMatchObject({ tx_count: 0 });
    d.send(d.wallets[0]!.address, 1_000n);
    d.send(d.wallets[1]!.address, 2_000n);
    expect(await ask("xmr/mempool")).toMatchObject({ tx_count: 2 });
    d.mine(1);
    expect(await ask("xmr/mempool")).toMatchObject({ tx_count: 0 });
  });

  it("xmr/fee: per byte and per kB (1024 bytes), piconero and XMR strings", async () => {
    expect(await ask("xmr/fee")).toEqual({
      fee_per_byte_piconero: "20000",
      fee_per_kb_piconero: "20480000",
      fee_per_byte_xmr: "0.00000002",
      fee_per_kb_xmr: "0.00002048",
      quantization_mask_piconero: "10000",
      priority: "slow",
    });
  });

  it("xmr/fee-estimate: 1500-byte tx at four priorities, rounded up to the quantization mask", async () => {
    const a = await ask("xmr/fee-estimate");
    expect(a).toMatchObject({
      tx_size_bytes: 1500,
      slow: { piconero: "30000000", xmr: "0.00003", per_byte_piconero: "20000" },
      normal: { piconero: "120000000", xmr: "0.00012" },
      fast: { piconero: "480000000", xmr: "0.00048" },
      fastest: { piconero: "6000000000", xmr: "0.006" },
    });
  });

  it("xmr/last-block: hash, timestamp and age from the injected clock", async () => {
    const header = await client.getLastBlockHeader();
    clock.set((header.timestamp + 75) * 1000);
    const a = await ask("xmr/last-block");
    expect(a).toMatchObject({ height: d.height(), hash: header.hash, timestamp: header.timestamp, age_s: 75, difficulty: "120000", tx_count: 2, reward_xmr: "0.60006" });
    expect((a as { size: number }).size).toBeGreaterThan(0);
  });

  it("the plain fact functions give exactly the oracle's answers", async () => {
    clock.set(Date.UTC(2026, 0, 1));
    expect(await moneroHeightFacts(client)).toEqual(await ask("xmr/height"));
    expect(await moneroMempoolFacts(client)).toEqual(await ask("xmr/mempool"));
    expect(await moneroFeeFacts(client)).toEqual(await ask("xmr/fee"));
    expect(await moneroFeeEstimateFacts(client)).toEqual(await ask("xmr/fee-estimate"));
    expect(await moneroLastBlockFacts(client, clock)).toEqual(await ask("xmr/last-block"));
  });

  it("health: configured and available with the height", async () => {
    expect(await moneroHealth(client)).toMatchObject({ configured: true, available: true, height: d.height(), synchronized: true, network: "testnet" });
  });
});

describe("facts when the daemon is down or absent", () => {
  it("down: 502 chain_rpc_failed, never stale data; availability and health say so", async () => {
    const d = await startTestMonerod();
    const client = new MoneroDaemonClient({ url: d.url, attempts: 1 });
    const [height] = moneroQuestions({ daemon: client, clock: new ManualClock() });
    await height!.answerQuestion({});
    await d.close();
    const err = await height!.answerQuestion({}).catch((e: unknown) => e);
    expect((err as ServiceError).status).toBe(502);
    expect((err as ServiceError).code).toBe("chain_rpc_failed");
    expect(height!.available()).toBe(false);
    const h = await moneroHealth(client);
    expect(h).toMatchObject({ configured: true, available: false });
    expect(h.error).toBeTruthy();
    await client.close();
  });

  it("absent: 503 chain_not_configured; health says not configured", async () => {
    const daemon = createMoneroDaemon(undefined);
    for (const def of moneroQuestions({ daemon, clock: new ManualClock() })) {
      expect(def.available()).toBe(false);
      const err = await def.answerQuestion({}).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(ServiceError);
      expect((err as ServiceError).status).toBe(503);
      expect((err as ServiceError).code).toBe("chain_not_configured");
    }
    expect(await moneroHealth(daemon)).toEqual({ configured: false, available: false });
  });
});

describe("XMR units", () => {
  it("formats and parses exactly", () => {
    expect(formatXmr(0n)).toBe("0");
    expect(formatXmr(1n)).toBe("0.000000000001");
    expect(formatXmr(1_500_000_000_000n)).toBe("1.5");
    expect(formatXmr(18446744073709551615n)).toBe("18446744.073709551615");
    expect(parseXmr("0.25")).toBe(250_000_000_000n);
    expect(parseXmr("1.000000000001")).toBe(1_000_000_000_001n);
    expect(parseXmr(".5")).toBe(500_000_000_000n);
    expect(parseXmr("12")).toBe(12_000_000_000_000n);
    for (const bad of ["", ".", "1e3", "-1", "0.0000000000001", "1,5", "abc", "0x10"]) {
      expect(() => parseXmr(bad), bad).toThrow(ServiceError);
    }
  });

  it("round-trips every piconero amount", async () => {
    const fc = (await import("fast-check")).default;
    fc.assert(fc.property(fc.bigInt({ min: 0n, max: (1n << 64n) - 1n }), (n) => parseXmr(formatXmr(n)) === n));
  });

  it("quantizedFee rounds up to the mask", () => {
    expect(quantizedFee(1500n, 20_001n, 10_000n)).toBe(30_010_000n);
    expect(quantizedFee(1500n, 20_000n, 10_000n)).toBe(30_000_000n);
    expect(quantizedFee(1n, 1n, 0n)).toBe(1n);
  });
});
