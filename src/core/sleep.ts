/**
 * The one sleep: waits `ms`; with a signal, an abort ends it at once by
 * rejecting with the signal's own reason (so a caller's abort surfaces as
 * itself, never as a timeout or a 502), and an already aborted signal rejects
 * before any timer is set. The abort listener is removed when the timer fires,
 * so a long-lived signal (a job runner's) gathers no listeners.
 */
export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    if (signal?.aborted) return reject(abortReason(signal));
    const timer = setTimeout(() => {
      signal?.removeEventListener("abort", onAbort);
      resolve();
    }, ms);
    const onAbort = () => {
      clearTimeout(timer);
      reject(abortReason(signal!));
    };
    signal?.addEventListener("abort", onAbort, { once: true });
  });
}

/** Node sets a reason on every abort; the fallback covers a signal that somehow has none. */
function abortReason(signal: AbortSignal): unknown {
  return signal.reason ?? new DOMException("This operation was aborted", "AbortError");
}
