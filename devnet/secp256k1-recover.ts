/**
 * The simulated chain's signer recovery (src/x402/signer-recovery.ts): one memory of
 * keys for its token's ecrecover and its transactions' senders. The chain sees a few keys many
 * times (the facilitator's gas keys, the bench's payers), so each gets its table at once.
 */
import { signerRecovery } from "../src/x402/signer-recovery.js";

export { splitSignature } from "../src/x402/signer-recovery.js";

/** wNAF window 6: about 200 kB a key, a confirmation in ~0.5 ms. */
export const recoverSignerAddress = signerRecovery({ maxKeys: 64, maxTables: 64, tableWindow: 6, tableAfter: 1 });
