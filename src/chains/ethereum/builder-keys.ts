/**
 * The reviewed default table of builder BLS keys → names, shipped so that a
 * relay's `builder_pubkey` is named without any setting. Every entry carries
 * the source it was copied from; nothing here is inferred from a key's
 * prefix or from block extra data. BUILDER_PUBKEYS extends the table and, for
 * a key listed in both, overrides its name (an operator who reviewed a newer
 * key page wins).
 *
 * Review rule: a key enters only with a citable source (a builder's own key
 * page, or a dataset that publishes the mapping), one source per entry, the
 * name as that source gives it (spelled as the table already spells that
 * builder, so one builder has one name). A key listed by several sources
 * keeps the first one below. Keys go stale as builders rotate them; a stale
 * key names nothing wrongly, it just stops matching.
 *
 * Sources, in table order: mevboost.pics (the MEV-Boost dashboard); the
 * builders' own key pages (Titan, bloXroute); the builder → key table of
 * the IMC 2023 paper "Ethereum's Proposer-Builder Separation: Promises and
 * Realities" (Heimbach, Kiffer, Ferreira Torres, Wattenhofer), whose data
 * set repository lists the keys of the 17 largest builders of its period
 * (anonymous builders there are left out).
 *
 * Not covered: BuilderNet and Quasar, which publish no key list that could
 * be found (searched: buildernet.org, quasar.win, relay and dashboard
 * repositories, cakevm/mev-builders, Dune spellbook), and beaverbuild's and
 * rsync's keys are only those of the 2023 data set: today's keys of these
 * builders come from BUILDER_PUBKEYS, else are named from their blocks'
 * extra-data (ingest/builder-names.ts), after this table.
 */

export interface BuilderKeySource {
  /** Repository and path, or URL. */
  readonly where: string;
  /** Commit the value was read at (repositories), or null for a page. */
  readonly commit: string | null;
  /** What in that file or page lists the key. */
  readonly field: string;
}

export interface BuilderKeyEntry {
  readonly pubkey: string;
  readonly name: string;
  readonly source: BuilderKeySource;
}

/**
 * mevboost.pics (the MEV-Boost dashboard) labels the builder keys it knows:
 * `known_pkeys` (flashbots, eden, bloxroute, manifold, blocknative) and
 * `bu_z` (labelled "Builder 0x69") in its data preparation script.
 */
const MEVBOOST_PICS = (field: string): BuilderKeySource => ({
  where: "github.com/nerolation/mevboost.pics scripts/dataprep.py",
  commit: "257ab5368cd4828fd28333a6b8671a85ad6afe5c",
  field,
});

const entry = (name: string, field: string) => (pubkey: string): BuilderKeyEntry => ({ pubkey, name, source: MEVBOOST_PICS(field) });

/** A builder's own key page (a page: no commit). */
const page = (where: string, field: string, name: string) => (pubkey: string): BuilderKeyEntry => ({ pubkey, name, source: { where, commit: null, field } });

/** The IMC 2023 PBS paper's data set: README.md, "Builder and Seacher Addresses" table. */
const HEIMBACH = (name: string, row: string) => (pubkey: string): BuilderKeyEntry => ({
  pubkey,
  name,
  source: {
    where: "github.com/liobaheimbach/Ethereum-s-Proposer-Builder-Separation-Promises-and-Realities README.md",
    commit: "e21641cbaf1741bad44aea42c505a1b6d88edaff",
    field: `Builder and Seacher Addresses table, row "${row}"`,
  },
});

