/**
 * `vigil monero scan-tx` takes the subaddress look-ahead from its input; one
 * outside 1..MAX_LOOKAHEAD_KEYS keys is refused with invalid_lookahead (exit
 * 1, one error line) before any key is derived, and one inside it is scanned with.
 */
import { describe, expect, it } from "vitest";
import { runMoneroCli } from "../../../src/chains/monero/scan-tx-cli.js";
import { MAX_LOOKAHEAD_KEYS } from "../../../src/chains/monero/keys.js";
import { buildTransfer, seededRng } from "../../../devnet/monero-sender.js";
import { makeWallet } from "./helpers.js";
import { runOnStreams } from "../../helpers/cli-streams.js";

const run = (input: unknown) => runOnStreams((io) => runMoneroCli(["scan-tx"], io), JSON.stringify(input));

describe("vigil monero scan-tx: the look-ahead", () => {
  const w = makeWallet("cli-lookahead");
  const tx = buildTransfer({ destinations: [{ address: w.sub(0, 1), amount: 7n }], rng: seededRng("cli-lookahead") });
  const scan = (lookahead: { accounts: number; minors: number }) => run({ hex: tx.hex, address: w.address, viewKey: w.viewSecretHex, lookahead });

  it("refuses no keys at all, or more than the limit, with invalid_lookahead", async () => {
    for (const lookahead of [{ accounts: 0, minors: 10 }, { accounts: 1, minors: 0 }, { accounts: 2, minors: MAX_LOOKAHEAD_KEYS / 2 + 1 }]) {
      const r = await scan(lookahead);
      expect(r.code, JSON.stringify(lookahead)).toBe(1);
      expect(r.out).toBe("");
      expect(JSON.parse(r.err).error.code, JSON.stringify(lookahead)).toBe("invalid_lookahead");
    }
  });

  it("scans with a look-ahead inside the range", async () => {
    const r = await scan({ accounts: 1, minors: 2 });
    expect(r.code, r.err).toBe(0);
    expect(JSON.parse(r.out).outputs).toMatchObject([{ amount: "7", subaddress: { major: 0, minor: 1 } }]);
  });
});
