/**
 * BIP-39 mnemonic checks with precise errors, and the seed. The phrase is
 * secret: no error message or detail ever contains a word of it.
 */
import { pbkdf2Sync } from "node:crypto";
import { mnemonicToEntropy } from "@scure/bip39";
import { wordlist } from "@scure/bip39/wordlists/english.js";
import { badRequest } from "../../core/errors.js";

export const ALLOWED_WORD_COUNTS = [12, 24] as const;
const WORD_INDEX = new Set(wordlist);

/** Normalises (NFKD, lower case, single spaces) and validates; returns the canonical phrase. */
export function normalizeMnemonic(phrase: string): string {
  if (typeof phrase !== "string") throw badRequest("invalid_mnemonic", "The seed phrase must be a string.");
  const words = phrase.normalize("NFKD").trim().toLowerCase().split(/\s+/).filter((w) => w.length > 0);
  if (!(ALLOWED_WORD_COUNTS as readonly number[]).includes(words.length))
    throw badRequest("invalid_mnemonic_word_count", `A seed phrase has 12 or 24 words; this one has ${words.length}.`, {
      wordCount: words.length,
      allowed: [...ALLOWED_WORD_COUNTS],
    });
  const unknown: number[] = [];
  words.forEach((w, i) => {
    if (!WORD_INDEX.has(w)) unknown.push(i + 1);
  });
  if (unknown.length > 0)
    throw badRequest(
      "unknown_mnemonic_word",
      `Word${unknown.length > 1 ? "s" : ""} at position${unknown.length > 1 ? "s" : ""} ${unknown.join(", ")} ${unknown.length > 1 ? "are" : "is"} not in the BIP-39 English word list.`,
      { positions: unknown },
    );
  const canonical = words.join(" ");
  try {
    mnemonicToEntropy(canonical, wordlist);
  } catch {
    throw badRequest("invalid_mnemonic_checksum", "The seed phrase checksum does not match: a word is wrong or the words are out of order.");
  }
  return canonical;
}

/** BIP-39 seed (empty passphrase): PBKDF2-HMAC-SHA512(phrase, "mnemonic", 2048) — native for speed. */
export function mnemonicToSeed(canonicalPhrase: string): Uint8Array {
  return new Uint8Array(pbkdf2Sync(canonicalPhrase.normalize("NFKD"), "mnemonic", 2048, 64, "sha512"));
}