export const DEFAULT_BUILDER_KEYS: readonly BuilderKeyEntry[] = [
  ...[
    "0xa1dead01e65f0a0eee7b5170223f20c8f0cbf122eac3324d61afbdb33a8885ff8cab2ef514ac2c7698ae0d6289ef27fc",
    "0x81beef03aafd3dd33ffd7deb337407142c80fea2690e5b3190cfc01bde5753f28982a7857c96172a75a234cb7bcb994f",
    "0x81babeec8c9f2bb9c329fd8a3b176032fe0ab5f3b92a3f44d4575a231c7bd9c31d10b6328ef68ed1e8c02a3dbc8e80f9",
    "0xa1defa73d675983a6972e8686360022c1ebc73395067dd1908f7ac76a526a19ac75e4f03ccab6788c54fdb81ff84fc1b",
  ].map(entry("Flashbots", 'known_pkeys["flashbots"]')),
  ...["0xa5eec32c40cc3737d643c24982c7f097354150aac1612d4089e2e8af44dbeefaec08a11c76bd57e7d58697ad8b2bbef5"].map(entry("Eden", 'known_pkeys["eden"]')),
  ...[
    "0x80c7311597316f871363f8395b6a8d056071d90d8eb27defd14759e8522786061b13728623452740ba05055f5ba9d3d5",
    "0x8b8edce58fafe098763e4fabdeb318d347f9238845f22c507e813186ea7d44adecd3028f9288048f9ad3bc7c7c735fba",
    "0x95701d3f0c49d7501b7494a7a4a08ce66aa9cc1f139dbd3eec409b9893ea213e01681e6b76f031122c6663b7d72a331b",
    "0xb086acdd8da6a11c973b4b26d8c955addbae4506c78defbeb5d4e00c1266b802ff86ec7457c4c3c7c573fa1e64f7e9e0",
    "0xaa1488eae4b06a1fff840a2b6db167afc520758dc2c8af0dfb57037954df3431b747e2f900fe8805f05d635e9a29717b",
    "0x94aa4ee318f39b56547a253700917982f4b737a49fc3f99ce08fa715e488e673d88a60f7d2cf9145a05127f17dcb7c67",
    "0xb9b50821ec5f01bb19ec75e0f22264fa9369436544b65c7cf653109dd26ef1f65c4fcaf1b1bcd2a7278afc34455d3da6",
  ].map(entry("bloXroute", 'known_pkeys["bloxroute"]')),
  ...["0xa25f5d5bd4f1956971bbd6e5a19e59c9b1422ca253587bbbb644645bd2067cc08fb854a231061f8c91f110254664e943"].map(entry("Manifold", 'known_pkeys["manifold"]')),
  ...["0x9000009807ed12c1f08bf4e81c6da3ba8e3fc3d953898ce0102433094e5f22f21102ec057841fcb81978ed1ea0fa8246"].map(entry("Blocknative", 'known_pkeys["blocknative"]')),
  ...["0xb194b2b8ec91a71c18f8483825234679299d146495a08db3bf3fb955e1d85a5fca77e88de93a74f4e32320fc922d3027"].map(entry("builder0x69", "bu_z")),
  // Titan's own key page, as stored in two versions (only keys printed there in full).
  ...[
    "0x807a81a9873359323966feb80fcc52b6049888f885d58134bf52bf9825f89aabc723bb5bacd1d8f4dea6322a6d166535",
    "0x8216e00e1dc8e15c362ce8083ad01feeb04688dd3a18998a37db1c3c8b641372398c504e1aca2cbddd87c4075482b42f",
    "0x8226fb149bfe7b4967ffe82ecb9084ffd5bbf0303de0b88f68fdd8297cdffe80f611fa27bc05506b4fba12e2eb5bc5a5",
    "0x8509ecb595da0eda2c6fced4e287f0510a2c2dba5f80ee930503ef86e268d808a6df25e397177da06cd479771ce66840",
    "0x8527d16cf01edcea2cbb05e27f5f61b184578ea27c4015e4533e4cebd6d53297bd004c14fe3f247a468361bf781e0069",
    "0x88857150299287cedfbadea1ee3fb7ac121f1e4e16bef44b4a7bad35432973c4009efb90394facca3fdc0759ba70f93f",
    "0x88a53ec4422f50238def5696446e06acd076f94d73c76e51449cf82eb5312dcb8a845a6c3199ce35de3f2b0441deb76b",
    "0x8898a80ec199dbe15a57e3ceb51389ded413d6a2ebaaac0330af7effcdd33bba70318339ec9cbc1253b30d463c4999c4",
    "0x8a85062118e29045e8b199723d9af519b0c071d9e7586fa89733e798536d4637f8545a169012cc1b76005d9453603273",
    "0x8b39e8f6ad0a7d2c9e893459d76ac1bc7884d5343324f7639cc883590e8914c2edb59c3751e4b4c31d466baec718d440",
    "0x910f20173e75cc036eb232cf2081043d62c028c3ddae53d5cccdbdd1213a9830c5143c431ee9e401a4d3432f3c23d18c",
    "0x94a076b27f294dc44b9fd44d8e2b063fb129bc85ed047da1cefb82d16e1a13e6b50de31a86f5b233d1e6bbaca3c69173",
    "0xabf1ad5ec0512cb1adabe457882fa550b4935f1f7df9658e46af882049ec16da698c323af8c98c3f1f9570ebc4042a83",
    "0xb67eaa5efcfa1d17319c344e1e5167811afbfe7922a2cf01c9a361f465597a5dc3a5472bd98843bac88d2541a78eab08",
    "0xb26f96664274e15fb6fcda862302e47de7e0e2a6687f8349327a9846043e42596ec44af676126e2cacbdd181f548e681",
    "0x95c8cc31f8d4e54eddb0603b8f12d59d466f656f374bde2073e321bdd16082d420e3eef4d62467a7ea6b83818381f742",
    "0xa32aadb23e45595fe4981114a8230128443fd5407d557dc0c158ab93bc2b88939b5a87a84b6863b0d04a4b5a2447f847",
    "0xae2ffc6986c9a368c5ad2d51f86db2031d780f6ac9b2348044dea4e3a75808b566c935099de8b1a1609db322f2110e7a",
    "0xb4a435cf816291596fe2e405651ec8b6c80b9cc34dace3c83202ca489a833756c9a0672ebdc17f23d9d43163db1caa5d",
    "0xb47963246adef02cd3e61cbb648c04fd99b05e28a616aef3aa7fb688c17b10d1ce9662b61a600efbdd110e93d62d5144",
    "0xaf10542267816e91adbc8f4a6754765d492534f8325f34a2e89caa2ba45c7158f6deaa6e7fb454ebb6f6a1495fe63dba",
    "0x94829e6f7a598a2f2dfdd9e1246d7cfdc30a626666d9419f3c147cc954507e97184c598dc109f4d05c2139c48af6746c",
  ].map(page("https://docs.titanbuilder.xyz/builder-public-keys", "Builder Public Keys list", "Titan")),
  // bloXroute's own key page, Max profit builder.
  ...[
    "0x976e63c505050e25b70b39238990c78ddf0948685eb8c5687d17ba5089541f37dd3c45999f2db449eac298b1d4856013",
    "0xafc9274fe595e8cff421ab9e73b031f0dff707ea1852e2233ff070ef18e3876e25c44a9831c4b5f802653d4678ccc31f",
  ].map(page("https://docs.bloxroute.com/apis/mev-solution/list-of-bloxroute-builders", "Max profit builder", "bloXroute")),
  // bloXroute's own key page, Regulated builder.
  ...[
    "0x965a05a1ba338f4bbbb97407d70659f4cea2146d83ac5da6c2f3de824713c927dcba706f35322d65764912e7756103e2",
  ].map(page("https://docs.bloxroute.com/apis/mev-solution/list-of-bloxroute-builders", "Regulated builder", "bloXroute")),
  // bloXroute's own key page, Ethical builder [inactive].
  ...[
    "0x82801ab0556f7df1fb9bb3a61ca84beea8285a8dc3c455a7ea16a8b2993fe06058e0e7d275b28ea5d9f2ae995aa72605",
  ].map(page("https://docs.bloxroute.com/apis/mev-solution/list-of-bloxroute-builders", "Ethical builder [inactive]", "bloXroute")),
  // IMC 2023 PBS data set, row "beaverbuild".
  ...[
    "0x96a59d355b1f65e270b29981dd113625732539e955a1beeecbc471dd0196c4804574ff871d47ed34ff6d921061e9fc27",
    "0xb5d883565500910f3f10f0a2e3a031139d972117a3b67da191ff93ba00ba26502d9b65385b5bca5e7c587273e40f2319",
    "0x8dde59a0d40b9a77b901fc40bee1116acf643b2b60656ace951a5073fe317f57a086acf1eac7502ea32edcca1a900521",
    "0xaec4ec48c2ec03c418c599622980184e926f0de3c9ceab15fc059d617fa0eafe7a0c62126a4657faf596a1b211eec347",
  ].map(HEIMBACH("beaverbuild", "beaverbuild")),
  // IMC 2023 PBS data set, row "rsync-builder".
  ...[
    "0x978a35c39c41aadbe35ea29712bccffb117cc6ebcad4d86ea463d712af1dc80131d0c650dc29ba29ef27c881f43bd587",
    "0x83d3495a2951065cf19c4d282afca0a635a39f6504bd76282ed0138fe28680ec60fa3fd149e6d27a94a7d90e7b1fb640",
    "0x945fc51bf63613257792926c9155d7ae32db73155dc13bdfe61cd476f1fd2297b66601e8721b723cef11e4e6682e9d87",
  ].map(HEIMBACH("rsync-builder", "rsync-builder")),
  // IMC 2023 PBS data set, row "builder0x69".
  ...[
    "0x8bc8d110f8b5207e7edc407e8fa033937ddfe8d2c6f18c12a6171400eb6e04d49238ba2b0a95e633d15558e6a706fbe4",
    "0xa971c4ee4ac5d47e0fb9e16be05981bfe51458f14c06b7a020304099c23d2d9952d4254cc50f291c385d15e7cae0cf9d",
    "0xa4fb63c2ceeee73d1f1711fadf1c5357ac98cecb999d053be613f469a48f7416999a4da35dd60a7824478661399e6772",
  ].map(HEIMBACH("builder0x69", "builder0x69")),
  // IMC 2023 PBS data set, row "blocknative".
  ...[
    "0x8000008a03ebae7d8ab2f66659bd719a698b2e74097d1e423df85e0d58571140527c15052a36c19878018aaebe8a6fea",
    "0xa66f3abc04df65c16eb32151f2a92cb7921efdba4c25ab61b969a2af24b61508783ceb48175ef252ec9f82c6cdf8d8fd",
    "0xa00000a975dffbd1ef61953ac6c90b52b70eb0188eb9d030774346c9248f81e875f7e8bc56c4bbbda297a9543cfa051d",
  ].map(HEIMBACH("Blocknative", "blocknative")),
  // IMC 2023 PBS data set, row "Eden".
  ...[
    "0x8e39849ceabc8710de49b2ca7053813de18b1c12d9ee22149dac4b90b634dd7e6d1e7d3c2b4df806ce32c6228eb70a8b",
    "0x91970c2db7c12510acb2e9c45844f7de602f83a7f31064f7ca04a807b607d7aebfc0abda73c036a92e5c3e56ebca04b7",
    "0xa412007971217a42ca2ced9a90e7ca0ddfc922a1482ee6adf812c4a307e5fb7d6e668a7c86e53663ddd53c689aa3d350",
  ].map(HEIMBACH("Eden", "Eden")),
  // IMC 2023 PBS data set, row "eth-builder".
  ...[
    "0x8eb772d96a747ba63af7acdf92dc775a859f76a77e4c6ed124dca6360e74e4e798a75a925eb8fd0dde866317fff18ad0",
    "0x8ea1393f49d894ae22ec86e38d9aeb64b8336dac947e69cb8468acf510d010ce0b51b21ac3e1244bdb91c52e020ea525",
  ].map(HEIMBACH("eth-builder", "eth-builder")),
  // IMC 2023 PBS data set, row "Manta-builder".
  ...[
    "0xa0d0dbdf7b5eda08c921dee5da7c78c34c9685db3e39e81eb91da94af29eaa50f1468813c86503bf41b4b51bf772800e",
    "0xb1b734b8dd42b4744dc98ea330c3d9da64b7afc050afed96875593c73937d530a773e35ddc4b480f9d2e1d5ba452a469",
    "0xb5a688d26d7858b38c44f44568d68fb94f112fc834cd225d32dc52f0277c2007babc861f6f157a6fc6c1dc25bf409046",
  ].map(HEIMBACH("Manta-builder", "Manta-builder")),
];
