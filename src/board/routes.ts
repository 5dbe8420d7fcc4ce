/**
 * The notice-board routes: thin adapters over service.ts. Order matters for
 * the router: the fixed paths (`/v1/board/leaderboard`, the feeds) come before
 * the `:board` / `:id` patterns they would otherwise match.
 */
import { z } from "zod";
import { defineRoute, RawBody, type AnyRouteDef, type RequestContext } from "../http/route-table.js";
import type { BoardCtx, BoardDeps } from "./deps.js";
import { JsonFeedDocument, renderJsonFeed, renderRss } from "./feeds.js";
import {
  BOOST_MAX_ATOMIC,
  BOOST_MIN_ATOMIC,
  POSTS_PER_HOUR,
  boostNotice,
  checkBoard,
  checkBoost,
  editNotice,
  feedNotices,
  listBoards,
  postNotice,
  readBoard,
  readLeaderboard,
  readNotice,
  removeNotice,
} from "./service.js";
import { BodySchema, ContactSchema, HandleSchema, TagsSchema, TitleSchema, UrlSchema } from "./text.js";

const BoardId = z.string().min(1).max(64);
const NoticeRef = z.object({ board: BoardId, id: z.string().uuid() });

const NoticeOutput = z.object({
  id: z.string(),
  board: z.string(),
  handle: z.string(),
  title: z.string(),
  body: z.string(),
  url: z.string().nullable(),
  contact: z.string().nullable(),
  tags: z.array(z.string()),
  created_ms: z.number().int(),
  updated_ms: z.number().int(),
  expires_ms: z.number().int().nullable(),
  weight_atomic: z.string(),
  weight_usd: z.string(),
  boosts_count: z.number().int(),
  score_atomic: z.string(),
  status: z.literal("live"),
});

/** A $0.25 boost of a bounty notice on 2026-01-01, for catalogues and agents (the bazaar extension of the 402). */
const BOOST_EXAMPLE = {
  input: { board: "bounties", id: "742a0374-09ea-42eb-9cdf-06fe40c1d01d", amountAtomic: "250000" },
  output: {
    boosted_atomic: "250000",
    notice: {
      id: "742a0374-09ea-42eb-9cdf-06fe40c1d01d",
      board: "bounties",
      handle: "zec-indexer",
      title: "Index the Ironwood pool history since activation",
      body: "Paying 2 ZEC for a CSV of Ironwood pool balances per block since NU6.3 activation. Contact below.",
      url: "https://example.org/ironwood-bounty",
      contact: "ops@example.org",
      tags: ["zcash", "data"],
      created_ms: 1_766_966_400_000,
      updated_ms: 1_766_966_400_000,
      expires_ms: null,
      weight_atomic: "350000",
      weight_usd: "$0.35",
      boosts_count: 2,
      score_atomic: "341213",
      status: "live",
    },
  },
} satisfies { input: Record<string, unknown>; output: z.input<typeof BoostOutput> };

const BoostOutput = z.object({ boosted_atomic: z.string(), notice: NoticeOutput });

const BoardInfo = z.object({ id: z.string(), title: z.string(), description: z.string() });

const NoticeFieldsInput = z.object({
  title: TitleSchema,
  body: BodySchema,
  handle: HandleSchema.optional(),
  url: UrlSchema.optional(),
  contact: ContactSchema.optional(),
  tags: TagsSchema.optional(),
});

/** Query numbers arrive as strings. */
const intParam = (min: number, max: number, dflt: number) =>
  z
    .union([z.string().regex(/^\d{1,6}$/), z.number().int()])
    .transform((v) => Number(v))
    .pipe(z.number().int().min(min).max(max))
    .default(dflt);

const ListOutput = z.object({
  boards: z.array(
    BoardInfo.extend({
      live: z.number().int(),
      paid: z.number().int(),
      read: z.string(),
      post: z.string(),
      feed_rss: z.string(),
      feed_json: z.string(),
    }),
  ),
  totals: z.object({ live: z.number().int(), paid: z.number().int() }),
  leaderboard: z.string(),
  posting: z.object({
    free: z.boolean(),
    free_rate_limit: z.string(),
    boost_endpoint: z.string(),
    boost: z.object({ min_usd: z.string(), max_usd: z.string(), min_atomic: z.string(), max_atomic: z.string() }),
    model: z.string(),
  }),
});

/** Turns a request into the board operations' context (the x402 payer and nonce when the call paid). */
type BoardCtxOf = (ctx: RequestContext) => BoardCtx;

