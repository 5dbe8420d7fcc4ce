/**
 * The fee formulas against REAL Ethereum mainnet headers, one parent/child
 * pair per fee era we could source, plus the blob schedule's activation
 * times against the mainnet client configuration.
 *
 * Each header is kept as its raw RLP, exactly as published in
 * ethereum/portal-spec-tests (the Portal network's test vectors of mainnet
 * history), tests/mainnet/history/block_data/block-data-<number>.yaml, field
 * `header`, at commit 938744a83d4f85dcdcf9bac12b798e15f2eac2b1. The test
 * decodes it and checks keccak256(rlp) against the block's canonical hash
 * and the child's parentHash against the parent's hash, so the numbers used
 * below are provably the chain's own, not transcriptions. The hash of the
 * first Prague block is also go-ethereum's KeepPostPrague history-pruning
 * point (mainnet block 22431084, 0x50c8cab7…).
 *
 * Eras covered, with what each pair checks:
 *   - London (EIP-1559, no blobs): 15537393 → 15537394 (the Merge block) and
 *     17034869 → 17034870 (the Shanghai block): the child's base fee;
 *   - Cancun: 19426586 → 19426587, the first Cancun block (timestamp
 *     1710338135, Cancun's activation): base fee, the first excess blob gas (0
 *     from a parent without blob fields) and the schedule row switching on
 *     exactly at that timestamp;
 *   - Prague: 22431083 → 22431084, the first Prague block (1746612311): base
 *     fee, and an excess blob gas that only the CHILD's row (Prague target, 6
 *     blobs) reproduces: the parent's Cancun row would give 50,855,936 instead
 *     of the real 50,462,720.
 *
 * Not covered, because no citable source of real header values was found
 * (searched: client and library test fixtures (go-ethereum, reth, nethermind,
 * erigon, ethereumjs, alloy, viem, helios, trin, portal-spec-tests), relay and
 * indexer fixtures, EIP discussions, issue threads and web pages): Osaka
 * (Fusaka, first block 23935694), BPO1 (first block 23975778) and BPO2 (first
 * block 24179383). A second search (Nov 2026) also covered: the newest
 * portal-spec-tests snapshot (still 938744a, Nov 2025: no block past
 * 22869878), ethrex/ethrex-replay caches (Hoodi only; mainnet caches are
 * release assets, not in any repository), zkEVM benchmark repositories
 * (eth-act, lambda_vm: results and release-hosted fixtures only),
 * corpus-core/colibri-stateless recorded beacon data (slots before Fulu),
 * Dune spellbook blob models and PR threads (formulas and single prices, no
 * headers), and exact-string searches for post-Fusaka header content (hex
 * block numbers 0x16d…-0x172…, timestamps 0x693…-0x695…, the 60M gas limit
 * in JSON and in RLP, Fulu beacon JSON, the first Osaka block's hash from
 * go-ethereum's KeepPostOsaka point). Only isolated single headers turned up
 * (e.g. mainnet 24491136, 24625492 and 25070199 in third-party unit tests),
 * and a hash-chain search for each one's parent and child found neither, so
 * there is no pair to check a formula against: the EIP-7918 branch of these
 * eras is covered by the computed vectors of fees.test.ts only. A third
 * search (Nov 2026) added: explorer and blob-explorer pages (Etherscan,
 * Blobscan, Blockscout) and RPC providers' example responses
 * (eth_getBlockByNumber, eth_feeHistory: all pre-Fusaka or other chains);
 * Fulu execution-payload fixtures; the Blockweaver dataset ledger (it names
 * consecutive mainnet blocks 25101687-25101689 whose rows live in Parquet
 * files outside any repository); StarkWare's base-layer blob-fee sanity test
 * (Sepolia after Fusaka, mainnet only before it); ethrex's prover caches
 * (Hoodi, before its Osaka). None holds a post-Fusaka mainnet parent/child
 * pair.
 */
import { describe, expect, it } from "vitest";
import { fromRlp, hexToBigInt, keccak256, type Hex } from "viem";
import { blobBaseFee, blobParamsAt, forkSchedule, nextBaseFee, nextExcessBlobGas, projectFees, type FeeHeader } from "../../../src/chains/ethereum/fees.js";

