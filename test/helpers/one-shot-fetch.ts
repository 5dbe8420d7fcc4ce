/**
 * A fetch that opens a new connection for every request (undici with
 * pipelining 0: no keep-alive). Tests that move the process clock (a faked
 * Date) can otherwise keep a pooled connection past the server's keep-alive
 * and meet its close as ECONNRESET on reuse. It has the global fetch's type
 * so it can be handed to the x402 payer too.
 */
import { Agent, fetch as undiciFetch } from "undici";

export interface OneShotFetch {
  fetch: typeof globalThis.fetch;
  close(): Promise<void>;
}

export function oneShotFetch(): OneShotFetch {
  const agent = new Agent({ pipelining: 0 });
  const fetch = ((url: string | URL, init?: RequestInit) =>
    undiciFetch(url, { ...(init as Parameters<typeof undiciFetch>[1]), dispatcher: agent })) as unknown as typeof globalThis.fetch;
  return { fetch, close: () => agent.close() };
}
