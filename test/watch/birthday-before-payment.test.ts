/**
 * Issue 23, item 5: a watch whose birthdayHeight lies far above the chain tip
 * (99,999,999 with the devnet tip near 180) was charged $0.10 and made a watch
 * that could never fire. A birthday more than the documented margin above the
 * tip (about three days of blocks: Monero 2160, Zcash 3456) is now refused
 * with 400 invalid_height before the 402, by the same check the historical
 * scan uses; a paying client gets the same 400 and is charged nothing; the
 * coin-paid create (watch-crypto) refuses it before making a watch or a
 * quote. A birthday within the margin still reaches the 402 (and a coin watch
 * is made).
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startWatchStack, type WatchStack } from "../helpers/stack.js";
import { BIRTHDAY_MARGIN_BLOCKS } from "../../src/watch/service.js";

describe("birthdayHeight above the tip is refused before payment", () => {
  let s: WatchStack;
  const balance = () => s.devnet.evm.usdcBalanceOf(s.devnet.payers[0]!.address);
  const count = async (table: "payments" | "watches" | "coin_quotes") =>
    Number((await s.t.db.db.selectFrom(table).select((eb) => eb.fn.countAll<string>().as("n")).executeTakeFirstOrThrow()).n);

  beforeAll(async () => {
    s = await startWatchStack({ https: false });
    s.devnet.monerod.mine(3);
  });
  afterAll(async () => s?.close());

  const moneroBody = (birthdayHeight: number) => {
    const alice = s.wallets[0]!;
    return { chain: "monero", address: alice.address, viewKey: alice.viewKey, webhookUrl: s.receiver.hookUrl("/birthday"), birthdayHeight };
  };

  it("POST /v1/private/watch: 99,999,999 is a 400 without a 402, and a paying client is charged nothing", async () => {
    const tip = s.devnet.monerod.height();
    const [payments, watches, usdc] = [await count("payments"), await count("watches"), balance()];

    const plain = await s.call("POST", "/v1/private/watch", { body: moneroBody(99_999_999) });
    expect(plain.status, JSON.stringify(plain.json)).toBe(400);
    expect(plain.json.error.code).toBe("invalid_height");
    expect(plain.json.error.details).toMatchObject({ birthday_height: 99_999_999, max_height: expect.any(Number), tip_height: expect.any(Number) });
    expect(plain.json.error.details.tip_height).toBeGreaterThanOrEqual(tip - 1);
    expect(plain.headers.get("payment-required")).toBeNull();

    const paying = await s.paid("/v1/private/watch", moneroBody(99_999_999));
    expect(paying.status, JSON.stringify(paying.json)).toBe(400);
    expect(paying.json.error.code).toBe("invalid_height");
    expect(paying.headers.get("payment-response")).toBeNull();
    expect(balance()).toBe(usdc);
    expect(await count("payments")).toBe(payments);
    expect(await count("watches")).toBe(watches);
  });

  it("the margin is the boundary: tip + margin reaches the 402, one block more is refused", async () => {
    const refused = await s.call("POST", "/v1/private/watch", { body: moneroBody(99_999_999) });
    const tip = refused.json.error.details.tip_height as number;
    const margin = BIRTHDAY_MARGIN_BLOCKS.monero;
    expect(refused.json.error.details.max_height).toBe(tip + margin);

    const within = await s.call("POST", "/v1/private/watch", { body: moneroBody(tip + margin) });
    expect(within.status, JSON.stringify(within.json)).toBe(402);
    expect(within.headers.get("payment-required")).toBeTruthy();
    const atTip = await s.call("POST", "/v1/private/watch", { body: moneroBody(tip) });
    expect(atTip.status, JSON.stringify(atTip.json)).toBe(402);

    const beyond = await s.call("POST", "/v1/private/watch", { body: moneroBody(tip + margin + 1) });
    expect(beyond.status, JSON.stringify(beyond.json)).toBe(400);
    expect(beyond.json.error.code).toBe("invalid_height");
    expect(beyond.headers.get("payment-required")).toBeNull();
  });

  it("Zcash uses its own margin against its own tip", async () => {
    const wallet = s.devnet.zcashWallets()[0]!;
    const tip = s.devnet.zcashChain!.tip().height;
    const body = (birthdayHeight: number) => ({ chain: "zcash", address: wallet.address, viewKey: wallet.ufvk, webhookUrl: s.receiver.hookUrl("/zec-birthday"), birthdayHeight });
    const far = await s.call("POST", "/v1/private/watch", { body: body(99_999_999) });
    expect(far.status, JSON.stringify(far.json)).toBe(400);
    expect(far.json.error).toMatchObject({ code: "invalid_height", details: { tip_height: tip, max_height: tip + BIRTHDAY_MARGIN_BLOCKS.zcash } });
    expect(far.headers.get("payment-required")).toBeNull();
    const near = await s.call("POST", "/v1/private/watch", { body: body(tip + BIRTHDAY_MARGIN_BLOCKS.zcash) });
    expect(near.status, JSON.stringify(near.json)).toBe(402);
  });

  it("POST /v1/private/watch-crypto: refused before any watch or quote is made; a valid birthday still makes one", async () => {
    const [watches, quotes] = [await count("watches"), await count("coin_quotes")];
    // (a valid create may add the service's own coin-receiving watch too, so the control checks its own row)
    const far = await s.call("POST", "/v1/private/watch-crypto", { body: moneroBody(99_999_999) });
    expect(far.status, JSON.stringify(far.json)).toBe(400);
    expect(far.json.error.code).toBe("invalid_height");
    expect(await count("watches")).toBe(watches);
    expect(await count("coin_quotes")).toBe(quotes);

    const ok = await s.call("POST", "/v1/private/watch-crypto", { body: moneroBody(s.devnet.monerod.height()) });
    expect(ok.status, JSON.stringify(ok.json)).toBe(201);
    const made = await s.t.db.db.selectFrom("watches").select(["id", "start_height"]).where("id", "=", ok.json.watchId).executeTakeFirst();
    expect(made?.start_height).toBe(s.devnet.monerod.height());
  });
});