/** Raw header RLP by block number (ethereum/portal-spec-tests @ 938744a, block_data/block-data-<n>.yaml). */
const RLP: Record<number, Hex> = {
  // block-data-15537393.yaml: the last proof-of-work block.
  15537393: "0xf9021ba02b3ea3cd4befcab070812443affb08bf17a91ce382c714a536ca3cacab82278ba01dcc4de8dec75d7aab85b567b6ccd41ad312451b948a7413f0a142fd40d4934794829bd824b016326a401d083b33d092293333a830a04919dafa6ac8becfbbd0c2808f6c9511a057c21e42839caff5dfb6d3ef514951a0dd5eec02b019ff76e359b09bfa19395a2a0e97bc01e70d8d5491e640167c96a8a0baa842cfd552321a9c2450576126311e071680a1258032219c6490b663c1dab8b90100000004000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000800000000000000000000000080000000000000000000000000000000000000000000000000200000000000000000008000000000040000000000000100000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000084000000000010020000000000000000000000000000000000020000000200000000200000000000000000000000000000000000000000400000000000000000000000008727472e1db3626a83ed14f18401c9c3808401c9a205846322c96292e4b883e5bda9e7a59ee4bb99e9b1bc460021a04cbec03dddd4b939730a7fe6048729604d4266e82426d472a2b2024f3cc4043f8862a3ee77461d4fc9850a1a4e5f06",
  // block-data-15537394.yaml: the first proof-of-stake block (the Merge).
  15537394: "0xf90202a055b11b918355b1ef9c5db810302ebad0bf2544255b530cdce90674d5887bb286a01dcc4de8dec75d7aab85b567b6ccd41ad312451b948a7413f0a142fd40d4934794eee27662c2b8eba3cd936a23f039f3189633e4c8a040c07091e16263270f3579385090fea02dd5f061ba6750228fcc082ff762fda7a01ea1746468686159ce730c1cc49a886721244e5d1fa9a06d6d4196b6f013c82ca0928073fb98ce316265ea35d95ab7e2e1206cecd85242eb841dbbcc4f568fca4bb90100ffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff8083ed14f28401c9c3808401c9811e846322c97380a0a86c2e601b6c44eb4848f7d23d9df3113fbcac42041c49cbed5000cb4f118777880000000000000000850b5d68e0a3",
  // block-data-17034869.yaml: the last block before Shanghai.
  17034869: "0xf90213a08514dc16265e910acc5d6d776f55c9cfbcec1320c816546415dc35b021801f63a01dcc4de8dec75d7aab85b567b6ccd41ad312451b948a7413f0a142fd40d49347941f9090aae28b8a3dceadf281b0f12828e676c326a08b8da1a447bed1a4019708ea1e4114383d42f40e1f6e85c21889b6fbcffdd295a0749c345c3827e94c7fcd112a367a723f872b01b66daf39e7acfbcaca0a69f0eca0ac8092ad7a39a1b0742cc306986283e68ee91c45ee470094e8bc2bd3d222494fb9010000a020c54d40c941102b81a7be3423b30060490380108f903083522294d883205996911ae1c0802852900b60d60e81a086cd11508843f80552f4538481767145080412004b04992a691b520802c488f8a34002b0354e180348085c4480604da0926020704a0342138ec0722d40f019e1a41c2c555813150042c1c2d0803c1902180083c00701045004408a510b0286720c60cc815169100884132651e21a1c288a08015880026400699041d0551615e48495e86460a38d0a052a1c843108765144f2c026c400da196d0d0d245603f0624008528301ca0a1ce123002b5020e034485ca3090a0640804c5495dc639528208f636032593a08cc724898138cb120b280840103ee758401c9c3808380f0ca846437304b917273796e632d6275696c6465722e78797aa0c5ceca9075886de0874fadb93a6d790cd4aff9f4becb2c69d354128da0d5efb288000000000000000085046d9a8492",
  // block-data-17034870.yaml: the first Shanghai block.
  17034870: "0xf9023da0c2558f8143d5f5acb8382b8cb2b8e2f1a10c8bdfeededad850eaca048ed85d8fa01dcc4de8dec75d7aab85b567b6ccd41ad312451b948a7413f0a142fd40d4934794388c818ca8b9251b393131c08a736a67ccb19297a07fd42f5027bc18315b3781e65f19e4c8828fd5c5fce33410f0fb4fea0b65541fa06f235d618461c08943aa5c23cc751310d6177ab8a9b9a7b66ffa637d988680e6a0e0ac34bafdd757bcca2dea27a3fc5870dd0836998877e29361c1fc55e19416ecb90100b06769bc11f4d7a51a3bc4bed59367b75c32d1bd79e5970e73732ac0eed0251af0e2abc8811fc1b4c5d45a4a4eb5c5af9e73cc9a8be6ace72faadc03536d6b69fcdf80116fd89f7efbdbf38ff957e8f6ae83ccac60cf4b7c8b1c9487bebfa8ed6e42297e17172d5b678dd3f283b22f49bbf4a0565eb93d9d797b2f9a0adaff9813af53d6fffa71d5a6fb056ab73ca87659dc97c19f99839c6c3138e527161b4dfee8b1f64d42f927abc745f3ff168e8e9510e2e079f4868ba8ff94faf37c9a7947a43c1b4c931dfbef88edeb2d7ede5ceaebc85095cfbbd206646def0138683b687fa63fdf22898260d616bc714d698bc5748c7a5bff0a4a32dd797596a794a080840103ee768401c9c3808401c9bfe2846437306f99d883010b05846765746888676f312e32302e32856c696e7578a0812ed704cc408c435c7baa6e86296c1ac654a139ae8c4a26d6460742b951d4f988000000000000000085042fbae6d5a056e81f171bcc55a6ff8345e692c0f86e5b48e01b996cadc001622fb5e363b421",
  // block-data-19426586.yaml: the last block before Cancun.
  19426586: "0xf9023ba04fcd7915716bdcf8ba963e591577721000dd2bf7ef81f412d8f72f8146783909a01dcc4de8dec75d7aab85b567b6ccd41ad312451b948a7413f0a142fd40d4934794e94f1fa4f27d9d288ffea234bb62e1fbc086ca0ca033e670fd10cbfcc83ac2ccd320628a0c9f675eff1d77c090d4dc709c329a0fdca0d3a2720a46c43f41eced8190fef8abbb9e1683e7151ee9d4df1a65cd6eca04f8a0896e3488a7c774293b15e2d0ccd1f9f9af135c8b6c4ab2eb68d3c854f1fe7567b90100326b545af359d63d510247b0805396203041051438628490042981210df844d43306d109e8cc0461fae87e16492a834853998660d8a2698f03076326582c28810a07d53c41415e8ffcc2e00b893162e600d91bd595640b710960c45081e4da801382d03c266e20a6b1ccd15285102e412c4a0866a1362589b12f4154624d82040a18b27102b4346c95c45558eb4183651041aca1ef85888d4a7905f0f2d0ac8aeaca11711a0269838237d8c69a392d60878d8d1b2853040b01b1618c989e96744efc2033a4dce2602e600aa45039954f6940a4b358194814e0b0938b5b25724ce6ffb9498e913ec293e5d7839a450e8cc437fb0544c8644318091919866e7487808401286d1a8401c9c38083f072438465f1b04b98546974616e2028746974616e6275696c6465722e78797a29a0779dc364d9d6a00d14d96155607a69ebd98644bbc9368f18cbfe5ea8a24151af880000000000000000850e557a89f8a0eab68f95d43cd100338e402d1bc7da630bbaf1187ae071828ef7603140485262",
  // block-data-19426587.yaml: the first Cancun block.
  19426587: "0xf9025fa0db672c41cfd47c84ddb478ffde5a09b76964f77dceca0e62bdf719c965d73e7fa01dcc4de8dec75d7aab85b567b6ccd41ad312451b948a7413f0a142fd40d4934794dae56d85ff707b3d19427f23d8b03b7b76da1006a0bd33ab68095087d81beb810b3f5d0b16050b3f798ae3978e440bab048dd78992a020cbdd2cd6113eb72dade6be7ec18fe6a7167a8a0af912a2171af909a8cda9f6a059c3691e83e0ddeafeedd07f5e30850cc6c963e85327aa1201fbe1f731ff3dbcb901000021000000000001080801008000320000000060000000000005000080c200040000100000006002440409000000010402011000890200000a201000042800440442148c0100208408004009012000200000040801644808800000600029068004012001020000002510000000020900c8122010020284000080021006000101000000401810621c0040000000001010000004800100404808000640255000002201000010002000000040c0000000000400a004000c0000884000304e00202400100402000000004204000004041008005600001000001000000003015030120012280000022020910040429204408020009000000010120000400000000400808401286d1b8401c9c380832830cd8465f1b05799d883010d0e846765746888676f312e32312e37856c696e7578a02617b147c1b3cf43a28d08d508ab2d8860c6cf40da58837676cfaaf4f9e07f62880000000000000000850e6ca77a30a06c119891018ed3a43d04197a8eb94d85f287304b8ace21b08e9f68cbd2f8de618080a0b35bb80bc5f4e3d8f19b62f6274add24dca334db242546c3024403027aaf6412",
  // block-data-22431083.yaml: the last block before Prague.
  22431083: "0xf90265a030039c8134afcaa2c23bd3aee3f9761f998061b07a5a01d459cf123d4059608ea01dcc4de8dec75d7aab85b567b6ccd41ad312451b948a7413f0a142fd40d49347944838b106fce9647bdf1e7877bf73ce8b0bad5f97a0ab350e0fe349aef68947ede26295f8946c34ce3af5e3ec76f4b26ddeef29c0e3a0ab7eae1336847da00fa377786f2f168cd0c347b741938fae190ed5b3090de09ea07940a22873a400617418affdbd9ee943fbd48821df4ccf0a0b2f4e63d73bc25db90100d3afd8566102155832975020b48073834341d52b4c09d0a8098131c16422990970224700a1080815847e19c0d81201708604ea08dc10286913a16561d9a68003c4a48b080440cd39a90b4ae9104f1477a180da11834508e00d10b4528dac81035d6a0004eb714a627883d8423c22ad7cb2088dc6d74a05b21018f0f4c98ab40000685d198c62e02450413519022401205c501e91dd30d13884296ae003bc10ea9341827831622903425db6a299d4e48b4c6acca6242804014f6a856723a8486dc8a1084f20089e8210dc86100862380015362e62e53c14554a042447c9152892b47ba0510225280a0376170832111de20f29dca0130c15c520ab9cbcc158932780840156456b840224c7ad840224ba0284681b304b98546974616e2028746974616e6275696c6465722e78797a29a080b23a2aece07ff94767c428427d8abc33535c1ea00c51cd5580683c9d55a8d3880000000000000000844b239a47a02c5d8a3b08b45f1de95810016e5f8d53797cc3d668f42acde3147f7d75e4d2c2830a00008403040000a0c979d8191d9bfacc9a167a16c770424e00202206ff928615b9f66fe7b19bb11c",
  // block-data-22431084.yaml: the first Prague block.
  22431084: "0xf90286a028fb2c1d988435955e569451c6ad772f7fb5e61cddd7463c7b60e933ed5ff237a01dcc4de8dec75d7aab85b567b6ccd41ad312451b948a7413f0a142fd40d4934794e688b84b23f322a994a53dbf8e15fa82cdb71127a049d29cd525c7a9f4a33c1e2debc7529f24757c81f689b7276b70018333761b53a06522a2eba58778c64f0facee1378ddcdb1b5927285f461f9a8314c1b5fe1e5b1a0f2260e554d7827e222789d9851f5f8a8a9bc78b1e81ea68da7314622f049924bb901001c2d14628013080620b50320a0885ae80185204a6c4841040101d009c41060fb05358520a00d00a540113a514a9e511c83350a088c22223c9281008042a800c40620120e024a19384a006b8856d324a4f0067931056c0d2c1d1072db844081406c4403ade3688228ef2e3ac201984e860e0163601130a7d2032d269401d9314008a8c14f4340130c4859105c0381a30d011902f175982858ad3c30fba23c55fa4b40003aa5c1688b4911a2e09c84e4213436420d50568100001d44080c8001d900a51c6252d429938181c431a0080b17c9342866c40c14d700853586c59a291632736c124b23800a00c6060c25d17e68a5301070438916505419a0550429469d80840156456c84022550dd839d8f6384681b305799d883010f0b846765746888676f312e32342e32856c696e7578a0ef1ed97e3e0205c73f287f22c5900944da077daaadad17f57355fe7705cf3b0588000000000000000084548795d3a0c4f495225a2ac0cd4052c3493b36e96d0efe46eb0650ed124a9627f1badcc935831200008403020000a0947d22746be643f1428031a9ab7c58776ca54e461903bb5e4ba8a73448552967a0e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855",
};

