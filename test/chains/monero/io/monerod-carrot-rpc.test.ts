/**
 * The devnet monerod's answers across the Carrot fork, over HTTP: get_block
 * and the header methods report major_version 17 from the fork height, with
 * the FCMP++ tree in get_block's json and blob; /devnet/send builds Carrot by
 * default from the fork and legacy on request ("kind"); /get_transactions
 * serves the Carrot transactions (full and pruned, as_json and hex) that the
 * scanner's own parsers read alike; a restart on the same DATA_DIR reloads
 * the v17 chain.
 */
import { afterAll, describe, expect, it } from "vitest";
import { loadConfig } from "../../../../src/config.js";
import { devnetOptions } from "../../../../devnet/index.js";
import { parseBlockBlob, parseTransactionBlob, txFromDaemonJson } from "../../../../src/chains/monero/tx-binary.js";
import { startTestMonerod } from "./helpers.js";

const FORK = 3;
let d: Awaited<ReturnType<typeof startTestMonerod>>;

async function post(path: string, body: unknown): Promise<{ status: number; json: any }> {
  const r = await fetch(`${d.url}${path}`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body) });
  return { status: r.status, json: await r.json() };
}
const rpc = async (method: string, params: Record<string, unknown> = {}) => (await post("/json_rpc", { jsonrpc: "2.0", id: "1", method, params })).json.result;

afterAll(async () => {
  await d?.close();
});

describe("devnet monerod RPC across the Carrot fork", () => {
  it("headers and get_block say 17 from the fork, with the FCMP++ tree; /devnet/send picks the kind by height unless told", async () => {
    d = await startTestMonerod({ initialBlocks: 2, carrotForkHeight: FORK, persistChain: true });
    const early = await post("/devnet/send", { address: d.wallets[0]!.address, amount_piconero: "1000", kind: "carrot" });
    expect(early).toMatchObject({ status: 400, json: { error: { code: "invalid_kind" } } });
    expect((await post("/devnet/send", { address: d.wallets[0]!.address, amount_piconero: "1000", kind: "ring" })).status).toBe(400);
    expect((await post("/devnet/send", { address: d.wallets[0]!.address, amount_piconero: "1000" })).json.kind).toBe("legacy");
    d.mine(1); // height 2
    const carrot = (await post("/devnet/send", { address: d.wallets[1]!.subaddresses[0]!.address, amount_piconero: "2000" })).json;
    const legacy = (await post("/devnet/send", { address: d.wallets[1]!.address, amount_piconero: "3000", kind: "legacy" })).json;
    expect([carrot.kind, legacy.kind]).toEqual(["carrot", "legacy"]);
    d.mine(1); // height 3 = the fork

    const headers = (await rpc("get_block_headers_range", { start_height: 0, end_height: FORK })).headers as { major_version: number; minor_version: number }[];
    expect(headers.map((h) => [h.major_version, h.minor_version])).toEqual([[16, 16], [16, 16], [16, 16], [17, 17]]);
    expect((await rpc("get_last_block_header")).block_header.major_version).toBe(17);
    expect((await rpc("get_block_header_by_height", { height: FORK - 1 })).block_header.major_version).toBe(16);

    const block = await rpc("get_block", { height: FORK });
    expect(block.block_header.major_version).toBe(17);
    expect([...block.tx_hashes].sort()).toEqual([carrot.txid, legacy.txid].sort());
    const json = JSON.parse(block.json);
    expect(json).toMatchObject({ major_version: 17, minor_version: 17, fcmp_pp_n_tree_layers: expect.any(Number), fcmp_pp_tree_root: expect.stringMatching(/^[0-9a-f]{64}$/) });
    expect(json.miner_tx.vout.every((o: { target: object }) => "carrot_v1" in o.target)).toBe(true);
    const parsed = parseBlockBlob(Buffer.from(block.blob, "hex"));
    expect(parsed.ok && [parsed.value.hash, parsed.value.fcmpTree]).toEqual([block.block_header.hash, { nTreeLayers: json.fcmp_pp_n_tree_layers, treeRoot: json.fcmp_pp_tree_root }]);
    const below = JSON.parse((await rpc("get_block", { height: FORK - 1 })).json);
    expect(below.fcmp_pp_tree_root).toBeUndefined();
  });

  it("/get_transactions serves a Carrot transfer full and pruned; blob and as_json read the same", async () => {
    const block = await rpc("get_block", { height: FORK });
    for (const prune of [false, true]) {
      const txs = (await post("/get_transactions", { txs_hashes: block.tx_hashes, decode_as_json: true, prune })).json.txs as { tx_hash: string; as_json: string; as_hex: string; pruned_as_hex: string }[];
      const kinds = txs.map((t) => {
        const fromJson = txFromDaemonJson(t.as_json, t.tx_hash);
        const fromBlob = parseTransactionBlob(Buffer.from(prune ? t.pruned_as_hex : t.as_hex, "hex"));
        if (!fromJson.ok || !fromBlob.ok) throw new Error("unreadable");
        expect({ ...fromBlob.value, txid: t.tx_hash }).toEqual(fromJson.value);
        if (!prune) expect(fromBlob.value.txid).toBe(t.tx_hash);
        const j = JSON.parse(t.as_json);
        expect(j.rctsig_prunable === undefined).toBe(prune);
        if (!prune && j.rct_signatures.type === 7) expect(j.rctsig_prunable).toMatchObject({ nbp: 1, reference_block: FORK - 1, n_tree_layers: expect.any(Number), fcmp_pp: expect.stringMatching(/^[0-9a-f]+$/) });
        return fromJson.value.rctType;
      });
      expect(kinds.sort()).toEqual([6, 7]);
    }
  });

  it("DEVNET_MONERO_CARROT_HEIGHT reaches the devnet's options; unset or invalid, no fork / refused", () => {
    expect(devnetOptions(loadConfig({ DEVNET_MONERO_CARROT_HEIGHT: "1700" })).moneroCarrotHeight).toBe(1700);
    expect(devnetOptions(loadConfig({})).moneroCarrotHeight).toBeUndefined();
    expect(() => loadConfig({ DEVNET_MONERO_CARROT_HEIGHT: "0" })).toThrow();
    expect(() => loadConfig({ DEVNET_MONERO_CARROT_HEIGHT: "1.5" })).toThrow();
  });

  it("a restart on the same DATA_DIR reloads the v17 chain", async () => {
    const tip = await rpc("get_last_block_header");
    await d.close();
    d = await startTestMonerod({ dataDir: d.dataDir, carrotForkHeight: FORK, persistChain: true });
    expect((await rpc("get_last_block_header")).block_header).toMatchObject({ hash: tip.block_header.hash, height: FORK, major_version: 17 });
    d.mine(1);
    expect((await rpc("get_last_block_header")).block_header.major_version).toBe(17);
  });
});
