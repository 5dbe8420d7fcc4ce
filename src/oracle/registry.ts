/**
 * The Penny Oracle: every QuestionDef becomes a paid GET route
 * (/v1/q/<path>, $0.001) in the route table, the free catalogue GET /v1/q
 * lists them, and answers are cached 10 s per (question, params) with
 * `as_of_ms` set when the answer was computed. A source that is down answers
 * 503/502 with a clear code: never stale data passed off as fresh.
 */
import { z } from "zod";
import type { Clock } from "../core/clock.js";
import { badRequest, notFound } from "../core/errors.js";
import { defineRoute, type RouteDef } from "../http/route-table.js";
import type { QuestionDef } from "./question.js";

export const ORACLE_PRICE_ATOMIC = 1_000n;
export const ORACLE_CACHE_MS = 10_000;

interface CacheEntry {
  expires: number;
  answer: Record<string, unknown>;
}

/** A small TTL cache with in-flight de-duplication, so a burst computes once. */
export class AnswerCache {
  private readonly entries = new Map<string, CacheEntry>();
  private readonly inflight = new Map<string, Promise<Record<string, unknown>>>();
  constructor(
    private readonly clock: Clock,
    private readonly ttlMs: number,
    private readonly maxEntries = 5_000,
  ) {}

  async get(key: string, compute: () => Promise<Record<string, unknown>>): Promise<Record<string, unknown>> {
    const hit = this.entries.get(key);
    if (hit && hit.expires > this.clock.now()) return hit.answer;
    const running = this.inflight.get(key);
    if (running) return running;
    const p = compute()
      .then((answer) => {
        if (this.entries.size >= this.maxEntries) this.entries.delete(this.entries.keys().next().value as string);
        this.entries.set(key, { expires: this.clock.now() + this.ttlMs, answer });
        return answer;
      })
      .finally(() => this.inflight.delete(key));
    this.inflight.set(key, p);
    return p;
  }
}

function paramsSchema(q: QuestionDef): z.ZodType {
  const shape: Record<string, z.ZodType> = {};
  for (const p of q.params) {
    let s: z.ZodType = p.allowed
      ? z.enum(p.allowed as [string, ...string[]], { message: `${p.name} must be one of: ${p.allowed.join(", ")}` })
      : z.string().min(1).max(200);
    if (!p.required) s = p.default !== undefined ? s.default(p.default) : s.optional();
    shape[p.name] = s;
  }
  return z.object(shape).strict();
}

export interface OracleRegistry {
  questions: readonly QuestionDef[];
  routes: RouteDef[];
  catalogue(): Record<string, unknown>;
  ask(path: string, params: Record<string, string | undefined>): Promise<Record<string, unknown>>;
}

export function createOracleRegistry(questions: readonly QuestionDef[], clock: Clock): OracleRegistry {
  const byPath = new Map(questions.map((q) => [q.path, q]));
  if (byPath.size !== questions.length) throw new Error("duplicate oracle question path");
  const cache = new AnswerCache(clock, ORACLE_CACHE_MS);

  async function answer(q: QuestionDef, params: Record<string, string | undefined>): Promise<Record<string, unknown>> {
    const key = `${q.path}?${Object.keys(params)
      .sort()
      .map((k) => `${k}=${params[k] ?? ""}`)
      .join("&")}`;
    return cache.get(key, async () => {
      const body = await q.answerQuestion(params);
      return { ...body, as_of_ms: clock.now() };
    });
  }

  const routes: RouteDef[] = questions.map((q) =>
    defineRoute({
      method: "GET",
      path: `/v1/q/${q.path}`,
      operationId: `q_${q.path.replace(/[^a-z0-9]+/gi, "_")}`,
      summary: q.summary,
      tags: ["oracle"],
      input: paramsSchema(q),
      output: q.answer,
      price: ORACLE_PRICE_ATOMIC,
      readOnly: true,
      handler: (input) => answer(q, input as Record<string, string | undefined>),
    }),
  );

  return {
    questions,
    routes,
    catalogue() {
      return {
        price: "$0.001",
        price_atomic: ORACLE_PRICE_ATOMIC.toString(),
        cache_seconds: ORACLE_CACHE_MS / 1000,
        mcp_dispatcher: "service_q",
        questions: questions.map((q) => ({
          path: `/v1/q/${q.path}`,
          question: q.path,
          summary: q.summary,
          source: q.source,
          available: q.available(),
          params: q.params.map((p) => ({
            name: p.name,
            required: p.required,
            description: p.description,
            ...(p.allowed ? { allowed: p.allowed } : {}),
            ...(p.default !== undefined ? { default: p.default } : {}),
            ...(p.format ? { format: p.format } : {}),
          })),
        })),
      };
    },
    async ask(path, params) {
      const q = byPath.get(path.replace(/^\/?(v1\/q\/)?/, ""));
      if (!q) {
        throw notFound("unknown_question", `No oracle question "${path}". See GET /v1/q.`);
      }
      const parsed = paramsSchema(q).safeParse(params);
      if (!parsed.success) {
        throw badRequest("invalid_input", "The question's parameters are invalid.", {
          issues: parsed.error.issues.map((i) => ({ path: i.path.join("."), message: i.message })),
        });
      }
      return answer(q, parsed.data as Record<string, string | undefined>);
    },
  };
}
