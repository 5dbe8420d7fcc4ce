/**
 * The Penny Oracle: every QuestionDef becomes a paid GET route
 * (/v1/q/<path>, $0.001) in the route table, the free catalogue GET /v1/q
 * lists them, and the tool-only entry `service_q` dispatches
 * `{question, params}` to any of them (free over MCP). Answers are cached 10 s
 * per (question, params) with `as_of_ms` set when the answer was computed; a
 * burst of identical questions computes once. A source that is down answers
 * 503/502 with a clear code and nothing is cached: never stale data passed
 * off as fresh.
 */
import { z } from "zod";
import { LRUCache } from "lru-cache";
import type { Clock } from "../core/clock.js";
import { badRequest, inputIssues, ServiceError } from "../core/errors.js";
import { defineRoute, defineTool, type AnyRouteDef, type AnyToolOnlyDef } from "../http/route-table.js";
import { fixedAnswer } from "../http/respond.js";
import type { QuestionDef } from "./question.js";
import { chainOfPath, type SpecQuestion } from "./spec-questions.js";

export const ORACLE_PRICE_ATOMIC = 1_000n;
export const ORACLE_CACHE_MS = 10_000;
/** Distinct (question, params) answers kept at once; the oldest fall out first. */
export const ORACLE_CACHE_ENTRIES = 5_000;
/** `as_of_ms` of the example answers: 2026-01-01T00:00:00Z, the instant the questions' examples describe. */
export const ORACLE_EXAMPLE_AS_OF_MS = 1_767_225_600_000;

export type OracleAnswer = Record<string, unknown>;
type Compute = () => Promise<OracleAnswer>;

const asOf = z.object({ as_of_ms: z.number().int().describe("when the answer was computed (Unix ms); cached up to 10 s") });

/** What GET /v1/q returns. */
export const OracleCatalogue = z.object({
  price: z.string(),
  price_atomic: z.string().regex(/^\d+$/),
  cache_seconds: z.number().int(),
  mcp_dispatcher: z.literal("service_q"),
  questions: z.array(
    z.object({
      path: z.string(),
      question: z.string(),
      summary: z.string(),
      source: z.string(),
      chain: z.enum(["monero", "zcash", "ethereum"]),
      implemented: z.boolean().describe("false: a question of the contract this server does not answer yet (available is then false)"),
      available: z.boolean(),
      params: z.array(
        z.object({
          name: z.string(),
          required: z.boolean(),
          description: z.string(),
          allowed: z.array(z.string()).readonly().optional(),
          default: z.string().optional(),
          format: z.string().optional(),
        }),
      ),
    }),
  ),
  chains: z
    .record(z.string(), z.object({ questions: z.number().int(), implemented: z.number().int(), available: z.number().int() }))
    .describe("per chain: questions listed, implemented here, answerable now"),
});
export type OracleCatalogue = z.infer<typeof OracleCatalogue>;

/** The dispatcher's input: one question path (with or without /v1/q/) and its parameters. */
export const OracleDispatchInput = z
  .object({
    question: z.string().min(1).max(200).describe('question path, e.g. "xmr/height" (see GET /v1/q)'),
    params: z.record(z.string(), z.string()).optional().describe("the question's parameters, by name"),
  })
  .strict();

function paramsSchema(q: QuestionDef): z.ZodType<Record<string, string | undefined>> {
  const shape: Record<string, z.ZodType<string | undefined>> = {};
  for (const p of q.params) {
    const text = z.string().min(1).max(p.maxLength ?? 200);
    let s: z.ZodType<string | undefined> = p.allowed
      ? z.enum(p.allowed as [string, ...string[]], { message: `${p.name} must be one of: ${p.allowed.join(", ")}` })
      : p.pattern
        ? text.regex(p.pattern.regex, p.pattern.message)
        : text;
    if (!p.required) s = p.default !== undefined ? s.default(p.default) : s.optional();
    shape[p.name] = s;
  }
  return z.object(shape).strict();
}

/** The published answer of a question: its own fields plus as_of_ms. */
function answerSchema(q: QuestionDef): z.ZodObject {
  return q.answer.extend(asOf.shape);
}

export interface OracleRegistry {
  questions: readonly QuestionDef[];
  /** One paid GET route per question. */
  routes: AnyRouteDef[];
  /** The `service_q` dispatcher: an MCP tool with no HTTP route of its own. */
  tools: AnyToolOnlyDef[];
  catalogue(): OracleCatalogue;
  ask(path: string, params: Record<string, string | undefined>): Promise<OracleAnswer>;
}

/**
 * `planned`: the contract's question list; those without a declaration are
 * listed in the catalogue as not implemented (and not available), in the
 * list's order, with the declared questions in their places.
 */
