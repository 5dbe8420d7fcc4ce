/**
 * Reading the relay poller's data back (relay-store.ts), shared by the Penny
 * Oracle's builder questions and the builder feeds: the check that the
 * relays' data may be answered from at all (a 503 naming the relays
 * otherwise).
 */
import type { Clock } from "../core/clock.js";
import { unavailable } from "../core/errors.js";
import type { Queryable } from "../db/types.js";
import { slotTime, type RelayEndpoint } from "../chains/ethereum/relays.js";
import { newestSlot, relayUp, sourceStates } from "./relay-store.js";

/** What the check needs: the store, the clock, the configured relays and the staleness limit. */
export interface RelayReadDeps {
  db: Queryable;
  clock: Clock;
  relays: readonly RelayEndpoint[];
  /** Oldest newest-slot (seconds) the answers accept before answering 503 source_stale. */
  maxAgeSeconds: number;
}

/** The relays' state for an answer; throws 503 when no answer may be given. */
export async function relaySourceCheck(deps: RelayReadDeps) {
  const { db, clock, relays, maxAgeSeconds } = deps;
  if (relays.length === 0) throw unavailable("relays_not_configured", "No MEV-Boost relay is configured (RELAY_URLS).");
  const states = await sourceStates(db);
  const ok: string[] = [];
  const down: string[] = [];
  for (const r of relays) {
    const s = states.get(r.id);
    (relayUp(s) ? ok : down).push(r.id);
  }
  const nowS = Math.floor(clock.now() / 1000);
  const newest = await newestSlot(db, relays.map((r) => r.id));
  const age = newest === null ? null : Math.max(0, nowS - slotTime(newest));
  if (ok.length === 0) {
    throw unavailable("source_stale", `Every MEV-Boost relay is down: ${down.join(", ")}.`, { source: down.join(","), age_s: age, relays_down: down });
  }
  if (age === null) throw unavailable("source_stale", "No relay data has been ingested yet.", { source: relays.map((r) => r.id).join(","), age_s: null });
  if (age > maxAgeSeconds) {
    throw unavailable("source_stale", `The newest delivered slot is ${age} s old (limit ${maxAgeSeconds} s).`, { source: (down.length ? down : ok).join(","), age_s: age, relays_down: down });
  }
  return { source_age_s: age, relays_ok: ok, relays_down: down, nowS };
}
