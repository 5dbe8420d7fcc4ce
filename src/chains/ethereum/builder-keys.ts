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
 * name as that source gives it. Keys go stale as builders rotate them; a
 * stale key names nothing wrongly, it just stops matching.
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
];