/** Canonical block hashes (22431084 is also go-ethereum's KeepPostPrague point). */
const HASH: Record<number, string> = {
  15537393: "0x55b11b918355b1ef9c5db810302ebad0bf2544255b530cdce90674d5887bb286",
  15537394: "0x56a9bb0302da44b8c0b3df540781424684c3af04d0b7a38d72842b762076a664",
  17034869: "0xc2558f8143d5f5acb8382b8cb2b8e2f1a10c8bdfeededad850eaca048ed85d8f",
  17034870: "0xe22c56f211f03baadcc91e4eb9a24344e6848c5df4473988f893b58223f5216c",
  19426586: "0xdb672c41cfd47c84ddb478ffde5a09b76964f77dceca0e62bdf719c965d73e7f",
  19426587: "0xf8e2f40d98fe5862bc947c8c83d34799c50fb344d7445d020a8a946d891b62ee",
  22431083: "0x28fb2c1d988435955e569451c6ad772f7fb5e61cddd7463c7b60e933ed5ff237",
  22431084: "0x50c8cab760b2948349c590461b166773c45d8f4858cccf5a43025ab2960152e8",
};

/** A header's fee fields from its RLP (field order of the Yellow Paper, EIP-1559, EIP-4895, EIP-4844). */
function decode(rlp: Hex): FeeHeader & { hash: string; parentHash: string } {
  const f = fromRlp(rlp, "hex") as Hex[];
  const q = (v: Hex | undefined) => (v === undefined ? null : v === "0x" ? 0n : hexToBigInt(v));
  return {
    hash: keccak256(rlp),
    parentHash: f[0]!,
    number: q(f[8])!,
    gasLimit: q(f[9])!,
    gasUsed: q(f[10])!,
    timestamp: Number(q(f[11])),
    baseFeePerGas: q(f[15])!,
    blobGasUsed: q(f[17]),
    excessBlobGas: q(f[18]),
  };
}

