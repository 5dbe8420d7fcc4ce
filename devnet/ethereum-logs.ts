/**
 * The devnet L1's one log book: every simulated contract (the Aave Pools of
 * ethereum-lending.ts, the Comets of ethereum-comet.ts, Morpho Blue of
 * ethereum-morpho.ts) writes its events here through a `LogSink`, and
 * eth_getLogs reads them back through `query`, filtered once.
 *
 *   - Each sink queues what its contract emits until the L1 seals a block
 *     (`seal`): the block's logs are the sinks' queues in the order the sinks
 *     were made (then emission order), numbered 0…n−1 here and nowhere else;
 *     the transaction index is the log index (every log is its own
 *     transaction slot), the transaction hash keccak256(block hash ‖ the
 *     emitter's transaction salt).
 *   - A block sealed again (a reorg replaces it) replaces its logs; a block
 *     never sealed (the quiet blocks of a catch-up) has none, and what was
 *     queued meanwhile waits for the next sealed block.
 *   - `query` filters as a node does: a block range, an address list (any
 *     of them), and topics by position, each a value, an OR-list of values,
 *     or null (anything); a log with fewer topics than a non-null position
 *     asks for does not match (`logMatches`, which the L1 also applies to
 *     the token Approval logs of ethereum-activity.ts: those are generated
 *     lazily per block from its hash, with their receipts, so they stay out
 *     of the book; they are numbered after the book's logs of their block,
 *     `count`, so a block's log indexes are one sequence).
 */
import { type Hex, concat, keccak256 } from "viem";

export interface SimLogRecord {
  address: string;
  topics: Hex[];
  data: Hex;
  blockNumber: bigint;
  blockHash: string;
  transactionHash: string;
  transactionIndex: number;
  logIndex: number;
}

/** A log as a contract emits it, before its block numbers it. */
export interface EmittedLog {
  address: string;
  topics: Hex[];
  data: Hex;
  /**
   * Bytes that, after the block hash, make the transaction hash; logs with the
   * same salt share a transaction. Absent: the log's place among its sink's
   * logs of the block (4 bytes), one transaction per log.
   */
  tx?: Hex;
}

/** Where one simulated contract's events go. */
export type LogSink = (log: EmittedLog) => void;

/** An eth_getLogs filter, lower-case: null means "any". */
export interface LogFilter {
  from: bigint;
  to: bigint;
  addresses: readonly string[] | null;
  topics: readonly (readonly string[] | null)[];
}

export interface DevnetLogBook {
  /** A sink of its own for one simulated contract; its logs come after those of the sinks made before it. */
  sink(): LogSink;
  /** Numbers and stores the queued logs as block `block`'s; returns how many. */
  seal(block: { number: bigint; hash: string }): number;
  query(filter: LogFilter): SimLogRecord[];
  /** How many logs (and log transactions) block `number` holds. */
  count(number: bigint): number;
}

/** Whether a log passes an eth_getLogs filter's addresses and topics (lower-case on both sides). */
export const logMatches = (l: { address: string; topics: readonly string[] }, f: Pick<LogFilter, "addresses" | "topics">) =>
  (!f.addresses || f.addresses.includes(l.address)) && f.topics.every((want, i) => want === null || (l.topics[i] !== undefined && want.includes(l.topics[i]!)));

export function createLogBook(): DevnetLogBook {
  const queues: EmittedLog[][] = [];
  const byBlock = new Map<bigint, SimLogRecord[]>();

  return {
    sink() {
      const queue: EmittedLog[] = [];
      queues.push(queue);
      return (log) => {
        queue.push(log);
      };
    },
    seal(block) {
      const records: SimLogRecord[] = [];
      for (const queue of queues) {
        queue.forEach((l, i) => {
          const salt = l.tx ?? (`0x${i.toString(16).padStart(8, "0")}` as Hex);
          records.push({
            address: l.address,
            topics: l.topics,
            data: l.data,
            blockNumber: block.number,
            blockHash: block.hash,
            transactionHash: keccak256(concat([block.hash as Hex, salt])),
            transactionIndex: records.length,
            logIndex: records.length,
          });
        });
        queue.length = 0;
      }
      if (records.length > 0) byBlock.set(block.number, records);
      else byBlock.delete(block.number);
      return records.length;
    },
    count: (number) => byBlock.get(number)?.length ?? 0,
    query(f) {
      const out: SimLogRecord[] = [];
      for (let n = f.from; n <= f.to; n++) for (const l of byBlock.get(n) ?? []) if (logMatches(l, f)) out.push(l);
      return out;
    },
  };
}

/**
 * The lower-case filter of an eth_getLogs request's `address` and `topics`
 * (a value or a list; each topic position a value, a list or null).
 */
export function parseLogFilter(f: { address?: unknown; topics?: unknown }): Pick<LogFilter, "addresses" | "topics"> {
  const list = (v: unknown) => (Array.isArray(v) ? v : [v]).map((x) => String(x).toLowerCase());
  return {
    addresses: f.address === undefined || f.address === null ? null : list(f.address),
    topics: Array.isArray(f.topics) ? f.topics.map((t) => (t === undefined || t === null ? null : list(t))) : [],
  };
}
