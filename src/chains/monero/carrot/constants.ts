/**
 * Every Carrot (Monero FCMP++ addressing) value that upstream may still
 * change, in one place, each with its source. Upstream had not merged Carrot
 * into monero master when this was written; the values are those of the
 * Carrot pull request and the FCMP++ integration pull request:
 *
 *   [CORE]  monero-project/monero PR #9559 (carrot_core), head
 *           c7b6ee459f09ec00b444b565c122560bfc0bfda8 (2026-08-22)
 *   [INTEG] monero-project/monero PR #10027 (FCMP++ integration), head
 *           5e2890bb034205f240ccf89290b2d2ba05a34d5c (2025-08-07)
 *
 * When upstream merges, re-check each value against the merged commit and
 * update the source line beside it; the convergence vectors
 * (test/chains/monero/carrot/convergence.test.ts) fail if T or a domain
 * separator changes under them.
 */
import { hexToBytes } from "../encoding.js";

const ascii = (s: string): Uint8Array => new TextEncoder().encode(s);

// ---------------------------------------------------------------------------
// Generators

/**
 * FCMP++ generator T = unbiased_hash_to_ec(Keccak256("Monero Generator T")),
 * the second base of the one-time address K_o = K_s^j + k_g·G + k_t·T.
 * Source: [CORE] src/crypto/generators.cpp, set by commit
 * 7ed7433f1a5c975dc144932949d7b00bad9e9c05 ("fix T,U,V generator raw values",
 * 2026-07-23); the convergence vectors were regenerated for it in commit
 * a70d97c73e956445d98bf230cf7bf94c60810c60.
 */
export const GENERATOR_T_HEX = "dc42e1d3307b2d4b3b02729abe577e231d79478141cb5b310ca9fa6e127616a3";

/**
 * The value of T before July 2026, still in monero master
 * 0aa9c51bd8eb53abb0a7023b5c768d9b46ee18a0 src/crypto/generators.cpp and in
 * the Carrot spec text (jeffro256/carrot carrot.md @ 8565b5f6). Not used:
 * kept so a reader comparing against an older source sees which one it has.
 */
export const GENERATOR_T_OLD_HEX = "61b736ce93b62a3d3778ab204da85d3b4cdc07250f5da7e3df2629928134d526";

export const GENERATOR_T = hexToBytes(GENERATOR_T_HEX);

// ---------------------------------------------------------------------------
// Hashing

/**
 * Blake2b personalisation of every Carrot hash: "Monero" zero-padded to the
 * 16-byte parameter field. Source: [CORE] src/crypto/blake2b.c blake2b_monero
 * (PERSONAL = {'M','o','n','e','r','o'}), src/carrot_core/config.h
 * CARROT_PERSONAL_STRING.
 */
export const BLAKE2B_PERSONALIZATION: Uint8Array = (() => {
  const p = new Uint8Array(16);
  p.set(ascii("Monero"));
  return p;
})();

/**
 * Domain separators of the enote derivations. Source: [CORE]
 * src/carrot_core/config.h (CARROT_DOMAIN_SEP_*). In a transcript each is
 * written as one length byte followed by its ASCII bytes without the C
 * string's terminating zero ([CORE] src/carrot_core/transcript_fixed.h).
 */
export const DOMAIN = {
  /** CARROT_DOMAIN_SEP_AMOUNT_BLINDING_FACTOR: k_a */
  amountBlindingFactor: ascii("Carrot commitment mask"),
  /** CARROT_DOMAIN_SEP_ONETIME_EXTENSION_G_COINBASE */
  extensionGCoinbase: ascii("Carrot coinbase extension G"),
  /** CARROT_DOMAIN_SEP_ONETIME_EXTENSION_T_COINBASE */
  extensionTCoinbase: ascii("Carrot coinbase extension T"),
  /** CARROT_DOMAIN_SEP_ONETIME_EXTENSION_G: k_g */
  extensionG: ascii("Carrot key extension G"),
  /** CARROT_DOMAIN_SEP_ONETIME_EXTENSION_T: k_t */
  extensionT: ascii("Carrot key extension T"),
  /** CARROT_DOMAIN_SEP_ENCRYPTION_MASK_ANCHOR: m_anchor */
  encryptionMaskAnchor: ascii("Carrot encryption mask anchor"),
  /** CARROT_DOMAIN_SEP_ENCRYPTION_MASK_AMOUNT: m_a */
  encryptionMaskAmount: ascii("Carrot encryption mask a"),
  /** CARROT_DOMAIN_SEP_ENCRYPTION_MASK_PAYMENT_ID: m_pid */
  encryptionMaskPaymentId: ascii("Carrot encryption mask pid"),
  /** CARROT_DOMAIN_SEP_JANUS_ANCHOR_SPECIAL: anchor_sp */
  janusAnchorSpecial: ascii("Carrot janus anchor special"),
  /** CARROT_DOMAIN_SEP_EPHEMERAL_PRIVKEY: d_e */
  ephemeralPrivkey: ascii("Carrot sending key normal"),
  /** CARROT_DOMAIN_SEP_VIEW_TAG: vt */
  viewTag: ascii("Carrot view tag"),
  /** CARROT_DOMAIN_SEP_SENDER_RECEIVER_SECRET: s_sr_ctx */
  senderReceiverSecret: ascii("Carrot sender-receiver secret"),
} as const;

