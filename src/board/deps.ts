import type { Clock } from "../core/clock.js";
import type { Queryable } from "../db/types.js";
import type { Board } from "./boards.js";

/** What the board module needs from the outside, passed in explicitly. */
export interface BoardDeps {
  clock: Clock;
  boards: readonly Board[];
}

/** What every board operation receives besides its input. */
export interface BoardCtx {
  deps: BoardDeps;
  /** The call's handle: inside the paid boost route, the paywall's transaction. */
  db: Queryable;
  /** The settled payment funding a boost. */
  payment?: { payer: string; nonce: string };
}

export interface Op<I> {
  ctx: BoardCtx;
  input: I;
}
