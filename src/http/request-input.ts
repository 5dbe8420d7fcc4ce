/**
 * A route's input, as one object: the query string (GET/DELETE) or the JSON
 * body (POST/PATCH), then path params and mapped headers on top; validated with the
 * route's schema. Anything wrong is a 400 (`invalid_json`, `invalid_input`)
 * naming each issue, before any rate limit, precheck or payment.
 */
import type { Context } from "hono";
import type { z } from "zod";
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
        throw new ServiceError(400, "invalid_json", "The request body is not valid JSON.");
      }
      if (parsed === null || typeof parsed !== "object" || Array.isArray(parsed))
        throw new ServiceError(400, "invalid_json", "The request body must be a JSON object.");
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

function zodDetails(error: z.ZodError): Record<string, unknown> {
  return {
    issues: error.issues.map((i) => ({ path: i.path.join("."), message: i.message })),
  };
}

/** The route's validated input: what its schema outputs, which is what its handler takes. */
export function validateInput(route: AnyRouteDef, raw: Record<string, unknown>): unknown {
  const parsed = route.input.safeParse(raw);
  if (!parsed.success) {
    throw new ServiceError(400, "invalid_input", "The request input is invalid.", zodDetails(parsed.error));
  }
  return parsed.data;
}

/** Reads and validates in one step, as the router does for every route. */
export async function requestInput(c: Context, route: AnyRouteDef): Promise<unknown> {
  return validateInput(route, await readRawInput(c, route));
}
