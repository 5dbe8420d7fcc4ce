/**
 * Notice-board operations, each a plain async function of `{ ctx, input }`
 * with input already validated by the route's schema. Writes run in
 * withTransaction (the boost joins the paywall's transaction, so its row
 * commits with the settlement). Ranking is the pure module ranking.ts.
 *
 * Lifetime: a notice is live until its owner removes it; an unboosted notice
 * expires NOTICE_TTL_MS after it was posted (it is no longer listed, read or
 * boostable); a boosted notice does not expire.
 */
import { randomUUID } from "node:crypto";
import { sql } from "kysely";
import { ServiceError, notFound, unauthorized } from "../core/errors.js";
import { formatUsd } from "../core/money.js";
import { hashToken, newToken, tokenMatches } from "../core/tokens.js";
import { withTransaction } from "../db/transaction.js";
import type { Queryable } from "../db/types.js";
import type { NoticesTable } from "../db/schema.js";
import type { Board } from "./boards.js";
import type { BoardCtx, Op } from "./deps.js";
import { applyBoost, decayedScore, rankNotices, rankingTime, type RankInput } from "./ranking.js";
import { DEFAULT_HANDLE } from "./text.js";

export const NOTICE_TTL_MS = 60 * 24 * 3600 * 1000;
export const BOOST_MIN_ATOMIC = 100_000n;
export const BOOST_MAX_ATOMIC = 25_000_000n;
export const POSTS_PER_HOUR = 6;
/** Notices in a feed (the top of the board). */
export const FEED_SIZE = 50;

export interface Notice {
  id: string;
  board: string;
  handle: string;
  title: string;
  body: string;
  url: string | null;
  contact: string | null;
  tags: string[];
  created_ms: number;
  updated_ms: number;
  /** When an unboosted notice stops being listed; null once boosted. */
  expires_ms: number | null;
  weight_atomic: string;
  weight_usd: string;
  boosts_count: number;
  /** Decayed boost score in atomic USDC, rounded down, as of `rankingTime`. */
  score_atomic: string;
  status: "live";
}

type NoticeRow = Omit<NoticesTable, "owner_token_hash">;

interface Ranked extends RankInput {
  row: NoticeRow;
}

export const noticePath = (board: string, id: string) => `/v1/board/${board}/${id}`;

function boardOf(ctx: BoardCtx, id: string): Board {
  const b = ctx.deps.boards.find((x) => x.id === id);
  if (!b) throw notFound("unknown_board", `No board '${id}'; GET /v1/board lists the boards.`);
  return b;
}

const asRanked = (row: NoticeRow): Ranked => ({
  row,
  id: row.id,
  createdMs: Number(row.created_ms),
  weightAtomic: BigInt(row.weight_atomic),
  anchor: Number(row.score_anchor),
  anchorMs: Number(row.score_anchor_ms),
});

function toNotice(r: Ranked, atMs: number): Notice {
  const row = r.row;
  const tags = typeof row.tags === "string" ? (JSON.parse(row.tags) as string[]) : row.tags;
  const score = r.weightAtomic > 0n ? Math.floor(decayedScore(r, atMs)) : 0;
  return {
    id: row.id,
    board: row.board,
    handle: row.handle,
    title: row.title,
    body: row.body,
    url: row.url,
    contact: row.contact,
    tags,
    created_ms: r.createdMs,
    updated_ms: Number(row.updated_ms),
    expires_ms: r.weightAtomic > 0n ? null : r.createdMs + NOTICE_TTL_MS,
    weight_atomic: r.weightAtomic.toString(),
    weight_usd: formatUsd(r.weightAtomic),
    boosts_count: row.boosts_count,
    score_atomic: String(score),
    status: "live",
  };
}

const COLUMNS = [
  "id",
  "board",
  "handle",
  "title",
  "body",
  "url",
  "contact",
  "tags",
  "status",
  "created_ms",
  "updated_ms",
  "weight_atomic",
  "boosts_count",
  "score_anchor",
  "score_anchor_ms",
] as const;

