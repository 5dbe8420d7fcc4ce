/**
 * A chain node's line in /v1/health: whether it is configured, whether it
 * answered a short probe, and what it said. A type alias (not an interface)
 * so it fits a health line's open record of details.
 */
export type ChainHealth = {
  configured: boolean;
  available: boolean;
  /** Top block height when reachable. */
  height?: number;
  synchronized?: boolean;
  network?: string;
  error?: string;
};

/** Runs one probe with a short deadline; never throws (a failure is `available: false` with its message). */
export async function probeChainHealth(
  configured: boolean,
  probe: (signal: AbortSignal) => Promise<Pick<ChainHealth, "height" | "synchronized" | "network">>,
  timeoutMs = 3_000,
): Promise<ChainHealth> {
  if (!configured) return { configured: false, available: false };
  try {
    return { configured: true, available: true, ...(await probe(AbortSignal.timeout(timeoutMs))) };
  } catch (e) {
    return { configured: true, available: false, error: e instanceof Error ? e.message : String(e) };
  }
}
