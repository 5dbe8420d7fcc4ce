/**
 * A route's input, as one object: the query string (GET/DELETE) or the JSON
 * body (POST/PATCH), then path params and mapped headers on top; validated
 * with the route's schema by the call pipeline (pipeline.ts). Anything wrong
 * is a 400 (`invalid_json` here, `invalid_input` there) naming each issue,
 * before any rate limit, precheck or payment.
 *
 * One rule for names the route does not know, in the query string and in the
 * body alike: they are ignored (a cache-buster `?_=123` or an extra field an
 * agent adds never turns a call into a 400), and the answer lists them in the
 * `Vigil-Ignored-Input` header so a misspelt optional field is visible
 * (docs/api.md, "Unknown parameters").
 */
import type { Context } from "hono";
import { ServiceError } from "../core/errors.js";
import type { AnyRouteDef } from "./route-table.js";

export async function readRawInput(c: Context, route: AnyRouteDef): Promise<Record<string, unknown>> {
  let raw: Record<string, unknown> = {};
  if (route.method === "POST" || route.method === "PATCH") {
    const text = await c.req.text();
    if (text.trim() !== "") {
      let parsed: unknown;
      try {
        parsed = JSON.parse(text);
      } catch {
        throw new ServiceError("invalid_json", "The request body is not valid JSON.");
      }
      if (parsed === null || typeof parsed !== "object" || Array.isArray(parsed))
        throw new ServiceError("invalid_json", "The request body must be a JSON object.");
      raw = parsed as Record<string, unknown>;
    }
  } else {
    raw = { ...c.req.query() };
  }
  Object.assign(raw, c.req.param());
  for (const [header, field] of Object.entries(route.headerInputs ?? {})) {
    // Header-borne credentials come only from their header, never from a URL that proxies log.
    delete raw[field];
    const v = c.req.header(header);
    if (v !== undefined) raw[field] = v;
  }
  return raw;
}

/** Response header naming the query parameters / body fields a route ignored. */
export const IGNORED_INPUT_HEADER = "Vigil-Ignored-Input";

type ZodInternals = { _zod?: { def?: Record<string, unknown> } };

/**
 * The top-level field names a schema reads, or undefined when it takes any
 * name (a passthrough/catchall object, or a shape this cannot see through).
 */
export function knownInputKeys(schema: unknown): Set<string> | undefined {
  const def = (schema as ZodInternals)?._zod?.def;
  if (!def) return undefined;
  switch (def.type) {
    case "object": {
      const catchall = def.catchall as ZodInternals | undefined;
      if (catchall && catchall._zod?.def?.type !== "never") return undefined;
      return new Set(Object.keys(def.shape as Record<string, unknown>));
    }
    case "pipe":
      return knownInputKeys(def.in);
    case "optional":
    case "nullable":
    case "default":
    case "prefault":
    case "readonly":
    case "catch":
      return knownInputKeys(def.innerType);
    case "union": {
      const all = new Set<string>();
      for (const option of def.options as unknown[]) {
        const keys = knownInputKeys(option);
        if (!keys) return undefined;
        for (const k of keys) all.add(k);
      }
      return all;
    }
    case "intersection": {
      const left = knownInputKeys(def.left);
      const right = knownInputKeys(def.right);
      return left && right ? new Set([...left, ...right]) : undefined;
    }
    default:
      return undefined;
  }
}

/** Removes the names the route's schema does not read; returns them (sorted) so the answer can list them. */
export function dropUnknownInput(route: AnyRouteDef, raw: Record<string, unknown>): string[] {
  return dropUnknownKeys(route.input, raw);
}

/** Removes the names an input schema does not read (none when it reads any name); returns them sorted. */
export function dropUnknownKeys(schema: unknown, raw: Record<string, unknown>): string[] {
  const known = knownInputKeys(schema);
  if (!known) return [];
  const ignored = Object.keys(raw).filter((k) => !known.has(k)).sort();
  for (const k of ignored) delete raw[k];
  return ignored;
}

/**
 * What the request sent, as the router reads it for every route: unknown
 * names are dropped and listed in the `Vigil-Ignored-Input` header.
 */
export async function sentInput(c: Context, route: AnyRouteDef): Promise<Record<string, unknown>> {
  const raw = await readRawInput(c, route);
  const ignored = dropUnknownInput(route, raw);
  if (ignored.length > 0) c.header(IGNORED_INPUT_HEADER, ignored.map((k) => encodeURIComponent(k)).join(", ").slice(0, 1024));
  return raw;
}