/** Live and not expired at `nowMs`. */
function liveNotices(db: Queryable, nowMs: number) {
  return db
    .selectFrom("notices")
    .where("status", "=", "live")
    .where((eb) => eb.or([eb("weight_atomic", ">", "0"), eb("created_ms", ">", String(nowMs - NOTICE_TTL_MS))]));
}

async function findLive(ctx: BoardCtx, board: string, id: string, forUpdate = false): Promise<NoticeRow & { owner_token_hash: Buffer }> {
  let q = liveNotices(ctx.db, ctx.deps.clock.now()).selectAll().where("board", "=", board).where("id", "=", id);
  if (forUpdate) q = q.forUpdate();
  const row = await q.executeTakeFirst();
  if (!row) throw notFound("notice_not_found", `No live notice ${id} on board '${board}'.`);
  return row;
}

// ---------------------------------------------------------------- reads

export async function listBoards({ ctx }: Op<Record<string, never>>) {
  const now = ctx.deps.clock.now();
  const counts = await liveNotices(ctx.db, now)
    .select(["board", sql<string>`count(*)`.as("live"), sql<string>`count(*) FILTER (WHERE weight_atomic > 0)`.as("paid")])
    .groupBy("board")
    .execute();
  const byBoard = new Map(counts.map((c) => [c.board, c]));
  const boards = ctx.deps.boards.map((b) => ({
    id: b.id,
    title: b.title,
    description: b.description,
    live: Number(byBoard.get(b.id)?.live ?? 0),
    paid: Number(byBoard.get(b.id)?.paid ?? 0),
    read: `GET /v1/board/${b.id}`,
    post: `POST /v1/board/${b.id}`,
    feed_rss: `GET /v1/board/${b.id}/feed.xml`,
    feed_json: `GET /v1/board/${b.id}/feed.json`,
  }));
  return {
    boards,
    totals: { live: boards.reduce((n, b) => n + b.live, 0), paid: boards.reduce((n, b) => n + b.paid, 0) },
    leaderboard: "GET /v1/board/leaderboard",
    posting: {
      free: true,
      free_rate_limit: `${POSTS_PER_HOUR} per hour per IP`,
      boost_endpoint: "POST /v1/board/{board}/{id}/boost",
      boost: {
        min_usd: formatUsd(BOOST_MIN_ATOMIC),
        max_usd: formatUsd(BOOST_MAX_ATOMIC),
        min_atomic: BOOST_MIN_ATOMIC.toString(),
        max_atomic: BOOST_MAX_ATOMIC.toString(),
      },
      model:
        "Posting is free. Anyone may boost any notice with USDC (x402, amountAtomic chosen by the caller); " +
        "each boost adds its amount to the notice's score, which halves every 7 days. Boosted notices rank first by score, " +
        "unboosted ones after them, newest first. Unboosted notices expire 60 days after posting.",
    },
  };
}

/** The board's live notices in rank order, scored as of the current minute. */
async function rankedBoard(ctx: BoardCtx, board: string): Promise<{ ranked: Ranked[]; atMs: number }> {
  const now = ctx.deps.clock.now();
  const rows = await liveNotices(ctx.db, now).select(COLUMNS).where("board", "=", board).execute();
  const atMs = rankingTime(now);
  return { ranked: rankNotices(rows.map(asRanked), atMs), atMs };
}

export async function readBoard({ ctx, input }: Op<{ board: string; limit: number; offset: number }>) {
  const board = boardOf(ctx, input.board);
  const { ranked, atMs } = await rankedBoard(ctx, board.id);
  const page = ranked.slice(input.offset, input.offset + input.limit);
  return {
    board,
    as_of_ms: atMs,
    count: ranked.length,
    limit: input.limit,
    offset: input.offset,
    notices: page.map((r) => toNotice(r, atMs)),
  };
}

