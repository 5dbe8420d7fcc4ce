/** The composition root builds the Zcash scanner only from LIGHTWALLETD_URL plus an injected compact-block source factory. */
import { describe, expect, it } from "vitest";
import { startTestApp } from "../../helpers/app.js";
import { TestCompactChain } from "./compact-chain.js";

describe("Zcash watch wiring in createApp", () => {
  it("LIGHTWALLETD_URL + a source factory: Zcash watches are available, the source is closed with the app", async () => {
    const chain = new TestCompactChain(100);
    let closed = 0;
    chain.close = () => void closed++;
    const urls: string[] = [];
    const t = await startTestApp(
      { LIGHTWALLETD_URL: "http://127.0.0.1:9067", ZCASH_NETWORK: "regtest" },
      { compactBlockSource: (url) => (urls.push(url), chain) },
    );
    try {
      expect(urls).toEqual(["http://127.0.0.1:9067"]);
      const zcash = t.app.watch.scanners.zcash!;
      expect(zcash.chain).toBe("zcash");
      expect(await zcash.defaultStartHeight()).toBe(100);
      const res = await fetch(`${t.url}/v1/private/info`);
      expect(res.status).toBe(200);
      expect(((await res.json()) as { chains: string[] }).chains).toContain("zcash");
    } finally {
      await t.close();
    }
    expect(closed).toBe(1);
  });

  it("without the URL there is no Zcash scanner; with it and no factory, the lightwalletd gRPC client is the source", async () => {
    const a = await startTestApp({ ZCASH_NETWORK: "regtest" }, { compactBlockSource: () => new TestCompactChain(1) });
    const b = await startTestApp({ LIGHTWALLETD_URL: "http://127.0.0.1:9067" });
    try {
      expect(a.app.watch.scanners.zcash).toBeUndefined();
      expect(b.app.watch.scanners.zcash?.chain).toBe("zcash");
    } finally {
      await a.close();
      await b.close();
    }
  });
});