function boardCtxOf(deps: BoardDeps): BoardCtxOf {
  return (ctx) => ({
    deps,
    db: ctx.db,
    ...(ctx.payment ? { payment: { payer: ctx.payment.payer, nonce: ctx.payment.nonce } } : {}),
  });
}

/** The board's routes in router order (the header says why the order matters). */
export function boardRoutes(deps: BoardDeps): AnyRouteDef[] {
  const ctxOf = boardCtxOf(deps);
  return [
    listRoute(ctxOf),
    leaderboardRoute(ctxOf),
    feedRoute(ctxOf, "rss"),
    feedRoute(ctxOf, "json"),
    readRoute(ctxOf),
    postRoute(ctxOf),
    noticeRoute(ctxOf),
    editRoute(ctxOf),
    removeRoute(ctxOf),
    boostRoute(ctxOf),
  ];
}

function listRoute(ctxOf: BoardCtxOf) {
  return defineRoute({
    method: "GET",
    path: "/v1/board",
    operationId: "boardList",
    mcpTool: "service_board_list",
    summary: "The notice boards, their live and boosted counts, and how posting and boosting work",
    tags: ["board"],
    input: z.object({}).strict(),
    output: ListOutput,
    etag: true,
    handler: (_input, ctx) => listBoards({ ctx: ctxOf(ctx), input: {} }),
  });
}

function leaderboardRoute(ctxOf: BoardCtxOf) {
  return defineRoute({
    method: "GET",
    path: "/v1/board/leaderboard",
    operationId: "boardLeaderboard",
    mcpTool: "service_board_leaderboard",
    summary: "The most boosted live notices across all boards, by decayed boost score",
    tags: ["board"],
    input: z.object({ limit: intParam(1, 100, 20) }).strict(),
    output: z.object({
      as_of_ms: z.number().int(),
      totals: z.object({ live: z.number().int(), paid: z.number().int(), weight_atomic: z.string(), weight_usd: z.string() }),
      top: z.array(NoticeOutput),
    }),
    etag: true,
    handler: (input, ctx) => readLeaderboard({ ctx: ctxOf(ctx), input }),
  });
}

function feedRoute(ctxOf: BoardCtxOf, kind: "rss" | "json") {
  return defineRoute({
    method: "GET",
    path: kind === "rss" ? "/v1/board/:board/feed.xml" : "/v1/board/:board/feed.json",
    operationId: kind === "rss" ? "boardFeedRss" : "boardFeedJson",
    summary: kind === "rss" ? "A board's top 50 notices as RSS 2.0" : "A board's top 50 notices as JSON Feed 1.1",
    tags: ["board"],
    input: z.object({ board: BoardId }).strict(),
    // The JSON Feed's schema is published (OpenAPI), though the answer is rendered text like the RSS.
    output: kind === "rss" ? z.string() : JsonFeedDocument,
    mimeType: kind === "rss" ? "application/rss+xml" : "application/feed+json",
    etag: true,
    handler: async (input, ctx) => {
      const { board, notices } = await feedNotices(ctxOf(ctx), input.board);
      return kind === "rss"
        ? new RawBody(renderRss(ctx.baseUrl, board, notices), "application/rss+xml; charset=utf-8")
        : new RawBody(renderJsonFeed(ctx.baseUrl, board, notices), "application/feed+json; charset=utf-8");
    },
  });
}

function readRoute(ctxOf: BoardCtxOf) {
  return defineRoute({
    method: "GET",
    path: "/v1/board/:board",
    operationId: "boardRead",
    mcpTool: "service_board_read",
    summary: "A board's live notices, ranked: boosted by decayed score, then unboosted newest first",
    tags: ["board"],
    input: z.object({ board: BoardId, limit: intParam(1, 200, 50), offset: intParam(0, 100_000, 0) }).strict(),
    output: z.object({
      board: BoardInfo,
      as_of_ms: z.number().int(),
      count: z.number().int(),
      limit: z.number().int(),
      offset: z.number().int(),
      notices: z.array(NoticeOutput),
    }),
    etag: true,
    handler: (input, ctx) => readBoard({ ctx: ctxOf(ctx), input }),
  });
}

