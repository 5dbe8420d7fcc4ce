/**
 * The private builder endpoints: the PRIVATE_RELAY_BUILDERS setting, and one
 * submission to the devnet's simulated builders over loopback (signed with
 * X-Flashbots-Signature when a key is set; a refusal is an outcome, not a
 * throw; an unreachable builder likewise).
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts";
import { BuilderClient, parsePrivateBuilders } from "../../src/relay/builders.js";
import { startDevnetPrivateBuilders, type DevnetPrivateBuilders } from "../../devnet/private-builders.js";

describe("parsePrivateBuilders", () => {
  it("reads name=url entries, #raw for eth_sendRawTransaction, and never shows credentials", () => {
    const b = parsePrivateBuilders("flashbots=https://relay.flashbots.net, titan=https://user:secret@rpc.titanbuilder.xyz/path?key=k#raw");
    expect(b.map((x) => [x.name, x.method, x.publicUrl])).toEqual([
      ["flashbots", "eth_sendBundle", "https://relay.flashbots.net"],
      ["titan", "eth_sendRawTransaction", "https://rpc.titanbuilder.xyz/path"],
    ]);
    expect(b[1]!.url).toContain("key=k");
    expect(parsePrivateBuilders(undefined)).toEqual([]);
  });

  it("refuses malformed entries", () => {
    expect(() => parsePrivateBuilders("https://relay.flashbots.net")).toThrow(/name=url/);
    expect(() => parsePrivateBuilders("a=ftp://x.example")).toThrow(/http/);
    expect(() => parsePrivateBuilders("a=https://x.example,a=https://y.example")).toThrow(/two private builders/);
    expect(() => parsePrivateBuilders("a=https://x.example#pigeon")).toThrow(/unknown method/);
  });
});

describe("BuilderClient against the devnet builders", () => {
  let d: DevnetPrivateBuilders;
  beforeAll(async () => {
    d = await startDevnetPrivateBuilders();
  });
  afterAll(async () => d?.close());

  const tx = async () =>
    privateKeyToAccount(generatePrivateKey()).signTransaction({
      type: "eip1559",
      chainId: 1337,
      nonce: 0,
      maxFeePerGas: 10n ** 10n,
      maxPriorityFeePerGas: 10n ** 9n,
      gas: 21_000n,
      to: "0x3535353535353535353535353535353535353535",
    });

  it("signs bundle requests with the service's key and targets the next blocks", async () => {
    const key = generatePrivateKey();
    const [ep] = parsePrivateBuilders(d.setting);
    const client = new BuilderClient(ep!, { signingKey: key });
    const raw = await tx();
    const before = d.byName("sim-bundles").received.length;
    const s = await client.submit(raw, 100n, 2);
    await client.close();
    expect(s).toMatchObject({ builder: "sim-bundles", accepted: true, error: null, blocks: [{ block: "100", accepted: true }, { block: "101", accepted: true }] });
    expect(s.reply).toMatch(/^0x[0-9a-f]{64}$/);
    const got = d.byName("sim-bundles").received.slice(before);
    expect(got.map((g) => g.blockNumber).sort()).toEqual(["0x64", "0x65"]);
    expect(got.every((g) => g.signer === privateKeyToAccount(key).address.toLowerCase())).toBe(true);
  });

  it("unsigned without a key; a refusal and an unreachable builder are outcomes", async () => {
    const eps = parsePrivateBuilders(d.setting);
    const raw = parsePrivateBuilders(d.setting)[1]!;
    const rawClient = new BuilderClient(raw);
    const ok = await rawClient.submit(await tx(), 1n, 1);
    expect(ok).toMatchObject({ builder: "sim-raw", method: "eth_sendRawTransaction", accepted: true });
    expect(d.byName("sim-raw").received.at(-1)!.signer).toBeNull();
    d.byName("sim-raw").setRefusing(true);
    const refused = await rawClient.submit(await tx(), 1n, 1);
    d.byName("sim-raw").setRefusing(false);
    expect(refused).toMatchObject({ accepted: false, reply: null });
    expect(refused.error).toContain("not accepting");
    await rawClient.close();
    const gone = new BuilderClient({ ...eps[0]!, url: "http://127.0.0.1:9/", publicUrl: "http://127.0.0.1:9" }, { timeoutMs: 1000 });
    const down = await gone.submit(await tx(), 1n, 1);
    await gone.close();
    expect(down.accepted).toBe(false);
    expect(down.error).toBeTruthy();
  });
});