export async function readNotice({ ctx, input }: Op<{ board: string; id: string }>) {
  boardOf(ctx, input.board);
  const row = await findLive(ctx, input.board, input.id);
  const atMs = rankingTime(ctx.deps.clock.now());
  return { notice: toNotice(asRanked(row), atMs) };
}

export async function readLeaderboard({ ctx, input }: Op<{ limit: number }>) {
  const now = ctx.deps.clock.now();
  const atMs = rankingTime(now);
  const ids = ctx.deps.boards.map((b) => b.id);
  const rows = await liveNotices(ctx.db, now).select(COLUMNS).where("board", "in", ids).where("weight_atomic", ">", "0").execute();
  const ranked = rankNotices(rows.map(asRanked), atMs);
  const totals = await liveNotices(ctx.db, now)
    .where("board", "in", ids)
    .select([
      sql<string>`count(*)`.as("live"),
      sql<string>`count(*) FILTER (WHERE weight_atomic > 0)`.as("paid"),
      sql<string>`coalesce(sum(weight_atomic), 0)`.as("weight"),
    ])
    .executeTakeFirstOrThrow();
  const weight = BigInt(totals.weight);
  return {
    as_of_ms: atMs,
    totals: { live: Number(totals.live), paid: Number(totals.paid), weight_atomic: weight.toString(), weight_usd: formatUsd(weight) },
    top: ranked.slice(0, input.limit).map((r) => toNotice(r, atMs)),
  };
}

/** The top of a board for its feeds. */
export async function feedNotices(ctx: BoardCtx, boardId: string): Promise<{ board: Board; notices: Notice[] }> {
  const board = boardOf(ctx, boardId);
  const { ranked, atMs } = await rankedBoard(ctx, board.id);
  return { board, notices: ranked.slice(0, FEED_SIZE).map((r) => toNotice(r, atMs)) };
}

// ---------------------------------------------------------------- writes

export interface NoticeFields {
  title: string;
  body: string;
  handle?: string | undefined;
  url?: string | undefined;
  contact?: string | undefined;
  tags?: string[] | undefined;
}

/** Refuses a post to an unknown board before anything else happens (the route's precheck). */
export async function checkBoard({ ctx, input }: Op<{ board: string }>): Promise<void> {
  boardOf(ctx, input.board);
}

export async function postNotice({ ctx, input }: Op<NoticeFields & { board: string }>) {
  const board = boardOf(ctx, input.board);
  const now = ctx.deps.clock.now();
  const id = randomUUID();
  const ownerToken = newToken("nt_");
  await withTransaction(ctx.db, (trx) =>
    trx
      .insertInto("notices")
      .values({
        id,
        board: board.id,
        handle: input.handle ?? DEFAULT_HANDLE,
        title: input.title,
        body: input.body,
        url: input.url ?? null,
        contact: input.contact ?? null,
        tags: JSON.stringify(input.tags ?? []),
        owner_token_hash: hashToken(ownerToken),
        status: "live",
        created_ms: String(now),
        updated_ms: String(now),
        weight_atomic: "0",
        boosts_count: 0,
        score_anchor: 0,
        score_anchor_ms: String(now),
      })
      .execute(),
  );
  return {
    id,
    ownerToken,
    board: board.id,
    title: input.title,
    status: "live" as const,
    weight_atomic: "0",
    expires_ms: now + NOTICE_TTL_MS,
    read: `GET ${noticePath(board.id, id)}`,
    boostEndpoint: `POST ${noticePath(board.id, id)}/boost`,
    manageWith: `PATCH or DELETE ${noticePath(board.id, id)} with header x-notice-token`,
    note: "ownerToken is shown once and stored only as a hash: keep it to edit or remove this notice.",
  };
}

function checkOwner(row: { owner_token_hash: Buffer }, token: string | undefined): void {
  if (!tokenMatches(token, row.owner_token_hash)) {
    throw unauthorized("invalid_notice_token", "Missing or wrong x-notice-token for this notice.");
  }
}