const header = (n: number) => decode(RLP[n]!);
const mainnet = forkSchedule(1)!;
const PAIRS = [
  [15537393, 15537394],
  [17034869, 17034870],
  [19426586, 19426587],
  [22431083, 22431084],
] as const;

describe("the mainnet headers are the chain's own", () => {
  it.each(Object.keys(RLP).map(Number))("block %i hashes to its canonical hash and carries its number", (n) => {
    const h = header(n);
    expect(h.hash).toBe(HASH[n]);
    expect(h.number).toBe(BigInt(n));
  });

  it.each(PAIRS)("%i is the parent of %i", (p, c) => {
    expect(header(c).parentHash).toBe(header(p).hash);
  });
});

describe("EIP-1559 against mainnet", () => {
  it.each(PAIRS)("base fee of the child of %i (block %i)", (p, c) => {
    const parent = header(p);
    const child = header(c);
    expect(nextBaseFee(parent)).toBe(child.baseFeePerGas);
    // The same through the projection the oracle answers with.
    expect(projectFees(parent, mainnet).nextBaseFee).toBe(child.baseFeePerGas);
  });

  it("real values: the Merge block's parent was nearly full (29,991,429 of 30M) and the fee rose 12.49 %", () => {
    const parent = header(15537393);
    expect(parent.baseFeePerGas).toBe(43_391_016_710n);
    expect(header(15537394).baseFeePerGas).toBe(48_811_794_595n);
  });
});