function postRoute(ctxOf: BoardCtxOf) {
  return defineRoute({
    method: "POST",
    path: "/v1/board/:board",
    operationId: "boardPost",
    mcpTool: "service_board_post",
    summary: `Post a notice (free, ${POSTS_PER_HOUR} per hour per IP); answers the owner token once`,
    tags: ["board"],
    input: NoticeFieldsInput.extend({ board: BoardId }).strict(),
    output: z.object({
      id: z.string(),
      ownerToken: z.string(),
      board: z.string(),
      title: z.string(),
      status: z.literal("live"),
      weight_atomic: z.string(),
      expires_ms: z.number().int(),
      read: z.string(),
      boostEndpoint: z.string(),
      manageWith: z.string(),
      note: z.string(),
    }),
    successStatus: 201,
    rateLimit: { points: POSTS_PER_HOUR, windowSeconds: 3600 },
    precheck: (input, ctx) => checkBoard({ ctx: ctxOf(ctx), input }),
    handler: (input, ctx) => postNotice({ ctx: ctxOf(ctx), input }),
  });
}

function noticeRoute(ctxOf: BoardCtxOf) {
  return defineRoute({
    method: "GET",
    path: "/v1/board/:board/:id",
    operationId: "boardNotice",
    mcpTool: "service_board_notice",
    summary: "One live notice",
    tags: ["board"],
    input: NoticeRef.strict(),
    output: z.object({ notice: NoticeOutput }),
    etag: true,
    handler: (input, ctx) => readNotice({ ctx: ctxOf(ctx), input }),
  });
}

/** What an edit may change: a PATCH names at least one of them. */
const EDITABLE_FIELDS = ["title", "body", "handle", "url", "contact", "tags"] as const;

function editRoute(ctxOf: BoardCtxOf) {
  return defineRoute({
    method: "PATCH",
    path: "/v1/board/:board/:id",
    operationId: "boardEdit",
    mcpTool: "service_board_edit",
    summary: "Edit your notice (header x-notice-token): any of title, body, handle, url, contact, tags (null clears url or contact)",
    tags: ["board"],
    input: NoticeFieldsInput.partial()
      .extend({
        // null clears the optional fields.
        url: UrlSchema.nullable().optional(),
        contact: ContactSchema.nullable().optional(),
        board: BoardId,
        id: z.string().uuid(),
        ownerToken: z.string().max(256).optional(),
      })
      .strict()
      .refine((v) => EDITABLE_FIELDS.some((k) => v[k] !== undefined), {
        message: `give at least one of ${EDITABLE_FIELDS.join(", ")}`,
      }),
    headerInputs: { "x-notice-token": "ownerToken" },
    inputAlternatives: { sets: EDITABLE_FIELDS.map((f) => [f]), exactlyOne: false },
    output: z.object({ notice: NoticeOutput }),
    handler: (input, ctx) => editNotice({ ctx: ctxOf(ctx), input }),
  });
}

function removeRoute(ctxOf: BoardCtxOf) {
  return defineRoute({
    method: "DELETE",
    path: "/v1/board/:board/:id",
    operationId: "boardRemove",
    mcpTool: "service_board_remove",
    summary: "Remove your notice (header x-notice-token)",
    tags: ["board"],
    input: NoticeRef.extend({ ownerToken: z.string().max(256).optional() }).strict(),
    headerInputs: { "x-notice-token": "ownerToken" },
    output: z.object({ id: z.string(), removed: z.literal(true), by: z.literal("owner") }),
    handler: (input, ctx) => removeNotice({ ctx: ctxOf(ctx), input }),
  });
}

function boostRoute(ctxOf: BoardCtxOf) {
  return defineRoute({
    method: "POST",
    path: "/v1/board/:board/:id/boost",
    operationId: "boardBoost",
    mcpTool: "service_board_boost",
    summary: "Boost any notice ($0.10 to $25, priced from amountAtomic); the weight decays with a 7-day half-life",
    tags: ["board"],
    input: NoticeRef.extend({
      amountAtomic: z
        .union([z.string().regex(/^\d{1,12}$/), z.number().int().nonnegative()])
        .meta({ examples: ["250000"] })
        .transform((v) => BigInt(v))
        .refine((v) => v >= BOOST_MIN_ATOMIC && v <= BOOST_MAX_ATOMIC, {
          message: `amountAtomic must be between ${BOOST_MIN_ATOMIC} and ${BOOST_MAX_ATOMIC} (USD 0.10 to 25)`,
        }),
    }).strict(),
    output: BoostOutput,
    price: (input) => input.amountAtomic,
    priceRange: { min: BOOST_MIN_ATOMIC, max: BOOST_MAX_ATOMIC },
    example: BOOST_EXAMPLE,
    precheck: (input, ctx) => checkBoost({ ctx: ctxOf(ctx), input }),
    handler: (input, ctx) => boostNotice({ ctx: ctxOf(ctx), input }),
  });
}