/**
 * First byte of the 33-byte input context. Source: [CORE]
 * src/carrot_core/config.h CARROT_DOMAIN_SEP_INPUT_CONTEXT_{RINGCT,COINBASE},
 * enote_utils.cpp make_carrot_input_context{,_coinbase}: 'R' ‖ first key
 * image, or 'C' ‖ block index as u64 little-endian zero-padded to 32 bytes.
 */
export const INPUT_CONTEXT_RINGCT = 0x52; // 'R'
export const INPUT_CONTEXT_COINBASE = 0x43; // 'C'

// ---------------------------------------------------------------------------
// Field sizes ([CORE] src/carrot_core/core_types.h)

export const INPUT_CONTEXT_BYTES = 33;
export const VIEW_TAG_BYTES = 3;
export const JANUS_ANCHOR_BYTES = 16;
export const ENCRYPTED_AMOUNT_BYTES = 8;
export const PAYMENT_ID_BYTES = 8;

/** CarrotEnoteType, one byte in the k_a transcript ([CORE] src/carrot_core/core_types.h). */
export const ENOTE_TYPE = { payment: 0, change: 1 } as const;
export type CarrotEnoteType = keyof typeof ENOTE_TYPE;

// ---------------------------------------------------------------------------
// Fork and transaction rules ([INTEG])

/**
 * Hard-fork version that activates Carrot outputs and FCMP++ (both 17).
 * Source: [INTEG] src/cryptonote_config.h HF_VERSION_CARROT,
 * HF_VERSION_FCMP_PLUS_PLUS. No mainnet height is announced; the mainnet rows
 * of src/hardforks/hardforks.cpp there are marked "Mock values for tests".
 */
export const HF_VERSION_CARROT = 17;

/**
 * Hard-fork version from which a block carries the FCMP++ tree (a u8 layer
 * count, at most FCMP_PLUS_PLUS_MAX_LAYERS, and a 32-byte root after
 * tx_hashes) and hashes both into its content hash. Source: [INTEG]
 * src/cryptonote_config.h HF_VERSION_FCMP_PLUS_PLUS, FCMP_PLUS_PLUS_MAX_LAYERS;
 * src/cryptonote_basic/cryptonote_basic.h block BEGIN_SERIALIZE_OBJECT;
 * src/cryptonote_basic/cryptonote_format_utils.cpp get_block_content_hash.
 */
export const HF_VERSION_FCMP_PLUS_PLUS = 17;
export const FCMP_PLUS_PLUS_MAX_LAYERS = 12;

/**
 * Which output kinds a transaction may carry at a fork version. Source:
 * [INTEG] src/cryptonote_basic/cryptonote_format_utils.cpp check_output_types:
 * from v16 (HF_VERSION_VIEW_TAGS + 1) tagged keys only; in v17 either all
 * tagged keys or all Carrot outputs within one transaction (a grace period);
 * from v18 Carrot outputs only. (v15 itself, the view-tag fork, also allowed
 * untagged keys; not a Carrot concern.)
 */
export type OutputKindRule = "legacy-only" | "legacy-or-carrot" | "carrot-only";
export function outputKindRule(hfVersion: number): OutputKindRule {
  if (hfVersion > HF_VERSION_CARROT) return "carrot-only";
  if (hfVersion === HF_VERSION_CARROT) return "legacy-or-carrot";
  return "legacy-only";
}

/**
 * Binary variant tags of tx outputs. txout_to_carrot_v1 takes tag 0x00 (the
 * unused txout_to_script slot). Source: [INTEG]
 * src/cryptonote_basic/cryptonote_basic.h VARIANT_TAG(binary_archive, …).
 * Its fields in order: K_o (32 B), view tag (3 B), encrypted anchor (16 B).
 */
export const TXOUT_TAG = { carrotV1: 0x00, toKey: 0x02, taggedKey: 0x03 } as const;

/** RingCT type of FCMP++ transactions. Source: [INTEG] src/ringct/rctTypes.h RCTTypeFcmpPlusPlus. */
export const RCT_TYPE_FCMP_PLUS_PLUS = 7;

/**
 * Size limits. Sources: [CORE] src/carrot_core/config.h CARROT_MIN_TX_OUTPUTS,
 * CARROT_MIN_TX_INPUTS; [INTEG] src/cryptonote_config.h
 * FCMP_PLUS_PLUS_MAX_INPUTS, FCMP_PLUS_PLUS_MAX_OUTPUTS.
 */
export const CARROT_MIN_TX_OUTPUTS = 2;
export const CARROT_MIN_TX_INPUTS = 1;
export const FCMP_PLUS_PLUS_MAX_INPUTS = 8;
export const FCMP_PLUS_PLUS_MAX_OUTPUTS = 8;

/**
 * tx_extra nonce sub-tag of the 8-byte encrypted payment ID, unchanged from
 * pre-Carrot transactions. Source: [INTEG] src/cryptonote_basic/tx_extra.h
 * TX_EXTRA_NONCE_ENCRYPTED_PAYMENT_ID.
 */
export const TX_EXTRA_NONCE_ENCRYPTED_PAYMENT_ID = 0x01;