describe("EIP-4844 excess blob gas against mainnet, with the child's schedule row", () => {
  it("the first Cancun block: the row switches on at its timestamp and the excess starts at 0", () => {
    const parent = header(19426586);
    const child = header(19426587);
    expect(parent.excessBlobGas).toBeNull();
    expect(blobParamsAt(mainnet, parent.timestamp)).toBeNull();
    const row = blobParamsAt(mainnet, child.timestamp)!;
    expect(row.fork).toBe("cancun");
    expect(child.timestamp).toBe(row.activation);
    expect(nextExcessBlobGas(parent, row)).toBe(child.excessBlobGas);
    expect(child.excessBlobGas).toBe(0n);
    expect(blobBaseFee(child.excessBlobGas!, row)).toBe(1n);
  });

  it("the first Prague block: only the child's row (target 6 blobs) gives the real excess", () => {
    const parent = header(22431083);
    const child = header(22431084);
    const parentRow = blobParamsAt(mainnet, parent.timestamp)!;
    const childRow = blobParamsAt(mainnet, child.timestamp)!;
    expect([parentRow.fork, childRow.fork]).toEqual(["cancun", "prague"]);
    expect(child.timestamp).toBe(childRow.activation);
    expect(child.excessBlobGas).toBe(50_462_720n);
    expect(nextExcessBlobGas(parent, childRow)).toBe(child.excessBlobGas);
    // The parent's own (Cancun) row would have been wrong by 3 blobs of target.
    expect(nextExcessBlobGas(parent, parentRow)).toBe(50_855_936n);
    // The projection the oracle makes from the parent lands on the child's values.
    const p = projectFees(parent, mainnet);
    expect(p.fork).toBe("cancun");
    expect(p.nextFork).toBe("prague");
    expect(p.nextBlobBaseFee).toBe(blobBaseFee(child.excessBlobGas!, childRow));
  });
});