export function createOracleRegistry(questions: readonly QuestionDef[], clock: Clock, planned: readonly SpecQuestion[] = []): OracleRegistry {
  const byPath = new Map(questions.map((q) => [q.path, q]));
  if (byPath.size !== questions.length) throw new Error("duplicate oracle question path");
  // fetch() de-duplicates concurrent misses of one key; a rejected compute is not kept.
  const cache = new LRUCache<string, OracleAnswer, Compute>({
    max: ORACLE_CACHE_ENTRIES,
    // lru-cache keeps an entry while its age is <= ttl; an answer expires when 10 s have passed.
    ttl: ORACLE_CACHE_MS - 1,
    // The injected clock decides expiry (tests move it); resolution 0 so a moved clock is seen at once.
    perf: clock,
    ttlResolution: 0,
    fetchMethod: (_key, _stale, { context }) => context(),
  });

  async function answer(q: QuestionDef, params: Record<string, string | undefined>): Promise<OracleAnswer> {
    const key = `${q.path}?${Object.keys(params)
      .sort()
      .map((k) => `${k}=${params[k] ?? ""}`)
      .join("&")}`;
    const compute: Compute = async () => ({ ...(await q.answerQuestion(params)), as_of_ms: clock.now() });
    const value = await cache.fetch(key, { context: compute });
    // fetch() yields undefined only when the entry is evicted mid-flight; answer directly then.
    return value ?? compute();
  }

  function find(path: string): QuestionDef {
    const q = byPath.get(path.replace(/^\/?(v1\/q\/)?/, ""));
    if (!q)
      throw new ServiceError("unknown_question", `No oracle question "${path}". See GET /v1/q.`, {
        valid_questions: questions.map((x) => x.path),
      });
    return q;
  }

  async function ask(path: string, params: Record<string, string | undefined>): Promise<OracleAnswer> {
    const q = find(path);
    const parsed = paramsSchema(q).safeParse(params);
    if (!parsed.success) {
      throw badRequest("invalid_input", "The question's parameters are invalid.", { issues: inputIssues(parsed.error) });
    }
    q.check?.(parsed.data);
    return answer(q, parsed.data);
  }

  const routes: AnyRouteDef[] = questions.map((q) =>
    defineRoute({
      method: "GET",
      path: `/v1/q/${q.path}`,
      operationId: `q_${q.path.replace(/[^a-z0-9]+/gi, "_")}`,
      summary: q.summary,
      tags: ["oracle"],
      input: paramsSchema(q),
      output: answerSchema(q),
      price: ORACLE_PRICE_ATOMIC,
      readOnly: true,
      ...(q.example ? { example: { input: q.example.params ?? {}, output: { ...q.example.answer, as_of_ms: ORACLE_EXAMPLE_AS_OF_MS } } } : {}),
      ...(q.check ? { precheck: async (input: Record<string, string | undefined>) => q.check!(input) } : {}),
      handler: (input) => answer(q, input),
    }),
  );

  const answers = questions.map(answerSchema);
  const anyAnswer: z.ZodType<OracleAnswer> =
    answers.length === 0 ? asOf : answers.length === 1 ? answers[0]! : z.union([answers[0]!, ...answers.slice(1)]);
  const tools: AnyToolOnlyDef[] = [
    defineTool({
      operationId: "oracleDispatch",
      mcpTool: "service_q",
      summary: "Ask any Penny Oracle question (/v1/q/*) by path with its parameters; free over MCP",
      tags: ["oracle"],
      input: OracleDispatchInput,
      output: anyAnswer,
      handler: ({ question, params }) => ask(question, params ?? {}),
    }),
  ];

  let catalogueCache: { key: string; value: OracleCatalogue } | undefined;
  return {
    questions,
    routes,
    tools,
    // Rebuilt only when a question's availability changed; otherwise the same fixed answer, serialized once (respond.ts).
    catalogue: () => {
      const key = questions.map((q) => (q.available() ? "1" : "0")).join("");
      if (catalogueCache?.key !== key) catalogueCache = { key, value: fixedAnswer(buildCatalogue(questions, byPath, planned)) };
      return catalogueCache.value;
    },
    ask,
  };
}

/** The catalogue as it stands: every planned question in its place, then the rest; availability as the sources say now. */
function buildCatalogue(questions: readonly QuestionDef[], byPath: Map<string, QuestionDef>, planned: readonly SpecQuestion[]): OracleCatalogue {
  const declared = (q: QuestionDef) => ({
    path: `/v1/q/${q.path}`,
    question: q.path,
    summary: q.summary,
    source: q.source,
    chain: chainOfPath(q.path),
    implemented: true,
    available: q.available(),
    params: q.params.map((p) => ({
      name: p.name,
      required: p.required,
      description: p.description,
      ...(p.allowed ? { allowed: [...p.allowed] } : {}),
      ...(p.default !== undefined ? { default: p.default } : {}),
      ...(p.format ? { format: p.format } : {}),
    })),
  });
  const listed = [
    ...planned.map((sq) => {
      const q = byPath.get(sq.path);
      if (q) return declared(q);
      return {
        path: `/v1/q/${sq.path}`,
        question: sq.path,
        summary: sq.summary,
        source: "none",
        chain: sq.chain,
        implemented: false,
        available: false,
        params: sq.params.map((p) => ({ name: p.name, required: p.required, description: "(not implemented on this server yet)" })),
      };
    }),
    ...questions.filter((q) => !planned.some((sq) => sq.path === q.path)).map(declared),
  ];
  const chains: Record<string, { questions: number; implemented: number; available: number }> = {};
  for (const q of listed) {
    const c = (chains[q.chain] ??= { questions: 0, implemented: 0, available: 0 });
    c.questions++;
    if (q.implemented) c.implemented++;
    if (q.available) c.available++;
  }
  return {
    price: "$0.001",
    price_atomic: ORACLE_PRICE_ATOMIC.toString(),
    cache_seconds: ORACLE_CACHE_MS / 1000,
    mcp_dispatcher: "service_q" as const,
    questions: listed,
    chains,
  };
}