export interface NoticeEdit extends Partial<Omit<NoticeFields, "url" | "contact">> {
  /** null clears. */
  url?: string | null | undefined;
  contact?: string | null | undefined;
}

export async function editNotice({ ctx, input }: Op<NoticeEdit & { board: string; id: string; ownerToken?: string | undefined }>) {
  boardOf(ctx, input.board);
  return withTransaction(ctx.db, async (trx) => {
    const tctx = { ...ctx, db: trx };
    const row = await findLive(tctx, input.board, input.id, true);
    checkOwner(row, input.ownerToken);
    const changes: { title?: string; body?: string; handle?: string; url?: string | null; contact?: string | null; tags?: string } = {};
    if (input.title !== undefined) changes.title = input.title;
    if (input.body !== undefined) changes.body = input.body;
    if (input.handle !== undefined) changes.handle = input.handle;
    if (input.url !== undefined) changes.url = input.url;
    if (input.contact !== undefined) changes.contact = input.contact;
    if (input.tags !== undefined) changes.tags = JSON.stringify(input.tags);
    const now = ctx.deps.clock.now();
    await trx
      .updateTable("notices")
      .set({ ...changes, updated_ms: String(now) })
      .where("id", "=", row.id)
      .execute();
    const updated = await findLive(tctx, input.board, input.id);
    return { notice: toNotice(asRanked(updated), rankingTime(now)) };
  });
}

export async function removeNotice({ ctx, input }: Op<{ board: string; id: string; ownerToken?: string | undefined }>) {
  boardOf(ctx, input.board);
  return withTransaction(ctx.db, async (trx) => {
    const row = await findLive({ ...ctx, db: trx }, input.board, input.id, true);
    checkOwner(row, input.ownerToken);
    await trx.updateTable("notices").set({ status: "removed", updated_ms: String(ctx.deps.clock.now()) }).where("id", "=", row.id).execute();
    return { id: row.id, removed: true as const, by: "owner" as const };
  });
}

/** Before the 402: the board and a live notice exist, so nobody pays to boost nothing. */
export async function checkBoost({ ctx, input }: Op<{ board: string; id: string }>): Promise<void> {
  boardOf(ctx, input.board);
  await findLive(ctx, input.board, input.id);
}

/**
 * Adds a paid boost: one notice_boosts row and the notice's new weight and
 * score, in the paywall's transaction (row lock on the notice, so two boosts
 * at once both count).
 */
export async function boostNotice({ ctx, input }: Op<{ board: string; id: string; amountAtomic: bigint }>) {
  boardOf(ctx, input.board);
  const payment = ctx.payment;
  if (!payment) throw new ServiceError("internal_error", "A boost runs only behind the paywall.");
  return withTransaction(ctx.db, async (trx) => {
    const tctx = { ...ctx, db: trx };
    const row = await findLive(tctx, input.board, input.id, true);
    const now = ctx.deps.clock.now();
    const next = applyBoost({ anchor: Number(row.score_anchor), anchorMs: Number(row.score_anchor_ms) }, input.amountAtomic, now);
    await trx
      .insertInto("notice_boosts")
      .values({
        id: randomUUID(),
        notice_id: row.id,
        amount_atomic: input.amountAtomic.toString(),
        payer: payment.payer,
        payment_nonce: payment.nonce,
        created_ms: String(now),
      })
      .execute();
    await trx
      .updateTable("notices")
      .set({
        weight_atomic: (BigInt(row.weight_atomic) + input.amountAtomic).toString(),
        boosts_count: row.boosts_count + 1,
        score_anchor: next.anchor,
        score_anchor_ms: String(next.anchorMs),
      })
      .where("id", "=", row.id)
      .execute();
    const updated = await findLive(tctx, input.board, input.id);
    // Scored at the boost's own time: the booster sees the amount just added.
    return { boosted_atomic: input.amountAtomic.toString(), notice: toNotice(asRanked(updated), now) };
  });
}
