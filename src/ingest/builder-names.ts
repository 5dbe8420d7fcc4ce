/**
 * Builder names learned from the blocks the builders built, as analytics
 * services such as relayscan do: many builder keys have no published key
 * list to review (on mainnet BuilderNet's, Quasar's, and beaverbuild's and
 * rsync's current keys), but every block carries its builder's extra-data
 * tag. After each relay poll, for up to `maxKeys` keys seen in the stored
 * delivered payloads that the reviewed table (builder-keys.ts plus
 * BUILDER_PUBKEYS) does not name and that have no learned row yet, the key's
 * newest delivered block is read from the Ethereum node
 * (eth_getBlockByHash, full=false); when the node's block has the payload's
 * hash and number, its extra-data (UTF-8, invalid bytes replaced) is stored
 * with the builder the tag names (builders.ts builderFromExtraData), or null
 * when it names none known: such a key is asked again, with its newest
 * block, no sooner than `retryMs` later. A block the node cannot give (down,
 * missing, another block) is asked again next run.
 *
 * The tag is the builder's own claim: anyone can write any tag, so a learned
 * name never overrides the reviewed table, and the answers read the learned
 * names from the database (the API and the workers may be separate
 * processes): `namesWithLearned`, one small query per answer.
 */
import { sql } from "kysely";
import type { Clock } from "../core/clock.js";
import { describeError } from "../core/upstream.js";
import type { Queryable } from "../db/types.js";
import { builderFromExtraData } from "../chains/ethereum/builders.js";

/** The node call the learner needs (EthRpc). */
export interface ExtraDataReader {
  readonly configured: boolean;
  blockExtraData(blockHash: string, signal?: AbortSignal): Promise<{ number: bigint; hash: string; extraData: string } | null>;
}

export interface BuilderNameLearning {
  rpc: ExtraDataReader;
  /** The reviewed key → name table (builderKeyNames): its keys are never learned. */
  names: ReadonlyMap<string, string>;
  /** Keys asked per run (default 16). */
  maxKeys?: number;
  /** How long a key whose tag names nobody waits before it is asked again, ms (default one day). */
  retryMs?: number;
}

export interface BuilderNameLearningDeps extends BuilderNameLearning {
  db: Queryable;
  clock: Clock;
  warn?: (info: Record<string, unknown>, message: string) => void;
}

export const DEFAULT_LEARN_KEYS = 16;
export const UNNAMED_RETRY_MS = 86_400_000;
/** Longest tag text stored (mainnet extra-data is at most 32 bytes; other nodes may send more). */
export const TAG_MAX_CHARS = 64;

/** A block's extra-data bytes (0x hex) as text: UTF-8 with invalid bytes replaced, trailing NULs and outer blanks dropped, control characters replaced, bounded. */
export function extraDataText(hex: string): string {
  const bytes = Buffer.from(hex.replace(/^0x/, ""), "hex");
  const text = new TextDecoder("utf-8", { fatal: false })
    .decode(bytes)
    .replace(/\u0000+$/, "")
    // PostgreSQL text cannot hold NUL, and no tag needs a control character.
    .replace(/[\u0000-\u001f\u007f]/g, "\ufffd")
    .trim();
  return Array.from(text).slice(0, TAG_MAX_CHARS).join("");
}

export interface LearnResult {
  /** Keys stored with a name. */
  named: number;
  /** Keys stored without one (their tag names nobody known). */
  unnamed: number;
  /** Keys whose block could not be read or did not match (asked again next run). */
  skipped: number;
}

/** One learning run; a node that fails ends the run early (logged), never throws for it. */
export async function learnBuilderNames(deps: BuilderNameLearningDeps, signal?: AbortSignal): Promise<LearnResult> {
  const out: LearnResult = { named: 0, unnamed: 0, skipped: 0 };
  if (!deps.rpc.configured) return out;
  const now = deps.clock.now();
  const reviewed = [...deps.names.keys()];
  const notReviewed = reviewed.length ? sql`AND k.builder_pubkey NOT IN (${sql.join(reviewed)})` : sql``;
  // Keys never asked first, then the ones whose tag named nobody a day ago; newest delivery first.
  const due = await sql<{ pubkey: string; block_hash: string; block_number: string }>`
    SELECT k.builder_pubkey AS pubkey, p.block_hash, p.block_number::text AS block_number
    FROM (SELECT builder_pubkey, max(slot) AS slot FROM relay_payloads GROUP BY builder_pubkey) k
    JOIN LATERAL (
      SELECT block_hash, block_number FROM relay_payloads r WHERE r.builder_pubkey = k.builder_pubkey AND r.slot = k.slot ORDER BY relay LIMIT 1
    ) p ON true
    LEFT JOIN builder_key_names n ON n.pubkey = k.builder_pubkey
    WHERE (n.pubkey IS NULL OR (n.name IS NULL AND n.learned_ms <= ${String(now - (deps.retryMs ?? UNNAMED_RETRY_MS))})) ${notReviewed}
    ORDER BY (n.pubkey IS NOT NULL), k.slot DESC, k.builder_pubkey
    LIMIT ${deps.maxKeys ?? DEFAULT_LEARN_KEYS}`.execute(deps.db);

  for (const [i, key] of due.rows.entries()) {
    let block: Awaited<ReturnType<ExtraDataReader["blockExtraData"]>>;
    try {
      block = await deps.rpc.blockExtraData(key.block_hash, signal);
    } catch (e) {
      if (signal?.aborted) throw e;
      // The node is down or confused: the other keys wait for the next run rather than for its timeouts.
      out.skipped += due.rows.length - i;
      deps.warn?.({ pubkey: key.pubkey, block_hash: key.block_hash, error: describeError(e) }, "builder name: the Ethereum node could not be asked for the block; trying next run");
      break;
    }
    if (!block || block.hash.toLowerCase() !== key.block_hash.toLowerCase() || block.number !== BigInt(key.block_number)) {
      out.skipped++;
      deps.warn?.(
        { pubkey: key.pubkey, block_hash: key.block_hash, block_number: key.block_number, got_hash: block?.hash ?? null, got_number: block?.number.toString() ?? null },
        block ? "builder name: the node's block does not match the delivered payload; not learned" : "builder name: the node does not have the delivered block; trying next run",
      );
      continue;
    }
    const tag = extraDataText(block.extraData);
    const name = builderFromExtraData(tag);
    const row = { pubkey: key.pubkey, name, tag, block_number: key.block_number, block_hash: key.block_hash.toLowerCase(), learned_ms: String(deps.clock.now()) };
    await deps.db
      .insertInto("builder_key_names")
      .values(row)
      .onConflict((oc) => oc.column("pubkey").doUpdateSet({ name: row.name, tag: row.tag, block_number: row.block_number, block_hash: row.block_hash, learned_ms: row.learned_ms }))
      .execute();
    if (name === null) out.unnamed++;
    else out.named++;
  }
  return out;
}

/** Learned key → name rows with a name. */
export async function learnedBuilderNames(db: Queryable): Promise<Map<string, string>> {
  const rows = await db.selectFrom("builder_key_names").select(["pubkey", "name"]).where("name", "is not", null).execute();
  return new Map(rows.map((r) => [r.pubkey, r.name!] as const));
}

/** The key → name table an answer uses: the reviewed table first, then the learned names for keys it lacks. */
export async function namesWithLearned(db: Queryable, reviewed: ReadonlyMap<string, string>): Promise<Map<string, string>> {
  const names = await learnedBuilderNames(db);
  for (const [k, v] of reviewed) names.set(k, v);
  return names;
}
