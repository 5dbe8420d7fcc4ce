/** The devnet's sender-side Zcash code, re-exported for the tests that build transactions. */
export * from "../../../devnet/zcash-sender.js";