describe("the fork schedule against the mainnet client configuration", () => {
  // ethereum/go-ethereum params/config.go, MainnetChainConfig: CancunTime 1710338135, PragueTime 1746612311,
  // OsakaTime 1764798551, BPO1Time 1765290071, BPO2Time 1767747671, with BlobScheduleConfig Cancun
  // (3/6, 3338477), Prague and Osaka (6/9, 5007716), BPO1 (10/15, 8346193), BPO2 (14/21, 11684671);
  // BPO1's row also in EIP-8134 (activation 1765290071, target 10, max 15, fraction 8,346,193), BPO2's in
  // EIP-8135 (activation 1767747671, target 14, max 21, fraction 11,684,671).
  it.each([
    ["cancun", 1_710_338_135, 3n, 6n, 3_338_477n, false],
    ["prague", 1_746_612_311, 6n, 9n, 5_007_716n, false],
    ["osaka", 1_764_798_551, 6n, 9n, 5_007_716n, true],
    ["bpo1", 1_765_290_071, 10n, 15n, 8_346_193n, true],
    ["bpo2", 1_767_747_671, 14n, 21n, 11_684_671n, true],
  ] as const)("%s activates at %i with target %i, max %i, fraction %i", (fork, activation, target, max, fraction, reserve) => {
    const row = mainnet.blobs.find((b) => b.fork === fork)!;
    expect(row).toEqual({ fork, activation, targetBlobs: target, maxBlobs: max, updateFraction: fraction, reservePrice: reserve });
  });

  it("the real first blocks of Cancun and Prague sit exactly on the activation timestamps", () => {
    expect(header(19426587).timestamp).toBe(1_710_338_135);
    expect(header(19426586).timestamp).toBeLessThan(1_710_338_135);
    expect(header(22431084).timestamp).toBe(1_746_612_311);
    expect(header(22431083).timestamp).toBeLessThan(1_746_612_311);
  });
});
